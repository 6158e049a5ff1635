// What every strict parser of a debugfs file shares: its walk over the lines and its error.
#pragma once

#include <cstddef>
#include <string_view>

#include <fmt/core.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

// Throws ToolError "malformed FILE line N: expected WHAT, got "LINE"" (exit 1).
[[noreturn]] inline void throw_malformed(std::string_view file, std::size_t line_no,
                                         std::string_view line, std::string_view expected) {
    throw ToolError(fmt::format("malformed {} line {}: expected {}, got \"{}\"", file, line_no,
                                expected, line));
}

// fn(line number from 1, line) for each line of `text` that is not blank.
template <typename Fn>
void each_line(std::string_view text, Fn&& fn) {
    std::size_t line_no = 0;
    for (const auto raw : split_lines(text)) {
        ++line_no;
        if (!trim(raw).empty()) {
            fn(line_no, raw);
        }
    }
}

} // namespace memcg_statctl
