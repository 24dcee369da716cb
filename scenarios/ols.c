/*
 * Least squares for sweep sensitivity: y = a + b x, slope b with its 95%
 * confidence interval b +- t(0.975, n-2) * se(b), se(b) = sqrt(s^2 / Sxx),
 * s^2 = SSE / (n - 2) (any regression text, e.g. NIST/SEMATECH e-Handbook
 * of Statistical Methods, section 4.4.4).
 */
#include <math.h>

#include "run.h"

/* Two-sided 95% Student t quantiles t(0.975, df), df = 1..30 (standard table). */
static double t975(size_t df)
{
    static const double t[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df <= 30)
        return t[df];
    if (df <= 60)
        return 2.000 + (2.042 - 2.000) * (60.0 - (double)df) / 30.0;
    return df <= 120 ? 1.980 + (2.000 - 1.980) * (120.0 - (double)df) / 60.0 : 1.960;
}

int gs_ols_slope(double *slope, double *ci95, double *intercept, const double *x, const double *y, size_t n)
{
    *slope = *ci95 = *intercept = 0.0;
    if (n < 3)
        return 0;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0))
        return 0;
    double b = sxy / sxx, a = my - b * mx, sse = 0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (a + b * x[i]);
        sse += r * r;
    }
    *slope = b;
    *intercept = a;
    *ci95 = t975(n - 2) * sqrt(sse / (double)(n - 2) / sxx);
    return 1;
}
