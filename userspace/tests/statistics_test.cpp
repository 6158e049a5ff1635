#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <boost/math/special_functions/beta.hpp>
#include <gtest/gtest.h>

#include "statistics.h"

namespace memcg_statctl {
namespace {

// The function the tool's Student t code was checked with, now served by Boost.Math.
double regularized_incomplete_beta(double a, double b, double x) {
    return boost::math::ibeta(a, b, x);
}

TEST(Summary, MeanMedianSampleStddev) {
    const std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
    const auto s = summarize(xs);
    EXPECT_EQ(s.n, 8U);
    EXPECT_DOUBLE_EQ(s.mean, 5.0);
    EXPECT_DOUBLE_EQ(s.median, 4.5);
    // Sum of squares 32, n - 1 = 7.
    EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0));
    const std::vector<double> odd{3, 1, 2};
    EXPECT_DOUBLE_EQ(summarize(odd).median, 2.0);
    const std::vector<double> one{42};
    EXPECT_DOUBLE_EQ(summarize(one).stddev, 0.0);
    EXPECT_EQ(summarize({}).n, 0U);
}

TEST(StudentT, CdfMatchesClosedFormsForOneAndTwoDf) {
    // df = 1 is the Cauchy distribution; df = 2 has F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
    for (const double t : {-7.0, -1.5, -0.3, 0.0, 0.4, 1.0, 2.5, 30.0}) {
        EXPECT_NEAR(student_t_cdf(t, 1), 0.5 + (std::atan(t) / std::numbers::pi), 1e-12) << t;
        EXPECT_NEAR(student_t_cdf(t, 2), 0.5 + (t / (2 * std::sqrt(2 + (t * t)))), 1e-12) << t;
    }
}

TEST(StudentT, CdfMatchesTables) {
    // One-sided quantiles of the t tables: F(t) = 0.95, 0.975, 0.995.
    EXPECT_NEAR(student_t_cdf(1.812461123, 10), 0.95, 1e-9);
    EXPECT_NEAR(student_t_cdf(2.228138852, 10), 0.975, 1e-9);
    EXPECT_NEAR(student_t_cdf(2.042272456, 30), 0.975, 1e-9);
    EXPECT_NEAR(student_t_cdf(9.924843201, 2), 0.995, 1e-9);
    EXPECT_NEAR(student_t_cdf(-2.570581836, 5), 0.025, 1e-9);
    // Symmetric, and the normal distribution in the limit: Phi(1.96) = 0.9750021.
    EXPECT_NEAR(student_t_cdf(0.7, 5.5) + student_t_cdf(-0.7, 5.5), 1.0, 1e-14);
    EXPECT_NEAR(student_t_cdf(1.96, 1e9), 0.9750021048517795, 1e-9);
    // The two-sided p-value is twice the tail.
    EXPECT_NEAR(student_t_two_sided_p(2.228138852, 10), 0.05, 1e-9);
    EXPECT_NEAR(student_t_two_sided_p(-3.0, 7.25), 2 * student_t_cdf(-3.0, 7.25), 1e-14);
}

TEST(StudentT, CriticalValuesMatchTables) {
    EXPECT_NEAR(student_t_critical(1), 12.7062047, 1e-6);
    EXPECT_NEAR(student_t_critical(2), 4.30265273, 1e-7);
    EXPECT_NEAR(student_t_critical(10), 2.22813885, 1e-7);
    EXPECT_NEAR(student_t_critical(30), 2.04227246, 1e-7);
    EXPECT_NEAR(student_t_critical(1e6), 1.95996, 1e-4); // the normal limit
    EXPECT_NEAR(student_t_critical(10, 0.99), 3.16927267, 1e-7);
}

TEST(StudentT, CriticalValueInvertsTheCdfForFractionalDf) {
    for (const double df : {1.3, 5.882352941, 17.25}) {
        EXPECT_NEAR(student_t_two_sided_p(student_t_critical(df), df), 0.05, 1e-10) << df;
    }
}

TEST(IncompleteBeta, KnownValues) {
    // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 - (1-x)^b.
    EXPECT_NEAR(regularized_incomplete_beta(1, 1, 0.3), 0.3, 1e-14);
    EXPECT_NEAR(regularized_incomplete_beta(3, 1, 0.5), 0.125, 1e-14);
    EXPECT_NEAR(regularized_incomplete_beta(1, 4, 0.2), 1 - std::pow(0.8, 4), 1e-14);
    EXPECT_DOUBLE_EQ(regularized_incomplete_beta(2, 3, 0), 0.0);
    EXPECT_DOUBLE_EQ(regularized_incomplete_beta(2, 3, 1), 1.0);
}

TEST(Welch, HandComputedExample) {
    // a: mean 3, var 2.5; b: mean 6, var 10 (n = 5 each).
    // se^2 = 2.5/5 + 10/5 = 2.5, t = 3 / sqrt(2.5) = 1.8973666;
    // df = 2.5^2 / (0.5^2/4 + 2^2/4) = 6.25 / 1.0625 = 5.8823529.
    const std::vector<double> a{1, 2, 3, 4, 5};
    const std::vector<double> b{2, 4, 6, 8, 10};
    const auto r = welch_t_test(a, b);
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->t, 3 / std::sqrt(2.5), 1e-12);
    EXPECT_NEAR(r->df, 6.25 / 1.0625, 1e-12);
    // Between the 95% critical values of df 5 (2.5706) and df 6 (2.4469).
    EXPECT_GT(r->t_critical, 2.4469);
    EXPECT_LT(r->t_critical, 2.5706);
    EXPECT_FALSE(r->significant);
    EXPECT_GT(r->p_value, 0.05);
    EXPECT_LT(r->p_value, 0.2);
    // The 95% interval of the difference, 3 -+ t_critical * sqrt(2.5), holds 0: noise.
    EXPECT_DOUBLE_EQ(r->difference, 3.0);
    EXPECT_NEAR(r->standard_error, std::sqrt(2.5), 1e-12);
    EXPECT_NEAR(r->ci_low, 3 - (r->t_critical * std::sqrt(2.5)), 1e-12);
    EXPECT_NEAR(r->ci_high, 3 + (r->t_critical * std::sqrt(2.5)), 1e-12);
    EXPECT_LT(r->ci_low, 0);
    EXPECT_TRUE(r->noise());
    // In percent of the baseline's mean 3: the half width over 3.
    EXPECT_NEAR(*percent_interval(3, *r), 100 * r->t_critical * std::sqrt(2.5) / 3, 1e-9);
    EXPECT_FALSE(percent_interval(0, *r));
}

TEST(Welch, IntervalAgreesWithThePValue) {
    // The interval excludes 0 exactly when p < 0.05, for Welch's fractional df too.
    const std::vector<double> a{10, 12, 11, 13};
    for (const double shift : {0.5, 1.0, 2.0, 2.5, 3.0, 5.0}) {
        const std::vector<double> b{10 + shift, 13 + shift, 10.5 + shift, 14 + shift, 12 + shift};
        const auto r = welch_t_test(a, b);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->noise(), r->p_value >= 0.05) << shift;
        EXPECT_NEAR(r->ci_low + r->ci_high, 2 * r->difference, 1e-12);
    }
}

TEST(Welch, ClearDifferenceIsSignificant) {
    const std::vector<double> a{100, 101, 99, 100, 100};
    const std::vector<double> b{110, 111, 109, 110, 110};
    const auto r = welch_t_test(a, b);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->significant);
    EXPECT_LT(r->p_value, 1e-6);
    EXPECT_GT(r->ci_low, 0);
    EXPECT_FALSE(r->noise());
}

TEST(Welch, NoTestWithoutSpreadOrSamples) {
    const std::vector<double> one{1};
    const std::vector<double> two{1, 2};
    const std::vector<double> flat{5, 5, 5};
    EXPECT_FALSE(welch_t_test(one, two));
    EXPECT_FALSE(welch_t_test(flat, flat));
}

TEST(Welch, NoTestOnNonFiniteSamples) {
    const std::vector<double> nan{1, std::numeric_limits<double>::quiet_NaN()};
    const std::vector<double> inf{1, std::numeric_limits<double>::infinity()};
    const std::vector<double> two{1, 2};
    EXPECT_FALSE(welch_t_test(nan, two));
    EXPECT_FALSE(welch_t_test(two, inf));
}

TEST(PercentChange, AgainstBaseline) {
    EXPECT_DOUBLE_EQ(*percent_change(200, 150), -25.0);
    EXPECT_DOUBLE_EQ(*percent_change(200, 200), 0.0);
    EXPECT_FALSE(percent_change(0, 5));
}

} // namespace
} // namespace memcg_statctl
