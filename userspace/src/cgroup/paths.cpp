#include "cgroup/paths.h"

#include <algorithm>

#include <fmt/format.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

CgroupLayout plan_layout(pid_t owner, int leaves, int depth, const std::string& base) {
    if (leaves < 1 || depth < 1) {
        throw ToolError(ExitCode::usage,
                        fmt::format("need at least 1 cgroup at depth >= 1 (got {} at depth {})",
                                    leaves, depth));
    }
    CgroupLayout layout;
    layout.top = fmt::format("{}{}{}{}", base, base.empty() ? "" : "/", top_group_prefix, owner);
    std::string parent = layout.top;
    layout.intermediates.push_back(parent);
    for (int level = 1; level < depth; ++level) {
        parent += fmt::format("/level{}", level);
        layout.intermediates.push_back(parent);
    }
    for (int i = 0; i < leaves; ++i) {
        layout.leaves.push_back(fmt::format("{}/leaf{}", parent, i));
    }
    return layout;
}

std::optional<pid_t> top_group_owner(std::string_view dir_name) {
    if (!dir_name.starts_with(top_group_prefix)) {
        return std::nullopt;
    }
    const auto pid = parse_u64(dir_name.substr(top_group_prefix.size()));
    if (!pid || *pid == 0 || *pid > 0x3fffffff) { // PID_MAX_LIMIT is 2^22 on 64-bit
        return std::nullopt;
    }
    return static_cast<pid_t>(*pid);
}

std::optional<std::filesystem::path> find_cgroup2_mount(std::string_view proc_mounts) {
    for (const auto line : split_lines(proc_mounts)) {
        const auto f = split_whitespace(line);
        // device mountpoint fstype options dump pass
        if (f.size() >= 3 && f[2] == "cgroup2") {
            return std::filesystem::path(f[1]);
        }
    }
    return std::nullopt;
}

bool lists_controller(std::string_view list, std::string_view controller) {
    const auto names = split_whitespace(trim(list));
    return std::find(names.begin(), names.end(), controller) != names.end();
}

} // namespace memcg_statctl
