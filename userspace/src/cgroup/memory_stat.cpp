#include "cgroup/memory_stat.h"

#include <algorithm>
#include <charconv>

#include "text_util.h"

namespace memcg_statctl {
namespace {

const std::int64_t* find(const MemoryStat& s, std::string_view name) {
    const auto it =
        std::find_if(s.begin(), s.end(), [&](const auto& e) { return e.first == name; });
    return it == s.end() ? nullptr : &it->second;
}

} // namespace

const std::vector<std::string_view>& memory_stat_fields() {
    static const std::vector<std::string_view> fields = {
        "pgfault", "pgmajfault", "workingset_refault_anon", "workingset_refault_file", "anon",
        "file",    "slab"};
    return fields;
}

MemoryStat parse_memory_stat(std::string_view text) {
    MemoryStat found;
    for (const auto line : split_lines(text)) {
        const auto f = split_whitespace(line);
        if (f.size() != 2) {
            continue;
        }
        const auto& fields = memory_stat_fields();
        if (std::find(fields.begin(), fields.end(), f[0]) == fields.end()) {
            continue;
        }
        std::int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(f[1].data(), f[1].data() + f[1].size(), v);
        if (ec == std::errc() && ptr == f[1].data() + f[1].size()) {
            found.emplace_back(std::string(f[0]), v);
        }
    }
    MemoryStat ordered;
    for (const auto name : memory_stat_fields()) {
        if (const auto* v = find(found, name)) {
            ordered.emplace_back(std::string(name), *v);
        }
    }
    return ordered;
}

MemoryStat memory_stat_delta(const MemoryStat& before, const MemoryStat& after) {
    MemoryStat d;
    for (const auto& [name, value] : after) {
        if (const auto* b = find(before, name)) {
            d.emplace_back(name, value - *b);
        }
    }
    return d;
}

MemoryStat memory_stat_sum(const MemoryStat& a, const MemoryStat& b) {
    MemoryStat s = a;
    for (const auto& entry : b) {
        const auto it =
            std::find_if(s.begin(), s.end(), [&](const auto& e) { return e.first == entry.first; });
        if (it == s.end()) {
            s.push_back(entry);
        } else {
            it->second += entry.second;
        }
    }
    return s;
}

} // namespace memcg_statctl
