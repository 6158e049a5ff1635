// A fake /sys/kernel/debug/memcg_statctl in a temporary directory, filled with the
// files of module/ABI.md, so the client and the CLI can be tested without the module.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memcg_statctl::testing {

// A unique temporary directory removed (recursively) on destruction.
class TempDir {
public:
    TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    TempDir(TempDir&&) = delete;
    TempDir& operator=(TempDir&&) = delete;
    ~TempDir();
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// A healthy module: flush control available, no lockdown, and the one missing hook has a
// present row of the same name beside it (so its counter still has a source).
inline constexpr std::string_view sample_version = "module 0.1.0\n"
                                                   "abi 1\n"
                                                   "kernel 6.1.0-57-amd64\n"
                                                   "generation 6.1\n"
                                                   "flush_model global\n"
                                                   "stock_model single\n"
                                                   "flush_control available\n"
                                                   "lockdown none\n";

inline constexpr std::string_view sample_hooks =
    "flush.requests __mem_cgroup_flush_stats - ftrace attached 1234\n"
    "flush.periodic __mem_cgroup_flush_stats flush_memcg_stats_dwork ftrace attached 12\n"
    "objcg_vmstat.updates mod_objcg_state - ftrace missing 0\n"
    "objcg_vmstat.updates __account_obj_stock - ftrace attached 0\n";

inline constexpr std::string_view sample_stats = "flush.requests 1234\n"
                                                 "flush.performed 1200\n"
                                                 "flush.ns_total 2400000\n"
                                                 "charge_stock.attempts 1000\n"
                                                 "charge_stock.misses 50\n";

// `stock_by_cgroup` with the knob stock_attribution on, as a 7.x kernel's module writes it
// (EVICTED counted, the occupancy of stocks of 7 slots on two cpus), and as 6.1's and 6.12's
// (EVICTED `-`, no occupancy).
inline constexpr std::string_view sample_stock_by_cgroup = "state on\n"
                                                           "cgroup 4219 5536 86 90 3 12 0\n"
                                                           "cgroup 4301 100 2 2 0 1 5\n"
                                                           "other 0 0 0 0 0 0\n"
                                                           "occupancy 0 120 30 10 0 0 0 0 0\n"
                                                           "occupancy 1 10 40 50 20 0 0 0 0\n";
inline constexpr std::string_view sample_stock_by_cgroup_single = "state on\n"
                                                                  "cgroup 4219 5536 86 90 3 12 -\n"
                                                                  "cgroup 4301 100 2 2 0 1 -\n"
                                                                  "other 7 1 0 0 0 -\n";

// `flush_latency` as the module writes it: 41 log2 buckets, [0,1), [1,2) ... [2^39,inf),
// with `counts` {bucket index, count} and 0 elsewhere.
std::string flush_latency_text(const std::vector<std::pair<int, std::uint64_t>>& counts);

// sample_stats' 1200 performed flushes: 400 in [1K,2K), 700 in [2K,4K), 100 in [4K,8K).
std::string sample_flush_latency();

class FakeDebugfs {
public:
    // Creates <tmp>/memcg_statctl with version, hooks, stats, flush_latency, reset and the
    // knobs flush_mode=kernel and flush_period_ms=2000.
    FakeDebugfs();
    std::filesystem::path root() const { return dir_.path() / "memcg_statctl"; }
    std::string root_string() const { return root().string(); }
    void write(const std::string& name, std::string_view content,
               std::filesystem::perms perms = std::filesystem::perms::owner_read) const;
    std::string read(const std::string& name) const;
    void remove(const std::string& name) const; // e.g. flush_latency: an older module

private:
    TempDir dir_;
};

} // namespace memcg_statctl::testing
