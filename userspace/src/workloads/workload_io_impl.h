// Template part of workload_io.h (internal).
#pragma once

#include <array>
#include <cerrno>
#include <unistd.h>

namespace memcg_statctl {

template <typename OnPages, typename Stop>
void read_whole_file(int fd, OnPages on_pages, Stop stopping) {
    static thread_local std::array<char, 256 * 1024> buf{};
    off_t offset = 0;
    while (!stopping()) {
        const auto n = ::pread(fd, buf.data(), buf.size(), offset);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_errno("read");
        }
        if (n == 0) {
            return;
        }
        offset += n;
        on_pages(static_cast<std::uint64_t>(n) / page_size);
    }
}

} // namespace memcg_statctl
