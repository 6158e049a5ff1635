// What a sweep can check without the module it checks first, as usage errors (exit 2), so
// that no module (exit 3) hides them and no typo surfaces after the first runs; then, with
// the module, its knob and values before any cgroup is made.
#include <cstdlib>
#include <regex>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "debugfs/client.h"
#include "fake_debugfs.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;
using testing::TempDir;

// `sweep ARGS` against a debugfs directory that does not exist: no module.
testing::CliResult sweep_without_module(const TempDir& dir, std::vector<std::string> args,
                                        std::vector<std::string> command = {}) {
    args.insert(args.begin(),
                {"--debugfs", (dir.path() / "absent" / "memcg_statctl").string(), "sweep"});
    if (!command.empty()) {
        args.emplace_back("--");
        args.insert(args.end(), command.begin(), command.end());
    }
    return CliRunner().run(args);
}

std::string regex_error_of(const std::string& pattern) {
    try {
        const std::regex r(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        return e.what();
    }
    return "";
}

TEST(ChecksFirst, SweepUsageErrorsComeBeforeTheModule) {
    const TempDir dir;
    const std::vector<std::string> knob = {"--knob", "flush_mode", "--values", "kernel,never"};
    const auto with = [&](std::vector<std::string> extra) {
        auto a = knob;
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    const auto missing = (dir.path() / "nodir").string();
    struct Case {
        std::vector<std::string> args;
        std::vector<std::string> command;
        std::string message;
    };
    const std::vector<Case> cases = {
        {with({"--metric", "avg: ([0-9.]+"}),
         {"true"},
         fmt::format("--metric 'avg: ([0-9.]+' is not a valid regular expression: {}",
                     regex_error_of("avg: ([0-9.]+"))},
        {with({"--metric", "average:\\s*[0-9.]+"}),
         {"true"},
         "--metric 'average:\\s*[0-9.]+' needs a capture group around the number, e.g. "
         "'average:\\s*([0-9.]+)'"},
        {with({"--metric", "x(1)", "--workload", "slab"}),
         {},
         "--metric reads a command's output: give the command after `--`"},
        {{"--knob", "flush_mod", "--values", "kernel", "--workload", "slab"},
         {},
         "unknown knob `flush_mod` (the knobs are: flush_mode, flush_threshold, "
         "flush_period_ms, update_flush_every, stock_hooks, objcg_flush_hooks, "
         "stock_attribution)"},
        {{"--knob", "flush_mode", "--values", "kernel,nevr", "--workload", "slab"},
         {},
         "--values: flush_mode rejects 'nevr': kernel, threshold, always or never"},
        {{"--knob", "flush_period_ms", "--values", "2000,5", "--workload", "slab"},
         {},
         "--values: flush_period_ms rejects '5': 0 (no periodic flush) or 10 .. 3600000"},
        {{"--knob", "stock_hooks", "--values", "0,1,2", "--workload", "slab"},
         {},
         "--values: stock_hooks rejects '2': 0 or 1"},
        {with({"--workload", "slab", "--output", missing + "/r.json"}),
         {},
         fmt::format("--output {}/r.json: cannot write in {}: no such directory", missing,
                     missing)},
        {with({"--workload", "slab", "--plot", "r.pdf"}),
         {},
         "--plot r.pdf: the file must end in .svg or .png"},
        {with({"--workload", "slab", "--plot", missing + "/r.svg"}),
         {},
         fmt::format("--plot {}/r.svg: cannot write in {}: no such directory", missing, missing)},
        {with({"--workload", "readtwice"}), {}, "readtwice needs --dir DIR (where its files go)"},
        {knob, {}, "give one of: a workload, a command after `--`, --cgroup or --pid"},
        // Several knobs: every knob and every value of each, before the module.
        {with({"--knob", "update_flush_every", "--workload", "slab"}),
         {},
         "give one --values after each --knob (got 2 --knob and 1 --values)"},
        {with({"--knob", "flush_mode", "--values", "never", "--workload", "slab"}),
         {},
         "--knob flush_mode given twice"},
        {with({"--knob", "stock_hooks", "--values", "0,2", "--workload", "slab"}),
         {},
         "--values: stock_hooks rejects '2': 0 or 1"},
        {with({"--knob", "flush_mod", "--values", "kernel", "--workload", "slab"}),
         {},
         "unknown knob `flush_mod` (the knobs are: flush_mode, flush_threshold, "
         "flush_period_ms, update_flush_every, stock_hooks, objcg_flush_hooks, "
         "stock_attribution)"},
        {with({"--workload", "slab", "--warmup-runs", "1001"}),
         {},
         "--warmup-runs must be between 0 and 1000"},
        {with({"--workload", "slab", "--warmup-runs", "x"}),
         {},
         "--warmup-runs must be an integer between 0 and 1000"},
    };
    for (const auto& c : cases) {
        const auto r = sweep_without_module(dir, c.args, c.command);
        EXPECT_EQ(r.code, 2) << c.message;
        EXPECT_EQ(r.err, "memcg-statctl: " + c.message + "\n");
        EXPECT_EQ(r.out, "");
    }
    // All good: only now the missing module; the workload given as in `run` or by name.
    for (const auto& workload :
         {std::vector<std::string>{"--workload", "slab"}, std::vector<std::string>{"slab"},
          std::vector<std::string>{"slab", "--knob", "update_flush_every", "--values", "0,128",
                                   "--warmup-runs", "2", "--prepare", "true", "--cleanup",
                                   "true"}}) {
        const auto r = sweep_without_module(dir, with(workload));
        EXPECT_EQ(r.code, 3);
        EXPECT_NE(r.err.find("debugfs not mounted"), std::string::npos) << r.err;
    }
}

// Sets PATH for its lifetime (the tests run in one thread).
class ScopedPath {
public:
    explicit ScopedPath(const std::string& path)
        : old_(std::getenv("PATH") != nullptr ? std::getenv("PATH") : "") {
        ::setenv("PATH", path.c_str(), 1); // NOLINT(concurrency-mt-unsafe): one thread
    }
    ScopedPath(const ScopedPath&) = delete;
    ScopedPath& operator=(const ScopedPath&) = delete;
    ScopedPath(ScopedPath&&) = delete;
    ScopedPath& operator=(ScopedPath&&) = delete;
    ~ScopedPath() {
        ::setenv("PATH", old_.c_str(), 1); // NOLINT(concurrency-mt-unsafe): one thread
    }

private:
    std::string old_;
};

TEST(ChecksFirst, PlotNeedsGnuplotBeforeAnyRun) {
    const TempDir dir;
    const auto svg = (dir.path() / "r.svg").string();
    const std::string message = "memcg-statctl: --plot " + svg +
                                ": gnuplot is not installed (apt-get install gnuplot-nox)\n";
    const ScopedPath no_gnuplot(dir.path().string());
    auto r = sweep_without_module(dir, {"--knob", "flush_mode", "--values", "kernel,never",
                                        "--workload", "slab", "--plot", svg});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, message);
    const std::string data = MEMCG_STATCTL_TEST_DATA "/compare/";
    r = CliRunner().run({"compare", "--plot", svg, data + "sweep-stat-reader-6.1.json",
                         data + "sweep-stat-reader-6.12.json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, message);
    EXPECT_EQ(r.out, "");
    r = CliRunner().run({"--debugfs", (dir.path() / "absent" / "memcg_statctl").string(),
                         "experiment", "update-flush", "--plot", svg, "--output",
                         (dir.path() / "e.json").string()});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, message);
}

TEST(ChecksFirst, WithTheModuleTheKnobMustExist) {
    const FakeDebugfs fake;
    const auto r = CliRunner().run({"--debugfs", fake.root_string(), "sweep", "--knob",
                                    "no_such_knob", "--values", "1,2", "--workload", "slab"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: unknown knob `no_such_knob` (the module has: flush_mode, "
                     "flush_period_ms)\n");
}

TEST(ChecksFirst, WithTheModuleEveryKnobMustExist) {
    const FakeDebugfs fake;
    const auto r = CliRunner().run({"--debugfs", fake.root_string(), "sweep", "--knob",
                                    "flush_mode", "--values", "kernel,never", "--knob",
                                    "no_such_knob", "--values", "1,2", "--workload", "slab"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: unknown knob `no_such_knob` (the module has: flush_mode, "
                     "flush_period_ms)\n");
}

TEST(ChecksFirst, FlushKnobRefusedWithoutFlushControlBeforeAnyRun) {
    const FakeDebugfs fake;
    fake.write("version", "module 0.1.0\nabi 1\nkernel 6.1.0-57-amd64\ngeneration 6.1\n"
                          "flush_control missing\nlockdown none\n");
    int writes = 0;
    CliRunner cli;
    cli.writer = [&](const std::filesystem::path&, std::string_view) {
        ++writes;
        return 0;
    };
    const auto r = cli.run({"--debugfs", fake.root_string(), "sweep", "--knob", "flush_mode",
                            "--values", "kernel,never", "--workload", "slab"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "memcg-statctl: flush_mode=never needs flush control, which this kernel's "
                     "module does not have (flush_control missing; see `memcg-statctl "
                     "status`)\n");
    EXPECT_EQ(writes, 0);
    // The second of several knobs too.
    const auto several =
        cli.run({"--debugfs", fake.root_string(), "sweep", "--knob", "flush_period_ms", "--values",
                 "2000", "--knob", "flush_mode", "--values", "kernel,never", "--workload", "slab"});
    EXPECT_EQ(several.code, 1);
    EXPECT_EQ(several.err, r.err);
    EXPECT_EQ(writes, 0);
}

TEST(ChecksFirst, KnobValuesAsTheModuleParsesThem) {
    EXPECT_EQ(knob_value_error("flush_mode", "never"), std::nullopt);
    EXPECT_EQ(knob_value_error("flush_threshold", "4611686018427387904"), std::nullopt); // 2^62
    EXPECT_NE(knob_value_error("flush_threshold", "4611686018427387905"), std::nullopt);
    EXPECT_NE(knob_value_error("flush_threshold", "+5"), std::nullopt);
    EXPECT_NE(knob_value_error("flush_threshold", " 5"), std::nullopt);
    EXPECT_EQ(knob_value_error("flush_period_ms", "0"), std::nullopt);
    EXPECT_EQ(knob_value_error("flush_period_ms", "10"), std::nullopt);
    EXPECT_EQ(knob_value_error("flush_period_ms", "3600000"), std::nullopt);
    EXPECT_NE(knob_value_error("flush_period_ms", "9"), std::nullopt);
    EXPECT_NE(knob_value_error("flush_period_ms", "3600001"), std::nullopt);
    EXPECT_EQ(knob_value_error("update_flush_every", "16777216"), std::nullopt); // 2^24
    EXPECT_NE(knob_value_error("update_flush_every", "16777217"), std::nullopt);
    EXPECT_EQ(knob_value_error("objcg_flush_hooks", "1"), std::nullopt);
    EXPECT_EQ(knob_value_error("stock_attribution", "1"), std::nullopt);
    EXPECT_EQ(knob_value_error("stock_attribution", "2"), "stock_attribution rejects '2': 0 or 1");
    EXPECT_FALSE(needs_flush_control("stock_attribution", "1"));
    EXPECT_EQ(knob_value_error("brand_new_knob", "anything"), std::nullopt); // the module's call
    EXPECT_FALSE(needs_flush_control("flush_mode", "kernel"));
    EXPECT_TRUE(needs_flush_control("flush_mode", "always"));
    EXPECT_TRUE(needs_flush_control("flush_threshold", "64"));
    EXPECT_FALSE(needs_flush_control("flush_period_ms", "2000"));
    EXPECT_TRUE(needs_flush_control("flush_period_ms", "0"));
    EXPECT_FALSE(needs_flush_control("update_flush_every", "0"));
    EXPECT_FALSE(needs_flush_control("stock_hooks", "0"));
}

} // namespace
} // namespace memcg_statctl
