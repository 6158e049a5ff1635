#include "debugfs/pending.h"

#include <fmt/core.h>

#include "debugfs/lines.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

namespace {

[[noreturn]] void malformed_pending(std::size_t line_no, std::string_view line,
                                    std::string_view want) {
    throw_malformed(pending_file, line_no, line, want);
}

// The decimal fields f[1..n] of a line of n + 1 words, or nullopt.
std::optional<std::vector<std::uint64_t>> numbers(const std::vector<std::string_view>& f,
                                                  std::size_t n) {
    if (f.size() != n + 1) {
        return std::nullopt;
    }
    std::vector<std::uint64_t> v;
    for (std::size_t i = 1; i <= n; ++i) {
        const auto x = parse_u64(f[i]);
        if (!x) {
            return std::nullopt;
        }
        v.push_back(*x);
    }
    return v;
}

} // namespace

Pending parse_pending(std::string_view text) {
    Pending p;
    each_line(text, [&](std::size_t line_no, std::string_view raw) {
        const auto f = split_whitespace(raw);
        const auto kind = f.front();
        if (kind == "scope") {
            if (f.size() != 2 || (f[1] != "memcg" && f[1] != "global")) {
                malformed_pending(line_no, raw, "`scope memcg` or `scope global`");
            }
            p.scope = f[1];
        } else if (kind == "batch" || kind == "trigger" || kind == "global") {
            const auto v = numbers(f, 1);
            if (!v) {
                malformed_pending(line_no, raw, fmt::format("`{} N` (decimal)", kind));
            }
            (kind == "batch"     ? p.batch
             : kind == "trigger" ? p.trigger
                                 : p.global.emplace()) = v->front();
        } else if (kind == "cgroup") {
            const auto v = numbers(f, 3);
            if (!v) {
                malformed_pending(line_no, raw, "`cgroup ID HANDED CPUS` (decimal)");
            }
            p.cgroups.push_back({(*v)[0], (*v)[1], (*v)[2]});
        } else if (kind == "offline") {
            const auto v = numbers(f, 3);
            if (!v) {
                malformed_pending(line_no, raw, "`offline COUNT HANDED CPUS` (decimal)");
            }
            p.offline = PendingOffline{(*v)[0], (*v)[1], (*v)[2]};
        }
    });
    if (p.scope.empty() || p.batch == 0 || p.trigger == 0) {
        throw ToolError(
            fmt::format("malformed {}: no `scope`, `batch` or `trigger` line", pending_file));
    }
    // scope global: no `global` line while the module's policy holds 6.1's count.
    if (p.scope == "global" ? !p.cgroups.empty() || p.offline.has_value() : p.global.has_value()) {
        throw ToolError(fmt::format("malformed {}: scope {} with {} lines", pending_file, p.scope,
                                    p.scope == "global" ? "`cgroup` or `offline`" : "`global`"));
    }
    return p;
}

} // namespace memcg_statctl
