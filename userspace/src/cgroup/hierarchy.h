// The cgroup v2 hierarchy of one run (layout in cgroup_paths.h), created on construction
// and removed on destruction: every exit path, including errors and SIGINT/SIGTERM (the
// signal only sets a flag; the stack unwinds normally), removes what was created.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

#include "cgroup/backend.h"
#include "cgroup/paths.h"

namespace memcg_statctl {

// Makes sure `group_dir/cgroup.subtree_control` enables the memory controller, so its
// children get memory.* files. libcgroup 2.0.2 does not do this for the v2 root.
void enable_memory_controller(const std::filesystem::path& group_dir);

// Kills every task in `group_dir` and the groups below it (missing group: nothing).
// Writes "1" to its cgroup.kill (Linux 5.14+), which the kernel applies to the whole
// subtree at once, tasks forked meanwhile included; without that file, SIGKILLs each
// process listed in the cgroup.procs files of the subtree.
void kill_group_tasks(const std::filesystem::path& group_dir);

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
