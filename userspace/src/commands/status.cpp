// `status`: is the module loaded, its version, its hooks and the current knob values; and
// whether it is degraded (debugfs/status.h): then one line per problem on stderr, exit 4.
#include "debugfs/status.h"

#include <fmt/ostream.h>

#include "commands/cli.h"

namespace memcg_statctl {

Command add_status_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("status", "module loaded? version, hooks, knob values");
    sub->footer("Exit status: 0 loaded and healthy; 3 not usable (module not loaded, debugfs\n"
                "not mounted, not root); 4 loaded but degraded: a hook failed to attach, is\n"
                "missing or partial, calls went unattributed beside another tracer, flush\n"
                "control is missing, or debugfs is locked down. Then the status\n"
                "is printed as usual, followed by one line per problem on stderr saying what to\n"
                "do (with --json also as the \"problems\" array).\n");
    auto format = std::make_shared<FormatFlags>();
    add_format_flags(*sub, *format, "print a JSON object");
    return {sub, [&app, &ctx, format] {
                const auto client = ctx.client();
                const auto availability = client.availability();
                if (format->json && availability != Availability::available) {
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
                report.problems = find_status_problems(report.version, report.hooks,
                                                       client.stats().get("caller.unattributed"));
                make_output(format->format(), ctx.env.out)->status(report);
                if (report.problems.empty()) {
                    return;
                }
                // The status itself is complete on stdout; what is wrong goes to stderr.
                ctx.env.out.flush();
                for (const auto& p : report.problems) {
                    fmt::print(ctx.env.err, "{}: {}\n", app.get_name(), p.message);
                }
                throw ToolError(ExitCode::degraded, "");
            }};
}

} // namespace memcg_statctl
