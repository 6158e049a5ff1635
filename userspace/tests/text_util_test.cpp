#include <gtest/gtest.h>

#include "memcg_statctl/text_util.h"

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

TEST(TextUtil, SplitCommasKeepsEmptyItems) {
    EXPECT_EQ(split_commas("a,b,c"), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(split_commas("a,,c"), (std::vector<std::string>{"a", "", "c"}));
    EXPECT_EQ(split_commas("a"), (std::vector<std::string>{"a"}));
}

} // namespace
} // namespace memcg_statctl
