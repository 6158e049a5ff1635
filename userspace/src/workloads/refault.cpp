// refault: each task writes a file of --size MiB (its pages are charged to the task's
// cgroup), then loops: push the cgroup's pages out through memory.reclaim and read the
// file back, so every read refaults (the reader-side flush of
// docs/background.md#flush-only-if-updated).
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "debugfs/client.h"
#include "exit_code.h"
#include "workloads/io.h"
#include "workloads/workload.h"

namespace memcg_statctl {
namespace {

class RefaultWorkload final : public Workload {
public:
    RefaultWorkload(std::filesystem::path dir, std::uint64_t size_mib)
        : dir_(std::move(dir)), bytes_(size_mib * mib) {}
    std::string name() const override { return "refault"; }

    void run_task(const TaskContext& ctx) override {
        const auto path = dir_ / fmt::format("memcg-statctl-refault.{}.{}", ::getpid(), ctx.task);
        const auto fd = open_or_throw(path, O_RDWR | O_CREAT | O_EXCL);
        ::unlink(path.c_str()); // the pages stay until fd closes; nothing left on exit
        fill_file(fd.get(), bytes_);
        ::fdatasync(fd.get()); // clean pages can be reclaimed without writeback
        const auto reclaim = ctx.cgroup_dir / "memory.reclaim";
        const auto request = fmt::format("{}\n", bytes_);
        std::uint64_t ops = 0;
        while (!ctx.stopping()) {
            // EAGAIN = reclaimed less than asked (other tasks' pages, already out): fine.
            const int err = write_whole_file(reclaim, request);
            if (err != 0 && err != EAGAIN) {
                throw ToolError(
                    fmt::format("write {}: {}{}", reclaim.string(), std::strerror(err),
                                err == ENOENT ? " (memory.reclaim needs Linux 5.19+)" : ""));
            }
            read_whole_file(
                fd.get(), [&](std::uint64_t pages) { ctx.publish(ops += pages); },
                [&] { return ctx.stopping(); });
        }
    }

private:
    std::filesystem::path dir_;
    std::uint64_t bytes_;
};

} // namespace

std::unique_ptr<Workload> make_refault_workload(const WorkloadOptions& o) {
    // Default on disk, not tmpfs: reclaiming tmpfs pages needs swap.
    return std::make_unique<RefaultWorkload>(o.dir.empty() ? "/var/tmp" : o.dir, o.size_mib);
}

} // namespace memcg_statctl
