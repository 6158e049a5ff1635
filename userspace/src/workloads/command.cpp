#include "workloads/command.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"
#include "text_util.h"
#include "workloads/io.h"

namespace memcg_statctl {

CommandWorkload::CommandWorkload(std::vector<std::string> argv, std::size_t tasks)
    : argv_(std::move(argv)), tasks_(tasks) {
    if (argv_.empty()) {
        throw ToolError(ExitCode::usage, "no command after `--`");
    }
}

CommandWorkload::~CommandWorkload() {
    close_captures();
}

void CommandWorkload::close_captures() noexcept {
    for (const int fd : captures_) {
        ::close(fd);
    }
    captures_.clear();
}

void CommandWorkload::prepare(std::size_t /*cgroups*/) {
    // Anonymous memory files: nothing to clean up on disk, readable after the task exited.
    // Each run starts with empty captures.
    close_captures();
    for (std::size_t t = 0; t < tasks_; ++t) {
        const int fd = ::memfd_create(fmt::format("memcg-statctl-task{}", t).c_str(), MFD_CLOEXEC);
        if (fd < 0) {
            throw_errno("memfd_create");
        }
        captures_.push_back(fd);
    }
}

void CommandWorkload::run_task(const TaskContext& ctx) {
    const int fd = captures_.at(ctx.task);
    // dup2 clears close-on-exec on the copies; the command writes to its own capture.
    if (::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0) {
        throw_errno("dup2");
    }
    std::vector<char*> args;
    args.reserve(argv_.size() + 1);
    for (auto& a : argv_) {
        args.push_back(a.data());
    }
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    // Still here: the command could not start. The message goes to the capture (stderr is
    // it now), the shell's 127/126 to the exit status.
    const int err = errno;
    (void)std::fprintf(stderr, "memcg-statctl: cannot run %s: %s\n", args[0], std::strerror(err));
    (void)std::fflush(stderr);
    ::_exit(err == ENOENT ? 127 : 126);
}

std::string CommandWorkload::output(std::size_t t) const {
    if (t >= captures_.size()) {
        return {};
    }
    std::string text;
    std::array<char, 65536> buf{};
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(captures_[t], buf.data(), buf.size(), at);
        if (n <= 0) {
            break;
        }
        text.append(buf.data(), static_cast<std::size_t>(n));
        at += n;
    }
    return text;
}

CommandMetric::CommandMetric(std::string pattern) : pattern_(std::move(pattern)) {
    try {
        regex_ = std::regex(pattern_, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw ToolError(
            ExitCode::usage,
            fmt::format("--metric '{}' is not a valid regular expression: {}", pattern_, e.what()));
    }
    if (regex_.mark_count() < 1) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--metric '{}' needs a capture group around the number, "
                                    "e.g. 'average:\\s*([0-9.]+)'",
                                    pattern_));
    }
}

std::optional<double> CommandMetric::find(std::string_view output) const {
    std::optional<double> found;
    for (const auto line : split_lines(output)) {
        std::match_results<std::string_view::const_iterator> m;
        if (std::regex_search(line.begin(), line.end(), m, regex_) && m[1].matched) {
            found = parse_double(trim(std::string_view(&*m[1].first, m[1].length())));
        }
    }
    return found;
}

} // namespace memcg_statctl
