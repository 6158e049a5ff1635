// Runs the real CLI in-process with captured streams, a fake clock and no real sleeping.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "commands/cli.h"

namespace memcg_statctl::testing {

struct CliResult {
    int code = -1;
    std::string out;
    std::string err;
};

class CliRunner {
public:
    CliRunner() {
        env_.sleep = [this](double s) {
            clock_ += s;
            if (on_sleep) {
                on_sleep();
            }
        };
        env_.now = [this] { return clock_; };
    }
    CliResult run(std::vector<std::string> args) {
        std::ostringstream out;
        std::ostringstream err;
        CliEnv env{out, err, env_.sleep, env_.now, writer ? writer : write_whole_file, false};
        args.insert(args.begin(), "memcg-statctl");
        const int code = run_cli(args, env);
        return {code, out.str(), err.str()};
    }
    std::function<void()> on_sleep; // e.g. advance the fake counters
    FileWriter writer;              // e.g. a fake kernel rejecting values

private:
    double clock_ = 1000;
    CliEnv env_;
};

} // namespace memcg_statctl::testing
