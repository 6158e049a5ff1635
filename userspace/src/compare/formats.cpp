// The formats of `compare` (table.h): the text and markdown tables, the JSON document,
// long-form CSV and the gnuplot script.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "compare/table.h"
#include "output/output.h"
#include "output/plot.h"
#include "text_util.h"

namespace memcg_statctl {

// What the text and markdown tables share: the cells, the labels, the summary.

namespace {

using Align = TextTable::Align;

// The runs behind a file's figure: the most of any knob value.
std::size_t runs_of(const CompareSection& sec, std::size_t file) {
    std::size_t n = 0;
    for (const auto& row : sec.rows) {
        if (row.metric == sec.metric && row.cells[file]) {
            n = std::max(n, row.cells[file]->n);
        }
    }
    return n;
}

std::string runs_text(const CompareSection& sec, std::size_t file) {
    const auto n = runs_of(sec, file);
    return n == 0 ? std::string(unknown_text) : std::to_string(n);
}

// "1989.29 ± 102.31"; the mean alone without a spread (one run, or a stated mean).
std::string mean_sd_text(const std::optional<CompareCell>& c) {
    if (!c) {
        return "-";
    }
    return c->stddev ? fmt::format("{:.2f} ± {:.2f}", c->mean, *c->stddev)
                     : fmt::format("{:.2f}", c->mean);
}

// "-71.57% ± 8.20%": the change against the first file and its 95% interval.
std::string change_text(const std::optional<CompareCell>& c) {
    if (!c || !c->percent_change) {
        return "-";
    }
    auto s = fmt::format("{:+.2f}%", *c->percent_change);
    if (c->percent_ci) {
        s += fmt::format(" ± {:.2f}%", *c->percent_ci);
    }
    return s;
}

std::string p_text(const std::optional<double>& p) {
    if (!p) {
        return "";
    }
    return *p < 0.001 ? std::string("<0.001") : fmt::format("{:.3f}", *p);
}

std::string noise_text(const std::optional<CompareCell>& c) {
    return c && c->noise ? "~noise" : "";
}

std::string figure_title(const CompareSection& sec) {
    const auto figure =
        sec.unit.empty() ? sec.metric : fmt::format("{} ({})", sec.metric, sec.unit);
    return fmt::format("{} {}{}{}", sec.workload, figure, sec.knob.empty() ? "" : " by ", sec.knob);
}

std::size_t hidden_rows(const CompareTable& t, bool all) {
    std::size_t n = 0;
    for (const auto& sec : t.sections) {
        n += static_cast<std::size_t>(
            std::count_if(sec.rows.begin(), sec.rows.end(),
                          [&](const CompareRow& row) { return !row_shown(sec, row, all); }));
    }
    return n;
}

// What the columns mean, after the tables.
std::string footnote(const CompareTable& t, bool all) {
    auto s = std::string(
        "mean ± sd: over a file's runs. Δ: the change of the mean against [1], ± the half\n"
        "width of its 95% confidence interval; p: Welch's two-sided t-test; ~noise: the\n"
        "interval holds 0, the runs' spread is as large as the change. ± and p are empty\n"
        "where a file has fewer than 2 runs or states only a mean (an experiment's counters).\n");
    if (const auto hidden = hidden_rows(t, all)) {
        s += fmt::format("{} row{} equal to [1] or within the noise not shown (--all shows "
                         "them).\n",
                         hidden, hidden == 1 ? "" : "s");
    }
    return s;
}

} // namespace

std::vector<std::string> file_labels(const std::vector<ResultsDocument>& files) {
    using Field = std::string (*)(const ResultsDocument&);
    const std::vector<Field> fields{
        [](const ResultsDocument& f) { return f.kernel; },
        [](const ResultsDocument& f) { return f.host; },
        [](const ResultsDocument& f) { return f.module_version; },
    };
    for (const auto field : fields) {
        std::vector<std::string> labels;
        for (const auto& f : files) {
            if (std::find(labels.begin(), labels.end(), field(f)) == labels.end()) {
                labels.push_back(field(f));
            }
        }
        if (labels.size() == files.size()) {
            for (std::size_t i = 0; i < files.size(); ++i) {
                labels[i] = or_unknown(field(files[i]));
            }
            return labels;
        }
    }
    std::vector<std::string> labels;
    labels.reserve(files.size());
    for (const auto& f : files) {
        labels.push_back(std::filesystem::path(f.source).filename().string());
    }
    return labels;
}

std::vector<std::string> compare_summary(const CompareTable& t, const CompareSection& sec) {
    const auto labels = file_labels(t.files);
    std::vector<std::string> lines;
    for (const auto& row : sec.rows) {
        if (row.metric != sec.metric || !row.cells[0]) {
            continue;
        }
        // Several knobs (`a,b`): the value names them all already (`a=1 b=2`).
        const auto where = row.value.empty() ? std::string()
                           : sec.knob.find(',') != std::string::npos
                               ? row.value + ": "
                               : fmt::format("{}={}: ", sec.knob, row.value);
        for (std::size_t i = 1; i < row.cells.size(); ++i) {
            const auto& c = row.cells[i];
            if (!c || !c->percent_change) {
                continue;
            }
            std::string test;
            if (c->p_value) {
                test = fmt::format("p{}{}{}", *c->p_value < 0.001 ? "" : "=", p_text(c->p_value),
                                   c->noise ? ", ~noise" : "");
            } else {
                test = c->n == 0 || row.cells[0]->n == 0
                           ? "no test: the file states only a mean"
                           : "no test: fewer than 2 runs or no spread";
            }
            lines.push_back(fmt::format("{}{} on {} {} vs {} ({})", where, sec.metric, labels[i],
                                        change_text(c), labels[0], test));
        }
    }
    return lines;
}

// The text table.

namespace {

void print_section(std::ostream& out, const CompareTable& t, const CompareSection& sec, bool all) {
    fmt::print(out, "\n{}\n", figure_title(sec));
    const auto files = t.files.size();
    std::vector<Align> aligns{Align::left, Align::left, Align::right};
    for (std::size_t i = 1; i < files; ++i) {
        aligns.insert(aligns.end(), {Align::right, Align::right, Align::right, Align::left});
    }
    TextTable table(aligns);
    // The header rows put each file's field in its mean column.
    const auto header = [&](const std::string& name, const auto& cell) {
        std::vector<std::string> cells{name, "", cell(0)};
        for (std::size_t i = 1; i < files; ++i) {
            cells.insert(cells.end(), {cell(i), "", "", ""});
        }
        table.row(cells);
    };
    header("", [](std::size_t i) { return fmt::format("[{}]", i + 1); });
    header("host", [&](std::size_t i) { return or_unknown(t.files[i].host); });
    header("kernel", [&](std::size_t i) { return or_unknown(t.files[i].kernel); });
    header("module", [&](std::size_t i) { return or_unknown(t.files[i].module_version); });
    header("cpus", [&](std::size_t i) { return std::to_string(t.files[i].cpus); });
    header("runs", [&](std::size_t i) { return runs_text(sec, i); });
    std::vector<std::string> columns{"metric", sec.knob, "mean ± sd"};
    for (std::size_t i = 1; i < files; ++i) {
        columns.insert(columns.end(), {"mean ± sd", "Δ vs [1] ± 95% CI", "p", ""});
    }
    table.row(columns);
    for (const auto& row : sec.rows) {
        if (!row_shown(sec, row, all)) {
            continue;
        }
        std::vector<std::string> cells{row.metric, row.value.empty() ? "-" : row.value,
                                       mean_sd_text(row.cells[0])};
        for (std::size_t i = 1; i < files; ++i) {
            const auto& c = row.cells[i];
            cells.insert(cells.end(), {mean_sd_text(c), c ? change_text(c) : "",
                                       c ? p_text(c->p_value) : "", noise_text(c)});
        }
        table.row(cells);
    }
    table.print(out);
    for (const auto& line : compare_summary(t, sec)) {
        fmt::print(out, "  {}\n", line);
    }
}

} // namespace

void print_compare_text(std::ostream& out, const CompareTable& t, bool all) {
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
        print_section(out, t, sec, all);
    }
    fmt::print(out, "\n{}", footnote(t, all));
}

// The markdown table (GitHub-flavoured).

namespace {

// A table cell: `|` would end it.
std::string md(const std::string& s) {
    std::string e;
    for (const char c : s) {
        if (c == '|') {
            e += '\\';
        }
        e += c;
    }
    return e;
}

void md_row(std::ostream& out, const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const auto& c : cells) {
        s += ' ';
        s += md(c);
        s += " |";
    }
    fmt::print(out, "{}\n", s);
}

void md_section(std::ostream& out, const CompareTable& t, const CompareSection& sec, bool all) {
    fmt::print(out, "\n### {}\n\n", md(figure_title(sec)));
    const auto labels = file_labels(t.files);
    std::vector<std::string> header{"metric", sec.knob.empty() ? "value" : sec.knob};
    std::vector<std::string> rule{"---", "---"};
    for (std::size_t i = 0; i < t.files.size(); ++i) {
        const auto runs = runs_of(sec, i);
        header.push_back(fmt::format("[{}] {} ({} run{})", i + 1, labels[i],
                                     runs == 0 ? std::string(unknown_text) : std::to_string(runs),
                                     runs == 1 ? "" : "s"));
        rule.emplace_back("---:");
        if (i > 0) {
            header.push_back(fmt::format("Δ [{}] vs [1] ± 95% CI", i + 1));
            header.push_back(fmt::format("p [{}]", i + 1));
            rule.insert(rule.end(), {"---:", "---:"});
        }
    }
    md_row(out, header);
    fmt::print(out, "|{}|\n", fmt::join(rule, "|"));
    for (const auto& row : sec.rows) {
        if (!row_shown(sec, row, all)) {
            continue;
        }
        std::vector<std::string> cells{"`" + row.metric + "`", row.value.empty() ? "-" : row.value};
        for (std::size_t i = 0; i < row.cells.size(); ++i) {
            const auto& c = row.cells[i];
            cells.push_back(mean_sd_text(c));
            if (i > 0) {
                const auto noise = noise_text(c);
                cells.push_back(c ? change_text(c) + (noise.empty() ? "" : " " + noise) : "");
                cells.push_back(c ? p_text(c->p_value) : "");
            }
        }
        md_row(out, cells);
    }
    const auto summary = compare_summary(t, sec);
    if (!summary.empty()) {
        fmt::print(out, "\n");
    }
    for (const auto& line : summary) {
        fmt::print(out, "- {}\n", line);
    }
}

} // namespace

void print_compare_markdown(std::ostream& out, const CompareTable& t, bool all) {
    md_row(out, {"", "file", "host", "kernel", "module", "cpus"});
    fmt::print(out, "|---|---|---|---|---|---:|\n");
    for (std::size_t i = 0; i < t.files.size(); ++i) {
        const auto& f = t.files[i];
        md_row(out, {fmt::format("[{}]", i + 1),
                     "`" + f.source + "`" + (f.complete ? "" : " (stopped before the end)"),
                     or_unknown(f.host), or_unknown(f.kernel), or_unknown(f.module_version),
                     std::to_string(f.cpus)});
    }
    if (!t.differences.empty()) {
        fmt::print(out, "\nThe files differ (compared anyway):\n\n");
        for (const auto& d : t.differences) {
            fmt::print(out, "- `{}`: `{}` is `{}`, [1] has `{}`\n", t.files[d.file].source, d.field,
                       d.value, d.baseline);
        }
    }
    for (const auto& sec : t.sections) {
        md_section(out, t, sec, all);
    }
    fmt::print(out, "\n{}", footnote(t, all));
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
            {"percent_change_ci95", optional_json(c->percent_ci)},
            {"p_value", optional_json(c->p_value)},
            {"significant", c->significant},
            {"noise", c->noise}};
}

} // namespace

Json compare_json(const CompareTable& t, bool all) {
    Json files = Json::array();
    const auto labels = file_labels(t.files);
    for (std::size_t i = 0; i < t.files.size(); ++i) {
        auto f = file_json(t.files[i]);
        f["label"] = labels[i];
        files.push_back(std::move(f));
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
            if (!row_shown(sec, row, all)) {
                continue;
            }
            Json cells = Json::array();
            for (const auto& c : row.cells) {
                cells.push_back(cell_json(c));
            }
            rows.push_back({{"metric", row.metric},
                            {"value", row.value},
                            {"differs", row.differs},
                            {"files", cells}});
        }
        series.push_back({{"workload", sec.workload},
                          {"knob", sec.knob},
                          {"metric", sec.metric},
                          {"unit", sec.unit},
                          {"rows", rows},
                          {"summary", compare_summary(t, sec)}});
    }
    // 2: rows name counters `flush.requests`; 3: only the rows that differ unless `all`, the
    // change's interval, the noise flag, the summary.
    return {{"schema", "memcg-statctl/compare"},
            {"schema_version", 3},
            {"all", all},
            {"hidden_rows", hidden_rows(t, all)},
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

void print_compare_csv(std::ostream& out, const CompareTable& t, bool all) {
    line(out,
         {"series", "workload", "knob", "metric", "value", "file", "host", "kernel", "n", "mean",
          "stddev", "percent_change", "percent_change_ci95", "p_value", "significant", "noise"});
    for (std::size_t s = 0; s < t.sections.size(); ++s) {
        const auto& sec = t.sections[s];
        for (const auto& row : sec.rows) {
            if (!row_shown(sec, row, all)) {
                continue;
            }
            for (std::size_t i = 0; i < row.cells.size(); ++i) {
                const auto& c = row.cells[i];
                if (!c) {
                    continue;
                }
                const auto& f = t.files[i];
                line(out, {std::to_string(s + 1), sec.workload, sec.knob, row.metric, row.value,
                           f.source, f.host, f.kernel, std::to_string(c->n),
                           number(std::optional<double>(c->mean)), number(c->stddev),
                           number(c->percent_change), number(c->percent_ci), number(c->p_value),
                           c->significant ? "true" : "false", c->noise ? "true" : "false"});
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
    auto s = fmt::format("set title {}\nset ylabel {}\n",
                         gnuplot_quoted(fmt::format("{} {}{}{}", sec.workload, figure,
                                                    sec.knob.empty() ? "" : " by ", sec.knob)),
                         gnuplot_quoted(figure));
    std::size_t min_runs = 0;
    std::size_t max_runs = 0;
    s += fmt::format("$data{} << EOD\n", index);
    for (const auto& row : sec.rows) {
        if (row.metric != sec.metric) {
            continue;
        }
        // The label in double quotes for gnuplot's data reader.
        auto line =
            fmt::format("\"{}\"", row.value.empty() ? "-" : tick_label(sec.knob, row.value));
        for (const auto& c : row.cells) {
            line += ' ';
            line += data_cell(c);
            if (c) {
                min_runs = min_runs == 0 ? c->n : std::min(min_runs, c->n);
                max_runs = std::max(max_runs, c->n);
            }
        }
        s += line + "\n";
    }
    // Under the knob's name, what the error bars are.
    s += fmt::format("EOD\nset xlabel {} . \"\\n\" . {}\nplot ", gnuplot_quoted(sec.knob),
                     gnuplot_quoted(fmt::format("({})", error_bars_text(min_runs, max_runs))));
    for (std::size_t i = 0; i < t.files.size(); ++i) {
        const auto& f = t.files[i];
        const auto title =
            fmt::format("[{}] kernel {}, host {}", i + 1, or_unknown(f.kernel), or_unknown(f.host));
        s += fmt::format("{}{} using {}:{}{} title {}", i == 0 ? "" : ", ",
                         i == 0 ? fmt::format("$data{}", index) : "''", 2 * i + 2, 2 * i + 3,
                         i == 0 ? ":xtic(1)" : "", gnuplot_quoted(title));
    }
    return s + "\n";
}

} // namespace

std::string compare_gnuplot_script(const CompareTable& t, const std::filesystem::path& file) {
    const auto sections = static_cast<int>(t.sections.size());
    auto s = gnuplot_output(file, 900, 500 * sections);
    s += "set yrange [0:*]\nset grid ytics\n" + std::string(key_below) +
         "\n"
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
