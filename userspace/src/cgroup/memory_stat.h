// The fields of a cgroup's memory.stat that a run reports beside the module's counters.
// Unlike the module's counters, which are system-wide, these belong to the measured cgroup
// (hierarchically: a group's memory.stat includes its descendants).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memcg_statctl {

// Events (pgfault, pgmajfault, workingset_refault_*) and sizes in bytes (anon, file, slab).
// A kernel without a field simply omits it.
const std::vector<std::string_view>& memory_stat_fields();

using MemoryStat = std::vector<std::pair<std::string, std::int64_t>>;

// The reported fields of memory.stat text, in memory_stat_fields() order.
MemoryStat parse_memory_stat(std::string_view text);

// after - before per field present in both; signed, since sizes shrink.
MemoryStat memory_stat_delta(const MemoryStat& before, const MemoryStat& after);

// Field-wise sum (fields of the first operand's order, then new ones).
MemoryStat memory_stat_sum(const MemoryStat& a, const MemoryStat& b);

struct CgroupMemoryDelta {
    std::string cgroup; // the directory under the cgroup2 mount
    MemoryStat delta;
    friend bool operator==(const CgroupMemoryDelta&, const CgroupMemoryDelta&) = default;
};

} // namespace memcg_statctl
