// The cgroup v2 hierarchy of one run: its layout (pure path logic, unit-tested) and the
// groups themselves.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

#include "cgroup/backend.h"

namespace memcg_statctl {

inline constexpr std::string_view top_group_prefix = "memcg-statctl.";

// Layout for `--cgroups N --depth D` (D >= 1 levels below the tool's top group):
//   memcg-statctl.<pid>/level1/.../level<D-1>/leaf0 .. leaf<N-1>
// The intermediate groups form one chain shared by all leaves, so the leaves are siblings
// with common ancestors (what hierarchical stat flushing walks); they never hold tasks.
struct CgroupLayout {
    std::string top;                        // "[base/]memcg-statctl.<pid>"
    std::vector<std::string> intermediates; // relative paths, parents first, top included
    std::vector<std::string> leaves;        // relative paths
};

// Throws ToolError for leaves < 1 or depth < 1. `base`: the parent group relative to the
// mount ("" for the root), prefixed to every path.
CgroupLayout plan_layout(pid_t owner, int leaves, int depth, const std::string& base = "");

// "memcg-statctl.<pid>" -> pid; nullopt for any other name.
std::optional<pid_t> top_group_owner(std::string_view dir_name);

// The first cgroup2 mount point in /proc/self/mounts text; nullopt when none.
std::optional<std::filesystem::path> find_cgroup2_mount(std::string_view proc_mounts);

// Whether a space-separated controller list (cgroup.controllers, subtree_control)
// names `controller`.
bool lists_controller(std::string_view list, std::string_view controller);

// Makes sure `group_dir/cgroup.subtree_control` enables the memory controller, so its
// children get memory.* files. libcgroup 2.0.2 does not do this for the v2 root.
void enable_memory_controller(const std::filesystem::path& group_dir);

// Kills every task in `group_dir` and the groups below it (missing group: nothing).
// Writes "1" to its cgroup.kill (Linux 5.14+), which the kernel applies to the whole
// subtree at once, tasks forked meanwhile included; without that file, SIGKILLs each
// process listed in the cgroup.procs files of the subtree.
void kill_group_tasks(const std::filesystem::path& group_dir);

// Created on construction and removed on destruction: every exit path, including errors
// and SIGINT/SIGTERM (the signal only sets a flag; the stack unwinds normally), removes
// what was created.
class CgroupHierarchy {
public:
    // `base`: the parent group relative to the mount ("" for the root, see CgroupParent).
    CgroupHierarchy(CgroupBackend& backend, int leaves, int depth, pid_t owner = ::getpid(),
                    std::string base = "");
    CgroupHierarchy(const CgroupHierarchy&) = delete;
    CgroupHierarchy& operator=(const CgroupHierarchy&) = delete;
    CgroupHierarchy(CgroupHierarchy&&) = delete;
    CgroupHierarchy& operator=(CgroupHierarchy&&) = delete;
    ~CgroupHierarchy();

    std::size_t leaf_count() const { return layout_.leaves.size(); }
    const std::string& leaf(std::size_t i) const { return layout_.leaves.at(i); }
    std::filesystem::path leaf_dir(std::size_t i) const { return backend_.mount() / leaf(i); }
    std::filesystem::path top_dir() const { return backend_.mount() / layout_.top; }
    void attach(std::size_t leaf_index, pid_t pid);

    // Kills tasks still in the groups, then removes them bottom-up. Idempotent; failures
    // are reported on stderr (it runs from destructors).
    void destroy() noexcept;

private:
    CgroupBackend& backend_;
    std::string base_;
    CgroupLayout layout_;
    // The top group was made by this object: it and all below it are ours to remove.
    bool top_created_ = false;
};

bool process_alive(pid_t pid);

struct Leftover {
    std::string name; // "[base/]memcg-statctl.<pid>"
    pid_t owner = 0;
    bool removed = false;
    std::string error; // why it could not be removed
};

// Finds top groups of earlier runs below `base` whose owner died (crash, SIGKILL) and
// removes them, tasks first, then groups deepest first. Groups of live owners are left alone.
std::vector<Leftover>
remove_leftover_groups(CgroupBackend& backend,
                       const std::function<bool(pid_t)>& is_alive = process_alive,
                       const std::string& base = "");

} // namespace memcg_statctl
