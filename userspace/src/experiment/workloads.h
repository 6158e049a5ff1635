// Workloads that only the experiments need (internal): a composite that gives each task
// one of several existing workloads, and the staleness probe of
// docs/background.md#per-memcg-threshold.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "workloads/workload.h"

namespace memcg_statctl {

// Task (cgroup c, index i) runs parts[pick(c, i)]: e.g. slab beside page-fault in one
// leaf, or one workload per leaf. prepare/cleanup reach every part.
class CompositeWorkload final : public Workload {
public:
    using Pick = std::function<std::size_t(std::size_t cgroup, std::size_t index)>;
    CompositeWorkload(std::string name, std::vector<std::unique_ptr<Workload>> parts, Pick pick)
        : name_(std::move(name)), parts_(std::move(parts)), pick_(std::move(pick)) {}
    std::string name() const override { return name_; }
    void prepare(std::size_t cgroups) override;
    void run_task(const TaskContext& ctx) override;
    void cleanup() noexcept override;

private:
    std::string name_;
    std::vector<std::unique_ptr<Workload>> parts_;
    Pick pick_;
};

// What the stat reader of the staleness probe saw (pages).
struct StalenessSample {
    std::uint64_t samples = 0;   // reads with a stable fault count around them
    std::uint64_t discarded = 0; // overlapped an munmap/mmap or > 16 faults during the read
    std::optional<std::int64_t> min_error;
    std::optional<std::int64_t> max_error;
    std::uint64_t max_bracket = 0; // most pages faulted while one read ran
    std::optional<std::int64_t> spread() const {
        if (!min_error || !max_error) {
            return std::nullopt;
        }
        return *max_error - *min_error;
    }
};

// The staleness of docs/background.md#per-memcg-threshold: needs 2 leaves, 1 task each. Leaf 0: an
// anonymous page-fault loop (like page-fault anon) that publishes, in shared memory, how many pages
// of its current mapping it has touched, under a sequence count that is odd across munmap/mmap.
// Leaf 1: a stat reader that reads leaf 0's memory.stat in a loop and records, per read, error =
// anon pages in memory.stat - touched pages (the mean of the counts seen before and after the
// read). The faulter's other anon pages (stack, heap) are a constant offset during the run, so the
// spread max - min of that error is the stat's own movement away from the truth: the staleness, in
// pages.
class StalenessProbe final : public Workload {
public:
    explicit StalenessProbe(std::uint64_t mapping_mib);
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
    std::uint64_t mapping_bytes_;
    Shared* shared_ = nullptr;
};

} // namespace memcg_statctl
