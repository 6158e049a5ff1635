// Named experiments (`memcg-statctl experiment NAME`): the recipes that reproduce the public
// reports of docs/background.md on a stock kernel, and the pure logic around them that the unit
// tests pin down: the recipe table, the flush_threshold sweep points, the staleness bound, the
// closing verdict computed from measured numbers, and the JSON document. The table's rows are in
// recipes.cpp; each row's run function (recipes_*.cpp) builds its jobs for the Experiment runner
// (experiment_runner.h, which reuses the sweep machinery: sweep_order, KnobRestorer, compare).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/reports.h"

namespace memcg_statctl {

class Experiment;        // runs a recipe's jobs (internal: experiment_runner.h)
struct ExperimentResult; // below

struct Recipe {
    // Runs the recipe on `e` and fills `r` (reports, tables, parameters, notes, verdict).
    using Run = void (*)(Experiment& e, ExperimentResult& r);
    std::string name; // the NAME of `experiment NAME`
    // The stable name of the mailing-list report it reproduces: its heading in
    // docs/background.md ("update-path-flush").
    std::string report_id;
    std::string summary; // one line for --help and the report header
    // The report: list, "subject", author, date and the upstream commit (the same as its
    // section of docs/background.md, which a test checks).
    std::string reference;
    // The report's published figures this recipe tests, and the machine and benchmark they
    // came from (one or two sentences).
    std::string claim;
    Run run = nullptr;
};

// The table: one row per recipe, in `experiment --list` order.
const std::vector<Recipe>& recipes();
std::vector<std::string> recipe_names();
// nullptr for an unknown name.
const Recipe* find_recipe(std::string_view name);
// The text of `experiment --list`: per recipe its name and report, then its summary, reference
// and claim, indented and wrapped to `width` columns.
std::string recipe_list_text(const std::vector<Recipe>& list, std::size_t width = 80);

enum class Outcome { reproduced, not_reproduced, not_measured };
std::string_view outcome_text(Outcome o); // "reproduced" | "not reproduced" | "not measured"

struct Verdict {
    Outcome outcome = Outcome::not_measured;
    std::string line; // the closing line, ending in ": " + outcome_text(outcome)
};

// The row of `report` whose value is `value`; nullptr when absent.
const ComparisonRow* find_row(const ComparisonReport& report, std::string_view value);

// docs/background.md#update-path-flush: one report per page-fault mode with rows "0" (baseline),
// "128", "32". Reproduced when every mode is significantly slower at 32 than at 0.
Verdict update_flush_verdict(const std::vector<ComparisonReport>& modes);

// docs/background.md#flush-only-if-updated: rows "always" (baseline) and "kernel". Reproduced when
// refault is significantly faster with `kernel` (needless flushes skipped). `reader` (stat-reader)
// is reported only.
Verdict reader_flush_verdict(const ComparisonReport& refault, const ComparisonReport* reader);

// docs/background.md#per-memcg-threshold: flush_threshold = 0, 1x, 4x and 16x the kernel
// default.
std::vector<std::uint64_t> threshold_points(std::uint64_t kernel_default);

// MEMCG_CHARGE_BATCH x nr_cpus, x nr_memcgs on kernels whose flush_model is `per-memcg`.
inline constexpr std::uint64_t memcg_charge_batch = 64;
std::uint64_t staleness_bound(std::uint64_t nr_cpus, std::string_view flush_model,
                              std::uint64_t nr_memcgs);

// One flush_threshold value: what it cost and the staleness it bought (measured).
struct ThresholdPoint {
    std::string value; // as written to the knob (the comparison rows' value)
    std::uint64_t threshold = 0;
    double flushes_per_run = 0;
    std::optional<double> ns_per_flush;
    std::optional<std::int64_t> staleness_pages; // largest spread over the runs
    std::uint64_t samples = 0;                   // valid reader samples, all runs
    std::uint64_t max_bracket_pages = 0;         // largest fault count during one read
};

// Reproduced when, at 16x against 0: fewer flushes and significantly more stat reads per
// second; and at 1x (the kernel default) the staleness stays within `bound`.
Verdict flush_threshold_verdict(const ComparisonReport& reader,
                                const std::vector<ThresholdPoint>& points,
                                std::uint64_t kernel_default, std::uint64_t bound);

// docs/background.md#obj-stock-vmstat: rows "slab" and "mixed" with derived
// objcg_vmstat_miss_pct (from the summed counters of all runs). Reproduced when the slab-heavy
// miss rate is at or below the report's 19.6% (its pre-caching boot figure; 13.2% with the
// caching that 5.14+ kernels carry). `slab_runs` holds the slab rate of each run on its own
// (objcg_vmstat_miss_pct_of()), whose standard deviation the line gives as the spread.
inline constexpr double obj_stock_vmstat_miss_pct_before = 19.6;
inline constexpr double obj_stock_vmstat_miss_pct_after = 13.2;
Verdict objstock_verdict(const ComparisonReport& report, const std::vector<double>& slab_runs);
// 100 x objcg_vmstat.flushes / objcg_vmstat.updates of one run's counter deltas; nullopt
// without those counters or updates.
std::optional<double> objcg_vmstat_miss_pct_of(const Counters& deltas);

// docs/background.md#per-memcg-lru-lock: total readtwice throughput with rows "1", "4", "16"
// (cgroups). Reproduced when the total at 16 cgroups is not significantly below the total at 1
// (per-memcg lru_lock: no cross-cgroup collapse).
Verdict readtwice_verdict(const ComparisonReport& total);

// One named table besides the comparison reports (staleness, the objcg vmstat table, ...).
struct ExtraTable {
    std::string title;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

// What a verdict rests on: wall-time throughput, or (in the guest, under the insn-marker
// plugin) the same operations per 10^9 guest instructions, which repeat closely; or, for
// recipes whose verdict is not a throughput, the module's counters (ratios of counts: objstock)
// or the staleness of memory.stat in pages beside the flush counter (staleness). Counts do not
// depend on the clock, so counting instructions leaves those two as they are.
enum class Measure { wall_time, guest_instructions, counters, pages };
// "wall_time" | "guest_instructions" | "counters" | "pages" (the JSON's verdict.measure)
std::string_view measure_name(Measure m);
// The measure a verdict rests on: `recipe`'s own (what its run function set: wall_time for a
// throughput), and guest_instructions for a throughput whose runs were counted.
Measure verdict_measure(Measure recipe, bool counted);
// The verdict line as printed: "on <what m measures>: " + line.
std::string verdict_line_on(Measure m, const std::string& line);

// A rate (per second) over a window of `seconds` and `instructions`: per 10^9 instructions;
// 0 when nothing was counted.
double per_giga_instructions(double per_second, double seconds, std::uint64_t instructions);
// "faults/s" -> "faults per 1e9 guest insns" (the first "/s" or "/run" dropped).
std::string per_giga_instructions_unit(std::string_view unit);

// The staleness-versus-cost curve (the trade-off of docs/background.md#per-memcg-threshold,
// recipe `staleness`): flush_threshold = 0, 1x, 4x, 16x and 64x the kernel default in
// `threshold` mode, beside the other modes.
inline constexpr std::uint64_t staleness_max_multiple = 64;
std::vector<std::uint64_t> staleness_threshold_points(std::uint64_t kernel_default);

// Largest and mean staleness over the runs of one variant, and the runs' sample standard
// deviation (at least 2 runs); runs without a valid sample (every read discarded) count in
// none.
struct StalenessSummary {
    std::optional<std::int64_t> max_pages{};
    std::optional<double> mean_pages{};
    std::optional<double> stddev_pages{};
};
StalenessSummary summarize_staleness(const std::vector<std::optional<std::int64_t>>& per_run);

// One variant of the `staleness` recipe as measured: a flush_threshold in `threshold` mode,
// or another flush_mode (times_default unset: the threshold plays no part there).
struct StalenessPoint {
    std::string label;                            // "0", "4x", "kernel"
    std::string mode;                             // flush_mode
    std::optional<std::uint64_t> times_default{}; // flush_threshold / the kernel default
    StalenessSummary staleness{};
    std::uint64_t samples = 0; // kept reads over all runs
    double reads_per_sec = 0;
    double faults_per_sec = 0;
    double flushes_per_run = 0;
    std::optional<double> flushes_stddev{};     // of the per-run flush counts (2+ runs)
    std::optional<double> flush_ns_per_read{};  // flush.ns_total / stat reads
    std::optional<double> flush_ns_per_fault{}; // flush.ns_total / page faults
    // Guest instructions (all vCPUs) of the window per stat read and per page fault, when
    // the runs were counted (insn_counter.h).
    std::optional<double> insns_per_read{};
    std::optional<double> insns_per_fault{};
};

// One row per point. The columns are a list in experiment.cpp: a new per-point figure is
// one field here and one entry there.
ExtraTable staleness_table(const std::vector<StalenessPoint>& points);

// Reproduced when, from 0 to 64x in `threshold` mode, the mean staleness rises and the
// flushes per run fall: a higher threshold trades accuracy for fewer flushes. The line ends
// with those two figures at 0 and 64x and their run-to-run standard deviations.
Verdict staleness_verdict(const std::vector<StalenessPoint>& points);

// gnuplot script of the curve, three panels over one x axis: the staleness in pages (and the
// flushes per run on the right axis), then the flush cost per stat read, then per page fault
// (flush ns on the left axis; guest instructions per operation on the right one, when the
// runs were counted). The x axis is an index (0, 1x, 4x, ...: even steps of a log scale that
// still shows 0), the other flush_mode values after a gap.
std::string staleness_plot_script(const std::vector<StalenessPoint>& points,
                                  const std::filesystem::path& file);

struct ExperimentResult {
    std::string name;
    std::string report_id;                 // the recipe's
    std::string reference;                 // the recipe's
    std::string claim;                     // the recipe's
    NameValues parameters;                 // runs, duration, kernel, ...
    std::vector<ComparisonReport> reports; // in the sweep/--json shape
    std::vector<ExtraTable> extra;
    std::vector<std::string> notes; // how a number was measured
    Verdict verdict;
    Measure measure = Measure::wall_time;
    Environment environment;
    // Every finished run as measured ({"step", "knob", "value", "round", "figures",
    // "counters"}), so a stopped experiment keeps them; complete until stopped.
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    bool complete = true;
    std::optional<std::string> interrupted_by; // "SIGINT" / "SIGTERM"
};

// The experiment document's schema_version: 2 since `report_id` (a heading of
// docs/background.md) took the place of version 1's numbered `seed`.
inline constexpr int experiment_schema_version = 2;

// {"schema": "memcg-statctl/experiment", "schema_version", "experiment", "report_id",
//  "reference", "claim", "environment", "parameters", "complete", "interrupted_by",
//  "reports": [sweep documents], "tables", "notes", "verdict": {"outcome", "reproduced",
//  "measure", "line"} (null until complete), "runs"}
nlohmann::ordered_json experiment_json(const ExperimentResult& r);

// The `anon` line of a memory.stat text, in bytes; nullopt when absent.
std::optional<std::uint64_t> memory_stat_anon(std::string_view text);

// FILE for a single report; FILE's stem + "-" + slug + extension for several.
std::string plot_path_for(const std::string& file, std::size_t index, std::size_t count,
                          const std::string& slug);

} // namespace memcg_statctl
