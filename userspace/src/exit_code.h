// Exit codes of memcg-statctl and the exception types that carry
// them from deep inside the library up to main(), so no function below the CLI calls exit().
#pragma once

#include <stdexcept>
#include <string>

namespace memcg_statctl {

enum class ExitCode : int {
    ok = 0,
    failure = 1,     // anything that went wrong at run time
    usage = 2,       // the command line could not be parsed
    unavailable = 3, // module not loaded, debugfs not mounted, or not root
    // `status` only: the module is loaded but degraded (a hook failed to attach, a missing
    // hook took a counter or part of flush control away, flush control is missing or failed,
    // or debugfs is locked down); status prints its usual output, then one line per
    // problem on stderr. Other commands go ahead and fail (exit 1) only where a problem
    // stops them, e.g. a knob write under lockdown.
    degraded = 4,
    sigint = 130,  // stopped by SIGINT (128 + 2, the shell's convention), after cleaning up
    sigterm = 143, // stopped by SIGTERM (128 + 15)
};

// Thrown for every user-visible failure; what() is the message printed on stderr. An empty
// message prints nothing: the command has already said why on stderr (status's problems).
class ToolError : public std::runtime_error {
public:
    ToolError(ExitCode code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    explicit ToolError(const std::string& message) : ToolError(ExitCode::failure, message) {}
    ExitCode code() const noexcept { return code_; }

private:
    ExitCode code_;
};

// A stop signal (SIGINT, SIGTERM) ended the work: the exit code is 128 + the signal. Commands
// that keep results catch it to write and print what finished, then rethrow.
class Interrupted : public ToolError {
public:
    explicit Interrupted(int signal, const std::string& message)
        : ToolError(static_cast<ExitCode>(128 + signal), message), signal_(signal) {}
    int signal() const noexcept { return signal_; }

private:
    int signal_;
};

} // namespace memcg_statctl
