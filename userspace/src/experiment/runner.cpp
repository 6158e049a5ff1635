#include "experiment/runner.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cgroup/hierarchy.h"
#include "exit_code.h"
#include "output/output.h"
#include "output/plot.h"
#include "output/result_schema.h"
#include "run/environment.h"
#include "run/signal_guard.h"
#include "workloads/runner.h"

namespace memcg_statctl {

double total(const RunMeasurement& m, int /*cgroups*/) {
    return m.total_ops_per_sec;
}

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

Metric per_run_count(std::string title, std::string unit, std::size_t task) {
    return {.title = std::move(title),
            .unit = std::move(unit),
            .value =
                [task](const RunMeasurement& m, int /*cgroups*/) {
                    return task < m.task_ops_per_sec.size() ? m.task_ops_per_sec[task] * m.seconds
                                                            : 0.0;
                },
            .rate = false};
}

std::unique_ptr<Workload> workload(const std::string& name, const std::string& mode,
                                   const std::string& dir, std::uint64_t size_mib) {
    WorkloadOptions o;
    o.name = name;
    o.mode = mode;
    o.dir = dir;
    o.size_mib = size_mib;
    return make_workload(o);
}

Restorers::~Restorers() {
    while (!v_.empty()) {
        v_.pop_back();
    }
}

void Restorers::write(const std::string& knob, const std::string& value) {
    client_.require_knob(knob);
    if (std::find(names_.begin(), names_.end(), knob) == names_.end()) {
        v_.push_back(std::make_unique<KnobRestorer>(client_, knob));
        names_.push_back(knob);
    }
    client_.write_knob(knob, value);
}

Experiment::Experiment(DebugfsClient client, std::ostream& err, const ExperimentOptions& opt,
                       ExperimentResult& result, const ResultsFile* file)
    : err_(err), opt_(opt), client_(std::move(client)), restorers_(client_), result_(result),
      file_(file), insns_(InsnCounter::from_environment()) {
    client_.require_module();
    backend_ = std::make_unique<LibcgroupBackend>();
    parent_ = std::make_unique<CgroupParent>(*backend_, opt_.parent);
    for (const auto& left : remove_leftover_groups(*backend_, process_alive, parent_->rel())) {
        const auto dir = (backend_->mount() / left.name).string();
        if (left.removed) {
            fmt::print(err_, "removed leftover cgroup {} of dead process {}\n", dir, left.owner);
        } else {
            fmt::print(err_, "warning: cannot remove leftover cgroup {}: {}\n", dir, left.error);
        }
    }
}

std::vector<std::vector<ComparisonReport>> Experiment::run(const std::string& knob,
                                                           std::vector<Job>& jobs,
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
            // Warm-up runs, as sweep's: before the variant's first run, under its knobs,
            // none of their figures kept (nor collected).
            for (int w = 1; s.round == 0 && w <= opt_.warmup_runs; ++w) {
                fmt::print(err_, "[{}/{}] {} {}={} warm-up run {}/{}\n", step + 1, steps,
                           job.metrics.front().title, knob, var.label, w, opt_.warmup_runs);
                err_.flush();
                for (const auto& [k, value] : var.knobs) {
                    restorers_.write(k, value);
                }
                auto warm = job.make();
                (void)run_once(*warm, job, var.cgroups.value_or(job.cgroups));
                throw_if_stopped();
            }
            fmt::print(err_, "[{}/{}] {} {}={} run {}/{}\n", ++step, steps,
                       job.metrics.front().title, knob, var.label, s.round + 1, opt_.runs);
            err_.flush();
            for (const auto& [k, value] : var.knobs) {
                restorers_.write(k, value); // between runs only
            }
            const int cgroups = var.cgroups.value_or(job.cgroups);
            auto workload = job.make();
            const auto [m, deltas, insns, latency, reasons] = run_once(*workload, job, cgroups);
            if (job.collect) {
                job.collect(*workload, s.value_index, deltas);
            }
            Json figures = Json::object();
            for (const auto& metric : job.metrics) {
                figures[metric.title] = metric.value(m, cgroups);
            }
            result_.runs.push_back({{"step", job.metrics.front().title},
                                    {"knob", knob},
                                    {"value", var.label},
                                    {"round", s.round + 1},
                                    {"seconds", m.seconds},
                                    {"figures", figures},
                                    {"instructions", insns ? Json(*insns) : Json(nullptr)},
                                    {"counters", deltas ? counters_json(*deltas) : Json(nullptr)},
                                    {"flush_latency", latency_json(latency)},
                                    {"flush_reasons", reasons_json(reasons)}});
            save_partial();
            const auto n = job.metrics.size();
            for (std::size_t k = 0; k < n; ++k) {
                const double value = job.metrics[k].value(m, cgroups);
                auto& r = res[j][k][s.value_index];
                r.samples.push_back(value);
                r.seconds.push_back(m.seconds);
                if (k == 0 && deltas) {
                    r.counter_deltas.push_back(*deltas);
                    if (latency) {
                        r.flush_latencies.push_back(*latency);
                    }
                    if (reasons) {
                        r.flush_reasons.push_back(*reasons);
                    }
                }
                if (insns) {
                    auto& twin = res[j][n + k][s.value_index];
                    const double per_second =
                        job.metrics[k].rate || m.seconds <= 0 ? value : value / m.seconds;
                    twin.samples.push_back(per_giga_instructions(per_second, m.seconds, *insns));
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

void Experiment::save_partial() const {
    if (file_ != nullptr) {
        auto partial = result_;
        partial.complete = false;
        file_->write(experiment_json(partial));
    }
}

Experiment::RunOutcome Experiment::run_once(Workload& w, const Job& job, int cgroups) {
    CgroupHierarchy hierarchy(*backend_, cgroups, job.depth, ::getpid(), parent_->rel());
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
    const auto before = read_module_sample(client_);
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
    const auto after = read_module_sample(client_);
    return {std::move(m), Counters::delta(before.counters, after.counters), insns,
            histogram_delta(before.latency, after.latency),
            reasons_delta(before.reasons, after.reasons)};
}

double per_giga_instructions(double per_second, double seconds, std::uint64_t instructions) {
    if (instructions == 0) {
        return 0;
    }
    return per_second * seconds * 1e9 / static_cast<double>(instructions);
}

std::string per_giga_instructions_unit(std::string_view unit) {
    std::string u(unit);
    for (const std::string_view per : {"/s", "/run"}) {
        if (const auto slash = u.find(per); slash != std::string::npos) {
            u.erase(slash, per.size());
            break;
        }
    }
    return u + " per 1e9 guest insns";
}

std::string plot_path_for(const std::string& file, std::size_t index, std::size_t count,
                          const std::string& slug) {
    if (count <= 1) {
        return file;
    }
    std::filesystem::path p(file);
    std::string clean;
    for (const char c : slug) {
        clean += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '-';
    }
    if (clean.empty()) {
        clean = std::to_string(index);
    }
    const auto name = fmt::format("{}-{}{}", p.stem().string(), clean, p.extension().string());
    return (p.parent_path() / name).string();
}

namespace {

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
void draw(std::ostream& out, std::ostream& err, const std::string& file,
          const std::function<void()>& plot) {
    try {
        plot();
        fmt::print(out, "wrote {}\n", file);
    } catch (const ToolError& e) {
        fmt::print(err, "warning: plot {}: {}\n", file, e.what());
    }
}

} // namespace

void run_experiment(const ExperimentOptions& opt, const DebugfsClient& client,
                    std::ostream& stdout_stream, std::ostream& err) {
    if (opt.list) {
        fmt::print(stdout_stream, "{}", recipe_list_text(recipes()));
        return;
    }
    // --json: the document alone on stdout, so the text (progress headers, tables, the
    // files written) goes nowhere; an unopened stream discards what is written to it.
    std::ofstream discard;
    std::ostream& out = opt.print_json ? discard : stdout_stream;
    const auto print_document = [&](const ExperimentResult& result) {
        if (opt.print_json) {
            stdout_stream << experiment_json(result).dump(2) << '\n';
            stdout_stream.flush();
        }
    };
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
        opt.output.empty() ? fmt::format("experiment-{}.json", opt.name) : opt.output;
    const auto plot_file = opt.plot.empty() ? fmt::format("experiment-{}.svg", opt.name) : opt.plot;
    // A bad extension fails before the runs; a plot asked for by name needs gnuplot too
    // (the default one is only a warning when it cannot be drawn).
    if (opt.plot.empty()) {
        plot_format_for(plot_file);
    } else {
        check_plot_file(plot_file);
    }
    const ResultsFile file(json_file);
    const SignalGuard signals;
    ExperimentResult r;
    Figure figure; // taken from the Experiment before it restores the knobs
    r.name = recipe->name;
    r.report_id = recipe->report_id;
    r.reference = recipe->reference;
    r.claim = recipe->claim;
    r.parameters = {{"runs", std::to_string(opt.runs)},
                    {"duration", fmt::format("{:g}", opt.duration)},
                    {"warmup_runs", std::to_string(opt.warmup_runs)}};
    try {
        Experiment e(client, err, opt, r, &file);
        r.environment = current_environment(&e.client());
        r.parameters.emplace_back("kernel", e.client().version().get("kernel"));
        r.parameters.emplace_back("cpus", std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)));
        r.parameters.emplace_back("parent", e.parent().dir().string());
        r.parameters.emplace_back("parent_from", e.parent().why());
        fmt::print(
            out, "experiment {}: {}\nreport: docs/background.md#{}\nreference: {}\nclaim: {}\n",
            recipe->name, recipe->summary, recipe->report_id, recipe->reference, recipe->claim);
        out.flush();
        recipe->run(e, r);
        figure = e.figure();
        for (const auto& [k, v] : e.fixed()) {
            r.parameters.emplace_back("fixed " + k, v);
        }
        // The recipe set the measure of a verdict that is no throughput (counters, pages).
        r.measure = verdict_measure(r.measure, e.counting_instructions());
        r.verdict.line = verdict_line_on(r.measure, r.verdict.line);
        if (e.counting_instructions()) {
            r.notes.push_back(fmt::format(
                "each run's window was also counted in guest instructions (all vCPUs, QEMU's "
                "insn-marker plugin); the tables `per 1e9 guest insns` give the operations per "
                "10^9 instructions, which repeat far more closely than wall time under TCG{}.",
                r.measure == Measure::guest_instructions
                    ? ", and the verdict rests on them"
                    : fmt::format("; the verdict rests on {} instead, which no clock affects",
                                  measure_name(r.measure))));
        }
    } catch (const ToolError& e) { // knobs restored by now
        // Keep what finished: the runs in the file, the finished steps' tables on stdout.
        r.complete = false;
        r.interrupted_by = interrupted_by(e);
        if (r.runs.empty()) {
            throw; // nothing ran: nothing to keep
        }
        file.write(experiment_json(r));
        print_document(r);
        fmt::print(err, "experiment stopped: {} finished runs kept in {}\n", r.runs.size(),
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
        draw(out, err, plot, [&] { write_plot(r.reports[i], plot); });
    }
    if (figure) {
        draw(out, err, plot_file, [&] { run_gnuplot(figure(plot_file), plot_file); });
    }
    fmt::print(out, "{}\n", r.verdict.line);
    print_document(r);
}

} // namespace memcg_statctl
