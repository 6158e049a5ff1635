// The formats of `compare`: the text table (mmtests compare-kernels shape), a JSON
// document, long-form CSV and a gnuplot script of each series' figure per file.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "compare/table.h"

namespace memcg_statctl {

// One table per series: the files' host, kernel, module and runs, then a row per metric and
// knob value: the mean, with the %change against the first file, between stars when
// Welch's t-test gives p < 0.05. Differences (compared anyway) come first.
void print_compare_text(std::ostream& out, const CompareTable& table);

// {"schema": "memcg-statctl/compare", "schema_version": 1, "files": [...],
//  "differences": [...], "series": [{..., "rows": [{"metric", "value", "files": [...]}]}]}
nlohmann::ordered_json compare_json(const CompareTable& table);

// One line per series, metric, knob value and file.
void print_compare_csv(std::ostream& out, const CompareTable& table);

// Bars of each series' figure per knob value, one bar per file, stddev error bars.
std::string compare_gnuplot_script(const CompareTable& table, const std::filesystem::path& file);

} // namespace memcg_statctl
