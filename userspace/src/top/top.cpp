#include "top/top.h"

#include <algorithm>
#include <array>
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

bool names_every_cgroup(const Pending& pending, const std::map<std::uint64_t, std::string>& paths) {
    return std::all_of(pending.cgroups.begin(), pending.cgroups.end(),
                       [&](const PendingCgroup& c) { return paths.count(c.id) > 0; });
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
    if (name == "path") {
        return TopSort::path;
    }
    return std::nullopt;
}

std::vector<TopRow> top_rows(const Pending& pending,
                             const std::map<std::uint64_t, std::string>& paths, TopSort sort,
                             std::size_t limit) {
    std::vector<TopRow> rows;
    if (pending.global) {
        rows.push_back({"(all memcgs)", 0, *pending.global, 0});
    }
    for (const auto& c : pending.cgroups) {
        const auto it = paths.find(c.id);
        rows.push_back({it != paths.end() ? it->second : fmt::format("(id {})", c.id), c.id,
                        c.handed, c.cpus});
    }
    const auto key = [sort](const TopRow& r) {
        switch (sort) {
        case TopSort::handed:
            return r.handed;
        case TopSort::cpus:
            return r.cpus;
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
    line(fmt::format("{:>10} {:>10} {:>10} {:>8} {:>4}  {}", "PENDING", "HANDED", "CPUS", "BOUND",
                     "DUE", "CGROUP"));
    for (const auto& r : f.rows) {
        line(fmt::format("{:>10} {:>10} {:>10} {:>8} {:>4}  {}", r.pending(), r.handed, r.cpus,
                         short_bytes(r.bound_bytes(f.page_size)),
                         r.due(f.pending.trigger) ? "yes" : "-", r.path));
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
        row["pending"] = r.pending();
        row["handed"] = r.handed;
        row["cpus"] = r.cpus;
        row["bound_bytes"] = r.bound_bytes(f.page_size);
        row["due"] = r.due(f.pending.trigger);
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
    j["rows"] = std::move(rows);
    return j.dump() + "\n";
}

} // namespace memcg_statctl
