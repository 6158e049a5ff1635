// One abstract Output with text, JSON and CSV implementations, chosen once from the command
// line; commands call these methods and never test the format themselves.
#pragma once

#include <iosfwd>
#include <memory>

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

std::unique_ptr<Output> make_output(OutputFormat format, std::ostream& out);

} // namespace memcg_statctl
