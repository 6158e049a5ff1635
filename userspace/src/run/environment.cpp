#include "run/environment.h"

#include <chrono>
#include <ctime>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/core.h>
#include <fmt/format.h>

#include "debugfs/counters.h"

#ifndef MEMCG_STATCTL_VERSION
#error "MEMCG_STATCTL_VERSION is set by CMakeLists.txt from module/version.h"
#endif

namespace memcg_statctl {

namespace {

// MemTotal of /proc/meminfo, from sysinfo(2): no parsing, no /proc needed.
std::uint64_t mem_total_bytes() {
    struct sysinfo si {};
    if (::sysinfo(&si) != 0) {
        return 0; // a description field: not worth failing a run over
    }
    return static_cast<std::uint64_t>(si.totalram) * si.mem_unit;
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
        e.host = u.nodename;
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

std::string_view tool_version() {
    return MEMCG_STATCTL_VERSION;
}

std::string version_text() {
    return fmt::format("memcg-statctl {}\ndebugfs ABI {}", tool_version(), supported_abi);
}

} // namespace memcg_statctl
