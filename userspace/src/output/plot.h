// Plots through gnuplot (piped a script): a sweep's mean ops/s per knob value with stddev
// error bars, and the pieces other scripts (the experiments' figures) share. SVG or PNG,
// chosen by the output file's extension.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "output/reports.h"

namespace memcg_statctl {

enum class PlotFormat { svg, png };

// The one placeholder of every table and plot for metadata a results file lacks (a host, a
// module version): JSON has null instead.
inline constexpr std::string_view unknown_text = "unknown";

// `s`, or unknown_text when it is empty.
inline std::string or_unknown(const std::string& s) {
    return s.empty() ? std::string(unknown_text) : s;
}

// Throws ToolError(usage) for an extension other than .svg or .png.
PlotFormat plot_format_for(const std::filesystem::path& file);

// Checks before any run what a plot needs (usage errors): the extension, a directory
// that exists and can be written, and gnuplot on PATH.
void check_plot_file(const std::filesystem::path& file);

// The first lines of every script: a terminal by the file's extension (noenhanced: knob
// names are full of '_') and the output file.
std::string gnuplot_output(const std::filesystem::path& file, int width, int height);

// A gnuplot string literal.
std::string gnuplot_quoted(const std::string& s);

// The key of every plot: below it, one entry a line, clear of the x axis label.
inline constexpr std::string_view key_below =
    "set key below center vertical Left reverse samplen 2 height 1";

// What a plot's error bars are: "error bars: ± 1 sd over 3 runs" ("2 to 3 runs" when the
// values have different counts; "no error bars: 1 run per value").
std::string error_bars_text(std::size_t min_runs, std::size_t max_runs);

// "kernel 6.1.0-57-amd64, host box, module 0.1.0" (unknown_text for what is missing).
std::string environment_text(const Environment& e);

// A value as an x tick label inside a gnuplot data string: the value of a sweep of several
// knobs (knob "a,b", value "a=1 b=2") one knob a line, as the whole would not fit below
// its bar.
std::string tick_label(const std::string& knob, const std::string& value);

// A sweep's (or an experiment report's) mean per knob value, stddev error bars, the key
// below the plot saying what the bars are.
std::string gnuplot_script(const ComparisonReport& report, const std::filesystem::path& file);

// Runs `gnuplot` with `script` on its stdin; throws ToolError naming `file` if it fails.
void run_gnuplot(const std::string& script, const std::filesystem::path& file);

// run_gnuplot(gnuplot_script(report, file), file).
void write_plot(const ComparisonReport& report, const std::filesystem::path& file);

} // namespace memcg_statctl
