// A fake cgroup v2 mount in a temporary directory that mimics the kernel rules the tool
// depends on: a child gets memory.* only if its parent's subtree_control enables memory;
// a group with tasks or children cannot be removed; tasks may not join a group that
// delegates controllers (no internal processes). With `cgroup_kill`, groups have the
// cgroup.kill file of Linux 5.14+ (a plain file here: writing it kills nothing).
#pragma once

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cgroup/backend.h"
#include "fake_debugfs.h"
#include "text_util.h"

namespace memcg_statctl::testing {

class FakeCgroupBackend final : public CgroupBackend {
public:
    explicit FakeCgroupBackend(bool cgroup_kill = false) : cgroup_kill_(cgroup_kill) {
        write(dir_.path() / "cgroup.controllers", "cpu io memory pids\n");
        write(dir_.path() / "cgroup.subtree_control", "");
    }
    std::filesystem::path mount() const override { return dir_.path(); }

    void create(const std::string& rel) override {
        const auto dir = mount() / rel;
        std::filesystem::create_directory(dir);
        const auto parent = read_file(dir.parent_path() / "cgroup.subtree_control");
        const bool memory = parent.find("memory") != std::string::npos;
        write(dir / "cgroup.controllers", memory ? "memory\n" : "");
        write(dir / "cgroup.subtree_control", "");
        write(dir / "cgroup.procs", "");
        if (cgroup_kill_) {
            write(dir / "cgroup.kill", "");
        }
        if (memory) {
            write(dir / "memory.stat", "anon 0\nfile 0\n");
        }
        log.push_back("create " + rel);
    }

    int remove(const std::string& rel) override {
        const auto dir = mount() / rel;
        if (!read_file(dir / "cgroup.procs").empty()) {
            return EBUSY;
        }
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
            if (e.is_directory()) {
                return EBUSY;
            }
        }
        std::filesystem::remove_all(dir);
        log.push_back("remove " + rel);
        return 0;
    }

    // Like libcgroup: children first, stopping at the first group that cannot go. Siblings
    // in reverse name order, so that the log does not depend on readdir.
    int remove_tree(const std::string& rel) override {
        if (!std::filesystem::is_directory(mount() / rel)) {
            return ENOENT;
        }
        std::vector<std::string> children;
        for (const auto& e : std::filesystem::directory_iterator(mount() / rel)) {
            if (e.is_directory()) {
                children.push_back(fmt::format("{}/{}", rel, e.path().filename().string()));
            }
        }
        std::sort(children.rbegin(), children.rend());
        for (const auto& child : children) {
            if (const int err = remove_tree(child); err != 0) {
                return err;
            }
        }
        return remove(rel);
    }

    void attach(const std::string& rel, pid_t pid) override {
        const auto dir = mount() / rel;
        if (!read_file(dir / "cgroup.subtree_control").empty()) {
            throw std::runtime_error("EBUSY: no internal processes");
        }
        std::ofstream(dir / "cgroup.procs", std::ios::app) << pid << '\n';
        log.push_back("attach " + rel);
    }

    static void write(const std::filesystem::path& p, const std::string& s) {
        std::ofstream(p, std::ios::trunc) << s;
    }

    std::vector<std::string> log;

private:
    bool cgroup_kill_;
    TempDir dir_;
};

} // namespace memcg_statctl::testing
