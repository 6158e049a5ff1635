#include "memcg_statctl/student_t.h"

#include <cmath>
#include <limits>

namespace memcg_statctl {
namespace {

// Continued fraction for I_x(a, b), modified Lentz's method (Numerical Recipes 6.4).
double incomplete_beta_fraction(double a, double b, double x) {
    constexpr int max_iterations = 500;
    constexpr double epsilon = 1e-15;
    constexpr double tiny = 1e-300;
    const double qab = a + b;
    const double qap = a + 1;
    const double qam = a - 1;
    double c = 1;
    double d = 1 - (qab * x / qap);
    d = 1 / (std::fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= max_iterations; ++m) {
        const double m2 = 2.0 * m;
        // Even step.
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + (aa * d);
        d = 1 / (std::fabs(d) < tiny ? tiny : d);
        c = 1 + (aa / c);
        c = std::fabs(c) < tiny ? tiny : c;
        h *= d * c;
        // Odd step.
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + (aa * d);
        d = 1 / (std::fabs(d) < tiny ? tiny : d);
        c = 1 + (aa / c);
        c = std::fabs(c) < tiny ? tiny : c;
        const double step = d * c;
        h *= step;
        if (std::fabs(step - 1) < epsilon) {
            break;
        }
    }
    return h;
}

} // namespace

double regularized_incomplete_beta(double a, double b, double x) {
    if (x <= 0) {
        return 0;
    }
    if (x >= 1) {
        return 1;
    }
    const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                             (a * std::log(x)) + (b * std::log1p(-x));
    const double front = std::exp(log_front);
    // The fraction converges fast only for x < (a+1)/(a+b+2); use the symmetry
    // I_x(a,b) = 1 - I_{1-x}(b,a) on the other side.
    if (x < (a + 1) / (a + b + 2)) {
        return front * incomplete_beta_fraction(a, b, x) / a;
    }
    return 1 - (front * incomplete_beta_fraction(b, a, 1 - x) / b);
}

double student_t_two_sided_p(double t, double df) {
    // P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2).
    return regularized_incomplete_beta(df / 2, 0.5, df / (df + (t * t)));
}

double student_t_cdf(double t, double df) {
    const double tail = student_t_two_sided_p(t, df) / 2;
    return t > 0 ? 1 - tail : tail;
}

double student_t_critical(double df, double confidence) {
    const double alpha = 1 - confidence;
    // p(t) falls monotonically from 1 at t = 0: bracket the root, then bisect.
    double lo = 0;
    double hi = 1;
    while (student_t_two_sided_p(hi, df) > alpha && hi < 1e12) {
        lo = hi;
        hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (student_t_two_sided_p(mid, df) > alpha ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

} // namespace memcg_statctl
