// What the module's debugfs files say (module/ABI.md): the strict parsers of `version`,
// `hooks` and `stats`, the counters as read from `stats` (names in file order, u64 values;
// order is kept because the module groups related counters, lookup is by name) and the
// values derived from them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "debugfs/histogram.h"

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

// The module's counters in its order (module/counters.c), as named in its `stats` file:
// the one name of each counter in text, JSON, CSV, compare and `--metrics`
// (docs/output.md lists them; a unit test checks both). A newer module may add more.
const std::vector<std::string_view>& counter_names();

// The names of the values derive() computes, in its order.
const std::vector<std::string_view>& derived_names();

// The ONE place where derived values are computed from counters (rates, hit ratios,
// cost per flush). Every output path asks this module; nothing else divides counters.
struct DerivedValue {
    std::string name; // stable key, also used in JSON and CSV
    std::string unit; // "/s", "ns", "%"
    // nullopt when the inputs exist but the value is undefined (e.g. no flush happened
    // in the interval): printed as "-" / null so tables keep their shape.
    std::optional<double> value;
    friend bool operator==(const DerivedValue&, const DerivedValue&) = default;
};

// `counts` are counter values over some span (deltas, or totals since reset).
// `seconds` is the length of that span when known: rates (flushes/s) need it.
// `latency` is the flush latency histogram of the same span, when the module has one: the
// percentiles flush.ns_p50/p90/p99 come from it.
// A value is produced only when all the counters (or the histogram) it needs are present.
std::vector<DerivedValue> derive(const Counters& counts, std::optional<double> seconds,
                                 const std::optional<LatencyHistogram>& latency = std::nullopt);

// The value named `name` among `values`; nullopt when absent or undefined.
std::optional<double> derived_value(const std::vector<DerivedValue>& values, std::string_view name);

// Strict parsers for the debugfs files described in module/ABI.md. A line that does not
// match the format throws ToolError naming the file and line; unknown keys, counters and
// hook states are accepted so a newer module works with this tool.
// The ABI version this tool understands (`abi` key of the `version` file).
inline constexpr std::uint64_t supported_abi = 1;

struct VersionInfo {
    std::vector<std::pair<std::string, std::string>> entries; // file order
    std::string get(std::string_view key) const;              // "" when absent
};

struct HookEntry {
    std::string name;
    std::string target;
    std::string caller; // "-" when every call counts
    std::string mechanism;
    std::string state; // attached | off | missing | failed | (newer states)
    std::uint64_t hits = 0;
    friend bool operator==(const HookEntry&, const HookEntry&) = default;
};

VersionInfo parse_version(std::string_view text);
std::vector<HookEntry> parse_hooks(std::string_view text);
Counters parse_stats(std::string_view text);

} // namespace memcg_statctl
