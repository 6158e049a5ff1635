// What makes results files not comparable: a different command or workload, duration,
// cgroups, tasks, knob, values, figure or schema. The environment (host, kernel, module,
// cpus) is what `compare` compares, so it is never a difference.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compare/results_document.h"

namespace memcg_statctl {

struct Difference {
    std::size_t file = 0; // index of the file that differs from the first
    std::string field;    // `schema`, `parameters.duration`, `reports[1].knob`, ...
    std::string baseline; // the first file's value, as JSON text ("absent" when missing)
    std::string value;    // this file's
};

// Every field in which a file differs from the first one.
std::vector<Difference> find_differences(const std::vector<ResultsDocument>& files);

// "  FILE: FIELD is VALUE, FIRST has BASELINE", one line each.
std::string describe_differences(const std::vector<ResultsDocument>& files,
                                 const std::vector<Difference>& differences);

} // namespace memcg_statctl
