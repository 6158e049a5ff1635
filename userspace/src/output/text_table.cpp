#include "output/text_table.h"

#include <algorithm>

namespace memcg_statctl {

void TextTable::print(std::ostream& out, const std::string& indent) const {
    std::vector<std::size_t> widths(aligns_.size(), 0);
    for (const auto& r : rows_) {
        for (std::size_t c = 0; c < r.size() && c < widths.size(); ++c) {
            widths[c] = std::max(widths[c], r[c].size());
        }
    }
    for (const auto& r : rows_) {
        std::string line = indent;
        for (std::size_t c = 0; c < r.size() && c < widths.size(); ++c) {
            const auto pad = std::string(widths[c] - r[c].size(), ' ');
            if (c > 0) {
                line += "  ";
            }
            line += aligns_[c] == Align::left ? r[c] + pad : pad + r[c];
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out << line << '\n';
    }
}

} // namespace memcg_statctl
