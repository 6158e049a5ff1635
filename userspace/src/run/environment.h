// The Environment of a run or sweep (reports.h), read from the running system, and the
// tool's own version.
#pragma once

#include <string>
#include <string_view>

#include "debugfs/client.h"
#include "output/reports.h"

namespace memcg_statctl {

// `module` is the module's client when it is loaded (its `version` gives the module
// version), nullptr otherwise.
Environment current_environment(const DebugfsClient* module);

// The current time, UTC, ISO 8601 with milliseconds: "2026-12-01T06:01:02.345Z".
std::string utc_timestamp();

// The tool's own version (MCS_VERSION of module/version.h, the one version of the project,
// read by CMake) and what `memcg-statctl --version` prints.
std::string_view tool_version();

// "memcg-statctl VERSION" and "debugfs ABI N" (supported_abi), one per line, no final newline.
std::string version_text();

} // namespace memcg_statctl
