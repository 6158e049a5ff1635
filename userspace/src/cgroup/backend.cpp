#include "cgroup/backend.h"

#include <cerrno>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>
#include <libcgroup.h>

#include "cgroup/hierarchy.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

struct CgroupDeleter {
    void operator()(cgroup* cg) const { cgroup_free(&cg); }
};
using CgroupPtr = std::unique_ptr<cgroup, CgroupDeleter>;

// A libcgroup handle for `rel` with the memory controller, as every call below needs.
CgroupPtr memory_cgroup(const std::string& rel) {
    CgroupPtr cg(cgroup_new_cgroup(rel.c_str()));
    if (!cg || cgroup_add_controller(cg.get(), "memory") == nullptr) {
        throw ToolError(fmt::format("libcgroup: cannot describe cgroup {}", rel));
    }
    return cg;
}

std::string libcgroup_error(int ret) {
    return ret == ECGOTHER
               ? fmt::format("{} (errno {})", cgroup_strerror(ret), cgroup_get_last_errno())
               : std::string(cgroup_strerror(ret));
}

int delete_cgroup(const std::string& rel, int flags) {
    const auto cg = memory_cgroup(rel);
    // Tasks were killed before; nothing to migrate (and v2 forbids moving them into an
    // intermediate group anyway).
    const int ret = cgroup_delete_cgroup_ext(cg.get(), flags | CGFLAG_DELETE_IGNORE_MIGRATION);
    if (ret == 0) {
        return 0;
    }
    const int err = cgroup_get_last_errno();
    return err != 0 ? err : EIO;
}

} // namespace

LibcgroupBackend::LibcgroupBackend() {
    const auto mount = find_cgroup2_mount(read_file("/proc/self/mounts"));
    if (!mount) {
        throw ToolError("no cgroup v2 file system is mounted: mount -t cgroup2 none "
                        "/sys/fs/cgroup (or boot with systemd.unified_cgroup_hierarchy=1)");
    }
    mount_ = *mount;
    const auto controllers = read_file(mount_ / "cgroup.controllers");
    if (!lists_controller(controllers, "memory")) {
        throw ToolError(fmt::format(
            "the memory controller is not available in cgroup v2 at {} (cgroup.controllers: "
            "\"{}\"); it is probably bound to a cgroup v1 hierarchy: boot with "
            "cgroup_no_v1=memory or systemd.unified_cgroup_hierarchy=1",
            mount_.string(), trim(controllers)));
    }
    if (const int ret = cgroup_init(); ret != 0) {
        throw ToolError(fmt::format("libcgroup initialisation failed: {}", libcgroup_error(ret)));
    }
    char* raw = nullptr;
    const int ret = cgroup_get_subsys_mount_point("memory", &raw);
    const std::unique_ptr<char, decltype(&std::free)> lib_mount(raw, &std::free);
    if (ret != 0 || !lib_mount ||
        std::filesystem::path(lib_mount.get()).lexically_normal() != mount_.lexically_normal()) {
        throw ToolError(fmt::format("libcgroup maps the memory controller to {}, not to the "
                                    "cgroup v2 mount {}",
                                    lib_mount ? lib_mount.get() : "nothing", mount_.string()));
    }
}

void LibcgroupBackend::create(const std::string& rel) {
    const auto cg = memory_cgroup(rel);
    // ignore_ownership = 1: we run as root and keep root's ownership; the chown step
    // would also look for the v1 `tasks` file.
    if (const int ret = cgroup_create_cgroup(cg.get(), 1); ret != 0) {
        throw ToolError(fmt::format("cannot create cgroup {}: {}", (mount_ / rel).string(),
                                    libcgroup_error(ret)));
    }
}

int LibcgroupBackend::remove(const std::string& rel) {
    return delete_cgroup(rel, 0);
}

int LibcgroupBackend::remove_tree(const std::string& rel) {
    // libcgroup walks the subtree and removes it bottom-up, stopping at the first group
    // that cannot go: the contract of remove_tree.
    return delete_cgroup(rel, CGFLAG_DELETE_RECURSIVE);
}

void LibcgroupBackend::attach(const std::string& rel, pid_t pid) {
    const auto cg = memory_cgroup(rel);
    if (const int ret = cgroup_attach_task_pid(cg.get(), pid); ret != 0) {
        throw ToolError(
            fmt::format("cannot move task {} into cgroup {}: {}", pid, rel, libcgroup_error(ret)));
    }
}

} // namespace memcg_statctl
