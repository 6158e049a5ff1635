// Which cgroups miss, refill and drain the charge stock (the module's debugfs file
// `stock_by_cgroup`, counted while the knob `stock_attribution` is 1; module/ABI.md): the
// stock events per cgroup id and, on 7.x, how many memcgs each cpu's stock held when
// sampled. Its strict parser and the difference of two reads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace memcg_statctl {

// The six counts of a `cgroup` or `other` line.
struct StockCounts {
    std::uint64_t attempts = 0;   // a charge consulted the charge stock
    std::uint64_t misses = 0;     // and charged the page counter instead
    std::uint64_t refills = 0;    // pages returned to the stock
    std::uint64_t drains = 0;     // the stock gave back the cgroup's pages
    std::uint64_t obj_misses = 0; // an object charge fell through to a page charge
    // A drain to free a slot for another cgroup; nullopt where the kernel's stock holds one
    // memcg per cpu (6.1, 6.12: the file says `-`), never 0 then.
    std::optional<std::uint64_t> evicted;
    // The six by the names JSON and CSV give them, in the file's order; evicted nullopt
    // where not counted.
    std::array<std::pair<std::string_view, std::optional<std::uint64_t>>, 6> named() const;
    friend bool operator==(const StockCounts&, const StockCounts&) = default;
};

struct StockCgroup {
    std::uint64_t id = 0; // the cgroup id: its directory's inode number, as `pending`'s
    StockCounts counts;
    friend bool operator==(const StockCgroup&, const StockCgroup&) = default;
};

// One cpu's samples (every 100 ms) of how many memcgs its charge stock held: samples[k]
// found k of them, k = 0 .. the stock's slots.
struct StockOccupancy {
    std::uint64_t cpu = 0;
    std::vector<std::uint64_t> samples;
    std::uint64_t total() const;
    // The mean number of memcgs held; nullopt before the first sample.
    std::optional<double> mean() const;
    friend bool operator==(const StockOccupancy&, const StockOccupancy&) = default;
};

enum class StockAttributionState { on, off, missing };
std::string_view state_name(StockAttributionState s); // "on", "off", "missing"

struct StockAttribution {
    // off: the knob is 0; missing: the kernel lacks what the counting needs. Nothing else
    // is set unless on.
    StockAttributionState state = StockAttributionState::off;
    std::vector<StockCgroup> cgroups;      // in the file's order: most misses first
    StockCounts other;                     // events that did not fit the module's table
    std::vector<StockOccupancy> occupancy; // 7.x; one per cpu, in the file's order
    bool on() const { return state == StockAttributionState::on; }
    // The counts of cgroup `id`; nullptr when the file does not list it.
    const StockCounts* find(std::uint64_t id) const;
    // Every cgroup's counts and `other` added up: all memcgs.
    StockCounts total() const;
    friend bool operator==(const StockAttribution&, const StockAttribution&) = default;
};

inline constexpr std::string_view stock_attribution_file = "stock_by_cgroup";
inline constexpr std::string_view stock_attribution_knob = "stock_attribution";

// Throws ToolError naming the line for a file that does not start with `state
// on|off|missing`, for a malformed `cgroup ID ATTEMPTS MISSES REFILLS DRAINS OBJ_MISSES
// EVICTED`, `other ...` (the same six) or `occupancy CPU C0 .. CN` line (decimal u64s;
// EVICTED may be `-`), for a cgroup or cpu listed twice, EVICTED `-` on some lines only,
// occupancy lines of different lengths, and, with `state on`, a missing `other` line; and
// for any of those lines after `state off` or `state missing`. Lines with other first words
// are skipped: a newer module may add kinds.
StockAttribution parse_stock_attribution(std::string_view text);

// after - before, per cgroup and cpu: the events in between. A count that went backwards
// (a `reset` in between) gives 0, as Counters::delta does; a cgroup or cpu new in `after`,
// or every count when `before` was not on (the knob turned on since: the module starts an
// empty table), counts from 0. The result has after's state and cgroups, in after's order.
StockAttribution attribution_delta(const StockAttribution& before, const StockAttribution& after);

// `a` with every count 0 (the first screen of `top`, which has no interval yet).
StockAttribution attribution_zeroed(StockAttribution a);

} // namespace memcg_statctl
