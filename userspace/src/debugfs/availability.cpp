#include "debugfs/availability.h"

#include <cerrno>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <fmt/core.h>

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

} // namespace memcg_statctl
