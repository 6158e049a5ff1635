// `compare FILE...`: the results files of run, sweep or experiment from several machines or
// kernels in one table (mmtests compare-kernels shape). Files that measured different
// things (workload, command, duration, cgroups, knob, values...) are refused with the
// list of differences unless --allow-mismatch.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/cli.h"
#include "compare/table.h"
#include "exit_code.h"
#include "output/plot.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

struct CompareOptions {
    std::vector<std::string> files;
    bool allow_mismatch = false;
    std::string metrics;
    bool all = false;
    FormatFlags format;
    bool markdown = false;
    std::string plot;
};

void run_compare(const Context& ctx, const CompareOptions& opt) {
    if (opt.files.size() < 2) {
        throw ToolError(ExitCode::usage, "compare needs two results files or more");
    }
    if (!opt.plot.empty()) {
        check_plot_file(opt.plot);
    }
    const auto metrics =
        opt.metrics.empty() ? std::vector<std::string>{} : split_commas(opt.metrics);
    check_metric_names(metrics);
    std::vector<ResultsDocument> documents;
    for (const auto& f : opt.files) {
        documents.push_back(read_results_document(f));
        if (!documents.back().complete) {
            fmt::print(ctx.env.err, "warning: {} stopped before the end: it has fewer runs\n", f);
        }
    }
    const auto table = compare_documents(std::move(documents), metrics);
    if (!table.differences.empty()) {
        const auto list = describe_differences(table.files, table.differences);
        if (!opt.allow_mismatch) {
            throw ToolError(fmt::format("the files did not measure the same thing:\n{}"
                                        "(--allow-mismatch compares them anyway)",
                                        list));
        }
        // the text and markdown tables list the differences themselves
        if (opt.format.format() != OutputFormat::text) {
            fmt::print(ctx.env.err, "warning: compared anyway, the files differ:\n{}", list);
        }
    }
    if (opt.format.json) {
        fmt::print(ctx.env.out, "{}\n", compare_json(table, opt.all).dump(2));
    } else if (opt.format.csv) {
        print_compare_csv(ctx.env.out, table, opt.all);
    } else if (opt.markdown) {
        print_compare_markdown(ctx.env.out, table, opt.all);
    } else {
        print_compare_text(ctx.env.out, table, opt.all);
    }
    ctx.env.out.flush();
    if (!opt.plot.empty()) {
        run_gnuplot(compare_gnuplot_script(table, opt.plot), opt.plot);
    }
}

} // namespace

Command add_compare_command(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand(
        "compare",
        "compare results files (run, sweep, experiment --output) of several machines "
        "or kernels: the change against the first with its 95% interval, Welch's t-test");
    auto opt = std::make_shared<CompareOptions>();
    sub->add_option("FILE", opt->files, "results files; the first is the baseline")
        ->required()
        ->type_name("FILE...");
    sub->add_flag("--allow-mismatch", opt->allow_mismatch,
                  "compare files whose parameters differ (the differences are printed)");
    sub->add_option("--metrics", opt->metrics,
                    "only these metrics or groups (e.g. counters,ns_per_flush,flush.requests; "
                    "groups: counters, derived, memory_stat, flush_reasons); the compared figure "
                    "always")
        ->type_name("a,b");
    sub->add_flag("--all", opt->all,
                  "show every row, also those equal to the first file's or within the noise");
    const auto format = add_format_flags(*sub, opt->format, "print JSON (see docs/output.md)",
                                         "print CSV (one line per metric, value, file)");
    auto* markdown =
        sub->add_flag("--markdown", opt->markdown, "print a GitHub-flavoured markdown table");
    markdown->excludes(format.json);
    markdown->excludes(format.csv);
    sub->add_option("--plot", opt->plot, "also write an SVG or PNG plot (by extension)")
        ->type_name("FILE");
    return {sub, [&ctx, opt] { run_compare(ctx, *opt); }};
}

} // namespace memcg_statctl
