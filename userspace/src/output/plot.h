// Plots through gnuplot (piped a script): a sweep's mean ops/s per knob value with stddev
// error bars, and the pieces other scripts (the experiments' figures) share. SVG or PNG,
// chosen by the output file's extension.
#pragma once

#include <filesystem>
#include <string>

#include "output/reports.h"

namespace memcg_statctl {

enum class PlotFormat { svg, png };

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

std::string gnuplot_script(const ComparisonReport& report, const std::filesystem::path& file);

// Runs `gnuplot` with `script` on its stdin; throws ToolError naming `file` if it fails.
void run_gnuplot(const std::string& script, const std::filesystem::path& file);

// run_gnuplot(gnuplot_script(report, file), file).
void write_plot(const ComparisonReport& report, const std::filesystem::path& file);

} // namespace memcg_statctl
