#include "memcg_statctl/commands/cli.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "memcg_statctl/text_util.h"
#include "memcg_statctl/version.h"

#include "commands/command.h"
#include "commands/option_checks.h"

namespace memcg_statctl {
namespace {

// "--duration must be > 0" for a failed check of option_checks.h, which CLI11 reports as
// "--duration: must be > 0"; nullopt for every other parse error.
std::optional<std::string> option_check_message(const CLI::ParseError& e) {
    if (dynamic_cast<const CLI::ValidationError*>(&e) == nullptr) {
        return std::nullopt;
    }
    const std::string_view what = e.what();
    const auto colon = what.find(": ");
    if (colon == std::string_view::npos || colon == 0 ||
        what.substr(colon + 2, check_message_start.size()) != check_message_start) {
        return std::nullopt;
    }
    return fmt::format("{} {}", what.substr(0, colon), what.substr(colon + 2));
}

// For a command line without a subcommand whose first word is not one (`memcg-statctl
// stauts`, which CLI11 reports as "A subcommand is required"): "unknown command 'stauts';
// did you mean 'status'?", or the list of commands when none is close.
std::optional<std::string> unknown_command_message(const CLI::App& app,
                                                   const std::vector<Command>& commands) {
    if (!app.get_subcommands().empty()) {
        return std::nullopt;
    }
    const auto rest = app.remaining();
    const auto word = std::find_if(rest.begin(), rest.end(),
                                   [](const std::string& a) { return a.rfind('-', 0) != 0; });
    if (word == rest.end()) {
        return std::nullopt;
    }
    std::vector<std::string> names;
    names.reserve(commands.size());
    for (const auto& c : commands) {
        names.push_back(c.app->get_name());
    }
    const auto close = closest_names(*word, names);
    if (close.empty()) {
        return fmt::format("unknown command '{}'; the commands are: {}", *word,
                           fmt::join(names, ", "));
    }
    std::string alternatives = fmt::format("'{}'", close.front());
    for (std::size_t i = 1; i < close.size(); ++i) {
        alternatives += fmt::format("{}'{}'", i + 1 == close.size() ? " or " : ", ", close[i]);
    }
    return fmt::format("unknown command '{}'; did you mean {}?", *word, alternatives);
}

} // namespace

CliEnv default_cli_env() {
    CliEnv env;
    env.sleep = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
    env.now = [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    };
    env.progress_to_terminal = ::isatty(STDERR_FILENO) == 1;
    return env;
}

int run_cli(const std::vector<std::string>& args, CliEnv& env) {
    Context ctx{env, default_debugfs_root, {}};
    CLI::App app{"memcg-statctl: control and measure memcg stat flushing and stock caching "
                 "through the memcg_statctl module"};
    app.name(args.empty() ? "memcg-statctl"
                          : std::filesystem::path(args.front()).filename().string());
    app.add_option("--debugfs", ctx.debugfs_root, "the module's debugfs directory")
        ->type_name("DIR")
        ->default_str(default_debugfs_root.string());
    app.set_version_flag("--version", version_text(),
                         "print the tool's version and the debugfs ABI it speaks, and exit");
    app.require_subcommand(1);

    const std::vector<Command> commands = {
        add_status_command(app, ctx),  add_stats_command(app, ctx),
        add_get_command(app, ctx),     add_set_command(app, ctx),
        add_reset_command(app, ctx),   add_run_command(app, ctx),
        add_sweep_command(app, ctx),   add_experiment_command(app, ctx),
        add_compare_command(app, ctx),
    };

    // `run`/`sweep ... -- CMD ARGS...`: everything after the first `--` is the user's
    // command, passed on untouched (its own options must not reach CLI11).
    const auto dashes = std::find(args.begin(), args.end(), std::string("--"));
    if (dashes != args.end()) {
        ctx.command.assign(dashes + 1, args.end());
    }
    // CLI11 wants argv; keep the strings alive in `args` and point into them.
    std::vector<const char*> argv;
    argv.reserve(args.size());
    for (auto a = args.begin(); a != dashes; ++a) {
        argv.push_back(a->c_str());
    }
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
        // --help (of the program or of a subcommand) and --version are "parse errors" with
        // exit code 0; CLI11 prints the text. Every other parse error is a usage error.
        if (e.get_exit_code() == 0) {
            return app.exit(e, env.out, env.err);
        }
        if (const auto message = unknown_command_message(app, commands)) {
            fmt::print(env.err, "{}: {}\n", app.get_name(), *message);
            return static_cast<int>(ExitCode::usage);
        }
        if (const auto message = option_check_message(e)) {
            // One line: the option and what it must be; its --help adds nothing.
            fmt::print(env.err, "{}: {}\n", app.get_name(), *message);
            return static_cast<int>(ExitCode::usage);
        }
        fmt::print(env.err, "{}: {}\nRun with --help for more information.\n", app.get_name(),
                   e.what());
        return static_cast<int>(ExitCode::usage);
    }

    try {
        for (const auto& c : commands) {
            if (c.app->parsed()) {
                const auto name = c.app->get_name();
                if (dashes != args.end() && name != "run" && name != "sweep") {
                    throw ToolError(ExitCode::usage,
                                    fmt::format("{} takes no command after `--` (run and sweep "
                                                "do)",
                                                name));
                }
                c.run();
            }
        }
    } catch (const ToolError& e) {
        env.out.flush();
        if (*e.what() != '\0') {
            fmt::print(env.err, "{}: {}\n", app.get_name(), e.what());
        }
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        env.out.flush();
        fmt::print(env.err, "{}: {}\n", app.get_name(), e.what());
        return static_cast<int>(ExitCode::failure);
    }
    return static_cast<int>(ExitCode::ok);
}

} // namespace memcg_statctl
