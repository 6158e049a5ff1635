// Whether the module can be used (exit 3 with what to do) and whether it is degraded
// (exit 4).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugfs/counters.h"

namespace memcg_statctl {

inline const std::filesystem::path default_debugfs_mount = "/sys/kernel/debug";
inline const std::filesystem::path default_debugfs_root = "/sys/kernel/debug/memcg_statctl";

enum class Availability {
    available,
    not_root,
    debugfs_not_mounted,
    module_not_loaded,
};

// Looks at `root` (the module's directory). The debugfs-mount check applies to the parent
// of `root` when that parent is the standard mount point, so a fake tree in a temporary
// directory (tests, --debugfs) is judged only on whether the module's files are there.
Availability probe_availability(const std::filesystem::path& root);

// A stable word for the state, for scripts: available, not_root, debugfs_not_mounted,
// module_not_loaded (`status --json` prints it as "reason").
std::string_view availability_name(Availability a);

// The message for a non-available state, including the command that fixes it.
std::string availability_message(Availability a, const std::filesystem::path& root);

// Throws ToolError(ExitCode::unavailable) unless the module's files are there.
void require_available(const std::filesystem::path& root);

// For a command that found the module's files at its start and lost them since: one line
// naming what disappeared (the module was unloaded, or debugfs was unmounted).
std::string vanished_message(Availability a, const std::filesystem::path& root);

// Throws ToolError(ExitCode::unavailable, vanished_message()) unless the module's files
// are still there. For commands that already called require_available().
void require_still_available(const std::filesystem::path& root);

// What makes a loaded module degraded, for `status` (exit 4): decided from the `version`
// and `hooks` files of module/ABI.md alone, each problem with one line saying what it
// means and what to do.
enum class ProblemKind {
    hook_failed,           // STATE `failed`: registration failed, see the kernel log
    hook_missing,          // every hook of one NAME `missing`: what it feeds is gone
    hook_partial,          // STATE `partial`: a compiler copy of its function is not watched
    callers_unattributed,  // caller.unattributed > 0: another tracer hid some callers
    flush_control_missing, // `flush_control missing`: the kernel lacks an object it needs
    debugfs_locked_down,   // `lockdown debugfs`: knob and reset writes fail with EPERM
};

// The stable word scripts see as "kind" in `status --json`: hook_failed, hook_missing,
// hook_partial, callers_unattributed, flush_control_missing, debugfs_locked_down.
std::string_view problem_kind_name(ProblemKind kind);

struct StatusProblem {
    ProblemKind kind = ProblemKind::hook_failed;
    std::string message; // one line: what it means and what to do
    friend bool operator==(const StatusProblem&, const StatusProblem&) = default;
};

// The problems of a loaded module, in this order: failed hooks, missing hooks, partial
// hooks, unattributed calls, flush control, lockdown; empty when it is healthy. One problem per
// hook NAME, in the order of the `hooks` file. Rules:
// - `failed`: always a problem (the hook counts or redirects nothing).
// - `missing`: a problem when no other hook of the same NAME is present (not `missing`),
//   so what that NAME feeds is unavailable: a stock counter absent from `stats`, or a part
//   of flush control (the `flush*` redirects, the `update.*` hooks that count the pending
//   updates). A missing row beside a present row of the same NAME is not. When
//   `flush_control` is `missing` the module marks every flush and update hook `missing`
//   itself, so then the one flush_control_missing problem stands for all missing hooks.
// - `flush_control missing` (not `off`, which the module parameter flush_hooks=0 asks for).
// - `partial`: the hook counts, but misses the calls of a compiler copy of its function.
// - `unattributed`, the `caller.unattributed` counter, above 0: calls whose caller another
//   tracer hid; the caller-filtered counters may be short by up to that many.
// - `lockdown debugfs`.
// States and values this tool does not know (a newer module's) are not problems.
std::vector<StatusProblem> find_status_problems(const VersionInfo& version,
                                                const std::vector<HookEntry>& hooks,
                                                std::optional<std::uint64_t> unattributed = {});

} // namespace memcg_statctl
