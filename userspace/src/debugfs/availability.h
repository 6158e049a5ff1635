// Decides why the module's debugfs directory cannot be used, so the user gets a message
// saying what to do (exit code 3) instead of a bare "No such file or directory".
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

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

} // namespace memcg_statctl
