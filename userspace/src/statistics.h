// Summaries of runs and Welch's t-test. Student's t comes from Boost.Math, which takes
// Welch's fractional df.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace memcg_statctl {

struct Summary {
    std::size_t n = 0;
    double mean = 0;
    double median = 0;
    double stddev = 0; // sample standard deviation (n - 1); 0 when n < 2
};

Summary summarize(std::span<const double> samples);

struct WelchResult {
    double t = 0;             // (mean_b - mean_a) / standard error
    double df = 0;            // Welch-Satterthwaite degrees of freedom
    double p_value = 1;       // two-sided
    double t_critical = 0;    // two-sided 95% critical value for df
    bool significant = false; // |t| > t_critical, i.e. p < 0.05
    double difference = 0;    // mean_b - mean_a
    double standard_error = 0;
    // The 95% confidence interval of `difference`: difference -+ t_critical * standard_error.
    double ci_low = 0;
    double ci_high = 0;
    // The interval holds 0: the runs' spread is as large as the effect.
    [[nodiscard]] bool noise() const { return ci_low <= 0 && ci_high >= 0; }
};

// P(T <= t) for T ~ Student t with df > 0 degrees of freedom.
double student_t_cdf(double t, double df);

// Two-sided p-value: P(|T| >= |t|) for T ~ Student t with df > 0 degrees of freedom.
double student_t_two_sided_p(double t, double df);

// The t with P(|T| <= t) = confidence, e.g. 0.95 -> 2.228 for df = 10.
double student_t_critical(double df, double confidence = 0.95);

// nullopt when a side has fewer than 2 samples, both variances are 0 or a sample is not
// finite (no test is possible; equal constant samples are reported as not significant by
// the caller).
std::optional<WelchResult> welch_t_test(std::span<const double> a, std::span<const double> b);

// 100 * (value - baseline) / baseline; nullopt when baseline is 0.
std::optional<double> percent_change(double baseline, double value);

// The half width, in percent of `baseline`, of the 95% interval of a Welch result's difference
// of means: the %change is percent_change() -+ this. The baseline's mean is taken as exact
// (no Fieller interval): with the few runs of a sweep its own error is in the t interval's
// width already. nullopt when baseline is 0.
std::optional<double> percent_interval(double baseline, const WelchResult& w);

} // namespace memcg_statctl
