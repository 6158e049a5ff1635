// The tool's own version (MCS_VERSION of module/version.h, the one version of the project,
// read by CMake) and what `memcg-statctl --version` prints.
#pragma once

#include <string>
#include <string_view>

namespace memcg_statctl {

std::string_view tool_version();

// "memcg-statctl VERSION" and "debugfs ABI N" (supported_abi), one per line, no final newline.
std::string version_text();

} // namespace memcg_statctl
