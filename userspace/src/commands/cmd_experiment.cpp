// `experiment NAME`: the seed experiments as recipes. Each recipe is a list of jobs (a
// workload in a cgroup setup) and a list of variants (knob values, or a cgroup count), run
// in interleaved rounds (sweep_order), knobs written only between runs (never while a
// workload runs: attaching ftrace hooks under QEMU TCG while another vCPU runs is unsafe),
// knobs restored afterwards (KnobRestorer), compared like `sweep` (compare(), Welch), and
// printed with the sweep's outputs. The closing line is the verdict (experiment.h).
// Under QEMU with the insn-marker plugin (MEMCG_STATCTL_INSN_TTY, insn_counter.h) every
// run's window is also counted in guest instructions, and each metric gets a twin per
// 10^9 instructions: the deterministic figure the verdict then rests on.
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "memcg_statctl/cgroup/cgroup_hierarchy.h"
#include "memcg_statctl/experiment/experiment.h"
#include "memcg_statctl/output/plot.h"
#include "memcg_statctl/output/result_schema.h"
#include "memcg_statctl/output/results_file.h"
#include "memcg_statctl/run/environment.h"
#include "memcg_statctl/run/insn_counter.h"
#include "memcg_statctl/run/signal_guard.h"
#include "memcg_statctl/run/sweep.h"
#include "memcg_statctl/statistics/comparison.h"
#include "memcg_statctl/text_util.h"
#include "memcg_statctl/workloads/workload_runner.h"

#include "commands/command.h"
#include "commands/option_checks.h"
#include "experiment/experiment_workloads.h"
#include "output/text_table.h"
#include "run/hierarchy_placement.h"
#include "workloads/workload_io.h"

namespace memcg_statctl {
namespace {

struct ExperimentOptions {
    std::string name; // empty with --list
    bool list = false;
    int runs = 5;
    double duration = 2;
    std::string dir = "/var/tmp";          // refault and readtwice files (a block-device fs)
    std::optional<std::uint64_t> size_mib; // refault / readtwice file size; per recipe when unset
    std::string json;                      // default experiment-NAME.json
    std::string plot;                      // default experiment-NAME.svg
};

struct Variant {
    std::string label;
    NameValues knobs;             // written before each run of this variant
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
    std::vector<Metric> metrics;       // the first one carries the counter deltas
    std::function<void(Workload&, std::size_t variant)> collect;
    double duration_factor = 1; // of --duration, for jobs whose operations come in long cycles
};

double total(const RunMeasurement& m, int /*cgroups*/) {
    return m.total_ops_per_sec;
}

// Tasks are numbered cgroup-major: task t is in cgroup t / per_cgroup.
std::function<double(const RunMeasurement&, int)> task_sum(std::function<bool(std::size_t)> pick) {
    return [pick = std::move(pick)](const RunMeasurement& m, int /*cgroups*/) {
        double sum = 0;
        for (std::size_t t = 0; t < m.task_ops_per_sec.size(); ++t) {
            if (pick(t)) {
                sum += m.task_ops_per_sec[t];
            }
        }
        return sum;
    };
}

// Restores knobs in the reverse order of their first change.
class Restorers {
public:
    explicit Restorers(const DebugfsClient& client) : client_(client) {}
    Restorers(const Restorers&) = delete;
    Restorers& operator=(const Restorers&) = delete;
    Restorers(Restorers&&) = delete;
    Restorers& operator=(Restorers&&) = delete;
    ~Restorers() {
        while (!v_.empty()) {
            v_.pop_back();
        }
    }
    void write(const std::string& knob, const std::string& value) {
        if (!client_.is_knob(knob)) {
            throw ToolError(fmt::format("the module has no knob `{}` (it has: {})", knob,
                                        fmt::join(client_.knob_names(), ", ")));
        }
        if (std::find(names_.begin(), names_.end(), knob) == names_.end()) {
            v_.push_back(std::make_unique<KnobRestorer>(client_, knob));
            names_.push_back(knob);
        }
        client_.write_knob(knob, value);
    }

private:
    const DebugfsClient& client_;
    std::vector<std::unique_ptr<KnobRestorer>> v_;
    std::vector<std::string> names_;
};

class Experiment {
public:
    // `result` collects every finished run; `file` (when set) is rewritten after each.
    Experiment(const Context& ctx, const ExperimentOptions& opt, ExperimentResult& result,
               const ResultsFile* file)
        : ctx_(ctx), opt_(opt), client_(ctx.client()), restorers_(client_), result_(result),
          file_(file), insns_(InsnCounter::from_environment()) {
        client_.require_module();
        backend_ = std::make_unique<LibcgroupBackend>();
        for (const auto& left : remove_leftover_groups(*backend_)) {
            fmt::print(ctx_.env.err, "{} leftover cgroup {} of dead process {}\n",
                       left.removed ? "removed" : "warning: cannot remove", left.name, left.owner);
        }
    }
    const DebugfsClient& client() const { return client_; }
    // Whether runs are counted in guest instructions (and reports carry the twins).
    bool counting_instructions() const { return insns_ != nullptr; }
    // The report a verdict rests on: metric k's twin per 10^9 guest instructions when
    // runs are counted, else metric k itself (run() puts the twins after the metrics).
    static const ComparisonReport& decisive(const std::vector<ComparisonReport>& job_reports,
                                            std::size_t k, std::size_t metrics) {
        return job_reports.size() >= 2 * metrics ? job_reports.at(metrics + k) : job_reports.at(k);
    }
    void set_fixed(const std::string& knob, const std::string& value) {
        restorers_.write(knob, value);
        fixed_.emplace_back(knob, value);
    }
    const NameValues& fixed() const { return fixed_; }

    // Every job x variant, `runs` interleaved rounds. Returns [job][metric] -> reports.
    std::vector<std::vector<ComparisonReport>> run(const std::string& knob, std::vector<Job>& jobs,
                                                   const std::vector<Variant>& variants) {
        std::vector<std::vector<std::vector<ValueRuns>>> res(jobs.size());
        const std::size_t figures_per_metric = counting_instructions() ? 2 : 1;
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            res[j].assign(figures_per_metric * jobs[j].metrics.size(),
                          std::vector<ValueRuns>(variants.size()));
            for (auto& per_metric : res[j]) {
                for (std::size_t v = 0; v < variants.size(); ++v) {
                    per_metric[v].value = variants[v].label;
                }
            }
        }
        const auto order = sweep_order(variants.size(), opt_.runs);
        const auto steps = order.size() * jobs.size();
        std::size_t step = 0;
        for (const auto& s : order) {
            for (std::size_t j = 0; j < jobs.size(); ++j) {
                throw_if_stopped();
                const auto& var = variants[s.value_index];
                auto& job = jobs[j];
                fmt::print(ctx_.env.err, "[{}/{}] {} {}={} run {}/{}\n", ++step, steps,
                           job.metrics.front().title, knob, var.label, s.round + 1, opt_.runs);
                ctx_.env.err.flush();
                for (const auto& [k, value] : var.knobs) {
                    restorers_.write(k, value); // between runs only
                }
                const int cgroups = var.cgroups.value_or(job.cgroups);
                auto workload = job.make();
                const auto [m, deltas, insns] = run_once(*workload, job, cgroups);
                if (job.collect) {
                    job.collect(*workload, s.value_index);
                }
                Json figures = Json::object();
                for (const auto& metric : job.metrics) {
                    figures[metric.title] = metric.value(m, cgroups);
                }
                result_.runs.push_back(
                    {{"step", job.metrics.front().title},
                     {"knob", knob},
                     {"value", var.label},
                     {"round", s.round + 1},
                     {"seconds", m.seconds},
                     {"figures", figures},
                     {"instructions", insns ? Json(*insns) : Json(nullptr)},
                     {"counters", deltas ? counters_json(*deltas) : Json(nullptr)}});
                save_partial();
                const auto n = job.metrics.size();
                for (std::size_t k = 0; k < n; ++k) {
                    const double value = job.metrics[k].value(m, cgroups);
                    auto& r = res[j][k][s.value_index];
                    r.samples.push_back(value);
                    r.seconds.push_back(m.seconds);
                    if (k == 0 && deltas) {
                        r.counter_deltas.push_back(*deltas);
                    }
                    if (insns) {
                        auto& twin = res[j][n + k][s.value_index];
                        const double per_second =
                            job.metrics[k].rate || m.seconds <= 0 ? value : value / m.seconds;
                        twin.samples.push_back(
                            per_giga_instructions(per_second, m.seconds, *insns));
                        twin.seconds.push_back(m.seconds); // counters: in the metric's report
                    }
                }
            }
        }
        std::vector<std::vector<ComparisonReport>> out(jobs.size());
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            const auto& metrics = jobs[j].metrics;
            for (std::size_t k = 0; k < res[j].size(); ++k) {
                const auto& metric = metrics[k % metrics.size()];
                const bool twin = k >= metrics.size();
                auto report = compare(knob, metric.title, res[j][k]);
                report.metric = twin ? per_giga_instructions_unit(metric.unit) : metric.unit;
                report.unit = "";
                out[j].push_back(std::move(report));
            }
        }
        return out;
    }

    // The results file as it stands: every run so far, not complete.
    void save_partial() const {
        if (file_ != nullptr) {
            auto partial = result_;
            partial.complete = false;
            file_->write(experiment_json(partial));
        }
    }

private:
    struct RunOutcome {
        RunMeasurement measurement;
        std::optional<Counters> deltas;
        std::optional<std::uint64_t> instructions; // in the window, all vCPUs
    };

    RunOutcome run_once(Workload& w, const Job& job, int cgroups) {
        CgroupHierarchy hierarchy(*backend_, cgroups, job.depth);
        if (job.leaf_memory_max > 0) {
            for (std::size_t i = 0; i < hierarchy.leaf_count(); ++i) {
                const auto file = hierarchy.leaf_dir(i) / "memory.max";
                if (const int err = write_whole_file(file, std::to_string(job.leaf_memory_max));
                    err != 0) {
                    throw ToolError(fmt::format("write {}: {}", file.string(), std::strerror(err)));
                }
            }
        }
        HierarchyPlacement placement(hierarchy);
        const auto before = client_.stats();
        RunPlan plan;
        plan.tasks_per_cgroup = job.tasks;
        plan.duration = opt_.duration * job.duration_factor;
        plan.check = [this] { client_.require_still_module(); };
        std::optional<std::uint64_t> insns;
        if (insns_) {
            plan.window_open = [this] { insns_->open(); };
            plan.window_close = [this, &insns] { insns = insns_->close(); };
        }
        auto m = run_workload(w, plan, placement);
        return {std::move(m), Counters::delta(before, client_.stats()), insns};
    }

    const Context& ctx_;
    const ExperimentOptions& opt_;
    DebugfsClient client_;
    Restorers restorers_;
    std::unique_ptr<CgroupBackend> backend_;
    NameValues fixed_;
    ExperimentResult& result_;
    const ResultsFile* file_;
    std::unique_ptr<InsnCounter> insns_;
};

std::unique_ptr<Workload> workload(const std::string& name, const std::string& mode = "anon",
                                   const std::string& dir = "", std::uint64_t size_mib = 256) {
    WorkloadOptions o;
    o.name = name;
    o.mode = mode;
    o.dir = dir;
    o.size_mib = size_mib;
    return make_workload(o);
}

std::optional<double> derived_value(const ComparisonRow& row, std::string_view name) {
    for (const auto& d : row.derived) {
        if (d.name == name) {
            return d.value;
        }
    }
    return std::nullopt;
}

// --- recipes -------------------------------------------------------------------------

void update_flush(Experiment& e, const ExperimentOptions& /*opt*/, ExperimentResult& r) {
    std::vector<Job> jobs;
    for (const std::string mode : {"anon", "file-shared"}) {
        jobs.push_back({[mode] { return workload("page-fault", mode); },
                        1,
                        2,
                        2,
                        0,
                        {{"page-fault " + mode, "faults/s", total}},
                        {}});
    }
    std::vector<Variant> variants;
    for (const std::string v : {"0", "128", "32"}) {
        variants.push_back({v, {{"update_flush_every", v}}, std::nullopt});
    }
    std::vector<ComparisonReport> decisive;
    for (auto& per_job : e.run("update_flush_every", jobs, variants)) {
        r.reports.insert(r.reports.end(), per_job.begin(), per_job.end()); // and the twin
        decisive.push_back(Experiment::decisive(per_job, 0, 1));
    }
    r.parameters.emplace_back("setup", "1 leaf at depth 2, 2 page-fault tasks, THP off");
    r.notes.emplace_back(
        "update_flush_every=N queues an asynchronous full flush every N memcg stat "
        "updates on a cpu (seed 002's 5.15 mechanism); flush.async counts them.");
    r.verdict = update_flush_verdict(decisive);
}

void reader_flush(Experiment& e, const ExperimentOptions& opt, ExperimentResult& r) {
    const auto dir = opt.dir;
    // A refault cycle (reclaim, then read back) costs far more per page in its first half
    // than in its second, so a run must hold many cycles or its figure depends on where
    // the window cut the last one: a small file (32 MiB took 2-4 s a cycle in the 8-vCPU
    // TCG guest, and whole runs saw no read at all) and a longer run.
    const auto size = opt.size_mib.value_or(4);
    std::vector<Job> jobs{
        {.make = [dir, size] { return workload("refault", "anon", dir, size); },
         .metrics = {{"refault", "pages/s", total}},
         .collect = {},
         .duration_factor = 4},
        {[] { return workload("stat-reader"); },
         1,
         1,
         2,
         0,
         {{"stat-reader", "reads/s", total}},
         {}},
    };
    std::vector<Variant> variants{{"always", {{"flush_mode", "always"}}, std::nullopt},
                                  {"kernel", {{"flush_mode", "kernel"}}, std::nullopt}};
    const auto reports = e.run("flush_mode", jobs, variants);
    for (const auto& per_job : reports) {
        r.reports.insert(r.reports.end(), per_job.begin(), per_job.end());
    }
    r.parameters.emplace_back("refault", fmt::format("{} MiB file in {}, 1 task, 1 cgroup; "
                                                     "memory.reclaim then read back; runs 4x "
                                                     "--duration",
                                                     size, dir));
    r.parameters.emplace_back("stat-reader", "2 tasks reading memory.stat, 1 cgroup");
    r.notes.emplace_back("seed 003 read a refaulting file; here throughput (pages/s) is measured, "
                         "so a shorter read time shows as a positive %change of `kernel`.");
    r.verdict = reader_flush_verdict(Experiment::decisive(reports[0], 0, 1),
                                     &Experiment::decisive(reports[1], 0, 1));
}

// The kernel's default flush_threshold: read before anything changes it (flush_mode is still
// kernel, so the knob holds the kernel's own value).
std::uint64_t kernel_default_threshold(const DebugfsClient& client) {
    const auto text = client.read_knob("flush_threshold");
    const auto def = parse_u64(text);
    if (!def || *def == 0) {
        throw ToolError(fmt::format("flush_threshold reads `{}`, not a positive number", text));
    }
    return *def;
}

// The staleness probe (64 MiB mapping): leaf0 faults, leaf1 reads leaf0's memory.stat. The
// first metric is the reader's (it carries the counter deltas); each run's samples are
// appended to seen[variant].
Job staleness_probe_job(std::vector<std::vector<StalenessSample>>& seen) {
    return Job{.make = [] { return std::make_unique<StalenessProbe>(64); },
               .cgroups = 2,
               .depth = 2,
               .tasks = 1,
               .metrics = {{"stat-reader beside page-fault", "reads/s",
                            task_sum([](std::size_t t) { return t == 1; })},
                           {"page-fault beside stat-reader", "faults/s",
                            task_sum([](std::size_t t) { return t == 0; })}},
               .collect =
                   [&seen](Workload& w, std::size_t v) {
                       seen[v].push_back(dynamic_cast<StalenessProbe&>(w).result());
                   }};
}

const char* const probe_setup = "depth 2: leaf0 page-fault anon (64 MiB mapping, THP off), leaf1 "
                                "stat-reader reading leaf0's memory.stat";

// How the probe measures staleness; `bracket` names the table column of the most faults
// during one kept read, when the table has one.
std::string probe_note(bool bracket) {
    return fmt::format(
        "staleness: the page-fault task publishes in shared memory how many pages of its "
        "current mapping it has touched (a sequence count marks munmap/mmap; reads overlapping "
        "one are discarded, and so are reads during which the task faulted more than 16 pages: "
        "the reader was descheduled). Per read, error = memory.stat anon (pages) - touched pages "
        "(mean of the counts before and after the read{}). "
        "The task's other anon pages are a constant offset, so staleness = max - min of the "
        "error over the run: how far the stat moved away from the truth. It bounds the largest "
        "stat error from above whenever the stat was exact at least once (every flush makes it "
        "so).",
        bracket ? "; `max bracket` = most faults during one kept read" : "");
}

void flush_threshold(Experiment& e, const ExperimentOptions& /*opt*/, ExperimentResult& r) {
    const auto& client = e.client();
    const auto def = kernel_default_threshold(client);
    const auto model = client.version().get("flush_model");
    const auto ncpus = static_cast<std::uint64_t>(::sysconf(_SC_NPROCESSORS_ONLN));
    constexpr std::uint64_t memcgs = 4; // top, level1, leaf0, leaf1
    const auto bound = staleness_bound(ncpus, model, memcgs);
    e.set_fixed("flush_mode", "threshold"); // attaches the update hooks: before any run

    const auto points = threshold_points(def);
    std::vector<Variant> variants;
    variants.reserve(points.size());
    for (const auto t : points) {
        variants.push_back(
            {std::to_string(t), {{"flush_threshold", std::to_string(t)}}, std::nullopt});
    }
    std::vector<std::vector<StalenessSample>> seen(points.size());
    std::vector<Job> jobs{staleness_probe_job(seen)};
    auto reports = e.run("flush_threshold", jobs, variants).front();
    r.reports = reports;

    std::vector<ThresholdPoint> tp;
    ExtraTable t{"cost and staleness by flush_threshold (staleness in pages, largest over runs)",
                 {"flush_threshold", "x default", "reads/s", "faults/s", "flushes/run", "ns/flush",
                  "staleness", "bound", "samples", "discarded", "max bracket"},
                 {}};
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& row = reports[0].rows[i];
        ThresholdPoint p;
        p.value = row.value;
        p.threshold = points[i];
        p.flushes_per_run =
            static_cast<double>(row.mean_counter_deltas.get("flush.performed").value_or(0));
        p.ns_per_flush = derived_value(row, "ns_per_flush");
        std::uint64_t discarded = 0;
        for (const auto& s : seen[i]) {
            discarded += s.discarded;
            p.samples += s.samples;
            p.max_bracket_pages = std::max(p.max_bracket_pages, s.max_bracket);
            if (const auto sp = s.spread()) {
                p.staleness_pages = std::max(p.staleness_pages.value_or(*sp), *sp);
            }
        }
        t.rows.push_back(std::vector<std::string>{
            p.value,
            fmt::format("{:g}", static_cast<double>(p.threshold) / static_cast<double>(def)),
            fmt::format("{:.0f}", row.summary.mean),
            fmt::format("{:.0f}", reports[1].rows[i].summary.mean),
            fmt::format("{:.0f}", p.flushes_per_run), format_or_dash(p.ns_per_flush, "{:.0f}"),
            p.staleness_pages ? std::to_string(*p.staleness_pages) : std::string("-"),
            std::to_string(bound), std::to_string(p.samples), std::to_string(discarded),
            std::to_string(p.max_bracket_pages)});
        tp.push_back(p);
    }
    r.extra.push_back(t);
    r.parameters.emplace_back("setup", probe_setup);
    r.parameters.emplace_back("kernel_default_threshold", std::to_string(def));
    r.parameters.emplace_back("flush_model", model);
    r.parameters.emplace_back("bound",
                              fmt::format("{} pages = {} x {} cpus{}", bound, memcg_charge_batch,
                                          ncpus, model == "per-memcg" ? " x 4 memcgs" : ""));
    r.notes.push_back(probe_note(true));
    r.notes.emplace_back("flush_mode=threshold during the sweep (set before the first run); reads "
                         "flush when the module's pending updates (stat_updates.amount, all memcg "
                         "stat items) exceed flush_threshold.");
    r.verdict = flush_threshold_verdict(Experiment::decisive(reports, 0, 2), tp, def, bound);
}

// A figure a recipe draws itself, beside the reports' bar plots: the script for a file.
using Figure = std::function<std::string(const std::filesystem::path&)>;

// A count per run of one probe task (ops/s x the measured window): the denominator of the
// flush cost per operation.
Metric per_run_count(std::string title, std::string unit, std::size_t task) {
    return {std::move(title), std::move(unit),
            [task](const RunMeasurement& m, int /*cgroups*/) {
                return task < m.task_ops_per_sec.size() ? m.task_ops_per_sec[task] * m.seconds
                                                        : 0.0;
            },
            false};
}

std::optional<double> per_op(std::optional<std::uint64_t> ns, double ops) {
    if (!ns || ops <= 0) {
        return std::nullopt;
    }
    return static_cast<double>(*ns) / ops;
}

// Variant v's figures from the reports of staleness() (reads/s with the counter deltas,
// faults/s, reads per run, faults per run) and the probe's samples of its runs.
void measure_point(StalenessPoint& p, const std::vector<ComparisonReport>& reports, std::size_t v,
                   const std::vector<StalenessSample>& runs) {
    const auto& reader = reports[0].rows[v];
    const auto ns = reader.mean_counter_deltas.get("flush.ns_total");
    p.reads_per_sec = reader.summary.mean;
    p.faults_per_sec = reports[1].rows[v].summary.mean;
    p.flushes_per_run =
        static_cast<double>(reader.mean_counter_deltas.get("flush.performed").value_or(0));
    // Means per run over means per run: the summed ns over the summed operations.
    p.flush_ns_per_read = per_op(ns, reports[2].rows[v].summary.mean);
    p.flush_ns_per_fault = per_op(ns, reports[3].rows[v].summary.mean);
    // The twins (counted runs): reads and faults per 10^9 guest instructions, after the 4.
    if (reports.size() >= 8) {
        p.insns_per_read = per_op(1'000'000'000, reports[4].rows[v].summary.mean);
        p.insns_per_fault = per_op(1'000'000'000, reports[5].rows[v].summary.mean);
    }
    std::vector<std::optional<std::int64_t>> per_run;
    for (const auto& s : runs) {
        per_run.push_back(s.spread());
        p.samples += s.samples;
    }
    p.staleness = summarize_staleness(per_run);
}

// The staleness-versus-cost curve: the flush-threshold probe over 0..64x the kernel default
// in `threshold` mode, and over the other modes, each its own variant (interleaved rounds;
// flush_mode switches only between runs, so the update hooks attach and detach then).
void staleness(Experiment& e, const ExperimentOptions& /*opt*/, ExperimentResult& r,
               Figure& figure) {
    const auto def = kernel_default_threshold(e.client());
    std::vector<Variant> variants;
    std::vector<StalenessPoint> points;
    for (const auto t : staleness_threshold_points(def)) {
        const auto times = t / def;
        const auto label = times == 0 ? std::string("0") : fmt::format("{}x", times);
        points.push_back({.label = label, .mode = "threshold", .times_default = times});
        variants.push_back(
            {.label = label,
             .knobs = {{"flush_mode", "threshold"}, {"flush_threshold", std::to_string(t)}}});
    }
    for (const std::string mode : {"kernel", "always", "never"}) {
        points.push_back({.label = mode, .mode = mode});
        variants.push_back({.label = mode, .knobs = {{"flush_mode", mode}}});
    }
    std::vector<std::vector<StalenessSample>> seen(variants.size());
    auto job = staleness_probe_job(seen);
    job.metrics.push_back(per_run_count("stat reads per run", "reads/run", 1));
    job.metrics.push_back(per_run_count("page faults per run", "faults/run", 0));
    std::vector<Job> jobs{std::move(job)};
    const auto reports = e.run("flush_mode/flush_threshold", jobs, variants).front();
    r.reports = {reports[0], reports[1]};
    for (std::size_t v = 0; v < points.size(); ++v) {
        measure_point(points[v], reports, v, seen[v]);
    }
    r.extra.push_back(staleness_table(points));
    r.parameters.emplace_back("setup", probe_setup);
    r.parameters.emplace_back("kernel_default_threshold", std::to_string(def));
    r.parameters.emplace_back("flush_model", e.client().version().get("flush_model"));
    r.notes.push_back(probe_note(false));
    r.notes.emplace_back(
        "stale max = the largest per-run staleness, stale mean = the mean of the per-run "
        "staleness; samples = kept reads over all runs. flush ns/read = flush.ns_total / stat "
        "reads and flush ns/fault = flush.ns_total / page faults (summed over the runs): every "
        "flush of the run, whoever asked for it, is charged to each kind of operation.");
    r.notes.emplace_back(
        "flush_mode is written before every run (threshold rows also write flush_threshold); "
        "kernel, always and never ignore flush_threshold.");
    r.verdict = staleness_verdict(points);
    figure = [points](const std::filesystem::path& file) {
        return staleness_plot_script(points, file);
    };
}

void objstock(Experiment& e, const ExperimentOptions& /*opt*/, ExperimentResult& r) {
    e.set_fixed("stock_hooks", "1");
    std::vector<Job> jobs{
        {[] { return workload("slab", "anon", "/tmp"); },
         1,
         1,
         2,
         0,
         {{"slab", "files/s per slab task",
           [](const RunMeasurement& m, int) {
               return m.total_ops_per_sec / static_cast<double>(m.task_ops_per_sec.size());
           }}},
         {}},
        {[] {
             std::vector<std::unique_ptr<Workload>> parts;
             parts.push_back(workload("slab", "anon", "/tmp"));
             parts.push_back(workload("page-fault", "anon"));
             return std::make_unique<CompositeWorkload>(
                 "slab+page-fault", std::move(parts),
                 [](std::size_t /*cgroup*/, std::size_t index) { return index == 0 ? 0U : 1U; });
         },
         1,
         1,
         2,
         0,
         {{"mixed", "files/s per slab task", task_sum([](std::size_t t) { return t % 2 == 0; })}},
         {}},
    };
    const std::vector<Variant> one{{"on", {}, std::nullopt}};
    const auto reports = e.run("stock_hooks", jobs, one);
    // One report with a row per workload: the seed's table compares workloads.
    std::vector<ComparisonRow> rows{reports[0][0].rows[0], reports[1][0].rows[0]};
    rows[0].value = "slab";
    rows[1].value = "mixed";
    rows[1].percent_change.reset();
    rows[1].p_value.reset();
    rows[1].significant = false;
    {
        // %change and Welch of mixed against slab, as compare() does for a sweep.
        std::vector<ValueRuns> v(2);
        v[0].value = "slab";
        v[0].samples = rows[0].samples;
        v[1].value = "mixed";
        v[1].samples = rows[1].samples;
        const auto c = compare("workload", "objstock", v);
        rows[1].percent_change = c.rows[1].percent_change;
        rows[1].p_value = c.rows[1].p_value;
        rows[1].significant = c.rows[1].significant;
    }
    ComparisonReport report;
    report.knob = "workload";
    report.workload = "objstock (slab in /tmp; mixed = slab + page-fault anon)";
    report.metric = "files/s per slab task";
    report.unit = "";
    report.rows = rows;
    r.reports.push_back(report);
    ExtraTable t{"seed 001's table: objcg vmstat pushes (flushes) / mod_objcg_state calls "
                 "(updates), per run",
                 {"workload", "flushes", "updates", "%", "obj-stock hit %", "charge-stock hit %"},
                 {}};
    for (const auto& row : rows) {
        const auto get = [&](const char* n) {
            const auto v = row.mean_counter_deltas.get(n);
            return v ? std::to_string(*v) : std::string("-");
        };
        t.rows.push_back({row.value, get("objcg_vmstat.flushes"), get("objcg_vmstat.updates"),
                          format_or_dash(derived_value(row, "objcg_vmstat_miss_pct"), "{:.1f}"),
                          format_or_dash(derived_value(row, "obj_stock_hit_pct"), "{:.1f}"),
                          format_or_dash(derived_value(row, "charge_stock_hit_pct"), "{:.1f}")});
    }
    r.extra.push_back(t);
    r.parameters.emplace_back("setup", "1 cgroup, 2 tasks: slab = 2 slab tasks; mixed = 1 slab "
                                       "task + 1 page-fault anon task");
    r.notes.emplace_back(
        "% = 100 x objcg_vmstat.flushes / objcg_vmstat.updates (the seed's "
        "__mod_objcg_state / mod_objcg_state), from the summed deltas of all runs.");
    r.verdict = objstock_verdict(report);
}

void readtwice(Experiment& e, const ExperimentOptions& opt, ExperimentResult& r) {
    e.set_fixed("stock_hooks", "1");
    const auto dir = opt.dir;
    const auto size = opt.size_mib.value_or(32);
    std::vector<Job> jobs{
        {[dir, size] { return workload("readtwice", "anon", dir, size); },
         1,
         1,
         2,
         size * mib / 2,
         {{"readtwice total", "pages/s", total},
          {"readtwice per cgroup", "pages/s per cgroup",
           [](const RunMeasurement& m, int cgroups) { return m.total_ops_per_sec / cgroups; }}},
         {}}};
    std::vector<Variant> variants;
    for (const int n : {1, 4, 16}) {
        variants.push_back({std::to_string(n), {}, n});
    }
    auto reports = e.run("cgroups", jobs, variants).front();
    r.reports = reports;
    ExtraTable t{
        "readtwice by cgroup count",
        {"cgroups", "total pages/s", "pages/s per cgroup", "charge-stock hit %", "obj-stock hit %"},
        {}};
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const auto& row = reports[0].rows[i];
        t.rows.push_back({row.value, fmt::format("{:.0f}", row.summary.mean),
                          fmt::format("{:.0f}", reports[1].rows[i].summary.mean),
                          format_or_dash(derived_value(row, "charge_stock_hit_pct"), "{:.1f}"),
                          format_or_dash(derived_value(row, "obj_stock_hit_pct"), "{:.1f}")});
    }
    r.extra.push_back(t);
    r.parameters.emplace_back(
        "setup", fmt::format("N leaves at depth 1, 2 readers each over one sparse {} MiB file per "
                             "cgroup in {}, memory.max {} MiB per leaf (so pages cycle through "
                             "the LRU as in vm-scalability's file > memory)",
                             size, dir, size / 2));
    r.verdict = readtwice_verdict(Experiment::decisive(reports, 0, 2));
}

void print_extra(std::ostream& out, const ExtraTable& t) {
    fmt::print(out, "\n{}\n", t.title);
    std::vector<TextTable::Align> aligns(t.header.size(), TextTable::Align::right);
    aligns[0] = TextTable::Align::left;
    TextTable table(aligns);
    table.row(t.header);
    for (const auto& row : t.rows) {
        table.row(row);
    }
    table.print(out);
}

// Draws one plot file: a failure is a warning, as the numbers are the result and a missing
// gnuplot is not worth losing them over.
void draw(const Context& ctx, const std::string& file, const std::function<void()>& plot) {
    try {
        plot();
        fmt::print(ctx.env.out, "wrote {}\n", file);
    } catch (const ToolError& err) {
        fmt::print(ctx.env.err, "warning: plot {}: {}\n", file, err.what());
    }
}

void run_experiment(const Context& ctx, const ExperimentOptions& opt) {
    if (opt.list) {
        fmt::print(ctx.env.out, "{}", recipe_list_text(recipes()));
        return;
    }
    if (opt.name.empty()) {
        throw ToolError(ExitCode::usage,
                        fmt::format("experiment needs a NAME (one of: {}) or --list",
                                    fmt::join(recipe_names(), ", ")));
    }
    const auto* recipe = find_recipe(opt.name);
    if (recipe == nullptr) {
        throw ToolError(ExitCode::usage, fmt::format("unknown experiment `{}` (one of: {})",
                                                     opt.name, fmt::join(recipe_names(), ", ")));
    }
    const auto json_file =
        opt.json.empty() ? fmt::format("experiment-{}.json", opt.name) : opt.json;
    const auto plot_file = opt.plot.empty() ? fmt::format("experiment-{}.svg", opt.name) : opt.plot;
    plot_format_for(plot_file); // a bad extension fails before the runs
    const ResultsFile file(json_file);
    const SignalGuard signals;
    ExperimentResult r;
    Figure figure;
    r.name = recipe->name;
    r.seed = recipe->seed;
    r.reference = recipe->reference;
    r.claim = recipe->claim;
    r.parameters = {{"runs", std::to_string(opt.runs)},
                    {"duration", fmt::format("{:g}", opt.duration)}};
    auto& out = ctx.env.out;
    try {
        Experiment e(ctx, opt, r, &file);
        const auto client = e.client();
        r.environment = current_environment(&client);
        r.parameters.emplace_back("kernel", e.client().version().get("kernel"));
        r.parameters.emplace_back("cpus", std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)));
        fmt::print(out, "experiment {} (seed {}): {}\nreference: {}\nclaim: {}\n", recipe->name,
                   recipe->seed, recipe->summary, recipe->reference, recipe->claim);
        out.flush();
        if (recipe->name == "update-flush") {
            update_flush(e, opt, r);
        } else if (recipe->name == "reader-flush") {
            reader_flush(e, opt, r);
        } else if (recipe->name == "flush-threshold") {
            flush_threshold(e, opt, r);
        } else if (recipe->name == "staleness") {
            staleness(e, opt, r, figure);
        } else if (recipe->name == "objstock") {
            objstock(e, opt, r);
        } else {
            readtwice(e, opt, r);
        }
        for (const auto& [k, v] : e.fixed()) {
            r.parameters.emplace_back("fixed " + k, v);
        }
        if (e.counting_instructions()) {
            r.measure = Measure::guest_instructions;
            r.verdict.line = "on guest instructions: " + r.verdict.line;
            r.notes.emplace_back(
                "each run's window was also counted in guest instructions (all vCPUs, QEMU's "
                "insn-marker plugin); the tables `per 1e9 guest insns` give the operations per "
                "10^9 instructions, which repeat far more closely than wall time under TCG, and "
                "the verdict rests on them.");
        }
    } catch (const ToolError& e) { // knobs restored by now
        // Keep what finished: the runs in the file, the finished steps' tables on stdout.
        r.complete = false;
        r.interrupted_by = interrupted_by(e);
        if (r.runs.empty()) {
            throw; // nothing ran: nothing to keep
        }
        file.write(experiment_json(r));
        fmt::print(ctx.env.err, "experiment stopped: {} finished runs kept in {}\n", r.runs.size(),
                   json_file);
        const auto text = make_output(OutputFormat::text, out);
        for (const auto& report : r.reports) {
            fmt::print(out, "\n");
            text->comparison(report);
        }
        throw;
    } // knobs restored here
    for (auto& report : r.reports) {
        report.environment = r.environment;
    }
    for (const auto& [k, v] : r.parameters) {
        fmt::print(out, "  {}: {}\n", k, v);
    }
    const auto text = make_output(OutputFormat::text, out);
    for (const auto& report : r.reports) {
        fmt::print(out, "\n");
        text->comparison(report);
    }
    for (const auto& t : r.extra) {
        print_extra(out, t);
    }
    for (const auto& n : r.notes) {
        fmt::print(out, "\nnote: {}\n", n);
    }
    file.write(experiment_json(r));
    fmt::print(out, "\nwrote {}\n", json_file);
    // The recipe's own figure takes the plot file itself; the reports' plots get suffixes.
    const auto plots = r.reports.size() + (figure ? 1 : 0);
    for (std::size_t i = 0; i < r.reports.size(); ++i) {
        // A twin report (per 1e9 guest insns) has its metric's workload: tell the files apart.
        const bool twin = r.reports[i].metric.ends_with(per_giga_instructions_unit(""));
        const auto plot =
            plot_path_for(plot_file, i, plots, r.reports[i].workload + (twin ? " insns" : ""));
        draw(ctx, plot, [&] { write_plot(r.reports[i], plot); });
    }
    if (figure) {
        draw(ctx, plot_file, [&] { run_gnuplot(figure(plot_file), plot_file); });
    }
    fmt::print(out, "{}\n", r.verdict.line);
}

} // namespace

Command add_experiment_command(CLI::App& app, Context& ctx) {
    std::string help = "run a named experiment reproducing a mailing-list report (`experiment "
                       "--list`: each one's report and the claim in numbers it tests):";
    for (const auto& r : recipes()) {
        help += fmt::format("\n  {:<16} seed {}: {}", r.name, r.seed, r.summary);
    }
    auto* sub = app.add_subcommand("experiment", help);
    auto opt = std::make_shared<ExperimentOptions>();
    auto* name = sub->add_option("NAME", opt->name, "the recipe (required unless --list)")
                     ->check(CLI::IsMember(recipe_names()));
    sub->add_flag("--list", opt->list,
                  "print each recipe: its seed, summary, report reference and the claim it "
                  "tests (no module or root needed)")
        ->excludes(name);
    sub->add_option("--runs", opt->runs, "runs per value (interleaved rounds)")
        ->capture_default_str()
        ->check(between(2, 1000));
    sub->add_option("--duration", opt->duration, "seconds per run")
        ->type_name("S")
        ->capture_default_str()
        ->check(positive<double>());
    sub->add_option("--dir", opt->dir,
                    "refault/readtwice files: a block-device file system (not tmpfs)")
        ->capture_default_str();
    sub->add_option("--size", opt->size_mib,
                    "refault/readtwice file size in MiB (default: 4 for reader-flush's refault, "
                    "32 for readtwice)")
        ->check(between<std::uint64_t>(2, 1U << 20U));
    sub->add_option("--output,--json", opt->json,
                    "JSON results file, rewritten after every run (default "
                    "experiment-NAME.json)")
        ->type_name("FILE");
    sub->add_option("--plot", opt->plot,
                    "SVG/PNG plot (default experiment-NAME.svg; -SUFFIX per table when several)")
        ->type_name("FILE");
    return {sub, [&ctx, opt] { run_experiment(ctx, *opt); }};
}

} // namespace memcg_statctl
