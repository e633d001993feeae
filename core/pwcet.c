/*
 * pwcet.c — the whole pWCET analysis of a measurement campaign (see
 * pwcet.h): options and their defaults, the i.i.d. checks, the sets each
 * fit is made to (block maxima, excesses over the POT threshold, the
 * MBPTA-CV tail), the pWCET curves with their bootstrap intervals, and
 * the report as JSON.  The tests live in iid.c and the fits in evt.c.
 */
#include "core/pwcet.h"
#include "core/stats.h"

#include "core/pcg32.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SAMPLES 100      /* MBPTA-CV's minimum campaign */
#define CV_MIN_EXCESSES 10   /* the smallest tail MBPTA-CV tests; sqrt(n) when larger */
#define CV_SELECT_P 1e-12    /* the probability the CV tail is chosen at */

static const struct {
    const char *name;
    wh_evt_family family;
    wh_evt_method method;
} ESTIMATES[WH_PWCET_NFITS] = {
    [WH_PWCET_GEV_MLE] = { "gev-mle", WH_EVT_GEV, WH_EVT_MLE },
    [WH_PWCET_GEV_PWM] = { "gev-pwm", WH_EVT_GEV, WH_EVT_PWM },
    [WH_PWCET_GUMBEL_MLE] = { "gumbel-mle", WH_EVT_GUMBEL, WH_EVT_MLE },
    [WH_PWCET_GUMBEL_PWM] = { "gumbel-pwm", WH_EVT_GUMBEL, WH_EVT_PWM },
    [WH_PWCET_GPD_MLE] = { "gpd-mle", WH_EVT_GPD, WH_EVT_MLE },
    [WH_PWCET_GPD_PWM] = { "gpd-pwm", WH_EVT_GPD, WH_EVT_PWM },
    [WH_PWCET_EXP_CV] = { "exp-cv", WH_EVT_EXP, WH_EVT_CV },
};

const char *wh_pwcet_estimate_name(int which)
{
    return which >= 0 && which < WH_PWCET_NFITS ? ESTIMATES[which].name : "?";
}

void wh_pwcet_options_init(wh_pwcet_options *o)
{
    *o = (wh_pwcet_options){ .block = 0, .threshold_q = 0.9, .lags = 20, .alpha = 0.05, .bootstrap = 200,
                             .confidence = 0.95, .seed = 1 };
}

/* ---- options ------------------------------------------------------------ */

static bool bad_option(wh_error *err, const char *what)
{
    wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "pWCET option %s", what);
    return false;
}

/* Every zero replaced by its default, every value checked against n. */
static bool resolve_options(const wh_pwcet_options *in, size_t n, wh_pwcet_options *o, wh_error *err)
{
    wh_pwcet_options d;
    wh_pwcet_options_init(&d);
    *o = in ? *in : d;
    if (o->block == 0) {
        size_t b = n / 50, hi = n / 10;
        o->block = (int)(b < 10 ? 10 : b > hi ? hi : b);
    }
    if (o->threshold_q == 0)
        o->threshold_q = d.threshold_q;
    if (o->lags == 0)
        o->lags = d.lags;
    if (o->alpha == 0)
        o->alpha = d.alpha;
    if (o->confidence == 0)
        o->confidence = d.confidence;
    if (o->block < 1 || n / (size_t)o->block < 3)
        return bad_option(err, "block: needs at least 3 whole blocks of the samples");
    if (!(o->threshold_q > 0 && o->threshold_q < 1))
        return bad_option(err, "threshold_q: must lie strictly between 0 and 1");
    if (o->lags < 1 || (size_t)o->lags + 1 >= n)
        return bad_option(err, "lags: must be at least 1 and less than the samples - 1");
    if (!(o->alpha > 0 && o->alpha < 1))
        return bad_option(err, "alpha: must lie strictly between 0 and 1");
    if (!(o->confidence > 0 && o->confidence < 1))
        return bad_option(err, "confidence: must lie strictly between 0 and 1");
    if (o->bootstrap < 0)
        return bad_option(err, "bootstrap: must not be negative");
    return true;
}

/* ---- i.i.d. checks ------------------------------------------------------ */

/* A test whose statistic is undefined (a constant sample) reads as NAN:
 * it cannot vouch for the sample, so iid_ok is false. */
static void iid_checks(const double *x, size_t n, wh_pwcet_report *r)
{
    const wh_iid_test undefined = { .statistic = NAN, .p_value = NAN, .dof = 0 };
    if (!wh_ljung_box(x, n, r->options.lags, &r->ljung_box, NULL))
        r->ljung_box = (wh_iid_test){ .statistic = NAN, .p_value = NAN, .dof = r->options.lags };
    if (!wh_runs_test(x, n, &r->runs, NULL))
        r->runs = undefined;
    if (!wh_ks_two_halves(x, n, &r->ks_halves, NULL))
        r->ks_halves = undefined;
    double a = r->options.alpha;
    r->iid_ok = r->ljung_box.p_value >= a && r->runs.p_value >= a && r->ks_halves.p_value >= a;
}

/* ---- the sets the fits are made to --------------------------------------- */

/* The maxima of the n / block whole blocks; the remainder at the end is
 * dropped, since a short block's maximum has another distribution. */
static double *block_maxima(const double *x, size_t n, int block, size_t *m)
{
    *m = n / (size_t)block;
    double *mx = malloc(*m * sizeof *mx);
    if (!mx)
        return NULL;
    for (size_t b = 0; b < *m; b++)
        mx[b] = gsl_stats_max(x + b * (size_t)block, 1, (size_t)block);
    return mx;
}

/* The excesses over u of the values strictly above it (sorted ascending). */
static double *excesses_over(const double *sorted, size_t n, double u, size_t *m)
{
    size_t first = n;
    while (first > 0 && sorted[first - 1] > u)
        first--;
    *m = n - first;
    double *y = malloc((*m ? *m : 1) * sizeof *y);
    if (!y)
        return NULL;
    for (size_t i = 0; i < *m; i++)
        y[i] = sorted[first + i] - u;
    return y;
}

/* MBPTA-CV (Abella et al. 2017): for k = max(10, sqrt n) .. n/2 (the
 * floor grows with n: at k = 10 of 100k samples the most conservative
 * tail was always the noisiest, and its rate k/n fell below 1e-3), the threshold u_k is
 * the (k+1)-th largest value and the k largest values' excesses over it
 * are tested for an exponential tail: their coefficient of variation
 * (sample sd with k - 1, over the mean) is asymptotically normal about 1
 * with sd 1/sqrt(k), so the tail is accepted when |CV - 1| <= z / sqrt(k),
 * z the two-sided normal quantile at the report's alpha.  Of the accepted
 * thresholds the one whose tail gives the largest pWCET at 1e-12 is kept
 * (the conservative choice).  The top-k mean and spread are updated one
 * value at a time (Welford), so the scan is linear in n; the spread of
 * the excesses is the spread of the values.  Returns k, 0 when none. */
static size_t cv_select(const double *sorted, size_t n, double alpha, double *u_out, double *mean_out)
{
    double z = gsl_cdf_ugaussian_Qinv(alpha / 2), best = -INFINITY, mean = 0, m2 = 0;
    size_t best_k = 0, min_k = (size_t)ceil(sqrt((double)n));
    if (min_k < CV_MIN_EXCESSES)
        min_k = CV_MIN_EXCESSES;
    for (size_t k = 1; k <= n / 2; k++) {
        double v = sorted[n - k], dv = v - mean;   /* the k-th largest joins */
        mean += dv / (double)k;
        m2 += dv * (v - mean);
        if (k < min_k)
            continue;
        double u = sorted[n - 1 - k], me = mean - u;
        if (!(me > 0))
            continue;
        double cv = sqrt(m2 / (double)(k - 1)) / me;
        if (fabs(cv - 1) > z / sqrt((double)k))
            continue;
        double w = u + me * log((double)k / (double)n / CV_SELECT_P);
        if (w > best) {
            best = w;
            best_k = k;
            *u_out = u;
            *mean_out = me;
        }
    }
    return best_k;
}

/* The exponential tail of excesses y over u: scale = their mean. */
static bool fit_exp(const double *y, size_t k, double u, wh_evt_fit *out)
{
    double m = gsl_stats_mean(y, 1, k);
    if (!(m > 0))
        return false;
    *out = (wh_evt_fit){ .family = WH_EVT_EXP, .method = WH_EVT_CV, .loc = u, .scale = m, .shape = 0,
                         .n_fit = k, .loglik = -(double)k * (log(m) + 1), .converged = true };
    return true;
}

/* ---- one estimate ------------------------------------------------------- */

/* What an estimate is fitted to, and how it maps back to runs. */
typedef struct {
    const double *data;
    size_t n;
    double u;      /* POT threshold */
    int block;     /* BM block */
    double rate;   /* POT excesses per sample */
} fit_set;

static bool fit_one(int which, const double *y, size_t m, const fit_set *fs, wh_evt_fit *out, wh_error *err)
{
    bool ok = false;
    switch (which) {
    case WH_PWCET_GEV_MLE: ok = wh_fit_gev_mle(y, m, out, err); break;
    case WH_PWCET_GEV_PWM: ok = wh_fit_gev_pwm(y, m, out, err); break;
    case WH_PWCET_GUMBEL_MLE: ok = wh_fit_gumbel_mle(y, m, out, err); break;
    case WH_PWCET_GUMBEL_PWM: ok = wh_fit_gumbel_pwm(y, m, out, err); break;
    case WH_PWCET_GPD_MLE: ok = wh_fit_gpd_mle(y, m, fs->u, out, err); break;
    case WH_PWCET_GPD_PWM: ok = wh_fit_gpd_pwm(y, m, fs->u, out, err); break;
    case WH_PWCET_EXP_CV:
        ok = fit_exp(y, m, fs->u, out);
        if (!ok)
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "the CV tail's excesses are all 0");
        break;
    }
    if (ok) {
        out->block = fs->block;
        out->rate = fs->rate;
    }
    return ok;
}

/* Nonparametric bootstrap: B resamples of the fitted set with
 * replacement, each refitted by the same estimator (a non-converged MLE
 * counts as failed), and the percentile interval of the pWCET at each
 * probability.  Left NAN where more than half the resamples give no value.
 * Each estimate draws from its own PCG32 stream, so one estimate's failed
 * refits never shift another's numbers.  False only without memory. */
static bool bootstrap(int which, const fit_set *fs, const wh_pwcet_report *r, wh_pwcet_estimate *e)
{
    int nb = r->options.bootstrap;
    double *res = malloc(fs->n * sizeof *res);
    double *vals = malloc((size_t)WH_PWCET_NPROBS * (size_t)nb * sizeof *vals);
    if (!res || !vals) {
        free(res);
        free(vals);
        return false;
    }
    size_t got[WH_PWCET_NPROBS] = { 0 };
    pcg32 rng;
    pcg32_seed(&rng, r->options.seed, (uint64_t)which);
    for (int b = 0; b < nb; b++) {
        for (size_t i = 0; i < fs->n; i++)
            res[i] = fs->data[pcg32_bounded64(&rng, fs->n)];
        wh_evt_fit f;
        if (!fit_one(which, res, fs->n, fs, &f, NULL) || !f.converged)
            continue;
        for (int j = 0; j < WH_PWCET_NPROBS; j++) {
            double v = wh_evt_pwcet(&f, r->probs[j]);
            if (isfinite(v))
                vals[(size_t)j * (size_t)nb + got[j]++] = v;
        }
    }
    double tail = (1 - r->options.confidence) / 2;
    for (int j = 0; j < WH_PWCET_NPROBS; j++) {
        double *v = vals + (size_t)j * (size_t)nb;
        if (got[j] == 0 || 2 * got[j] < (size_t)nb)
            continue;
        gsl_sort(v, 1, got[j]);
        e->lo[j] = gsl_stats_quantile_from_sorted_data(v, 1, got[j], tail);
        e->hi[j] = gsl_stats_quantile_from_sorted_data(v, 1, got[j], 1 - tail);
    }
    free(res);
    free(vals);
    return true;
}

static void estimate_fail(wh_pwcet_estimate *e, const char *msg)
{
    e->ok = false;
    snprintf(e->message, sizeof e->message, "%.255s", msg);
}

/* Fit one estimate to its set, tabulate its curve and intervals. */
static bool estimate(int which, const fit_set *fs, const wh_pwcet_report *r, wh_pwcet_estimate *e)
{
    wh_error err;
    wh_error_clear(&err);
    if (!fit_one(which, fs->data, fs->n, fs, &e->fit, &err)) {
        estimate_fail(e, err.msg);
        return true;
    }
    e->ok = true;
    if (!e->fit.converged)
        snprintf(e->message, sizeof e->message, "the likelihood maximisation did not converge");
    for (int j = 0; j < WH_PWCET_NPROBS; j++)
        e->pwcet[j] = wh_evt_pwcet(&e->fit, r->probs[j]);
    return r->options.bootstrap > 0 ? bootstrap(which, fs, r, e) : true;
}

/* ---- the whole analysis ------------------------------------------------- */

static bool check_input(const double *x, size_t n, wh_error *err)
{
    if (n < MIN_SAMPLES) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0,
                     "pWCET analysis needs at least %d samples (MBPTA-CV's minimum), got %zu", MIN_SAMPLES, n);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "sample %zu is not a finite number (%g)", i, x[i]);
            return false;
        }
    return true;
}

static void report_init(wh_pwcet_report *r, size_t n, const wh_pwcet_options *o)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->options = *o;
    r->threshold = NAN;
    for (int j = 0; j < WH_PWCET_NPROBS; j++)
        r->probs[j] = pow(10.0, -3 - j);
    for (int w = 0; w < WH_PWCET_NFITS; w++) {
        wh_pwcet_estimate *e = &r->est[w];
        e->fit = (wh_evt_fit){ .family = ESTIMATES[w].family, .method = ESTIMATES[w].method, .loc = NAN,
                               .scale = NAN, .shape = NAN, .rate = NAN, .loglik = NAN };
        for (int j = 0; j < WH_PWCET_NPROBS; j++)
            e->pwcet[j] = e->lo[j] = e->hi[j] = NAN;
    }
}

/* The three sets, fitted.  False only without memory. */
static bool fit_all(const double *x, const double *sorted, size_t n, wh_pwcet_report *r)
{
    size_t nmax, nexc;
    double *maxima = block_maxima(x, n, r->options.block, &nmax);
    r->threshold = gsl_stats_quantile_from_sorted_data(sorted, 1, n, r->options.threshold_q);
    double *exc = excesses_over(sorted, n, r->threshold, &nexc);
    double cu = NAN, cmean = NAN;
    size_t k = cv_select(sorted, n, r->options.alpha, &cu, &cmean);
    double *cexc = malloc((k ? k : 1) * sizeof *cexc);
    bool ok = maxima && exc && cexc;
    for (size_t i = 0; ok && i < k; i++)
        cexc[i] = sorted[n - k + i] - cu;
    r->cv_excesses = (int)k;
    fit_set bm = { .data = maxima, .n = nmax, .u = NAN, .block = r->options.block, .rate = 0 };
    fit_set pot = { .data = exc, .n = nexc, .u = r->threshold, .block = 0, .rate = (double)nexc / (double)n };
    fit_set cv = { .data = cexc, .n = k, .u = cu, .block = 0, .rate = (double)k / (double)n };
    for (int w = 0; ok && w < WH_PWCET_NFITS; w++) {
        const fit_set *fs = ESTIMATES[w].family == WH_EVT_GPD ? &pot : ESTIMATES[w].family == WH_EVT_EXP ? &cv : &bm;
        if (w == WH_PWCET_EXP_CV && k == 0)
            estimate_fail(&r->est[w], "no threshold with an exponential tail (CV test)");
        else
            ok = estimate(w, fs, r, &r->est[w]);
    }
    free(maxima);
    free(exc);
    free(cexc);
    return ok;
}

bool wh_pwcet_analyse(const double *x, size_t n, const wh_pwcet_options *opt, wh_pwcet_report *out,
                      wh_error *err)
{
    wh_pwcet_options o;
    if (!check_input(x, n, err) || !resolve_options(opt, n, &o, err))
        return false;
    report_init(out, n, &o);
    out->min = gsl_stats_min(x, 1, n);
    out->max = gsl_stats_max(x, 1, n);
    out->mean = gsl_stats_mean(x, 1, n);
    out->stddev = gsl_stats_sd_m(x, 1, n, out->mean);
    iid_checks(x, n, out);
    double *sorted = wh_sorted_copy(x, n);
    if (!sorted) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "pWCET analysis: out of memory for %zu samples", n);
        return false;
    }
    bool ok = true;
    if (out->min == out->max) {
        out->threshold = out->min;
        for (int w = 0; w < WH_PWCET_NFITS; w++)
            estimate_fail(&out->est[w], "constant sample: no tail to fit");
    } else {
        ok = fit_all(x, sorted, n, out);
    }
    free(sorted);
    if (!ok)
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "pWCET analysis: out of memory for %zu samples", n);
    return ok;
}

/* ---- JSON --------------------------------------------------------------- */

/* JSON has no NAN or infinity: an undefined number is null. */
static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *test_json(const wh_iid_test *t, bool with_dof)
{
    json_t *o = json_pack("{s:o, s:o}", "statistic", num(t->statistic), "p_value", num(t->p_value));
    if (with_dof)
        json_object_set_new(o, "dof", json_integer(t->dof));
    return o;
}

static json_t *options_json(const wh_pwcet_options *o)
{
    return json_pack("{s:i, s:o, s:i, s:o, s:i, s:o, s:I}", "block", o->block, "threshold_q", num(o->threshold_q),
                     "lags", o->lags, "alpha", num(o->alpha), "bootstrap", o->bootstrap, "confidence",
                     num(o->confidence), "seed", (json_int_t)o->seed);
}

static json_t *estimate_json(const wh_pwcet_report *r, int w)
{
    const wh_pwcet_estimate *e = &r->est[w];
    const wh_evt_fit *f = &e->fit;
    json_t *o = json_pack("{s:s, s:s, s:s, s:b}", "name", ESTIMATES[w].name, "family", wh_evt_family_name(f->family),
                          "method", wh_evt_method_name(f->method), "ok", e->ok);
    if (e->message[0])
        json_object_set_new(o, "message", json_string(e->message));
    json_object_set_new(o, "loc", num(f->loc));
    json_object_set_new(o, "scale", num(f->scale));
    json_object_set_new(o, "shape", num(f->shape));
    json_object_set_new(o, "block", json_integer(f->block));
    json_object_set_new(o, "rate", num(f->rate));
    json_object_set_new(o, "n_fit", json_integer((json_int_t)f->n_fit));
    json_object_set_new(o, "loglik", num(f->loglik));
    json_object_set_new(o, "converged", json_boolean(f->converged));
    json_t *curve = json_array();
    for (int j = 0; j < WH_PWCET_NPROBS; j++)
        json_array_append_new(curve, json_pack("{s:o, s:o, s:o, s:o}", "p", num(r->probs[j]), "value",
                                               num(e->pwcet[j]), "lo", num(e->lo[j]), "hi", num(e->hi[j])));
    json_object_set_new(o, "pwcet", curve);
    return o;
}

json_t *wh_pwcet_report_json(const wh_pwcet_report *r)
{
    json_t *iid = json_pack("{s:o, s:o, s:o, s:b, s:o}", "ljung_box", test_json(&r->ljung_box, true), "runs",
                            test_json(&r->runs, false), "ks_halves", test_json(&r->ks_halves, false), "ok",
                            r->iid_ok, "alpha", num(r->options.alpha));
    json_t *fits = json_array();
    for (int w = 0; w < WH_PWCET_NFITS; w++)
        json_array_append_new(fits, estimate_json(r, w));
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o}", "n", (json_int_t)r->n, "min", num(r->min),
                     "max", num(r->max), "mean", num(r->mean), "stddev", num(r->stddev), "options",
                     options_json(&r->options), "iid", iid, "threshold", num(r->threshold), "cv_excesses",
                     r->cv_excesses, "fits", fits);
}
