#include "run/shell_hooks.h"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"
#include "run/signal_guard.h"
#include "text_util.h"
#include "workloads/io.h"

namespace memcg_statctl {

namespace {

std::string read_all(int fd) {
    std::string text;
    std::array<char, 65536> buf{};
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(fd, buf.data(), buf.size(), at);
        if (n <= 0) {
            return text;
        }
        text.append(buf.data(), static_cast<std::size_t>(n));
        at += n;
    }
}

// The last `lines` lines, each on its own indented line, as a failed command's are shown.
std::string indented_tail(const std::string& text, std::size_t lines) {
    const auto all = split_lines(text);
    std::string out;
    for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
        out += fmt::format("\n  {}", all[i]);
    }
    return out;
}

void run_hook(const char* option, const std::string& command, const char* when,
              const std::string& which) {
    if (command.empty()) {
        return;
    }
    const auto outcome = run_shell(command);
    if (outcome.status != 0) {
        throw ToolError(fmt::format("{} '{}' exited with status {} {} {}{}", option, command,
                                    outcome.status, when, which, indented_tail(outcome.output, 5)));
    }
}

} // namespace

ShellOutcome run_shell(const std::string& command) {
    // A memory file rather than a pipe: nothing to drain while waiting, and a command
    // that prints a lot cannot block on a full pipe.
    const FileDescriptor capture(::memfd_create("memcg-statctl-hook", MFD_CLOEXEC));
    if (!capture) {
        throw_errno("memfd_create");
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        throw_errno("fork");
    }
    if (pid == 0) {
        const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0 || ::dup2(null, STDIN_FILENO) < 0 ||
            ::dup2(capture.get(), STDOUT_FILENO) < 0 || ::dup2(capture.get(), STDERR_FILENO) < 0) {
            ::_exit(126);
        }
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        (void)std::fprintf(stderr, "memcg-statctl: cannot run /bin/sh: %s\n", std::strerror(errno));
        ::_exit(127);
    }
    int status = 0;
    bool passed_on = false;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            throw_errno("waitpid");
        }
        // The signal handlers have no SA_RESTART: a stop signal ends the wait. From a
        // terminal the command got the signal too; a SIGTERM sent to the tool alone is
        // passed on, so that it does not run on unattended.
        if (const int sig = stop_signal(); sig != 0 && !passed_on) {
            (void)::kill(pid, sig);
            passed_on = true;
        }
    }
    throw_if_stopped();
    ShellOutcome outcome;
    outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    outcome.output = read_all(capture.get());
    return outcome;
}

void ShellHooks::before(const std::string& which) const {
    run_hook("--prepare", prepare, "before", which);
}

void ShellHooks::after(const std::string& which) const {
    run_hook("--cleanup", cleanup, "after", which);
}

} // namespace memcg_statctl
