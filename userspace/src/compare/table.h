// `compare`: results files of several machines or kernels side by side, in the shape of
// mmtests' compare-kernels: one column per file, one row per metric and knob value, the
// %change against the first file and Welch's t-test where both files kept their runs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "compare/differences.h"
#include "compare/results_document.h"

namespace memcg_statctl {

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
    std::string metric;                            // `ops_per_sec`, `counters.flush_requests`, ...
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

// Keeps the metrics named in `metrics` (a name, or a prefix such as `counters`); all when
// it is empty. The compared figure is always kept.
CompareTable compare_documents(std::vector<ResultsDocument> files,
                               const std::vector<std::string>& metrics = {});

} // namespace memcg_statctl
