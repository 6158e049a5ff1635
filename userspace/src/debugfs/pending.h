// How stale memory.stat is right now (the module's debugfs file `pending`, module/ABI.md):
// the stat updates the kernel recorded and no flush has folded in yet, per memcg (6.12,
// 7.x) or for the whole machine (6.1). Its strict parser.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memcg_statctl {

struct PendingCgroup {
    std::uint64_t id = 0;     // the cgroup id: its directory's inode number
    std::uint64_t handed = 0; // updates cpus handed up (what the kernel's trigger compares)
    std::uint64_t cpus = 0;   // updates the cpus still gather below their batch
    std::uint64_t total() const { return handed + cpus; }
    friend bool operator==(const PendingCgroup&, const PendingCgroup&) = default;
};

struct PendingOffline {
    std::uint64_t count = 0; // memcgs removed but not yet freed
    std::uint64_t handed = 0;
    std::uint64_t cpus = 0;
    friend bool operator==(const PendingOffline&, const PendingOffline&) = default;
};

struct Pending {
    std::string scope;         // "memcg" or "global"
    std::uint64_t batch = 0;   // MEMCG_CHARGE_BATCH
    std::uint64_t trigger = 0; // batch x online cpus: the kernel flushes past it
    // scope global (6.1); nullopt while a flush mode other than kernel is on, when the
    // module's gate holds the kernel's count.
    std::optional<std::uint64_t> global;
    std::vector<PendingCgroup> cgroups; // scope memcg, parents before children
    std::optional<PendingOffline> offline;
    friend bool operator==(const Pending&, const Pending&) = default;
};

inline constexpr std::string_view pending_file = "pending";

// Throws ToolError naming the line for a malformed `scope`, `batch`, `trigger`, `global`,
// `cgroup ID HANDED CPUS` or `offline COUNT HANDED CPUS` line, and for a file without
// scope, batch or trigger, or whose lines do not fit its scope (`cgroup` or `offline` lines
// with scope global, a `global` line with scope memcg). Lines with other first
// words are skipped: a newer module may add kinds.
Pending parse_pending(std::string_view text);

} // namespace memcg_statctl
