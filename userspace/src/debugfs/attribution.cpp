#include "debugfs/attribution.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fmt/core.h>

#include "debugfs/lines.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

namespace {

constexpr std::string_view six_fields = "ATTEMPTS MISSES REFILLS DRAINS OBJ_MISSES EVICTED";

[[noreturn]] void malformed_attribution(std::size_t line_no, std::string_view line,
                                        std::string_view want) {
    throw_malformed(stock_attribution_file, line_no, line, want);
}

[[noreturn]] void inconsistent(std::string_view what) {
    throw ToolError(fmt::format("malformed {}: {}", stock_attribution_file, what));
}

// The six counts of f[first .. first + 5], or nullopt: decimal u64s, the last one `-` too.
std::optional<StockCounts> counts_at(const std::vector<std::string_view>& f, std::size_t first) {
    if (f.size() != first + 6) {
        return std::nullopt;
    }
    std::array<std::uint64_t, 5> v{};
    for (std::size_t i = 0; i < v.size(); ++i) {
        const auto x = parse_u64(f[first + i]);
        if (!x) {
            return std::nullopt;
        }
        v.at(i) = *x;
    }
    StockCounts c{v[0], v[1], v[2], v[3], v[4], std::nullopt};
    if (f[first + 5] != "-") {
        c.evicted = parse_u64(f[first + 5]);
        if (!c.evicted) {
            return std::nullopt;
        }
    }
    return c;
}

StockCounts counts_delta(const StockCounts& before, const StockCounts& after) {
    StockCounts d{counter_delta(after.attempts, before.attempts),
                  counter_delta(after.misses, before.misses),
                  counter_delta(after.refills, before.refills),
                  counter_delta(after.drains, before.drains),
                  counter_delta(after.obj_misses, before.obj_misses),
                  std::nullopt};
    if (after.evicted) {
        d.evicted = counter_delta(*after.evicted, before.evicted.value_or(0));
    }
    return d;
}

StockCounts zeroed(const StockCounts& c) {
    StockCounts z;
    if (c.evicted) {
        z.evicted = 0;
    }
    return z;
}

} // namespace

std::array<std::pair<std::string_view, std::optional<std::uint64_t>>, 6>
StockCounts::named() const {
    return {{{"attempts", attempts},
             {"misses", misses},
             {"refills", refills},
             {"drains", drains},
             {"obj_misses", obj_misses},
             {"evicted", evicted}}};
}

std::uint64_t StockOccupancy::total() const {
    std::uint64_t n = 0;
    for (const auto s : samples) {
        n += s;
    }
    return n;
}

std::optional<double> StockOccupancy::mean() const {
    const auto n = total();
    if (n == 0) {
        return std::nullopt;
    }
    double sum = 0;
    for (std::size_t k = 0; k < samples.size(); ++k) {
        sum += static_cast<double>(k) * static_cast<double>(samples[k]);
    }
    return sum / static_cast<double>(n);
}

std::string_view state_name(StockAttributionState s) {
    switch (s) {
    case StockAttributionState::on:
        return "on";
    case StockAttributionState::missing:
        return "missing";
    case StockAttributionState::off:
        break;
    }
    return "off";
}

const StockCounts* StockAttribution::find(std::uint64_t id) const {
    const auto it =
        std::find_if(cgroups.begin(), cgroups.end(), [id](const auto& c) { return c.id == id; });
    return it == cgroups.end() ? nullptr : &it->counts;
}

StockCounts StockAttribution::total() const {
    StockCounts t = other;
    for (const auto& c : cgroups) {
        t.attempts += c.counts.attempts;
        t.misses += c.counts.misses;
        t.refills += c.counts.refills;
        t.drains += c.counts.drains;
        t.obj_misses += c.counts.obj_misses;
        if (t.evicted && c.counts.evicted) {
            *t.evicted += *c.counts.evicted;
        }
    }
    return t;
}

StockAttribution parse_stock_attribution(std::string_view text) {
    StockAttribution a;
    bool have_state = false;
    bool have_other = false;
    std::optional<bool> evicted; // whether EVICTED is a number, from the first line
    std::set<std::uint64_t> ids;
    std::set<std::uint64_t> cpus;
    const auto check_evicted = [&](const StockCounts& c) {
        if (evicted && *evicted != c.evicted.has_value()) {
            inconsistent("EVICTED is `-` on some lines and a number on others");
        }
        evicted = c.evicted.has_value();
    };
    each_line(text, [&](std::size_t line_no, std::string_view raw) {
        const auto f = split_whitespace(raw);
        const auto kind = f.front();
        if (!have_state) {
            if (f.size() != 2 || kind != "state" ||
                (f[1] != "on" && f[1] != "off" && f[1] != "missing")) {
                malformed_attribution(line_no, raw,
                                      "`state on`, `state off` or `state missing` first");
            }
            a.state = f[1] == "on"    ? StockAttributionState::on
                      : f[1] == "off" ? StockAttributionState::off
                                      : StockAttributionState::missing;
            have_state = true;
            return;
        }
        if (kind != "state" && kind != "cgroup" && kind != "other" && kind != "occupancy") {
            return; // a line kind of a newer module
        }
        if (!a.on()) {
            inconsistent(
                fmt::format("`{}` line {} after state {}", kind, line_no, state_name(a.state)));
        }
        if (kind == "state") {
            malformed_attribution(line_no, raw, "one `state` line");
        } else if (kind == "cgroup") {
            const auto id = f.size() > 1 ? parse_u64(f[1]) : std::nullopt;
            const auto c = counts_at(f, 2);
            if (!id || !c) {
                malformed_attribution(
                    line_no, raw,
                    fmt::format("`cgroup ID {}` (decimal; EVICTED may be `-`)", six_fields));
            }
            if (!ids.insert(*id).second) {
                malformed_attribution(line_no, raw, fmt::format("cgroup {} listed once", *id));
            }
            check_evicted(*c);
            a.cgroups.push_back({*id, *c});
        } else if (kind == "other") {
            const auto c = counts_at(f, 1);
            if (!c) {
                malformed_attribution(
                    line_no, raw,
                    fmt::format("`other {}` (decimal; EVICTED may be `-`)", six_fields));
            }
            if (have_other) {
                malformed_attribution(line_no, raw, "one `other` line");
            }
            check_evicted(*c);
            a.other = *c;
            have_other = true;
        } else {
            // occupancy CPU C0 C1 .. CN: at least the counts of 0 and 1 memcgs.
            StockOccupancy o;
            bool ok = f.size() >= 4;
            for (std::size_t i = 1; ok && i < f.size(); ++i) {
                const auto x = parse_u64(f[i]);
                ok = x.has_value();
                if (ok && i == 1) {
                    o.cpu = *x;
                } else if (ok) {
                    o.samples.push_back(*x);
                }
            }
            if (!ok) {
                malformed_attribution(line_no, raw,
                                      "`occupancy CPU C0 C1 .. CN` (decimal, N >= 1)");
            }
            if (!cpus.insert(o.cpu).second) {
                malformed_attribution(line_no, raw, fmt::format("cpu {} listed once", o.cpu));
            }
            if (!a.occupancy.empty() && a.occupancy.front().samples.size() != o.samples.size()) {
                malformed_attribution(line_no, raw,
                                      fmt::format("{} counts, as on the first `occupancy` line",
                                                  a.occupancy.front().samples.size()));
            }
            a.occupancy.push_back(std::move(o));
        }
    });
    if (!have_state) {
        inconsistent("no `state` line");
    }
    if (a.on() && !have_other) {
        inconsistent("state on without an `other` line");
    }
    return a;
}

StockAttribution attribution_delta(const StockAttribution& before, const StockAttribution& after) {
    if (!after.on()) {
        return after;
    }
    StockAttribution d;
    d.state = after.state;
    const StockAttribution empty;
    const auto& base = before.on() ? before : empty;   // turned on since: an empty table then
    std::map<std::uint64_t, const StockCounts*> by_id; // no scan of base per cgroup
    for (const auto& c : base.cgroups) {
        by_id.emplace(c.id, &c.counts);
    }
    for (const auto& c : after.cgroups) {
        const auto b = by_id.find(c.id);
        d.cgroups.push_back(
            {c.id, counts_delta(b != by_id.end() ? *b->second : zeroed(c.counts), c.counts)});
    }
    d.other = counts_delta(before.on() ? base.other : zeroed(after.other), after.other);
    for (const auto& o : after.occupancy) {
        const auto it = std::find_if(base.occupancy.begin(), base.occupancy.end(),
                                     [&](const auto& b) { return b.cpu == o.cpu; });
        StockOccupancy x{o.cpu, {}};
        for (std::size_t k = 0; k < o.samples.size(); ++k) {
            const bool had = it != base.occupancy.end() && k < it->samples.size();
            x.samples.push_back(counter_delta(o.samples[k], had ? it->samples[k] : 0));
        }
        d.occupancy.push_back(std::move(x));
    }
    return d;
}

StockAttribution attribution_zeroed(StockAttribution a) {
    for (auto& c : a.cgroups) {
        c.counts = zeroed(c.counts);
    }
    a.other = zeroed(a.other);
    for (auto& o : a.occupancy) {
        std::fill(o.samples.begin(), o.samples.end(), 0);
    }
    return a;
}

} // namespace memcg_statctl
