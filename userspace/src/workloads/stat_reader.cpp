// stat-reader: read memory.stat of the task's own leaf cgroup in a loop. Every read is a
// reader-side flush opportunity (docs/background.md#flush-only-if-updated,
// #per-memcg-threshold), which is what the flush knobs steer.
#include <array>
#include <fcntl.h>
#include <unistd.h>

#include "workloads/io.h"
#include "workloads/workload.h"

namespace memcg_statctl {
namespace {

class StatReaderWorkload final : public Workload {
public:
    std::string name() const override { return "stat-reader"; }

    void run_task(const TaskContext& ctx) override {
        const auto fd = open_or_throw(ctx.cgroup_dir / "memory.stat", O_RDONLY);
        std::array<char, 16384> buf{};
        std::uint64_t ops = 0;
        while (!ctx.stopping()) {
            // Rewind and read to EOF: seq_file regenerates the whole text from offset 0.
            if (::lseek(fd.get(), 0, SEEK_SET) != 0) {
                throw_errno("lseek memory.stat");
            }
            ssize_t n = 0;
            while ((n = ::read(fd.get(), buf.data(), buf.size())) > 0) {
            }
            if (n < 0) {
                throw_errno("read memory.stat");
            }
            ctx.publish(++ops);
        }
    }
};

} // namespace

std::unique_ptr<Workload> make_stat_reader_workload(const WorkloadOptions& /*o*/) {
    return std::make_unique<StatReaderWorkload>();
}

} // namespace memcg_statctl
