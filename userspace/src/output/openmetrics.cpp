#include "output/openmetrics.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <span>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>
#include <fmt/format.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

constexpr std::string_view prefix = "memcg_statctl_";
constexpr double ns = 1e9; // per second

// How one module counter, derived value or knob becomes a metric. Names are Prometheus'
// conventions: base units (seconds, ratios), `_total` on counters; the module's name is
// in the HELP text so either can be found from the other.
struct Spec {
    std::string_view from;
    std::string_view metric; // without the prefix
    std::string_view help;
    double divisor = 1; // to the base unit; a division, so 95 / 100 prints 0.95
    MetricType type = MetricType::counter;
};

constexpr auto counter_specs = std::to_array<Spec>({
    {"flush.requests", "flush_requests_total",
     "Requests to flush the memcg statistics that reached the module (flush.requests)."},
    {"flush.performed", "flush_performed_total", "Flushes performed (flush.performed)."},
    {"flush.skipped", "flush_skipped_total",
     "Flush requests not performed: the policy declined or another flush held the lock "
     "(flush.skipped)."},
    {"flush.periodic", "flush_periodic_total", "Periodic flush requests (flush.periodic)."},
    {"flush.async_queued", "flush_async_queued_total",
     "Asynchronous flushes queued by update_flush_every (flush.async_queued)."},
    {"flush.async", "flush_async_total",
     "Flushes performed by the queued asynchronous work (flush.async)."},
    {"flush.ns_total", "flush_seconds_total", "Time spent in performed flushes (flush.ns_total).",
     ns},
    {"flush.ns_max", "flush_max_seconds",
     "Longest performed flush since load or reset (flush.ns_max).", ns, MetricType::gauge},
    {"charge_stock.attempts", "charge_stock_attempts_total",
     "Page charges, each trying the per-cpu charge stock first (charge_stock.attempts)."},
    {"charge_stock.misses", "charge_stock_misses_total",
     "Page charges the charge stock could not serve (charge_stock.misses)."},
    {"charge_stock.refills", "charge_stock_refills_total",
     "Pages put back into the charge stock (charge_stock.refills)."},
    {"charge_stock.drains", "charge_stock_drains_total",
     "Charge stocks handed back to their memcg (charge_stock.drains)."},
    {"obj_stock.attempts", "obj_stock_attempts_total",
     "Object charges, each trying the per-cpu object stock first (obj_stock.attempts)."},
    {"obj_stock.misses", "obj_stock_misses_total",
     "Object charges the object stock could not serve (obj_stock.misses)."},
    {"obj_stock.refills", "obj_stock_refills_total",
     "Bytes put back into the object stock (obj_stock.refills)."},
    {"obj_stock.drains", "obj_stock_drains_total", "Object stocks drained (obj_stock.drains)."},
    {"objcg_vmstat.updates", "objcg_vmstat_updates_total",
     "Slab statistic updates made through the object stock (objcg_vmstat.updates)."},
    {"objcg_vmstat.flushes", "objcg_vmstat_flushes_total",
     "Slab statistics cached in the object stock pushed to the memcg (objcg_vmstat.flushes)."},
    {"stat_updates", "stat_updates_total",
     "Memcg statistic updates while the update hooks are attached (stat_updates)."},
    {"stat_updates.amount", "stat_updates_amount_total",
     "Size of those updates in the kernel's unit of pending updates: pages and events, "
     "bytes for slab items on 6.1 (stat_updates.amount)."},
    {"caller.recovered", "caller_recovered_total",
     "Calls whose caller was recovered from another tracer's records (caller.recovered)."},
    {"caller.unattributed", "caller_unattributed_total",
     "Calls whose caller another tracer hid, not counted by caller-filtered rows "
     "(caller.unattributed)."},
});

constexpr auto derived_specs = std::to_array<Spec>({
    {"ns_per_flush", "flush_mean_seconds",
     "Mean time of a performed flush since load or reset (ns_per_flush); NaN before the "
     "first.",
     ns, MetricType::gauge},
    {"charge_stock_hit_pct", "charge_stock_hit_ratio",
     "Charges served by the charge stock, 0 to 1 (charge_stock_hit_pct / 100); NaN when "
     "unknown.",
     100, MetricType::gauge},
    {"obj_stock_hit_pct", "obj_stock_hit_ratio",
     "Object charges served by the object stock, 0 to 1 (obj_stock_hit_pct / 100); NaN when "
     "unknown.",
     100, MetricType::gauge},
    {"objcg_vmstat_miss_pct", "objcg_vmstat_miss_ratio",
     "Slab statistic updates that pushed to the memcg, 0 to 1 (objcg_vmstat_miss_pct / 100); "
     "NaN when unknown.",
     100, MetricType::gauge},
});

constexpr auto knob_specs = std::to_array<Spec>({
    {"flush_threshold", "knob_flush_threshold",
     "Knob flush_threshold: pending statistic updates at which a flush is performed.", 1,
     MetricType::gauge},
    {"flush_period_ms", "knob_flush_period_seconds",
     "Knob flush_period_ms: period of the periodic flush (0: none).", 1000, MetricType::gauge},
    {"update_flush_every", "knob_update_flush_every",
     "Knob update_flush_every: statistic updates between queued asynchronous flushes (0: "
     "off).",
     1, MetricType::gauge},
    {"stock_hooks", "knob_stock_hooks", "Knob stock_hooks: 1 when the stock hooks are on.", 1,
     MetricType::gauge},
    {"objcg_flush_hooks", "knob_objcg_flush_hooks",
     "Knob objcg_flush_hooks: 1 when objcg_vmstat.flushes is counted.", 1, MetricType::gauge},
    {"stock_attribution", "knob_stock_attribution",
     "Knob stock_attribution: 1 while per-cgroup stock attribution is counted.", 1,
     MetricType::gauge},
});

// The values a knob can take, for an enum-style gauge: one sample per value, 1 for the
// current one. A value not listed (a newer module's) is added.
struct KnobStates {
    std::string_view knob;
    std::vector<std::string_view> states;
};

const std::vector<KnobStates>& knob_states() {
    static const std::vector<KnobStates> states = {
        {"flush_mode", {"kernel", "threshold", "always", "never"}},
    };
    return states;
}

const Spec* find_spec(std::span<const Spec> specs, std::string_view from) {
    const auto it =
        std::find_if(specs.begin(), specs.end(), [&](const Spec& s) { return s.from == from; });
    return it == specs.end() ? nullptr : &*it;
}

// Letters, digits and underscores only; a leading digit gets an underscore before it.
std::string sanitize(std::string_view name) {
    std::string out;
    for (const char c : name) {
        const bool ok =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        out += ok ? c : '_';
    }
    if (out.empty() || (out.front() >= '0' && out.front() <= '9')) {
        out.insert(out.begin(), '_');
    }
    return out;
}

std::string format_value(double v) {
    if (std::isnan(v)) {
        return "NaN";
    }
    if (std::isinf(v)) {
        return v > 0 ? "+Inf" : "-Inf";
    }
    return fmt::format("{}", v);
}

std::string format_value(std::uint64_t v, double divisor) {
    if (divisor == 1) {
        return fmt::format("{}", v); // exact, also above 2^53
    }
    return format_value(static_cast<double>(v) / divisor);
}

// The exposition format's escapes: backslash and newline in HELP text and label values,
// the double quote in label values only.
std::string escape(std::string_view text, bool quote) {
    std::string out;
    for (const char c : text) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else if (quote && c == '"') {
            out += "\\\"";
        } else {
            out += c;
        }
    }
    return out;
}

std::string_view type_name(MetricType t) {
    switch (t) {
    case MetricType::counter:
        return "counter";
    case MetricType::histogram:
        return "histogram";
    case MetricType::gauge:
        break;
    }
    return "gauge";
}

MetricLabels with(const MetricLabels& common, MetricLabels more) {
    MetricLabels out = common;
    out.insert(out.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
    return out;
}

class Families {
public:
    explicit Families(MetricLabels common) : common_(std::move(common)) {}

    // A second family of the same name (two module names that sanitize alike) is dropped:
    // the text format allows one.
    MetricFamily* add(std::string name, std::string help, MetricType type) {
        if (!names_.insert(name).second) {
            return nullptr;
        }
        families_.push_back({std::move(name), std::move(help), type, {}});
        return &families_.back();
    }
    void one(std::string name, std::string help, MetricType type, std::string value,
             MetricLabels labels = {}) {
        if (auto* f = add(std::move(name), std::move(help), type)) {
            f->samples.push_back({"", with(common_, std::move(labels)), std::move(value)});
        }
    }
    const MetricLabels& common() const { return common_; }
    std::vector<MetricFamily> take() { return std::move(families_); }

private:
    MetricLabels common_;
    std::set<std::string> names_;
    std::vector<MetricFamily> families_;
};

void add_counters(Families& out, const Counters& counters) {
    for (const auto& [name, value] : counters.entries()) {
        const auto* spec = find_spec(counter_specs, name);
        const auto type = spec != nullptr              ? spec->type
                          : Counters::is_maximum(name) ? MetricType::gauge
                                                       : MetricType::counter;
        const auto help = spec != nullptr ? std::string(spec->help)
                                          : fmt::format("The module's counter {}.", name);
        out.one(counter_metric_name(name), help, type,
                format_value(value, spec != nullptr ? spec->divisor : 1));
    }
}

void add_histogram(Families& out, std::string name, std::string help, const MetricHistogram& h) {
    auto* f = out.add(std::move(name), std::move(help), MetricType::histogram);
    if (f == nullptr) {
        return;
    }
    for (const auto& [le, count] : h.buckets) {
        f->samples.push_back(
            {"_bucket", with(out.common(), {{"le", format_value(le)}}), fmt::format("{}", count)});
    }
    f->samples.push_back(
        {"_bucket", with(out.common(), {{"le", "+Inf"}}), fmt::format("{}", h.count)});
    f->samples.push_back({"_sum", out.common(), format_value(h.sum)});
    f->samples.push_back({"_count", out.common(), fmt::format("{}", h.count)});
}

// Per requester class (a label): the requests and the flushes performed. Callers stay out:
// function names are not a bounded label set for a fleet's time series.
void add_reasons(Families& out, const FlushReasons& r) {
    const auto family = [&](const std::string& what, const std::string& help, auto value) {
        auto* f = out.add(fmt::format("{}flush_reason_{}_total", prefix, what), help,
                          MetricType::counter);
        if (f == nullptr) {
            return;
        }
        for (const auto& c : r.classes) {
            f->samples.push_back(
                {"", with(out.common(), {{"class", c.name}}), fmt::format("{}", value(c))});
        }
    };
    family("requests", "Flush requests by requester class (the module's flush_reasons).",
           [](const FlushReason& c) { return c.requests; });
    family("performed", "Flushes performed by requester class (the module's flush_reasons).",
           [](const FlushReason& c) { return c.performed; });
}

void add_derived(Families& out, const std::vector<DerivedValue>& derived) {
    for (const auto& d : derived) {
        const auto* spec = find_spec(derived_specs, d.name);
        const double divisor = spec != nullptr ? spec->divisor : 1;
        out.one(spec != nullptr ? fmt::format("{}{}", prefix, spec->metric)
                                : fmt::format("{}{}", prefix, sanitize(d.name)),
                spec != nullptr ? std::string(spec->help)
                                : fmt::format("The derived value {} ({}).", d.name, d.unit),
                MetricType::gauge, format_value(d.value ? *d.value / divisor : std::nan("")));
    }
}

void add_knobs(Families& out, const std::vector<std::pair<std::string, std::string>>& knobs) {
    for (const auto& [name, value] : knobs) {
        const auto number = parse_u64(value);
        if (number) {
            const auto* spec = find_spec(knob_specs, name);
            out.one(fmt::format("{}{}", prefix,
                                spec != nullptr ? spec->metric : "knob_" + sanitize(name)),
                    spec != nullptr ? std::string(spec->help) : fmt::format("Knob {}.", name),
                    MetricType::gauge, format_value(*number, spec != nullptr ? spec->divisor : 1));
            continue;
        }
        // Not a number: enum style, the value in a label named after the knob.
        const auto label = sanitize(name);
        auto* f =
            out.add(fmt::format("{}knob_{}", prefix, label),
                    fmt::format("Knob {}: 1 for its current value.", name), MetricType::gauge);
        if (f == nullptr) {
            continue;
        }
        std::vector<std::string> states;
        for (const auto& k : knob_states()) {
            if (k.knob == name) {
                states.assign(k.states.begin(), k.states.end());
            }
        }
        if (std::find(states.begin(), states.end(), value) == states.end()) {
            states.push_back(value);
        }
        for (const auto& s : states) {
            f->samples.push_back({"", with(out.common(), {{label, s}}), s == value ? "1" : "0"});
        }
    }
}

// The `version` keys besides module and kernel (already labels): abi, generation, ...
MetricLabels version_labels(const VersionInfo& version) {
    MetricLabels out;
    std::set<std::string> seen = {"kernel", "module_version", "le"};
    for (const auto& [key, value] : version.entries) {
        auto label = sanitize(key);
        if (key == "module" || key == "kernel" || label.starts_with("__") ||
            !seen.insert(label).second) {
            continue;
        }
        out.emplace_back(std::move(label), value);
    }
    return out;
}

} // namespace

std::string counter_metric_name(std::string_view counter) {
    if (const auto* spec = find_spec(counter_specs, counter)) {
        return fmt::format("{}{}", prefix, spec->metric);
    }
    auto name = sanitize(counter);
    if (!Counters::is_maximum(counter) && !name.ends_with("_total")) {
        name += "_total";
    }
    return fmt::format("{}{}", prefix, name);
}

MetricHistogram flush_duration_histogram(const LatencyHistogram& h, std::uint64_t ns_total) {
    MetricHistogram m;
    for (const auto& b : h.buckets) {
        m.count += b.count;
        if (b.hi) {
            m.buckets.emplace_back(static_cast<double>(*b.hi) / ns, m.count);
        }
    }
    m.sum = static_cast<double>(ns_total) / ns;
    return m;
}

std::string escape_label_value(std::string_view value) {
    return escape(value, true);
}

std::vector<MetricFamily> metric_families(const MetricsSnapshot& snapshot) {
    MetricLabels common = {{"kernel", snapshot.kernel}};
    const auto module_version = snapshot.version.get("module");
    if (snapshot.up && !module_version.empty()) {
        common.emplace_back("module_version", module_version);
    }
    Families out(std::move(common));
    out.one(fmt::format("{}up", prefix),
            "1 when the module's debugfs files could be read, 0 when not (module not loaded, "
            "debugfs not mounted, not root, another ABI).",
            MetricType::gauge, snapshot.up ? "1" : "0");
    if (!snapshot.up) {
        return out.take(); // nothing else: no stale values
    }
    out.one(fmt::format("{}module_info", prefix),
            "The module's version file: abi, kernel generation, flush and stock models, flush "
            "control, lockdown.",
            MetricType::gauge, "1", version_labels(snapshot.version));
    add_counters(out, snapshot.counters);
    if (snapshot.flush_latency) {
        add_histogram(out, fmt::format("{}flush_duration_seconds", prefix),
                      "Time of each performed flush (the module's flush_latency; _sum is "
                      "flush.ns_total, _count flush.performed).",
                      *snapshot.flush_latency);
    }
    if (snapshot.flush_reasons) {
        add_reasons(out, *snapshot.flush_reasons);
    }
    add_derived(out, snapshot.derived);
    add_knobs(out, snapshot.knobs);
    return out.take();
}

void write_metric_families(std::ostream& out, const std::vector<MetricFamily>& families) {
    for (const auto& f : families) {
        out << "# HELP " << f.name << ' ' << escape(f.help, false) << '\n';
        out << "# TYPE " << f.name << ' ' << type_name(f.type) << '\n';
        for (const auto& s : f.samples) {
            out << f.name << s.suffix;
            if (!s.labels.empty()) {
                out << '{';
                for (std::size_t i = 0; i < s.labels.size(); ++i) {
                    out << (i > 0 ? "," : "") << s.labels[i].first << "=\""
                        << escape_label_value(s.labels[i].second) << '"';
                }
                out << '}';
            }
            out << ' ' << s.value << '\n';
        }
    }
}

std::string format_metrics(const MetricsSnapshot& snapshot) {
    std::ostringstream out;
    write_metric_families(out, metric_families(snapshot));
    return out.str();
}

void write_textfile_atomically(const std::filesystem::path& dir, std::string_view text) {
    // Hidden and not ending in .prom: the collector reads only *.prom files.
    std::string tmp = (dir / fmt::format(".{}.XXXXXX", textfile_name)).string();
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) {
        throw ToolError(
            fmt::format("cannot create a file in {}: {}", dir.string(), std::strerror(errno)));
    }
    const auto fail = [&](std::string_view what) {
        const int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw ToolError(fmt::format("{} {}: {}", what, tmp, std::strerror(err)));
    };
    for (std::size_t done = 0; done < text.size();) {
        const auto n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            fail("cannot write");
        }
        done += static_cast<std::size_t>(n);
    }
    // mkstemp makes it 0600; node_exporter runs as its own user and must read it.
    if (::fchmod(fd, 0644) != 0) {
        fail("cannot chmod");
    }
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw ToolError(fmt::format("cannot write {}: {}", tmp, std::strerror(err)));
    }
    const auto target = dir / textfile_name;
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw ToolError(
            fmt::format("cannot rename {} to {}: {}", tmp, target.string(), std::strerror(err)));
    }
}

} // namespace memcg_statctl
