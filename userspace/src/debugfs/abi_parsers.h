// Strict parsers for the debugfs files described in module/ABI.md. A line that does not
// match the format throws ToolError naming the file and line; unknown keys, counters and
// hook states are accepted so a newer module works with this tool.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "debugfs/counters.h"

namespace memcg_statctl {

// The ABI version this tool understands (`abi` key of the `version` file).
inline constexpr std::uint64_t supported_abi = 1;

struct VersionInfo {
    std::vector<std::pair<std::string, std::string>> entries; // file order
    std::string get(std::string_view key) const;              // "" when absent
};

struct HookEntry {
    std::string name;
    std::string target;
    std::string caller; // "-" when every call counts
    std::string mechanism;
    std::string state; // attached | off | missing | failed | (newer states)
    std::uint64_t hits = 0;
    friend bool operator==(const HookEntry&, const HookEntry&) = default;
};

VersionInfo parse_version(std::string_view text);
std::vector<HookEntry> parse_hooks(std::string_view text);
Counters parse_stats(std::string_view text);

} // namespace memcg_statctl
