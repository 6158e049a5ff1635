// The Environment of a run or sweep (reports.h), read from the running system.
#pragma once

#include <string>

#include "debugfs/client.h"
#include "output/reports.h"

namespace memcg_statctl {

// `module` is the module's client when it is loaded (its `version` gives the module
// version), nullptr otherwise.
Environment current_environment(const DebugfsClient* module);

// The current time, UTC, ISO 8601 with milliseconds: "2026-12-01T06:01:02.345Z".
std::string utc_timestamp();

} // namespace memcg_statctl
