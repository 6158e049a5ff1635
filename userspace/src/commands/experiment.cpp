// `experiment NAME`: looks NAME up in the recipe table (recipes.cpp), runs its row's run
// function on an Experiment (experiment_runner.h), and prints the result with the sweep's
// outputs, the recipe's extra tables and notes, writes the JSON document and the plots.
// The closing line is the verdict (experiment.h).
#include "experiment/experiment.h"

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/command.h"
#include "commands/option_checks.h"
#include "experiment/runner.h"
#include "output/plot.h"
#include "output/results_file.h"
#include "output/text_table.h"
#include "run/environment.h"
#include "run/signal_guard.h"

namespace memcg_statctl {
namespace {

void print_extra(std::ostream& out, const ExtraTable& t) {
    fmt::print(out, "\n{}\n", t.title);
    std::vector<TextTable::Align> aligns(t.header.size(), TextTable::Align::right);
    aligns[0] = TextTable::Align::left;
    TextTable table(aligns);
    table.row(t.header);
    for (const auto& row : t.rows) {
        table.row(row);
    }
    table.print(out);
}

// Draws one plot file: a failure is a warning, as the numbers are the result and a missing
// gnuplot is not worth losing them over.
void draw(const Context& ctx, const std::string& file, const std::function<void()>& plot) {
    try {
        plot();
        fmt::print(ctx.env.out, "wrote {}\n", file);
    } catch (const ToolError& err) {
        fmt::print(ctx.env.err, "warning: plot {}: {}\n", file, err.what());
    }
}

void run_experiment(const Context& ctx, const ExperimentOptions& opt) {
    if (opt.list) {
        fmt::print(ctx.env.out, "{}", recipe_list_text(recipes()));
        return;
    }
    if (opt.name.empty()) {
        throw ToolError(ExitCode::usage,
                        fmt::format("experiment needs a NAME (one of: {}) or --list",
                                    fmt::join(recipe_names(), ", ")));
    }
    const auto* recipe = find_recipe(opt.name);
    if (recipe == nullptr) {
        throw ToolError(ExitCode::usage, fmt::format("unknown experiment `{}` (one of: {})",
                                                     opt.name, fmt::join(recipe_names(), ", ")));
    }
    const auto json_file =
        opt.json.empty() ? fmt::format("experiment-{}.json", opt.name) : opt.json;
    const auto plot_file = opt.plot.empty() ? fmt::format("experiment-{}.svg", opt.name) : opt.plot;
    plot_format_for(plot_file); // a bad extension fails before the runs
    const ResultsFile file(json_file);
    const SignalGuard signals;
    ExperimentResult r;
    Figure figure; // taken from the Experiment before it restores the knobs
    r.name = recipe->name;
    r.report_id = recipe->report_id;
    r.reference = recipe->reference;
    r.claim = recipe->claim;
    r.parameters = {{"runs", std::to_string(opt.runs)},
                    {"duration", fmt::format("{:g}", opt.duration)}};
    auto& out = ctx.env.out;
    try {
        Experiment e(ctx.client(), ctx.env.err, opt, r, &file);
        const auto client = e.client();
        r.environment = current_environment(&client);
        r.parameters.emplace_back("kernel", e.client().version().get("kernel"));
        r.parameters.emplace_back("cpus", std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)));
        r.parameters.emplace_back("parent", e.parent().dir().string());
        r.parameters.emplace_back("parent_from", e.parent().why());
        fmt::print(
            out, "experiment {}: {}\nreport: docs/background.md#{}\nreference: {}\nclaim: {}\n",
            recipe->name, recipe->summary, recipe->report_id, recipe->reference, recipe->claim);
        out.flush();
        recipe->run(e, r);
        figure = e.figure();
        for (const auto& [k, v] : e.fixed()) {
            r.parameters.emplace_back("fixed " + k, v);
        }
        // The recipe set the measure of a verdict that is no throughput (counters, pages).
        r.measure = verdict_measure(r.measure, e.counting_instructions());
        r.verdict.line = verdict_line_on(r.measure, r.verdict.line);
        if (e.counting_instructions()) {
            r.notes.push_back(fmt::format(
                "each run's window was also counted in guest instructions (all vCPUs, QEMU's "
                "insn-marker plugin); the tables `per 1e9 guest insns` give the operations per "
                "10^9 instructions, which repeat far more closely than wall time under TCG{}.",
                r.measure == Measure::guest_instructions
                    ? ", and the verdict rests on them"
                    : fmt::format("; the verdict rests on {} instead, which no clock affects",
                                  measure_name(r.measure))));
        }
    } catch (const ToolError& e) { // knobs restored by now
        // Keep what finished: the runs in the file, the finished steps' tables on stdout.
        r.complete = false;
        r.interrupted_by = interrupted_by(e);
        if (r.runs.empty()) {
            throw; // nothing ran: nothing to keep
        }
        file.write(experiment_json(r));
        fmt::print(ctx.env.err, "experiment stopped: {} finished runs kept in {}\n", r.runs.size(),
                   json_file);
        const auto text = make_output(OutputFormat::text, out);
        for (const auto& report : r.reports) {
            fmt::print(out, "\n");
            text->comparison(report);
        }
        throw;
    } // knobs restored here
    for (auto& report : r.reports) {
        report.environment = r.environment;
    }
    for (const auto& [k, v] : r.parameters) {
        fmt::print(out, "  {}: {}\n", k, v);
    }
    const auto text = make_output(OutputFormat::text, out);
    for (const auto& report : r.reports) {
        fmt::print(out, "\n");
        text->comparison(report);
    }
    for (const auto& t : r.extra) {
        print_extra(out, t);
    }
    for (const auto& n : r.notes) {
        fmt::print(out, "\nnote: {}\n", n);
    }
    file.write(experiment_json(r));
    fmt::print(out, "\nwrote {}\n", json_file);
    // The recipe's own figure takes the plot file itself; the reports' plots get suffixes.
    const auto plots = r.reports.size() + (figure ? 1 : 0);
    for (std::size_t i = 0; i < r.reports.size(); ++i) {
        // A twin report (per 1e9 guest insns) has its metric's workload: tell the files apart.
        const bool twin = r.reports[i].metric.ends_with(per_giga_instructions_unit(""));
        const auto plot =
            plot_path_for(plot_file, i, plots, r.reports[i].workload + (twin ? " insns" : ""));
        draw(ctx, plot, [&] { write_plot(r.reports[i], plot); });
    }
    if (figure) {
        draw(ctx, plot_file, [&] { run_gnuplot(figure(plot_file), plot_file); });
    }
    fmt::print(out, "{}\n", r.verdict.line);
}

} // namespace

Command add_experiment_command(CLI::App& app, Context& ctx) {
    std::string help = "run a named experiment reproducing a mailing-list report (`experiment "
                       "--list`: each one's report and the claim in numbers it tests):";
    for (const auto& r : recipes()) {
        help += fmt::format("\n  {:<16} {}", r.name, r.summary);
    }
    auto* sub = app.add_subcommand("experiment", help);
    auto opt = std::make_shared<ExperimentOptions>();
    auto* name = sub->add_option("NAME", opt->name, "the recipe (required unless --list)")
                     ->check(CLI::IsMember(recipe_names()));
    sub->add_flag("--list", opt->list,
                  "print each recipe: its report (docs/background.md), summary, reference and "
                  "the claim it tests (no module or root needed)")
        ->excludes(name);
    sub->add_option("--runs", opt->runs, "runs per value (interleaved rounds)")
        ->capture_default_str()
        ->check(between(2, 1000));
    sub->add_option("--duration", opt->duration, "seconds per run")
        ->type_name("S")
        ->capture_default_str()
        ->check(positive<double>());
    sub->add_option("--dir", opt->dir,
                    "refault/readtwice files: a block-device file system (not tmpfs)")
        ->capture_default_str();
    sub->add_option("--size", opt->size_mib,
                    "refault/readtwice file size in MiB (default: 4 for reader-flush's refault, "
                    "32 for readtwice)")
        ->check(between<std::uint64_t>(2, 1U << 20U));
    sub->add_option("--output,--json", opt->json,
                    "JSON results file, rewritten after every run (default "
                    "experiment-NAME.json)")
        ->type_name("FILE");
    sub->add_option("--parent", opt->parent,
                    "build the cgroups below this existing cgroup (default: the tool's own "
                    "cgroup when systemd delegated it, else the root)")
        ->type_name("CGROUP");
    sub->add_option("--plot", opt->plot,
                    "SVG/PNG plot (default experiment-NAME.svg; -SUFFIX per table when several)")
        ->type_name("FILE");
    return {sub, [&ctx, opt] { run_experiment(ctx, *opt); }};
}

} // namespace memcg_statctl
