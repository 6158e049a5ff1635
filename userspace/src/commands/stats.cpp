// `stats`: the module's counters with derived values, once or as per-interval rates.
#include <fmt/ostream.h>

#include "commands/cli.h"
#include "commands/openmetrics.h"
#include "debugfs/counters.h"
#include "run/environment.h"

namespace memcg_statctl {
namespace {

struct StatsOptions {
    bool json = false;
    double watch = 0; // seconds between samples; 0 = print once
    int count = 0;    // intervals to print with --watch; 0 = until interrupted
    OpenMetricsOptions openmetrics;
};

IntervalReport make_interval(int index, double requested, double seconds, const Counters& before,
                             const Counters& after) {
    IntervalReport r;
    r.index = index;
    r.timestamp = utc_timestamp();
    r.requested = requested;
    r.seconds = seconds;
    const auto delta = Counters::delta(before, after);
    for (const auto& [name, value] : delta.entries()) {
        // A maximum (flush.ns_max) is a value, never a rate.
        r.rates.push_back(
            {name, value,
             Counters::is_maximum(name)
                 ? std::nullopt
                 : std::optional(seconds > 0 ? static_cast<double>(value) / seconds : 0.0)});
    }
    r.derived = derive(delta, seconds);
    return r;
}

void run_stats(const Context& ctx, const StatsOptions& opt) {
    if (opt.openmetrics.wanted()) {
        run_openmetrics(ctx, opt.openmetrics); // up 0 without the module: no require_module()
        return;
    }
    const auto client = ctx.client();
    client.require_module();
    const auto output = make_output(pick_format(opt.json), ctx.env.out);
    if (opt.watch <= 0) {
        // Totals since load or the last reset: no time base, so no per-second values.
        StatsReport report{client.stats(), {}};
        report.derived = derive(report.counters, std::nullopt);
        output->stats(report);
        return;
    }
    auto before = client.stats();
    auto t_before = ctx.env.now();
    for (int i = 1; opt.count == 0 || i <= opt.count; ++i) {
        ctx.env.sleep(opt.watch);
        auto after = client.stats();
        const auto t_after = ctx.env.now();
        // Measured, not nominal, interval: sleeping and reading take time too.
        output->interval(make_interval(i, opt.watch, t_after - t_before, before, after));
        ctx.env.out.flush();
        before = std::move(after);
        t_before = t_after;
    }
}

// As perf stat -I: no interval under 10 ms, where reading `stats` would be
// most of what is measured. Non-numbers are positive<double>()'s to report.
CLI::Validator at_least_10ms() {
    return {[](const std::string& s) -> std::string {
                double value = 0;
                if (option_checks_detail::parse(s, value) != option_checks_detail::Parsed::ok) {
                    return {};
                }
                return value >= 0.01 ? std::string() : "must be at least 0.01 (10 ms)";
            },
            "", "at_least_10ms"};
}

} // namespace

Command add_stats_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("stats", "counters and derived values (hit %, ns/flush)");
    auto opt = std::make_shared<StatsOptions>();
    sub->add_flag("--json", opt->json, "print JSON (one object per interval with --watch)");
    auto* watch =
        sub->add_option(
               "--watch", opt->watch,
               "print per-second rates every SEC (at least 0.01; a maximum is shown as its value)")
            ->type_name("SEC")
            ->check(positive<double>())
            ->check(at_least_10ms());
    sub->add_option("--count", opt->count, "stop after N intervals")
        ->type_name("N")
        ->check(positive<int>())
        ->needs(watch);
    add_openmetrics_options(*sub, opt->openmetrics);
    return {sub, [&ctx, opt] { run_stats(ctx, *opt); }};
}

} // namespace memcg_statctl
