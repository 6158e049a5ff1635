// slab: create, stat and unlink small files in a private directory. Each file costs a
// dentry and an inode (slab objects charged through the object stock,
// docs/background.md#obj-stock-vmstat).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "workloads/io.h"
#include "workloads/workload.h"

namespace memcg_statctl {
namespace {

constexpr int batch = 64; // files alive at once: create all, stat all, unlink all

class SlabWorkload final : public Workload {
public:
    explicit SlabWorkload(std::filesystem::path dir) : dir_(std::move(dir)) {}
    std::string name() const override { return "slab"; }

    void run_task(const TaskContext& ctx) override {
        const auto dir = dir_ / fmt::format("memcg-statctl-slab.{}.{}", ::getpid(), ctx.task);
        if (::mkdir(dir.c_str(), 0700) != 0) {
            throw_errno(fmt::format("mkdir {}", dir.string()));
        }
        std::uint64_t ops = 0;
        try {
            while (!ctx.stopping()) {
                for (int i = 0; i < batch; ++i) {
                    open_or_throw(dir / std::to_string(i), O_WRONLY | O_CREAT | O_EXCL);
                }
                for (int i = 0; i < batch; ++i) {
                    struct stat st {};
                    if (::stat((dir / std::to_string(i)).c_str(), &st) != 0) {
                        throw_errno("stat");
                    }
                }
                for (int i = 0; i < batch; ++i) {
                    if (::unlink((dir / std::to_string(i)).c_str()) != 0) {
                        throw_errno("unlink");
                    }
                }
                ops += batch;
                ctx.publish(ops);
            }
        } catch (...) {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
            throw;
        }
        ::rmdir(dir.c_str());
    }

private:
    std::filesystem::path dir_;
};

} // namespace

std::unique_ptr<Workload> make_slab_workload(const WorkloadOptions& o) {
    // /dev/shm is a tmpfs on Debian: no disk I/O, only dentries, inodes and shmem.
    return std::make_unique<SlabWorkload>(o.dir.empty() ? "/dev/shm" : o.dir);
}

} // namespace memcg_statctl
