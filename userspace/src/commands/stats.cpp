// `stats`: the module's counters with derived values (once: with the charge stock events by
// cgroup, `stock_by_cgroup`), or as per-interval rates; or,
// with --openmetrics, the same as Prometheus metrics on stdout, and with --textfile-dir DIR
// [--interval S] written atomically to DIR/memcg_statctl.prom every S seconds for
// node_exporter's textfile collector, until SIGINT or SIGTERM. The metrics report
// memcg_statctl_up 0 while the module's files cannot be read; the textfile mode keeps running
// across unload and reload.
#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

#include <fmt/ostream.h>

#include "cgroup/hierarchy.h"
#include "commands/cli.h"
#include "debugfs/counters.h"
#include "output/openmetrics.h"
#include "run/environment.h"
#include "run/signal_guard.h"
#include "text_util.h"
#include "top/top.h"

namespace memcg_statctl {
namespace {

struct OpenMetricsOptions {
    bool print = false;       // --openmetrics
    std::string textfile_dir; // --textfile-dir; empty: none
    double interval = 15;     // --interval, seconds
    bool wanted() const { return print || !textfile_dir.empty(); }
};

// What the module's files say now; `problem` says why they could not be read ("" if up).
MetricsSnapshot read_snapshot(const DebugfsClient& client, const std::string& kernel,
                              std::string& problem) {
    MetricsSnapshot s;
    s.kernel = kernel;
    problem.clear();
    if (const auto a = client.availability(); a != Availability::available) {
        problem = availability_message(a, client.root());
        return s;
    }
    try {
        client.require_module();
        s.version = client.version();
        s.counters = client.stats();
        // Totals: no time base, as stats --json. No percentiles: Prometheus' own
        // histogram_quantile() makes them from the histogram below.
        s.derived = derive(s.counters, std::nullopt);
        const auto ns_total = s.counters.get("flush.ns_total");
        if (const auto latency = client.flush_latency(); latency && ns_total) {
            s.flush_latency = flush_duration_histogram(*latency, *ns_total);
        }
        s.flush_reasons = client.flush_reasons();
        for (const auto& name : client.knob_names()) {
            s.knobs.emplace_back(name, client.read_knob(name));
        }
    } catch (const ToolError& e) {
        // Unloaded while being read, another ABI, a malformed file: no partial values.
        problem = e.what();
        MetricsSnapshot down;
        down.kernel = kernel;
        return down;
    }
    s.up = true;
    return s;
}

void run_textfile(const Context& ctx, const OpenMetricsOptions& opt, const std::string& kernel) {
    const std::filesystem::path dir = opt.textfile_dir;
    // The directory must exist and take a new file: a usage error (exit 2) otherwise,
    // before anything is written.
    if (const auto problem = directory_problem(dir); !problem.empty()) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--textfile-dir {}: {}", dir.string(), problem));
    }
    const auto client = ctx.client();
    const SignalGuard signals; // SIGINT/SIGTERM end the loop below, then exit 0
    clear_stop_signal();
    bool said_down = false; // stderr last said the module is unreadable
    while (stop_signal() == 0) {
        const double start = ctx.env.now();
        std::string problem;
        const auto snapshot = read_snapshot(client, kernel, problem);
        if (problem.empty() == said_down) {
            // Once per change of memcg_statctl_up, not per interval: a long
            // unload is one line, whichever file a read happened to miss.
            fmt::print(ctx.env.err, "memcg-statctl: {}\n",
                       problem.empty() ? "module readable again; memcg_statctl_up 1"
                                       : problem + "; memcg_statctl_up 0");
            ctx.env.err.flush();
            said_down = !problem.empty();
        }
        try {
            write_textfile_atomically(dir, format_metrics(snapshot));
        } catch (...) {
            std::error_code ec;
            std::filesystem::remove(dir / textfile_name, ec); // no stale values left behind
            clear_stop_signal();
            throw;
        }
        sleep_until_or_stopped(ctx.env, start + opt.interval);
    }
    clear_stop_signal();
    // Gone rather than stale: node_exporter would serve the last values for ever.
    std::error_code ec;
    std::filesystem::remove(dir / textfile_name, ec);
}

// Adds --openmetrics, --textfile-dir and --interval to `stats`; they exclude its --json,
// --csv and --watch, which must already be there.
void add_openmetrics_options(CLI::App& stats, OpenMetricsOptions& opt) {
    auto* print = stats.add_flag("--openmetrics", opt.print,
                                 "print counters, derived values and knobs as Prometheus metrics "
                                 "(memcg_statctl_up 0 without the module)");
    auto* dir = stats
                    .add_option("--textfile-dir", opt.textfile_dir,
                                "write those metrics to DIR/memcg_statctl.prom every --interval "
                                "seconds (atomically, for node_exporter's textfile collector) "
                                "until SIGINT or SIGTERM")
                    ->type_name("DIR");
    stats
        .add_option("--interval", opt.interval,
                    "seconds between writes of --textfile-dir (at least 0.1; default 15)")
        ->type_name("S")
        ->check(positive<double>())
        ->check(at_least_seconds(min_refresh_interval, "0.1 (100 ms)"))
        ->needs(dir);
    for (const auto* other : {"--json", "--csv", "--watch"}) {
        if (auto* o = stats.get_option_no_throw(other)) {
            print->excludes(o);
            dir->excludes(o);
        }
    }
}

void run_openmetrics(const Context& ctx, const OpenMetricsOptions& opt) {
    const auto kernel = current_environment(nullptr).kernel;
    if (!opt.textfile_dir.empty()) {
        run_textfile(ctx, opt, kernel);
        return;
    }
    std::string problem;
    const auto snapshot = read_snapshot(ctx.client(), kernel, problem);
    ctx.env.out << format_metrics(snapshot);
    ctx.env.out.flush();
    if (!problem.empty() && ctx.client().availability() == Availability::available) {
        // The files are there but unusable (another ABI, malformed): a failure, as for stats.
        throw ToolError(problem);
    }
}

struct StatsOptions {
    FormatFlags format;
    double watch = 0; // seconds between samples; 0 = print once
    int count = 0;    // intervals to print with --watch; 0 = until SIGINT or SIGTERM
    OpenMetricsOptions openmetrics;
    std::string cgroup_mount; // empty: the cgroup2 mount of /proc/self/mounts
};

// The paths of the cgroups `stock_by_cgroup` lists, as `top` names them: by walking the
// cgroup2 mount (none without one).
std::map<std::uint64_t, std::string> stock_cgroup_paths(const StockAttribution& a,
                                                        const std::string& mount_option) {
    if (a.cgroups.empty()) {
        return {};
    }
    auto mount = mount_option.empty() ? find_cgroup2_mount(read_file("/proc/self/mounts"))
                                      : std::optional<std::filesystem::path>(mount_option);
    return mount ? cgroup_paths_by_id(*mount) : std::map<std::uint64_t, std::string>{};
}

IntervalReport make_interval(int index, double requested, double seconds,
                             const ModuleSample& before, const ModuleSample& after) {
    IntervalReport r;
    r.index = index;
    r.timestamp = utc_timestamp();
    r.requested = requested;
    r.seconds = seconds;
    const auto delta = Counters::delta(before.counters, after.counters);
    r.flush_latency = histogram_delta(before.latency, after.latency);
    r.flush_reasons = reasons_delta(before.reasons, after.reasons);
    for (const auto& [name, value] : delta.entries()) {
        // A maximum (flush.ns_max) is a value, never a rate.
        r.rates.push_back(
            {name, value,
             Counters::is_maximum(name)
                 ? std::nullopt
                 : std::optional(seconds > 0 ? static_cast<double>(value) / seconds : 0.0)});
    }
    r.derived = derive(delta, seconds, r.flush_latency);
    return r;
}

void run_stats(const Context& ctx, const StatsOptions& opt) {
    if (opt.openmetrics.wanted()) {
        run_openmetrics(ctx, opt.openmetrics); // up 0 without the module: no require_module()
        return;
    }
    const auto client = ctx.client();
    client.require_module();
    const auto output = make_output(opt.format.format(), ctx.env.out);
    if (opt.watch <= 0) {
        // Totals since load or the last reset: no time base, so no per-second values.
        StatsReport report;
        report.counters = client.stats();
        report.flush_latency = client.flush_latency();
        report.flush_reasons = client.flush_reasons();
        report.stock_attribution = client.stock_attribution();
        if (report.stock_attribution) {
            report.cgroup_paths = stock_cgroup_paths(*report.stock_attribution, opt.cgroup_mount);
        }
        report.derived = derive(report.counters, std::nullopt, report.flush_latency);
        output->stats(report);
        return;
    }
    // SIGINT/SIGTERM end the watch with exit 0 after the last whole interval: one cut short
    // is not printed, and a line being written is finished (mmtests stops its monitors so).
    const SignalGuard signals;
    clear_stop_signal();
    auto before = read_module_sample(client);
    auto t_before = ctx.env.now();
    for (int i = 1; (opt.count == 0 || i <= opt.count) && stop_signal() == 0; ++i) {
        if (!sleep_until_or_stopped(ctx.env, t_before + opt.watch)) {
            break;
        }
        auto after = read_module_sample(client);
        const auto t_after = ctx.env.now();
        // Measured, not nominal, interval: sleeping and reading take time too.
        output->interval(make_interval(i, opt.watch, t_after - t_before, before, after));
        ctx.env.out.flush();
        before = std::move(after);
        t_before = t_after;
    }
    clear_stop_signal();
}

} // namespace

Command add_stats_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("stats", "counters and derived values (hit %, ns/flush)");
    auto opt = std::make_shared<StatsOptions>();
    add_format_flags(*sub, opt->format, "print JSON (one object per interval with --watch)");
    auto* watch =
        sub->add_option(
               "--watch", opt->watch,
               "print per-second rates every SEC (at least 0.01; a maximum is shown as its value)")
            ->type_name("SEC")
            ->check(positive<double>())
            // As perf stat -I: no interval under 10 ms, where reading `stats` would be
            // most of what is measured.
            ->check(at_least_seconds(0.01, "0.01 (10 ms)"));
    sub->add_option("-n,--count", opt->count, "stop after N intervals")
        ->type_name("N")
        ->check(positive<int>())
        ->needs(watch);
    add_openmetrics_options(*sub, opt->openmetrics);
    sub->add_option("--cgroup-mount", opt->cgroup_mount,
                    "the cgroup2 mount whose directories name the cgroups of the stock table "
                    "(default: the one in /proc/self/mounts)")
        ->type_name("DIR")
        ->check(existing_directory());
    return {sub, [&ctx, opt] { run_stats(ctx, *opt); }};
}

} // namespace memcg_statctl
