// The flush-policy recipes: update-flush and reader-flush.
#pragma once

#include <vector>

#include "experiment/experiment.h"

namespace memcg_statctl {

Recipe update_flush_recipe();
Recipe reader_flush_recipe();

// docs/background.md#update-path-flush: one report per page-fault mode with rows "0"
// (baseline), "128", "32". Reproduced when every mode is significantly slower at 32 than at 0.
Verdict update_flush_verdict(const std::vector<ComparisonReport>& modes);

// docs/background.md#flush-only-if-updated: rows "always" (baseline) and "kernel". Reproduced
// when refault is significantly faster with `kernel`. `reader` (stat-reader) is reported only.
Verdict reader_flush_verdict(const ComparisonReport& refault, const ComparisonReport* reader);

} // namespace memcg_statctl
