#include "cgroup/hierarchy.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "debugfs/client.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

namespace {

// A killed task leaves its cgroup asynchronously; rmdir fails with EBUSY until then.
// Tasks with much memory to free take longest: wait up to 3 s for the whole tree. A
// group already gone (another instance removed the same leftover) counts as removed.
int remove_tree_waiting(CgroupBackend& backend, const std::string& rel) {
    using namespace std::chrono_literals;
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    while (true) {
        const int err = backend.remove_tree(rel);
        if (err != EBUSY || std::chrono::steady_clock::now() >= deadline) {
            return err == ENOENT ? 0 : err;
        }
        std::this_thread::sleep_for(10ms);
    }
}

void kill_listed_tasks(const std::filesystem::path& group_dir) {
    std::error_code ec;
    if (!std::filesystem::exists(group_dir / "cgroup.procs", ec)) {
        return;
    }
    for (const auto line : split_lines(read_file(group_dir / "cgroup.procs"))) {
        if (const auto pid = parse_u64(trim(line)); pid && *pid > 1) {
            ::kill(static_cast<pid_t>(*pid), SIGKILL);
        }
    }
}

} // namespace

void enable_memory_controller(const std::filesystem::path& group_dir) {
    const auto file = group_dir / "cgroup.subtree_control";
    if (lists_controller(read_file(file), "memory")) {
        return;
    }
    if (const int err = write_whole_file(file, "+memory\n"); err != 0) {
        throw ToolError(fmt::format("cannot enable the memory controller in {}: {}{}",
                                    file.string(), std::strerror(err),
                                    err == EBUSY ? " (the group holds processes: cgroup v2 "
                                                   "allows controllers only above leaves)"
                                                 : ""));
    }
}

void kill_group_tasks(const std::filesystem::path& group_dir) {
    if (write_whole_file(group_dir / "cgroup.kill", "1") == 0) {
        return;
    }
    // No cgroup.kill (before 5.14), or it refused: one process at a time, which misses a
    // task forked after its group's list was read.
    kill_listed_tasks(group_dir);
    std::error_code ec;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(group_dir, ec)) {
        if (entry.is_directory(ec)) {
            kill_listed_tasks(entry.path());
        }
    }
}

CgroupHierarchy::CgroupHierarchy(CgroupBackend& backend, int leaves, int depth, pid_t owner,
                                 std::string base)
    : backend_(backend), base_(std::move(base)), layout_(plan_layout(owner, leaves, depth, base_)) {
    try {
        // Every group that has children must delegate the memory controller to them,
        // starting at the parent; leaves get memory.* files but never enable anything.
        enable_memory_controller(backend_.mount() / base_);
        for (const auto& rel : layout_.intermediates) {
            backend_.create(rel);
            top_created_ = true; // the first is the top group, which holds all the others
            enable_memory_controller(backend_.mount() / rel);
        }
        for (const auto& rel : layout_.leaves) {
            backend_.create(rel);
        }
    } catch (...) {
        destroy();
        throw;
    }
}

CgroupHierarchy::~CgroupHierarchy() {
    destroy();
}

void CgroupHierarchy::attach(std::size_t leaf_index, pid_t pid) {
    backend_.attach(leaf(leaf_index), pid);
}

void CgroupHierarchy::destroy() noexcept {
    if (!top_created_) {
        return;
    }
    top_created_ = false;
    try {
        kill_group_tasks(top_dir());
        if (const int err = remove_tree_waiting(backend_, layout_.top); err != 0) {
            fmt::print(std::cerr, "memcg-statctl: warning: cannot remove cgroup {}: {}\n",
                       top_dir().string(), std::strerror(err));
        }
    } catch (const std::exception& e) {
        // stdio, not fmt/iostreams: nothing in a noexcept cleanup path may throw.
        (void)std::fprintf(stderr, "memcg-statctl: warning: cgroup cleanup failed: %s\n", e.what());
    } catch (...) {
        (void)std::fputs("memcg-statctl: warning: cgroup cleanup failed\n", stderr);
    }
}

bool process_alive(pid_t pid) {
    return ::kill(pid, 0) == 0 || errno == EPERM;
}

std::vector<Leftover> remove_leftover_groups(CgroupBackend& backend,
                                             const std::function<bool(pid_t)>& is_alive,
                                             const std::string& base) {
    std::vector<Leftover> found;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(backend.mount() / base, ec)) {
        const auto dir_name = entry.path().filename().string();
        const auto name = base.empty() ? dir_name : fmt::format("{}/{}", base, dir_name);
        const auto owner = top_group_owner(dir_name);
        if (!owner || !entry.is_directory(ec) || *owner == ::getpid() || is_alive(*owner)) {
            continue;
        }
        Leftover left{name, *owner, false, {}};
        try {
            kill_group_tasks(entry.path());
            const int err = remove_tree_waiting(backend, name);
            left.removed = err == 0;
            left.error = err == 0 ? "" : std::strerror(err);
        } catch (const std::exception& e) {
            left.error = e.what();
        }
        found.push_back(std::move(left));
    }
    return found;
}

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
