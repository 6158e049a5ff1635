// The ONE place where derived values are computed from counters (rates, hit ratios,
// cost per flush). Every output path asks this module; nothing else divides counters.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugfs/counters.h"

namespace memcg_statctl {

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
// A value is produced only when all the counters it needs are present.
std::vector<DerivedValue> derive(const Counters& counts, std::optional<double> seconds);

// The value named `name` among `values`; nullopt when absent or undefined.
std::optional<double> derived_value(const std::vector<DerivedValue>& values, std::string_view name);

} // namespace memcg_statctl
