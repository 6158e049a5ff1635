#include "run/sweep.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

std::vector<SweepStep> sweep_order(std::size_t values, int runs) {
    std::vector<SweepStep> order;
    for (int r = 0; r < runs; ++r) {
        for (std::size_t v = 0; v < values; ++v) {
            order.push_back({r, v});
        }
    }
    return order;
}

std::vector<std::string> parse_sweep_values(const std::string& list) {
    auto values = split_commas(list);
    for (auto it = values.begin(); it != values.end(); ++it) {
        if (trim(*it).empty()) {
            throw ToolError(ExitCode::usage, fmt::format("--values \"{}\": empty item", list));
        }
        *it = std::string(trim(*it));
        if (std::find(values.begin(), it, *it) != it) {
            throw ToolError(ExitCode::usage,
                            fmt::format("--values \"{}\": `{}` given twice", list, *it));
        }
    }
    return values;
}

KnobRestorer::KnobRestorer(const DebugfsClient& client, std::string knob)
    : client_(client), knob_(std::move(knob)), original_(client.read_knob(knob_)) {}

KnobRestorer::~KnobRestorer() {
    if (client_.availability() == Availability::module_not_loaded) {
        return; // the knob went with the module; a new load starts from its parameters
    }
    try {
        client_.write_knob(knob_, original_);
    } catch (const std::exception& e) {
        // stdio, not fmt/iostreams: a destructor must not throw.
        (void)std::fprintf(stderr, "memcg-statctl: warning: could not restore %s to \"%s\": %s\n",
                           knob_.c_str(), original_.c_str(), e.what());
    } catch (...) {
        (void)std::fprintf(stderr, "memcg-statctl: warning: could not restore %s\n", knob_.c_str());
    }
}

} // namespace memcg_statctl
