// page-fault: will-it-scale page_fault1/2/3. Map 128 MiB, write one byte per page (one
// fault each), unmap, repeat. anon = private anonymous memory (page_fault1),
// file-private = private mapping of a file (COW faults, page_fault2), file-shared =
// shared mapping of a file (page_fault3). Every fault charges a page to the memcg.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"
#include "workloads/io.h"
#include "workloads/workload.h"

namespace memcg_statctl {
namespace {

constexpr std::uint64_t mapping_bytes = 128 * mib;

class PageFaultWorkload final : public Workload {
public:
    PageFaultWorkload(std::string mode, std::filesystem::path dir)
        : mode_(std::move(mode)), dir_(std::move(dir)) {}
    std::string name() const override { return "page-fault"; }

    void run_task(const TaskContext& ctx) override {
        // With THP one fault would map 512 pages; the workload counts 4 KiB faults.
        if (::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
            throw_errno("prctl(PR_SET_THP_DISABLE)");
        }
        FileDescriptor fd;
        int flags = MAP_PRIVATE | MAP_ANONYMOUS;
        if (mode_ != "anon") {
            // Like will-it-scale: a private unlinked file of the mapping's size.
            const auto path = dir_ / fmt::format("memcg-statctl-pf.{}.{}", ::getpid(), ctx.task);
            fd = open_or_throw(path, O_RDWR | O_CREAT | O_EXCL);
            ::unlink(path.c_str());
            if (::ftruncate(fd.get(), static_cast<off_t>(mapping_bytes)) != 0) {
                throw_errno("ftruncate");
            }
            flags = mode_ == "file-shared" ? MAP_SHARED : MAP_PRIVATE;
        }
        std::uint64_t ops = 0;
        while (!ctx.stopping()) {
            void* map = ::mmap(nullptr, mapping_bytes, PROT_READ | PROT_WRITE, flags, fd.get(), 0);
            if (map == MAP_FAILED) {
                throw_errno("mmap");
            }
            auto* bytes = static_cast<volatile char*>(map);
            for (std::uint64_t off = 0; off < mapping_bytes && !ctx.stopping(); off += page_size) {
                bytes[off] = 1;
                ctx.publish(++ops);
            }
            ::munmap(map, mapping_bytes);
        }
    }

private:
    std::string mode_;
    std::filesystem::path dir_;
};

} // namespace

std::unique_ptr<Workload> make_page_fault_workload(const WorkloadOptions& o) {
    if (o.mode != "anon" && o.mode != "file-private" && o.mode != "file-shared") {
        throw ToolError(ExitCode::usage,
                        fmt::format("page-fault --mode must be anon, file-private or "
                                    "file-shared (got `{}`)",
                                    o.mode));
    }
    return std::make_unique<PageFaultWorkload>(o.mode, o.dir.empty() ? "/tmp" : o.dir);
}

} // namespace memcg_statctl
