#include "run/session.h"

#include <chrono>
#include <csignal>
#include <ostream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cgroup/hierarchy.h"
#include "commands/cli.h"
#include "debugfs/counters.h"
#include "run/signal_guard.h"
#include "text_util.h"
#include "workloads/runner.h"

namespace memcg_statctl {

namespace {

constexpr double default_duration = 5;

MemoryStat read_memory_stat(const std::filesystem::path& group_dir) {
    return parse_memory_stat(read_file(group_dir / "memory.stat"));
}

// The run's memory.stat, summed over its leaves, where all its tasks live. Not the top
// group's own file: reading a group flushes only when that group's pending-update count
// is over the kernel's threshold, and since 6.8 an update stops counting at the first
// ancestor already over it. A flush racing with the updates can reset the top's count
// after a leaf's went over, and the top's memory.stat then stays stale until the
// periodic flush, seconds later (seen on 7.3: 1602 of 81961 faults). A leaf always
// counts its own updates, so its file is exact to within the kernel's threshold.
MemoryStat read_run_memory_stat(const CgroupHierarchy& hierarchy) {
    MemoryStat sum;
    for (std::size_t i = 0; i < hierarchy.leaf_count(); ++i) {
        sum = memory_stat_sum(sum, read_memory_stat(hierarchy.leaf_dir(i)));
    }
    return sum;
}

// Split here, not by CLI11's delimiter(','), which drops empty items: "1,,2" is a likely
// typo and rejected, as `sweep --values` rejects "a,,b".
std::vector<pid_t> parse_pids(const std::vector<std::string>& lists) {
    std::vector<pid_t> pids;
    for (const auto& list : lists) {
        for (const auto& item : split_commas(list)) {
            const auto v = parse_u64(item);
            if (!v || *v == 0 || *v > 0x3fffffff) {
                throw ToolError(ExitCode::usage,
                                fmt::format("--pid must be process ids (got '{}')", item));
            }
            pids.push_back(static_cast<pid_t>(*v));
        }
    }
    return pids;
}

// --warmup-runs, --prepare, --cleanup: how the runs were made, beside `warmup`.
void add_schedule_parameters(Parameters& p, const RunOptions& o) {
    const auto command = [](const std::string& c) {
        return c.empty() ? Parameters(nullptr) : Parameters(c);
    };
    p["warmup_runs"] = o.warmup_runs;
    p["prepare"] = command(o.hooks.prepare);
    p["cleanup"] = command(o.hooks.cleanup);
}

} // namespace

void add_run_options(CLI::App& sub, RunOptions& o) {
    sub.add_option("--cgroups", o.cgroups, "leaf cgroups (one memcg each)")
        ->capture_default_str()
        ->check(positive<int>());
    sub.add_option("--depth", o.depth, "levels below the tool's top group (leaves at D)")
        ->capture_default_str()
        ->check(between(1, 32));
    sub.add_option("--tasks", o.tasks, "tasks (copies of a command) per cgroup (readtwice: 2)")
        ->capture_default_str()
        ->check(positive<int>());
    sub.add_option("--duration", o.duration,
                   "seconds to measure, after --warmup (default 5; a command: until its "
                   "copies exit, or terminated after S)")
        ->type_name("S")
        ->check(positive<double>());
    sub.add_option("--warmup", o.warmup,
                   "seconds the tasks of each run run before its measured window opens "
                   "(default 0; whole discarded runs: --warmup-runs)")
        ->type_name("S")
        ->check(non_negative());
    sub.add_option("--warmup-runs", o.warmup_runs,
                   "whole runs made and discarded before the measured ones (a sweep: before "
                   "each value's first run; in-run warm-up: --warmup)")
        ->capture_default_str()
        ->type_name("N")
        ->check(between(0, 1000));
    sub.add_option("--prepare", o.hooks.prepare,
                   "shell command (/bin/sh -c) run before each run, warm-up runs included, "
                   "outside the measured window (e.g. 'echo 3 > /proc/sys/vm/drop_caches'); "
                   "a failure stops")
        ->type_name("CMD");
    sub.add_option("--cleanup", o.hooks.cleanup,
                   "shell command (/bin/sh -c) run after each run, warm-up runs included; a "
                   "failure stops")
        ->type_name("CMD");
    sub.add_option("--parent", o.parent,
                   "build the cgroups below this existing cgroup (default: the tool's own "
                   "cgroup when systemd delegated it, else the root)")
        ->type_name("CGROUP");
    sub.add_option("--metric", o.metric,
                   "a command's figure: the first capture group of the last output line "
                   "matching REGEX, summed over the copies (e.g. 'average:\\s*([0-9.]+)')")
        ->type_name("REGEX");
    sub.add_option("--mode", o.workload.mode, "page-fault: anon | file-private | file-shared")
        ->capture_default_str()
        ->check(CLI::IsMember({"anon", "file-private", "file-shared"}));
    sub.add_option("--dir", o.workload.dir,
                   "scratch directory (slab: /dev/shm, refault: /var/tmp, page-fault: /tmp; "
                   "readtwice: required)");
    sub.add_option("--size", o.workload.size_mib, "refault/readtwice file size in MiB")
        ->capture_default_str()
        ->check(positive<std::uint64_t>());
}

void add_observe_options(CLI::App& sub, RunOptions& o) {
    sub.add_option("--cgroup", o.observe_cgroups,
                   "measure an existing cgroup (e.g. a systemd scope) for --duration; "
                   "repeatable; starts nothing")
        ->type_name("PATH");
    sub.add_option("--pid", o.observe_pids,
                   "measure running processes (their cgroups) for --duration; starts nothing")
        ->type_name("PID[,PID]");
}

void check_run_options(const RunOptions& o) {
    const bool builtin = !o.workload.name.empty();
    const bool command = !o.command.empty();
    const bool observing = !o.observe_cgroups.empty() || !o.observe_pids.empty();
    if (static_cast<int>(builtin) + static_cast<int>(command) + static_cast<int>(observing) != 1) {
        throw ToolError(ExitCode::usage,
                        "give one of: a workload, a command after `--`, --cgroup or --pid");
    }
    if (!o.observe_cgroups.empty() && !o.observe_pids.empty()) {
        throw ToolError(ExitCode::usage, "--cgroup and --pid exclude each other");
    }
    if (!o.metric.empty()) {
        if (!command) {
            throw ToolError(ExitCode::usage, "--metric reads a command's output: give the "
                                             "command after `--`");
        }
        const CommandMetric regex_check(o.metric);
    }
    if (builtin) {
        (void)make_workload(o.workload); // its own option checks; it starts nothing
    }
    (void)parse_pids(o.observe_pids);
}

RunSession::RunSession(const Context& ctx, RunOptions options)
    : ctx_(ctx), options_(std::move(options)),
      module_(ctx.client().availability() == Availability::available) {
    check_run_options(options_);
    const bool builtin = !options_.workload.name.empty();
    const bool command = !options_.command.empty();
    if (!options_.metric.empty()) {
        metric_.emplace(options_.metric);
    }
    if (module_) {
        ctx.client().require_module(); // the ABI check, before anything else
    }
    if (builtin) {
        workload_ = make_workload(options_.workload);
        kind_ = options_.workload.name;
    } else if (command) {
        auto w = std::make_unique<CommandWorkload>(options_.command,
                                                   static_cast<std::size_t>(options_.cgroups) *
                                                       static_cast<std::size_t>(options_.tasks));
        command_ = w.get();
        workload_ = std::move(w);
        kind_ = "command";
    } else {
        kind_ = options_.observe_pids.empty() ? "cgroup" : "pid";
        pids_ = parse_pids(options_.observe_pids);
        backend_ = std::make_unique<LibcgroupBackend>();
        return; // nothing is created: no parent, no leftovers to look for
    }
    backend_ = std::make_unique<LibcgroupBackend>();
    if (!options_.duration && !command) {
        options_.duration = default_duration;
    }
    parent_ = std::make_unique<CgroupParent>(*backend_, options_.parent);
    for (const auto& left : remove_leftover_groups(*backend_, process_alive, parent_->rel())) {
        if (left.removed) {
            fmt::print(ctx_.env.err, "removed leftover cgroup {} of dead process {}\n",
                       (backend_->mount() / left.name).string(), left.owner);
        } else {
            fmt::print(ctx_.env.err, "warning: cannot remove leftover cgroup {}: {}\n",
                       (backend_->mount() / left.name).string(), left.error);
        }
    }
}

RunSession::~RunSession() = default;

Parameters RunSession::parameters() const {
    Parameters p = Parameters::object();
    if (kind_ == "cgroup" || kind_ == "pid") {
        if (kind_ == "cgroup") {
            p["cgroups"] = options_.observe_cgroups;
        } else {
            p["pids"] = pids_;
        }
        p["duration"] = options_.duration.value_or(default_duration);
        p["warmup"] = options_.warmup;
        add_schedule_parameters(p, options_);
        return p;
    }
    if (command_ != nullptr) {
        p["command"] = command_->argv();
        p["metric"] = metric_ ? Parameters(metric_->pattern()) : Parameters(nullptr);
    }
    p["cgroups"] = options_.cgroups;
    p["depth"] = options_.depth;
    p["tasks"] = workload_->tasks_per_cgroup(options_.tasks);
    p["duration"] = options_.duration ? Parameters(*options_.duration) : Parameters(nullptr);
    p["warmup"] = options_.warmup;
    add_schedule_parameters(p, options_);
    p["parent"] = parent_->dir().string();
    p["parent_from"] = parent_->why();
    if (kind_ == "page-fault") {
        p["mode"] = options_.workload.mode;
    }
    if (kind_ == "refault" || kind_ == "readtwice") {
        p["size_mib"] = options_.workload.size_mib;
    }
    if (!options_.workload.dir.empty()) {
        p["dir"] = options_.workload.dir.string();
    }
    return p;
}

std::vector<std::string> RunSession::command_outputs() const {
    std::vector<std::string> out;
    if (command_ != nullptr) {
        const auto n = static_cast<std::size_t>(options_.cgroups) *
                       static_cast<std::size_t>(workload_->tasks_per_cgroup(options_.tasks));
        for (std::size_t t = 0; t < n; ++t) {
            out.push_back(command_->output(t));
        }
    }
    return out;
}

RunResult RunSession::run_once() {
    return workload_ ? run_in_hierarchy() : observe();
}

RunResult RunSession::run_in_hierarchy() {
    const auto client = ctx_.client();
    if (module_) {
        client.require_still_module();
    }
    CgroupHierarchy hierarchy(*backend_, options_.cgroups, options_.depth, ::getpid(),
                              parent_->rel());
    HierarchyPlacement placement(hierarchy);
    std::optional<ModuleSample> before; // nullopt: without the module
    std::optional<ModuleSample> after;
    MemoryStat mem_before;
    MemoryStat mem_after;
    RunPlan plan;
    plan.tasks_per_cgroup = options_.tasks;
    plan.duration = options_.duration.value_or(0);
    plan.warmup = options_.warmup;
    if (module_) {
        plan.check = [&client] { client.require_still_module(); };
    }
    plan.window_open = [&] {
        mem_before = read_run_memory_stat(hierarchy);
        if (module_) {
            before = read_module_sample(client);
        }
    };
    plan.window_close = [&] {
        if (module_) {
            after = read_module_sample(client);
        }
        mem_after = read_run_memory_stat(hierarchy);
    };
    const auto m = run_workload(*workload_, plan, placement);
    RunResult r;
    r.seconds = m.seconds;
    if (workload_->counts_ops()) {
        r.ops_per_sec = m.total_ops_per_sec;
        r.task_ops_per_sec = m.task_ops_per_sec;
    } else {
        r.exit_statuses = m.exit_statuses;
        r.stopped_at_duration = m.stopped_at_duration;
    }
    if (metric_) {
        double sum = 0;
        bool all = true;
        for (const auto& text : command_outputs()) {
            const auto v = metric_->find(text);
            all = all && v.has_value();
            sum += v.value_or(0);
        }
        if (all) {
            r.metric = sum;
        }
    }
    if (before && after) {
        set_module_deltas(r, *before, *after);
    }
    r.memory_stat.push_back(
        {hierarchy.top_dir().string(), memory_stat_delta(mem_before, mem_after)});
    return r;
}

RunResult RunSession::observe() {
    const auto client = ctx_.client();
    const auto mount = backend_->mount();
    // The groups to read: the --cgroup ones, or the distinct groups the --pid processes are in.
    std::vector<std::filesystem::path> groups;
    for (const auto& typed : options_.observe_cgroups) {
        groups.push_back(mount / parent_relative(mount, typed));
    }
    for (const auto pid : pids_) {
        std::string text;
        try {
            text = read_file(fmt::format("/proc/{}/cgroup", pid));
        } catch (const std::exception&) {
            throw ToolError(ExitCode::usage, fmt::format("--pid {}: no such process", pid));
        }
        const auto path = cgroup_v2_path(text);
        const auto dir = mount / parent_relative(mount, path.value_or("/"));
        if (dir == mount / "") {
            fmt::print(ctx_.env.err,
                       "warning: process {} is in the root cgroup, which has no memory.stat\n",
                       pid);
            continue;
        }
        if (std::find(groups.begin(), groups.end(), dir) == groups.end()) {
            groups.push_back(dir);
        }
    }
    for (const auto& g : groups) {
        std::error_code ec;
        if (!std::filesystem::exists(g / "memory.stat", ec)) {
            throw ToolError(ExitCode::usage,
                            fmt::format("{} is not a cgroup with the memory controller (no "
                                        "memory.stat)",
                                        g.string()));
        }
    }
    const auto wait = [&](double seconds) {
        const auto until = std::chrono::steady_clock::now() +
                           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(seconds));
        while (std::chrono::steady_clock::now() < until) {
            throw_if_stopped();
            if (module_) {
                client.require_still_module();
            }
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                until - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
        }
        throw_if_stopped();
    };
    wait(options_.warmup);
    std::vector<MemoryStat> mem_before;
    mem_before.reserve(groups.size());
    for (const auto& g : groups) {
        mem_before.push_back(read_memory_stat(g));
    }
    const auto module_before = module_ ? std::optional(read_module_sample(client)) : std::nullopt;
    const auto start = std::chrono::steady_clock::now();
    wait(options_.duration.value_or(default_duration));
    RunResult r;
    r.memory_stat.reserve(groups.size());
    const auto module_after =
        module_before ? std::optional(read_module_sample(client)) : std::nullopt;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t i = 0; i < groups.size(); ++i) {
        MemoryStat after;
        std::error_code ec;
        if (std::filesystem::exists(groups[i] / "memory.stat", ec)) {
            after = read_memory_stat(groups[i]);
        } // a group removed meanwhile (its scope ended) has no delta
        r.memory_stat.push_back({groups[i].string(), memory_stat_delta(mem_before[i], after)});
    }
    if (module_before && module_after) {
        set_module_deltas(r, *module_before, *module_after);
    }
    return r;
}

void set_module_deltas(RunResult& r, const ModuleSample& before, const ModuleSample& after) {
    r.counters = Counters::delta(before.counters, after.counters);
    r.flush_latency = histogram_delta(before.latency, after.latency);
    r.flush_reasons = reasons_delta(before.reasons, after.reasons);
    r.derived = derive(*r.counters, r.seconds, r.flush_latency);
}

namespace {

std::string tail(const std::string& text, std::size_t lines) {
    const auto all = split_lines(text);
    std::string out;
    for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
        out += fmt::format("\n  {}", all[i]);
    }
    return out;
}

} // namespace

void print_command_outputs(std::ostream& err, const std::vector<std::string>& outputs) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        for (const auto line : split_lines(outputs[i])) {
            if (outputs.size() > 1) {
                fmt::print(err, "[copy {}] {}\n", i, line);
            } else {
                fmt::print(err, "{}\n", line);
            }
        }
    }
}

std::optional<std::string> command_failure(const RunResult& r,
                                           const std::vector<std::string>& outputs) {
    if (r.stopped_at_duration) {
        return std::nullopt; // the tool ended them: their status says nothing
    }
    for (std::size_t i = 0; i < r.exit_statuses.size(); ++i) {
        if (r.exit_statuses[i] != 0) {
            return fmt::format("copy {} of the command exited with status {}{}", i,
                               r.exit_statuses[i],
                               i < outputs.size() ? tail(outputs[i], 5) : std::string());
        }
    }
    return std::nullopt;
}

} // namespace memcg_statctl
