// `run WORKLOAD`: one measured run in fresh cgroups, with the module's counter deltas.
#include "memcg_statctl/derived.h"
#include "memcg_statctl/signal_guard.h"

#include "run_session.h"

namespace memcg_statctl {
namespace {

struct RunCommandOptions {
    RunOptions run;
    bool json = false;
};

void run_command(const Context& ctx, const RunCommandOptions& opt) {
    const SignalGuard signals; // SIGINT/SIGTERM: stop tasks, remove cgroups, then exit
    // Without the module a run has no counter deltas; a module speaking another ABI is
    // refused before anything starts, as by every command that reads debugfs.
    if (const auto client = ctx.client(); client.availability() == Availability::available) {
        client.require_module();
    }
    RunSession session(ctx, opt.run);
    const auto outcome = session.run_once();
    RunReport report;
    report.workload = opt.run.workload.name;
    report.parameters = run_parameters(opt.run, session.workload());
    report.seconds = outcome.measurement.seconds;
    report.task_ops_per_sec = outcome.measurement.task_ops_per_sec;
    report.total_ops_per_sec = outcome.measurement.total_ops_per_sec;
    report.counter_deltas = outcome.counter_deltas;
    if (outcome.counter_deltas) {
        report.derived = derive(*outcome.counter_deltas, outcome.measurement.seconds);
    }
    make_output(pick_format(opt.json), ctx.env.out)->run(report);
}

} // namespace

Command add_run_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("run", "run a workload in fresh cgroups and measure it");
    auto opt = std::make_shared<RunCommandOptions>();
    sub->add_option("WORKLOAD", opt->run.workload.name, "the workload")
        ->required()
        ->check(CLI::IsMember(workload_names()));
    add_run_options(*sub, opt->run);
    sub->add_flag("--json", opt->json, "print a JSON object");
    return {sub, [&ctx, opt] { run_command(ctx, *opt); }};
}

} // namespace memcg_statctl
