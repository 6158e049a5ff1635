// The module's counters as read from `stats`: names in file order, u64 values.
// Order is kept because the module groups related counters; lookup is by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memcg_statctl {

class Counters {
public:
    using Entry = std::pair<std::string, std::uint64_t>;

    // Returns false (and changes nothing) if the name is already present.
    bool add(std::string name, std::uint64_t value);
    std::optional<std::uint64_t> get(std::string_view name) const;
    const std::vector<Entry>& entries() const { return entries_; }
    bool empty() const { return entries_.empty(); }

    // after - before for every counter present in both. A counter that went backwards
    // (someone wrote `reset` in between) yields 0 rather than a huge wrapped value. A
    // maximum (a name ending in `_max`, e.g. `flush.ns_max`) is not a count and has no
    // difference: it yields its value in `after`, the maximum since load or reset as of
    // the end of the span (the span's own maximum when it rose during the span).
    static Counters delta(const Counters& before, const Counters& after);

    // Whether the counter is a running maximum rather than a count.
    static bool is_maximum(std::string_view name);

    friend bool operator==(const Counters&, const Counters&) = default;

private:
    std::vector<Entry> entries_;
};

} // namespace memcg_statctl
