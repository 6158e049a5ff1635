#include "top/top.h"

#include <algorithm>
#include <array>
#include <set>
#include <sys/stat.h>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "output/result_schema.h"

namespace memcg_statctl {

namespace {

// "0", "512K", "1.5M", "3.0G": a byte count in the width of a column.
std::string short_bytes(std::uint64_t bytes) {
    static constexpr std::array<const char*, 5> units = {"K", "M", "G", "T", "P"};
    if (bytes < 1024) {
        return fmt::format("{}", bytes);
    }
    auto v = static_cast<double>(bytes) / 1024;
    std::size_t u = 0;
    while (v >= 1024 && u + 1 < units.size()) {
        v /= 1024;
        ++u;
    }
    return v < 10 ? fmt::format("{:.1f}{}", v, units[u]) : fmt::format("{:.0f}{}", v, units[u]);
}

std::string clip(std::string line, std::size_t width) {
    if (width > 0 && line.size() > width) {
        line.resize(width);
    }
    return line;
}

bool any_events(const StockCounts& c) {
    return c.attempts > 0 || c.misses > 0 || c.refills > 0 || c.drains > 0 || c.obj_misses > 0 ||
           c.evicted.value_or(0) > 0;
}

// Whether the kernel counts evictions (7.x): `other`, always listed while on, says.
bool counts_evictions(const std::optional<StockAttribution>& stock) {
    return stock && stock->on() && stock->other.evicted.has_value();
}

// A count, or "-" where unknown.
std::string cell(const std::optional<std::uint64_t>& v) {
    return v ? std::to_string(*v) : std::string("-");
}

Json json_count(const std::optional<std::uint64_t>& v) {
    return v ? Json(*v) : Json(nullptr);
}

// The header line of stock attribution: its totals of the interval, or why it has none.
std::string stock_line(const TopFrame& f) {
    if (!f.stock) {
        return fmt::format("stock attribution: not in this module (no `{}` file)",
                           stock_attribution_file);
    }
    switch (f.stock->state) {
    case StockAttributionState::off:
        return fmt::format("stock attribution off: memcg-statctl set {} 1", stock_attribution_knob);
    case StockAttributionState::missing:
        return "stock attribution: not available on this kernel (the kernel log says why)";
    case StockAttributionState::on:
        break;
    }
    if (f.seconds <= 0) {
        return "stock attribution: counted from the next refresh";
    }
    const auto t = f.stock->total();
    auto l = fmt::format("stock in {:.1f} s, all memcgs: {} misses, {} drains", f.seconds, t.misses,
                         t.drains);
    if (t.evicted) {
        l += fmt::format(", {} evicted", *t.evicted);
    }
    if (any_events(f.stock->other)) {
        l += fmt::format("; not attributed (module's table full): {} misses, {} drains",
                         f.stock->other.misses, f.stock->other.drains);
    }
    return l;
}

} // namespace

namespace {

// Adds `dir` and the directories under it, by inode number. One directory at a time: a
// cgroup removed during the walk leaves out only itself, never the rest.
void add_cgroup_paths(const std::filesystem::path& mount, const std::filesystem::path& dir,
                      std::map<std::uint64_t, std::string>& paths) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        return;
    }
    const auto rel = dir.lexically_relative(mount).generic_string();
    paths[st.st_ino] = rel == "." ? "/" : "/" + rel;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        std::error_code type_ec;
        if (entry.is_directory(type_ec) && !entry.is_symlink(type_ec)) {
            add_cgroup_paths(mount, entry.path(), paths);
        }
    }
}

} // namespace

std::map<std::uint64_t, std::string> cgroup_paths_by_id(const std::filesystem::path& mount) {
    std::map<std::uint64_t, std::string> paths;
    add_cgroup_paths(mount, mount, paths);
    return paths;
}

bool names_every_cgroup(const Pending& pending, const std::map<std::uint64_t, std::string>& paths,
                        const StockAttribution* stock) {
    const auto named = [&](std::uint64_t id) { return paths.contains(id); };
    return std::all_of(pending.cgroups.begin(), pending.cgroups.end(),
                       [&](const PendingCgroup& c) { return named(c.id); }) &&
           (stock == nullptr ||
            std::all_of(stock->cgroups.begin(), stock->cgroups.end(), [&](const StockCgroup& c) {
                return named(c.id) || !any_events(c.counts);
            }));
}

std::optional<TopSort> parse_top_sort(std::string_view name) {
    if (name == "pending") {
        return TopSort::pending;
    }
    if (name == "handed") {
        return TopSort::handed;
    }
    if (name == "cpus") {
        return TopSort::cpus;
    }
    if (name == "stock_misses") {
        return TopSort::stock_misses;
    }
    if (name == "stock_drains") {
        return TopSort::stock_drains;
    }
    if (name == "stock_evicted") {
        return TopSort::stock_evicted;
    }
    if (name == "path") {
        return TopSort::path;
    }
    return std::nullopt;
}

std::vector<TopRow> top_rows(const Pending& pending,
                             const std::map<std::uint64_t, std::string>& paths, TopSort sort,
                             std::size_t limit, const std::optional<StockAttribution>& stock) {
    const bool counted = stock && stock->on();
    // A cgroup the file does not list had no event; EVICTED stays unknown where it is.
    std::optional<StockCounts> none;
    if (counted) {
        none.emplace().evicted =
            stock->other.evicted ? std::optional<std::uint64_t>(0) : std::nullopt;
    }
    // By id: no scan of the file's cgroups per row (thousands of cgroups, every refresh).
    std::map<std::uint64_t, const StockCounts*> by_id;
    if (counted) {
        for (const auto& c : stock->cgroups) {
            by_id.emplace(c.id, &c.counts);
        }
    }
    const auto stock_of = [&](std::uint64_t id) -> std::optional<StockCounts> {
        const auto it = by_id.find(id);
        return it != by_id.end() ? std::optional(*it->second) : none;
    };
    std::vector<TopRow> rows;
    if (pending.global) {
        rows.push_back({"(all memcgs)", 0, *pending.global, 0, true,
                        counted ? std::optional(stock->total()) : std::nullopt});
    }
    for (const auto& c : pending.cgroups) {
        const auto it = paths.find(c.id);
        rows.push_back({it != paths.end() ? it->second : fmt::format("(id {})", c.id), c.id,
                        c.handed, c.cpus, true, stock_of(c.id)});
    }
    if (counted) {
        std::set<std::uint64_t> listed;
        for (const auto& c : pending.cgroups) {
            listed.insert(c.id);
        }
        for (const auto& c : stock->cgroups) {
            const auto it = paths.find(c.id);
            if (it != paths.end() && listed.insert(c.id).second) {
                rows.push_back({it->second, c.id, 0, 0, false, c.counts});
            }
        }
    }
    const auto key = [sort](const TopRow& r) -> std::uint64_t {
        const auto s = r.stock.value_or(StockCounts{});
        switch (sort) {
        case TopSort::handed:
            return r.handed;
        case TopSort::cpus:
            return r.cpus;
        case TopSort::stock_misses:
            return s.misses;
        case TopSort::stock_drains:
            return s.drains;
        case TopSort::stock_evicted:
            return s.evicted.value_or(0);
        default:
            return r.pending();
        }
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const TopRow& a, const TopRow& b) {
        if (sort != TopSort::path && key(a) != key(b)) {
            return key(a) > key(b);
        }
        return a.path < b.path;
    });
    if (limit > 0 && rows.size() > limit) {
        rows.resize(limit);
    }
    return rows;
}

std::string top_screen(const TopFrame& f, std::size_t width) {
    std::string s;
    const auto line = [&](const std::string& l) { s += clip(l, width) + "\n"; };
    line(fmt::format("memcg-statctl top  {}  flush_mode {}  scope {}  trigger {} ({} per cpu)",
                     f.timestamp, f.flush_mode.empty() ? "-" : f.flush_mode, f.pending.scope,
                     f.pending.trigger, f.pending.batch));
    if (f.reasons && f.seconds > 0) {
        std::string r = fmt::format("flush requests in {:.1f} s (performed/asked):", f.seconds);
        for (const auto& c : f.reasons->classes) {
            if (c.requests > 0) {
                r += fmt::format(" {} {}/{}", c.name, c.performed, c.requests);
            }
        }
        line(r);
    } else if (f.reasons) {
        line("flush requests: counted from the next refresh");
    } else {
        line("flush requests: not counted (no flush control)");
    }
    line(stock_line(f));
    if (f.pending.offline) {
        line(fmt::format("offline memcgs: {}, pending {}", f.pending.offline->count,
                         f.pending.offline->handed + f.pending.offline->cpus));
    }
    if (f.pending.scope == "global" && !f.pending.global) {
        line("pending updates: not counted while flush_mode is not kernel (6.1: the module "
             "holds the kernel's count)");
    }
    line(
        fmt::format("{} cgroups{}", f.cgroups,
                    f.rows.size() < f.cgroups ? fmt::format(", top {} shown", f.rows.size()) : ""));
    line("");
    const bool evict = counts_evictions(f.stock);
    line(fmt::format("{:>10} {:>10} {:>10} {:>8} {:>4} {:>8} {:>8}{}  {}", "PENDING", "HANDED",
                     "CPUS", "BOUND", "DUE", "ST-MISS", "ST-DRAIN",
                     evict ? fmt::format(" {:>8}", "EVICT") : "", "CGROUP"));
    for (const auto& r : f.rows) {
        const auto known = [&](std::uint64_t v) {
            return r.has_pending ? std::to_string(v) : std::string("-");
        };
        const auto& st = r.stock;
        line(fmt::format("{:>10} {:>10} {:>10} {:>8} {:>4} {:>8} {:>8}{}  {}", known(r.pending()),
                         known(r.handed), known(r.cpus),
                         r.has_pending ? short_bytes(r.bound_bytes(f.page_size)) : "-",
                         r.has_pending && r.due(f.pending.trigger) ? "yes" : "-",
                         cell(st ? std::optional(st->misses) : std::nullopt),
                         cell(st ? std::optional(st->drains) : std::nullopt),
                         evict ? fmt::format(" {:>8}", cell(st ? st->evicted : std::nullopt)) : "",
                         r.path));
    }
    return s;
}

std::string top_json_line(const TopFrame& f) {
    Json rows = Json::array();
    for (const auto& r : f.rows) {
        Json row = {{"cgroup", r.path}};
        if (r.id != 0) {
            row["id"] = r.id;
        }
        const auto known = [&](const Json& v) { return r.has_pending ? v : Json(nullptr); };
        row["pending"] = known(r.pending());
        row["handed"] = known(r.handed);
        row["cpus"] = known(r.cpus);
        row["bound_bytes"] = known(r.bound_bytes(f.page_size));
        row["due"] = known(r.due(f.pending.trigger));
        const auto& st = r.stock;
        row["stock_misses"] = json_count(st ? std::optional(st->misses) : std::nullopt);
        row["stock_drains"] = json_count(st ? std::optional(st->drains) : std::nullopt);
        row["stock_evicted"] = json_count(st ? st->evicted : std::nullopt);
        rows.push_back(std::move(row));
    }
    Json j = {{"timestamp", f.timestamp},
              {"seconds", f.seconds},
              {"flush_mode", f.flush_mode.empty() ? Json(nullptr) : Json(f.flush_mode)},
              {"scope", f.pending.scope},
              {"batch", f.pending.batch},
              {"trigger", f.pending.trigger},
              {"cgroups", f.cgroups}};
    if (f.pending.offline) {
        j["offline"] = {{"count", f.pending.offline->count},
                        {"handed", f.pending.offline->handed},
                        {"cpus", f.pending.offline->cpus}};
    }
    j["flush_reasons"] = reasons_json(f.reasons); // as stats --json writes it
    j["stock_attribution"] = f.stock ? Json(state_name(f.stock->state)) : Json(nullptr);
    if (f.stock && f.stock->on()) {
        const auto& o = f.stock->other;
        j["stock_other"] = {{"stock_misses", o.misses},
                            {"stock_drains", o.drains},
                            {"stock_evicted", json_count(o.evicted)}};
    }
    j["rows"] = std::move(rows);
    return j.dump() + "\n";
}

} // namespace memcg_statctl
