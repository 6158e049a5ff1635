// `top`: a live screen of each cgroup's stat updates no flush has folded in yet (the module's
// `pending`), the error they allow in memory.stat, its charge stock misses and drains of the
// interval (`stock_by_cgroup`), and the flush requests of the interval by reason. The pure
// parts, for the command and the tests: naming cgroups by id, choosing and ordering rows, the
// text screen and the JSON line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugfs/attribution.h"
#include "debugfs/pending.h"
#include "debugfs/reasons.h"

namespace memcg_statctl {

// The cgroups under a cgroup2 mount by cgroup id (their directories' inode numbers), as
// paths from the mount ("/" for the root). A directory that vanishes during the walk is left
// out, with what was under it.
std::map<std::uint64_t, std::string> cgroup_paths_by_id(const std::filesystem::path& mount);

// Whether `paths` names every cgroup `pending` lists and every cgroup with stock events in
// `stock` (an interval's delta; nullptr: none): then a refresh can reuse the last walk (on a
// machine of 100 cgroups the walk lists some 4000 files a refresh).
bool names_every_cgroup(const Pending& pending, const std::map<std::uint64_t, std::string>& paths,
                        const StockAttribution* stock = nullptr);

enum class TopSort { pending, handed, cpus, stock_misses, stock_drains, stock_evicted, path };
std::optional<TopSort> parse_top_sort(std::string_view name); // "pending", ...
inline constexpr std::string_view top_sort_names =
    "pending, handed, cpus, stock_misses, stock_drains, stock_evicted or path";

struct TopRow {
    std::string path;         // from the mount; "(all memcgs)" for scope global
    std::uint64_t id = 0;     // 0 for scope global
    std::uint64_t handed = 0; // handed up by the cpus
    std::uint64_t cpus = 0;   // still per cpu
    // false: a cgroup that only `stock_by_cgroup` lists (6.1 has no per-cgroup count), whose
    // handed and cpus are unknown.
    bool has_pending = true;
    // Its charge stock events in the interval (all memcgs' for scope global's row); nullopt
    // while stock attribution is not counted (state off or missing, or no file).
    std::optional<StockCounts> stock;
    std::uint64_t pending() const { return handed + cpus; }
    // The most any memory.stat value of the cgroup can be off, in bytes for page counts
    // (an event count is off by at most pending() events).
    std::uint64_t bound_bytes(std::uint64_t page_bytes) const { return pending() * page_bytes; }
    // Past the kernel's trigger (handed > trigger): its own policy (flush_mode=kernel)
    // flushes the cgroup at its next read, and it stops counting, so the figures are lower
    // bounds.
    bool due(std::uint64_t trigger) const { return handed > trigger; }
};

// The rows of one screen: a cgroup the tool cannot name (created after the walk, or
// outside the mount) is shown by its id; rows sorted by `sort` (counts: most first, ties by
// path; an unknown count as 0), at most `limit` (0: all). `stock`, the interval's delta of
// `stock_by_cgroup` (nullopt: no file), gives each row its stock events (0 for a cgroup it
// does not list) while on, and a row of its own to a cgroup `pending` does not list that
// `paths` names (on 6.1 every such cgroup; a removed one has no row).
std::vector<TopRow> top_rows(const Pending& pending,
                             const std::map<std::uint64_t, std::string>& paths, TopSort sort,
                             std::size_t limit,
                             const std::optional<StockAttribution>& stock = std::nullopt);

struct TopFrame {
    std::string timestamp; // UTC, ISO 8601
    double seconds = 0;    // the interval the reasons cover; 0 on the first frame
    Pending pending;
    std::vector<TopRow> rows;
    std::size_t cgroups = 0;             // rows before the limit
    std::optional<FlushReasons> reasons; // requests in the interval; nullopt: no file
    // Stock events in the interval (counts 0 on the first frame); nullopt: no file.
    std::optional<StockAttribution> stock;
    std::string flush_mode; // the knob's value; empty without it
    std::uint64_t page_size = 4096;
};

// The screen: a header (scope, trigger, the interval's flush requests by class, stock
// attribution's state or totals), then one line per row; `width` columns at most (0: no
// limit). The EVICT column only when the kernel counts evictions (7.x).
std::string top_screen(const TopFrame& f, std::size_t width);
// One JSON object on one line, newline-terminated (docs/output.md).
std::string top_json_line(const TopFrame& f);

} // namespace memcg_statctl
