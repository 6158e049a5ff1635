// `compare` on results files the guest wrote (tests/data/compare/README.md): a sweep of
// Debian's 6.1 against the same sweep of 6.12, a mismatched pair, runs and experiments.
// Expected figures are computed here from the files' own samples, never written in.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "compare/table.h"
#include "exit_code.h"
#include "experiment/experiment.h"
#include "fake_debugfs.h"
#include "statistics.h"

namespace memcg_statctl {
namespace {

using Json = nlohmann::ordered_json;

std::string data(const std::string& name) {
    return std::string(MEMCG_STATCTL_TEST_DATA) + "/compare/" + name;
}

const std::string sweep61 = data("sweep-stat-reader-6.1.json");
const std::string sweep612 = data("sweep-stat-reader-6.12.json");
const std::string short61 = data("sweep-stat-reader-short-6.1.json");
const std::string run61 = data("run-stat-reader-6.1.json");
const std::string run612 = data("run-stat-reader-6.12.json");
const std::string exp61 = data("experiment-update-flush-6.1.json");
const std::string exp612 = data("experiment-update-flush-6.12.json");
const std::string exp_v1 = data("experiment-v1-synthetic.json");

Json load(const std::string& file) {
    std::ifstream in(file);
    return Json::parse(in);
}

std::vector<double> doubles(const Json& array) {
    std::vector<double> v;
    for (const auto& x : array) {
        v.push_back(x.get<double>());
    }
    return v;
}

// The figure's samples of `value` in a sweep document, from its runs.
std::vector<double> run_samples(const Json& sweep, const std::string& value) {
    std::vector<double> v;
    for (const auto& run : sweep["runs"]) {
        if (run["value"] == value) {
            v.push_back(run[sweep["metric"].get<std::string>()].get<double>());
        }
    }
    return v;
}

// `s` as a regular expression that matches only itself.
std::string escaped(const std::string& s) {
    return std::regex_replace(s, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
}

testing::CliResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), "compare");
    return testing::CliRunner().run(std::move(args));
}

TEST(CompareFixtures, SameSweepOnTwoKernels) {
    // The fixtures are what they claim: one sweep, run on 6.1 and on 6.12.
    const auto a = load(sweep61);
    const auto b = load(sweep612);
    EXPECT_TRUE(a["environment"]["kernel"].get<std::string>().starts_with("6.1."));
    EXPECT_TRUE(b["environment"]["kernel"].get<std::string>().starts_with("6.12."));
    EXPECT_EQ(a["parameters"], b["parameters"]);
    EXPECT_TRUE(a["complete"].get<bool>() && b["complete"].get<bool>());
}

TEST(CompareDocument, SweepKeepsEveryRun) {
    const auto doc = read_results_document(sweep61);
    const auto json = load(sweep61);
    EXPECT_EQ(doc.schema, "memcg-statctl/sweep");
    EXPECT_EQ(doc.kernel, json["environment"]["kernel"]);
    ASSERT_EQ(doc.series.size(), 1U);
    const auto& s = doc.series[0];
    EXPECT_EQ(s.knob, "flush_mode");
    EXPECT_EQ(s.metric, "ops_per_sec");
    ASSERT_EQ(s.values.size(), json["rows"].size());
    for (std::size_t i = 0; i < s.values.size(); ++i) {
        const auto& row = json["rows"][i];
        EXPECT_EQ(s.values[i].value, row["value"]);
        // The runs give the samples the sweep's own rows state.
        EXPECT_EQ(s.values[i].samples.at("ops_per_sec"), doubles(row["samples"]));
        // The old file's `flush_requests` is read as flush.requests.
        EXPECT_EQ(s.values[i].samples.at("flush.requests").size(), row["n"].get<std::size_t>());
        EXPECT_EQ(s.values[i].metric_names.front(), "ops_per_sec");
    }
}

TEST(Compare, Kernel61Against612) {
    const auto t =
        compare_documents({read_results_document(sweep61), read_results_document(sweep612)});
    EXPECT_TRUE(t.differences.empty());
    ASSERT_EQ(t.sections.size(), 1U);
    const auto a = load(sweep61);
    const auto b = load(sweep612);
    std::size_t figure_rows = 0;
    for (const auto& row : t.sections[0].rows) {
        ASSERT_EQ(row.cells.size(), 2U);
        if (row.cells[0]) {
            EXPECT_FALSE(row.cells[0]->percent_change);
        }
        if (row.metric != "ops_per_sec") {
            continue;
        }
        ASSERT_TRUE(row.cells[0] && row.cells[1]) << row.value;
        ++figure_rows;
        const auto x = run_samples(a, row.value);
        const auto y = run_samples(b, row.value);
        EXPECT_DOUBLE_EQ(row.cells[0]->mean, summarize(x).mean);
        EXPECT_DOUBLE_EQ(row.cells[1]->mean, summarize(y).mean);
        EXPECT_EQ(row.cells[1]->n, y.size());
        EXPECT_DOUBLE_EQ(*row.cells[1]->percent_change,
                         *percent_change(summarize(x).mean, summarize(y).mean));
        const auto w = welch_t_test(x, y);
        ASSERT_EQ(row.cells[1]->p_value.has_value(), w.has_value());
        if (w) {
            EXPECT_DOUBLE_EQ(*row.cells[1]->p_value, w->p_value);
            EXPECT_EQ(row.cells[1]->significant, w->p_value < 0.05);
        }
    }
    EXPECT_EQ(figure_rows, a["rows"].size());
    // The figure's rows come first, in the sweep's value order.
    EXPECT_EQ(t.sections[0].rows[0].metric, "ops_per_sec");
    EXPECT_EQ(t.sections[0].rows[0].value, a["rows"][0]["value"]);
}

TEST(CompareCli, TextTable) {
    const auto r = cli({sweep61, sweep612});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const auto a = load(sweep61);
    const auto b = load(sweep612);
    EXPECT_NE(r.out.find("[1] " + sweep61 + "\n"), std::string::npos);
    EXPECT_NE(r.out.find("[2] " + sweep612 + "\n"), std::string::npos);
    EXPECT_NE(r.out.find("stat-reader ops_per_sec (ops/s) by flush_mode\n"), std::string::npos);
    const std::regex kernels("\nkernel +" + escaped(a["environment"]["kernel"].get<std::string>()) +
                             " +" + escaped(b["environment"]["kernel"].get<std::string>()) + "\n");
    EXPECT_TRUE(std::regex_search(r.out, kernels)) << r.out;
    // One line per knob value of the figure: each file's mean +- sd, the change with its 95%
    // interval, Welch's p, and ~noise where the interval holds 0; no baseline 0.00% entries.
    const auto t =
        compare_documents({read_results_document(sweep61), read_results_document(sweep612)});
    for (const auto& row : t.sections[0].rows) {
        if (row.metric != "ops_per_sec") {
            continue;
        }
        const auto& base = *row.cells[0];
        const auto& c = *row.cells[1];
        const auto p =
            *c.p_value < 0.001 ? std::string("<0.001") : fmt::format("{:.3f}", *c.p_value);
        const auto line = fmt::format(
            "\n{} +{} +{} +{} +{} +{}{}\n", row.metric, row.value,
            escaped(fmt::format("{:.2f} ± {:.2f}", base.mean, *base.stddev)),
            escaped(fmt::format("{:.2f} ± {:.2f}", c.mean, *c.stddev)),
            escaped(fmt::format("{:+.2f}% ± {:.2f}%", *c.percent_change, *c.percent_ci)),
            escaped(p), c.noise ? "  ~noise" : "");
        EXPECT_TRUE(std::regex_search(r.out, std::regex(line))) << line << "\n" << r.out;
    }
    EXPECT_EQ(r.out.find("0.00%)"), std::string::npos) << r.out;
}

TEST(CompareCli, MismatchRefusedWithTheDifferences) {
    const auto r = cli({sweep61, short61});
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::failure));
    EXPECT_EQ(r.out, "");
    for (const auto* line : {": values is kernel,never, ", ": parameters.duration is 1.0, ",
                             ": parameters.cgroups is 1, ", "--allow-mismatch"}) {
        EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
    }
    EXPECT_EQ(r.err.find("parameters.runs"), std::string::npos) << r.err; // both 3
}

TEST(CompareCli, MismatchComparedOnRequest) {
    const auto r = cli({"--allow-mismatch", sweep61, short61});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("The files differ (compared anyway):\n"), std::string::npos);
    EXPECT_NE(r.out.find("parameters.duration is 1.0, "), std::string::npos);
    // A value only the first file has: a dash in the second file's column.
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(\nops_per_sec +always +[0-9.]+ ± [0-9.]+ +-\n)")))
        << r.out;
}

TEST(CompareCli, RunAgainstSweep) {
    const auto refused = cli({sweep61, run61});
    EXPECT_EQ(refused.code, 1);
    EXPECT_NE(refused.err.find(": schema is memcg-statctl/run, "), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find(": knob is \"\", "), std::string::npos) << refused.err;
    const auto r = cli({"--allow-mismatch", "--json", sweep61, run61});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: compared anyway"), std::string::npos);
    const auto j = Json::parse(r.out);
    // The run's one row (no knob value) is its own row, with no baseline to compare with.
    bool run_row = false;
    for (const auto& row : j["series"][0]["rows"]) {
        if (row["value"].is_string() && row["value"].get_ref<const std::string&>().empty()) {
            run_row = true;
            EXPECT_TRUE(row["files"][0].is_null());
            EXPECT_EQ(row["files"][1]["n"], 1);
            EXPECT_TRUE(row["files"][1]["percent_change"].is_null());
        }
    }
    EXPECT_TRUE(run_row);
}

TEST(CompareCli, RunAgainstRun) {
    const auto r = cli({"--json", run61, run612});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = Json::parse(r.out);
    const auto a = load(run61);
    const auto b = load(run612);
    const auto& first = j["series"][0]["rows"][0];
    EXPECT_EQ(first["metric"], "ops_per_sec");
    EXPECT_EQ(first["files"][0]["mean"], a["result"]["ops_per_sec"]);
    EXPECT_EQ(first["files"][1]["mean"], b["result"]["ops_per_sec"]);
    EXPECT_DOUBLE_EQ(first["files"][1]["percent_change"].get<double>(),
                     *percent_change(a["result"]["ops_per_sec"].get<double>(),
                                     b["result"]["ops_per_sec"].get<double>()));
    EXPECT_TRUE(first["files"][1]["p_value"].is_null()); // one run each: no test
    EXPECT_FALSE(first["files"][1]["significant"].get<bool>());
}

TEST(CompareCli, ExperimentAgainstExperiment) {
    const auto r = cli({"--json", exp61, exp612});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = Json::parse(r.out);
    const auto a = load(exp61);
    ASSERT_EQ(j["series"].size(), a["reports"].size());
    for (std::size_t i = 0; i < a["reports"].size(); ++i) {
        const auto& report = a["reports"][i];
        const auto& series = j["series"][i];
        EXPECT_EQ(series["workload"], report["workload"]);
        EXPECT_EQ(series["metric"], report["metric"]);
        // The figure from each row's samples; the counters only as the row's means.
        const auto& row = series["rows"][0];
        EXPECT_EQ(row["metric"], report["metric"]);
        EXPECT_EQ(row["files"][0]["n"], report["rows"][0]["n"]);
        for (const auto& other : series["rows"]) {
            if (other["metric"].get<std::string>().starts_with("flush.") &&
                !other["files"][1].is_null()) {
                EXPECT_EQ(other["files"][1]["n"], 0);
                EXPECT_TRUE(other["files"][1]["p_value"].is_null());
            }
        }
    }
}

TEST(CompareCli, ExperimentAgainstSweepRefused) {
    const auto r = cli({exp61, sweep61});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(": schema is memcg-statctl/sweep, "), std::string::npos) << r.err;
}

TEST(CompareCli, MetricsFilter) {
    const auto r = cli({"--csv", "--all", "--metrics", "flush.requests", sweep61, sweep612});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream in(r.out);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "series,workload,knob,metric,value,file,host,kernel,n,mean,stddev,"
                    "percent_change,percent_change_ci95,p_value,significant,noise");
    std::set<std::string> metrics;
    int lines = 0;
    while (std::getline(in, line)) {
        ++lines;
        std::vector<std::string> cells;
        std::istringstream fields(line);
        for (std::string cell; std::getline(fields, cell, ',');) {
            cells.push_back(cell);
        }
        ASSERT_EQ(cells.size(), 16U) << line; // no field here needs quoting
        metrics.insert(cells[3]);
    }
    EXPECT_EQ(metrics, (std::set<std::string>{"ops_per_sec", "flush.requests"}));
    EXPECT_EQ(lines, 2 * 2 * static_cast<int>(load(sweep61)["rows"].size()));
}

TEST(CompareCli, Plot) {
    const testing::TempDir dir;
    const auto svg = dir.path() / "c.svg";
    const auto r = cli({"--plot", svg.string(), exp61, exp612});
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream in(svg);
    std::stringstream s;
    s << in.rdbuf();
    EXPECT_NE(s.str().find("<svg"), std::string::npos);
    EXPECT_NE(s.str().find(load(exp61)["environment"]["kernel"].get<std::string>()),
              std::string::npos);
    EXPECT_EQ(cli({"--plot", "c.pdf", sweep61, sweep612}).code, 2);
    // MEMCG_STATCTL_PLOT_DIR keeps PNGs of both kinds there, to look at.
    if (const char* keep = std::getenv("MEMCG_STATCTL_PLOT_DIR")) { // NOLINT(concurrency-mt-unsafe)
        const std::filesystem::path dir_out(keep);
        EXPECT_EQ(
            cli({"--plot", (dir_out / "compare-experiment.png").string(), exp61, exp612}).code, 0);
        EXPECT_EQ(cli({"--plot", (dir_out / "compare-sweep.png").string(), sweep61, sweep612}).code,
                  0);
    }
}

TEST(ComparePlot, Script) {
    const auto t =
        compare_documents({read_results_document(sweep61), read_results_document(sweep612)});
    const auto s = compare_gnuplot_script(t, "/tmp/c.svg");
    EXPECT_NE(s.find("set style histogram errorbars"), std::string::npos);
    EXPECT_EQ(s.find("multiplot"), std::string::npos); // one series
    const auto row = t.sections[0].rows[0];
    EXPECT_NE(
        s.find(fmt::format("\"{}\" {:.6g} {:.6g} {:.6g} {:.6g}\n", row.value, row.cells[0]->mean,
                           *row.cells[0]->stddev, row.cells[1]->mean, *row.cells[1]->stddev)),
        std::string::npos)
        << s;
    EXPECT_NE(s.find("using 2:3:xtic(1) title '[1] kernel 6.1."), std::string::npos) << s;
    EXPECT_NE(s.find("'' using 4:5 title '[2] kernel 6.12."), std::string::npos) << s;
    // What the error bars are, and one placeholder for the missing host.
    EXPECT_NE(s.find("set xlabel 'flush_mode' . \"\\n\" . '(error bars: ± 1 sd over 3 runs)'"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find(", host unknown'"), std::string::npos) << s;
}

class BadFile : public ::testing::Test {
protected:
    std::string write(const std::string& name, const std::string& text) {
        const auto p = dir_.path() / name;
        std::ofstream(p) << text;
        return p.string();
    }
    std::string edited(const std::function<void(Json&)>& edit) {
        auto j = load(sweep61);
        edit(j);
        return write("edited.json", j.dump());
    }
    static std::string error_of(const std::string& file) {
        const auto r = cli({sweep61, file});
        EXPECT_EQ(r.code, 1) << r.err;
        EXPECT_EQ(r.out, "");
        return r.err;
    }

private:
    testing::TempDir dir_;
};

TEST_F(BadFile, Unreadable) {
    EXPECT_NE(error_of("/nonexistent/x.json").find("/nonexistent/x.json: cannot read"),
              std::string::npos);
    EXPECT_NE(error_of(write("d", "{\"schema\": ")).find(": not JSON ("), std::string::npos);
    EXPECT_NE(error_of(write("a", "[1]")).find("is array, not a JSON object"), std::string::npos);
}

TEST_F(BadFile, NotAResultsDocument) {
    const auto status = write("s.json", R"({"loaded": false, "reason": "not_root"})");
    EXPECT_NE(error_of(status).find("`schema` is missing (not a memcg-statctl results file?)"),
              std::string::npos);
    const auto e = edited([](Json& j) { j["schema"] = "memcg-statctl/status"; });
    EXPECT_NE(error_of(e).find("schema `memcg-statctl/status` is not a results document"),
              std::string::npos);
}

TEST_F(BadFile, NewerSchema) {
    const auto e = edited([](Json& j) { j["schema_version"] = 3; });
    EXPECT_NE(error_of(e).find("schema_version 3 is not a version this tool reads (1 to 2): a "
                               "newer memcg-statctl wrote it"),
              std::string::npos);
}

TEST(Compare, ReadsExperimentDocumentsOfEverySchemaVersion) {
    // Version 1 named its report by a number, version 2 by `report_id`; compare reads neither.
    // Version 3 names the counters as the module does. The version-1 file is a hand-made
    // minimal document (the fixtures' README).
    const auto v1 = read_results_document(exp_v1);
    EXPECT_EQ(v1.schema_version, 1);
    ASSERT_EQ(v1.series.size(), 1U);
    EXPECT_EQ(v1.series[0].workload, "page-fault anon");
    auto doc = load(exp61); // written by the tool
    ASSERT_EQ(doc["schema_version"], 2);
    ASSERT_TRUE(doc.contains("report_id"));
    EXPECT_EQ(parse_results_document(doc, "v2").schema_version, 2);
    doc["schema_version"] = experiment_schema_version + 1;
    EXPECT_THROW(parse_results_document(doc, "v4"), ToolError);
}

TEST_F(BadFile, MissingOrWrongFields) {
    EXPECT_NE(error_of(edited([](Json& j) {
                  j["environment"].erase("kernel");
              })).find("`environment.kernel` is missing"),
              std::string::npos);
    EXPECT_NE(error_of(edited([](Json& j) {
                  j["runs"][1]["ops_per_sec"] = "fast";
              })).find("`runs[].ops_per_sec` is not a number"),
              std::string::npos);
    EXPECT_NE(error_of(edited([](Json& j) { j["rows"] = 3; })).find("`rows` is number, not array"),
              std::string::npos);
    EXPECT_NE(error_of(edited([](Json& j) {
                  j["runs"][0]["counters"]["flush_requests"] = "x";
              })).find("`runs[].counters.flush_requests` is string, not a number"),
              std::string::npos);
}

TEST_F(BadFile, InterruptedRun) {
    auto j = load(run61);
    j["complete"] = false;
    j["interrupted_by"] = "SIGINT";
    j["result"] = nullptr;
    const auto f = write("r.json", j.dump());
    const auto r = cli({run61, f});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("the run was interrupted (SIGINT): it has no result to compare"),
              std::string::npos)
        << r.err;
}

TEST_F(BadFile, StoppedSweepIsComparedWithAWarning) {
    const auto f = edited([](Json& j) {
        j["complete"] = false;
        j["runs"].erase(j["runs"].size() - 1);
    });
    const auto r = cli({sweep61, f});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: " + f + " stopped before the end"), std::string::npos);
    EXPECT_NE(r.out.find(f + " (stopped before the end)"), std::string::npos);
}

TEST(CompareCli, Usage) {
    EXPECT_EQ(cli({sweep61}).code, 2);
    EXPECT_EQ(cli({}).code, 2);
    EXPECT_EQ(cli({"--json", "--csv", sweep61, sweep612}).code, 2);
}

TEST(CompareDocument, HostColumn) {
    // Files written before `environment.host` existed show `unknown`; newer ones the host.
    auto j = load(sweep61);
    j["environment"]["host"] = "box-a";
    const auto t =
        compare_documents({parse_results_document(j, "a.json"), read_results_document(sweep612)});
    std::ostringstream out;
    print_compare_text(out, t);
    const auto host612 = load(sweep612)["environment"].value("host", std::string("unknown"));
    EXPECT_TRUE(std::regex_search(out.str(), std::regex("\nhost +box-a +" + host612 + "\n")))
        << out.str();
}

// Two hand-made sweeps of one value: the figure within the noise, flush.requests clearly
// up, pgfault equal, pgmajfault up within the noise.
ResultsDocument synthetic(const std::string& kernel, bool second) {
    ResultsDocument d;
    d.source = kernel + ".json";
    d.schema = "memcg-statctl/sweep";
    d.schema_version = 2;
    d.kernel = kernel;
    d.module_version = "0.1.0";
    d.cpus = 2;
    CompareSeries s{"slab", "flush_mode", "ops_per_sec", "ops/s", Json::object(), {}};
    CompareValue v;
    v.value = "never";
    v.metric_names = {"ops_per_sec", "flush.requests", "pgfault", "pgmajfault"};
    v.groups = {
        {"flush.requests", "counters"}, {"pgfault", "memory_stat"}, {"pgmajfault", "memory_stat"}};
    v.samples["ops_per_sec"] =
        second ? std::vector<double>{100, 112, 90} : std::vector<double>{100, 101, 99};
    v.samples["flush.requests"] =
        second ? std::vector<double>{20, 21, 20} : std::vector<double>{10, 10, 11};
    v.samples["pgfault"] = {5, 5, 5};
    v.samples["pgmajfault"] =
        second ? std::vector<double>{1.5, 2.5, 3.5} : std::vector<double>{1, 2, 3};
    s.values.push_back(v);
    d.series.push_back(s);
    return d;
}

CompareTable synthetic_table() {
    return compare_documents({synthetic("6.1.0", false), synthetic("6.12.9", true)});
}

const CompareRow& row_named(const CompareTable& t, const std::string& metric) {
    const auto& rows = t.sections[0].rows;
    return *std::find_if(rows.begin(), rows.end(),
                         [&](const CompareRow& r) { return r.metric == metric; });
}

TEST(CompareRows, NoiseFlagAndWhatDiffers) {
    const auto t = synthetic_table();
    const auto& figure = *row_named(t, "ops_per_sec").cells[1];
    EXPECT_TRUE(figure.noise); // the interval holds 0
    ASSERT_TRUE(figure.percent_ci && figure.p_value);
    EXPECT_LT(std::fabs(*figure.percent_change), *figure.percent_ci);
    EXPECT_GE(*figure.p_value, 0.05);
    const auto& requests = *row_named(t, "flush.requests").cells[1];
    EXPECT_FALSE(requests.noise);
    EXPECT_GT(std::fabs(*requests.percent_change), *requests.percent_ci);
    EXPECT_TRUE(row_named(t, "flush.requests").differs);
    EXPECT_FALSE(row_named(t, "pgfault").differs);    // equal, no spread: no test
    EXPECT_FALSE(row_named(t, "pgmajfault").differs); // within the noise
    EXPECT_TRUE(row_named(t, "pgmajfault").cells[1]->noise);
    // The figure is always shown; the rest only when they differ, or with --all.
    const auto& sec = t.sections[0];
    EXPECT_TRUE(row_shown(sec, row_named(t, "ops_per_sec"), false));
    EXPECT_TRUE(row_shown(sec, row_named(t, "flush.requests"), false));
    EXPECT_FALSE(row_shown(sec, row_named(t, "pgfault"), false));
    EXPECT_FALSE(row_shown(sec, row_named(t, "pgmajfault"), false));
    EXPECT_TRUE(row_shown(sec, row_named(t, "pgmajfault"), true));
}

TEST(CompareRows, RowsWithoutATestDifferWhenTheMeansDo) {
    // One run each: no interval, so any change counts; a row only one file has differs too.
    auto a = synthetic("6.1.0", false);
    auto b = synthetic("6.12.9", true);
    for (auto* d : {&a, &b}) {
        for (auto& [name, samples] : d->series[0].values[0].samples) {
            samples.resize(1);
        }
    }
    b.series[0].values[0].samples.erase("pgfault");
    const auto t = compare_documents({a, b});
    EXPECT_FALSE(row_named(t, "ops_per_sec").differs); // 100 and 100
    EXPECT_TRUE(row_named(t, "flush.requests").differs);
    EXPECT_FALSE(row_named(t, "flush.requests").cells[1]->percent_ci);
    EXPECT_FALSE(row_named(t, "flush.requests").cells[1]->noise);
    EXPECT_TRUE(row_named(t, "pgfault").differs); // only in the first file
}

TEST(CompareText, OnlyTheRowsThatDifferUnlessAll) {
    const auto t = synthetic_table();
    std::ostringstream out;
    print_compare_text(out, t);
    const auto text = out.str();
    EXPECT_NE(text.find("\nops_per_sec "), std::string::npos) << text;
    EXPECT_NE(text.find("\nflush.requests "), std::string::npos) << text;
    EXPECT_EQ(text.find("\npgfault "), std::string::npos) << text;
    EXPECT_EQ(text.find("\npgmajfault "), std::string::npos) << text;
    EXPECT_NE(
        text.find("\n2 rows equal to [1] or within the noise not shown (--all shows them).\n"),
        std::string::npos)
        << text;
    EXPECT_EQ(text.find("0.00%)"), std::string::npos) << text;
    const std::regex figure(
        R"(\nops_per_sec +never +100\.00 ± 1\.00 +100\.67 ± 11\.02 +\+0\.67% ± [0-9.]+% +0\.[0-9]{3}  ~noise\n)");
    EXPECT_TRUE(std::regex_search(text, figure)) << text;
    std::ostringstream every;
    print_compare_text(every, t, true);
    EXPECT_NE(every.str().find("\npgfault "), std::string::npos);
    EXPECT_TRUE(std::regex_search(every.str(), std::regex(R"(\npgmajfault .*  ~noise\n)")))
        << every.str();
    EXPECT_EQ(every.str().find("not shown"), std::string::npos);
}

TEST(CompareText, SummaryLine) {
    const auto t = synthetic_table();
    const auto& c = *row_named(t, "ops_per_sec").cells[1];
    const auto lines = compare_summary(t, t.sections[0]);
    ASSERT_EQ(lines.size(), 1U);
    EXPECT_EQ(lines[0], fmt::format("flush_mode=never: ops_per_sec on 6.12.9 {:+.2f}% ± {:.2f}% vs "
                                    "6.1.0 (p={:.3f}, ~noise)",
                                    *c.percent_change, *c.percent_ci, *c.p_value));
    std::ostringstream out;
    print_compare_text(out, t);
    EXPECT_NE(out.str().find("\n  " + lines[0] + "\n"), std::string::npos) << out.str();
    // The labels: what tells the files apart, the kernel here; the host when only it differs.
    auto a = synthetic("6.1.0", false);
    auto b = synthetic("6.1.0", true);
    a.host = "box-a";
    EXPECT_EQ(file_labels({a, b}), (std::vector<std::string>{"box-a", "unknown"}));
    b.host = "box-a";
    EXPECT_EQ(file_labels({a, b}), (std::vector<std::string>{"6.1.0.json", "6.1.0.json"}));
}

// The cells of a markdown table line: between the pipes.
std::vector<std::string> md_cells(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i < line.size(); ++i) {
        if (line[i] == '|' && line[i - 1] != '\\') {
            cells.push_back(cell);
            cell.clear();
        } else {
            cell += line[i];
        }
    }
    return cells;
}

TEST(CompareMarkdown, GithubTables) {
    const auto r = cli({"--markdown", sweep61, sweep612});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream in(r.out);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    // The files' table, then a heading and a table per series, then the summary list.
    ASSERT_GE(lines.size(), 8U);
    EXPECT_EQ(lines[0], "|  | file | host | kernel | module | cpus |");
    EXPECT_EQ(lines[1], "|---|---|---|---|---|---:|");
    EXPECT_TRUE(lines[2].starts_with("| [1] | `" + sweep61 + "` | unknown | 6.1.0-57-amd64 |"))
        << lines[2];
    const auto heading =
        std::find(lines.begin(), lines.end(), "### stat-reader ops_per_sec (ops/s) by flush_mode");
    ASSERT_NE(heading, lines.end()) << r.out;
    ASSERT_EQ(*(heading + 1), "");
    const auto& header = *(heading + 2);
    EXPECT_TRUE(
        header.starts_with("| metric | flush_mode | [1] 6.1.0-57-amd64 (3 runs) | [2] "
                           "6.12.95+deb12-amd64 (3 runs) | Δ [2] vs [1] ± 95% CI | p [2] |"))
        << header;
    EXPECT_EQ(*(heading + 3), "|---|---|---:|---:|---:|---:|");
    // Every line of the table has as many cells as the header; the figure's rows first.
    std::size_t rows = 0;
    for (auto it = heading + 4; it != lines.end() && it->starts_with("|"); ++it, ++rows) {
        EXPECT_EQ(md_cells(*it).size(), 6U) << *it;
        EXPECT_TRUE(it->ends_with(" |")) << *it;
        if (rows < 3) {
            EXPECT_TRUE(it->starts_with("| `ops_per_sec` | ")) << *it;
        }
    }
    EXPECT_GE(rows, 3U);
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [](const std::string& l) {
                                return l.starts_with("- flush_mode=") &&
                                       l.find(": ops_per_sec on 6.12.95+deb12-amd64 ") !=
                                           std::string::npos;
                            }),
              3);
    EXPECT_EQ(r.out.find("0.00%)"), std::string::npos);
}

TEST(CompareJson, Version3RowsIntervalAndSummary) {
    const auto r = cli({"--json", sweep61, sweep612});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = Json::parse(r.out);
    EXPECT_EQ(j["schema_version"], 3);
    EXPECT_EQ(j["all"], false);
    EXPECT_EQ(j["files"][0]["label"], "6.1.0-57-amd64");
    const auto& series = j["series"][0];
    for (const auto& row : series["rows"]) {
        EXPECT_TRUE(row["differs"].get<bool>() || row["metric"] == "ops_per_sec") << row.dump();
    }
    const auto& figure = series["rows"][0]["files"][1];
    EXPECT_TRUE(figure["percent_change_ci95"].is_number());
    EXPECT_TRUE(figure["noise"].is_boolean());
    EXPECT_EQ(series["summary"].size(), 3U);
    const auto every = Json::parse(cli({"--json", "--all", sweep61, sweep612}).out);
    EXPECT_EQ(every["hidden_rows"], 0);
    EXPECT_EQ(every["series"][0]["rows"].size(),
              series["rows"].size() + j["hidden_rows"].get<std::size_t>());
}

TEST(CompareCli, ParametersOlderFilesLackAreTheirDefaults) {
    const testing::TempDir dir;
    const auto write = [&](const std::string& name, const Json& doc) {
        auto file = (dir.path() / name).string();
        std::ofstream(file) << doc.dump();
        return file;
    };
    // Written before --warmup-runs, --prepare and --cleanup: it ran with none.
    auto doc = load(sweep612);
    doc["parameters"]["warmup_runs"] = 0;
    doc["parameters"]["prepare"] = nullptr;
    doc["parameters"]["cleanup"] = nullptr;
    const auto same = cli({sweep61, write("same.json", doc)});
    EXPECT_EQ(same.code, 0) << same.err;
    doc["parameters"]["warmup_runs"] = 2;
    doc["parameters"]["prepare"] = "sync";
    const auto other = write("other.json", doc);
    const auto differ = cli({sweep61, other});
    EXPECT_EQ(differ.code, 1);
    EXPECT_EQ(differ.err, fmt::format("memcg-statctl: the files did not measure the same "
                                      "thing:\n  {0}: parameters.warmup_runs is 2, {1} has 0\n"
                                      "  {0}: parameters.prepare is sync, {1} has null\n"
                                      "(--allow-mismatch compares them anyway)\n",
                                      other, sweep61));
}

// A sweep of several knobs: its knob names them all, its values name every knob's.
Json several_knobs(Json doc) {
    const auto value = [](const Json& v) {
        return Json(fmt::format("flush_mode={} update_flush_every=0", v.get<std::string>()));
    };
    doc["knob"] = "flush_mode,update_flush_every";
    doc["parameters"]["knob"] = doc["knob"];
    doc["parameters"]["knobs"] = {{"flush_mode", doc["parameters"]["values"]},
                                  {"update_flush_every", {"0"}}};
    for (auto& v : doc["parameters"]["values"]) {
        v = value(v);
    }
    for (auto* list : {&doc["runs"], &doc["rows"]}) {
        for (auto& item : *list) {
            item["value"] = value(item["value"]);
        }
    }
    return doc;
}

TEST(CompareCli, SweepsOfSeveralKnobs) {
    const testing::TempDir dir;
    const auto a = (dir.path() / "a.json").string();
    const auto b = (dir.path() / "b.json").string();
    std::ofstream(a) << several_knobs(load(sweep61)).dump();
    std::ofstream(b) << several_knobs(load(sweep612)).dump();
    const auto r = cli({a, b});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(" by flush_mode,update_flush_every\n"), std::string::npos) << r.out;
    // The summary lines name the row once, not as `flush_mode,update_flush_every=...`.
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex("\n  flush_mode=never update_flush_every=0: ops_per_sec on "
                          "6\\.12\\.[^ ]+ [-+][0-9.]+% ")))
        << r.out;
    EXPECT_EQ(r.out.find("update_flush_every=flush_mode"), std::string::npos) << r.out;
    // Against the one-knob sweep: another knob and other values.
    const auto mixed = cli({sweep61, b});
    EXPECT_EQ(mixed.code, 1);
    EXPECT_NE(mixed.err.find(": knob is flush_mode,update_flush_every, "), std::string::npos)
        << mixed.err;
}

TEST(CompareCli, ExactErrors) {
    const auto missing = cli({sweep61, "/nonexistent/x.json"});
    EXPECT_EQ(missing.code, 1);
    EXPECT_EQ(missing.out, "");
    EXPECT_EQ(missing.err, "memcg-statctl: /nonexistent/x.json: cannot read the file (No such "
                           "file or directory)\n");

    const testing::TempDir dir;
    auto doc = load(sweep612);
    doc["metric"] = "seconds";
    doc["unit"] = "s";
    const auto other = (dir.path() / "seconds.json").string();
    std::ofstream(other) << doc.dump();
    const auto mismatched = cli({sweep61, other});
    EXPECT_EQ(mismatched.code, 1);
    EXPECT_EQ(mismatched.out, "");
    EXPECT_EQ(mismatched.err, fmt::format("memcg-statctl: the files did not measure the same "
                                          "thing:\n  {0}: metric is seconds, {1} has ops_per_sec\n"
                                          "  {0}: unit is s, {1} has ops/s\n(--allow-mismatch "
                                          "compares them anyway)\n",
                                          other, sweep61));

    const auto both = cli({"--markdown", "--json", sweep61, sweep612});
    EXPECT_EQ(both.code, 2);
    EXPECT_EQ(both.out, "");
    EXPECT_EQ(both.err, "memcg-statctl: --json excludes --markdown\nRun with --help for more "
                        "information.\n");
    EXPECT_EQ(cli({"--markdown", "--csv", sweep61, sweep612}).code, 2);
}

} // namespace
} // namespace memcg_statctl
