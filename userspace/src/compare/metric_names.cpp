#include "compare/metric_names.h"

#include <algorithm>

#include <fmt/format.h>

#include "cgroup/memory_stat.h"
#include "debugfs/counters.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

std::vector<std::string> metric_names() {
    std::vector<std::string> names = {"ops_per_sec", "metric",  "seconds",
                                      "counters",    "derived", "memory_stat"};
    for (const auto* list : {&counter_names(), &derived_names(), &memory_stat_fields()}) {
        names.insert(names.end(), list->begin(), list->end());
    }
    return names;
}

void check_metric_names(const std::vector<std::string>& names) {
    const auto valid = metric_names();
    for (const auto& name : names) {
        if (std::find(valid.begin(), valid.end(), name) != valid.end()) {
            continue;
        }
        const auto close = closest_names(name, valid);
        throw ToolError(ExitCode::usage,
                        fmt::format("--metrics: unknown metric '{}'{}; the metrics are: {}", name,
                                    close.empty() ? std::string()
                                                  : fmt::format(" (did you mean '{}'?)",
                                                                fmt::join(close, "' or '")),
                                    fmt::join(valid, ", ")));
    }
}

} // namespace memcg_statctl
