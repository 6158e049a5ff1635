// I/O helpers of the workloads. Each throws ToolError with the errno text.
#pragma once

#include <array>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <utility>

namespace memcg_statctl {

inline constexpr std::uint64_t page_size = 4096;
inline constexpr std::uint64_t mib = std::uint64_t{1024} * 1024;

// Owns a file descriptor.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd = -1) : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    FileDescriptor(FileDescriptor&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    FileDescriptor& operator=(FileDescriptor&& o) noexcept {
        reset(std::exchange(o.fd_, -1));
        return *this;
    }
    ~FileDescriptor() { reset(); }
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset(int fd = -1) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = fd;
    }

private:
    int fd_;
};

FileDescriptor open_or_throw(const std::filesystem::path& path, int flags, unsigned mode = 0600);
// Writes `bytes` of non-zero data (real pages, not holes) to fd from offset 0.
void fill_file(int fd, std::uint64_t bytes);
[[noreturn]] void throw_errno(const std::string& what);

// Reads fd from offset 0 to EOF (or until stop), calling on_pages(n) per chunk read.
template <typename OnPages, typename Stop>
void read_whole_file(int fd, OnPages on_pages, Stop stopping) {
    static thread_local std::array<char, std::size_t{256} * 1024> buf{};
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
