/*
 * iid.c — the independence and stationarity checks of pWCET analysis
 * (see pwcet.h): Ljung-Box, the runs test about the median, and the
 * two-sample Kolmogorov-Smirnov test of a campaign's two halves.
 *
 * Each test fills a wh_iid_test and fails (with err) only where its
 * statistic is undefined: too few values, or a constant sample.  p-values
 * come from GSL's distributions through their _e variants or functions
 * that never call GSL's error handler (an underflowing tail is a p of 0,
 * not an abort).
 */
#include "core/pwcet.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Upper tail of chi-square with dof degrees of freedom at q:
 * Q(dof / 2, q / 2), the regularised upper incomplete gamma function.
 * gsl_cdf_chisq_Q calls the non-_e gamma, whose underflow for a huge q
 * (a strongly autocorrelated sample) would reach the error handler. */
static double chisq_upper(double q, int dof)
{
    gsl_sf_result r;
    if (q <= 0)
        return 1;
    if (gsl_sf_gamma_inc_Q_e(dof / 2.0, q / 2.0, &r) != GSL_SUCCESS)
        return 0;   /* underflow: far out in the tail */
    return r.val;
}

bool wh_ljung_box(const double *x, size_t n, int lags, wh_iid_test *out, wh_error *err)
{
    if (lags < 1 || n <= (size_t)lags + 1) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "Ljung-Box needs more than lags + 1 = %d values, got %zu",
                     lags + 1, n);
        return false;
    }
    double mean = gsl_stats_mean(x, 1, n);
    double c0 = 0;
    for (size_t t = 0; t < n; t++)
        c0 += (x[t] - mean) * (x[t] - mean);
    if (!(c0 > 0)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "Ljung-Box: constant sample, no autocorrelation is defined");
        return false;
    }
    /* r_k as statsmodels' acf (adjusted=False): the lag-k sum of products
     * over the lag-0 one, both about the whole sample's mean. */
    double dn = (double)n, q = 0;
    for (int k = 1; k <= lags; k++) {
        double ck = 0;
        for (size_t t = (size_t)k; t < n; t++)
            ck += (x[t] - mean) * (x[t - (size_t)k] - mean);
        double r = ck / c0;
        q += r * r / (dn - k);
    }
    q *= dn * (dn + 2);
    *out = (wh_iid_test){ .statistic = q, .p_value = chisq_upper(q, lags), .dof = lags };
    return true;
}

/* The median of x[0..n) (n >= 1), by sorting a copy; NAN without memory. */
static double median_of(const double *x, size_t n)
{
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    gsl_sort(s, 1, n);
    double m = gsl_stats_median_from_sorted_data(s, 1, n);
    free(s);
    return m;
}

bool wh_runs_test(const double *x, size_t n, wh_iid_test *out, wh_error *err)
{
    if (n < 2) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "runs test needs at least 2 values, got %zu", n);
        return false;
    }
    double med = median_of(x, n);
    if (isnan(med)) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "runs test: out of memory for %zu values", n);
        return false;
    }
    /* Values equal to the median belong to neither side: dropped, so a
     * run continues across them. */
    double n1 = 0, n2 = 0, runs = 0;
    int last = 0;   /* +1 above, -1 below, 0 none yet */
    for (size_t i = 0; i < n; i++) {
        int side = x[i] > med ? 1 : x[i] < med ? -1 : 0;
        if (side == 0)
            continue;
        if (side > 0)
            n1++;
        else
            n2++;
        if (side != last)
            runs++;
        last = side;
    }
    if (n1 < 1 || n2 < 1) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0,
                     "runs test: no values on one side of the median (constant sample?)");
        return false;
    }
    double m = n1 + n2, prod = n1 * n2;
    double mean = 2 * prod / m + 1;
    double var = 2 * prod * (2 * prod - m) / (m * m * (m - 1));
    if (!(var > 0)) {   /* one value each side */
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "runs test: too few values off the median");
        return false;
    }
    double z = (runs - mean) / sqrt(var);   /* no continuity correction */
    *out = (wh_iid_test){ .statistic = z, .p_value = 2 * gsl_cdf_ugaussian_Q(fabs(z)), .dof = 0 };
    return true;
}

/* Q_KS(lambda) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 lambda^2), the
 * Kolmogorov distribution's upper tail.  The alternating series converges
 * slowly for small lambda, where the Jacobi-transformed form
 * 1 - sqrt(2 pi) / lambda sum_{j>=1} exp(-(2j-1)^2 pi^2 / (8 lambda^2))
 * converges fast instead (Numerical Recipes 3rd ed., 6.14). */
static double kolmogorov_q(double lambda)
{
    if (lambda <= 0)
        return 1;
    if (lambda < 1.18) {
        double s = 0, a = M_PI * M_PI / (8 * lambda * lambda);
        for (int j = 1; j <= 8; j++)
            s += exp(-(2.0 * j - 1) * (2.0 * j - 1) * a);
        double q = 1 - sqrt(2 * M_PI) / lambda * s;
        return q < 0 ? 0 : q;
    }
    double s = 0, sign = 1;
    for (int j = 1; j <= 100; j++) {
        double term = exp(-2.0 * j * j * lambda * lambda);
        s += sign * term;
        if (term < 1e-300 || term < 1e-17 * s)
            break;
        sign = -sign;
    }
    double q = 2 * s;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

/* sup |F_a - F_b| over sorted a and b: every copy of a tied value is
 * counted in both empirical functions before the gap is measured.  The
 * gap is the exact fraction |i nb - j na| / (na nb), rounded once. */
static double ks_distance(const double *a, size_t na, const double *b, size_t nb)
{
    size_t i = 0, j = 0;
    double best = 0;   /* the largest numerator, an integer */
    while (i < na && j < nb) {
        double v = a[i] < b[j] ? a[i] : b[j];
        while (i < na && a[i] == v)
            i++;
        while (j < nb && b[j] == v)
            j++;
        double gap = fabs((double)i * (double)nb - (double)j * (double)na);
        if (gap > best)
            best = gap;
    }
    return best / ((double)na * (double)nb);   /* once one sample is used up the gap only shrinks */
}

bool wh_ks_two_sample(const double *a, size_t na, const double *b, size_t nb, wh_iid_test *out, wh_error *err)
{
    if (na < 1 || nb < 1) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "KS test needs two non-empty samples (%zu, %zu values)", na,
                     nb);
        return false;
    }
    double *sa = malloc(na * sizeof *sa), *sb = malloc(nb * sizeof *sb);
    if (!sa || !sb) {
        free(sa);
        free(sb);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "KS test: out of memory for %zu values", na + nb);
        return false;
    }
    memcpy(sa, a, na * sizeof *sa);
    memcpy(sb, b, nb * sizeof *sb);
    gsl_sort(sa, 1, na);
    gsl_sort(sb, 1, nb);
    double d = ks_distance(sa, na, sb, nb);
    free(sa);
    free(sb);
    /* Stephens' correction makes the asymptotic law usable from ne ~ 4. */
    double ne = (double)na * (double)nb / (double)(na + nb), rt = sqrt(ne);
    *out = (wh_iid_test){ .statistic = d, .p_value = kolmogorov_q((rt + 0.12 + 0.11 / rt) * d), .dof = 0 };
    return true;
}

bool wh_ks_two_halves(const double *x, size_t n, wh_iid_test *out, wh_error *err)
{
    if (n < 2) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "KS test of the halves needs at least 2 values, got %zu", n);
        return false;
    }
    return wh_ks_two_sample(x, n / 2, x + n / 2, n - n / 2, out, err);
}
