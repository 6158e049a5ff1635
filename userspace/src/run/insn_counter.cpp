#include "run/insn_counter.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"

namespace memcg_statctl {
namespace {

bool parse_u64_field(std::string_view text, std::uint64_t& out) {
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc{} && ptr == end && !text.empty();
}

// The marker the plugin recognises by its bytes, 66 87 db.
void execute_marker() {
#if defined(__x86_64__)
    asm volatile("xchg %%bx, %%bx" ::: "memory");
#endif
}

} // namespace

std::optional<MarkReply> parse_mark_reply(std::string_view line) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
        line.remove_suffix(1);
    }
    constexpr std::string_view prefix = "mark ";
    if (!line.starts_with(prefix)) {
        return std::nullopt;
    }
    line.remove_prefix(prefix.size());
    const auto space = line.find(' ');
    if (space == std::string_view::npos) {
        return std::nullopt;
    }
    MarkReply r;
    if (!parse_u64_field(line.substr(0, space), r.seq) ||
        !parse_u64_field(line.substr(space + 1), r.delta)) {
        return std::nullopt;
    }
    return r;
}

InsnCounter::InsnCounter(const std::string& tty, std::chrono::milliseconds timeout)
    : tty_(tty), timeout_(timeout) {
#if !defined(__x86_64__)
    throw ToolError(fmt::format("{}: counting guest instructions needs x86-64", insn_tty_variable));
#endif
    fd_ = ::open(tty.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
        throw ToolError(fmt::format("{}={}: {}", insn_tty_variable, tty, std::strerror(errno)));
    }
    // Raw: no echo back into the plugin's port, no line editing, bytes as they come.
    termios t{};
    if (::tcgetattr(fd_, &t) == 0) {
        ::cfmakeraw(&t);
        ::tcsetattr(fd_, TCSANOW, &t);
    }
}

InsnCounter::~InsnCounter() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

std::unique_ptr<InsnCounter> InsnCounter::from_environment() {
    const char* tty = std::getenv(insn_tty_variable); // NOLINT(concurrency-mt-unsafe)
    if (tty == nullptr || *tty == '\0') {
        return nullptr;
    }
    return std::make_unique<InsnCounter>(tty);
}

// Replies that arrived late (a marker of an earlier, failed window) must not be taken
// for this marker's.
void InsnCounter::drain() {
    pending_.clear();
    std::array<char, 256> buf{};
    while (::read(fd_, buf.data(), buf.size()) > 0) {
    }
}

std::string InsnCounter::read_line() {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    for (;;) {
        if (const auto nl = pending_.find('\n'); nl != std::string::npos) {
            auto line = pending_.substr(0, nl + 1);
            pending_.erase(0, nl + 1);
            return line;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            throw ToolError(fmt::format(
                "{}={}: no instruction count within {} ms (is the guest running under QEMU "
                "with the insn-marker plugin replying on that port?)",
                insn_tty_variable, tty_, timeout_.count()));
        }
        pollfd p{fd_, POLLIN, 0};
        const int n = ::poll(&p, 1, static_cast<int>(left.count()));
        if (n < 0 && errno != EINTR) {
            throw ToolError(fmt::format("poll {}: {}", tty_, std::strerror(errno)));
        }
        if (n > 0) {
            std::array<char, 256> buf{};
            const auto got = ::read(fd_, buf.data(), buf.size());
            if (got > 0) {
                pending_.append(buf.data(), static_cast<std::size_t>(got));
            }
        }
    }
}

std::uint64_t InsnCounter::mark() {
    drain();
    execute_marker();
    for (;;) {
        const auto line = read_line();
        if (const auto r = parse_mark_reply(line)) {
            return r->delta;
        }
        // Anything else on the port (a stray byte before raw mode) is skipped.
    }
}

} // namespace memcg_statctl
