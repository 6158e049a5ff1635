// `sweep`: run a workload or a user's command for every value of a knob, or every
// combination of the values of several knobs, interleaved, and compare the values. The
// results file (--output) is rewritten after every run, and a stopped sweep (SIGINT/SIGTERM,
// a failed run) still prints the table of what finished.
#include "run/sweep.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <deque>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/cli.h"
#include "debugfs/client.h"
#include "output/plot.h"
#include "output/result_schema.h"
#include "run/environment.h"
#include "run/schedule.h"
#include "run/session.h"
#include "run/signal_guard.h"
#include "statistics.h"

namespace memcg_statctl {
namespace {

struct SweepOptions {
    RunOptions run;
    std::vector<std::string> knobs;  // --knob, repeatable
    std::vector<std::string> values; // --values, one per --knob, paired in order
    int runs = 5;                    // as experiment's
    FormatFlags format;
    std::string plot;
    std::string output;
};

// The figure a sweep compares: ops/s of a built-in workload; a command's --metric, or
// without one its wall time (the seconds until its last copy exited).
struct SweepFigure {
    std::string name;
    std::string unit;
};

SweepFigure figure_of(const RunSession& session, const RunOptions& o) {
    if (session.kind() != "command") {
        return {"ops_per_sec", "ops/s"};
    }
    return o.metric.empty() ? SweepFigure{"seconds", "s"} : SweepFigure{"metric", ""};
}

double sample_of(const SweepFigure& f, const RunResult& r) {
    if (f.name == "ops_per_sec") {
        return r.ops_per_sec.value_or(0);
    }
    return f.name == "metric" ? r.metric.value_or(0) : r.seconds;
}

class Sweep {
public:
    // `values`: the rows, one per combination of the knobs' values (row_value).
    Sweep(const Context& ctx, const SweepOptions& opt, const std::vector<KnobValues>& knobs,
          std::vector<std::string> values, RunSession& session)
        : ctx_(ctx), opt_(opt), knob_(knobs_label(knobs)), values_(std::move(values)),
          session_(session), figure_(figure_of(session, opt.run)), results_(values_.size()) {
        for (std::size_t i = 0; i < values_.size(); ++i) {
            results_[i].value = values_[i];
        }
        const auto client = ctx.client();
        environment_ = current_environment(&client);
        parameters_ = session.parameters();
        parameters_["knob"] = knob_;
        if (knobs.size() > 1) { // one knob keeps the fields of older documents only
            auto& each = parameters_["knobs"] = Parameters::object();
            for (const auto& k : knobs) {
                each[k.knob] = k.values;
            }
        }
        parameters_["values"] = values_;
        parameters_["runs"] = opt.runs;
    }

    void add(const SweepStep& step, RunResult r) {
        auto& v = results_[step.value_index];
        v.samples.push_back(sample_of(figure_, r));
        v.seconds.push_back(r.seconds);
        if (r.counters) {
            v.counter_deltas.push_back(*r.counters);
        }
        if (r.flush_latency) {
            v.flush_latencies.push_back(*r.flush_latency);
        }
        if (r.flush_reasons) {
            v.flush_reasons.push_back(*r.flush_reasons);
        }
        MemoryStat total;
        for (const auto& m : r.memory_stat) {
            total = memory_stat_sum(total, m.delta);
        }
        v.memory_stats.push_back(std::move(total));
        runs_.push_back({values_[step.value_index], step.round + 1, std::move(r)});
    }

    ComparisonReport report(bool complete, std::optional<std::string> interrupted_by) const {
        auto r = compare(knob_, session_.kind(), results_);
        r.metric = figure_.name;
        r.unit = figure_.unit;
        r.environment = environment_;
        r.parameters = parameters_;
        r.runs = runs_;
        r.complete = complete;
        r.interrupted_by = std::move(interrupted_by);
        return r;
    }

    bool any_run() const { return !runs_.empty(); }
    const SweepFigure& figure() const { return figure_; }

private:
    const Context& ctx_;
    const SweepOptions& opt_;
    std::string knob_;
    std::vector<std::string> values_;
    RunSession& session_;
    SweepFigure figure_;
    std::vector<ValueRuns> results_;
    std::vector<SweepRun> runs_;
    Environment environment_;
    Parameters parameters_;
};

void print_report(const Context& ctx, const SweepOptions& opt, const ComparisonReport& report) {
    make_output(opt.format.format(), ctx.env.out)->comparison(report);
    ctx.env.out.flush();
}

// What needs no module, before it is required (usage errors, exit 2): every knob, when the
// tool knows it (a newer module's knob is checked once the module is there), and every
// value, so that a typo in the last one does not surface after the first runs.
void check_knob_values(const DebugfsClient& client, const std::vector<KnobValues>& knobs) {
    const auto known = known_knobs();
    for (const auto& [knob, values] : knobs) {
        if (std::find(known.begin(), known.end(), knob) == known.end() &&
            client.availability() != Availability::available) {
            throw ToolError(ExitCode::usage, fmt::format("unknown knob `{}` (the knobs are: {})",
                                                         knob, fmt::join(known, ", ")));
        }
        for (const auto& v : values) {
            if (const auto error = knob_value_error(knob, v)) {
                throw ToolError(ExitCode::usage, "--values: " + *error);
            }
        }
    }
}

// With the module, before any cgroup is made: every knob exists, and a value that needs
// flush control is refused on a kernel without it, as its write would be.
void check_knob_in_module(const DebugfsClient& client, const std::vector<KnobValues>& knobs) {
    for (const auto& [knob, values] : knobs) {
        client.require_knob(knob);
        const auto control = client.version().get("flush_control");
        for (const auto& v : values) {
            if (!control.empty() && control != "available" && needs_flush_control(knob, v)) {
                throw ToolError(fmt::format("{}={} needs flush control, which this kernel's "
                                            "module does not have (flush_control {}; see "
                                            "`memcg-statctl status`)",
                                            knob, v, control));
            }
        }
    }
}

void run_sweep(const Context& ctx, SweepOptions& opt) {
    const auto knobs = pair_knob_values(opt.knobs, opt.values);
    const auto combinations = knob_combinations(knobs);
    if (!opt.plot.empty()) {
        check_plot_file(opt.plot); // before hours of runs
    }
    opt.run.command = ctx.command;
    const std::optional<ResultsFile> file =
        opt.output.empty() ? std::nullopt : std::optional<ResultsFile>(opt.output);
    check_run_options(opt.run);
    const auto client = ctx.client();
    check_knob_values(client, knobs);
    const SignalGuard signals;
    client.require_module();
    check_knob_in_module(client, knobs);
    if (opt.runs == 1) {
        fmt::print(ctx.env.err, "warning: --runs 1 gives one sample per value: no standard "
                                "deviation and no significance test\n");
    }
    RunSession session(ctx, opt.run);
    if (session.kind() == "cgroup" || session.kind() == "pid") {
        throw ToolError(ExitCode::usage, "sweep runs what it measures: give --workload or a "
                                         "command after `--`");
    }
    std::vector<std::string> rows;
    rows.reserve(combinations.size());
    for (const auto& c : combinations) {
        rows.push_back(row_value(knobs, c));
    }
    Sweep sweep(ctx, opt, knobs, rows, session);
    const auto save = [&](bool complete, std::optional<std::string> interrupted_by) {
        if (file) {
            file->write(sweep_document(sweep.report(complete, std::move(interrupted_by))));
        }
    };
    const auto schedule = run_schedule(combinations.size(), opt.runs, opt.run.warmup_runs);
    std::size_t started = 0;
    ScheduleSteps steps;
    steps.name = [&](const ScheduledRun& s) {
        const auto setting = setting_name(knobs, combinations[s.step.value_index]);
        return s.warmup > 0 ? fmt::format("{} warm-up run {}", setting, s.warmup)
                            : fmt::format("{} run {}", setting, s.step.round + 1);
    };
    steps.start = [&](const ScheduledRun& s) {
        const auto& combination = combinations[s.step.value_index];
        if (ctx.env.progress_to_terminal) {
            const auto setting = setting_name(knobs, combination);
            fmt::print(ctx.env.err, "\r\033[K[{}/{}] {} {}", ++started, schedule.size(), setting,
                       s.warmup > 0
                           ? fmt::format("warm-up run {}/{}", s.warmup, opt.run.warmup_runs)
                           : fmt::format("run {}/{}", s.step.round + 1, opt.runs));
            ctx.env.err.flush();
        }
        for (std::size_t k = 0; k < knobs.size(); ++k) {
            client.write_knob(knobs[k].knob, combination[k]);
        }
    };
    steps.run = [&session] { return session.run_once(); };
    steps.failure = [&](const ScheduledRun& s, const RunResult& r) -> std::optional<std::string> {
        const auto outputs = session.command_outputs();
        if (auto failure = command_failure(r, outputs)) {
            return failure;
        }
        if (s.warmup == 0 && sweep.figure().name == "metric" && !r.metric) {
            print_command_outputs(ctx.env.err, outputs);
            return fmt::format("no output line matched --metric '{}'", opt.run.metric);
        }
        return std::nullopt;
    };
    steps.keep = [&](const ScheduledRun& s, RunResult r) {
        sweep.add(s.step, std::move(r));
        save(false, std::nullopt);
    };
    try {
        // Also on error and signals. The order the knobs get their values back in does not
        // matter: each is written alone, to the value it had.
        std::deque<KnobRestorer> restore;
        for (const auto& k : knobs) {
            restore.emplace_back(client, k.knob);
        }
        run_scheduled(schedule, opt.run.hooks, steps);
        if (ctx.env.progress_to_terminal) {
            fmt::print(ctx.env.err, "\r\033[K");
        }
    } catch (const ToolError& e) {
        // Keep and show what finished, then fail as the error says (130/143 for signals).
        if (ctx.env.progress_to_terminal) {
            fmt::print(ctx.env.err, "\r\033[K");
        }
        const auto by = interrupted_by(e);
        save(false, by);
        if (sweep.any_run()) {
            fmt::print(ctx.env.err, "sweep stopped: the results of the runs that finished{}\n",
                       file ? fmt::format(" (also in {})", file->path().string()) : "");
            print_report(ctx, opt, sweep.report(false, by));
        }
        throw;
    }
    const auto report = sweep.report(true, std::nullopt);
    save(true, std::nullopt);
    print_report(ctx, opt, report);
    if (!opt.plot.empty()) {
        write_plot(report, opt.plot);
    }
}

} // namespace

Command add_sweep_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand(
        "sweep", "run a workload or `-- CMD ARGS...` for each value of a knob (or each "
                 "combination of several knobs' values) and compare");
    auto opt = std::make_shared<SweepOptions>();
    // One word per occurrence: repeated, they pair up in order (`--knob A --values a1,a2
    // --knob B --values b1,b2` sweeps every combination).
    sub->add_option("--knob", opt->knobs,
                    "the knob to vary; repeat --knob K --values ... to sweep every combination "
                    "of several knobs' values")
        ->required()
        ->allow_extra_args(false);
    // Plain strings, not CLI11's delimiter(','): CLI11 drops empty items ("a,,b" would
    // become a,b), and parse_sweep_values rejects them as likely typos.
    sub->add_option("--values", opt->values,
                    "comma-separated values of the --knob before it; the first is the baseline")
        ->type_name("a,b,c")
        ->required()
        ->allow_extra_args(false);
    sub->add_option("WORKLOAD,--workload", opt->run.workload.name,
                    "a built-in workload (or give a command after `--`)")
        ->check(CLI::IsMember(workload_names()));
    sub->add_option("-r,--runs", opt->runs, "runs per value (interleaved rounds)")
        ->capture_default_str()
        ->check(positive<int>());
    add_run_options(*sub, opt->run);
    add_format_flags(*sub, opt->format, "print JSON (see docs/output.md)");
    sub->add_option("-o,--output", opt->output,
                    "write the JSON document to FILE after every run (kept when stopped)")
        ->type_name("FILE");
    sub->add_option("--plot", opt->plot, "also write an SVG or PNG plot (by extension)")
        ->type_name("FILE");
    return {sub, [&ctx, opt] { run_sweep(ctx, *opt); }};
}

} // namespace memcg_statctl
