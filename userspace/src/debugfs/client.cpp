#include "debugfs/client.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

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
    case EOPNOTSUPP:
        throw ToolError("flush control is not available on this kernel (see `memcg-statctl "
                        "status`)");
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
