// `run`: one measured run (a built-in workload, a user's command, or an observation of
// existing cgroups or processes), with the module's counter deltas and memory.stat deltas.
#include <csignal>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "output/result_schema.h"
#include "run/environment.h"
#include "run/schedule.h"
#include "run/session.h"
#include "run/signal_guard.h"

namespace memcg_statctl {
namespace {

struct RunCommandOptions {
    RunOptions run;
    std::string builtin; // WORKLOAD
    FormatFlags format;
    std::string output;
};

void run_command(const Context& ctx, RunCommandOptions& opt) {
    const SignalGuard signals; // SIGINT/SIGTERM: stop tasks, remove cgroups, then exit
    opt.run.workload.name = opt.builtin;
    opt.run.command = ctx.command;
    const std::optional<ResultsFile> file =
        opt.output.empty() ? std::nullopt : std::optional<ResultsFile>(opt.output);
    RunSession session(ctx, opt.run);
    const auto client = ctx.client();
    RunReport report;
    report.environment = current_environment(session.module_loaded() ? &client : nullptr);
    report.workload = session.kind();
    report.parameters = session.parameters();
    // Warm-up runs first (their results are dropped), then the measured run; --prepare
    // and --cleanup around each.
    ScheduleSteps steps;
    steps.name = [](const ScheduledRun& s) {
        return s.warmup > 0 ? fmt::format("warm-up run {}", s.warmup) : std::string("the run");
    };
    steps.start = [](const ScheduledRun& /*s*/) {};
    steps.run = [&session] { return session.run_once(); };
    steps.failure = [&session](const ScheduledRun& s, const RunResult& r) {
        // The measured run's failure is reported after its output, below.
        return s.warmup > 0 ? command_failure(r, session.command_outputs()) : std::nullopt;
    };
    bool measured = false;
    steps.keep = [&](const ScheduledRun& /*s*/, RunResult r) {
        report.result = std::move(r);
        measured = true;
    };
    try {
        run_scheduled(run_schedule(1, 1, opt.run.warmup_runs), opt.run.hooks, steps);
    } catch (const Interrupted& e) {
        report.interrupted_by = interrupted_by(e);
        if (file) {
            file->write(run_document(report));
        }
        throw;
    } catch (const ToolError&) {
        if (measured) { // --cleanup failed after the measured run: keep what it measured
            if (file) {
                file->write(run_document(report));
            }
            make_output(opt.format.format(), ctx.env.out)->run(report);
        }
        throw;
    }
    if (file) {
        file->write(run_document(report));
    }
    const auto outputs = session.command_outputs();
    print_command_outputs(ctx.env.err, outputs);
    make_output(opt.format.format(), ctx.env.out)->run(report);
    if (const auto failure = command_failure(report.result, outputs)) {
        throw ToolError(*failure);
    }
    if (!opt.run.metric.empty() && !report.result.metric) {
        throw ToolError(
            fmt::format("no output line of the command matched --metric '{}'", opt.run.metric));
    }
}

} // namespace

Command add_run_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand(
        "run", "measure one run: a built-in WORKLOAD, `-- CMD ARGS...` (N copies, each in its "
               "own cgroup), or existing --cgroup / --pid");
    auto opt = std::make_shared<RunCommandOptions>();
    sub->add_option("WORKLOAD,--workload", opt->builtin,
                    "a built-in workload (or give a command after `--`)")
        ->check(CLI::IsMember(workload_names()));
    add_run_options(*sub, opt->run);
    add_observe_options(*sub, opt->run);
    add_format_flags(*sub, opt->format, "print a JSON object (see docs/output.md)");
    sub->add_option("-o,--output", opt->output, "also write the JSON object to FILE")
        ->type_name("FILE");
    sub->footer("Module counters are system-wide: they count every cgroup's activity during "
                "the run, not only the measured cgroups'. memory.stat deltas are the measured "
                "cgroups' own.");
    return {sub, [&ctx, opt] { run_command(ctx, *opt); }};
}

} // namespace memcg_statctl
