#include "workloads/workload.h"

#include <fmt/format.h>

#include "exit_code.h"

namespace memcg_statctl {

std::vector<std::string> workload_names() {
    return {"page-fault", "slab", "stat-reader", "refault", "readtwice"};
}

std::unique_ptr<Workload> make_workload(const WorkloadOptions& o) {
    if (o.name == "page-fault") {
        return make_page_fault_workload(o);
    }
    if (o.name == "slab") {
        return make_slab_workload(o);
    }
    if (o.name == "stat-reader") {
        return make_stat_reader_workload(o);
    }
    if (o.name == "refault") {
        return make_refault_workload(o);
    }
    if (o.name == "readtwice") {
        return make_readtwice_workload(o);
    }
    throw ToolError(ExitCode::usage, fmt::format("unknown workload `{}` (one of: {})", o.name,
                                                 fmt::join(workload_names(), ", ")));
}

} // namespace memcg_statctl
