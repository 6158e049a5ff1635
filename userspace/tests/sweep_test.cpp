#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "exit_code.h"
#include "fake_debugfs.h"
#include "output/output.h"
#include "output/plot.h"
#include "output/result_schema.h"
#include "run/sweep.h"

namespace memcg_statctl {
namespace {

TEST(Sweep, RoundsRunEveryValueInOrder) {
    EXPECT_EQ(sweep_order(3, 2),
              (std::vector<SweepStep>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
    EXPECT_TRUE(sweep_order(3, 0).empty());
    EXPECT_EQ(sweep_order(1, 3), (std::vector<SweepStep>{{0, 0}, {1, 0}, {2, 0}}));
}

TEST(Sweep, ParsesValues) {
    EXPECT_EQ(parse_sweep_values("kernel,never, always"),
              (std::vector<std::string>{"kernel", "never", "always"}));
    EXPECT_THROW(parse_sweep_values("a,,b"), ToolError);
    EXPECT_THROW(parse_sweep_values("a,b,a"), ToolError);
    EXPECT_THROW(parse_sweep_values(""), ToolError);
}

TEST(Sweep, PairsKnobsWithTheirValues) {
    const auto pairs =
        pair_knob_values({"flush_mode", "update_flush_every"}, {"kernel,never", "0, 128"});
    ASSERT_EQ(pairs.size(), 2U);
    EXPECT_EQ(pairs[0].knob, "flush_mode");
    EXPECT_EQ(pairs[0].values, (std::vector<std::string>{"kernel", "never"}));
    EXPECT_EQ(pairs[1].knob, "update_flush_every");
    EXPECT_EQ(pairs[1].values, (std::vector<std::string>{"0", "128"}));
    const auto usage = [](const std::vector<std::string>& knobs,
                          const std::vector<std::string>& values) {
        try {
            (void)pair_knob_values(knobs, values);
        } catch (const ToolError& e) {
            EXPECT_EQ(e.code(), ExitCode::usage);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(usage({"flush_mode", "update_flush_every"}, {"kernel,never"}),
              "give one --values after each --knob (got 2 --knob and 1 --values)");
    EXPECT_EQ(usage({"flush_mode"}, {"kernel", "0"}),
              "give one --values after each --knob (got 1 --knob and 2 --values)");
    EXPECT_EQ(usage({"flush_mode", "flush_mode"}, {"kernel", "never"}),
              "--knob flush_mode given twice");
    EXPECT_EQ(usage({"flush_mode", "update_flush_every"}, {"kernel", "0,,1"}),
              "--values \"0,,1\": empty item");
}

TEST(Sweep, CombinationsOfSeveralKnobsAndTheirNames) {
    const std::vector<KnobValues> one = {{"flush_mode", {"kernel", "never"}}};
    EXPECT_EQ(knob_combinations(one),
              (std::vector<std::vector<std::string>>{{"kernel"}, {"never"}}));
    // One knob: rows named by the value alone, as sweeps always did.
    EXPECT_EQ(row_value(one, {"never"}), "never");
    EXPECT_EQ(setting_name(one, {"never"}), "flush_mode=never");
    EXPECT_EQ(knobs_label(one), "flush_mode");

    const std::vector<KnobValues> three = {{"flush_mode", {"kernel", "never"}},
                                           {"update_flush_every", {"0", "128"}},
                                           {"flush_period_ms", {"2000"}}};
    EXPECT_EQ(knob_combinations(three), (std::vector<std::vector<std::string>>{
                                            {"kernel", "0", "2000"},
                                            {"kernel", "128", "2000"},
                                            {"never", "0", "2000"},
                                            {"never", "128", "2000"},
                                        }));
    EXPECT_EQ(row_value(three, {"never", "128", "2000"}),
              "flush_mode=never update_flush_every=128 flush_period_ms=2000");
    EXPECT_EQ(knobs_label(three), "flush_mode,update_flush_every,flush_period_ms");
    EXPECT_TRUE(knob_combinations({}).empty());
}

// A sweep of two knobs as the outputs show it: the knobs' names as the knob, each row
// named by its setting of both.
TEST(Sweep, SeveralKnobsInTextCsvAndJson) {
    const std::vector<KnobValues> knobs = {{"flush_mode", {"kernel", "never"}},
                                           {"update_flush_every", {"0"}}};
    std::vector<ValueRuns> values;
    for (const auto& c : knob_combinations(knobs)) {
        values.push_back({row_value(knobs, c), {10, 12}, {}, {1, 1}, {}, {}, {}});
    }
    auto report = compare(knobs_label(knobs), "slab", values);
    report.parameters["knob"] = report.knob;
    std::ostringstream text;
    make_output(OutputFormat::text, text)->comparison(report);
    EXPECT_NE(text.str().find(
                  "slab ops_per_sec (ops/s) by flush_mode,update_flush_every (2 runs per value)\n"),
              std::string::npos)
        << text.str();
    EXPECT_TRUE(
        std::regex_search(text.str(), std::regex("\nflush_mode=never update_flush_every=0 +2 ")))
        << text.str();
    std::ostringstream csv;
    make_output(OutputFormat::csv, csv)->comparison(report);
    EXPECT_NE(csv.str().find("\n\"flush_mode,update_flush_every\",flush_mode=kernel "
                             "update_flush_every=0,2,11,"),
              std::string::npos)
        << csv.str();
    const auto doc = sweep_document(report);
    EXPECT_EQ(doc["knob"], "flush_mode,update_flush_every");
    EXPECT_EQ(doc["rows"][1]["value"], "flush_mode=never update_flush_every=0");
    // The plot: one knob a line below each bar (gnuplot reads \n in a data string).
    const testing::TempDir dir;
    const auto svg = dir.path() / "knobs.svg";
    EXPECT_NE(gnuplot_script(report, svg).find("\n1 \"flush_mode=never\\nupdate_flush_every=0\" "),
              std::string::npos)
        << gnuplot_script(report, svg);
    write_plot(report, svg);
    std::ifstream in(svg);
    const std::string plot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(plot.find(">flush_mode=never<"), std::string::npos);
    EXPECT_NE(plot.find(">update_flush_every=0<"), std::string::npos);
}

TEST(Sweep, KnobRestoredOnNormalExitAndOnError) {
    const testing::FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    {
        const KnobRestorer restore(client, "flush_mode");
        client.write_knob("flush_mode", "never");
        EXPECT_EQ(fake.read("flush_mode"), "never\n");
    }
    EXPECT_EQ(fake.read("flush_mode"), "kernel\n");
    try {
        const KnobRestorer restore(client, "flush_mode");
        client.write_knob("flush_mode", "always");
        throw ToolError("run failed");
    } catch (const ToolError&) {
    }
    EXPECT_EQ(fake.read("flush_mode"), "kernel\n");
}

TEST(Sweep, KnobNotRestoredIntoAnUnloadedModule) {
    const testing::FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    ::testing::internal::CaptureStderr();
    {
        const KnobRestorer restore(client, "flush_mode");
        client.write_knob("flush_mode", "never");
        std::filesystem::remove_all(fake.root()); // rmmod
    }
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), ""); // no warning: nothing to restore
    EXPECT_FALSE(std::filesystem::exists(fake.root()));      // and nothing written
}

TEST(Sweep, CliValidation) {
    const testing::FakeDebugfs fake;
    testing::CliRunner cli;
    const auto base = std::vector<std::string>{"--debugfs", fake.root_string(), "sweep"};
    auto with = [&](std::vector<std::string> extra) {
        auto a = base;
        a.insert(a.end(), extra.begin(), extra.end());
        return cli.run(a);
    };
    EXPECT_EQ(with({"--values", "a,b", "--workload", "slab"}).code, 2); // no --knob
    EXPECT_EQ(with({"--knob", "flush_mode", "--values", "a", "--workload", "x"}).code, 2);
    EXPECT_EQ(with({"--knob", "k", "--values", "a", "--workload", "slab", "--json", "--csv"}).code,
              2);
    EXPECT_EQ(with({"--knob", "k", "--values", "a,,b", "--workload", "slab"}).code, 2);
    EXPECT_EQ(with({"--knob", "k", "--values", "a", "--workload", "slab", "--plot", "x.pdf"}).code,
              2);
    const auto r = with({"--knob", "nope", "--values", "a", "--workload", "slab"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("unknown knob `nope`"), std::string::npos) << r.err;
    EXPECT_EQ(cli.run({"--debugfs", (fake.root() / "x").string(), "sweep", "--knob", "flush_mode",
                       "--values", "never", "--workload", "slab"})
                  .code,
              3);
}

TEST(Run, CliValidation) {
    testing::CliRunner cli;
    EXPECT_EQ(cli.run({"run"}).code, 2);
    EXPECT_EQ(cli.run({"run", "nope"}).code, 2);
    EXPECT_EQ(cli.run({"run", "slab", "--cgroups", "0"}).code, 2);
    EXPECT_EQ(cli.run({"run", "page-fault", "--mode", "huge"}).code, 2);
    EXPECT_EQ(cli.run({"run", "readtwice"}).code, 2); // needs --dir
}

} // namespace
} // namespace memcg_statctl
