#include "output/plot.h"

#include <fmt/format.h>

#include "compare/table.h"

namespace memcg_statctl {
namespace {

// gnuplot reads NaN as a missing value: a file without the value gets no bar.
std::string data_cell(const std::optional<CompareCell>& c) {
    if (!c) {
        return "NaN NaN";
    }
    return fmt::format("{:.6g} {:.6g}", c->mean, c->stddev.value_or(0));
}

std::string section_plot(const CompareTable& t, const CompareSection& sec, std::size_t index) {
    const auto figure = sec.unit.empty() ? sec.metric : sec.unit;
    auto s = fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n",
                         gnuplot_quoted(fmt::format("{} {}{}{}", sec.workload, figure,
                                                    sec.knob.empty() ? "" : " by ", sec.knob)),
                         gnuplot_quoted(sec.knob), gnuplot_quoted(figure));
    s += fmt::format("$data{} << EOD\n", index);
    for (const auto& row : sec.rows) {
        if (row.metric != sec.metric) {
            continue;
        }
        // The label in double quotes for gnuplot's data reader.
        auto line = fmt::format("\"{}\"", row.value.empty() ? "-" : row.value);
        for (const auto& c : row.cells) {
            line += " " + data_cell(c);
        }
        s += line + "\n";
    }
    s += "EOD\nplot ";
    for (std::size_t i = 0; i < t.files.size(); ++i) {
        const auto& f = t.files[i];
        const auto title =
            fmt::format("[{}] {}{}{}", i + 1, f.kernel, f.host.empty() ? "" : " on ", f.host);
        s += fmt::format("{}{} using {}:{}{} title {}", i == 0 ? "" : ", ",
                         i == 0 ? fmt::format("$data{}", index) : "''", 2 * i + 2, 2 * i + 3,
                         i == 0 ? ":xtic(1)" : "", gnuplot_quoted(title));
    }
    return s + "\n";
}

} // namespace

std::string compare_gnuplot_script(const CompareTable& t, const std::filesystem::path& file) {
    const auto sections = static_cast<int>(t.sections.size());
    auto s = gnuplot_output(file, 900, 450 * sections);
    s += "set yrange [0:*]\nset grid ytics\nset key outside right top\n"
         "set style data histogram\nset style histogram errorbars gap 1 lw 1\n"
         "set style fill solid 0.5 border -1\n";
    if (sections > 1) {
        s += fmt::format("set multiplot layout {},1\n", sections);
    }
    for (std::size_t i = 0; i < t.sections.size(); ++i) {
        s += section_plot(t, t.sections[i], i);
    }
    if (sections > 1) {
        s += "unset multiplot\n";
    }
    return s;
}

} // namespace memcg_statctl
