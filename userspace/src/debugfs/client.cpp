#include "debugfs/client.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"
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
    // What a write refused with EOPNOTSUPP means; empty: no flush control.
    std::string_view unsupported{};
};

constexpr std::uint64_t two_to(unsigned bits) {
    return std::uint64_t{1} << bits;
}

constexpr std::array<KnobSpec, 7> knobs = {{
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
    {.name = "stock_attribution",
     .accepted = "0 or 1",
     .max = 1,
     .unsupported = "stock attribution is not available on this kernel (it lacks something "
                    "the counting needs; the kernel log says why)"},
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

int write_whole_file(const std::filesystem::path& path, std::string_view data) {
    // O_TRUNC like a shell's `echo v > file`: needed for regular files (fake trees),
    // harmless on debugfs. One write(): debugfs handlers parse a single buffer.
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    const auto n = ::write(fd, data.data(), data.size());
    const int write_err = n < 0 ? errno : (static_cast<std::size_t>(n) != data.size() ? EIO : 0);
    const int close_err = ::close(fd) != 0 ? errno : 0;
    return write_err != 0 ? write_err : close_err;
}

DebugfsClient::DebugfsClient(std::filesystem::path root, FileWriter writer)
    : root_(std::move(root)), writer_(std::move(writer)) {}

std::string DebugfsClient::read(std::string_view file) const {
    try {
        return read_file(root_ / file);
    } catch (const ToolError&) {
        require_still_module(); // "cannot read ...": say it when the module is gone
        throw;
    }
}

void DebugfsClient::require_module() const {
    require_available(root_);
    (void)version(); // parse_version() checks the `abi` line first
}

VersionInfo DebugfsClient::version() const {
    return parse_version(read("version"));
}
std::vector<HookEntry> DebugfsClient::hooks() const {
    return parse_hooks(read("hooks"));
}
Counters DebugfsClient::stats() const {
    return parse_stats(read("stats"));
}
std::optional<LatencyHistogram> DebugfsClient::flush_latency() const {
    std::error_code ec;
    if (!std::filesystem::exists(root_ / flush_latency_file, ec)) {
        require_still_module(); // absent because the whole directory went away?
        return std::nullopt;
    }
    return parse_flush_latency(read(flush_latency_file));
}
std::optional<FlushReasons> DebugfsClient::flush_reasons() const {
    std::error_code ec;
    if (!std::filesystem::exists(root_ / flush_reasons_file, ec)) {
        require_still_module();
        return std::nullopt;
    }
    return parse_flush_reasons(read(flush_reasons_file));
}

std::optional<Pending> DebugfsClient::pending() const {
    std::error_code ec;
    if (!std::filesystem::exists(root_ / pending_file, ec)) {
        require_still_module();
        return std::nullopt;
    }
    return parse_pending(read(pending_file));
}

std::optional<StockAttribution> DebugfsClient::stock_attribution() const {
    std::error_code ec;
    if (!std::filesystem::exists(root_ / stock_attribution_file, ec)) {
        require_still_module();
        return std::nullopt;
    }
    return parse_stock_attribution(read(stock_attribution_file));
}

ModuleSample read_module_sample(const DebugfsClient& client) {
    // Braced: evaluated in order, the counters first.
    return {client.stats(), client.flush_latency(), client.flush_reasons()};
}

std::vector<std::string> DebugfsClient::knob_names() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root_, ec)) {
        // symlink_status: a knob is a file of the module, never something it points to.
        const auto st = entry.symlink_status(ec);
        if (ec || !std::filesystem::is_regular_file(st)) {
            continue;
        }
        constexpr auto write_bits = std::filesystem::perms::owner_write |
                                    std::filesystem::perms::group_write |
                                    std::filesystem::perms::others_write;
        const auto name = entry.path().filename().string();
        if ((st.permissions() & write_bits) != std::filesystem::perms::none && name != "reset") {
            names.push_back(name);
        }
    }
    if (ec) {
        require_still_module();
        throw ToolError(fmt::format("cannot list {}: {}", root_.string(), ec.message()));
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool DebugfsClient::is_knob(std::string_view name) const {
    const auto names = knob_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

void DebugfsClient::require_knob(std::string_view name) const {
    if (!is_knob(name)) {
        throw ToolError(ExitCode::usage, fmt::format("unknown knob `{}` (the module has: {})", name,
                                                     fmt::join(knob_names(), ", ")));
    }
}

std::string DebugfsClient::read_knob(std::string_view name) const {
    return std::string(trim(read(name)));
}

void DebugfsClient::write_knob(std::string_view name, std::string_view value) const {
    require_knob(name);
    const int err = writer_(root_ / name, fmt::format("{}\n", value));
    if (err == 0) {
        return;
    }
    if (err != EINVAL) {
        require_still_module();
    }
    switch (err) {
    case EINVAL: {
        // The module parsed the value and left the knob unchanged (module/ABI.md).
        const auto accepted = knob_accepted_values(name);
        throw ToolError(fmt::format("{} rejects '{}': {}", name, value,
                                    accepted ? *accepted : "see module/ABI.md for its values"));
    }
    case EPERM:
        throw ToolError("debugfs refuses writes (kernel lockdown?): set knobs as module "
                        "parameters at load");
    case EOPNOTSUPP: {
        const auto* k = find_knob(name);
        if (k != nullptr && !k->unsupported.empty()) {
            throw ToolError(std::string(k->unsupported));
        }
        throw ToolError("flush control is not available on this kernel (see `memcg-statctl "
                        "status`)");
    }
    default:
        throw ToolError(
            fmt::format("cannot write \"{}\" to {}: {}", value, name, std::strerror(err)));
    }
}

void DebugfsClient::reset_counters() const {
    const int err = writer_(root_ / "reset", "1\n");
    if (err != 0) {
        require_still_module();
        throw ToolError(fmt::format("cannot reset counters ({}): {}", (root_ / "reset").string(),
                                    std::strerror(err)));
    }
}

} // namespace memcg_statctl
