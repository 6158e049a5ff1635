// `--output FILE`: a JSON results file rewritten after every finished run, so an
// interrupted or failed sweep (SIGINT, a crash, a module unloaded under it) leaves every
// run that finished on disk. Each write goes to FILE.tmp and is renamed over FILE: a
// reader never sees half a document.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

namespace memcg_statctl {

class ResultsFile {
public:
    // Checks now that FILE can be written (its directory exists, is writable), so a typo
    // fails before hours of runs. Throws ToolError.
    explicit ResultsFile(std::filesystem::path file);
    void write(const nlohmann::ordered_json& document) const; // throws ToolError
    const std::filesystem::path& path() const { return file_; }

private:
    std::filesystem::path file_;
};

} // namespace memcg_statctl
