#include "debugfs/counters.h"

#include <algorithm>

namespace memcg_statctl {

bool Counters::add(std::string name, std::uint64_t value) {
    if (get(name)) {
        return false;
    }
    entries_.emplace_back(std::move(name), value);
    return true;
}

std::optional<std::uint64_t> Counters::get(std::string_view name) const {
    const auto it = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const Entry& e) { return e.first == name; });
    if (it == entries_.end()) {
        return std::nullopt;
    }
    return it->second;
}

bool Counters::is_maximum(std::string_view name) {
    return name.ends_with("_max");
}

Counters Counters::delta(const Counters& before, const Counters& after) {
    Counters out;
    for (const auto& [name, value] : after.entries()) {
        if (const auto old = before.get(name)) {
            if (is_maximum(name)) {
                out.add(name, value);
            } else {
                out.add(name, value >= *old ? value - *old : 0);
            }
        }
    }
    return out;
}

} // namespace memcg_statctl
