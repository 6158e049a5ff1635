// `stats --openmetrics` (Prometheus metrics on stdout, once) and `stats --textfile-dir DIR
// [--interval S]` (the same written atomically to DIR/memcg_statctl.prom every S seconds for
// node_exporter's textfile collector, until SIGINT or SIGTERM). Both report
// memcg_statctl_up 0 while the module's files cannot be read; the textfile mode keeps
// running across unload and reload.
#pragma once

#include <string>

#include "commands/cli.h"

namespace memcg_statctl {

struct OpenMetricsOptions {
    bool print = false;       // --openmetrics
    std::string textfile_dir; // --textfile-dir; empty: none
    double interval = 15;     // --interval, seconds
    bool wanted() const { return print || !textfile_dir.empty(); }
};

// Adds --openmetrics, --textfile-dir and --interval to `stats`; they exclude its --json and
// --watch, which must already be there.
void add_openmetrics_options(CLI::App& stats, OpenMetricsOptions& opt);

void run_openmetrics(const Context& ctx, const OpenMetricsOptions& opt);

} // namespace memcg_statctl
