// The command line of memcg-statctl: parsing (CLI11) and dispatch to the subcommands, how
// the subcommands plug in, and the checks of their numeric options.
// Everything the commands touch outside the process (streams, clock, sleeping, kernel
// writes) comes in through CliEnv so unit tests run the real CLI against a fake tree.
// Each commands/NAME.cpp registers its CLI11 subcommand with its options and returns the
// function that runs it after parsing.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "debugfs/client.h"
#include "exit_code.h"
#include "output/output.h"

namespace memcg_statctl {

struct CliEnv {
    std::ostream& out = std::cout;
    std::ostream& err = std::cerr;
    std::function<void(double seconds)> sleep; // default: real nanosleep
    std::function<double()> now;               // monotonic seconds
    FileWriter writer = write_whole_file;      // how knob/reset writes reach the kernel
    bool progress_to_terminal = false;         // stderr is a tty: print progress lines
};

CliEnv default_cli_env();

// The shortest interval stats --textfile and top refresh at: live enough for node_exporter
// and a screen, long enough that reading the module's files (every cgroup's counts, for
// top) stays a negligible part of the machine's work.
constexpr double min_refresh_interval = 0.1;

// Sleeps until env.now() reaches `until`, or less when SIGINT or SIGTERM comes under a
// SignalGuard (env.sleep returns then). Returns false when a stop signal came.
bool sleep_until_or_stopped(CliEnv& env, double until);

// args[0] is the program name. Returns the process exit code (see exit_code.h).
int run_cli(const std::vector<std::string>& args, CliEnv& env);

// How subcommands plug into the CLI.
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
Command add_top_command(CLI::App& app, Context& ctx);

inline OutputFormat pick_format(bool json, bool csv = false) {
    return json ? OutputFormat::json : (csv ? OutputFormat::csv : OutputFormat::text);
}

// --json and --csv, which mean the same in every command: print that format on stdout
// instead of text. (--output FILE writes the JSON document to FILE; --plot FILE a plot.)
struct FormatFlags {
    bool json = false;
    bool csv = false;
    OutputFormat format() const { return pick_format(json, csv); }
};
// The two flags' options, for a command that adds a format of its own that excludes them.
struct FormatFlagOptions {
    CLI::Option* json;
    CLI::Option* csv;
};
inline FormatFlagOptions
add_format_flags(CLI::App& sub, FormatFlags& f, const std::string& json_help,
                 const std::string& csv_help = "print CSV (columns named as the JSON fields)") {
    auto* json = sub.add_flag("--json", f.json, json_help);
    auto* csv = sub.add_flag("--csv", f.csv, csv_help);
    json->excludes(csv);
    return {json, csv};
}

// Checks of numeric options with one-line messages. CLI11's PositiveNumber and
// Range say "Value 0 not in range 0.000000 to 17976931348623157081452742373170435679807..."
// for `--duration 0`; these say "must be > 0", which CLI11 reports as "--duration: must be
// > 0" (a CLI::ValidationError) and run_cli() prints as "--duration must be > 0".
// Every message of these checks starts with this (what run_cli() looks for).
inline constexpr std::string_view check_message_start = "must be ";

namespace option_checks_detail {

enum class Parsed { ok, out_of_range, invalid };

// A decimal number of type T; out_of_range: an integer that T cannot hold (too big, or
// negative for an unsigned T); invalid: anything else (no number, a fraction for an
// integral T, a floating value that is not finite). Stricter than CLI11's own conversion
// (no '+', no hex), never looser.
template <typename T>
Parsed parse(const std::string& s, T& value) {
    const auto* const end = s.data() + s.size();
    if constexpr (std::is_floating_point_v<T>) {
        const auto [ptr, ec] = std::from_chars(s.data(), end, value);
        return !s.empty() && ptr == end && ec == std::errc() && std::isfinite(value)
                   ? Parsed::ok
                   : Parsed::invalid; // also inf, nan and what a double cannot hold
    } else {
        if (std::is_unsigned_v<T> && s.size() > 1 && s.front() == '-') {
            std::uint64_t magnitude = 0;
            const auto [ptr, ec] = std::from_chars(s.data() + 1, end, magnitude);
            return ptr == end && ec != std::errc::invalid_argument ? Parsed::out_of_range
                                                                   : Parsed::invalid;
        }
        const auto [ptr, ec] = std::from_chars(s.data(), end, value);
        if (s.empty() || ptr != end || ec == std::errc::invalid_argument) {
            return Parsed::invalid;
        }
        return ec == std::errc() ? Parsed::ok : Parsed::out_of_range;
    }
}

} // namespace option_checks_detail

// An existing directory (--cgroup-mount of stats and top): "must be a directory" otherwise.
inline CLI::Validator existing_directory() {
    return {[](const std::string& v) -> std::string {
                std::error_code ec;
                return std::filesystem::is_directory(v, ec) ? std::string() : "must be a directory";
            },
            "", "directory"};
}

// value > 0 (and finite). For an integral T, a value above its maximum is out of range too.
template <typename T>
CLI::Validator positive() {
    constexpr auto kind = std::is_integral_v<T> ? "an integer" : "a number";
    return {[kind](const std::string& s) -> std::string {
                T value{};
                switch (option_checks_detail::parse(s, value)) {
                case option_checks_detail::Parsed::ok:
                    return value > T{0} ? std::string() : "must be > 0";
                case option_checks_detail::Parsed::out_of_range:
                    if constexpr (std::is_integral_v<T>) {
                        if (s.front() != '-') {
                            return fmt::format("must be between 1 and {}",
                                               std::numeric_limits<T>::max());
                        }
                    }
                    return "must be > 0";
                case option_checks_detail::Parsed::invalid:
                    break;
                }
                return fmt::format("must be {} > 0", kind);
            },
            "POSITIVE"};
}

// A number >= 0 (and finite), e.g. a warm-up that may be none.
inline CLI::Validator non_negative() {
    return {[](const std::string& s) -> std::string {
                double value{};
                if (option_checks_detail::parse(s, value) != option_checks_detail::Parsed::ok) {
                    return "must be a number >= 0";
                }
                return value >= 0 ? std::string() : "must be >= 0";
            },
            "NON-NEGATIVE"};
}

// An integer from min to max (inclusive).
template <typename T>
CLI::Validator between(T min, T max) {
    static_assert(std::is_integral_v<T>);
    return {[min, max](const std::string& s) -> std::string {
                T value{};
                switch (option_checks_detail::parse(s, value)) {
                case option_checks_detail::Parsed::ok:
                    return value >= min && value <= max
                               ? std::string()
                               : fmt::format("must be between {} and {}", min, max);
                case option_checks_detail::Parsed::out_of_range:
                    return fmt::format("must be between {} and {}", min, max);
                case option_checks_detail::Parsed::invalid:
                    break;
                }
                return fmt::format("must be an integer between {} and {}", min, max);
            },
            fmt::format("INT in [{} - {}]", min, max)};
}

// A lower bound on a number of seconds, `text` saying it in words ("0.01 (10 ms)").
// Non-numbers are positive<double>()'s to report.
inline CLI::Validator at_least_seconds(double min, std::string text) {
    return {[min, text = std::move(text)](const std::string& s) -> std::string {
                double value = 0;
                if (option_checks_detail::parse(s, value) != option_checks_detail::Parsed::ok) {
                    return {};
                }
                return value >= min ? std::string() : "must be at least " + text;
            },
            "", "at_least_seconds"};
}

} // namespace memcg_statctl
