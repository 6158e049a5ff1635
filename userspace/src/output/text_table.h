// Aligned plain-text columns for the text Output (internal to the library).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace memcg_statctl {

class TextTable {
public:
    enum class Align { left, right };
    explicit TextTable(std::vector<Align> aligns) : aligns_(std::move(aligns)) {}
    void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
    // Columns separated by two spaces; trailing spaces trimmed so golden tests stay exact.
    void print(std::ostream& out, const std::string& indent = "") const;

private:
    std::vector<Align> aligns_;
    std::vector<std::vector<std::string>> rows_;
};

} // namespace memcg_statctl
