#include "workloads/runner.h"

#include <algorithm>
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

#include "exit_code.h"
#include "run/signal_guard.h"
#include "workloads/io.h"

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

    // To-completion tasks: reaps those that exited (recording status and time); true when
    // all have.
    bool collect_exits() {
        statuses_.resize(pids_.size(), -1);
        for (std::size_t i = 0; i < pids_.size(); ++i) {
            int status = 0;
            if (pids_[i] > 0 && ::waitpid(pids_[i], &status, WNOHANG) == pids_[i]) {
                pids_[i] = -1;
                statuses_[i] = exit_status_code(status);
                last_exit_ = Clock::now();
            }
        }
        return all_exited();
    }
    bool all_exited() const {
        return std::all_of(pids_.begin(), pids_.end(), [](pid_t p) { return p <= 0; });
    }
    // SIGTERM to what still runs (a benchmark may print its summary), SIGKILL after `grace`.
    void terminate_and_wait(std::chrono::milliseconds grace) {
        for (const auto pid : pids_) {
            if (pid > 0) {
                ::kill(pid, SIGTERM);
            }
        }
        const auto deadline = Clock::now() + grace;
        while (!collect_exits()) {
            if (Clock::now() > deadline) {
                for (const auto pid : pids_) {
                    if (pid > 0) {
                        ::kill(pid, SIGKILL);
                    }
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    const std::vector<int>& statuses() const { return statuses_; }
    Clock::time_point last_exit() const { return last_exit_; }

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
    std::vector<int> statuses_;
    Clock::time_point last_exit_{};
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

int exit_status_code(int wait_status) {
    if (WIFSIGNALED(wait_status)) {
        return 128 + WTERMSIG(wait_status);
    }
    return WEXITSTATUS(wait_status);
}

namespace {

// Waits (polling every 50 ms, running plan.check) until `until` or a stop signal; for a
// counting workload a task that exits meanwhile is a failure.
void wait_window(Tasks& tasks, SharedCounters& shared, const RunPlan& plan, bool counting,
                 Clock::time_point until) {
    while (Clock::now() < until && stop_signal() == 0) {
        if (counting) {
            if (auto failure = tasks.early_exit()) {
                shared.stop() = true;
                throw ToolError(*failure);
            }
        } else if (tasks.collect_exits()) {
            return; // every task of the command exited
        }
        if (plan.check) {
            try {
                plan.check();
            } catch (...) {
                shared.stop() = true;
                throw;
            }
        }
        const auto left = std::chrono::duration_cast<Clock::duration>(until - Clock::now());
        std::this_thread::sleep_for(std::min<Clock::duration>(left, std::chrono::milliseconds(50)));
    }
}

void call(const std::function<void()>& f, SharedCounters& shared) {
    if (!f) {
        return;
    }
    try {
        f();
    } catch (...) {
        shared.stop() = true;
        throw;
    }
}

} // namespace

RunMeasurement run_workload(Workload& workload, const RunPlan& plan, TaskPlacement& placement) {
    const bool counting = workload.counts_ops();
    const auto groups = placement.groups();
    const auto per_group =
        static_cast<std::size_t>(workload.tasks_per_cgroup(plan.tasks_per_cgroup));
    const auto total = groups * per_group;
    if (total == 0 || plan.duration < 0 || (counting && plan.duration == 0) || plan.warmup < 0) {
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
    const auto started = Clock::now();
    const auto limit = [&](Clock::time_point from) {
        return plan.duration > 0 ? from + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(plan.duration))
                                 : Clock::time_point::max();
    };
    if (plan.warmup > 0) {
        wait_window(tasks, shared, plan, counting,
                    started + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(plan.warmup)));
        throw_if_stopped();
    }
    const auto base = shared.snapshot();
    call(plan.window_open, shared);
    const auto start = Clock::now();
    wait_window(tasks, shared, plan, counting, limit(start));
    throw_if_stopped();
    const auto counts = shared.snapshot();
    const auto stopped = Clock::now();
    call(plan.window_close, shared);
    shared.stop() = true;

    RunMeasurement m;
    m.seconds = std::chrono::duration<double>(stopped - start).count();
    if (!counting) {
        m.stopped_at_duration = !tasks.all_exited();
        tasks.terminate_and_wait(std::chrono::seconds(5));
        m.exit_statuses = tasks.statuses();
        if (!m.stopped_at_duration && tasks.last_exit() > start) {
            // The window closes when the last task exited, not at the next poll.
            m.seconds = std::chrono::duration<double>(tasks.last_exit() - start).count();
        }
        throw_if_stopped();
        return m;
    }
    if (auto failure = tasks.wait_all(std::chrono::seconds(5))) {
        throw ToolError(*failure);
    }
    throw_if_stopped();
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const auto c = counts[i] - base[i];
        m.task_ops_per_sec.push_back(static_cast<double>(c) / m.seconds);
        m.total_ops_per_sec += m.task_ops_per_sec.back();
    }
    return m;
}

} // namespace memcg_statctl
