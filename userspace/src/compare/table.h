// `compare`: results files of several machines or kernels side by side, as a paper's table:
// one row per metric and knob value, each file's mean +- sd, the change against the first
// file with its 95% confidence interval and Welch's t-test where both files kept their runs,
// and the names `--metrics` takes.
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

// The names `compare --metrics` takes, each metric's one name as text, JSON and CSV print
// it: the compared figures, the groups, the module's counters, the derived values, the
// memory.stat fields and flush_reasons.CLASS.requests|performed; figures and groups first.
std::vector<std::string> metric_names();

// Throws ToolError (usage) for the first name not in metric_names(), listing them all.
void check_metric_names(const std::vector<std::string>& names);

// One file's figure for one metric at one knob value.
struct CompareCell {
    std::size_t n = 0; // samples (runs); 0 when the file states only a mean
    double mean = 0;
    std::optional<double> stddev;         // n >= 2
    std::optional<double> percent_change; // vs the first file; nullopt for it
    // The half width of the 95% confidence interval of percent_change (Welch), in percentage
    // points: the change is percent_change -+ this. Both files n >= 2.
    std::optional<double> percent_ci;
    std::optional<double> p_value; // Welch vs the first file, both n >= 2
    bool significant = false;      // p < 0.05
    bool noise = false;            // the interval holds 0: the spread is as large as the change
};

struct CompareRow {
    std::string metric;                            // `ops_per_sec`, `flush.requests`, ...
    std::string value;                             // the knob value ("" for a run)
    std::vector<std::optional<CompareCell>> cells; // one per file; nullopt: not in it
    // A file has the row and the first does not (or the other way round), or its mean is not
    // the first file's and the difference is more than noise (or untested: fewer than 2 runs).
    bool differs = false;
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

// Whether `compare` shows `row` of `sec`: every row with `all`, else the rows that differ and
// every row of the compared figure.
bool row_shown(const CompareSection& sec, const CompareRow& row, bool all);

// What tells the files apart, one per file: their kernels when those differ, else the hosts,
// the module versions, else the file names ("unknown" for a field the file lacks).
std::vector<std::string> file_labels(const std::vector<ResultsDocument>& files);

// One line per knob value and later file of the section's figure, in the spirit of hyperfine:
// "flush_mode=never: ops_per_sec on 6.12.9 -12.30% +- 2.10% vs 6.1.0 (p=0.003)".
std::vector<std::string> compare_summary(const CompareTable& table, const CompareSection& sec);

// Keeps the metrics named in `metrics` (a name, or a group: counters, derived, memory_stat,
// flush_reasons; see check_metric_names()); all when it is empty. The compared figure is
// always kept.
CompareTable compare_documents(std::vector<ResultsDocument> files,
                               const std::vector<std::string>& metrics = {});

// The formats of `compare`: the text table, a GitHub-flavoured markdown table, a JSON
// document, long-form CSV and a gnuplot script of each series' figure per file. Each shows
// the rows row_shown() keeps (`all`: every row).
// One table per series: the files' host, kernel, module and runs, then a row per metric and
// knob value: each file's mean +- sd, and for the later files the change against the first
// with its 95% interval, Welch's p and `~noise` where the interval holds 0; then the summary
// lines and a footnote saying what the columns mean. Differences (compared anyway) come first.
void print_compare_text(std::ostream& out, const CompareTable& table, bool all = false);

// The same as GitHub-flavoured markdown: the files, then a heading, a table and the summary
// as a list per series.
void print_compare_markdown(std::ostream& out, const CompareTable& table, bool all = false);

// {"schema": "memcg-statctl/compare", "schema_version": 3, "all", "hidden_rows", "files",
//  "differences", "series": [{..., "rows": [{"metric", "value", "differs", "files"}],
//  "summary"}]}
nlohmann::ordered_json compare_json(const CompareTable& table, bool all = false);

// One line per series, metric, knob value and file.
void print_compare_csv(std::ostream& out, const CompareTable& table, bool all = false);

// Bars of each series' figure per knob value, one bar per file, stddev error bars.
std::string compare_gnuplot_script(const CompareTable& table, const std::filesystem::path& file);

} // namespace memcg_statctl
