#include <fmt/format.h>
#include <fmt/ostream.h>

#include "compare/table.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

template <typename T>
std::string number(const std::optional<T>& v) {
    return v ? fmt::format("{:.6g}", static_cast<double>(*v)) : std::string();
}

void line(std::ostream& out, const std::vector<std::string>& cells) {
    std::vector<std::string> quoted;
    quoted.reserve(cells.size());
    for (const auto& c : cells) {
        quoted.push_back(csv_field(c));
    }
    fmt::print(out, "{}\n", fmt::join(quoted, ","));
}

} // namespace

void print_compare_csv(std::ostream& out, const CompareTable& t) {
    line(out, {"series", "workload", "knob", "metric", "value", "file", "host", "kernel", "n",
               "mean", "stddev", "percent_change", "p_value", "significant"});
    for (std::size_t s = 0; s < t.sections.size(); ++s) {
        const auto& sec = t.sections[s];
        for (const auto& row : sec.rows) {
            for (std::size_t i = 0; i < row.cells.size(); ++i) {
                const auto& c = row.cells[i];
                if (!c) {
                    continue;
                }
                const auto& f = t.files[i];
                line(out, {std::to_string(s + 1), sec.workload, sec.knob, row.metric, row.value,
                           f.source, f.host, f.kernel, std::to_string(c->n),
                           number(std::optional<double>(c->mean)), number(c->stddev),
                           number(c->percent_change), number(c->p_value),
                           c->significant ? "true" : "false"});
            }
        }
    }
}

} // namespace memcg_statctl
