// The formats of `compare` (table.h): the text table, the JSON document, long-form CSV and
// the gnuplot script.
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "compare/table.h"
#include "output/output.h"
#include "output/plot.h"
#include "text_util.h"

namespace memcg_statctl {

// The text table: mmtests compare-kernels' shape.

namespace {

using Align = TextTable::Align;

std::string or_dash(const std::string& s) {
    return s.empty() ? std::string("-") : s;
}

// The runs behind a file's figure: the most of any knob value.
std::string runs_of(const CompareSection& sec, std::size_t file) {
    std::size_t n = 0;
    for (const auto& row : sec.rows) {
        if (row.metric == sec.metric && row.cells[file]) {
            n = std::max(n, row.cells[file]->n);
        }
    }
    return n == 0 ? std::string("-") : std::to_string(n);
}

// compare-kernels' cells: "1234.56 (  +5.30%)", stars instead of brackets when significant.
std::pair<std::string, std::string> cell_text(const std::optional<CompareCell>& c, bool baseline) {
    if (!c) {
        return {"-", ""};
    }
    const auto mean = fmt::format("{:.2f}", c->mean);
    if (baseline) {
        return {mean, "(   0.00%)"};
    }
    if (!c->percent_change) {
        return {mean, ""};
    }
    const auto pct = fmt::format("{:+7.2f}%", *c->percent_change);
    return {mean, c->significant ? "*" + pct + "*" : "(" + pct + ")"};
}

void print_section(std::ostream& out, const CompareTable& t, const CompareSection& sec) {
    const auto figure =
        sec.unit.empty() ? sec.metric : fmt::format("{} ({})", sec.metric, sec.unit);
    fmt::print(out, "\n{} {}{}{}\n", sec.workload, figure, sec.knob.empty() ? "" : " by ",
               sec.knob);
    const auto files = t.files.size();
    std::vector<Align> aligns{Align::left, Align::left};
    for (std::size_t i = 0; i < files; ++i) {
        aligns.push_back(Align::right);
        aligns.push_back(Align::left);
    }
    TextTable table(aligns);
    const auto header = [&](const std::string& name, const auto& cell) {
        std::vector<std::string> cells{name, ""};
        for (std::size_t i = 0; i < files; ++i) {
            cells.push_back(cell(i));
            cells.emplace_back();
        }
        table.row(cells);
    };
    header("", [](std::size_t i) { return fmt::format("[{}]", i + 1); });
    header("host", [&](std::size_t i) { return or_dash(t.files[i].host); });
    header("kernel", [&](std::size_t i) { return t.files[i].kernel; });
    header("module", [&](std::size_t i) { return or_dash(t.files[i].module_version); });
    header("cpus", [&](std::size_t i) { return std::to_string(t.files[i].cpus); });
    header("runs", [&](std::size_t i) { return runs_of(sec, i); });
    for (const auto& row : sec.rows) {
        std::vector<std::string> cells{row.metric, or_dash(row.value)};
        for (std::size_t i = 0; i < files; ++i) {
            auto [mean, pct] = cell_text(row.cells[i], i == 0);
            cells.push_back(std::move(mean));
            cells.push_back(std::move(pct));
        }
        table.row(cells);
    }
    table.print(out);
}

} // namespace

void print_compare_text(std::ostream& out, const CompareTable& t) {
    for (std::size_t i = 0; i < t.files.size(); ++i) {
        const auto& f = t.files[i];
        fmt::print(out, "[{}] {}{}\n", i + 1, f.source,
                   f.complete ? "" : " (stopped before the end)");
    }
    if (!t.differences.empty()) {
        fmt::print(out, "\nThe files differ (compared anyway):\n{}",
                   describe_differences(t.files, t.differences));
    }
    for (const auto& sec : t.sections) {
        print_section(out, t, sec);
    }
    fmt::print(out, "\nMeans per run; %change against [1]; *%* where Welch's t-test gives "
                    "p < 0.05 (needs 2 runs or more in both files).\n");
}

// The JSON document.

namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json optional_json(const std::optional<T>& v) {
    return v ? Json(*v) : Json(nullptr);
}

Json file_json(const ResultsDocument& f) {
    return {{"file", f.source},
            {"schema", f.schema},
            {"schema_version", f.schema_version},
            {"experiment", f.experiment.empty() ? Json(nullptr) : Json(f.experiment)},
            {"host", f.host.empty() ? Json(nullptr) : Json(f.host)},
            {"kernel", f.kernel},
            {"module_version", f.module_version.empty() ? Json(nullptr) : Json(f.module_version)},
            {"tool_version", f.tool_version},
            {"cpus", f.cpus},
            {"memory_bytes", f.memory_bytes},
            {"complete", f.complete}};
}

Json cell_json(const std::optional<CompareCell>& c) {
    if (!c) {
        return nullptr;
    }
    return {{"n", c->n},
            {"mean", c->mean},
            {"stddev", optional_json(c->stddev)},
            {"percent_change", optional_json(c->percent_change)},
            {"p_value", optional_json(c->p_value)},
            {"significant", c->significant}};
}

} // namespace

Json compare_json(const CompareTable& t) {
    Json files = Json::array();
    for (const auto& f : t.files) {
        files.push_back(file_json(f));
    }
    Json differences = Json::array();
    for (const auto& d : t.differences) {
        differences.push_back({{"file", t.files[d.file].source},
                               {"field", d.field},
                               {"value", d.value},
                               {"baseline", d.baseline}});
    }
    Json series = Json::array();
    for (const auto& sec : t.sections) {
        Json rows = Json::array();
        for (const auto& row : sec.rows) {
            Json cells = Json::array();
            for (const auto& c : row.cells) {
                cells.push_back(cell_json(c));
            }
            rows.push_back({{"metric", row.metric}, {"value", row.value}, {"files", cells}});
        }
        series.push_back({{"workload", sec.workload},
                          {"knob", sec.knob},
                          {"metric", sec.metric},
                          {"unit", sec.unit},
                          {"rows", rows}});
    }
    return {{"schema", "memcg-statctl/compare"},
            {"schema_version", 2}, // 2: rows name counters `flush.requests`
            {"files", files},
            {"differences", differences},
            {"series", series}};
}

// Long-form CSV.

namespace {

template <typename T>
std::string number(const std::optional<T>& v) {
    return v ? fmt::format("{:.6g}", static_cast<double>(*v)) : std::string();
}

void line(std::ostream& out, const std::vector<std::string>& cells) {
    std::vector<std::string> quoted;
    quoted.reserve(cells.size());
    for (const auto& c : cells) {
        quoted.push_back(csv_field(c));
    }
    fmt::print(out, "{}\n", fmt::join(quoted, ","));
}

} // namespace

void print_compare_csv(std::ostream& out, const CompareTable& t) {
    line(out, {"series", "workload", "knob", "metric", "value", "file", "host", "kernel", "n",
               "mean", "stddev", "percent_change", "p_value", "significant"});
    for (std::size_t s = 0; s < t.sections.size(); ++s) {
        const auto& sec = t.sections[s];
        for (const auto& row : sec.rows) {
            for (std::size_t i = 0; i < row.cells.size(); ++i) {
                const auto& c = row.cells[i];
                if (!c) {
                    continue;
                }
                const auto& f = t.files[i];
                line(out, {std::to_string(s + 1), sec.workload, sec.knob, row.metric, row.value,
                           f.source, f.host, f.kernel, std::to_string(c->n),
                           number(std::optional<double>(c->mean)), number(c->stddev),
                           number(c->percent_change), number(c->p_value),
                           c->significant ? "true" : "false"});
            }
        }
    }
}

// The gnuplot script.

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
