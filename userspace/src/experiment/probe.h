// The staleness probe of docs/background.md#per-memcg-threshold, and what the recipes on it
// (threshold.cpp, staleness.cpp) share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/runner.h"
#include "workloads/workload.h"

namespace memcg_statctl {

// What the stat reader of the staleness probe saw (pages).
struct StalenessSample {
    std::uint64_t samples = 0;   // reads with a stable fault count around them
    std::uint64_t discarded = 0; // overlapped an munmap/mmap or > 16 faults during the read
    std::optional<std::int64_t> min_error;
    std::optional<std::int64_t> max_error;
    std::uint64_t max_bracket = 0; // most pages faulted while one read ran
    // The most unflushed updates the kernel counted for the faulting cgroup (HANDED + CPUS
    // of the module's `pending`), read before every 16th stat read that is kept; nullopt without
    // the file, or where it has no per-memcg counts (6.1).
    std::optional<std::uint64_t> max_pending;
    std::optional<std::int64_t> spread() const {
        if (!min_error || !max_error) {
            return std::nullopt;
        }
        return *max_error - *min_error;
    }
};

// Measures how stale memory.stat is. Two leaves, one task each.
// Leaf 0 faults in anonymous pages in a loop, like page-fault anon. It publishes how many
// pages of its mapping it has touched, under a sequence count that is odd across
// munmap/mmap.
// Leaf 1 reads leaf 0's memory.stat in a loop. Per read: error = anon pages in memory.stat
// - touched pages (the mean of the counts before and after the read).
// The faulter's other anon pages are a constant offset, so max - min of the error is how
// far the stat moved from the truth: the staleness, in pages.
class StalenessProbe final : public Workload {
public:
    // `pending`: the module's `pending` file, read beside the stat; empty: not read.
    explicit StalenessProbe(std::uint64_t mapping_mib, std::filesystem::path pending = {});
    StalenessProbe(const StalenessProbe&) = delete;
    StalenessProbe& operator=(const StalenessProbe&) = delete;
    StalenessProbe(StalenessProbe&&) = delete;
    StalenessProbe& operator=(StalenessProbe&&) = delete;
    ~StalenessProbe() override;
    std::string name() const override { return "staleness-probe"; }
    int tasks_per_cgroup(int /*requested*/) const override { return 1; }
    void prepare(std::size_t cgroups) override;
    void run_task(const TaskContext& ctx) override;
    StalenessSample result() const;

private:
    struct Shared;
    void fault(const TaskContext& ctx);
    void read_stats(const TaskContext& ctx);
    // The faulting cgroup's HANDED + CPUS in the `pending` file, or nullopt.
    std::optional<std::uint64_t> read_pending(std::uint64_t cgroup_id) const;
    std::uint64_t mapping_bytes_;
    std::filesystem::path pending_;
    Shared* shared_ = nullptr;
};

// The `anon` line of a memory.stat text, in bytes; nullopt when absent.
std::optional<std::uint64_t> memory_stat_anon(std::string_view text);

// One run of the staleness probe: its samples and its flush count (flush.performed), when
// the module reported one.
struct ProbeRun {
    StalenessSample sample;
    std::optional<std::uint64_t> flushes;
};

// The probe as a job, with a 64 MiB mapping. The first metric is the reader's and carries
// the counter deltas. Each run is appended to seen[variant].
Job staleness_probe_job(std::vector<std::vector<ProbeRun>>& seen,
                        const std::filesystem::path& pending = {});

// The kernel's default flush_threshold, read before anything changes it.
std::uint64_t kernel_default_threshold(const DebugfsClient& client);

// The report that both recipes on the probe reproduce.
inline constexpr const char* per_memcg_threshold_reference =
    "linux-mm, \"Re: [PATCH v2 3/5] mm: memcg: make stats flushing threshold per-memcg\", "
    "Oliver Sang quoting Yosry Ahmed's commit log, 2023-10-18; upstream 8d59d2214c23";

// The setup line of the recipes' parameters.
inline constexpr const char* probe_setup = "depth 2: leaf0 page-fault anon (64 MiB mapping, THP "
                                           "off), leaf1 stat-reader reading leaf0's memory.stat";

// How the probe measures staleness; `bracket`: the table has a `max bracket` column.
std::string probe_note(bool bracket);

} // namespace memcg_statctl
