// What `run` and `sweep` tell about a user's command (internal): its output on stderr,
// and whether a copy failed.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "output/reports.h"

namespace memcg_statctl {

// Each copy's output, prefixed "[copy N] " when there is more than one copy.
void print_command_outputs(std::ostream& err, const std::vector<std::string>& outputs);

// "copy 2 of the command exited with status 1: <its last output lines>" for the first copy
// that failed; nullopt when all exited 0 or were terminated by the tool at --duration.
std::optional<std::string> command_failure(const RunResult& r,
                                           const std::vector<std::string>& outputs);

} // namespace memcg_statctl
