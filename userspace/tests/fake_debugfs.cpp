#include "fake_debugfs.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace memcg_statctl::testing {

TempDir::TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "memcg-statctl-test.XXXXXX");
    if (::mkdtemp(tmpl.data()) == nullptr) {
        throw std::runtime_error("mkdtemp failed");
    }
    path_ = tmpl;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string flush_latency_text(const std::vector<std::pair<int, std::uint64_t>>& counts) {
    std::string text;
    for (int k = 0; k <= 40; ++k) {
        std::uint64_t count = 0;
        for (const auto& [index, n] : counts) {
            count = index == k ? n : count;
        }
        const auto lo = k == 0 ? 0 : std::uint64_t{1} << (k - 1);
        const auto hi = k == 40 ? std::string("inf") : std::to_string(std::uint64_t{1} << k);
        text += std::to_string(lo) + " " + hi + " " + std::to_string(count) + "\n";
    }
    return text;
}

std::string sample_flush_latency() {
    return flush_latency_text({{11, 400}, {12, 700}, {13, 100}});
}

FakeDebugfs::FakeDebugfs() {
    using std::filesystem::perms;
    std::filesystem::create_directory(root());
    write("version", sample_version);
    write("hooks", sample_hooks);
    write("stats", sample_stats);
    write("flush_latency", sample_flush_latency());
    write("reset", "", perms::owner_write);
    write("flush_mode", "kernel\n", perms::owner_read | perms::owner_write);
    write("flush_period_ms", "2000\n", perms::owner_read | perms::owner_write);
}

void FakeDebugfs::write(const std::string& name, std::string_view content,
                        std::filesystem::perms perms) const {
    const auto path = root() / name;
    std::ofstream(path, std::ios::trunc) << content;
    std::filesystem::permissions(path, perms);
}

void FakeDebugfs::remove(const std::string& name) const {
    std::filesystem::remove(root() / name);
}

std::string FakeDebugfs::read(const std::string& name) const {
    std::ifstream in(root() / name);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace memcg_statctl::testing
