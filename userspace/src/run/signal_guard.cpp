#include "run/signal_guard.h"

#include <cstring>

#include <fmt/format.h>

#include "exit_code.h"

namespace memcg_statctl {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;
struct sigaction g_old_int {};
struct sigaction g_old_term {};

void on_stop_signal(int sig) {
    g_stop_signal = sig;
}

} // namespace

SignalGuard::SignalGuard() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    ::sigaction(SIGINT, &sa, &g_old_int);
    ::sigaction(SIGTERM, &sa, &g_old_term);
}

SignalGuard::~SignalGuard() {
    ::sigaction(SIGINT, &g_old_int, nullptr);
    ::sigaction(SIGTERM, &g_old_term, nullptr);
}

int stop_signal() {
    return g_stop_signal;
}
void clear_stop_signal() {
    g_stop_signal = 0;
}

std::optional<std::string> interrupted_by(const std::exception& e) {
    if (const auto* i = dynamic_cast<const Interrupted*>(&e)) {
        return fmt::format("SIG{}", sigabbrev_np(i->signal()));
    }
    return std::nullopt;
}

void throw_if_stopped() {
    if (const int sig = g_stop_signal; sig != 0) {
        throw Interrupted(sig, fmt::format("interrupted by SIG{}; cleaned up", sigabbrev_np(sig)));
    }
}

} // namespace memcg_statctl
