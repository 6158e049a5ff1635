// Where the tool builds its cgroups. On a systemd machine the convention is to work inside
// a delegated subtree (systemd-run --scope -p Delegate=yes ...; systemd marks such a group
// with the xattr trusted.delegate or user.delegate = "1"), not at the root of the hierarchy
// that systemd manages. So: `--parent PATH` when given; else, when the tool's own cgroup is
// delegated, its own cgroup; else the root (a machine where nothing delegates, the guest).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <unistd.h>

#include "cgroup/backend.h"

namespace memcg_statctl {

// The cgroup v2 path ("/system.slice/x.scope", "/" for the root) of the `0::` line of
// /proc/PID/cgroup text; nullopt when there is none (cgroup v1 only).
std::optional<std::string> cgroup_v2_path(std::string_view proc_pid_cgroup);

// `--parent` as typed (a directory under the mount, or a path inside the hierarchy such as
// /system.slice/x.scope) -> the path relative to the mount ("" for the root). Throws
// ToolError(usage) for a path with "..".
std::string parent_relative(const std::filesystem::path& mount, std::string_view typed);

struct ParentChoice {
    std::string rel;        // relative to the mount; "" is the root
    bool own_group = false; // rel is the tool's own cgroup: the tool must step aside
    std::string why;        // "--parent", "delegated" or "root"
};

// Pure decision (unit-tested). `own_rel`: the tool's cgroup relative to the mount.
ParentChoice choose_parent(const std::optional<std::string>& explicit_rel,
                           const std::string& own_rel, bool own_delegated);

// Whether systemd marked the group as delegated (trusted.delegate or user.delegate is "1").
bool is_delegated(const std::filesystem::path& group_dir);

// Holds the chosen parent for a session. When it is the tool's own group, cgroup v2's "no
// internal processes" rule forbids enabling the memory controller there while the tool
// sits in it: the tool moves itself into a leaf `memcg-statctl-tool.<pid>` below it, and
// on destruction moves back, gives the memory controller back if it enabled it, and
// removes that leaf.
class CgroupParent {
public:
    CgroupParent(CgroupBackend& backend, const std::optional<std::string>& typed_parent,
                 pid_t self = ::getpid());
    CgroupParent(const CgroupParent&) = delete;
    CgroupParent& operator=(const CgroupParent&) = delete;
    CgroupParent(CgroupParent&&) = delete;
    CgroupParent& operator=(CgroupParent&&) = delete;
    ~CgroupParent();

    const std::string& rel() const { return choice_.rel; }
    // The parent's directory; the mount itself, with no trailing slash, for the root.
    std::filesystem::path dir() const {
        return choice_.rel.empty() ? backend_.mount() : backend_.mount() / choice_.rel;
    }
    const std::string& why() const { return choice_.why; }

private:
    void step_back() noexcept;

    CgroupBackend& backend_;
    ParentChoice choice_;
    pid_t self_;
    std::string step_aside_; // the tool's leaf while it steps aside; "" when it did not
    bool enabled_memory_ = false;
};

} // namespace memcg_statctl
