#include "memcg_statctl/environment.h"

#include <chrono>
#include <ctime>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include "memcg_statctl/text_util.h"
#include "memcg_statctl/version.h"

namespace memcg_statctl {
namespace {

std::uint64_t mem_total_bytes() {
    try {
        for (const auto line : split_lines(read_file("/proc/meminfo"))) {
            const auto f = split_whitespace(line);
            if (f.size() >= 2 && f[0] == "MemTotal:") {
                return parse_u64(f[1]).value_or(0) * 1024; // "MemTotal: N kB"
            }
        }
    } catch (const std::exception&) {
        // no /proc: leave it 0 rather than fail a run over a description field
    }
    return 0;
}

} // namespace

std::string utc_timestamp() {
    const auto now = std::chrono::system_clock::now();
    const auto t = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900,
                       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

Environment current_environment(const DebugfsClient* module) {
    Environment e;
    e.tool_version = std::string(tool_version());
    e.abi = supported_abi;
    struct utsname u {};
    if (::uname(&u) == 0) {
        e.kernel = u.release;
    }
    if (module != nullptr) {
        if (auto v = module->version().get("module"); !v.empty()) {
            e.module_version = std::move(v);
        }
    }
    e.cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    e.memory_bytes = mem_total_bytes();
    e.started = utc_timestamp();
    return e;
}

} // namespace memcg_statctl
