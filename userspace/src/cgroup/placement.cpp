#include "cgroup/placement.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <fmt/format.h>

#include "cgroup/hierarchy.h"
#include "debugfs/client.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

std::optional<std::string> cgroup_v2_path(std::string_view proc_pid_cgroup) {
    for (const auto line : split_lines(proc_pid_cgroup)) {
        if (line.starts_with("0::")) {
            return std::string(trim(line.substr(3)));
        }
    }
    return std::nullopt;
}

std::string parent_relative(const std::filesystem::path& mount, std::string_view typed) {
    for (const auto& part : std::filesystem::path(typed)) {
        if (part == "..") {
            throw ToolError(ExitCode::usage,
                            fmt::format("--parent {}: give the cgroup without '..'", typed));
        }
    }
    auto path = std::filesystem::path(typed).lexically_normal();
    const auto rel_to_mount = path.lexically_relative(mount);
    if (path.is_absolute() && !rel_to_mount.empty() && *rel_to_mount.begin() != "..") {
        path = rel_to_mount;
    }
    auto s = path.relative_path().string(); // "/a/b/" and "a/b" alike
    while (!s.empty() && s.back() == '/') {
        s.pop_back();
    }
    return s == "." ? std::string() : s;
}

ParentChoice choose_parent(const std::optional<std::string>& explicit_rel,
                           const std::string& own_rel, bool own_delegated) {
    if (explicit_rel) {
        return {*explicit_rel, !own_rel.empty() && *explicit_rel == own_rel, "--parent"};
    }
    if (own_delegated && !own_rel.empty()) {
        return {own_rel, true, "delegated"};
    }
    return {"", false, "root"};
}

bool is_delegated(const std::filesystem::path& group_dir) {
    for (const char* name : {"trusted.delegate", "user.delegate"}) {
        std::array<char, 8> value{};
        const auto n = ::getxattr(group_dir.c_str(), name, value.data(), value.size());
        if (n == 1 && value[0] == '1') {
            return true;
        }
    }
    return false;
}

CgroupParent::CgroupParent(CgroupBackend& backend, const std::optional<std::string>& typed_parent,
                           pid_t self)
    : backend_(backend), self_(self) {
    const auto own = cgroup_v2_path(read_file(fmt::format("/proc/{}/cgroup", self)));
    const std::string own_rel = own ? parent_relative(backend_.mount(), *own) : std::string();
    const auto explicit_rel =
        typed_parent ? std::optional<std::string>(parent_relative(backend_.mount(), *typed_parent))
                     : std::nullopt;
    choice_ = choose_parent(explicit_rel, own_rel,
                            !own_rel.empty() && is_delegated(backend_.mount() / own_rel));
    const auto parent_dir = dir();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(parent_dir / "cgroup.procs", ec)) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--parent {}: {} is not a cgroup", typed_parent.value_or(""),
                                    parent_dir.string()));
    }
    if (!choice_.rel.empty() &&
        !lists_controller(read_file(parent_dir / "cgroup.controllers"), "memory")) {
        throw ToolError(fmt::format("the memory controller is not available in {} (its parent "
                                    "does not delegate it: enable +memory in the parent's "
                                    "cgroup.subtree_control, or Delegate=yes in systemd)",
                                    parent_dir.string()));
    }
    if (!choice_.own_group) {
        return;
    }
    // Step aside into a leaf of our own so the memory controller can be enabled here.
    // A plain mkdir, not libcgroup: libcgroup would enable the memory controller for it,
    // which the parent refuses (EBUSY) while the tool is still in it.
    step_aside_ = choice_.rel + fmt::format("/memcg-statctl-tool.{}", self_);
    const auto leaf = backend_.mount() / step_aside_;
    if (::mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST) {
        const int err = errno;
        step_aside_.clear();
        throw ToolError(
            fmt::format("cannot create cgroup {}: {}", leaf.string(), std::strerror(err)));
    }
    try {
        if (const int err = write_whole_file(leaf / "cgroup.procs", fmt::format("{}\n", self_));
            err != 0) {
            throw ToolError(
                fmt::format("cannot move the tool into {}: {}", leaf.string(), std::strerror(err)));
        }
        enabled_memory_ =
            !lists_controller(read_file(parent_dir / "cgroup.subtree_control"), "memory");
        enable_memory_controller(parent_dir);
    } catch (...) {
        step_back();
        throw;
    }
}

CgroupParent::~CgroupParent() {
    step_back();
}

void CgroupParent::step_back() noexcept {
    if (step_aside_.empty()) {
        return;
    }
    const auto parent_dir = dir();
    if (enabled_memory_) {
        (void)write_whole_file(parent_dir / "cgroup.subtree_control", "-memory\n");
        enabled_memory_ = false;
    }
    // Back into our own group (refused, EBUSY, while a controller stays enabled there: then
    // the tool stays in its leaf, which systemd removes with the scope).
    if (write_whole_file(parent_dir / "cgroup.procs", fmt::format("{}\n", self_)) == 0) {
        if (::rmdir((backend_.mount() / step_aside_).c_str()) != 0) {
            const int err = errno;
            (void)std::fprintf(stderr, "memcg-statctl: warning: cannot remove cgroup %s: %s\n",
                               (backend_.mount() / step_aside_).c_str(), std::strerror(err));
        }
    }
    step_aside_.clear();
}

} // namespace memcg_statctl
