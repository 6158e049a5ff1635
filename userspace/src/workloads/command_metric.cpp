#include "workloads/command_metric.h"

#include <fmt/format.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

CommandMetric::CommandMetric(std::string pattern) : pattern_(std::move(pattern)) {
    try {
        regex_ = std::regex(pattern_, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw ToolError(
            ExitCode::usage,
            fmt::format("--metric '{}' is not a valid regular expression: {}", pattern_, e.what()));
    }
    if (regex_.mark_count() < 1) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--metric '{}' needs a capture group around the number, "
                                    "e.g. 'average:\\s*([0-9.]+)'",
                                    pattern_));
    }
}

std::optional<double> CommandMetric::find(std::string_view output) const {
    std::optional<double> found;
    for (const auto line : split_lines(output)) {
        std::match_results<std::string_view::const_iterator> m;
        if (std::regex_search(line.begin(), line.end(), m, regex_) && m[1].matched) {
            found = parse_double(trim(std::string_view(&*m[1].first, m[1].length())));
        }
    }
    return found;
}

} // namespace memcg_statctl
