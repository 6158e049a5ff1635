#include "memcg_statctl/cgroup_hierarchy.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "memcg_statctl/debugfs_client.h"
#include "memcg_statctl/exit_code.h"
#include "memcg_statctl/text_util.h"

namespace memcg_statctl {
namespace {

// A SIGKILLed task leaves its cgroup asynchronously; rmdir fails with EBUSY until then.
int remove_with_retry(CgroupBackend& backend, const std::string& rel) {
    constexpr int attempts = 100;
    int err = 0;
    for (int i = 0; i < attempts; ++i) {
        err = backend.remove(rel);
        if (err != EBUSY) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return err;
}

// All groups below (and including) `dir`, children before parents.
void collect_post_order(const std::filesystem::path& dir, const std::string& rel,
                        std::vector<std::string>& out) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.is_directory(ec) && !entry.is_symlink(ec)) {
            collect_post_order(entry.path(), rel + "/" + entry.path().filename().string(), out);
        }
    }
    out.push_back(rel);
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

CgroupHierarchy::CgroupHierarchy(CgroupBackend& backend, int leaves, int depth, pid_t owner,
                                 std::string base)
    : backend_(backend), base_(std::move(base)), layout_(plan_layout(owner, leaves, depth, base_)) {
    try {
        // Every group that has children must delegate the memory controller to them,
        // starting at the parent; leaves get memory.* files but never enable anything.
        enable_memory_controller(backend_.mount() / base_);
        for (const auto& rel : layout_.intermediates) {
            backend_.create(rel);
            created_.push_back(rel);
            enable_memory_controller(backend_.mount() / rel);
        }
        for (const auto& rel : layout_.leaves) {
            backend_.create(rel);
            created_.push_back(rel);
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
    try {
        for (const auto& rel : layout_.leaves) {
            kill_group_tasks(backend_.mount() / rel);
        }
        while (!created_.empty()) {
            const auto rel = created_.back();
            created_.pop_back();
            if (const int err = remove_with_retry(backend_, rel); err != 0) {
                fmt::print(std::cerr, "memcg-statctl: warning: cannot remove cgroup {}: {}\n",
                           (backend_.mount() / rel).string(), std::strerror(err));
            }
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
        std::vector<std::string> groups;
        collect_post_order(entry.path(), name, groups);
        try {
            for (const auto& rel : groups) {
                kill_group_tasks(backend.mount() / rel);
            }
            for (const auto& rel : groups) {
                if (const int err = remove_with_retry(backend, rel); err != 0) {
                    throw ToolError(fmt::format("{}: {}", rel, std::strerror(err)));
                }
            }
            left.removed = true;
        } catch (const ToolError& e) {
            left.error = e.what();
        }
        found.push_back(std::move(left));
    }
    return found;
}

} // namespace memcg_statctl
