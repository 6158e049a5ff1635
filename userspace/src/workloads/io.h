// I/O helpers shared by the workloads (internal): each throws ToolError with errno text.
#pragma once

#include <cstdint>
#include <filesystem>

#include "workloads/file_descriptor.h"

namespace memcg_statctl {

inline constexpr std::uint64_t page_size = 4096;
inline constexpr std::uint64_t mib = 1024 * 1024;

FileDescriptor open_or_throw(const std::filesystem::path& path, int flags, unsigned mode = 0600);
// Writes `bytes` of non-zero data (real pages, not holes) to fd from offset 0.
void fill_file(int fd, std::uint64_t bytes);
// Reads fd from offset 0 to EOF (or until stop), calling on_pages(n) per chunk read.
template <typename OnPages, typename Stop>
void read_whole_file(int fd, OnPages on_pages, Stop stopping);
[[noreturn]] void throw_errno(const std::string& what);

} // namespace memcg_statctl

#include "workloads/workload_io_impl.h"
