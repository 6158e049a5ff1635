// Guest instructions of a measured window, counted by the QEMU TCG plugin insn-marker
// (scripts/bench/insn-marker.c). Under that plugin, a marker instruction (`xchg %bx,%bx`,
// a no-op everywhere else) makes QEMU write "mark SEQ DELTA": DELTA instructions ran, on
// all vCPUs together, since the previous marker. `make experiment` routes those lines into
// a second serial port of the guest and names it in MEMCG_STATCTL_INSN_TTY; the tool then
// brackets each measured window with markers and reads the count back. Unlike wall time
// under TCG, which swings by about 15% between identical runs, the count repeats closely:
// it is what the experiments' verdicts rest on in the guest.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace memcg_statctl {

inline constexpr const char* insn_tty_variable = "MEMCG_STATCTL_INSN_TTY";

struct MarkReply {
    std::uint64_t seq = 0;
    std::uint64_t delta = 0; // instructions since the previous marker
};

// "mark SEQ DELTA" (trailing CR/LF allowed); nullopt for anything else.
std::optional<MarkReply> parse_mark_reply(std::string_view line);

class InsnCounter {
public:
    // Opens `tty` (a serial port set to raw mode; any readable file works for tests).
    // Throws ToolError when it cannot be opened or this is not x86-64.
    explicit InsnCounter(const std::string& tty,
                         std::chrono::milliseconds timeout = std::chrono::seconds(20));
    InsnCounter(const InsnCounter&) = delete;
    InsnCounter& operator=(const InsnCounter&) = delete;
    InsnCounter(InsnCounter&&) = delete;
    InsnCounter& operator=(InsnCounter&&) = delete;
    ~InsnCounter();

    // The counter named by MEMCG_STATCTL_INSN_TTY; nullptr when it is unset or empty.
    static std::unique_ptr<InsnCounter> from_environment();

    // Executes the marker and returns the instructions since the previous one. Throws
    // ToolError when no reply arrives within the timeout (no plugin on this machine).
    std::uint64_t mark();

    // A window: open() marks its start, close() marks its end and returns its count.
    void open() { mark(); }
    std::uint64_t close() { return mark(); }

    const std::string& tty() const { return tty_; }

private:
    void drain();
    std::string read_line();

    std::string tty_;
    std::chrono::milliseconds timeout_;
    int fd_ = -1;
    std::string pending_;
};

} // namespace memcg_statctl
