/*
 * pwcet.h — from a measurement campaign's times to a probabilistic WCET.
 *
 * Measurement-based probabilistic timing analysis (MBPTA) fits an extreme
 * value distribution to the upper tail of a kernel's measured times and
 * reads off the time exceeded with a given probability per run (the
 * pWCET at 1e-9, say).  The fit is only meaningful when the samples look
 * independent and identically distributed, so the analysis first runs the
 * usual checks:
 *   - Ljung-Box: no autocorrelation up to `lags` (MBPTA-CV uses 20);
 *   - Wald-Wolfowitz runs above and below the median: no trend or cycles;
 *   - two-sample Kolmogorov-Smirnov of the first half against the second:
 *     the distribution did not drift during the campaign.
 * Then it fits, each with the maximum likelihood (MLE) and the probability
 * weighted moments (PWM, Hosking) estimators:
 *   - block maxima (BM): the maxima of consecutive blocks of `block`
 *     samples, to a GEV and to a Gumbel (the GEV with shape 0);
 *   - peaks over threshold (POT): the excesses over a threshold (a stated
 *     quantile of the sample) to a generalised Pareto distribution (GPD);
 *   - MBPTA-CV's exponential tail: the excesses over the highest threshold
 *     whose excesses' coefficient of variation is compatible with 1 (an
 *     exponential tail), fitted by their mean.
 *
 * Conventions (stated because packages differ): the GEV is
 *   F(x) = exp(-(1 + xi (x - mu) / sigma)^(-1/xi)),  Gumbel when xi = 0,
 * so xi > 0 is a heavy (Frechet) tail and xi < 0 a bounded (Weibull) one
 * (scipy's genextreme uses c = -xi); the GPD of an excess y >= 0 is
 *   G(y) = 1 - (1 + xi y / sigma)^(-1/xi),  exponential when xi = 0
 * (scipy's genpareto uses c = xi).
 *
 * Probabilities are per run (per kernel launch): for block maxima the
 * block's exceedance probability is 1 - (1 - p)^block; for POT it is
 * rate x (1 - G(x - u)), rate = excesses / samples.
 *
 * Numerical work uses GSL (distributions, minimisation); randomness
 * (bootstrap confidence intervals) uses PCG32, so a report is
 * reproducible from its seed.
 */
#ifndef WH_CORE_PWCET_H
#define WH_CORE_PWCET_H

#include "core/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- i.i.d. checks ------------------------------------------------------ */

typedef struct {
    double statistic;   /* Ljung-Box Q, runs z, KS D */
    double p_value;     /* of the null hypothesis (independence / same distribution) */
    int dof;            /* Ljung-Box: degrees of freedom (= lags); else 0 */
} wh_iid_test;

/* Q = n (n + 2) sum_{k=1..lags} r_k^2 / (n - k), chi-square with `lags`
 * degrees of freedom.  False when n <= lags + 1 or the sample is constant
 * (no autocorrelation is defined; err says so). */
bool wh_ljung_box(const double *x, size_t n, int lags, wh_iid_test *out, wh_error *err);
/* Runs above / below the median (values equal to the median dropped),
 * normal approximation, two-sided. */
bool wh_runs_test(const double *x, size_t n, wh_iid_test *out, wh_error *err);
/* Two-sample KS of x[0..n/2) against x[n/2..n), asymptotic p with
 * Stephens' small-sample correction (as Numerical Recipes' kstwo). */
bool wh_ks_two_halves(const double *x, size_t n, wh_iid_test *out, wh_error *err);
/* Two-sample KS of any two samples (the halves test's engine). */
bool wh_ks_two_sample(const double *a, size_t na, const double *b, size_t nb, wh_iid_test *out,
                      wh_error *err);

/* ---- extreme value fits ------------------------------------------------- */

typedef enum { WH_EVT_GEV = 0, WH_EVT_GUMBEL, WH_EVT_GPD, WH_EVT_EXP } wh_evt_family;
typedef enum { WH_EVT_MLE = 0, WH_EVT_PWM, WH_EVT_CV } wh_evt_method;

const char *wh_evt_family_name(wh_evt_family f);   /* "gev", "gumbel", "gpd", "exponential" */
const char *wh_evt_method_name(wh_evt_method m);   /* "mle", "pwm", "cv" */

typedef struct {
    wh_evt_family family;
    wh_evt_method method;
    double loc;         /* GEV/Gumbel: mu; GPD/exponential: the threshold u */
    double scale;       /* sigma (exponential: the mean excess) */
    double shape;       /* xi (0 for Gumbel and exponential) */
    int block;          /* BM: samples per block; POT: 0 */
    double rate;        /* POT: excesses / samples; BM: 0 */
    size_t n_fit;       /* maxima or excesses fitted */
    double loglik;      /* at the estimate (MLE and PWM alike), NAN when undefined */
    bool converged;     /* MLE: the minimiser converged; PWM/CV: true */
} wh_evt_fit;

/* Block maxima fits of maxima[0..n) (n >= 3).  Only the distribution's
 * parameters are set; the caller sets `block`.  The MLE starts from the
 * PWM estimate and searches xi > -1 only (below, the likelihood is
 * unbounded: Smith 1985); a minimiser that does not converge still gives
 * its estimate, with converged = false.  A constant sample is an error. */
bool wh_fit_gev_mle(const double *maxima, size_t n, wh_evt_fit *out, wh_error *err);
bool wh_fit_gev_pwm(const double *maxima, size_t n, wh_evt_fit *out, wh_error *err);
bool wh_fit_gumbel_mle(const double *maxima, size_t n, wh_evt_fit *out, wh_error *err);
bool wh_fit_gumbel_pwm(const double *maxima, size_t n, wh_evt_fit *out, wh_error *err);
/* GPD fits of excesses y[0..n) (all >= 0, n >= 3) over threshold u (set
 * as loc; the caller sets `rate`). */
bool wh_fit_gpd_mle(const double *excess, size_t n, double u, wh_evt_fit *out, wh_error *err);
bool wh_fit_gpd_pwm(const double *excess, size_t n, double u, wh_evt_fit *out, wh_error *err);

/* The distribution function of a fit at x: the block's (BM) or the
 * excess's over loc (POT), not per run. */
double wh_evt_cdf(const wh_evt_fit *f, double x);
/* Per-run exceedance probability of time x, and its inverse: the pWCET
 * at per-run exceedance probability p (0 < p < 1).  A bounded tail
 * (xi < 0) gives at most its upper end point.  POT fits say nothing
 * below their threshold: NAN for x < loc, and for p > rate. */
double wh_evt_exceedance(const wh_evt_fit *f, double x);
double wh_evt_pwcet(const wh_evt_fit *f, double p);

/* ---- the whole analysis ------------------------------------------------- */

/* Exceedance probabilities the report tabulates by default: 1e-3 ... 1e-15. */
#define WH_PWCET_NPROBS 13

typedef struct {
    int block;           /* BM block size; 0: chosen (n / 50, at least 10, at most n / 10) */
    double threshold_q;  /* POT threshold as a quantile of the sample; 0: 0.9 */
    int lags;            /* Ljung-Box lags; 0: 20 */
    double alpha;        /* significance of the i.i.d. checks; 0: 0.05 */
    int bootstrap;       /* resamples for confidence intervals; 0: none (init: 200) */
    double confidence;   /* 0: 0.95 */
    uint64_t seed;       /* PCG32 seed of the bootstrap */
} wh_pwcet_options;

/* The defaults: block 0 (chosen), threshold_q 0.9, lags 20, alpha 0.05,
 * bootstrap 200, confidence 0.95, seed 1.  A NULL options pointer to
 * wh_pwcet_analyse means these. */
void wh_pwcet_options_init(wh_pwcet_options *o);

/* One fit and its pWCET curve at the report's probabilities. */
typedef struct {
    wh_evt_fit fit;
    bool ok;                          /* false: the fit failed (why: message) */
    char message[256];
    double pwcet[WH_PWCET_NPROBS];
    /* Percentile bootstrap interval: the fitted maxima / excesses
     * resampled and refitted by the same estimator; NAN without
     * bootstrap, or when more than half the refits fail. */
    double lo[WH_PWCET_NPROBS], hi[WH_PWCET_NPROBS];
} wh_pwcet_estimate;

enum { WH_PWCET_GEV_MLE = 0, WH_PWCET_GEV_PWM, WH_PWCET_GUMBEL_MLE, WH_PWCET_GUMBEL_PWM, WH_PWCET_GPD_MLE,
       WH_PWCET_GPD_PWM, WH_PWCET_EXP_CV, WH_PWCET_NFITS };

typedef struct {
    size_t n;                         /* samples */
    double min, max, mean, stddev;
    wh_pwcet_options options;         /* with every default resolved */
    double probs[WH_PWCET_NPROBS];    /* 1e-3, 1e-4, ..., 1e-15 */
    wh_iid_test ljung_box, runs, ks_halves;
    bool iid_ok;                      /* every check's p >= alpha (an undefined test: NAN, false) */
    double threshold;                 /* POT threshold used */
    /* MBPTA-CV: excesses of the chosen threshold (0: none accepted).
     * Thresholds with k = max(10, sqrt n) .. n/2 excesses are tested at `alpha`;
     * of those accepted, the one with the largest pWCET at 1e-12. */
    int cv_excesses;
    wh_pwcet_estimate est[WH_PWCET_NFITS];
} wh_pwcet_report;

/* Analyse x[0..n) (n >= 100, as MBPTA-CV asks; err otherwise).  Fits that
 * fail are marked !ok with a reason; the call fails only for bad input
 * (too few samples, a value that is not finite, a bad option) or lack of
 * memory.  A constant sample is analysed: its tests are undefined and
 * every fit is !ok ("constant sample: no tail to fit"). */
bool wh_pwcet_analyse(const double *x, size_t n, const wh_pwcet_options *opt, wh_pwcet_report *out,
                      wh_error *err);
/* The report as JSON (every test, fit, and curve with its intervals). */
json_t *wh_pwcet_report_json(const wh_pwcet_report *r);
/* "gev-mle", "gumbel-pwm", "gpd-mle", "exp-cv", ... */
const char *wh_pwcet_estimate_name(int which);

#endif
