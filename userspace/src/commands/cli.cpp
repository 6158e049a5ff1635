#include "commands/cli.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "run/environment.h"
#include "run/signal_guard.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

// "--duration must be > 0" for a failed check of cli.h, which CLI11 reports as
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

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string quoted_alternatives(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) {
            s += i + 1 == names.size() ? " or " : ", ";
        }
        s += fmt::format("'{}'", names[i]);
    }
    return s;
}

// The names an option of `app` answers to: "--version", "-h".
std::vector<std::string> option_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const auto* o : app.get_options()) {
        for (const auto& l : o->get_lnames()) {
            names.push_back("--" + l);
        }
        for (const auto& s : o->get_snames()) {
            names.push_back("-" + s);
        }
    }
    return names;
}

// "--versio", "-x", "--debugf=/x": a word that names an option (not "-1", a value).
bool looks_like_option(const std::string& word) {
    const auto name = word.find_first_not_of('-');
    return name != std::string::npos && name >= 1 && name <= 2 &&
           std::isalpha(static_cast<unsigned char>(word[name])) != 0;
}

// An option that `app` (the program, or the command `of`) lacks: "unknown option
// '--versio'; did you mean '--version'?", or its options when none is close. A command also
// takes the program's options (fallthrough()): `also` are those.
std::string unknown_option_message(const CLI::App& app, const std::string& word,
                                   const std::string& of, const CLI::App* also = nullptr) {
    const auto typed = word.substr(0, word.find('=')); // --debugf=/x: the option's name
    auto names = option_names(app);
    if (also != nullptr) {
        for (auto& name : option_names(*also)) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                names.push_back(std::move(name));
            }
        }
    }
    const auto close = closest_names(typed, names);
    if (close.empty()) {
        return fmt::format("unknown option '{}'{}; the options {} are: {}", typed, of,
                           of.empty() ? "before a command" : "of " + app.get_name(),
                           fmt::join(names, ", "));
    }
    return fmt::format("unknown option '{}'{}; did you mean {}?", typed, of,
                       quoted_alternatives(close));
}

// For a word CLI11 put aside, which it reports as "A subcommand is required" (before any
// command) or "The following argument was not expected": an option the program or the
// command lacks (`memcg-statctl --versio`, `memcg-statctl stats --jsn`), or, with no command,
// a word that is not one (`memcg-statctl stauts`): "unknown command 'stauts'; did you mean
// 'status'?", or the list of commands when none is close.
std::optional<std::string> unknown_word_message(const CLI::App& app,
                                                const std::vector<Command>& commands,
                                                const std::vector<std::string>& args) {
    if (app.get_subcommands().empty()) {
        // The first word put aside is the mistake (`experimnet update-flush --runs 3`: the
        // command, not --runs, which belongs to it).
        const auto rest = app.remaining();
        const auto word = std::find_if(rest.begin(), rest.end(), [](const std::string& w) {
            return looks_like_option(w) || w.rfind('-', 0) != 0;
        });
        if (word == rest.end()) {
            return std::nullopt;
        }
        if (looks_like_option(*word)) {
            return unknown_option_message(app, *word, "");
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
        return fmt::format("unknown command '{}'; did you mean {}?", *word,
                           quoted_alternatives(close));
    }
    // An option the command lacks falls through to the program (fallthrough()), which
    // lacks it too: after the command's name it is the command's mistake, before it the
    // program's.
    const auto* command = app.get_subcommands().back();
    const auto at = [&args](const std::string& word) {
        return std::find(args.begin(), args.end(), word) - args.begin();
    };
    for (const auto* a : {static_cast<const CLI::App*>(command), &app}) {
        for (const auto& word : a->remaining()) {
            if (!looks_like_option(word)) {
                continue;
            }
            if (a == &app && at(word) < at(command->get_name())) {
                return unknown_option_message(app, word, "");
            }
            return unknown_option_message(*command, word, " of " + command->get_name(), &app);
        }
    }
    return std::nullopt;
}

} // namespace

CliEnv default_cli_env() {
    CliEnv env;
    // nanosleep, resumed after a signal unless SIGINT or SIGTERM came under a SignalGuard:
    // then the command's loop ends now, not an interval later (std::this_thread::sleep_for
    // would sleep on).
    env.sleep = [](double s) {
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::duration<double>(std::max(s, 0.0)));
        timespec left{static_cast<time_t>(ns.count() / 1'000'000'000),
                      static_cast<long>(ns.count() % 1'000'000'000)};
        while (::nanosleep(&left, &left) != 0 && errno == EINTR && stop_signal() == 0) {
        }
    };
    env.now = [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    };
    env.progress_to_terminal = ::isatty(STDERR_FILENO) == 1;
    return env;
}

bool sleep_until_or_stopped(CliEnv& env, double until) {
    env.sleep(until - env.now()); // returns early on SIGINT/SIGTERM under a SignalGuard
    return stop_signal() == 0;
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
    // Global options also after the command (`memcg-statctl status --debugfs DIR`): each
    // subcommand passes the options it lacks up to the program.
    app.fallthrough();

    const std::vector<Command> commands = {
        add_status_command(app, ctx),     add_stats_command(app, ctx),
        add_top_command(app, ctx),        add_get_command(app, ctx),
        add_set_command(app, ctx),        add_reset_command(app, ctx),
        add_run_command(app, ctx),        add_sweep_command(app, ctx),
        add_experiment_command(app, ctx), add_compare_command(app, ctx),
    };
    // After the commands: a subcommand inherits the footer its parent has when it is made.
    app.footer("Exit status: 0 success; 1 failure; 2 usage error (nothing was run); 3 module not "
               "loaded, debugfs not mounted, or not root; 4 (status) module loaded but "
               "degraded; 130, 143 stopped by SIGINT, SIGTERM (after cleaning up).\n"
               "Run `memcg-statctl COMMAND --help` for a command's options.");

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
        if (const auto message = unknown_word_message(app, commands, args)) {
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
