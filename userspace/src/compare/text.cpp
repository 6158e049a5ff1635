#include <fmt/format.h>
#include <fmt/ostream.h>

#include "compare/table.h"
#include "output/output.h"

namespace memcg_statctl {
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

} // namespace memcg_statctl
