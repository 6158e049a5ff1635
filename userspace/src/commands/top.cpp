// `top`: a refreshing screen, as systemd-cgtop's, of each cgroup's stat updates no flush has
// folded in yet (the module's `pending`), its charge stock misses and drains of each interval
// (`stock_by_cgroup`, while the knob stock_attribution is 1) and the flush requests of each
// interval by reason; with --json, or when stdout is no terminal, one JSON object per line
// instead. Reading `pending` takes no rstat lock and flushes nothing (module/ABI.md).
#include "top/top.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/ostream.h>

#include "cgroup/backend.h"
#include "cgroup/hierarchy.h"
#include "commands/cli.h"
#include "run/environment.h"
#include "run/signal_guard.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

struct TopOptions {
    double interval = 1; // seconds between refreshes
    std::string sort = "pending";
    std::size_t limit = 0; // rows; 0: as many as the terminal has lines (all for JSON)
    int count = 0;         // refreshes; 0: until SIGINT or SIGTERM
    bool json = false;
    std::string cgroup_mount; // empty: the cgroup2 mount of /proc/self/mounts
};

// Refreshes between walks of the cgroup tree when every listed cgroup already has a name:
// how long a renamed cgroup may keep its old one.
constexpr int rewalk_every = 10;

struct Terminal {
    bool tty = false;
    std::size_t rows = 0;
    std::size_t cols = 0;
};

Terminal stdout_terminal() {
    Terminal t;
    t.tty = ::isatty(STDOUT_FILENO) == 1;
    winsize ws{};
    if (t.tty && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
        t.rows = ws.ws_row;
        t.cols = ws.ws_col;
    }
    return t;
}

std::filesystem::path cgroup2_mount(const std::string& option) {
    if (!option.empty()) {
        return option; // checked when parsed
    }
    const auto mount = find_cgroup2_mount(read_file("/proc/self/mounts"));
    if (!mount) {
        throw ToolError("no cgroup v2 file system is mounted: `top` names cgroups by their "
                        "directories under it (mount -t cgroup2 none /sys/fs/cgroup)");
    }
    return *mount;
}

void run_top(const Context& ctx, const TopOptions& opt) {
    const auto client = ctx.client();
    client.require_module();
    const auto sort = parse_top_sort(opt.sort).value_or(TopSort::pending); // checked by CLI11
    if (!client.pending()) {
        throw ToolError(fmt::format("the module has no `{}` file: this kernel's counts of "
                                    "unflushed updates were not found (version: pending "
                                    "missing; the kernel log says why)",
                                    pending_file));
    }
    const auto mount = cgroup2_mount(opt.cgroup_mount);
    const auto term = stdout_terminal();
    const bool screen = term.tty && !opt.json;
    const SignalGuard signals;
    clear_stop_signal();
    auto reasons_before = client.flush_reasons();
    auto stock_before = client.stock_attribution();
    double t_before = ctx.env.now();
    std::map<std::uint64_t, std::string> paths; // cgroup names by id, from the last walk
    int walked_at = -rewalk_every;
    for (int i = 0; (opt.count == 0 || i < opt.count) && stop_signal() == 0; ++i) {
        if (i > 0 && !sleep_until_or_stopped(ctx.env, t_before + opt.interval)) {
            break;
        }
        client.require_still_module();
        TopFrame f;
        f.timestamp = utc_timestamp();
        f.page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
        auto pending = client.pending();
        if (!pending) {
            throw ToolError("the module's `pending` file disappeared");
        }
        const auto reasons_after = client.flush_reasons();
        const auto stock_after = client.stock_attribution();
        const double t_after = ctx.env.now();
        f.pending = std::move(*pending);
        if (client.is_knob("flush_mode")) {
            f.flush_mode = client.read_knob("flush_mode");
        }
        f.seconds = i > 0 ? t_after - t_before : 0;
        f.reasons = i > 0 ? reasons_delta(reasons_before, reasons_after) : reasons_after;
        if (f.reasons && i == 0) {
            // Totals since load are no interval: the first frame counts from now.
            for (auto& c : f.reasons->classes) {
                c.requests = c.performed = 0;
            }
        }
        if (stock_after) {
            f.stock = i > 0 && stock_before ? attribution_delta(*stock_before, *stock_after)
                                            : attribution_zeroed(*stock_after);
        }
        // A new cgroup is named at once; a renamed one within rewalk_every refreshes.
        if (i - walked_at >= rewalk_every ||
            !names_every_cgroup(f.pending, paths, f.stock ? &*f.stock : nullptr)) {
            paths = cgroup_paths_by_id(mount);
            walked_at = i;
        }
        const auto all = top_rows(f.pending, paths, sort, 0, f.stock);
        f.cgroups = all.size();
        // On a screen: what fits under the header (7 lines) unless --limit says otherwise.
        const std::size_t fit = term.rows > 8 ? term.rows - 8 : 0;
        const std::size_t limit = opt.limit > 0 ? opt.limit : (screen ? fit : 0);
        f.rows = limit > 0 && all.size() > limit
                     ? std::vector<TopRow>(all.begin(), all.begin() + static_cast<long>(limit))
                     : all;
        if (screen) {
            // Home and clear, then the frame: one write, so the screen never shows half.
            ctx.env.out << "\x1b[H\x1b[2J" << top_screen(f, term.cols);
        } else {
            ctx.env.out << top_json_line(f);
        }
        ctx.env.out.flush();
        reasons_before = reasons_after;
        stock_before = stock_after;
        t_before = t_after;
    }
    clear_stop_signal();
}

} // namespace

Command add_top_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand(
        "top", "live, per cgroup: stat updates no flush has folded in yet, charge stock misses "
               "and drains; flushes by reason");
    auto opt = std::make_shared<TopOptions>();
    sub->add_option("-d,--interval", opt->interval, "seconds between refreshes (default 1)")
        ->type_name("SEC")
        ->check(positive<double>())
        ->check(at_least_seconds(min_refresh_interval, "0.1 (100 ms)"));
    sub->add_option("-s,--sort", opt->sort,
                    fmt::format("order the cgroups by {} (default pending)", top_sort_names))
        ->type_name("KEY")
        ->check(CLI::Validator(
            [](const std::string& v) -> std::string {
                return parse_top_sort(v) ? std::string()
                                         : fmt::format("must be {}", top_sort_names);
            },
            "", "top_sort"));
    sub->add_option("--limit", opt->limit,
                    "show at most N cgroups (default: what fits the terminal; all in JSON)")
        ->type_name("N")
        ->check(positive<std::size_t>());
    sub->add_option("-n,--count", opt->count, "stop after N refreshes (default: until SIGINT)")
        ->type_name("N")
        ->check(positive<int>());
    sub->add_option("--cgroup-mount", opt->cgroup_mount,
                    "the cgroup2 mount whose directories name the cgroups (default: the one "
                    "in /proc/self/mounts)")
        ->type_name("DIR")
        ->check(existing_directory());
    sub->add_flag("--json", opt->json,
                  "print one JSON object per refresh, one per line (also when stdout is no "
                  "terminal)");
    return {sub, [&ctx, opt] { run_top(ctx, *opt); }};
}

} // namespace memcg_statctl
