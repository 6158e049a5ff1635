// `status`: is the module loaded, its version, its hooks and the current knob values.
#include <fmt/ostream.h>

#include "command.h"

namespace memcg_statctl {

Command add_status_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("status", "module loaded? version, hooks, knob values");
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "print a JSON object");
    return {sub, [&ctx, json] {
                const auto client = ctx.client();
                const auto availability = client.availability();
                if (*json && availability != Availability::available) {
                    // Scripts get an answer on stdout too; the exit code stays 3.
                    StatusReport report;
                    report.root = client.root();
                    report.availability = availability;
                    report.message = availability_message(availability, client.root());
                    make_output(OutputFormat::json, ctx.env.out)->status(report);
                    throw ToolError(ExitCode::unavailable, report.message);
                }
                client.require_module(); // exit 3 with what to do when not loaded
                StatusReport report;
                report.root = client.root();
                report.version = client.version();
                report.hooks = client.hooks();
                for (const auto& name : client.knob_names()) {
                    report.knobs.emplace_back(name, client.read_knob(name));
                }
                make_output(pick_format(*json), ctx.env.out)->status(report);
            }};
}

} // namespace memcg_statctl
