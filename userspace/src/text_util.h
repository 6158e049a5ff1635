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

// `v` formatted with the fmt `spec` (e.g. "{:.1f}"), or "-" for a missing figure in a table.
std::string format_or_dash(const std::optional<double>& v, const char* spec);

// One CSV field (RFC 4180): quoted when it holds a comma, quote or newline, inner quotes doubled.
std::string csv_field(const std::string& s);

// Splits "a,b,c" into its items; empty items are kept so callers can reject them.
std::vector<std::string> split_commas(std::string_view s);

// Restricted Damerau-Levenshtein ("optimal string alignment") distance: the fewest
// insertions, deletions, substitutions and swaps of two adjacent characters, each costing 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The names a mistyped `typed` most likely meant, for "did you mean ...?"; empty when none
// is close. Close (case-insensitive): at most max(1, size/3) edits away, or `typed` (3 or
// more characters) starts the name. The closest by git's weighting win (a swap costs 0, an
// insertion 1, a substitution 2, a deletion 3: "stauts" means "status", not "stats"); ties
// are all returned, in the order of `names`.
std::vector<std::string> closest_names(std::string_view typed,
                                       const std::vector<std::string>& names);

// Reads a whole file; throws ToolError naming the path and errno text on failure.
std::string read_file(const std::filesystem::path& path);

// Why DIR cannot take a new file ("no such directory", "not a directory", "not writable
// (errno text)"), or "" when it can. It creates and removes a probe file: access() says
// yes to root on a read-only file system.
std::string directory_problem(const std::filesystem::path& dir);

// Throws a usage error ("OPTION FILE: cannot write in DIR: why", exit 2) unless the
// directory FILE would go to takes new files: checked before any work.
void require_writable_dir(std::string_view option, const std::filesystem::path& file);

} // namespace memcg_statctl
