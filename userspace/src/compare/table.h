// `compare`: results files of several machines or kernels side by side, in the shape of
// mmtests' compare-kernels: one column per file, one row per metric and knob value, the
// %change against the first file and Welch's t-test where both files kept their runs.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/results_document.h"

namespace memcg_statctl {

// What makes results files not comparable: a different command or workload, duration,
// cgroups, tasks, knob, values, figure or schema. The environment (host, kernel, module,
// cpus) is what `compare` compares, so it is never a difference.
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

// `compare`: results files of several machines or kernels side by side, in the shape of
// mmtests' compare-kernels: one column per file, one row per metric and knob value, the
// %change against the first file and Welch's t-test where both files kept their runs.
// One file's figure for one metric at one knob value.
struct CompareCell {
    std::size_t n = 0; // samples (runs); 0 when the file states only a mean
    double mean = 0;
    std::optional<double> stddev;         // n >= 2
    std::optional<double> percent_change; // vs the first file; nullopt for it
    std::optional<double> p_value;        // Welch vs the first file, both n >= 2
    bool significant = false;             // p < 0.05
};

struct CompareRow {
    std::string metric;                            // `ops_per_sec`, `flush.requests`, ...
    std::string value;                             // the knob value ("" for a run)
    std::vector<std::optional<CompareCell>> cells; // one per file; nullopt: not in it
};

// The series at one index of every file (a sweep, or one report of an experiment),
// described by the first file that has it.
struct CompareSection {
    std::string workload;
    std::string knob;
    std::string metric;
    std::string unit;
    std::vector<CompareRow> rows; // the figure first, then the others; values in order
};

struct CompareTable {
    std::vector<ResultsDocument> files;
    std::vector<Difference> differences;
    std::vector<CompareSection> sections;
};

// Keeps the metrics named in `metrics` (a name, or a group: counters, derived, memory_stat;
// see check_metric_names()); all when it is empty. The compared figure is always kept.
CompareTable compare_documents(std::vector<ResultsDocument> files,
                               const std::vector<std::string>& metrics = {});

// The formats of `compare`: the text table (mmtests compare-kernels shape), a JSON
// document, long-form CSV and a gnuplot script of each series' figure per file.
// One table per series: the files' host, kernel, module and runs, then a row per metric and
// knob value: the mean, with the %change against the first file, between stars when
// Welch's t-test gives p < 0.05. Differences (compared anyway) come first.
void print_compare_text(std::ostream& out, const CompareTable& table);

// {"schema": "memcg-statctl/compare", "schema_version": 2, "files": [...],
//  "differences": [...], "series": [{..., "rows": [{"metric", "value", "files": [...]}]}]}
nlohmann::ordered_json compare_json(const CompareTable& table);

// One line per series, metric, knob value and file.
void print_compare_csv(std::ostream& out, const CompareTable& table);

// Bars of each series' figure per knob value, one bar per file, stddev error bars.
std::string compare_gnuplot_script(const CompareTable& table, const std::filesystem::path& file);

} // namespace memcg_statctl
