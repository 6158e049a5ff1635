// Student's t distribution, computed exactly through the regularized incomplete beta
// function (continued fraction), so critical values hold for fractional Welch df.
#pragma once

namespace memcg_statctl {

// I_x(a, b) for a, b > 0 and 0 <= x <= 1.
double regularized_incomplete_beta(double a, double b, double x);

// P(T <= t) for T ~ Student t with df > 0 degrees of freedom.
double student_t_cdf(double t, double df);

// Two-sided p-value: P(|T| >= |t|).
double student_t_two_sided_p(double t, double df);

// The t with P(|T| <= t) = confidence, e.g. 0.95 -> 2.228 for df = 10.
double student_t_critical(double df, double confidence = 0.95);

} // namespace memcg_statctl
