#include "run/command_output.h"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "text_util.h"

namespace memcg_statctl {
namespace {

std::string tail(const std::string& text, std::size_t lines) {
    const auto all = split_lines(text);
    std::string out;
    for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
        out += fmt::format("\n  {}", all[i]);
    }
    return out;
}

} // namespace

void print_command_outputs(std::ostream& err, const std::vector<std::string>& outputs) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        for (const auto line : split_lines(outputs[i])) {
            if (outputs.size() > 1) {
                fmt::print(err, "[copy {}] {}\n", i, line);
            } else {
                fmt::print(err, "{}\n", line);
            }
        }
    }
}

std::optional<std::string> command_failure(const RunResult& r,
                                           const std::vector<std::string>& outputs) {
    if (r.stopped_at_duration) {
        return std::nullopt; // the tool ended them: their status says nothing
    }
    for (std::size_t i = 0; i < r.exit_statuses.size(); ++i) {
        if (r.exit_statuses[i] != 0) {
            return fmt::format("copy {} of the command exited with status {}{}", i,
                               r.exit_statuses[i],
                               i < outputs.size() ? tail(outputs[i], 5) : std::string());
        }
    }
    return std::nullopt;
}

} // namespace memcg_statctl
