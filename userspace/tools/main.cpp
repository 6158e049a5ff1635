// memcg-statctl: all logic lives in the memcg_statctl library (shared with the tests).
#include <exception>
#include <iostream>

#include "commands/cli.h"

int main(int argc, char** argv) {
    try {
        auto env = memcg_statctl::default_cli_env();
        return memcg_statctl::run_cli({argv, argv + argc}, env);
    } catch (const std::exception& e) {
        std::cerr << "memcg-statctl: internal error: " << e.what() << '\n';
        return static_cast<int>(memcg_statctl::ExitCode::failure);
    }
}
