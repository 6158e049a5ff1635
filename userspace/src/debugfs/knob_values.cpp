#include "debugfs/knob_values.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "text_util.h"

namespace memcg_statctl {
namespace {

// One row of module/ABI.md's knob table (a unit test compares the two).
struct KnobSpec {
    std::string_view name;
    std::string_view accepted;
    std::array<std::string_view, 4> words{}; // a mode knob's values; none: a number
    std::uint64_t min = 0;                   // a number from min to max, or 0 when zero_ok
    std::uint64_t max = 0;
    bool zero_ok = false;
    std::string_view kernel_value{}; // a flush knob's value that needs no flush control
    bool flush = false;              // needs flush control for every other value
};

constexpr std::uint64_t two_to(unsigned bits) {
    return std::uint64_t{1} << bits;
}

constexpr std::array<KnobSpec, 6> knobs = {{
    {.name = "flush_mode",
     .accepted = "kernel, threshold, always or never",
     .words = {"kernel", "threshold", "always", "never"},
     .kernel_value = "kernel",
     .flush = true},
    {.name = "flush_threshold",
     .accepted = "0 .. 2^62 pending updates",
     .max = two_to(62),
     .flush = true}, // any value: the kernel has no threshold of its own to match
    {.name = "flush_period_ms",
     .accepted = "0 (no periodic flush) or 10 .. 3600000",
     .min = 10,
     .max = 3600000,
     .zero_ok = true,
     .kernel_value = "2000",
     .flush = true},
    {.name = "update_flush_every",
     .accepted = "0 (off) .. 2^24",
     .max = two_to(24),
     .kernel_value = "0",
     .flush = true},
    {.name = "stock_hooks", .accepted = "0 or 1", .max = 1},
    {.name = "objcg_flush_hooks", .accepted = "0 or 1", .max = 1},
}};

const KnobSpec* find_knob(std::string_view name) {
    const auto* const it =
        std::find_if(knobs.begin(), knobs.end(), [&](const auto& k) { return k.name == name; });
    return it == knobs.end() ? nullptr : it;
}

bool accepts(const KnobSpec& k, std::string_view value) {
    if (!k.words.front().empty()) {
        return std::find(k.words.begin(), k.words.end(), value) != k.words.end();
    }
    const auto n = parse_u64(value); // digits only, as the module parses
    return n && ((*n >= k.min && *n <= k.max) || (k.zero_ok && *n == 0));
}

} // namespace

std::vector<std::string> known_knobs() {
    std::vector<std::string> names;
    names.reserve(knobs.size());
    for (const auto& k : knobs) {
        names.emplace_back(k.name);
    }
    return names;
}

std::optional<std::string_view> knob_accepted_values(std::string_view knob) {
    const auto* k = find_knob(knob);
    return k == nullptr ? std::nullopt : std::optional(k->accepted);
}

std::optional<std::string> knob_value_error(std::string_view knob, std::string_view value) {
    const auto* k = find_knob(knob);
    if (k == nullptr || accepts(*k, value)) {
        return std::nullopt;
    }
    return fmt::format("{} rejects '{}': {}", knob, value, k->accepted);
}

bool needs_flush_control(std::string_view knob, std::string_view value) {
    const auto* k = find_knob(knob);
    return k != nullptr && k->flush && value != k->kernel_value;
}

} // namespace memcg_statctl
