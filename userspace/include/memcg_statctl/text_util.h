// Small string helpers shared by the strict parsers of the debugfs files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memcg_statctl {

// Splits on runs of spaces and tabs; no empty fields.
std::vector<std::string_view> split_whitespace(std::string_view line);

// Splits text into lines; a final newline does not produce an extra empty line.
std::vector<std::string_view> split_lines(std::string_view text);

std::string_view trim(std::string_view s);

// Whole-string decimal u64: no sign, no spaces, no overflow. nullopt otherwise.
std::optional<std::uint64_t> parse_u64(std::string_view s);

// Whole-string decimal double (for option values such as knob sweep points).
std::optional<double> parse_double(std::string_view s);

// Splits "a,b,c" into its items; empty items are kept so callers can reject them.
std::vector<std::string> split_commas(std::string_view s);

// Reads a whole file; throws ToolError naming the path and errno text on failure.
std::string read_file(const std::filesystem::path& path);

} // namespace memcg_statctl
