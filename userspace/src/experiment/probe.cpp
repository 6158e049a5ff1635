#include "experiment/probe.h"

#include <array>
#include <atomic>
#include <fcntl.h>
#include <new>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "debugfs/pending.h"
#include "exit_code.h"
#include "text_util.h"
#include "workloads/io.h"

namespace memcg_statctl {
namespace {
constexpr std::uint64_t max_bracket = 16; // pages faulted during one usable read
// Kept reads between two reads of `pending`, which lists every cgroup: a small part of the
// reader's work.
constexpr std::uint64_t pending_every = 16;
constexpr std::uint64_t no_count = ~std::uint64_t{0}; // `pending` not read, or no row
} // namespace

// Lives in MAP_SHARED memory made before the fork: the faulter writes seq/resident, the
// reader writes the rest, the parent reads the rest after the run.
struct StalenessProbe::Shared {
    std::atomic<std::uint64_t> seq{0};
    std::atomic<std::uint64_t> resident{0};
    std::atomic<std::uint64_t> samples{0};
    std::atomic<std::uint64_t> discarded{0};
    std::atomic<std::int64_t> min_error{0};
    std::atomic<std::int64_t> max_error{0};
    std::atomic<std::uint64_t> max_bracket{0};
    std::atomic<std::uint64_t> max_pending{0};
    std::atomic<bool> has_pending{false};
};

StalenessProbe::StalenessProbe(std::uint64_t mapping_mib, std::filesystem::path pending)
    : mapping_bytes_(mapping_mib * mib), pending_(std::move(pending)) {
    void* mem =
        ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        throw_errno("mmap staleness state");
    }
    shared_ = new (mem) Shared;
}

StalenessProbe::~StalenessProbe() {
    ::munmap(shared_, sizeof(Shared));
}

void StalenessProbe::prepare(std::size_t cgroups) {
    if (cgroups != 2) {
        throw ToolError(ExitCode::usage, "the staleness probe needs exactly 2 cgroups");
    }
}

void StalenessProbe::run_task(const TaskContext& ctx) {
    if (ctx.cgroup == 0) {
        fault(ctx);
    } else {
        read_stats(ctx);
    }
}

void StalenessProbe::fault(const TaskContext& ctx) {
    if (::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
        throw_errno("prctl(PR_SET_THP_DISABLE)");
    }
    auto& s = *shared_;
    std::uint64_t ops = 0;
    while (!ctx.stopping()) {
        s.seq.fetch_add(1, std::memory_order_acq_rel); // odd: mapping changes
        void* map = ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) {
            throw_errno("mmap");
        }
        s.resident.store(0, std::memory_order_release);
        s.seq.fetch_add(1, std::memory_order_acq_rel); // even: counts are exact
        auto* bytes = static_cast<volatile char*>(map);
        std::uint64_t touched = 0;
        for (std::uint64_t off = 0; off < mapping_bytes_ && !ctx.stopping(); off += page_size) {
            bytes[off] = 1;
            s.resident.store(++touched, std::memory_order_release);
            ctx.publish(++ops);
        }
        s.seq.fetch_add(1, std::memory_order_acq_rel);
        ::munmap(map, mapping_bytes_);
        s.resident.store(0, std::memory_order_release);
        s.seq.fetch_add(1, std::memory_order_acq_rel);
    }
}

std::optional<std::uint64_t> StalenessProbe::read_pending(std::uint64_t cgroup_id) const {
    try {
        const auto p = parse_pending(read_file(pending_));
        for (const auto& c : p.cgroups) {
            if (c.id == cgroup_id) {
                return c.total();
            }
        }
    } catch (const std::exception&) {
        // Unloaded mid-run, or unreadable: the run itself reports the module's state.
    }
    return std::nullopt;
}

void StalenessProbe::read_stats(const TaskContext& ctx) {
    const auto leaf0 = ctx.cgroup_dir.parent_path() / "leaf0";
    const auto path = leaf0 / "memory.stat";
    // The cgroup id is its directory's inode number (module/ABI.md, `pending`).
    struct stat leaf0_stat {};
    const bool with_pending = !pending_.empty() && ::stat(leaf0.c_str(), &leaf0_stat) == 0;
    const auto fd = open_or_throw(path, O_RDONLY);
    auto& s = *shared_;
    std::string text;
    std::array<char, 8192> buf{};
    std::uint64_t ops = 0;
    std::int64_t lo = 0;
    std::int64_t hi = 0;
    std::uint64_t samples = 0;
    while (!ctx.stopping()) {
        // The kernel's own count just before the read: a read that flushes (kernel,
        // always) zeroes it, and the stat then read is as fresh as the count said it was not.
        const std::uint64_t pending = with_pending && ops % pending_every == 0
                                          ? read_pending(leaf0_stat.st_ino).value_or(no_count)
                                          : no_count;
        const auto seq1 = s.seq.load(std::memory_order_acquire);
        const auto r1 = s.resident.load(std::memory_order_acquire);
        if (::lseek(fd.get(), 0, SEEK_SET) != 0) {
            throw_errno("lseek memory.stat");
        }
        text.clear();
        ssize_t n = 0;
        while ((n = ::read(fd.get(), buf.data(), buf.size())) > 0) {
            text.append(buf.data(), static_cast<std::size_t>(n));
        }
        if (n < 0) {
            throw_errno(fmt::format("read {}", path.string()));
        }
        const auto r2 = s.resident.load(std::memory_order_acquire);
        const auto seq2 = s.seq.load(std::memory_order_acquire);
        ctx.publish(++ops);
        // A read that overlapped an munmap/mmap, or during which the faulter ran on for
        // more than max_bracket pages (the reader was descheduled: under TCG this happens),
        // cannot say which true count the stat should be compared with.
        if (seq1 != seq2 || (seq1 & 1U) != 0 || r2 < r1 || r2 - r1 > max_bracket) {
            s.discarded.fetch_add(1, std::memory_order_relaxed);
            continue;
        }
        const auto anon = memory_stat_anon(text);
        if (!anon) {
            throw ToolError(fmt::format("{}: no `anon` line", path.string()));
        }
        const auto stat_pages = static_cast<std::int64_t>(*anon / page_size);
        const auto truth = static_cast<std::int64_t>((r1 + r2) / 2);
        const auto err = stat_pages - truth;
        lo = samples == 0 ? err : std::min(lo, err);
        hi = samples == 0 ? err : std::max(hi, err);
        ++samples;
        s.min_error.store(lo, std::memory_order_relaxed);
        s.max_error.store(hi, std::memory_order_relaxed);
        s.samples.store(samples, std::memory_order_relaxed);
        if (r2 - r1 > s.max_bracket.load(std::memory_order_relaxed)) {
            s.max_bracket.store(r2 - r1, std::memory_order_relaxed);
        }
        if (pending != no_count) {
            s.has_pending.store(true, std::memory_order_relaxed);
            if (pending > s.max_pending.load(std::memory_order_relaxed)) {
                s.max_pending.store(pending, std::memory_order_relaxed);
            }
        }
    }
}

StalenessSample StalenessProbe::result() const {
    StalenessSample r;
    r.samples = shared_->samples.load();
    r.discarded = shared_->discarded.load();
    r.max_bracket = shared_->max_bracket.load();
    if (r.samples > 0) {
        r.min_error = shared_->min_error.load();
        r.max_error = shared_->max_error.load();
    }
    if (shared_->has_pending.load()) {
        r.max_pending = shared_->max_pending.load();
    }
    return r;
}

std::optional<std::uint64_t> memory_stat_anon(std::string_view text) {
    for (const auto line : split_lines(text)) {
        const auto f = split_whitespace(line);
        if (f.size() == 2 && f[0] == "anon") {
            return parse_u64(f[1]);
        }
    }
    return std::nullopt;
}

Job staleness_probe_job(std::vector<std::vector<ProbeRun>>& seen,
                        const std::filesystem::path& pending) {
    return Job{.make = [pending] { return std::make_unique<StalenessProbe>(64, pending); },
               .cgroups = 2,
               .depth = 2,
               .tasks = 1,
               .metrics = {{"stat-reader beside page-fault", "reads/s",
                            task_sum([](std::size_t t) { return t == 1; })},
                           {"page-fault beside stat-reader", "faults/s",
                            task_sum([](std::size_t t) { return t == 0; })}},
               .collect =
                   [&seen](Workload& w, std::size_t v, const std::optional<Counters>& deltas) {
                       seen[v].push_back(
                           {.sample = dynamic_cast<StalenessProbe&>(w).result(),
                            .flushes = deltas ? deltas->get("flush.performed") : std::nullopt});
                   }};
}

std::uint64_t kernel_default_threshold(const DebugfsClient& client) {
    const auto text = client.read_knob("flush_threshold");
    const auto def = parse_u64(text);
    if (!def || *def == 0) {
        throw ToolError(fmt::format("flush_threshold reads `{}`, not a positive number", text));
    }
    return *def;
}

std::string probe_note(bool bracket) {
    return fmt::format(
        "staleness: the page-fault task publishes in shared memory how many pages of its "
        "current mapping it has touched (a sequence count marks munmap/mmap; reads overlapping "
        "one are discarded, and so are reads during which the task faulted more than 16 pages: "
        "the reader was descheduled). Per read, error = memory.stat anon (pages) - touched pages "
        "(mean of the counts before and after the read{}). "
        "The task's other anon pages are a constant offset, so staleness = max - min of the "
        "error over the run: how far the stat moved away from the truth. It bounds the largest "
        "stat error from above whenever the stat was exact at least once (every flush makes it "
        "so).",
        bracket ? "; `max bracket` = most faults during one kept read" : "");
}

} // namespace memcg_statctl
