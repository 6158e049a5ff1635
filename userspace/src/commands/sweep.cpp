// `sweep`: run a workload or a user's command for every value of a knob, interleaved, and
// compare the values. The results file (--output) is rewritten after every run, and a
// stopped sweep (SIGINT/SIGTERM, a failed run) still prints the table of what finished.
#include "run/sweep.h"

#include <algorithm>
#include <csignal>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/cli.h"
#include "debugfs/client.h"
#include "output/plot.h"
#include "output/result_schema.h"
#include "run/environment.h"
#include "run/session.h"
#include "run/signal_guard.h"
#include "statistics.h"

namespace memcg_statctl {
namespace {

struct SweepOptions {
    RunOptions run;
    std::string knob;
    std::string values;
    int runs = 5; // as experiment's
    FormatFlags format;
    std::string plot;
    std::string output;
};

// The figure a sweep compares: ops/s of a built-in workload; a command's --metric, or
// without one its wall time (the seconds until its last copy exited).
struct Figure {
    std::string name;
    std::string unit;
};

Figure figure_of(const RunSession& session, const RunOptions& o) {
    if (session.kind() != "command") {
        return {"ops_per_sec", "ops/s"};
    }
    return o.metric.empty() ? Figure{"seconds", "s"} : Figure{"metric", ""};
}

double sample_of(const Figure& f, const RunResult& r) {
    if (f.name == "ops_per_sec") {
        return r.ops_per_sec.value_or(0);
    }
    return f.name == "metric" ? r.metric.value_or(0) : r.seconds;
}

class Sweep {
public:
    Sweep(const Context& ctx, const SweepOptions& opt, std::vector<std::string> values,
          RunSession& session)
        : ctx_(ctx), opt_(opt), values_(std::move(values)), session_(session),
          figure_(figure_of(session, opt.run)), results_(values_.size()) {
        for (std::size_t i = 0; i < values_.size(); ++i) {
            results_[i].value = values_[i];
        }
        const auto client = ctx.client();
        environment_ = current_environment(&client);
        parameters_ = session.parameters();
        parameters_["knob"] = opt.knob;
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
        MemoryStat total;
        for (const auto& m : r.memory_stat) {
            total = memory_stat_sum(total, m.delta);
        }
        v.memory_stats.push_back(std::move(total));
        runs_.push_back({values_[step.value_index], step.round + 1, std::move(r)});
    }

    ComparisonReport report(bool complete, std::optional<std::string> interrupted_by) const {
        auto r = compare(opt_.knob, session_.kind(), results_);
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
    const Figure& figure() const { return figure_; }

private:
    const Context& ctx_;
    const SweepOptions& opt_;
    std::vector<std::string> values_;
    RunSession& session_;
    Figure figure_;
    std::vector<ValueRuns> results_;
    std::vector<SweepRun> runs_;
    Environment environment_;
    Parameters parameters_;
};

void print_report(const Context& ctx, const SweepOptions& opt, const ComparisonReport& report) {
    make_output(opt.format.format(), ctx.env.out)->comparison(report);
    ctx.env.out.flush();
}

// What needs no module, before it is required (usage errors, exit 2): the knob, when the
// tool knows it (a newer module's knob is checked once the module is there), and every
// value, so that a typo in the last one does not surface after the first runs.
void check_knob_values(const DebugfsClient& client, const std::string& knob,
                       const std::vector<std::string>& values) {
    const auto known = known_knobs();
    if (std::find(known.begin(), known.end(), knob) == known.end() &&
        client.availability() != Availability::available) {
        throw ToolError(ExitCode::usage, fmt::format("unknown knob `{}` (the knobs are: {})", knob,
                                                     fmt::join(known, ", ")));
    }
    for (const auto& v : values) {
        if (const auto error = knob_value_error(knob, v)) {
            throw ToolError(ExitCode::usage, "--values: " + *error);
        }
    }
}

// With the module, before any cgroup is made: the knob exists, and a value that needs
// flush control is refused on a kernel without it, as its write would be.
void check_knob_in_module(const DebugfsClient& client, const std::string& knob,
                          const std::vector<std::string>& values) {
    client.require_knob(knob);
    const auto control = client.version().get("flush_control");
    for (const auto& v : values) {
        if (!control.empty() && control != "available" && needs_flush_control(knob, v)) {
            throw ToolError(fmt::format("{}={} needs flush control, which this kernel's module "
                                        "does not have (flush_control {}; see `memcg-statctl "
                                        "status`)",
                                        knob, v, control));
        }
    }
}

void run_sweep(const Context& ctx, SweepOptions& opt) {
    const auto values = parse_sweep_values(opt.values);
    if (!opt.plot.empty()) {
        check_plot_file(opt.plot); // before hours of runs
    }
    opt.run.command = ctx.command;
    const std::optional<ResultsFile> file =
        opt.output.empty() ? std::nullopt : std::optional<ResultsFile>(opt.output);
    check_run_options(opt.run);
    const auto client = ctx.client();
    check_knob_values(client, opt.knob, values);
    const SignalGuard signals;
    client.require_module();
    check_knob_in_module(client, opt.knob, values);
    if (opt.runs == 1) {
        fmt::print(ctx.env.err, "warning: --runs 1 gives one sample per value: no standard "
                                "deviation and no significance test\n");
    }
    RunSession session(ctx, opt.run);
    if (session.kind() == "cgroup" || session.kind() == "pid") {
        throw ToolError(ExitCode::usage, "sweep runs what it measures: give --workload or a "
                                         "command after `--`");
    }
    Sweep sweep(ctx, opt, values, session);
    const auto save = [&](bool complete, std::optional<std::string> interrupted_by) {
        if (file) {
            file->write(sweep_document(sweep.report(complete, std::move(interrupted_by))));
        }
    };
    try {
        const KnobRestorer restore(client, opt.knob); // also on error and signals
        const auto order = sweep_order(values.size(), opt.runs);
        for (std::size_t step = 0; step < order.size(); ++step) {
            throw_if_stopped();
            const auto& s = order[step];
            if (ctx.env.progress_to_terminal) {
                fmt::print(ctx.env.err, "\r\033[K[{}/{}] {}={} run {}/{}", step + 1, order.size(),
                           opt.knob, values[s.value_index], s.round + 1, opt.runs);
                ctx.env.err.flush();
            }
            client.write_knob(opt.knob, values[s.value_index]);
            auto r = session.run_once();
            const auto outputs = session.command_outputs();
            const auto failure = command_failure(r, outputs);
            const bool no_metric = sweep.figure().name == "metric" && !r.metric;
            sweep.add(s, std::move(r));
            if (failure) {
                throw ToolError(fmt::format("{}={} run {}: {}", opt.knob, values[s.value_index],
                                            s.round + 1, *failure));
            }
            if (no_metric) {
                print_command_outputs(ctx.env.err, outputs);
                throw ToolError(fmt::format("{}={} run {}: no output line matched --metric '{}'",
                                            opt.knob, values[s.value_index], s.round + 1,
                                            opt.run.metric));
            }
            save(false, std::nullopt);
        }
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
        "sweep", "run a workload or `-- CMD ARGS...` for each value of a knob and compare");
    auto opt = std::make_shared<SweepOptions>();
    sub->add_option("--knob", opt->knob, "the knob to vary")->required();
    // A plain string, not a vector with CLI11's delimiter(','): CLI11 drops empty items
    // ("a,,b" would become a,b), and parse_sweep_values rejects them as likely typos.
    sub->add_option("--values", opt->values, "comma-separated values; the first is the baseline")
        ->type_name("a,b,c")
        ->required();
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
