#include "debugfs/reasons.h"

#include <algorithm>

#include <fmt/core.h>

#include "debugfs/lines.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

namespace {

[[noreturn]] void malformed(std::size_t line_no, std::string_view line) {
    throw_malformed(flush_reasons_file, line_no, line,
                    "`class NAME requests performed skipped` or `caller FUNCTION CLASS requests "
                    "performed skipped` (decimal, requests = performed + skipped)");
}

const FlushReason* find(const std::vector<FlushReason>& v, const std::string& name) {
    const auto it = std::find_if(v.begin(), v.end(), [&](const auto& r) { return r.name == name; });
    return it == v.end() ? nullptr : &*it;
}

std::vector<FlushReason> delta(const std::vector<FlushReason>& before,
                               const std::vector<FlushReason>& after, bool keep_idle) {
    std::vector<FlushReason> out;
    for (const auto& a : after) {
        const auto* b = find(before, a.name);
        FlushReason d{a.name, a.klass, counter_delta(a.requests, b ? b->requests : 0),
                      counter_delta(a.performed, b ? b->performed : 0)};
        d.performed = std::min(d.performed, d.requests);
        if (keep_idle || d.requests > 0) {
            out.push_back(std::move(d));
        }
    }
    return out;
}

// Adds `add` into `total`, by name: a name not there yet is appended.
void merge(std::vector<FlushReason>& total, const std::vector<FlushReason>& add) {
    for (const auto& a : add) {
        const auto it = std::find_if(total.begin(), total.end(),
                                     [&](const auto& t) { return t.name == a.name; });
        if (it == total.end()) {
            total.push_back(a);
        } else {
            it->requests += a.requests;
            it->performed += a.performed;
        }
    }
}

void by_requests(std::vector<FlushReason>& v) {
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.requests > b.requests; });
}

} // namespace

const std::vector<std::string_view>& flush_reason_classes() {
    static const std::vector<std::string_view> names = {
        "reader", "reclaim", "refault", "periodic", "async", "forced", "unattributed"};
    return names;
}

FlushReasons parse_flush_reasons(std::string_view text) {
    FlushReasons r;
    each_line(text, [&](std::size_t line_no, std::string_view raw) {
        const auto f = split_whitespace(raw);
        const bool is_class = f[0] == "class";
        if (!is_class && f[0] != "caller") {
            return; // a line kind of a newer module
        }
        const std::size_t n = is_class ? 5 : 6;
        if (f.size() != n) {
            malformed(line_no, raw);
        }
        const auto req = parse_u64(f[n - 3]);
        const auto perf = parse_u64(f[n - 2]);
        const auto skip = parse_u64(f[n - 1]);
        if (!req || !perf || !skip || *req != *perf + *skip) {
            malformed(line_no, raw);
        }
        FlushReason x{std::string(f[1]), is_class ? std::string() : std::string(f[2]), *req, *perf};
        (is_class ? r.classes : r.callers).push_back(std::move(x));
    });
    if (r.classes.empty()) {
        throw ToolError(fmt::format("malformed {}: no class lines", flush_reasons_file));
    }
    by_requests(r.callers);
    return r;
}

std::optional<FlushReasons> reasons_delta(const std::optional<FlushReasons>& before,
                                          const std::optional<FlushReasons>& after) {
    if (!before || !after) {
        return std::nullopt;
    }
    FlushReasons d{delta(before->classes, after->classes, true),
                   delta(before->callers, after->callers, false)};
    by_requests(d.callers);
    return d;
}

std::optional<FlushReasons> reasons_sum(const std::vector<FlushReasons>& runs) {
    if (runs.empty()) {
        return std::nullopt;
    }
    FlushReasons total;
    for (const auto& r : runs) {
        merge(total.classes, r.classes);
        merge(total.callers, r.callers);
    }
    by_requests(total.callers);
    return total;
}

} // namespace memcg_statctl
