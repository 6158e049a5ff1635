#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "exit_code.h"
#include "fake_debugfs.h"
#include "output/plot.h"
#include "run/sweep.h"

namespace memcg_statctl {
namespace {

ComparisonReport report() {
    return compare(
        "flush_mode", "slab",
        {{"kernel", {100, 110}, {}, {}, {}, {}, {}}, {"never", {120, 130}, {}, {}, {}, {}, {}}});
}

TEST(Plot, FormatFromExtension) {
    EXPECT_EQ(plot_format_for("a/b.svg"), PlotFormat::svg);
    EXPECT_EQ(plot_format_for("b.png"), PlotFormat::png);
    EXPECT_THROW(plot_format_for("b.pdf"), ToolError);
    EXPECT_THROW(plot_format_for("svg"), ToolError);
}

TEST(Plot, ScriptGolden) {
    auto r = report();
    r.environment.kernel = "6.1.0-57-amd64";
    r.environment.module_version = "0.1.0";
    EXPECT_EQ(gnuplot_script(r, "/tmp/o'ut.svg"),
              "set encoding utf8\n"
              "set terminal svg size 800,500 dynamic noenhanced\n"
              "set output '/tmp/o''ut.svg'\n"
              "set title 'slab ops/s by flush_mode' . \"\\n\" . 'kernel 6.1.0-57-amd64, host "
              "unknown, module 0.1.0'\n"
              "set xlabel 'flush_mode'\n"
              "set ylabel 'ops/s'\n"
              "set yrange [0:*]\nset grid ytics\n"
              "set key below center vertical Left reverse samplen 2 height 1\n"
              "set style fill solid 0.5 border -1\nset boxwidth 0.6\n"
              "$data << EOD\n"
              "0 \"kernel\" 105 7.07107\n"
              "1 \"never\" 125 7.07107\n"
              "EOD\n"
              "plot $data using 1:3:xtic(2) with boxes title 'mean ops/s', '' using 1:3:4 with "
              "yerrorbars lc rgb 'black' pt 7 ps 0.5 title 'error bars: ± 1 sd over 2 runs'\n");
}

TEST(Plot, ErrorBarsAndMetadataSaySoOneWay) {
    EXPECT_EQ(error_bars_text(3, 3), "error bars: ± 1 sd over 3 runs");
    EXPECT_EQ(error_bars_text(2, 3), "error bars: ± 1 sd over 2 to 3 runs");
    EXPECT_EQ(error_bars_text(1, 1), "no error bars: 1 run per value");
    EXPECT_EQ(environment_text({}), "kernel unknown, host unknown, module unknown");
}

// A real sweep's plot: the guest's sweep of flush_mode on 6.1 (tests/data/compare), drawn by
// the same routine as `sweep --plot`. With MEMCG_STATCTL_PLOT_DIR set to a directory, the
// plot is kept there as sweep-example.svg and .png (docs/images/sweep-example.svg was made so).
TEST(Plot, RealSweepFromTheTestData) {
    std::ifstream in(std::string(MEMCG_STATCTL_TEST_DATA) + "/compare/sweep-stat-reader-6.1.json");
    const auto doc = nlohmann::json::parse(in);
    std::vector<ValueRuns> values;
    for (const auto& row : doc["rows"]) {
        ValueRuns v;
        v.value = row["value"].get<std::string>();
        for (const auto& run : doc["runs"]) {
            if (run["value"] == v.value) {
                v.samples.push_back(run[doc["metric"].get<std::string>()].get<double>());
            }
        }
        values.push_back(v);
    }
    auto r = compare(doc["knob"].get<std::string>(), doc["workload"].get<std::string>(), values);
    r.metric = doc["metric"].get<std::string>();
    r.unit = doc["unit"].get<std::string>();
    const auto& env = doc["environment"];
    r.environment.kernel = env["kernel"].get<std::string>();
    r.environment.host = env.value("host", std::string());
    r.environment.module_version = env["module_version"].get<std::string>();
    const testing::TempDir dir;
    const char* keep = std::getenv("MEMCG_STATCTL_PLOT_DIR"); // NOLINT(concurrency-mt-unsafe)
    const auto out = keep != nullptr ? std::filesystem::path(keep) : dir.path();
    const auto file = out / "sweep-example.svg";
    write_plot(r, file);
    write_plot(r, out / "sweep-example.png");
    std::ifstream svg(file);
    std::stringstream s;
    s << svg.rdbuf();
    EXPECT_NE(s.str().find("error bars: ± 1 sd over 3 runs"), std::string::npos);
    EXPECT_NE(s.str().find("kernel 6.1.0-57-amd64, host unknown, module 0.1.0"), std::string::npos);
}

TEST(Plot, GnuplotWritesSvgAndPng) {
    const testing::TempDir dir;
    write_plot(report(), dir.path() / "p.svg");
    std::ifstream svg(dir.path() / "p.svg");
    std::stringstream s;
    s << svg.rdbuf();
    EXPECT_NE(s.str().find("<svg"), std::string::npos);
    // Knob names have underscores: printed as they are, not as enhanced-text subscripts.
    EXPECT_NE(s.str().find(">flush_mode<"), std::string::npos);
    write_plot(report(), dir.path() / "p.png");
    std::ifstream png(dir.path() / "p.png", std::ios::binary);
    std::string magic(4, '\0');
    png.read(magic.data(), 4);
    EXPECT_EQ(magic, "\x89PNG");
}

// A gnuplot that exits without reading closes the pipe under a script larger than the pipe's
// buffer: the write fails, which is an error to report, not a SIGPIPE that kills the tool.
TEST(Plot, GnuplotThatExitsAtOnceIsAnErrorNotASignal) {
    const testing::TempDir dir;
    {
        std::ofstream fake(dir.path() / "gnuplot");
        fake << "#!/bin/sh\nexit 0\n";
    }
    std::filesystem::permissions(dir.path() / "gnuplot", std::filesystem::perms::owner_all);
    const std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
    ::setenv("PATH", dir.path().c_str(), 1); // NOLINT(concurrency-mt-unsafe): one thread
    const std::string big(1 << 20, '#');
    EXPECT_THROW(run_gnuplot(big, dir.path() / "p.svg"), ToolError);
    ::setenv("PATH", path.c_str(), 1); // NOLINT(concurrency-mt-unsafe): one thread
}

} // namespace
} // namespace memcg_statctl
