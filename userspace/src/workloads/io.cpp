#include "workloads/io.h"

#include <cstring>
#include <fcntl.h>
#include <vector>

#include <fmt/format.h>

#include "exit_code.h"

namespace memcg_statctl {

void throw_errno(const std::string& what) {
    throw ToolError(fmt::format("{}: {}", what, std::strerror(errno)));
}

FileDescriptor open_or_throw(const std::filesystem::path& path, int flags, unsigned mode) {
    FileDescriptor fd(::open(path.c_str(), flags | O_CLOEXEC, mode));
    if (!fd) {
        throw_errno(fmt::format("open {}", path.string()));
    }
    return fd;
}

void fill_file(int fd, std::uint64_t bytes) {
    const std::vector<char> chunk(mib, 'x');
    std::uint64_t done = 0;
    while (done < bytes) {
        const auto want = std::min<std::uint64_t>(chunk.size(), bytes - done);
        const auto n = ::pwrite(fd, chunk.data(), want, static_cast<off_t>(done));
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_errno("write");
        }
        done += static_cast<std::uint64_t>(n);
    }
}

} // namespace memcg_statctl
