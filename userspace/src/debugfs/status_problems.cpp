#include "debugfs/status_problems.h"

#include <algorithm>

#include <fmt/format.h>

namespace memcg_statctl {
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
    case ProblemKind::flush_control_missing:
        return "flush_control_missing";
    case ProblemKind::debugfs_locked_down:
        return "debugfs_locked_down";
    }
    return "unknown";
}

std::vector<StatusProblem> find_status_problems(const VersionInfo& version,
                                                const std::vector<HookEntry>& hooks) {
    std::vector<StatusProblem> problems;
    for (const auto& name : names_in_state(hooks, "failed")) {
        problems.push_back(hook_failed(name, hooks_named(hooks, name)));
    }
    const bool flush_missing = version.get("flush_control") == "missing";
    if (!flush_missing) {
        for (const auto& name : names_in_state(hooks, "missing")) {
            const auto rows = hooks_named(hooks, name);
            const bool all_missing = std::all_of(
                rows.begin(), rows.end(), [](const HookEntry* h) { return h->state == "missing"; });
            if (all_missing) {
                problems.push_back(hook_missing(name, rows));
            }
        }
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
