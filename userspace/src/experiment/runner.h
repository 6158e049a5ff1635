// Runs a recipe: every job (a workload in a cgroup setup) under every variant (knob
// values, or a cgroup count) in interleaved rounds, compared as `sweep` does.
// Knobs change only between runs: attaching ftrace hooks under QEMU TCG while another
// vCPU runs is unsafe. They are restored at the end.
// Under QEMU's insn-marker plugin each run is also counted in guest instructions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cgroup/backend.h"
#include "cgroup/placement.h"
#include "debugfs/client.h"
#include "experiment/experiment.h"
#include "output/result_schema.h"
#include "run/insn_counter.h"
#include "run/sweep.h"
#include "statistics.h"
#include "workloads/runner.h"
#include "workloads/workload.h"

namespace memcg_statctl {

struct ExperimentOptions {
    std::string name; // empty with --list
    bool list = false;
    int runs = 5;
    double duration = 2;
    // --warmup-runs: whole runs before each variant's first run, discarded
    int warmup_runs = 0;
    std::string dir = "/var/tmp";          // refault and readtwice files (a block-device fs)
    std::optional<std::uint64_t> size_mib; // refault / readtwice file size; per recipe when unset
    std::string output;                    // --output; default experiment-NAME.json
    bool print_json = false;               // --json: the document on stdout, no tables
    std::string plot;                      // default experiment-NAME.svg
    std::optional<std::string> parent;     // --parent; else as run/sweep (cgroup/placement.h)
};

struct Variant {
    std::string label;
    NameValues knobs{};           // written before each run of this variant
    std::optional<int> cgroups{}; // overrides the job's cgroup count
};

struct Metric {
    std::string title; // e.g. "page-fault anon"
    std::string unit;  // e.g. "faults/s"
    std::function<double(const RunMeasurement&, int cgroups)> value;
    bool rate = true; // per second; false: per run (its twin divides by the run's length first)
};

struct Job {
    std::function<std::unique_ptr<Workload>()> make;
    int cgroups = 1;
    int depth = 1;
    int tasks = 1;
    std::uint64_t leaf_memory_max = 0; // bytes written to each leaf's memory.max; 0: none
    std::vector<Metric> metrics{};     // the first one carries the counter deltas
    // Called after each run with its workload, variant and counter deltas. For figures a
    // metric cannot give, such as the staleness probe's samples.
    std::function<void(Workload&, std::size_t variant, const std::optional<Counters>& deltas)>
        collect{};
    double duration_factor = 1; // of --duration, for jobs whose operations come in long cycles
};

// A figure a recipe draws itself, beside the reports' bar plots. Returns the gnuplot script.
using Figure = std::function<std::string(const std::filesystem::path&)>;

// Metric functions: all tasks' ops/s, or the sum over the tasks `pick` selects.
// Tasks are numbered cgroup-major: task t is in cgroup t / per_cgroup.
double total(const RunMeasurement& m, int cgroups);
std::function<double(const RunMeasurement&, int)> task_sum(std::function<bool(std::size_t)> pick);
// A per-run metric: the count of one task (ops/s x the measured window).
Metric per_run_count(std::string title, std::string unit, std::size_t task);

// A built-in workload with the given options (the rest at their defaults).
std::unique_ptr<Workload> workload(const std::string& name, const std::string& mode = "anon",
                                   const std::string& dir = "", std::uint64_t size_mib = 256);

// Restores knobs in the reverse order of their first change.
class Restorers {
public:
    explicit Restorers(const DebugfsClient& client) : client_(client) {}
    Restorers(const Restorers&) = delete;
    Restorers& operator=(const Restorers&) = delete;
    Restorers(Restorers&&) = delete;
    Restorers& operator=(Restorers&&) = delete;
    ~Restorers();
    void write(const std::string& knob, const std::string& value);

private:
    const DebugfsClient& client_;
    std::vector<std::unique_ptr<KnobRestorer>> v_;
    std::vector<std::string> names_;
};

class Experiment {
public:
    // `result` collects every finished run; `file`, when set, is rewritten after each.
    // Progress goes to `err`. The cgroups go below the parent `run` and `sweep` would
    // choose (CgroupParent).
    Experiment(DebugfsClient client, std::ostream& err, const ExperimentOptions& opt,
               ExperimentResult& result, const ResultsFile* file);
    const DebugfsClient& client() const { return client_; }
    const ExperimentOptions& options() const { return opt_; }
    const CgroupParent& parent() const { return *parent_; }
    // Whether runs are counted in guest instructions (and reports carry the twins).
    bool counting_instructions() const { return insns_ != nullptr; }
    // The report a verdict rests on. Metric k's twin per 10^9 guest instructions when
    // runs are counted, else metric k itself. run() puts the twins after the metrics.
    static const ComparisonReport& decisive(const std::vector<ComparisonReport>& job_reports,
                                            std::size_t k, std::size_t metrics) {
        return job_reports.size() >= 2 * metrics ? job_reports.at(metrics + k) : job_reports.at(k);
    }
    // A knob held at `value` for the whole experiment (restored at the end).
    void set_fixed(const std::string& knob, const std::string& value) {
        restorers_.write(knob, value);
        fixed_.emplace_back(knob, value);
    }
    const NameValues& fixed() const { return fixed_; }
    // The recipe's own figure, when it draws one.
    void set_figure(Figure f) { figure_ = std::move(f); }
    const Figure& figure() const { return figure_; }

    // Every job x variant, `runs` interleaved rounds. Returns [job][metric] -> reports.
    std::vector<std::vector<ComparisonReport>> run(const std::string& knob, std::vector<Job>& jobs,
                                                   const std::vector<Variant>& variants);
    // The results file as it stands: every run so far, not complete.
    void save_partial() const;

private:
    struct RunOutcome {
        RunMeasurement measurement;
        std::optional<Counters> deltas;
        std::optional<std::uint64_t> instructions; // in the window, all vCPUs
        // The flush latency histogram's delta; nullopt without the module's file.
        std::optional<LatencyHistogram> flush_latency;
        // The flush requests by reason over the window; nullopt without the module's file.
        std::optional<FlushReasons> flush_reasons;
    };
    RunOutcome run_once(Workload& w, const Job& job, int cgroups);

    std::ostream& err_;
    const ExperimentOptions& opt_;
    DebugfsClient client_;
    Restorers restorers_;
    std::unique_ptr<CgroupBackend> backend_;
    std::unique_ptr<CgroupParent> parent_; // after backend_: destroyed before it
    NameValues fixed_;
    ExperimentResult& result_;
    const ResultsFile* file_;
    std::unique_ptr<InsnCounter> insns_;
    Figure figure_;
};

// A rate per second, turned into a rate per 10^9 instructions of the window.
// 0 when nothing was counted.
double per_giga_instructions(double per_second, double seconds, std::uint64_t instructions);
// "faults/s" -> "faults per 1e9 guest insns" (the first "/s" or "/run" dropped).
std::string per_giga_instructions_unit(std::string_view unit);

// FILE for a single report; FILE's stem + "-" + slug + extension for several.
std::string plot_path_for(const std::string& file, std::size_t index, std::size_t count,
                          const std::string& slug);

// `experiment NAME` or `experiment --list`. Prints the reports, tables, notes and verdict,
// and writes the results file (after every run) and the plots.
void run_experiment(const ExperimentOptions& opt, const DebugfsClient& client,
                    std::ostream& stdout_stream, std::ostream& err);

} // namespace memcg_statctl
