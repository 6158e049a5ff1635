// How cgroups are created, removed and populated. The real implementation goes through
// libcgroup; tests substitute a backend that works on an ordinary temporary directory.
// Interface files (cgroup.subtree_control, cgroup.procs, memory.*) are read and written
// directly under mount() by the callers, which works for both.
#pragma once

#include <filesystem>
#include <string>
#include <sys/types.h>

namespace memcg_statctl {

class CgroupBackend {
public:
    CgroupBackend() = default;
    CgroupBackend(const CgroupBackend&) = delete;
    CgroupBackend& operator=(const CgroupBackend&) = delete;
    CgroupBackend(CgroupBackend&&) = delete;
    CgroupBackend& operator=(CgroupBackend&&) = delete;
    virtual ~CgroupBackend() = default;

    // The cgroup v2 mount; relative paths below are relative to it.
    virtual std::filesystem::path mount() const = 0;
    virtual void create(const std::string& rel) = 0;
    // Returns 0 or an errno (EBUSY while dying tasks still leave the group).
    virtual int remove(const std::string& rel) = 0;
    // Removes `rel` and every group below it, children first (a user's command may have
    // made groups of its own). Returns 0 or the errno of the first group that could not
    // go; the groups removed before it stay removed, so a retry carries on from there.
    virtual int remove_tree(const std::string& rel) = 0;
    virtual void attach(const std::string& rel, pid_t pid) = 0;
};

// The real thing: cgroup v2 through libcgroup. The constructor finds the cgroup2 mount,
// checks that libcgroup maps the memory controller to it (not to a v1 hierarchy) and
// that the memory controller is available there; otherwise it throws ToolError.
class LibcgroupBackend final : public CgroupBackend {
public:
    LibcgroupBackend();
    std::filesystem::path mount() const override { return mount_; }
    void create(const std::string& rel) override;
    int remove(const std::string& rel) override;
    int remove_tree(const std::string& rel) override;
    void attach(const std::string& rel, pid_t pid) override;

private:
    std::filesystem::path mount_;
};

} // namespace memcg_statctl
