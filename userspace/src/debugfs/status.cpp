#include "debugfs/status.h"

#include <algorithm>
#include <cerrno>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <fmt/core.h>
#include <fmt/format.h>

#include "exit_code.h"

namespace memcg_statctl {

namespace {

bool is_debugfs_mount(const std::filesystem::path& dir) {
    struct statfs fs {};
    return ::statfs(dir.c_str(), &fs) == 0 && fs.f_type == DEBUGFS_MAGIC;
}

} // namespace

Availability probe_availability(const std::filesystem::path& root) {
    struct stat st {};
    if (::stat((root / "version").c_str(), &st) == 0) {
        return Availability::available;
    }
    if (errno == EACCES) {
        return Availability::not_root; // debugfs is mode 0700, root only
    }
    const auto parent = root.parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec)) {
        return Availability::debugfs_not_mounted;
    }
    if (parent == default_debugfs_mount && !is_debugfs_mount(parent)) {
        return Availability::debugfs_not_mounted;
    }
    return Availability::module_not_loaded;
}

std::string_view availability_name(Availability a) {
    switch (a) {
    case Availability::available:
        return "available";
    case Availability::not_root:
        return "not_root";
    case Availability::debugfs_not_mounted:
        return "debugfs_not_mounted";
    case Availability::module_not_loaded:
        return "module_not_loaded";
    }
    return "unknown";
}

std::string availability_message(Availability a, const std::filesystem::path& root) {
    switch (a) {
    case Availability::available:
        return "memcg_statctl module loaded";
    case Availability::not_root:
        return fmt::format("permission denied on {}: debugfs is root-only, run as root (sudo)",
                           root.string());
    case Availability::debugfs_not_mounted:
        return fmt::format("debugfs not mounted at {}: mount -t debugfs none {}",
                           root.parent_path().string(), root.parent_path().string());
    case Availability::module_not_loaded:
        return fmt::format("memcg_statctl module not loaded ({} missing): run `insmod "
                           "memcg_statctl.ko` (or `modprobe memcg_statctl`)",
                           root.string());
    }
    return "unknown availability state";
}

void require_available(const std::filesystem::path& root) {
    const auto a = probe_availability(root);
    if (a != Availability::available) {
        throw ToolError(ExitCode::unavailable, availability_message(a, root));
    }
}

std::string vanished_message(Availability a, const std::filesystem::path& root) {
    switch (a) {
    case Availability::available:
        return "memcg_statctl module loaded";
    case Availability::not_root:
        return fmt::format("permission denied on {} during the run", root.string());
    case Availability::debugfs_not_mounted:
        return fmt::format("debugfs is no longer mounted at {} (unmounted during the run)",
                           root.parent_path().string());
    case Availability::module_not_loaded:
        return fmt::format("memcg_statctl module was unloaded during the run ({} is gone)",
                           root.string());
    }
    return "unknown availability state";
}

void require_still_available(const std::filesystem::path& root) {
    const auto a = probe_availability(root);
    if (a != Availability::available) {
        throw ToolError(ExitCode::unavailable, vanished_message(a, root));
    }
}

namespace {

constexpr std::string_view supported_hint =
    "use a kernel listed under Supported kernels in the README";

// Every hook of the `hooks` file called `name`, in file order.
std::vector<const HookEntry*> hooks_named(const std::vector<HookEntry>& hooks,
                                          std::string_view name) {
    std::vector<const HookEntry*> rows;
    for (const auto& h : hooks) {
        if (h.name == name) {
            rows.push_back(&h);
        }
    }
    return rows;
}

// The distinct NAMEs of the hooks in `state`, in file order.
std::vector<std::string> names_in_state(const std::vector<HookEntry>& hooks,
                                        std::string_view state) {
    std::vector<std::string> names;
    for (const auto& h : hooks) {
        if (h.state == state && std::find(names.begin(), names.end(), h.name) == names.end()) {
            names.push_back(h.name);
        }
    }
    return names;
}

// "f" or "f, g": the distinct targets (or, for missing hooks, what the kernel may lack:
// the target, and the caller when a call must come from one) of `rows` in `state`.
std::string what_of(const std::vector<const HookEntry*>& rows, std::string_view state,
                    bool with_callers) {
    std::vector<std::string> what;
    const auto add = [&](const std::string& s) {
        if (std::find(what.begin(), what.end(), s) == what.end()) {
            what.push_back(s);
        }
    };
    for (const auto* h : rows) {
        if (h->state != state) {
            continue;
        }
        add(h->target);
        if (with_callers && h->caller != "-") {
            add(h->caller);
        }
    }
    if (what.size() <= 1) {
        return what.empty() ? std::string() : what.front();
    }
    return fmt::format("{} or {}", fmt::join(what.begin(), what.end() - 1, ", "), what.back());
}

bool any_redirect(const std::vector<const HookEntry*>& rows) {
    return std::any_of(rows.begin(), rows.end(),
                       [](const HookEntry* h) { return h->mechanism == "redirect"; });
}

StatusProblem hook_failed(const std::string& name, const std::vector<const HookEntry*>& rows) {
    const auto targets = what_of(rows, "failed", false);
    if (any_redirect(rows)) {
        // Two IPMODIFY ftrace users cannot share a function: a livepatch or a kprobe with a
        // post_handler on the choke point keeps the module's redirect out.
        return {ProblemKind::hook_failed,
                fmt::format("hook {} on {} failed to attach (see dmesg): flush control is off "
                            "for this load (its knobs refuse writes) and the flush.* counters "
                            "are absent; reload memcg_statctl once no livepatch or kprobe with "
                            "a post_handler holds {}",
                            name, targets, targets)};
    }
    return {ProblemKind::hook_failed,
            fmt::format("hook {} on {} failed to attach (see dmesg): it counts nothing, so its "
                        "counter stays 0 or counts short; reload memcg_statctl to try again",
                        name, targets)};
}

StatusProblem hook_missing(const std::string& name, const std::vector<const HookEntry*>& rows) {
    const auto lacks = what_of(rows, "missing", true);
    if (any_redirect(rows)) {
        return {ProblemKind::hook_missing,
                fmt::format("hook {} is missing (this kernel lacks {}): flush control and the "
                            "flush.* counters miss the calls it would redirect; {}",
                            name, lacks, supported_hint)};
    }
    return {ProblemKind::hook_missing,
            fmt::format("hook {} is missing (this kernel lacks {}): nothing counts what it "
                        "feeds, and its counter is absent from stats; {}",
                        name, lacks, supported_hint)};
}

} // namespace

std::string_view problem_kind_name(ProblemKind kind) {
    switch (kind) {
    case ProblemKind::hook_failed:
        return "hook_failed";
    case ProblemKind::hook_missing:
        return "hook_missing";
    case ProblemKind::hook_partial:
        return "hook_partial";
    case ProblemKind::callers_unattributed:
        return "callers_unattributed";
    case ProblemKind::flush_control_missing:
        return "flush_control_missing";
    case ProblemKind::debugfs_locked_down:
        return "debugfs_locked_down";
    }
    return "unknown";
}

std::vector<StatusProblem> find_status_problems(const VersionInfo& version,
                                                const std::vector<HookEntry>& hooks,
                                                std::optional<std::uint64_t> unattributed) {
    std::vector<StatusProblem> problems;
    for (const auto& name : names_in_state(hooks, "failed")) {
        problems.push_back(hook_failed(name, hooks_named(hooks, name)));
    }
    const bool flush_missing = version.get("flush_control") == "missing";
    if (!flush_missing) {
        for (const auto& name : names_in_state(hooks, "missing")) {
            // attr.* rows feed only the opt-in stock_by_cgroup file, which then says `state
            // missing` and whose knob refuses to turn on: a feature absent, not a broken count.
            // So do bpf.* rows (`version` says bpf_share missing): BPF trampolines then cannot
            // share the functions counted directly, and every count stays right.
            if (name.starts_with("attr.") || name.starts_with("bpf.")) {
                continue;
            }
            const auto rows = hooks_named(hooks, name);
            const bool all_missing = std::all_of(
                rows.begin(), rows.end(), [](const HookEntry* h) { return h->state == "missing"; });
            if (all_missing) {
                problems.push_back(hook_missing(name, rows));
            }
        }
    }
    for (const auto& name : names_in_state(hooks, "partial")) {
        problems.push_back(
            {ProblemKind::hook_partial,
             fmt::format("hook {} on {} is partial: the compiler made a copy of a function it "
                         "needs (dmesg names it) that the module does not watch, so calls there "
                         "are not counted and {} counts short",
                         name, what_of(hooks_named(hooks, name), "partial", false), name)});
    }
    if (unattributed.value_or(0) > 0) {
        problems.push_back(
            {ProblemKind::callers_unattributed,
             fmt::format("{} calls since the last reset could not be attributed to their caller "
                         "(caller.unattributed): another tracer on the same functions hid it, so "
                         "the counters that filter by caller may count short by up to that many; "
                         "see docs/tracers.md",
                         *unattributed)});
    }
    if (flush_missing) {
        problems.push_back(
            {ProblemKind::flush_control_missing,
             fmt::format("flush control is missing on this kernel (dmesg names the kernel object "
                         "it lacks): flush_mode, flush_period_ms and update_flush_every cannot "
                         "be set, flush_threshold does nothing and the flush.* counters are "
                         "absent; {}",
                         supported_hint)});
    }
    if (version.get("lockdown") == "debugfs") {
        problems.push_back(
            {ProblemKind::debugfs_locked_down,
             "debugfs is locked down (kernel lockdown): writes to the knobs and to reset fail; "
             "set knobs as module parameters at load (modprobe memcg_statctl flush_mode=never) "
             "and reload the module to change them"});
    }
    return problems;
}

} // namespace memcg_statctl
