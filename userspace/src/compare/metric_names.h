// The names `compare --metrics` takes, each metric's one name as text, JSON and CSV print
// it: the compared figures, the groups, the module's counters, the derived values and the
// memory.stat fields.
#pragma once

#include <string>
#include <vector>

namespace memcg_statctl {

// Every valid name, figures and groups first.
std::vector<std::string> metric_names();

// Throws ToolError (usage) for the first name not in metric_names(), listing them all.
void check_metric_names(const std::vector<std::string>& names);

} // namespace memcg_statctl
