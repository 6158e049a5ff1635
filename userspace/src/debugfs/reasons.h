// Who asks the module's flush policy to flush (its debugfs file `flush_reasons`,
// module/ABI.md): requests and flushes performed per requester class (reader, reclaim,
// refault, periodic, async, forced, unattributed) and per calling function. Its strict
// parser and the difference of two reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memcg_statctl {

struct FlushReason {
    std::string name;  // the class, or the calling function (kallsyms' name)
    std::string klass; // a caller's class; empty on a class line
    std::uint64_t requests = 0;
    std::uint64_t performed = 0;
    std::uint64_t skipped() const { return requests - performed; }
    friend bool operator==(const FlushReason&, const FlushReason&) = default;
};

struct FlushReasons {
    std::vector<FlushReason> classes; // in the module's order
    std::vector<FlushReason> callers; // by requests, most first
    friend bool operator==(const FlushReasons&, const FlushReasons&) = default;
};

inline constexpr std::string_view flush_reasons_file = "flush_reasons";

// The requester classes of module/ABI.md, in its order: the names `compare --metrics`
// knows. A newer module's class is read and shown all the same.
const std::vector<std::string_view>& flush_reason_classes();

// Throws ToolError naming the line for anything but `class NAME R P S` and
// `caller FUNCTION CLASS R P S` lines (decimal u64s, R = P + S) and for a file without
// classes. Other first words are skipped: a newer module may add line kinds.
FlushReasons parse_flush_reasons(std::string_view text);

// after - before, by name; a count that went backwards (a `reset` in between) gives 0, as
// Counters::delta does; a caller new in @after counts from 0. Callers that asked nothing
// in between are left out. nullopt unless both reads have the file.
std::optional<FlushReasons> reasons_delta(const std::optional<FlushReasons>& before,
                                          const std::optional<FlushReasons>& after);

// The runs' reasons added up, as a sweep's row sums its runs: classes and callers merged by
// name (classes in first-seen order, callers most requests first; a caller keeps the class
// it first had). nullopt for no runs.
std::optional<FlushReasons> reasons_sum(const std::vector<FlushReasons>& runs);

} // namespace memcg_statctl
