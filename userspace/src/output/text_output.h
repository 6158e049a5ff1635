// The text implementation of Output (internal; obtain it through make_output()).
#pragma once

#include <ostream>

#include "output/output.h"

namespace memcg_statctl {

class TextOutput final : public Output {
public:
    explicit TextOutput(std::ostream& out) : out_(out) {}
    void status(const StatusReport& r) override;
    void stats(const StatsReport& r) override;
    void interval(const IntervalReport& r) override;
    void knobs(const KnobReport& r) override;
    void run(const RunReport& r) override;
    void comparison(const ComparisonReport& r) override;

private:
    std::ostream& out_;
};

} // namespace memcg_statctl
