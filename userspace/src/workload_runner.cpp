#include "memcg_statctl/workload_runner.h"

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <new>
#include <optional>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

#include "memcg_statctl/exit_code.h"
#include "memcg_statctl/signal_guard.h"

#include "file_descriptor.h"
#include "workload_io.h"

namespace memcg_statctl {
namespace {

using Clock = std::chrono::steady_clock;

// Counters shared with the forked tasks: one cache line each, so tasks counting their
// operations do not slow each other down through false sharing.
struct alignas(64) Slot {
    std::atomic<std::uint64_t> ops{0};
};
struct alignas(64) Header {
    std::atomic<bool> stop{false};
};

class SharedCounters {
public:
    explicit SharedCounters(std::size_t tasks)
        : tasks_(tasks), bytes_(sizeof(Header) + (tasks * sizeof(Slot))) {
        mem_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (mem_ == MAP_FAILED) {
            throw_errno("mmap shared counters");
        }
        header_ = new (mem_) Header;
        slots_ = new (static_cast<char*>(mem_) + sizeof(Header)) Slot[tasks];
    }
    SharedCounters(const SharedCounters&) = delete;
    SharedCounters& operator=(const SharedCounters&) = delete;
    SharedCounters(SharedCounters&&) = delete;
    SharedCounters& operator=(SharedCounters&&) = delete;
    ~SharedCounters() { ::munmap(mem_, bytes_); }

    std::atomic<bool>& stop() { return header_->stop; }
    std::atomic<std::uint64_t>& ops(std::size_t task) { return slots_[task].ops; }
    std::vector<std::uint64_t> snapshot() {
        std::vector<std::uint64_t> v(tasks_);
        for (std::size_t i = 0; i < tasks_; ++i) {
            v[i] = slots_[i].ops.load(std::memory_order_relaxed);
        }
        return v;
    }

private:
    std::size_t tasks_;
    std::size_t bytes_;
    void* mem_ = nullptr;
    Header* header_ = nullptr;
    Slot* slots_ = nullptr;
};

// The forked tasks; the destructor kills and reaps whatever is still running, so no
// exit path leaves a workload task behind (or a cgroup that cannot be removed).
class Tasks {
public:
    Tasks() = default;
    Tasks(const Tasks&) = delete;
    Tasks& operator=(const Tasks&) = delete;
    Tasks(Tasks&&) = delete;
    Tasks& operator=(Tasks&&) = delete;
    ~Tasks() { kill_and_reap(); }

    void add(pid_t pid) { pids_.push_back(pid); }
    const std::vector<pid_t>& pids() const { return pids_; }

    // Any task that already exited (a failure before the end of the run)? Reaps it.
    std::optional<std::string> early_exit() {
        for (std::size_t i = 0; i < pids_.size(); ++i) {
            int status = 0;
            if (pids_[i] > 0 && ::waitpid(pids_[i], &status, WNOHANG) == pids_[i]) {
                pids_[i] = -1;
                return describe(i, status);
            }
        }
        return std::nullopt;
    }

    // Waits up to `grace` for all tasks to exit on their own; returns the first failure.
    std::optional<std::string> wait_all(std::chrono::milliseconds grace) {
        std::optional<std::string> failure;
        const auto deadline = Clock::now() + grace;
        for (std::size_t i = 0; i < pids_.size(); ++i) {
            while (pids_[i] > 0) {
                int status = 0;
                const pid_t r = ::waitpid(pids_[i], &status, WNOHANG);
                if (r == pids_[i] || (r < 0 && errno != EINTR)) {
                    if (r == pids_[i] && !failure &&
                        !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                        failure = describe(i, status);
                    }
                    pids_[i] = -1;
                } else if (Clock::now() > deadline) {
                    ::kill(pids_[i], SIGKILL);
                } else {
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                }
            }
        }
        return failure;
    }

    void kill_and_reap() noexcept {
        for (auto& pid : pids_) {
            if (pid > 0) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, nullptr, 0);
                pid = -1;
            }
        }
    }

private:
    static std::string describe(std::size_t task, int status) {
        if (WIFSIGNALED(status)) {
            return fmt::format("workload task {} killed by signal {}", task, WTERMSIG(status));
        }
        return fmt::format("workload task {} failed (exit status {})", task, WEXITSTATUS(status));
    }
    std::vector<pid_t> pids_;
};

[[noreturn]] void child_main(Workload& workload, const TaskContext& ctx, int barrier_fd) {
    // Block until the parent has placed every task and closes the barrier's write end.
    char c = 0;
    while (::read(barrier_fd, &c, 1) < 0 && errno == EINTR) {
    }
    ::close(barrier_fd);
    int status = 0;
    if (!ctx.stopping()) {
        try {
            workload.run_task(ctx);
        } catch (const std::exception& e) {
            (void)std::fprintf(stderr, "memcg-statctl: %s task %zu: %s\n", workload.name().c_str(),
                               ctx.task, e.what());
            status = 1;
        } catch (...) {
            status = 1;
        }
    }
    // _exit: never run the parent's atexit handlers or flush its stdio buffers twice.
    ::_exit(status);
}

struct CleanupWorkload {
    explicit CleanupWorkload(Workload& workload) : w(workload) {}
    Workload& w;
    CleanupWorkload(const CleanupWorkload&) = delete;
    CleanupWorkload& operator=(const CleanupWorkload&) = delete;
    CleanupWorkload(CleanupWorkload&&) = delete;
    CleanupWorkload& operator=(CleanupWorkload&&) = delete;
    ~CleanupWorkload() { w.cleanup(); }
};

} // namespace

RunMeasurement run_workload(Workload& workload, const RunPlan& plan, TaskPlacement& placement) {
    const auto groups = placement.groups();
    const auto per_group =
        static_cast<std::size_t>(workload.tasks_per_cgroup(plan.tasks_per_cgroup));
    const auto total = groups * per_group;
    if (total == 0 || plan.duration <= 0) {
        throw ToolError(ExitCode::usage, "need at least one task and a positive duration");
    }
    SharedCounters shared(total);
    workload.prepare(groups);
    const CleanupWorkload cleanup(workload);

    std::array<int, 2> pipe_fds{-1, -1};
    if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
        throw_errno("pipe");
    }
    FileDescriptor barrier_read(pipe_fds[0]);
    FileDescriptor barrier_write(pipe_fds[1]);
    (void)std::fflush(nullptr); // nothing buffered may be written twice by the children

    Tasks tasks;
    for (std::size_t t = 0; t < total; ++t) {
        TaskContext ctx{t,
                        t / per_group,
                        t % per_group,
                        placement.group_dir(t / per_group),
                        &shared.ops(t),
                        &shared.stop()};
        const pid_t pid = ::fork();
        if (pid < 0) {
            throw_errno("fork");
        }
        if (pid == 0) {
            barrier_write.reset();
            child_main(workload, ctx, barrier_read.get());
        }
        tasks.add(pid);
        placement.attach(ctx.cgroup, pid); // before the barrier: all work is charged there
    }
    barrier_write.reset(); // start!
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration<double>(plan.duration);
    while (Clock::now() < end && stop_signal() == 0) {
        if (auto failure = tasks.early_exit()) {
            shared.stop() = true;
            throw ToolError(*failure);
        }
        if (plan.check) {
            try {
                plan.check();
            } catch (...) {
                shared.stop() = true;
                throw;
            }
        }
        const auto left = std::chrono::duration_cast<Clock::duration>(end - Clock::now());
        std::this_thread::sleep_for(std::min<Clock::duration>(left, std::chrono::milliseconds(50)));
    }
    const auto counts = shared.snapshot();
    const auto stopped = Clock::now();
    shared.stop() = true;
    if (auto failure = tasks.wait_all(std::chrono::seconds(5))) {
        throw ToolError(*failure);
    }
    throw_if_stopped();

    RunMeasurement m;
    m.seconds = std::chrono::duration<double>(stopped - start).count();
    for (const auto c : counts) {
        m.task_ops_per_sec.push_back(static_cast<double>(c) / m.seconds);
        m.total_ops_per_sec += m.task_ops_per_sec.back();
    }
    return m;
}

} // namespace memcg_statctl
