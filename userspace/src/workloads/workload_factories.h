// Constructors of the individual workloads (internal; use make_workload()).
#pragma once

#include <memory>

#include "workloads/workload.h"

namespace memcg_statctl {

std::unique_ptr<Workload> make_page_fault_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_slab_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_stat_reader_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_refault_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_readtwice_workload(const WorkloadOptions& o);

} // namespace memcg_statctl
