// Pure path logic of the cgroup v2 hierarchies the tool builds (no I/O, unit-tested).
//
// Layout for `--cgroups N --depth D` (D >= 1 levels below the tool's top group):
//   memcg-statctl.<pid>/level1/.../level<D-1>/leaf0 .. leaf<N-1>
// The intermediate groups form one chain shared by all leaves, so the leaves are siblings
// with common ancestors (what hierarchical stat flushing walks); they never hold tasks.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace memcg_statctl {

inline constexpr std::string_view top_group_prefix = "memcg-statctl.";

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

} // namespace memcg_statctl
