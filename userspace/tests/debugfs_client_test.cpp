#include <algorithm>
#include <iterator>
#include <optional>

#include <gtest/gtest.h>

#include "debugfs/client.h"
#include "exit_code.h"
#include "fake_debugfs.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

using testing::FakeDebugfs;

TEST(DebugfsClient, ReadsTheThreeFiles) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    EXPECT_EQ(client.availability(), Availability::available);
    EXPECT_EQ(client.version().get("kernel"), "6.1.0-57-amd64");
    EXPECT_EQ(client.hooks().size(), 4U);
    EXPECT_EQ(client.stats().get("flush.requests"), 1234U);
}

TEST(DebugfsClient, StockAttributionIsOptionalAndNoKnob) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    EXPECT_EQ(client.stock_attribution(), std::nullopt); // a module older than the file
    fake.write("stock_by_cgroup", testing::sample_stock_by_cgroup);
    const auto a = client.stock_attribution();
    ASSERT_TRUE(a.has_value());
    EXPECT_TRUE(a->on());
    EXPECT_EQ(a->cgroups.size(), 2U);
    EXPECT_FALSE(client.is_knob("stock_by_cgroup")); // read-only
    fake.write("stock_by_cgroup", "state on\n");     // no `other` line
    EXPECT_THROW((void)client.stock_attribution(), ToolError);
}

TEST(DebugfsClient, DiscoversKnobsFromWritableFiles) {
    const FakeDebugfs fake;
    using std::filesystem::perms;
    // A knob added by a newer module shows up without a tool change.
    fake.write("brand_new_knob", "7\n", perms::owner_read | perms::owner_write);
    const DebugfsClient client(fake.root());
    EXPECT_EQ(client.knob_names(),
              (std::vector<std::string>{"brand_new_knob", "flush_mode", "flush_period_ms"}));
    EXPECT_TRUE(client.is_knob("flush_mode"));
    EXPECT_FALSE(client.is_knob("reset"));
    EXPECT_FALSE(client.is_knob("stats"));
    EXPECT_EQ(client.read_knob("flush_period_ms"), "2000");
}

TEST(DebugfsClient, WritesKnobsAndReset) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    client.write_knob("flush_period_ms", "500");
    EXPECT_EQ(fake.read("flush_period_ms"), "500\n");
    client.reset_counters();
    EXPECT_EQ(fake.read("reset"), "1\n");
}

TEST(DebugfsClient, RejectedWriteNamesKnobAndValue) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root(), [](const auto&, std::string_view) { return EINVAL; });
    try {
        client.write_knob("flush_mode", "sometimes");
        FAIL() << "expected ToolError";
    } catch (const ToolError& e) {
        EXPECT_EQ(e.code(), ExitCode::failure);
        EXPECT_EQ(std::string(e.what()),
                  "flush_mode rejects 'sometimes': kernel, threshold, always or never");
    }
    EXPECT_EQ(fake.read("flush_mode"), "kernel\n");
}

TEST(DebugfsClient, AcceptedValuesAreThoseOfAbiMd) {
    // Every row of the knob table of module/ABI.md: "| `knob` | values | default |".
    const auto abi_md = read_file(MEMCG_STATCTL_ABI_MD);
    const auto table = abi_md.find("## Knobs");
    ASSERT_NE(table, std::string::npos);
    int rows = 0;
    for (const auto line : split_lines(std::string_view(abi_md).substr(table))) {
        if (line.rfind("| `", 0) != 0) {
            continue;
        }
        std::vector<std::string> cols;
        std::string cell;
        for (const char c : line.substr(1)) {
            if (c == '|') {
                cols.emplace_back(trim(cell));
                cell.clear();
            } else {
                cell += c;
            }
        }
        ASSERT_GE(cols.size(), 2U) << line;
        const auto knob = cols[0].substr(1, cols[0].size() - 2); // `flush_mode`
        // "`kernel` `threshold` `always` `never`" reads "kernel, threshold, always or never";
        // any other cell is taken without its backticks.
        std::string expected;
        const auto words = split_whitespace(cols[1]);
        if (std::all_of(words.begin(), words.end(), [](auto w) {
                return w.size() > 2 && w.front() == '`' && w.back() == '`';
            })) {
            for (std::size_t i = 0; i < words.size(); ++i) {
                expected += i == 0 ? "" : (i + 1 == words.size() ? " or " : ", ");
                expected += words[i].substr(1, words[i].size() - 2);
            }
        } else {
            std::remove_copy(cols[1].begin(), cols[1].end(), std::back_inserter(expected), '`');
        }
        EXPECT_EQ(knob_accepted_values(knob), std::optional<std::string_view>(expected)) << knob;
        ++rows;
    }
    EXPECT_GE(rows, 5); // the table was found and read
    EXPECT_EQ(knob_accepted_values("brand_new_knob"), std::nullopt);
}

TEST(DebugfsClient, UnknownKnobIsAnError) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    EXPECT_THROW(client.write_knob("stats", "1"), ToolError);
    EXPECT_THROW(client.write_knob("nope", "1"), ToolError);
}

TEST(Availability, MissingModuleDirectory) {
    const testing::TempDir dir;
    EXPECT_EQ(probe_availability(dir.path() / "memcg_statctl"), Availability::module_not_loaded);
    EXPECT_EQ(probe_availability(dir.path() / "nodebugfs" / "memcg_statctl"),
              Availability::debugfs_not_mounted);
    try {
        require_available(dir.path() / "memcg_statctl");
        FAIL() << "expected ToolError";
    } catch (const ToolError& e) {
        EXPECT_EQ(e.code(), ExitCode::unavailable);
        EXPECT_NE(std::string(e.what()).find("insmod memcg_statctl.ko"), std::string::npos);
    }
}

TEST(Availability, MessagesSayWhatToDo) {
    EXPECT_NE(availability_message(Availability::debugfs_not_mounted, default_debugfs_root)
                  .find("mount -t debugfs none /sys/kernel/debug"),
              std::string::npos);
    EXPECT_NE(availability_message(Availability::module_not_loaded, default_debugfs_root)
                  .find("modprobe memcg_statctl"),
              std::string::npos);
    EXPECT_NE(availability_message(Availability::not_root, default_debugfs_root).find("root"),
              std::string::npos);
}

// What `op` throws: its exit code and message (fails the test if it throws nothing).
template <typename Op>
std::pair<ExitCode, std::string> error_of(Op op) {
    try {
        op();
    } catch (const ToolError& e) {
        return {e.code(), e.what()};
    }
    ADD_FAILURE() << "expected ToolError";
    return {ExitCode::ok, ""};
}

TEST(Vanished, MessagesNameWhatDisappeared) {
    EXPECT_EQ(vanished_message(Availability::module_not_loaded, default_debugfs_root),
              "memcg_statctl module was unloaded during the run "
              "(/sys/kernel/debug/memcg_statctl is gone)");
    EXPECT_EQ(vanished_message(Availability::debugfs_not_mounted, default_debugfs_root),
              "debugfs is no longer mounted at /sys/kernel/debug (unmounted during the run)");
    for (const auto a : {Availability::module_not_loaded, Availability::debugfs_not_mounted,
                         Availability::not_root}) {
        EXPECT_EQ(vanished_message(a, default_debugfs_root).find('\n'), std::string::npos);
    }
}

TEST(Vanished, ModuleUnloadedAfterTheStart) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    client.require_module();
    EXPECT_NO_THROW(client.require_still_module());
    std::filesystem::remove_all(fake.root()); // what rmmod does to the directory
    const std::string unloaded = "memcg_statctl module was unloaded during the run";
    for (const auto& [code, what] :
         {error_of([&] { client.require_still_module(); }), error_of([&] { (void)client.stats(); }),
          error_of([&] { client.write_knob("flush_mode", "always"); }),
          error_of([&] { (void)client.read_knob("flush_mode"); }),
          error_of([&] { client.reset_counters(); })}) {
        EXPECT_EQ(code, ExitCode::unavailable) << what;
        EXPECT_EQ(what.rfind(unloaded, 0), 0U) << what;
    }
}

TEST(Vanished, DebugfsUnmountedAfterTheStart) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    client.require_module();
    // The mount point itself gone stands in for it (only /sys/kernel/debug is checked
    // for the debugfs file system type).
    std::filesystem::remove_all(fake.root().parent_path());
    for (const auto& [code, what] :
         {error_of([&] { client.require_still_module(); }), error_of([&] { (void)client.stats(); }),
          error_of([&] { client.write_knob("flush_mode", "never"); })}) {
        EXPECT_EQ(code, ExitCode::unavailable) << what;
        EXPECT_NE(what.find("debugfs is no longer mounted at"), std::string::npos) << what;
    }
}

TEST(Vanished, OtherErrorsAreNotBlamedOnAVanishedModule) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    std::filesystem::remove(fake.root() / "stats");
    const auto [code, what] = error_of([&] { (void)client.stats(); });
    EXPECT_EQ(code, ExitCode::failure);
    EXPECT_NE(what.find("cannot read"), std::string::npos) << what;
}

} // namespace
} // namespace memcg_statctl
