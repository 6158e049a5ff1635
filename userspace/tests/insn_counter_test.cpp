#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "exit_code.h"
#include "run/insn_counter.h"

namespace memcg_statctl {
namespace {

TEST(MarkReply, ParsesThePluginsLine) {
    const auto r = parse_mark_reply("mark 17 123456789\r\n");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->seq, 17U);
    EXPECT_EQ(r->delta, 123456789U);
}

TEST(MarkReply, RejectsOtherLines) {
    EXPECT_FALSE(parse_mark_reply("total 5 marks 2 reply_dropped 0\n"));
    EXPECT_FALSE(parse_mark_reply("mark 17\n"));
    EXPECT_FALSE(parse_mark_reply("mark x 5\n"));
    EXPECT_FALSE(parse_mark_reply("mark 1 5 6\n"));
    EXPECT_FALSE(parse_mark_reply("mark 1 -5\n"));
    EXPECT_FALSE(parse_mark_reply(""));
}

// A FIFO stands in for the guest's serial port; a thread plays the plugin's reply.
class FifoPort : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("insn_counter_test." + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
        path_ = (dir_ / "port").string();
        ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
    std::string path_;
};

TEST_F(FifoPort, MarkReturnsTheCountAfterSkippingNoise) {
    InsnCounter counter(path_, std::chrono::seconds(10));
    std::thread plugin([this] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::ofstream port(path_);
        port << "\x1b[0m noise\nmark 3 1234\n" << std::flush;
    });
    EXPECT_EQ(counter.mark(), 1234U);
    plugin.join();
}

TEST_F(FifoPort, NoReplyIsAnErrorNamingThePort) {
    InsnCounter counter(path_, std::chrono::milliseconds(100));
    try {
        counter.mark();
        FAIL() << "mark() returned without a reply";
    } catch (const ToolError& e) {
        EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("MEMCG_STATCTL_INSN_TTY"), std::string::npos);
    }
}

TEST(InsnCounterEnvironment, UnsetMeansNoCounter) {
    ::unsetenv(insn_tty_variable); // NOLINT(concurrency-mt-unsafe)
    EXPECT_EQ(InsnCounter::from_environment(), nullptr);
}

TEST(InsnCounterEnvironment, MissingPortIsAnError) {
    ::setenv(insn_tty_variable, "/nonexistent/ttyS9", 1); // NOLINT(concurrency-mt-unsafe)
    EXPECT_THROW(InsnCounter::from_environment(), ToolError);
    ::unsetenv(insn_tty_variable); // NOLINT(concurrency-mt-unsafe)
}

} // namespace
} // namespace memcg_statctl
