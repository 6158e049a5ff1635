// --prepare and --cleanup: a user's shell commands around every run (warm-up runs
// included), outside the measured window, such as dropping the page cache between runs.
#pragma once

#include <string>

namespace memcg_statctl {

// What a shell command did: its exit status (128 + N when killed by signal N, as the
// shell reports it) and its stdout and stderr, interleaved.
struct ShellOutcome {
    int status = 0;
    std::string output;
};

// Runs `command` with /bin/sh -c in the tool's own cgroup, stdin from /dev/null, its output
// captured (stdout may carry --json). A SIGINT or SIGTERM of the tool is passed on to it;
// once it has exited, throws Interrupted. Throws ToolError when it cannot be started.
ShellOutcome run_shell(const std::string& command);

struct ShellHooks {
    std::string prepare; // empty: none
    std::string cleanup;

    // Run the command, if any; `which` names the run in the error when it fails:
    // "--prepare 'CMD' exited with status 1 before flush_mode=never run 2" and the end of
    // its output (ToolError, exit 1).
    void before(const std::string& which) const;
    void after(const std::string& which) const;
};

} // namespace memcg_statctl
