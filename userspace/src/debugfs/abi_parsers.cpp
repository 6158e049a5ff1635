#include "debugfs/abi_parsers.h"

#include <algorithm>
#include <cctype>

#include <fmt/core.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

[[noreturn]] void malformed(std::string_view file, std::size_t line_no, std::string_view line,
                            std::string_view expected) {
    throw ToolError(fmt::format("malformed {} line {}: expected {}, got \"{}\"", file, line_no,
                                expected, line));
}

// Counter, hook and key names: what the module uses, e.g. `flush.ns_total`.
bool is_name(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
    });
}

constexpr std::string_view hooks_header = "NAME TARGET CALLER MECHANISM STATE HITS";

} // namespace

std::string VersionInfo::get(std::string_view key) const {
    const auto it =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
    return it == entries.end() ? std::string() : it->second;
}

VersionInfo parse_version(std::string_view text) {
    VersionInfo info;
    std::size_t line_no = 0;
    for (const auto raw : split_lines(text)) {
        ++line_no;
        const auto line = trim(raw);
        if (line.empty()) {
            continue;
        }
        const auto space = line.find_first_of(" \t");
        const auto key = line.substr(0, space);
        const auto value =
            space == std::string_view::npos ? std::string_view{} : trim(line.substr(space));
        if (!is_name(key) || value.empty()) {
            malformed("version", line_no, raw, "`key value`");
        }
        if (!info.get(key).empty()) {
            malformed("version", line_no, raw, fmt::format("`{}` only once", key));
        }
        info.entries.emplace_back(key, value);
    }
    // Falco-style guard: check the interface version before trusting anything else.
    const auto abi = parse_u64(info.get("abi"));
    if (!abi) {
        throw ToolError("module `version` file has no valid `abi` line");
    }
    if (*abi != supported_abi) {
        throw ToolError(fmt::format("module speaks debugfs ABI {}, this tool speaks ABI {}: "
                                    "use the memcg-statctl built with the module",
                                    *abi, supported_abi));
    }
    return info;
}

std::vector<HookEntry> parse_hooks(std::string_view text) {
    std::vector<HookEntry> hooks;
    std::size_t line_no = 0;
    for (const auto raw : split_lines(text)) {
        ++line_no;
        const auto fields = split_whitespace(raw);
        if (fields.empty()) {
            continue;
        }
        // The ABI example shows a header; accept it (only as the first line) if present.
        if (hooks.empty() && line_no == 1 && trim(raw) == hooks_header) {
            continue;
        }
        constexpr auto expected = "`NAME TARGET CALLER MECHANISM STATE HITS`";
        if (fields.size() != 6) {
            malformed("hooks", line_no, raw, expected);
        }
        const auto hits = parse_u64(fields[5]);
        if (!hits || !is_name(fields[0])) {
            malformed("hooks", line_no, raw, expected);
        }
        hooks.push_back(HookEntry{std::string(fields[0]), std::string(fields[1]),
                                  std::string(fields[2]), std::string(fields[3]),
                                  std::string(fields[4]), *hits});
    }
    return hooks;
}

Counters parse_stats(std::string_view text) {
    Counters counters;
    std::size_t line_no = 0;
    for (const auto raw : split_lines(text)) {
        ++line_no;
        const auto fields = split_whitespace(raw);
        if (fields.empty()) {
            continue;
        }
        constexpr auto expected = "`name value` with a decimal u64 value";
        if (fields.size() != 2 || !is_name(fields[0])) {
            malformed("stats", line_no, raw, expected);
        }
        const auto value = parse_u64(fields[1]);
        if (!value) {
            malformed("stats", line_no, raw, expected);
        }
        if (!counters.add(std::string(fields[0]), *value)) {
            malformed("stats", line_no, raw, "each counter only once");
        }
    }
    return counters;
}

} // namespace memcg_statctl
