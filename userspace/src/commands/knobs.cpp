// `get`, `set`, `reset`: the module's knobs, discovered from its debugfs directory.
#include <string>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/cli.h"

namespace memcg_statctl {
namespace {

// The knobs of module/ABI.md and what each accepts, for the help of `get` and `set`.
std::string knobs_help() {
    std::string text = "Knobs (module/ABI.md; a newer module may have more, `get` lists them):";
    for (const auto& knob : known_knobs()) {
        text += fmt::format("\n  {:<24} {}", knob, knob_accepted_values(knob).value_or(""));
    }
    return text;
}

} // namespace

Command add_get_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("get", "print one knob, or all knobs");
    auto knob = std::make_shared<std::string>();
    auto format = std::make_shared<FormatFlags>();
    sub->add_option("KNOB", *knob, "knob name (default: all)");
    add_format_flags(*sub, *format, "print a JSON object");
    sub->footer(knobs_help());
    return {sub, [&ctx, knob, format] {
                const auto client = ctx.client();
                client.require_module();
                KnobReport report;
                if (knob->empty()) {
                    for (const auto& name : client.knob_names()) {
                        report.knobs.emplace_back(name, client.read_knob(name));
                    }
                } else {
                    client.require_knob(*knob);
                    report.knobs.emplace_back(*knob, client.read_knob(*knob));
                }
                make_output(format->format(), ctx.env.out)->knobs(report);
            }};
}

Command add_set_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("set", "write a knob (the module validates the value)");
    auto args = std::make_shared<std::pair<std::string, std::string>>();
    sub->add_option("KNOB", args->first, "knob name")->required();
    sub->add_option("VALUE", args->second, "new value")->required();
    sub->footer(knobs_help());
    return {sub, [&ctx, args] {
                const auto client = ctx.client();
                client.require_module();
                client.write_knob(args->first, args->second);
            }};
}

Command add_reset_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("reset", "zero all of the module's counters");
    return {sub, [&ctx] {
                const auto client = ctx.client();
                client.require_module();
                client.reset_counters();
            }};
}

} // namespace memcg_statctl
