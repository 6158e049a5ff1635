// Access to the module's debugfs directory (module/ABI.md), and what its knobs accept. The
// root is injectable so the tests and `--debugfs DIR` can point it at an ordinary directory
// holding fake files.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugfs/attribution.h"
#include "debugfs/counters.h"
#include "debugfs/histogram.h"
#include "debugfs/pending.h"
#include "debugfs/reasons.h"
#include "debugfs/status.h"

namespace memcg_statctl {

// The knobs of module/ABI.md and the values the module accepts, so that a sweep can refuse
// a bad knob or value before it needs the module, and a flush knob on a kernel without
// flush control before any run. Knobs are still discovered from the module's directory:
// one this list lacks (a newer module's) is checked by the module alone.

// The knobs of module/ABI.md, in its order.
std::vector<std::string> known_knobs();

// What module/ABI.md says a knob accepts ("0 or 1"); nullopt for a knob it does not list.
std::optional<std::string_view> knob_accepted_values(std::string_view knob);

// "flush_mode rejects 'nevr': kernel, threshold, always or never" when the module would
// refuse the write of `value` (module/ABI.md); nullopt when it would take it or when the
// knob is not in known_knobs().
std::optional<std::string> knob_value_error(std::string_view knob, std::string_view value);

// Whether writing `value` asks for something the kernel does not do by itself, which
// needs flush control (a flush_mode other than kernel, any flush_threshold, ...).
bool needs_flush_control(std::string_view knob, std::string_view value);

// Writes `data` to `path`; returns 0 or the errno of the failed open/write. Injectable
// because only the kernel can reject a write with EINVAL: tests substitute a fake kernel.
using FileWriter = std::function<int(const std::filesystem::path&, std::string_view)>;
int write_whole_file(const std::filesystem::path& path, std::string_view data);

class DebugfsClient {
public:
    explicit DebugfsClient(std::filesystem::path root = default_debugfs_root,
                           FileWriter writer = write_whole_file);

    const std::filesystem::path& root() const { return root_; }
    Availability availability() const { return probe_availability(root_); }
    // Throws ToolError(exit 3) with instructions when the module cannot be reached, then
    // ToolError (exit 1) when its `version` file is malformed or names another ABI than
    // supported_abi: every command calls this before it reads or writes anything else.
    void require_module() const;
    // Throws ToolError(exit 3) naming what disappeared (module unloaded, debugfs
    // unmounted) when the module's files are gone; for use after require_module().
    void require_still_module() const { require_still_available(root_); }

    VersionInfo version() const;
    std::vector<HookEntry> hooks() const;
    Counters stats() const;
    // The flush latency histogram; nullopt when the module has no `flush_latency` file
    // (no flush control, or a module older than the file): that is no error.
    std::optional<LatencyHistogram> flush_latency() const;
    // The flush requests by reason; nullopt when the module has no `flush_reasons` file.
    std::optional<FlushReasons> flush_reasons() const;
    // The updates no flush has folded in yet; nullopt when the module has no `pending` file
    // (version's `pending` says `missing`, or a module older than the file).
    std::optional<Pending> pending() const;
    // The stock events per cgroup (`stock_by_cgroup`); nullopt when the module has no such
    // file (a module older than the file).
    std::optional<StockAttribution> stock_attribution() const;

    // Every access below throws ToolError on failure; when the failure is that the module's
    // files are gone (unloaded, debugfs unmounted), that of require_still_module().

    // Knobs are discovered, never listed in this tool: every regular file of the
    // directory that has a write permission bit, except `reset` (write-only action).
    std::vector<std::string> knob_names() const;
    bool is_knob(std::string_view name) const;
    // Throws ToolError (usage, exit 2) "unknown knob `NAME` (the module has: ...)" unless
    // is_knob(name): the one check of a knob name, for every command that takes one.
    void require_knob(std::string_view name) const;
    std::string read_knob(std::string_view name) const; // value without trailing newline
    // Throws ToolError (exit 1) with one line saying what to do when the write fails:
    // EINVAL "<knob> rejects '<value>': <knob_accepted_values()>", EPERM (debugfs locked
    // down: set knobs as module parameters), EOPNOTSUPP (no flush control on this kernel;
    // for stock_attribution: the kernel lacks what it needs).
    void write_knob(std::string_view name, std::string_view value) const;
    void reset_counters() const;

private:
    std::string read(std::string_view file) const;
    std::filesystem::path root_;
    FileWriter writer_;
};

// What `stats --watch`, a run and an experiment's run read of the module at each end of
// their span. Always read in this order, so that each delta spans the same stretch of time
// as nearly as the reads allow.
struct ModuleSample {
    Counters counters;
    std::optional<LatencyHistogram> latency; // nullopt: no flush_latency file
    std::optional<FlushReasons> reasons;     // nullopt: no flush_reasons file
};

ModuleSample read_module_sample(const DebugfsClient& client);

} // namespace memcg_statctl
