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

FakeDebugfs::FakeDebugfs() {
    using std::filesystem::perms;
    std::filesystem::create_directory(root());
    write("version", sample_version);
    write("hooks", sample_hooks);
    write("stats", sample_stats);
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

std::string FakeDebugfs::read(const std::string& name) const {
    std::ifstream in(root() / name);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace memcg_statctl::testing
