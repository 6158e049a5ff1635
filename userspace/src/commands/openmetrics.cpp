#include "commands/openmetrics.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include <fmt/ostream.h>

#include "output/openmetrics.h"
#include "run/environment.h"
#include "run/signal_guard.h"

namespace memcg_statctl {
namespace {

// Short enough to be live for node_exporter, long enough that reading the module's files
// stays a negligible part of the machine's work.
constexpr double min_interval = 0.1;
// The longest sleep between checks for SIGINT/SIGTERM: how quickly the textfile mode stops.
constexpr double stop_poll = 0.1;

CLI::Validator at_least_min_interval() {
    return {[](const std::string& s) -> std::string {
                double value = 0;
                if (option_checks_detail::parse(s, value) != option_checks_detail::Parsed::ok) {
                    return {}; // positive<double>() reports it
                }
                return value >= min_interval ? std::string() : "must be at least 0.1 (100 ms)";
            },
            "", "at_least_min_interval"};
}

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
        s.derived = derive(s.counters, std::nullopt); // totals: no time base, as stats --json
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

// The directory must exist and take a new file: a usage error (exit 2) otherwise, before
// anything is written.
void check_textfile_dir(const std::filesystem::path& dir) {
    std::error_code ec;
    const auto status = std::filesystem::status(dir, ec);
    if (!std::filesystem::exists(status)) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--textfile-dir {}: no such directory", dir.string()));
    }
    if (!std::filesystem::is_directory(status)) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--textfile-dir {}: not a directory", dir.string()));
    }
    // access() says yes to root on a read-only file system: try a file instead.
    std::string probe = (dir / ".memcg_statctl.probe.XXXXXX").string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0) {
        throw ToolError(ExitCode::usage, fmt::format("--textfile-dir {}: not writable ({})",
                                                     dir.string(), std::strerror(errno)));
    }
    ::close(fd);
    ::unlink(probe.c_str());
}

void run_textfile(const Context& ctx, const OpenMetricsOptions& opt, const std::string& kernel) {
    const std::filesystem::path dir = opt.textfile_dir;
    check_textfile_dir(dir);
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
        while (stop_signal() == 0) {
            const double left = start + opt.interval - ctx.env.now();
            if (left <= 0) {
                break;
            }
            ctx.env.sleep(std::min(left, stop_poll));
        }
    }
    clear_stop_signal();
    // Gone rather than stale: node_exporter would serve the last values for ever.
    std::error_code ec;
    std::filesystem::remove(dir / textfile_name, ec);
}

} // namespace

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
        ->check(at_least_min_interval())
        ->needs(dir);
    for (const auto* other : {"--json", "--watch"}) {
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

} // namespace memcg_statctl
