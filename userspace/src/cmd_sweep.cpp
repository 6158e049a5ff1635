// `sweep`: run a workload for every value of a knob, interleaved, and compare the values.
#include <fmt/ostream.h>

#include "memcg_statctl/comparison.h"
#include "memcg_statctl/plot.h"
#include "memcg_statctl/signal_guard.h"
#include "memcg_statctl/sweep.h"

#include "option_checks.h"
#include "run_session.h"

namespace memcg_statctl {
namespace {

struct SweepOptions {
    RunOptions run;
    std::string knob;
    std::string values;
    int runs = 3;
    bool json = false;
    bool csv = false;
    std::string plot;
};

void run_sweep(const Context& ctx, const SweepOptions& opt) {
    const auto values = parse_sweep_values(opt.values);
    if (!opt.plot.empty()) {
        plot_format_for(opt.plot); // reject a bad extension before hours of runs
    }
    const SignalGuard signals;
    const auto client = ctx.client();
    client.require_module();
    if (!client.is_knob(opt.knob)) {
        throw ToolError(fmt::format("unknown knob `{}` (the module has: {})", opt.knob,
                                    fmt::join(client.knob_names(), ", ")));
    }
    RunSession session(ctx, opt.run);
    std::vector<ValueRuns> results(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        results[i].value = values[i];
    }
    {
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
            const auto outcome = session.run_once();
            auto& r = results[s.value_index];
            r.ops_per_sec.push_back(outcome.measurement.total_ops_per_sec);
            r.seconds.push_back(outcome.measurement.seconds);
            if (outcome.counter_deltas) {
                r.counter_deltas.push_back(*outcome.counter_deltas);
            }
        }
        if (ctx.env.progress_to_terminal) {
            fmt::print(ctx.env.err, "\r\033[K");
        }
    }
    const auto report = compare(opt.knob, opt.run.workload.name, results);
    make_output(pick_format(opt.json, opt.csv), ctx.env.out)->comparison(report);
    if (!opt.plot.empty()) {
        write_plot(report, opt.plot);
    }
}

} // namespace

Command add_sweep_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("sweep", "run a workload for each value of a knob");
    auto opt = std::make_shared<SweepOptions>();
    sub->add_option("--knob", opt->knob, "the knob to vary")->required();
    sub->add_option("--values", opt->values, "comma-separated values; the first is the baseline")
        ->type_name("a,b,c")
        ->required();
    sub->add_option("--workload", opt->run.workload.name, "the workload")
        ->required()
        ->check(CLI::IsMember(workload_names()));
    sub->add_option("--runs", opt->runs, "runs per value (interleaved rounds)")
        ->capture_default_str()
        ->check(positive<int>());
    add_run_options(*sub, opt->run);
    auto* json = sub->add_flag("--json", opt->json, "print JSON");
    auto* csv = sub->add_flag("--csv", opt->csv, "print CSV");
    json->excludes(csv);
    sub->add_option("--plot", opt->plot, "also write an SVG or PNG plot (by extension)")
        ->type_name("FILE");
    return {sub, [&ctx, opt] { run_sweep(ctx, *opt); }};
}

} // namespace memcg_statctl
