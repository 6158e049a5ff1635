#include "run/schedule.h"

#include <fmt/format.h>

#include "exit_code.h"
#include "run/signal_guard.h"

namespace memcg_statctl {

std::vector<ScheduledRun> run_schedule(std::size_t values, int runs, int warmup_runs) {
    std::vector<ScheduledRun> schedule;
    for (const auto& step : sweep_order(values, runs)) {
        for (int w = 1; step.round == 0 && w <= warmup_runs; ++w) {
            schedule.push_back({step, w});
        }
        schedule.push_back({step, 0});
    }
    return schedule;
}

void run_scheduled(const std::vector<ScheduledRun>& schedule, const ShellHooks& hooks,
                   const ScheduleSteps& steps) {
    for (const auto& entry : schedule) {
        throw_if_stopped();
        const auto name = steps.name(entry);
        steps.start(entry);
        hooks.before(name);
        auto result = steps.run();
        const auto failure = steps.failure(entry, result);
        if (entry.warmup == 0) {
            steps.keep(entry, std::move(result));
        }
        if (!failure) {
            hooks.after(name);
            continue;
        }
        // The run failed: still clean up after it, and say both when that fails too.
        try {
            hooks.after(name);
        } catch (const Interrupted&) {
            throw;
        } catch (const ToolError& e) {
            throw ToolError(fmt::format("{}: {}\n{}", name, *failure, e.what()));
        }
        throw ToolError(fmt::format("{}: {}", name, *failure));
    }
}

} // namespace memcg_statctl
