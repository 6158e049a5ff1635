// What every strict parser of a debugfs file shares: its walk over the lines and its error.
#pragma once

#include <cstddef>
#include <cstdint>
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

// A counter's growth from `before` to `after`, two reads of one debugfs file: 0 where it
// went back (the module was reloaded or its counters reset between the reads).
inline std::uint64_t counter_delta(std::uint64_t after, std::uint64_t before) {
    return after >= before ? after - before : 0;
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
