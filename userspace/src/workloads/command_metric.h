// `--metric REGEX`: the figure a user's command prints (will-it-scale's `average:` line, a
// database benchmark's tps) taken from its output by the first capture group of REGEX.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace memcg_statctl {

class CommandMetric {
public:
    // Throws ToolError(usage) for an invalid regular expression (ECMAScript syntax) or one
    // without a capture group.
    explicit CommandMetric(std::string pattern);
    const std::string& pattern() const { return pattern_; }

    // The number in the first capture group of the last output line that matches; nullopt
    // when no line matches or the group is not a number. The last line, because progress
    // lines printed while a benchmark runs come before its final summary.
    std::optional<double> find(std::string_view output) const;

private:
    std::string pattern_;
    std::regex regex_;
};

} // namespace memcg_statctl
