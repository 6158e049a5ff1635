// The run function of each recipe (internal): one per row of the recipe table (recipes.cpp).
// Each builds its jobs and variants, runs them on `e` and fills `r`'s reports, tables,
// parameters, notes and verdict.
#pragma once

#include "experiment/runner.h"

namespace memcg_statctl {

void run_update_flush(Experiment& e, ExperimentResult& r);    // recipes_flush.cpp
void run_reader_flush(Experiment& e, ExperimentResult& r);    // recipes_flush.cpp
void run_flush_threshold(Experiment& e, ExperimentResult& r); // recipes_staleness.cpp
void run_staleness(Experiment& e, ExperimentResult& r);       // recipes_staleness.cpp
void run_objstock(Experiment& e, ExperimentResult& r);        // recipes_stock.cpp
void run_readtwice(Experiment& e, ExperimentResult& r);       // recipes_stock.cpp

} // namespace memcg_statctl
