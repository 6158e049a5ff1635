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

namespace {

std::optional<double> ratio(double num, double den) {
    if (den == 0) {
        return std::nullopt;
    }
    return num / den;
}

std::optional<double> scaled(std::optional<double> v, double factor, double offset = 0) {
    if (!v) {
        return std::nullopt;
    }
    return offset + (factor * *v);
}

} // namespace

std::vector<DerivedValue> derive(const Counters& counts, std::optional<double> seconds) {
    std::vector<DerivedValue> out;
    const auto performed = counts.get("flush.performed");
    const auto ns_total = counts.get("flush.ns_total");
    if (performed && seconds) {
        out.push_back({"flushes_per_sec", "/s", ratio(static_cast<double>(*performed), *seconds)});
    }
    if (performed && ns_total) {
        out.push_back({"ns_per_flush", "ns",
                       ratio(static_cast<double>(*ns_total), static_cast<double>(*performed))});
    }
    // hit % = 100 * (1 - misses / attempts), for each stock (the measure of
    // docs/background.md#obj-stock-vmstat).
    // A charge that retries after reclaim (memory.max) consults the stock
    // again and can miss again, while it is one attempt: with more misses
    // than attempts the ratio means nothing, so it is shown as unknown.
    for (const std::string stock : {"charge_stock", "obj_stock"}) {
        const auto attempts = counts.get(stock + ".attempts");
        const auto misses = counts.get(stock + ".misses");
        if (attempts && misses) {
            out.push_back({stock + "_hit_pct", "%",
                           *misses > *attempts ? std::nullopt
                                               : scaled(ratio(static_cast<double>(*misses),
                                                              static_cast<double>(*attempts)),
                                                        -100, 100)});
        }
    }
    // The vmstat miss rate of docs/background.md#obj-stock-vmstat: the stat pushes of
    // mod_objcg_state over its calls.
    const auto updates = counts.get("objcg_vmstat.updates");
    const auto flushes = counts.get("objcg_vmstat.flushes");
    if (updates && flushes) {
        out.push_back(
            {"objcg_vmstat_miss_pct", "%",
             scaled(ratio(static_cast<double>(*flushes), static_cast<double>(*updates)), 100)});
    }
    return out;
}

std::optional<double> derived_value(const std::vector<DerivedValue>& values,
                                    std::string_view name) {
    for (const auto& d : values) {
        if (d.name == name) {
            return d.value;
        }
    }
    return std::nullopt;
}

} // namespace memcg_statctl
