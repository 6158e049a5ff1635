// Exit codes of memcg-statctl (design section 6) and the one exception type that carries
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
};

// Thrown for every user-visible failure; what() is the message printed on stderr.
class ToolError : public std::runtime_error {
public:
    ToolError(ExitCode code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    explicit ToolError(const std::string& message) : ToolError(ExitCode::failure, message) {}
    ExitCode code() const noexcept { return code_; }

private:
    ExitCode code_;
};

} // namespace memcg_statctl
