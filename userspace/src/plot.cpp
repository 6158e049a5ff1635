#include "memcg_statctl/plot.h"

#include <cstdio>
#include <sys/wait.h>

#include <fmt/format.h>

#include "memcg_statctl/exit_code.h"

namespace memcg_statctl {
namespace {

// gnuplot string literal in single quotes: only the quote itself needs doubling.
std::string quoted(const std::string& s) {
    std::string q = "'";
    for (const char c : s) {
        q += c;
        if (c == '\'') {
            q += '\'';
        }
    }
    return q + "'";
}

} // namespace

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

std::string gnuplot_script(const ComparisonReport& report, const std::filesystem::path& file) {
    std::string s;
    // noenhanced: knob names are full of '_', which enhanced text would print as subscripts.
    s += plot_format_for(file) == PlotFormat::svg
             ? "set terminal svg size 800,500 dynamic noenhanced\n"
             : "set terminal pngcairo size 800,500 noenhanced\n";
    s += fmt::format("set output {}\n", quoted(file.string()));
    s += fmt::format(
        "set title {}\n",
        quoted(fmt::format("{} {} by {}", report.workload,
                           report.unit.empty() ? report.metric : report.unit, report.knob)));
    s += fmt::format("set xlabel {}\nset ylabel {}\n", quoted(report.knob),
                     quoted(report.unit.empty() ? report.metric : report.unit));
    s += "set yrange [0:*]\nset grid ytics\nset key off\n"
         "set style fill solid 0.5 border -1\nset boxwidth 0.6\n";
    // Inline data block: index, label, mean, stddev.
    s += "$data << EOD\n";
    for (std::size_t i = 0; i < report.rows.size(); ++i) {
        const auto& r = report.rows[i];
        s += fmt::format("{} \"{}\" {:.6g} {:.6g}\n", i, r.value, r.summary.mean, r.summary.stddev);
    }
    s += "EOD\n";
    s += "plot $data using 1:3:xtic(2) with boxes, '' using 1:3:4 with yerrorbars lc rgb "
         "'black' pt -1\n";
    return s;
}

void write_plot(const ComparisonReport& report, const std::filesystem::path& file) {
    const auto script = gnuplot_script(report, file);
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

} // namespace memcg_statctl
