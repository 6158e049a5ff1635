// Named experiments (`memcg-statctl experiment NAME`): the recipe table, the outcome of a
// recipe and its results document. Each recipe family has its own file (flush.cpp, ...);
// runner.h runs them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/reports.h"

namespace memcg_statctl {

class Experiment;        // runner.h
struct ExperimentResult; // below

struct Recipe {
    // Runs the recipe on `e` and fills `r` (reports, tables, parameters, notes, verdict).
    using Run = void (*)(Experiment& e, ExperimentResult& r);
    std::string name; // the NAME of `experiment NAME`
    // The report it reproduces: its heading in docs/background.md ("update-path-flush").
    std::string report_id;
    std::string summary; // one line for --help and the report header
    // The report's list, subject, author, date and upstream commit.
    std::string reference;
    // The report's published figures this recipe tests, and where they came from.
    std::string claim;
    Run run = nullptr;
};

// The table: one row per recipe, in `experiment --list` order.
const std::vector<Recipe>& recipes();
std::vector<std::string> recipe_names();
// nullptr for an unknown name.
const Recipe* find_recipe(std::string_view name);
// The text of `experiment --list`, wrapped to `width` columns.
std::string recipe_list_text(const std::vector<Recipe>& list, std::size_t width = 80);

enum class Outcome { reproduced, not_reproduced, not_measured };
std::string_view outcome_text(Outcome o); // "reproduced" | "not reproduced" | "not measured"

struct Verdict {
    Outcome outcome = Outcome::not_measured;
    std::string line; // the closing line, ending in ": " + outcome_text(outcome)
};

// The verdict whose line is `body` + ": " + outcome_text(o).
Verdict finish_verdict(Outcome o, const std::string& body);

// For verdict lines: "+12.3%" or "n/a".
std::string percent_text(const std::optional<double>& v);
// For verdict lines: Welch's p and the row's run-to-run standard deviation.
std::string p_value_text(const ComparisonRow& row);
// The row of `report` whose value is `value`; nullptr when absent.
const ComparisonRow* find_row(const ComparisonReport& report, std::string_view value);

// One named table besides the comparison reports.
struct ExtraTable {
    std::string title;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

// What a verdict rests on: wall-time throughput, or the same per 10^9 guest instructions
// (counted runs under QEMU's insn-marker plugin). Recipes whose verdict is no throughput
// rest on the module's counters (objstock) or on memory.stat pages (staleness); no clock
// affects those.
enum class Measure { wall_time, guest_instructions, counters, pages };
// "wall_time" | "guest_instructions" | "counters" | "pages" (the JSON's verdict.measure)
std::string_view measure_name(Measure m);
// The recipe's own measure, or guest_instructions for a throughput whose runs were counted.
Measure verdict_measure(Measure recipe, bool counted);
// The verdict line as printed: "on <what m measures>: " + line.
std::string verdict_line_on(Measure m, const std::string& line);

struct ExperimentResult {
    std::string name;
    std::string report_id;                 // the recipe's
    std::string reference;                 // the recipe's
    std::string claim;                     // the recipe's
    NameValues parameters;                 // runs, duration, kernel, ...
    std::vector<ComparisonReport> reports; // in the sweep/--json shape
    std::vector<ExtraTable> extra;
    std::vector<std::string> notes; // how a number was measured
    Verdict verdict;
    Measure measure = Measure::wall_time;
    Environment environment;
    // Every finished run ({"step", "knob", "value", "round", "figures", "counters"}), so a
    // stopped experiment keeps them. Complete until stopped.
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    bool complete = true;
    std::optional<std::string> interrupted_by; // "SIGINT" / "SIGTERM"
};

// Version 2: `report_id` (a heading of docs/background.md) replaced version 1's `seed`.
// Version 3: counter keys are the module's names (`flush.requests`, was `flush_requests`).
inline constexpr int experiment_schema_version = 3;

// {"schema": "memcg-statctl/experiment", "schema_version", "experiment", "report_id",
//  "reference", "claim", "environment", "parameters", "complete", "interrupted_by",
//  "reports": [sweep documents], "tables", "notes", "verdict": {"outcome", "reproduced",
//  "measure", "line"} (null until complete), "runs"}
nlohmann::ordered_json experiment_json(const ExperimentResult& r);

} // namespace memcg_statctl
