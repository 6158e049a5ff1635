#include "memcg_statctl/text_util.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "memcg_statctl/exit_code.h"

namespace memcg_statctl {

std::vector<std::string_view> split_whitespace(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t pos = 0;
    while (pos < line.size()) {
        const auto start = line.find_first_not_of(" \t", pos);
        if (start == std::string_view::npos) {
            break;
        }
        const auto end = line.find_first_of(" \t", start);
        fields.push_back(line.substr(start, end == std::string_view::npos ? end : end - start));
        pos = end == std::string_view::npos ? line.size() : end;
    }
    return fields;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto nl = text.find('\n', pos);
        if (nl == std::string_view::npos) {
            lines.push_back(text.substr(pos));
            break;
        }
        lines.push_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return lines;
}

std::string_view trim(std::string_view s) {
    const auto start = s.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) {
        return {};
    }
    const auto end = s.find_last_not_of(" \t\r\n");
    return s.substr(start, end - start + 1);
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
    // from_chars accepts neither '+' nor leading spaces, but does accept '-' for signed
    // types only, so an unsigned parse that consumes everything is exactly "decimal u64".
    std::uint64_t value = 0;
    const auto* const end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, value);
    if (s.empty() || ec != std::errc() || ptr != end) {
        return std::nullopt;
    }
    return value;
}

std::optional<double> parse_double(std::string_view s) {
    double value = 0;
    const auto* const end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, value);
    if (s.empty() || ec != std::errc() || ptr != end) {
        return std::nullopt;
    }
    return value;
}

std::vector<std::string> split_commas(std::string_view s) {
    std::vector<std::string> items;
    std::size_t pos = 0;
    while (true) {
        const auto comma = s.find(',', pos);
        items.emplace_back(s.substr(pos, comma == std::string_view::npos ? comma : comma - pos));
        if (comma == std::string_view::npos) {
            break;
        }
        pos = comma + 1;
    }
    return items;
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        throw ToolError(fmt::format("cannot read {}: {}", path.string(), std::strerror(err)));
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) {
        throw ToolError(fmt::format("error reading {}", path.string()));
    }
    return buf.str();
}

} // namespace memcg_statctl
