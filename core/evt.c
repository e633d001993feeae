/*
 * evt.c — extreme value distributions and their fits (see pwcet.h): the
 * GEV and Gumbel of block maxima, the GPD of excesses over a threshold,
 * by maximum likelihood (MLE) and probability weighted moments (PWM), and
 * the distribution function, per-run exceedance and pWCET of a fit.
 *
 * Shapes with |xi| < 1e-9 are the xi = 0 limits (Gumbel, exponential):
 * the formulas divide by xi, and log1p/expm1 keep them exact near it.
 * The MLE works on standardised data (location and scale of order 1) so
 * that one simplex step and one tolerance fit every campaign's units; it
 * searches xi > -1 only, since below it the likelihood is unbounded as
 * the upper end point approaches the largest value (Smith 1985) and the
 * "maximum" is a degenerate spike.
 */
#include "core/pwcet.h"
#include "core/stats.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define XI_ZERO 1e-9          /* |xi| below this is the xi = 0 limit */
#define EULER_GAMMA 0.57721566490153286
#define NLL_PENALTY 1e100     /* -loglik outside the support: finite, as GSL's simplex needs */
#define SIMPLEX_STEP 0.1      /* initial simplex size, standardised units */
#define SIMPLEX_TOL 1e-7      /* simplex size at convergence: the likelihood is flat to
                                 double precision within ~sqrt(eps) of its maximum */
#define SIMPLEX_ITERS 5000
#define SIMPLEX_RESTARTS 5    /* Nelder-Mead can stall: restart where it stopped */

const char *wh_evt_family_name(wh_evt_family f)
{
    switch (f) {
    case WH_EVT_GEV: return "gev";
    case WH_EVT_GUMBEL: return "gumbel";
    case WH_EVT_GPD: return "gpd";
    case WH_EVT_EXP: return "exponential";
    }
    return "?";
}

const char *wh_evt_method_name(wh_evt_method m)
{
    switch (m) {
    case WH_EVT_MLE: return "mle";
    case WH_EVT_PWM: return "pwm";
    case WH_EVT_CV: return "cv";
    }
    return "?";
}

/* ---- the two log-likelihoods ------------------------------------------- */

/* log(1 + xi z) and t = log(1 + xi z) / xi (z itself in the xi = 0 limit),
 * the two terms both densities are written in; false outside the support. */
static bool shape_terms(double z, double xi, double *l, double *t)
{
    if (fabs(xi) < XI_ZERO) {
        *l = 0;
        *t = z;
        return true;
    }
    double a = xi * z;
    if (!(a > -1))
        return false;
    *l = log1p(a);
    *t = *l / xi;
    return true;
}

/* GEV: log f = -log sigma - (1 + 1/xi) log(1 + xi z) - (1 + xi z)^(-1/xi)
 *            = -log sigma - l - t - exp(-t).  -INFINITY outside the support. */
static double gev_loglik(const double *x, size_t n, double mu, double sigma, double xi)
{
    if (!(sigma > 0))
        return -INFINITY;
    double s = -(double)n * log(sigma);
    for (size_t i = 0; i < n; i++) {
        double l, t;
        if (!shape_terms((x[i] - mu) / sigma, xi, &l, &t))
            return -INFINITY;
        s -= l + t + exp(-t);
    }
    return isnan(s) ? -INFINITY : s;
}

/* GPD of excesses y >= 0: log g = -log sigma - (1 + 1/xi) log(1 + xi y/sigma)
 *                               = -log sigma - l - t. */
static double gpd_loglik(const double *y, size_t n, double sigma, double xi)
{
    if (!(sigma > 0))
        return -INFINITY;
    double s = -(double)n * log(sigma);
    for (size_t i = 0; i < n; i++) {
        double l, t;
        if (y[i] < 0 || !shape_terms(y[i] / sigma, xi, &l, &t))
            return -INFINITY;
        s -= l + t;
    }
    return isnan(s) ? -INFINITY : s;
}

static double finite_or_nan(double v)
{
    return isfinite(v) ? v : NAN;
}

/* ---- input checks and probability weighted moments ---------------------- */

static bool check_sample(const double *x, size_t n, const char *what, wh_error *err)
{
    if (n < 3) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "%s fit needs at least 3 values, got %zu", what, n);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "%s fit: value %zu is not finite", what, i);
            return false;
        }
    return true;
}

/* A sorted copy of x, or NULL with err set. */
static double *sorted_copy(const double *x, size_t n, wh_error *err)
{
    double *s = wh_sorted_copy(x, n);
    if (!s)
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory sorting %zu values", n);
    return s;
}

/* The first three L-moments from the unbiased PWMs b_r = E[X F^r] of the
 * sorted sample (Hosking 1990): b_r = 1/n sum_j C(j-1, r) / C(n-1, r) x_(j). */
static void l_moments(const double *s, size_t n, double *l1, double *l2, double *l3)
{
    double b0 = 0, b1 = 0, b2 = 0, dn = (double)n;
    for (size_t i = 0; i < n; i++) {
        double j = (double)i;   /* j - 1 for the 1-based rank j */
        b0 += s[i];
        b1 += j / (dn - 1) * s[i];
        b2 += j * (j - 1) / ((dn - 1) * (dn - 2)) * s[i];
    }
    b0 /= dn;
    b1 /= dn;
    b2 /= dn;
    *l1 = b0;
    *l2 = 2 * b1 - b0;
    *l3 = 6 * b2 - 6 * b1 + b0;
}

static void set_fit(wh_evt_fit *out, wh_evt_family fam, wh_evt_method m, double loc, double scale, double shape,
                    size_t n)
{
    *out = (wh_evt_fit){ .family = fam, .method = m, .loc = loc, .scale = scale, .shape = shape, .n_fit = n,
                         .loglik = NAN, .converged = true };
}

/* The first three sample L-moments of x; false (err) for a constant sample. */
static bool sample_l_moments(const double *x, size_t n, double *l1, double *l2, double *l3, wh_error *err)
{
    double *s = sorted_copy(x, n, err);
    if (!s)
        return false;
    l_moments(s, n, l1, l2, l3);
    free(s);
    if (!(*l2 > 0)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "constant sample: no tail to fit");
        return false;
    }
    return true;
}

/* Gumbel by L-moments: sigma = l2 / ln 2, mu = l1 - gamma sigma. */
static bool gumbel_pwm_params(const double *x, size_t n, double *mu, double *sigma, wh_error *err)
{
    double l1, l2, l3;
    if (!sample_l_moments(x, n, &l1, &l2, &l3, err))
        return false;
    *sigma = l2 / M_LN2;
    *mu = l1 - EULER_GAMMA * *sigma;
    return true;
}

bool wh_fit_gumbel_pwm(const double *maxima, size_t n, wh_evt_fit *out, wh_error *err)
{
    double mu, sigma;
    if (!check_sample(maxima, n, "Gumbel", err) || !gumbel_pwm_params(maxima, n, &mu, &sigma, err))
        return false;
    set_fit(out, WH_EVT_GUMBEL, WH_EVT_PWM, mu, sigma, 0, n);
    out->loglik = finite_or_nan(gev_loglik(maxima, n, mu, sigma, 0));
    return true;
}

/* GEV by L-moments (Hosking, Wallis & Wood 1985), in Hosking's k = -xi:
 * c = 2 / (3 + t3) - ln 2 / ln 3, k = 7.8590 c + 2.9554 c^2 (accurate to
 * 9e-4 for -0.5 < t3 < 0.5), sigma = l2 k / ((1 - 2^-k) Gamma(1 + k)),
 * mu = l1 + sigma (Gamma(1 + k) - 1) / k.  Needs k > -1 (a finite mean). */
static bool gev_pwm_params(const double *x, size_t n, double *mu, double *sigma, double *xi, wh_error *err)
{
    double l1, l2, l3;
    if (!sample_l_moments(x, n, &l1, &l2, &l3, err))
        return false;
    double c = 2 / (3 + l3 / l2) - M_LN2 / log(3.0);
    double k = 7.8590 * c + 2.9554 * c * c;
    if (!(k > -1)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "GEV PWM: shape xi = %g >= 1 (infinite mean)", -k);
        return false;
    }
    if (fabs(k) < XI_ZERO) {
        *sigma = l2 / M_LN2;
        *mu = l1 - EULER_GAMMA * *sigma;
        *xi = 0;
        return true;
    }
    gsl_sf_result lg;
    if (gsl_sf_lngamma_e(1 + k, &lg) != GSL_SUCCESS) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "GEV PWM: Gamma(1 + k) undefined for k = %g", k);
        return false;
    }
    double g = exp(lg.val);
    /* 1 - 2^-k and Gamma(1 + k) - 1 both vanish with k: expm1 keeps them */
    *sigma = l2 * k / (-expm1(-k * M_LN2) * g);
    *mu = l1 + *sigma * expm1(lg.val) / k;
    *xi = -k;
    return true;
}

bool wh_fit_gev_pwm(const double *maxima, size_t n, wh_evt_fit *out, wh_error *err)
{
    double mu, sigma, xi;
    if (!check_sample(maxima, n, "GEV", err) || !gev_pwm_params(maxima, n, &mu, &sigma, &xi, err))
        return false;
    set_fit(out, WH_EVT_GEV, WH_EVT_PWM, mu, sigma, xi, n);
    out->loglik = finite_or_nan(gev_loglik(maxima, n, mu, sigma, xi));
    return true;
}

static bool check_excesses(const double *y, size_t n, wh_error *err)
{
    if (!check_sample(y, n, "GPD", err))
        return false;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (y[i] < 0) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "GPD fit: excess %zu is negative (%g)", i, y[i]);
            return false;
        }
        sum += y[i];
    }
    if (!(sum > 0)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "GPD fit: every excess is 0, no tail to fit");
        return false;
    }
    return true;
}

/* GPD by PWMs (Hosking & Wallis 1987), with a_0 = the mean and the
 * unbiased a_1 = E[Y (1 - G)] estimate 1/n sum_j (n - j) / (n - 1) y_(j)
 * (ascending order): k = a0 / (a0 - 2 a1) - 2, sigma = 2 a0 a1 / (a0 - 2 a1). */
static bool gpd_pwm_params(const double *y, size_t n, double *sigma, double *xi, wh_error *err)
{
    double *s = sorted_copy(y, n, err);
    if (!s)
        return false;
    double a0 = 0, a1 = 0, dn = (double)n;
    for (size_t i = 0; i < n; i++) {
        a0 += s[i];
        a1 += (dn - 1 - (double)i) / (dn - 1) * s[i];
    }
    free(s);
    a0 /= dn;
    a1 /= dn;
    double d = a0 - 2 * a1;   /* the excesses' l2: > 0 unless they are all equal */
    if (!(d > 0) || !(a1 > 0)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "GPD PWM: the excesses do not spread (constant tail)");
        return false;
    }
    *sigma = 2 * a0 * a1 / d;
    *xi = -(a0 / d - 2);
    if (fabs(*xi) < XI_ZERO)
        *xi = 0;
    return true;
}

bool wh_fit_gpd_pwm(const double *excess, size_t n, double u, wh_evt_fit *out, wh_error *err)
{
    double sigma, xi;
    if (!check_excesses(excess, n, err) || !gpd_pwm_params(excess, n, &sigma, &xi, err))
        return false;
    set_fit(out, WH_EVT_GPD, WH_EVT_PWM, u, sigma, xi, n);
    out->loglik = finite_or_nan(gpd_loglik(excess, n, sigma, xi));
    return true;
}

/* ---- maximum likelihood ------------------------------------------------- */

/* Standardised data and which likelihood the simplex minimises; the
 * parameter vector is (mu, log sigma, xi) for the GEV, (log sigma, xi)
 * for the GPD, all in standardised units. */
typedef struct {
    const double *z;
    size_t n;
    bool gpd;
} nll_data;

static double nll(const gsl_vector *v, void *params)
{
    const nll_data *d = params;
    double ls = gsl_vector_get(v, d->gpd ? 0 : 1), xi = gsl_vector_get(v, d->gpd ? 1 : 2);
    if (!(xi > -1) || !(fabs(ls) < 700))   /* the regular region; exp(ls) finite */
        return NLL_PENALTY;
    double ll = d->gpd ? gpd_loglik(d->z, d->n, exp(ls), xi)
                       : gev_loglik(d->z, d->n, gsl_vector_get(v, 0), exp(ls), xi);
    return isfinite(ll) && -ll < NLL_PENALTY ? -ll : NLL_PENALTY;
}

/* One Nelder-Mead run from x (updated to where it stopped); true when the
 * simplex shrank to SIMPLEX_TOL. */
static bool simplex_run(gsl_multimin_function *f, gsl_vector *x, double *fmin)
{
    size_t dim = x->size;
    gsl_vector *step = gsl_vector_alloc(dim);
    gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, dim);
    gsl_vector_set_all(step, SIMPLEX_STEP);
    gsl_multimin_fminimizer_set(m, f, x, step);
    bool done = false;
    for (int it = 0; it < SIMPLEX_ITERS && !done; it++) {
        if (gsl_multimin_fminimizer_iterate(m) != GSL_SUCCESS)
            break;
        done = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), SIMPLEX_TOL) == GSL_SUCCESS;
    }
    gsl_vector_memcpy(x, gsl_multimin_fminimizer_x(m));
    *fmin = gsl_multimin_fminimizer_minimum(m);
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(step);
    return done;
}

/* Minimise from x until a converged run no longer improves: a stalled
 * simplex restarted at its best vertex gets going again. */
static bool simplex_minimise(nll_data *d, gsl_vector *x)
{
    gsl_multimin_function f = { .f = nll, .n = x->size, .params = d };
    double prev = nll(x, d), cur;
    for (int r = 0; r < SIMPLEX_RESTARTS; r++) {
        bool done = simplex_run(&f, x, &cur);
        if (done && prev - cur <= 1e-12 * (1 + fabs(cur)))
            return true;
        prev = cur;
    }
    return false;
}

/* Location and scale that standardise x: its mean and standard deviation
 * (or, for excesses, 0 and their mean). */
static bool standardise(const double *x, size_t n, bool excess, double **z, double *m, double *s, wh_error *err)
{
    *m = excess ? 0 : gsl_stats_mean(x, 1, n);
    *s = excess ? gsl_stats_mean(x, 1, n) : gsl_stats_sd_m(x, 1, n, *m);
    if (!(*s > 0) || !isfinite(*s)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "constant sample: no tail to fit");
        return false;
    }
    *z = malloc(n * sizeof **z);
    if (!*z) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for %zu values", n);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        (*z)[i] = (x[i] - *m) / *s;
    return true;
}

bool wh_fit_gev_mle(const double *maxima, size_t n, wh_evt_fit *out, wh_error *err)
{
    double mu, sigma, xi, m, s, *z;
    if (!check_sample(maxima, n, "GEV", err) || !standardise(maxima, n, false, &z, &m, &s, err))
        return false;
    nll_data d = { .z = z, .n = n, .gpd = false };
    gsl_vector *v = gsl_vector_alloc(3);
    /* Start from the PWM estimate; where it fails or leaves a value
     * outside its support, from the Gumbel one (support: every x). */
    bool pwm = gev_pwm_params(maxima, n, &mu, &sigma, &xi, NULL);
    if (pwm) {
        gsl_vector_set(v, 0, (mu - m) / s);
        gsl_vector_set(v, 1, log(sigma / s));
        gsl_vector_set(v, 2, xi);
    }
    if (!pwm || nll(v, &d) >= NLL_PENALTY) {
        if (!gumbel_pwm_params(maxima, n, &mu, &sigma, err)) {
            gsl_vector_free(v);
            free(z);
            return false;
        }
        gsl_vector_set(v, 0, (mu - m) / s);
        gsl_vector_set(v, 1, log(sigma / s));
        gsl_vector_set(v, 2, 0);
    }
    bool conv = simplex_minimise(&d, v);
    double ll = -nll(v, &d) - (double)n * log(s);   /* back to the data's units */
    set_fit(out, WH_EVT_GEV, WH_EVT_MLE, m + s * gsl_vector_get(v, 0), s * exp(gsl_vector_get(v, 1)),
            gsl_vector_get(v, 2), n);
    out->loglik = ll;
    out->converged = conv;
    gsl_vector_free(v);
    free(z);
    return true;
}

bool wh_fit_gpd_mle(const double *excess, size_t n, double u, wh_evt_fit *out, wh_error *err)
{
    double sigma, xi, m, s, *z;
    if (!check_excesses(excess, n, err) || !standardise(excess, n, true, &z, &m, &s, err))
        return false;
    nll_data d = { .z = z, .n = n, .gpd = true };
    gsl_vector *v = gsl_vector_alloc(2);
    /* From the PWM estimate, else from the exponential of the same mean. */
    bool pwm = gpd_pwm_params(excess, n, &sigma, &xi, NULL);
    gsl_vector_set(v, 0, pwm ? log(sigma / s) : 0);
    gsl_vector_set(v, 1, pwm ? xi : 0);
    if (nll(v, &d) >= NLL_PENALTY) {
        gsl_vector_set(v, 0, 0);
        gsl_vector_set(v, 1, 0);
    }
    bool conv = simplex_minimise(&d, v);
    double ll = -nll(v, &d) - (double)n * log(s);
    set_fit(out, WH_EVT_GPD, WH_EVT_MLE, u, s * exp(gsl_vector_get(v, 0)), gsl_vector_get(v, 1), n);
    out->loglik = ll;
    out->converged = conv;
    gsl_vector_free(v);
    free(z);
    return true;
}

/* Gumbel score equation for sigma, with z = x - mean(x) and weights
 * w_i = exp(-z_i / sigma):  g(sigma) = sigma + sum z w / sum w = 0.
 * The weights are taken relative to the smallest z's (all <= 1, the
 * largest exactly 1), which the ratio does not see but exp's range does. */
typedef struct {
    const double *z;
    size_t n;
    double zmin;
} gumbel_data;

static double gumbel_score(double sigma, void *params)
{
    const gumbel_data *d = params;
    double sw = 0, szw = 0;
    for (size_t i = 0; i < d->n; i++) {
        double w = exp(-(d->z[i] - d->zmin) / sigma);
        sw += w;
        szw += d->z[i] * w;
    }
    return sigma + szw / sw;
}

/* The root of gumbel_score, bracketed: the weighted mean of z lies in
 * [zmin, 0], so g > 0 beyond -zmin, and g -> zmin < 0 as sigma -> 0. */
static bool gumbel_sigma(const gumbel_data *d, double sd, double *sigma)
{
    gsl_function f = { .function = gumbel_score, .params = (void *)d };
    double hi = -d->zmin * 1.01 + sd * 1e-6, lo = sd;
    while (lo > sd * 1e-12 && gumbel_score(lo, (void *)d) >= 0)
        lo /= 2;
    if (!(gumbel_score(lo, (void *)d) < 0) || !(gumbel_score(hi, (void *)d) > 0))
        return false;
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    gsl_root_fsolver_set(s, &f, lo, hi);
    bool done = false;
    for (int it = 0; it < 200 && !done; it++) {
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
            break;
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        done = gsl_root_test_interval(lo, hi, 0, 1e-14) == GSL_SUCCESS;
    }
    *sigma = gsl_root_fsolver_root(s);
    gsl_root_fsolver_free(s);
    return done;
}

bool wh_fit_gumbel_mle(const double *maxima, size_t n, wh_evt_fit *out, wh_error *err)
{
    double m, s, *z;
    if (!check_sample(maxima, n, "Gumbel", err) || !standardise(maxima, n, false, &z, &m, &s, err))
        return false;
    for (size_t i = 0; i < n; i++)
        z[i] *= s;   /* centred, in the data's units */
    gumbel_data d = { .z = z, .n = n, .zmin = z[gsl_stats_min_index(z, 1, n)] };
    double sigma = NAN;
    bool conv = gumbel_sigma(&d, s, &sigma);
    if (!(sigma > 0)) {   /* no bracket: only when the data barely spread */
        free(z);
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "Gumbel MLE: the score equation has no root in range");
        return false;
    }
    /* mu = -sigma log(mean exp(-x / sigma)), with the same shift as the score */
    double sw = 0;
    for (size_t i = 0; i < n; i++)
        sw += exp(-(z[i] - d.zmin) / sigma);
    double mu = m + d.zmin - sigma * log(sw / (double)n);
    free(z);
    set_fit(out, WH_EVT_GUMBEL, WH_EVT_MLE, mu, sigma, 0, n);
    out->loglik = finite_or_nan(gev_loglik(maxima, n, mu, sigma, 0));
    out->converged = conv;
    return true;
}

/* ---- distribution function, exceedance, pWCET --------------------------- */

static bool is_pot(const wh_evt_fit *f)
{
    return f->family == WH_EVT_GPD || f->family == WH_EVT_EXP;
}

/* t = -log(-log F) for the GEV, -log(1 - G) for the GPD: the quantity
 * both tails are exp(-t) of.  +INFINITY past a bounded tail's end point,
 * -INFINITY below a heavy GEV tail's lower end point. */
static double tail_t(const wh_evt_fit *f, double x)
{
    double xi = f->family == WH_EVT_GUMBEL || f->family == WH_EVT_EXP ? 0 : f->shape;
    double z = (x - f->loc) / f->scale, l, t;
    if (shape_terms(z, xi, &l, &t))
        return t;
    return xi < 0 ? INFINITY : -INFINITY;
}

double wh_evt_cdf(const wh_evt_fit *f, double x)
{
    if (isnan(x))
        return NAN;
    if (is_pot(f)) {
        if (x <= f->loc)
            return 0;
        return -expm1(-tail_t(f, x));
    }
    return exp(-exp(-tail_t(f, x)));
}

/* Per run: POT p = rate (1 - G(x - u)), undefined below u (NAN: the fit
 * says nothing there); BM p = 1 - F(x)^(1/block) = -expm1(log F / block),
 * with log F = -exp(-t) exact however small p is. */
double wh_evt_exceedance(const wh_evt_fit *f, double x)
{
    if (isnan(x))
        return NAN;
    double t = tail_t(f, x);
    if (is_pot(f))
        return x < f->loc ? NAN : f->rate * exp(-t);
    int b = f->block > 0 ? f->block : 1;
    return -expm1(-exp(-t) / b);
}

/* x with -log of the tail at x equal to t: loc + scale (e^(xi t) - 1) / xi
 * (loc + scale t when xi = 0); the inverse of tail_t. */
static double from_tail_t(const wh_evt_fit *f, double t)
{
    double xi = f->family == WH_EVT_GUMBEL || f->family == WH_EVT_EXP ? 0 : f->shape;
    if (fabs(xi) < XI_ZERO)
        return f->loc + f->scale * t;
    return f->loc + f->scale * expm1(xi * t) / xi;
}

/* BM: the block's non-exceedance (1 - p)^block = F(x), so
 * t = -log(-block log(1 - p)); POT: exp(-t) = p / rate, NAN when p > rate
 * (below the threshold). */
double wh_evt_pwcet(const wh_evt_fit *f, double p)
{
    if (!(p > 0 && p < 1))
        return NAN;
    if (is_pot(f))
        return p > f->rate ? NAN : from_tail_t(f, -log(p / f->rate));
    int b = f->block > 0 ? f->block : 1;
    return from_tail_t(f, -log(-(double)b * log1p(-p)));
}
