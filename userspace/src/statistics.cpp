#include "statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <boost/math/distributions/students_t.hpp>

namespace memcg_statctl {

namespace {

double sample_variance(std::span<const double> xs, double mean) {
    if (xs.size() < 2) {
        return 0;
    }
    double ss = 0;
    for (const double x : xs) {
        ss += (x - mean) * (x - mean);
    }
    return ss / static_cast<double>(xs.size() - 1);
}

} // namespace

double student_t_cdf(double t, double df) {
    return boost::math::cdf(boost::math::students_t(df), t);
}

double student_t_two_sided_p(double t, double df) {
    // The complement is computed directly, not as 1 - cdf, so tiny p-values keep their digits.
    return 2 * boost::math::cdf(boost::math::complement(boost::math::students_t(df), std::fabs(t)));
}

double student_t_critical(double df, double confidence) {
    return boost::math::quantile(
        boost::math::complement(boost::math::students_t(df), (1 - confidence) / 2));
}

Summary summarize(std::span<const double> samples) {
    Summary s;
    s.n = samples.size();
    if (s.n == 0) {
        return s;
    }
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    const auto mid = s.n / 2;
    s.median = s.n % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    s.stddev = std::sqrt(sample_variance(samples, s.mean));
    return s;
}

std::optional<WelchResult> welch_t_test(std::span<const double> a, std::span<const double> b) {
    if (a.size() < 2 || b.size() < 2) {
        return std::nullopt;
    }
    const auto sa = summarize(a);
    const auto sb = summarize(b);
    const double va = sa.stddev * sa.stddev / static_cast<double>(sa.n);
    const double vb = sb.stddev * sb.stddev / static_cast<double>(sb.n);
    if (va + vb == 0) {
        return std::nullopt;
    }
    WelchResult r;
    r.t = (sb.mean - sa.mean) / std::sqrt(va + vb);
    // Welch-Satterthwaite approximation of the degrees of freedom.
    r.df = (va + vb) * (va + vb) /
           ((va * va / static_cast<double>(sa.n - 1)) + (vb * vb / static_cast<double>(sb.n - 1)));
    // A NaN or infinite sample (a command may print "nan"), or variances whose squares
    // underflow, leave no distribution to test against (Boost.Math throws on such a df).
    if (!std::isfinite(r.t) || !std::isfinite(r.df) || r.df <= 0) {
        return std::nullopt;
    }
    r.p_value = student_t_two_sided_p(r.t, r.df);
    r.t_critical = student_t_critical(r.df, 0.95);
    r.significant = std::fabs(r.t) > r.t_critical;
    r.difference = sb.mean - sa.mean;
    r.standard_error = std::sqrt(va + vb);
    r.ci_low = r.difference - (r.t_critical * r.standard_error);
    r.ci_high = r.difference + (r.t_critical * r.standard_error);
    return r;
}

std::optional<double> percent_change(double baseline, double value) {
    if (baseline == 0) {
        return std::nullopt;
    }
    return 100 * (value - baseline) / baseline;
}

std::optional<double> percent_interval(double baseline, const WelchResult& w) {
    if (baseline == 0) {
        return std::nullopt;
    }
    return 100 * w.t_critical * w.standard_error / std::fabs(baseline);
}

} // namespace memcg_statctl
