// Sweep plots through gnuplot (piped a script): mean ops/s per knob value with stddev
// error bars. SVG or PNG, chosen by the output file's extension.
#pragma once

#include <filesystem>
#include <string>

#include "memcg_statctl/reports.h"

namespace memcg_statctl {

enum class PlotFormat { svg, png };

// Throws ToolError(usage) for an extension other than .svg or .png.
PlotFormat plot_format_for(const std::filesystem::path& file);

std::string gnuplot_script(const ComparisonReport& report, const std::filesystem::path& file);

// Runs `gnuplot` with the script on its stdin; throws ToolError if it fails.
void write_plot(const ComparisonReport& report, const std::filesystem::path& file);

} // namespace memcg_statctl
