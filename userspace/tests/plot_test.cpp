#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "exit_code.h"
#include "fake_debugfs.h"
#include "output/plot.h"
#include "run/sweep.h"

namespace memcg_statctl {
namespace {

ComparisonReport report() {
    return compare("flush_mode", "slab",
                   {{"kernel", {100, 110}, {}, {}, {}}, {"never", {120, 130}, {}, {}, {}}});
}

TEST(Plot, FormatFromExtension) {
    EXPECT_EQ(plot_format_for("a/b.svg"), PlotFormat::svg);
    EXPECT_EQ(plot_format_for("b.png"), PlotFormat::png);
    EXPECT_THROW(plot_format_for("b.pdf"), ToolError);
    EXPECT_THROW(plot_format_for("svg"), ToolError);
}

TEST(Plot, ScriptGolden) {
    EXPECT_EQ(gnuplot_script(report(), "/tmp/o'ut.svg"),
              "set terminal svg size 800,500 dynamic noenhanced\n"
              "set output '/tmp/o''ut.svg'\n"
              "set title 'slab ops/s by flush_mode'\n"
              "set xlabel 'flush_mode'\n"
              "set ylabel 'ops/s'\n"
              "set yrange [0:*]\nset grid ytics\nset key off\n"
              "set style fill solid 0.5 border -1\nset boxwidth 0.6\n"
              "$data << EOD\n"
              "0 \"kernel\" 105 7.07107\n"
              "1 \"never\" 125 7.07107\n"
              "EOD\n"
              "plot $data using 1:3:xtic(2) with boxes, '' using 1:3:4 with yerrorbars lc rgb "
              "'black' pt -1\n");
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
