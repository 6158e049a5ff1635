// The command line of memcg-statctl: parsing (CLI11) and dispatch to the subcommands.
// Everything the commands touch outside the process (streams, clock, sleeping, kernel
// writes) comes in through CliEnv so unit tests run the real CLI against a fake tree.
#pragma once

#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "debugfs/client.h"
#include "exit_code.h"

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

// args[0] is the program name. Returns the process exit code (see exit_code.h).
int run_cli(const std::vector<std::string>& args, CliEnv& env);

} // namespace memcg_statctl
