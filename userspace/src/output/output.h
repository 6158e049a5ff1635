// One abstract Output with text, JSON and CSV implementations, chosen once from the command
// line; commands call these methods and never test the format themselves.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "output/reports.h"

namespace memcg_statctl {

enum class OutputFormat { text, json, csv };

class Output {
public:
    Output() = default;
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;
    Output(Output&&) = delete;
    Output& operator=(Output&&) = delete;
    virtual ~Output() = default;

    virtual void status(const StatusReport& r) = 0;
    virtual void stats(const StatsReport& r) = 0;
    virtual void interval(const IntervalReport& r) = 0;
    virtual void knobs(const KnobReport& r) = 0;
    virtual void run(const RunReport& r) = 0;
    virtual void comparison(const ComparisonReport& r) = 0;
};

// The Output of one format. Its methods are in text.cpp, json.cpp and csv.cpp.
template <OutputFormat F>
class FormatOutput final : public Output {
public:
    explicit FormatOutput(std::ostream& out) : out_(out) {}
    void status(const StatusReport& r) override;
    void stats(const StatsReport& r) override;
    void interval(const IntervalReport& r) override;
    void knobs(const KnobReport& r) override;
    void run(const RunReport& r) override;
    void comparison(const ComparisonReport& r) override;

private:
    std::ostream& out_;
};

std::unique_ptr<Output> make_text_output(std::ostream& out);
std::unique_ptr<Output> make_json_output(std::ostream& out);
std::unique_ptr<Output> make_csv_output(std::ostream& out);

inline std::unique_ptr<Output> make_output(OutputFormat format, std::ostream& out) {
    switch (format) {
    case OutputFormat::json:
        return make_json_output(out);
    case OutputFormat::csv:
        return make_csv_output(out);
    case OutputFormat::text:
        break;
    }
    return make_text_output(out);
}

// Aligned plain-text columns (text.cpp).
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
