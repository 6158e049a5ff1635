#include "output/plot.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

PlotFormat plot_format_for(const std::filesystem::path& file) {
    const auto ext = file.extension().string();
    if (ext == ".svg") {
        return PlotFormat::svg;
    }
    if (ext == ".png") {
        return PlotFormat::png;
    }
    throw ToolError(ExitCode::usage,
                    fmt::format("--plot {}: the file must end in .svg or .png", file.string()));
}

namespace {

// Whether `name` is an executable file in a directory of PATH, as popen's shell finds it.
bool on_path(const std::string& name) {
    const char* path = std::getenv("PATH"); // NOLINT(concurrency-mt-unsafe): no setenv here
    std::string_view rest = path == nullptr ? "" : path;
    while (true) {
        const auto colon = rest.find(':');
        const auto dir = rest.substr(0, colon);
        const auto file = std::filesystem::path(dir.empty() ? "." : std::string(dir)) / name;
        std::error_code ec;
        if (::access(file.c_str(), X_OK) == 0 && !std::filesystem::is_directory(file, ec)) {
            return true;
        }
        if (colon == std::string_view::npos) {
            return false;
        }
        rest.remove_prefix(colon + 1);
    }
}

} // namespace

void check_plot_file(const std::filesystem::path& file) {
    plot_format_for(file);
    require_writable_dir("--plot", file);
    if (!on_path("gnuplot")) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--plot {}: gnuplot is not installed (apt-get install "
                                    "gnuplot-nox)",
                                    file.string()));
    }
}

// In single quotes: only the quote itself needs doubling.
std::string gnuplot_quoted(const std::string& s) {
    std::string q = "'";
    for (const char c : s) {
        q += c;
        if (c == '\'') {
            q += '\'';
        }
    }
    return q + "'";
}

std::string gnuplot_output(const std::filesystem::path& file, int width, int height) {
    const auto terminal = plot_format_for(file) == PlotFormat::svg
                              ? fmt::format("svg size {},{} dynamic", width, height)
                              : fmt::format("pngcairo size {},{}", width, height);
    // utf8: the keys say `±`.
    return fmt::format("set encoding utf8\nset terminal {} noenhanced\nset output {}\n", terminal,
                       gnuplot_quoted(file.string()));
}

std::string error_bars_text(std::size_t min_runs, std::size_t max_runs) {
    if (max_runs < 2) {
        return "no error bars: 1 run per value";
    }
    const auto runs = min_runs == max_runs ? std::to_string(max_runs)
                                           : fmt::format("{} to {}", min_runs, max_runs);
    return fmt::format("error bars: ± 1 sd over {} runs", runs);
}

std::string environment_text(const Environment& e) {
    return fmt::format("kernel {}, host {}, module {}", or_unknown(e.kernel), or_unknown(e.host),
                       or_unknown(e.module_version.value_or("")));
}

std::string tick_label(const std::string& knob, const std::string& value) {
    if (knob.find(',') == std::string::npos) {
        return value;
    }
    std::string s;
    for (const char c : value) {
        s += c == ' ' ? std::string("\\n") : std::string(1, c);
    }
    return s;
}

std::string gnuplot_script(const ComparisonReport& report, const std::filesystem::path& file) {
    const auto figure = report.unit.empty() ? report.metric : report.unit;
    std::size_t min_runs = 0;
    std::size_t max_runs = 0;
    for (const auto& r : report.rows) {
        min_runs = min_runs == 0 ? r.summary.n : std::min(min_runs, r.summary.n);
        max_runs = std::max(max_runs, r.summary.n);
    }
    auto s = gnuplot_output(file, 800, 500);
    // The title's second line: where the figures come from.
    s += fmt::format(
        "set title {} . \"\\n\" . {}\n",
        gnuplot_quoted(fmt::format("{} {} by {}", report.workload, figure, report.knob)),
        gnuplot_quoted(environment_text(report.environment)));
    s += fmt::format("set xlabel {}\nset ylabel {}\n", gnuplot_quoted(report.knob),
                     gnuplot_quoted(figure));
    // The key below the plot, where it covers no bar, one entry a line (a wide key would
    // run off the side), a line's height clear of the x axis label.
    s += "set yrange [0:*]\nset grid ytics\n" + std::string(key_below) +
         "\n"
         "set style fill solid 0.5 border -1\nset boxwidth 0.6\n";
    // Inline data block: index, label, mean, stddev.
    s += "$data << EOD\n";
    for (std::size_t i = 0; i < report.rows.size(); ++i) {
        const auto& r = report.rows[i];
        s += fmt::format("{} \"{}\" {:.6g} {:.6g}\n", i, tick_label(report.knob, r.value),
                         r.summary.mean, r.summary.stddev);
    }
    s += "EOD\n";
    s += fmt::format("plot $data using 1:3:xtic(2) with boxes title {}, '' using 1:3:4 with "
                     "yerrorbars lc rgb 'black' pt 7 ps 0.5 title {}\n",
                     gnuplot_quoted(fmt::format("mean {}", figure)),
                     gnuplot_quoted(error_bars_text(min_runs, max_runs)));
    return s;
}

namespace {

// A gnuplot that is missing, or dies early, closes the pipe before the script is written: the
// write must then fail (EPIPE) and be reported, not kill the tool with SIGPIPE. Blocks SIGPIPE
// in this thread for its lifetime and drops the one the write raised.
class SigpipeBlocked {
public:
    SigpipeBlocked() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    ~SigpipeBlocked() {
        const timespec now{};
        while (sigtimedwait(&pipe_, nullptr, &now) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SigpipeBlocked(const SigpipeBlocked&) = delete;
    SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;
    SigpipeBlocked(SigpipeBlocked&&) = delete;
    SigpipeBlocked& operator=(SigpipeBlocked&&) = delete;

private:
    sigset_t pipe_{};
    sigset_t old_{};
};

} // namespace

void run_gnuplot(const std::string& script, const std::filesystem::path& file) {
    const SigpipeBlocked no_sigpipe;
    FILE* pipe = ::popen("gnuplot", "w"); // NOLINT(cert-env33-c): fixed command, no input
    if (pipe == nullptr) {
        throw ToolError("cannot start gnuplot (apt-get install gnuplot-nox)");
    }
    const bool written = std::fwrite(script.data(), 1, script.size(), pipe) == script.size();
    const int status = ::pclose(pipe);
    if (!written || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        throw ToolError(fmt::format("gnuplot failed to write {} (exit status {}; is "
                                    "gnuplot-nox installed?)",
                                    file.string(), WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    }
}

void write_plot(const ComparisonReport& report, const std::filesystem::path& file) {
    run_gnuplot(gnuplot_script(report, file), file);
}

} // namespace memcg_statctl
