// readtwice: vm-scalability case-lru-file-readtwice. One sparse file of --size MiB per
// cgroup in --dir; two reader tasks per cgroup read it concurrently, over and over, so
// each page is touched twice (activation, lru_lock traffic:
// docs/background.md#per-memcg-lru-lock).
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"
#include "workloads/io.h"
#include "workloads/workload.h"

namespace memcg_statctl {
namespace {

class ReadTwiceWorkload final : public Workload {
public:
    ReadTwiceWorkload(std::filesystem::path dir, std::uint64_t size_mib)
        : dir_(std::move(dir)), bytes_(size_mib * mib), owner_(::getpid()) {}
    std::string name() const override { return "readtwice"; }
    int tasks_per_cgroup(int /*requested*/) const override { return 2; }

    void prepare(std::size_t cgroups) override {
        for (std::size_t i = 0; i < cgroups; ++i) {
            const auto path = file(i);
            const auto fd = open_or_throw(path, O_WRONLY | O_CREAT | O_TRUNC);
            files_.push_back(path);
            // Sparse, as in vm-scalability: no page is cached (or charged) before the run.
            if (::ftruncate(fd.get(), static_cast<off_t>(bytes_)) != 0) {
                throw_errno(fmt::format("truncate {}", path.string()));
            }
        }
    }

    void run_task(const TaskContext& ctx) override {
        const auto fd = open_or_throw(file(ctx.cgroup), O_RDONLY);
        std::uint64_t ops = 0;
        while (!ctx.stopping()) {
            read_whole_file(
                fd.get(), [&](std::uint64_t pages) { ctx.publish(ops += pages); },
                [&] { return ctx.stopping(); });
        }
    }

    void cleanup() noexcept override {
        for (const auto& f : files_) {
            ::unlink(f.c_str());
        }
        files_.clear();
    }

private:
    std::filesystem::path file(std::size_t cgroup) const {
        return dir_ / fmt::format("memcg-statctl-readtwice.{}.{}", owner_, cgroup);
    }
    std::filesystem::path dir_;
    std::uint64_t bytes_;
    pid_t owner_; // the parent's pid: children compute the same names
    std::vector<std::filesystem::path> files_;
};

} // namespace

std::unique_ptr<Workload> make_readtwice_workload(const WorkloadOptions& o) {
    if (o.dir.empty()) {
        throw ToolError(ExitCode::usage, "readtwice needs --dir DIR (where its files go)");
    }
    return std::make_unique<ReadTwiceWorkload>(o.dir, o.size_mib);
}

} // namespace memcg_statctl
