#include "experiment/experiment.h"

#include <cmath>

#include <fmt/format.h>

#include "experiment/recipes.h"
#include "output/result_schema.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

using Json = nlohmann::ordered_json;

// Appends `words` wrapped to `width` columns. The first line is indented by 2 spaces, the
// rest by 4. A longer word keeps its own line.
void wrap_into(std::string& out, std::string_view words, std::size_t width) {
    std::string line = "  ";
    bool first = true;
    for (const auto word : split_whitespace(words)) {
        if (!first && line.size() + 1 + word.size() > width) {
            out += line + '\n';
            line = "    ";
            first = true;
        }
        line += first ? "" : " ";
        line += word;
        first = false;
    }
    out += line + '\n';
}

} // namespace

// The recipe table, in `experiment --list` order. Each row is in its family's file.
const std::vector<Recipe>& recipes() {
    static const std::vector<Recipe> list{
        update_flush_recipe(),    // flush.cpp
        reader_flush_recipe(),    // flush.cpp
        flush_threshold_recipe(), // threshold.cpp
        objstock_recipe(),        // stock.cpp
        readtwice_recipe(),       // stock.cpp
        staleness_recipe(),       // staleness.cpp
    };
    return list;
}

std::vector<std::string> recipe_names() {
    std::vector<std::string> names;
    for (const auto& r : recipes()) {
        names.push_back(r.name);
    }
    return names;
}

const Recipe* find_recipe(std::string_view name) {
    for (const auto& r : recipes()) {
        if (r.name == name) {
            return &r;
        }
    }
    return nullptr;
}

std::string recipe_list_text(const std::vector<Recipe>& list, std::size_t width) {
    std::string text;
    for (const auto& r : list) {
        if (!text.empty()) {
            text += '\n';
        }
        text += fmt::format("{} (docs/background.md#{})\n", r.name, r.report_id);
        wrap_into(text, r.summary, width);
        wrap_into(text, "reference: " + r.reference, width);
        wrap_into(text, "claim: " + r.claim, width);
    }
    return text;
}

std::string_view outcome_text(Outcome o) {
    switch (o) {
    case Outcome::reproduced:
        return "reproduced";
    case Outcome::not_reproduced:
        return "not reproduced";
    case Outcome::not_measured:
        break;
    }
    return "not measured";
}

Verdict finish_verdict(Outcome o, const std::string& body) {
    return {o, fmt::format("{}: {}", body, outcome_text(o))};
}

std::string percent_text(const std::optional<double>& v) {
    return v ? fmt::format("{:+.1f}%", *v) : std::string("n/a");
}

std::string p_value_text(const ComparisonRow& row) {
    auto text = row.p_value ? fmt::format("p={:.3f}{}", *row.p_value, row.significant ? " *" : "")
                            : std::string("p n/a");
    if (row.summary.n >= 2 && row.summary.mean != 0) {
        text += fmt::format(", sd {:.1f}%", 100 * row.summary.stddev / std::abs(row.summary.mean));
    }
    return text;
}

const ComparisonRow* find_row(const ComparisonReport& report, std::string_view value) {
    for (const auto& row : report.rows) {
        if (row.value == value) {
            return &row;
        }
    }
    return nullptr;
}

std::string_view measure_name(Measure m) {
    switch (m) {
    case Measure::guest_instructions:
        return "guest_instructions";
    case Measure::counters:
        return "counters";
    case Measure::pages:
        return "pages";
    case Measure::wall_time:
        break;
    }
    return "wall_time";
}

Measure verdict_measure(Measure recipe, bool counted) {
    return recipe == Measure::wall_time && counted ? Measure::guest_instructions : recipe;
}

std::string verdict_line_on(Measure m, const std::string& line) {
    std::string_view what = "wall time";
    switch (m) {
    case Measure::guest_instructions:
        what = "guest instructions";
        break;
    case Measure::counters:
        what = "the module's counters";
        break;
    case Measure::pages:
        what = "memory.stat pages and flush counts";
        break;
    case Measure::wall_time:
        break;
    }
    return fmt::format("on {}: {}", what, line);
}

Json experiment_json(const ExperimentResult& r) {
    // Numbers as JSON numbers (runs, duration, cpus), like every other document.
    Json params = Json::object();
    for (const auto& [k, v] : r.parameters) {
        if (const auto integer = parse_u64(v)) {
            params[k] = *integer;
        } else if (const auto number = parse_double(v)) {
            params[k] = *number;
        } else {
            params[k] = v;
        }
    }
    Json reports = Json::array();
    for (const auto& report : r.reports) {
        // The same object `sweep --json` prints: one shape for both commands.
        reports.push_back(sweep_document(report));
    }
    Json tables = Json::array();
    for (const auto& t : r.extra) {
        tables.push_back({{"title", t.title}, {"header", t.header}, {"rows", t.rows}});
    }
    return {{"schema", "memcg-statctl/experiment"},
            {"schema_version", experiment_schema_version},
            {"experiment", r.name},
            {"report_id", r.report_id},
            {"reference", r.reference},
            {"claim", r.claim},
            {"environment", environment_json(r.environment)},
            {"parameters", params},
            {"complete", r.complete},
            {"interrupted_by", r.interrupted_by ? Json(*r.interrupted_by) : Json(nullptr)},
            {"reports", reports},
            {"tables", tables},
            {"notes", r.notes},
            {"verdict", r.complete ? Json{{"outcome", std::string(outcome_text(r.verdict.outcome))},
                                          {"reproduced", r.verdict.outcome == Outcome::reproduced},
                                          {"measure", std::string(measure_name(r.measure))},
                                          {"line", r.verdict.line}}
                                   : Json(nullptr)},
            {"runs", r.runs}};
}

} // namespace memcg_statctl
