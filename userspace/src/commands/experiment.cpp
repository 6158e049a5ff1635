// `experiment NAME`: its options; experiment/runner.h runs it.
#include <fmt/format.h>

#include "commands/cli.h"
#include "experiment/runner.h"

namespace memcg_statctl {

Command add_experiment_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand(
        "experiment", "run a named experiment (a recipe) reproducing a mailing-list report");
    std::string recipes_text = "Recipes (NAME; `experiment --list` gives each one's report and "
                               "the claim in numbers it tests):";
    for (const auto& r : recipes()) {
        recipes_text += fmt::format("\n  {:<16} {}", r.name, r.summary);
    }
    sub->footer(recipes_text);
    auto opt = std::make_shared<ExperimentOptions>();
    auto* name = sub->add_option("NAME", opt->name, "the recipe (required unless --list)")
                     ->check(CLI::IsMember(recipe_names()));
    sub->add_flag("--list", opt->list,
                  "print each recipe: its report (docs/background.md), summary, reference and "
                  "the claim it tests (no module or root needed)")
        ->excludes(name);
    sub->add_option("-r,--runs", opt->runs, "runs per value (interleaved rounds)")
        ->capture_default_str()
        ->check(between(2, 1000));
    sub->add_option("--duration", opt->duration, "seconds per run")
        ->type_name("S")
        ->capture_default_str()
        ->check(positive<double>());
    sub->add_option("--warmup-runs", opt->warmup_runs,
                    "whole runs made and discarded before each value's first run")
        ->capture_default_str()
        ->type_name("N")
        ->check(between(0, 1000));
    sub->add_option("--dir", opt->dir,
                    "refault/readtwice files: a block-device file system (not tmpfs)")
        ->capture_default_str();
    sub->add_option("--size", opt->size_mib,
                    "refault/readtwice file size in MiB (default: 4 for reader-flush's refault, "
                    "32 for readtwice)")
        ->check(between<std::uint64_t>(2, 1U << 20U));
    sub->add_option("-o,--output", opt->output,
                    "JSON results file, rewritten after every run (default "
                    "experiment-NAME.json)")
        ->type_name("FILE");
    sub->add_flag("--json", opt->print_json,
                  "print the JSON results document on stdout instead of the tables");
    sub->add_option("--parent", opt->parent,
                    "build the cgroups below this existing cgroup (default: the tool's own "
                    "cgroup when systemd delegated it, else the root)")
        ->type_name("CGROUP");
    sub->add_option("--plot", opt->plot,
                    "SVG/PNG plot (default experiment-NAME.svg; -SUFFIX per table when several)")
        ->type_name("FILE");
    return {sub, [&ctx, opt] { run_experiment(*opt, ctx.client(), ctx.env.out, ctx.env.err); }};
}

} // namespace memcg_statctl
