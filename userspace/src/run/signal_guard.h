// SIGINT/SIGTERM turn into a flag that long-running loops poll, so the normal unwinding
// path (destructors) restores knobs, kills workload tasks and removes cgroups.
#pragma once

#include <csignal>
#include <exception>
#include <optional>
#include <string>

namespace memcg_statctl {

class SignalGuard {
public:
    SignalGuard(); // installs the handlers (without SA_RESTART: sleeps end early)
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;
    SignalGuard(SignalGuard&&) = delete;
    SignalGuard& operator=(SignalGuard&&) = delete;
    ~SignalGuard(); // restores the previous handlers
};

// The signal received since the last clear, or 0.
int stop_signal();
void clear_stop_signal();
// "SIGINT" / "SIGTERM" when `e` is an Interrupted, else nullopt: what results documents
// record as `interrupted_by`.
std::optional<std::string> interrupted_by(const std::exception& e);

// Throws Interrupted ("interrupted by SIGINT; cleaned up", exit 130/143) if a stop signal
// arrived.
void throw_if_stopped();

} // namespace memcg_statctl
