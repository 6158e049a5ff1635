#include "experiment/runner.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cgroup/hierarchy.h"
#include "exit_code.h"
#include "output/result_schema.h"
#include "run/hierarchy_placement.h"
#include "run/signal_guard.h"

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
            fmt::print(err_, "[{}/{}] {} {}={} run {}/{}\n", ++step, steps,
                       job.metrics.front().title, knob, var.label, s.round + 1, opt_.runs);
            err_.flush();
            for (const auto& [k, value] : var.knobs) {
                restorers_.write(k, value); // between runs only
            }
            const int cgroups = var.cgroups.value_or(job.cgroups);
            auto workload = job.make();
            const auto [m, deltas, insns] = run_once(*workload, job, cgroups);
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

} // namespace memcg_statctl
