// How subcommands plug into the CLI (internal). Each cmd_*.cpp registers its CLI11
// subcommand with its options and returns the function that runs it after parsing.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/cli.h"
#include "debugfs/client.h"
#include "output/output.h"

namespace memcg_statctl {

struct Context {
    CliEnv& env;
    std::filesystem::path debugfs_root = default_debugfs_root;
    // The words after the first `--` of the command line (a user's command for run and
    // sweep), taken out before CLI11 parses the rest.
    std::vector<std::string> command;
    DebugfsClient client() const { return DebugfsClient(debugfs_root, env.writer); }
};

struct Command {
    CLI::App* app = nullptr;
    std::function<void()> run; // throws ToolError on failure
};

Command add_status_command(CLI::App& app, Context& ctx);
Command add_stats_command(CLI::App& app, Context& ctx);
Command add_get_command(CLI::App& app, Context& ctx);
Command add_set_command(CLI::App& app, Context& ctx);
Command add_reset_command(CLI::App& app, Context& ctx);
Command add_run_command(CLI::App& app, Context& ctx);
Command add_sweep_command(CLI::App& app, Context& ctx);
Command add_experiment_command(CLI::App& app, Context& ctx);
Command add_compare_command(CLI::App& app, Context& ctx);

inline OutputFormat pick_format(bool json, bool csv = false) {
    return json ? OutputFormat::json : (csv ? OutputFormat::csv : OutputFormat::text);
}

} // namespace memcg_statctl
