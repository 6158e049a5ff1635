#include "debugfs/counters.h"

#include <algorithm>
#include <cctype>

#include <fmt/core.h>

#include "debugfs/lines.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

bool Counters::add(std::string name, std::uint64_t value) {
    if (get(name)) {
        return false;
    }
    entries_.emplace_back(std::move(name), value);
    return true;
}

std::optional<std::uint64_t> Counters::get(std::string_view name) const {
    const auto it = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const Entry& e) { return e.first == name; });
    if (it == entries_.end()) {
        return std::nullopt;
    }
    return it->second;
}

bool Counters::is_maximum(std::string_view name) {
    return name.ends_with("_max");
}

Counters Counters::delta(const Counters& before, const Counters& after) {
    Counters out;
    for (const auto& [name, value] : after.entries()) {
        if (const auto old = before.get(name)) {
            if (is_maximum(name)) {
                out.add(name, value);
            } else {
                out.add(name, counter_delta(value, *old));
            }
        }
    }
    return out;
}

const std::vector<std::string_view>& counter_names() {
    static const std::vector<std::string_view> names = {
        "flush.requests",      "flush.performed",      "flush.skipped",
        "flush.periodic",      "flush.async",          "flush.async_queued",
        "flush.ns_total",      "flush.ns_max",         "charge_stock.attempts",
        "charge_stock.misses", "charge_stock.refills", "charge_stock.drains",
        "obj_stock.attempts",  "obj_stock.misses",     "obj_stock.refills",
        "obj_stock.drains",    "objcg_vmstat.updates", "objcg_vmstat.flushes",
        "stat_updates",        "stat_updates.amount",  "caller.recovered",
        "caller.unattributed"};
    return names;
}

const std::vector<std::string_view>& derived_names() {
    static const std::vector<std::string_view> names = {
        "flushes_per_sec", "ns_per_flush",         "flush.ns_p50",      "flush.ns_p90",
        "flush.ns_p99",    "charge_stock_hit_pct", "obj_stock_hit_pct", "objcg_vmstat_miss_pct"};
    return names;
}

namespace {

std::optional<double> ratio(double num, double den) {
    if (den == 0) {
        return std::nullopt;
    }
    return num / den;
}

std::optional<double> scaled(std::optional<double> v, double factor, double offset = 0) {
    if (!v) {
        return std::nullopt;
    }
    return offset + (factor * *v);
}

} // namespace

std::vector<DerivedValue> derive(const Counters& counts, std::optional<double> seconds,
                                 const std::optional<LatencyHistogram>& latency) {
    std::vector<DerivedValue> out;
    const auto performed = counts.get("flush.performed");
    const auto ns_total = counts.get("flush.ns_total");
    if (performed && seconds) {
        out.push_back({"flushes_per_sec", "/s", ratio(static_cast<double>(*performed), *seconds)});
    }
    if (performed && ns_total) {
        out.push_back({"ns_per_flush", "ns",
                       ratio(static_cast<double>(*ns_total), static_cast<double>(*performed))});
    }
    if (latency) {
        for (const auto& p : latency_percentiles) {
            out.push_back({std::string(p.name), "ns", histogram_quantile(*latency, p.q)});
        }
    }
    // hit % = 100 * (1 - misses / attempts), for each stock (the measure of
    // docs/background.md#obj-stock-vmstat).
    // A charge that retries after reclaim (memory.max) consults the stock
    // again and can miss again, while it is one attempt: with more misses
    // than attempts the ratio means nothing, so it is shown as unknown.
    for (const std::string stock : {"charge_stock", "obj_stock"}) {
        const auto attempts = counts.get(stock + ".attempts");
        const auto misses = counts.get(stock + ".misses");
        if (attempts && misses) {
            out.push_back({stock + "_hit_pct", "%",
                           *misses > *attempts ? std::nullopt
                                               : scaled(ratio(static_cast<double>(*misses),
                                                              static_cast<double>(*attempts)),
                                                        -100, 100)});
        }
    }
    // The vmstat miss rate of docs/background.md#obj-stock-vmstat: the stat pushes of
    // mod_objcg_state over its calls.
    const auto updates = counts.get("objcg_vmstat.updates");
    const auto flushes = counts.get("objcg_vmstat.flushes");
    if (updates && flushes) {
        out.push_back(
            {"objcg_vmstat_miss_pct", "%",
             scaled(ratio(static_cast<double>(*flushes), static_cast<double>(*updates)), 100)});
    }
    return out;
}

std::optional<double> derived_value(const std::vector<DerivedValue>& values,
                                    std::string_view name) {
    for (const auto& d : values) {
        if (d.name == name) {
            return d.value;
        }
    }
    return std::nullopt;
}

namespace {

// Counter, hook and key names: what the module uses, e.g. `flush.ns_total`.
bool is_name(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
    });
}

constexpr std::string_view hooks_header = "NAME TARGET CALLER MECHANISM STATE HITS";

} // namespace

std::string VersionInfo::get(std::string_view key) const {
    const auto it =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
    return it == entries.end() ? std::string() : it->second;
}

VersionInfo parse_version(std::string_view text) {
    VersionInfo info;
    each_line(text, [&](std::size_t line_no, std::string_view raw) {
        const auto line = trim(raw);
        const auto space = line.find_first_of(" \t");
        const auto key = line.substr(0, space);
        const auto value =
            space == std::string_view::npos ? std::string_view{} : trim(line.substr(space));
        if (!is_name(key) || value.empty()) {
            throw_malformed("version", line_no, raw, "`key value`");
        }
        if (!info.get(key).empty()) {
            throw_malformed("version", line_no, raw, fmt::format("`{}` only once", key));
        }
        info.entries.emplace_back(key, value);
    });
    // Falco-style guard: check the interface version before trusting anything else.
    const auto abi = parse_u64(info.get("abi"));
    if (!abi) {
        throw ToolError("module `version` file has no valid `abi` line");
    }
    if (*abi != supported_abi) {
        throw ToolError(fmt::format("module speaks debugfs ABI {}, this tool speaks ABI {}: "
                                    "use the memcg-statctl built with the module",
                                    *abi, supported_abi));
    }
    return info;
}

std::vector<HookEntry> parse_hooks(std::string_view text) {
    std::vector<HookEntry> hooks;
    each_line(text, [&](std::size_t line_no, std::string_view raw) {
        const auto fields = split_whitespace(raw);
        // The ABI example shows a header; accept it (only as the first line) if present.
        if (hooks.empty() && line_no == 1 && trim(raw) == hooks_header) {
            return;
        }
        constexpr auto expected = "`NAME TARGET CALLER MECHANISM STATE HITS`";
        if (fields.size() != 6) {
            throw_malformed("hooks", line_no, raw, expected);
        }
        const auto hits = parse_u64(fields[5]);
        if (!hits || !is_name(fields[0])) {
            throw_malformed("hooks", line_no, raw, expected);
        }
        hooks.push_back(HookEntry{std::string(fields[0]), std::string(fields[1]),
                                  std::string(fields[2]), std::string(fields[3]),
                                  std::string(fields[4]), *hits});
    });
    return hooks;
}

Counters parse_stats(std::string_view text) {
    Counters counters;
    each_line(text, [&](std::size_t line_no, std::string_view raw) {
        const auto fields = split_whitespace(raw);
        constexpr auto expected = "`name value` with a decimal u64 value";
        if (fields.size() != 2 || !is_name(fields[0])) {
            throw_malformed("stats", line_no, raw, expected);
        }
        const auto value = parse_u64(fields[1]);
        if (!value) {
            throw_malformed("stats", line_no, raw, expected);
        }
        if (!counters.add(std::string(fields[0]), *value)) {
            throw_malformed("stats", line_no, raw, "each counter only once");
        }
    });
    return counters;
}

} // namespace memcg_statctl
