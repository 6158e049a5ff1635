#pragma once

#include <filesystem>

#include "cgroup/hierarchy.h"
#include "workloads/runner.h"

namespace memcg_statctl {

// Places a workload's task groups in the leaves of a CgroupHierarchy: group g is leaf g.
class HierarchyPlacement final : public TaskPlacement {
public:
    explicit HierarchyPlacement(CgroupHierarchy& h) : h_(h) {}
    std::size_t groups() const override { return h_.leaf_count(); }
    std::filesystem::path group_dir(std::size_t g) const override { return h_.leaf_dir(g); }
    void attach(std::size_t g, pid_t pid) override { h_.attach(g, pid); }

private:
    CgroupHierarchy& h_;
};

} // namespace memcg_statctl
