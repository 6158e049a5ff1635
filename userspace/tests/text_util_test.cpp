#include <gtest/gtest.h>

#include "text_util.h"

namespace memcg_statctl {
namespace {

TEST(TextUtil, ParseU64IsStrict) {
    EXPECT_EQ(parse_u64("0"), 0U);
    EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
    EXPECT_FALSE(parse_u64("18446744073709551616")); // overflow
    EXPECT_FALSE(parse_u64(""));
    EXPECT_FALSE(parse_u64("-1"));
    EXPECT_FALSE(parse_u64("+1"));
    EXPECT_FALSE(parse_u64(" 1"));
    EXPECT_FALSE(parse_u64("1x"));
    EXPECT_FALSE(parse_u64("0x10"));
}

TEST(TextUtil, SplitWhitespaceAndLines) {
    const auto f = split_whitespace("  a\tb   c ");
    ASSERT_EQ(f.size(), 3U);
    EXPECT_EQ(f[0], "a");
    EXPECT_EQ(f[2], "c");
    EXPECT_EQ(split_lines("a\nb\n").size(), 2U);
    EXPECT_EQ(split_lines("a\n\nb").size(), 3U);
    EXPECT_TRUE(split_lines("").empty());
}

TEST(TextUtil, EditDistanceCountsSwapsAsOneEdit) {
    EXPECT_EQ(edit_distance("status", "status"), 0U);
    EXPECT_EQ(edit_distance("stauts", "status"), 1U); // swap
    EXPECT_EQ(edit_distance("stauts", "stats"), 1U);  // deletion
    EXPECT_EQ(edit_distance("sweap", "sweep"), 1U);   // substitution
    EXPECT_EQ(edit_distance("rn", "run"), 1U);        // insertion
    EXPECT_EQ(edit_distance("", "get"), 3U);
    EXPECT_EQ(edit_distance("frobnicate", "status"), 9U);
}

TEST(TextUtil, ClosestNamesPreferSwapsAndInsertions) {
    const std::vector<std::string> names = {"status", "stats", "get",   "set",
                                            "reset",  "run",   "sweep", "experiment"};
    using V = std::vector<std::string>;
    EXPECT_EQ(closest_names("stauts", names), V{"status"}); // not "stats", also 1 edit
    EXPECT_EQ(closest_names("stat", names), V{"stats"});
    EXPECT_EQ(closest_names("gte", names), V{"get"});
    EXPECT_EQ(closest_names("rest", names), V{"reset"});
    EXPECT_EQ(closest_names("experimnet", names), V{"experiment"});
    EXPECT_EQ(closest_names("exp", names), V{"experiment"}); // a prefix
    EXPECT_EQ(closest_names("STATUS", names), V{"status"});
    EXPECT_EQ(closest_names("xet", names), (V{"get", "set"})); // a tie: both
    EXPECT_TRUE(closest_names("frobnicate", names).empty());
    EXPECT_TRUE(closest_names("x", names).empty());
    EXPECT_TRUE(closest_names("abc", names).empty());
}

TEST(TextUtil, FormatOrDash) {
    EXPECT_EQ(format_or_dash(98.4375, "{:.1f}"), "98.4");
    EXPECT_EQ(format_or_dash(1234.6, "{:.0f}"), "1235");
    EXPECT_EQ(format_or_dash(std::nullopt, "{:.1f}"), "-");
}

TEST(TextUtil, CsvFieldQuotesOnlyWhatRfc4180Needs) {
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field(""), "");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(TextUtil, SplitCommasKeepsEmptyItems) {
    EXPECT_EQ(split_commas("a,b,c"), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(split_commas("a,,c"), (std::vector<std::string>{"a", "", "c"}));
    EXPECT_EQ(split_commas("a"), (std::vector<std::string>{"a"}));
}

} // namespace
} // namespace memcg_statctl
