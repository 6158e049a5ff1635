#include "text_util.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

#include <fmt/core.h>

#include "exit_code.h"

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

std::string format_or_dash(const std::optional<double>& v, const char* spec) {
    return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) {
        return s;
    }
    std::string q = "\"";
    for (const char c : s) {
        q += c;
        if (c == '"') {
            q += '"';
        }
    }
    return q + "\"";
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

namespace {

struct EditCosts {
    std::size_t insertion = 1; // a character of `to` missing from `from`
    std::size_t deletion = 1;  // a character of `from` not in `to`
    std::size_t substitution = 1;
    std::size_t swap = 1; // two adjacent characters exchanged
};

// Optimal string alignment distance from `from` to `to`, with the given costs.
std::size_t weighted_distance(std::string_view from, std::string_view to, const EditCosts& c) {
    const auto n = from.size();
    const auto m = to.size();
    // d[i][j]: the cost of from[0, i) -> to[0, j).
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) {
        d[i][0] = i * c.deletion;
    }
    for (std::size_t j = 0; j <= m; ++j) {
        d[0][j] = j * c.insertion;
    }
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            const bool same = from[i - 1] == to[j - 1];
            d[i][j] = std::min({d[i - 1][j] + c.deletion, d[i][j - 1] + c.insertion,
                                d[i - 1][j - 1] + (same ? 0 : c.substitution)});
            if (i > 1 && j > 1 && from[i - 1] == to[j - 2] && from[i - 2] == to[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + c.swap);
            }
        }
    }
    return d[n][m];
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return out;
}

} // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
    return weighted_distance(a, b, EditCosts{});
}

std::vector<std::string> closest_names(std::string_view typed,
                                       const std::vector<std::string>& names) {
    constexpr EditCosts git_costs{1, 3, 2, 0}; // git's help.c: "did you mean this?"
    const auto t = lower(typed);
    const auto max_edits = std::max<std::size_t>(1, t.size() / 3);
    std::vector<std::string> best;
    auto best_score = std::numeric_limits<std::size_t>::max();
    for (const auto& name : names) {
        const auto n = lower(name);
        const bool close =
            edit_distance(t, n) <= max_edits || (t.size() >= 3 && n.rfind(t, 0) == 0);
        if (!close) {
            continue;
        }
        const auto score = weighted_distance(t, n, git_costs);
        if (score < best_score) {
            best.clear();
            best_score = score;
        }
        if (score == best_score) {
            best.push_back(name);
        }
    }
    return best;
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

std::string directory_problem(const std::filesystem::path& dir) {
    std::error_code ec;
    const auto status = std::filesystem::status(dir, ec);
    if (!std::filesystem::exists(status)) {
        return "no such directory";
    }
    if (!std::filesystem::is_directory(status)) {
        return "not a directory";
    }
    std::string probe = (dir / ".memcg_statctl.probe.XXXXXX").string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0) {
        return fmt::format("not writable ({})", std::strerror(errno));
    }
    ::close(fd);
    ::unlink(probe.c_str());
    return {};
}

void require_writable_dir(std::string_view option, const std::filesystem::path& file) {
    const auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    if (const auto problem = directory_problem(dir); !problem.empty()) {
        throw ToolError(ExitCode::usage, fmt::format("{} {}: cannot write in {}: {}", option,
                                                     file.string(), dir.string(), problem));
    }
}

} // namespace memcg_statctl
