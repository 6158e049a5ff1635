#include "output/results_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"

namespace memcg_statctl {

ResultsFile::ResultsFile(std::filesystem::path file) : file_(std::move(file)) {
    if (file_.empty() || file_.filename().empty()) {
        throw ToolError(ExitCode::usage, "--output needs a file name");
    }
    std::error_code ec;
    if (std::filesystem::is_directory(file_, ec)) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--output {} is a directory, not a file", file_.string()));
    }
    const auto dir = file_.has_parent_path() ? file_.parent_path() : std::filesystem::path(".");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--output {}: cannot write in {}: {}", file_.string(),
                                    dir.string(), std::strerror(errno)));
    }
}

void ResultsFile::write(const nlohmann::ordered_json& document) const {
    auto tmp = file_;
    tmp += ".tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << document.dump(2) << '\n';
        f.flush();
        if (!f) {
            throw ToolError(fmt::format("cannot write {}", tmp.string()));
        }
    }
    if (std::rename(tmp.c_str(), file_.c_str()) != 0) {
        const int err = errno;
        (void)std::remove(tmp.c_str());
        throw ToolError(
            fmt::format("cannot rename {} to {}: {}", tmp.string(), file_.string(), strerror(err)));
    }
}

} // namespace memcg_statctl
