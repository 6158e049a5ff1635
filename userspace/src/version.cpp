#include "version.h"

#include <fmt/core.h>

#include "debugfs/abi_parsers.h"

#ifndef MEMCG_STATCTL_VERSION
#error "MEMCG_STATCTL_VERSION is set by CMakeLists.txt from module/version.h"
#endif

namespace memcg_statctl {

std::string_view tool_version() {
    return MEMCG_STATCTL_VERSION;
}

std::string version_text() {
    return fmt::format("memcg-statctl {}\ndebugfs ABI {}", tool_version(), supported_abi);
}

} // namespace memcg_statctl
