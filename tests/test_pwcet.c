/*
 * test_pwcet.c — pWCET analysis (core/iid.c, core/evt.c, core/pwcet.c):
 * every statistic and estimator against reference values, the pWCET
 * curves' invariants (monotone, exceedance and pWCET inverse to each
 * other), the bootstrap's intervals and reproducibility, refused inputs,
 * and the JSON report.
 *
 * The samples are tests/ref/pwcet_samples.csv (200 values each from a
 * Gumbel(1000, 50), a GEV(1000, 50, xi 0.2), a GPD(30, xi 0.2), an AR(1)
 * with phi 0.8, and the Gumbel rounded to tens, which ties at its median).
 * The reference values below were printed by tests/ref/pwcet_ref.py
 * (python 3.11.2, numpy 1.24.2, scipy 1.10.1, statsmodels 0.13.5):
 *   - Ljung-Box: statsmodels.stats.diagnostic.acorr_ljungbox(lags=[20]);
 *   - runs: statsmodels.sandbox.stats.runs.runstest_1samp(cutoff=median,
 *     correction=False) on the values off the median;
 *   - KS: D from scipy.stats.ks_2samp, p = scipy.special.kolmogorov at
 *     Stephens' lambda (the formula core/iid.c uses; ks_2samp's own
 *     asymptotic p corrects differently);
 *   - MLE: scipy.stats.genextreme.fit (xi = -c), gumbel_r.fit,
 *     genpareto.fit(floc=0), log-likelihoods from their logpdf;
 *   - PWM: no scipy function exists; the script computes them with numpy
 *     from the published formulas (Hosking, Wallis & Wood 1985; Hosking &
 *     Wallis 1987), so those checks are of the C against an independent
 *     implementation of the same formulas, not against a package;
 *   - pWCET: scipy's isf at 1 - (1 - p)^block (BM) or p / rate (POT).
 * Tolerances: closed-form statistics and PWM 1e-9 relative, the KS D to
 * the last bit; the Gumbel MLE (a root of the score in both) 1e-10; the
 * GEV/GPD MLE (two different Nelder-Mead runs, each stopped within
 * ~sqrt(eps) of the flat maximum) 1e-5 relative on the parameters (they
 * agree to ~4e-7) and 1e-9 on the maximised log-likelihood.
 */
#include <criterion/criterion.h>

#include "core/pwcet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREF 200
#define SAMPLES_CSV "tests/ref/pwcet_samples.csv"

/* ---- reference values (tests/ref/pwcet_ref.py) -------------------------- */

/* { Ljung-Box Q, p, runs z, p, KS D, p } */
static const double IID_GUMBEL[] = { 28.360063289633747, 0.10114615832551253, -0.14177803109441922, 0.88725533740354778, 0.089999999999999997, 0.79418377128477302 };
static const double IID_GEV[] = { 9.6623593635999807, 0.97388926633546313, 0.56711212437767688, 0.57063800602119985, 0.12, 0.44312540269882561 };
static const double IID_AR1[] = { 215.10103957071416, 1.1316503491479793e-34, -6.3800113992488647, 1.7707480264706853e-10, 0.26000000000000001, 0.0017846674219800559 };
static const double IID_TIES[] = { 28.037545026329852, 0.10851357561657372, 0.47561370826327837, 0.63434960744292734, 0.080000000000000002, 0.89375155241057302 };
/* { mu, sigma, xi, loglik } / { mu, sigma, loglik } / { sigma, xi, loglik } */
static const double GEV_MLE[] = { 1005.4617170251104, 51.121794582123158, 0.20722473060707042, -1126.0108799572306 };
static const double GUMBEL_MLE[] = { 995.83516335694571, 48.537090842417449, -1088.6655546013569 };
static const double GPD_MLE[] = { 34.44395371373971, 0.15361786202559885, -938.59026492419332 };
static const double GEV_PWM[] = { 1005.3184404198446, 51.276838663670958, 0.20929233660775856, -1126.0149660793868 };
static const double GUMBEL_PWM[] = { 996.01409119769619, 46.863517177618888, -1088.9236564643106 };
static const double GPD_PWM[] = { 34.679335545026049, 0.14651524286505979, -938.59412163361765 };
/* The analysis of the Gumbel sample with the default options (block 10,
 * threshold the 0.9 quantile, alpha 0.05): parameters, then the pWCET at
 * 1e-3 .. 1e-15.  ANA_GPD_PWM starts with { u, rate }, ANA_EXP_CV is
 * { k, u, mean excess, pWCET... }. */
static const double ANA_GEV_PWM[] = { 1111.5904590020755, 50.045861615375443, -0.068987967137822875, 1309.0193656089064, 1386.5840069090104, 1452.7434474517063, 1509.1845462769877, 1557.3356951203621, 1598.4145758910254, 1633.4599440603356, 1663.3579799476697, 1688.8647044642207, 1710.6250969571615, 1729.189404622296, 1745.0270564108916, 1758.5385333106165 };
static const double ANA_GUMBEL_PWM[] = { 1110.0548225477708, 47.138657189545967, 1327.1127820895363, 1435.6747735619151, 1544.2176642471234, 1652.7586457204579, 1761.2994362812688, 1869.8402077509136, 1978.3809773114426, 2086.9217466810601, 2195.4625160315863, 2304.003285380204, 2412.5440547286298, 2521.0848240770374, 2629.6255934254427 };
static const double ANA_GPD_PWM[] = { 1099.0395854999999, 0.10000000000000001, 54.539554072228078, -0.049967952608579669, 1323.4004336076885, 1417.6429575807724, 1501.6428937655155, 1576.5134403253269, 1643.2468093821362, 1702.7273761777146, 1755.7433991408507, 1802.9974661790402, 1845.1158056328009, 1882.6565852848153, 1916.11730940544, 1945.941411862952, 1972.5241326728674 };
static const double ANA_EXP_CV[] = { 72, 1028.8413439999999, 56.688162263888941, 1362.5137644369772, 1493.0430818150355, 1623.5723991930938, 1754.1017165711519, 1884.6310339492102, 2015.1603513272685, 2145.6896687053268, 2276.2189860833851, 2406.7483034614434, 2537.2776208395017, 2667.8069382175599, 2798.3362555956182, 2928.8655729736765 };
static const double ANA_GEV_MLE[] = { 1114.3064726420098, 50.130828466811863, -0.13917180761568754 };
static const double ANA_GUMBEL_MLE[] = { 1110.6667121721784, 48.859553805087423 };
static const double ANA_GPD_MLE[] = { 66.016492619153013, -0.25848096540174553 };

/* ---- helpers ------------------------------------------------------------ */

/* Column `name` of the samples CSV (NREF values). */
static void load_sample(const char *name, double *out)
{
    FILE *f = fopen(SAMPLES_CSV, "r");
    cr_assert(f, "cannot open %s (run from the repository root)", SAMPLES_CSV);
    char line[512];
    cr_assert(fgets(line, sizeof line, f));
    int col = -1, c = 0;
    for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), c++)
        if (strcmp(tok, name) == 0)
            col = c;
    cr_assert_geq(col, 0, "no column %s", name);
    for (int i = 0; i < NREF; i++) {
        cr_assert(fgets(line, sizeof line, f), "%s: short file", SAMPLES_CSV);
        char *p = line;
        for (int k = 0; k < col; k++)
            p = strchr(p, ',') + 1;
        out[i] = strtod(p, NULL);
    }
    fclose(f);
}

static bool close_rel(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

#define EXPECT_REL(got, want, rel) \
    cr_expect(close_rel((got), (want), (rel)), "%s = %.17g, want %.17g (rel %g)", #got, (double)(got), \
              (double)(want), (double)(rel))

static void expect_iid(const char *name, const double *ref)
{
    double x[NREF];
    load_sample(name, x);
    wh_iid_test t;
    wh_error err;
    cr_assert(wh_ljung_box(x, NREF, 20, &t, &err), "%s", err.msg);
    EXPECT_REL(t.statistic, ref[0], 1e-9);
    EXPECT_REL(t.p_value, ref[1], 1e-9);
    cr_expect_eq(t.dof, 20);
    cr_assert(wh_runs_test(x, NREF, &t, &err), "%s", err.msg);
    EXPECT_REL(t.statistic, ref[2], 1e-9);
    EXPECT_REL(t.p_value, ref[3], 1e-9);
    cr_assert(wh_ks_two_halves(x, NREF, &t, &err), "%s", err.msg);
    cr_expect_eq(t.statistic, ref[4], "%s: D = %.17g, want %.17g", name, t.statistic, ref[4]);
    EXPECT_REL(t.p_value, ref[5], 1e-9);
}

static wh_pwcet_report analyse(const double *x, size_t n, const wh_pwcet_options *o)
{
    wh_pwcet_report r;
    wh_error err;
    cr_assert(wh_pwcet_analyse(x, n, o, &r, &err), "%s", err.msg);
    return r;
}

static wh_pwcet_options no_bootstrap(void)
{
    wh_pwcet_options o;
    wh_pwcet_options_init(&o);
    o.bootstrap = 0;
    return o;
}

/* ---- i.i.d. checks ------------------------------------------------------ */

Test(pwcet, ljung_box_runs_and_ks_match_statsmodels_and_scipy)
{
    expect_iid("gumbel", IID_GUMBEL);
    expect_iid("gev", IID_GEV);
    expect_iid("ar1", IID_AR1);
}

/* 22 values sit at the median: dropped from the runs; the KS distance
 * counts every copy of a tied value before measuring the gap. */
Test(pwcet, ties_at_the_median_are_dropped_and_ks_handles_ties)
{
    expect_iid("ties", IID_TIES);
}

/* {1, 2, 2, 3} against {2, 2, 2, 4}: the gaps after 1, 2, 3, 4 are 1/4,
 * 0, 1/4, 0, so D = 1/4; stepping through the 2s one sample at a time
 * would see a false gap of 3/4 (a's two 2s counted before b's three). */
Test(pwcet, ks_distance_counts_ties_on_both_sides)
{
    const double a[] = { 1, 2, 2, 3 }, b[] = { 2, 2, 2, 4 };
    wh_iid_test t;
    cr_assert(wh_ks_two_sample(a, 4, b, 4, &t, NULL));
    cr_expect_float_eq(t.statistic, 0.25, 1e-15);
    cr_assert(wh_ks_two_sample(a, 4, a, 4, &t, NULL));
    cr_expect_float_eq(t.statistic, 0.0, 0);
    cr_expect_float_eq(t.p_value, 1.0, 0);
}

Test(pwcet, iid_tests_refuse_a_constant_sample)
{
    double x[50];
    for (int i = 0; i < 50; i++)
        x[i] = 3;
    wh_iid_test t;
    wh_error err;
    cr_expect_not(wh_ljung_box(x, 50, 20, &t, &err));
    cr_expect(strstr(err.msg, "constant"), "%s", err.msg);
    cr_expect_not(wh_runs_test(x, 50, &t, &err));
    cr_expect_not(wh_ljung_box(x, 21, 20, &t, &err));   /* n <= lags + 1 */
}

/* ---- fits against scipy and the published formulas ---------------------- */

Test(pwcet, gev_mle_matches_scipy_genextreme_fit)
{
    double x[NREF];
    load_sample("gev", x);
    wh_evt_fit f;
    wh_error err;
    cr_assert(wh_fit_gev_mle(x, NREF, &f, &err), "%s", err.msg);
    cr_expect(f.converged);
    cr_expect_eq(f.family, WH_EVT_GEV);
    cr_expect_eq(f.method, WH_EVT_MLE);
    cr_expect_eq(f.n_fit, (size_t)NREF);
    EXPECT_REL(f.loc, GEV_MLE[0], 1e-5);
    EXPECT_REL(f.scale, GEV_MLE[1], 1e-5);
    EXPECT_REL(f.shape, GEV_MLE[2], 1e-5);
    EXPECT_REL(f.loglik, GEV_MLE[3], 1e-9);
    cr_expect_geq(f.loglik, GEV_MLE[3] - 1e-6, "not below scipy's maximum");
}

Test(pwcet, gumbel_mle_matches_scipy_gumbel_r_fit)
{
    double x[NREF];
    load_sample("gumbel", x);
    wh_evt_fit f;
    wh_error err;
    cr_assert(wh_fit_gumbel_mle(x, NREF, &f, &err), "%s", err.msg);
    cr_expect(f.converged);
    EXPECT_REL(f.loc, GUMBEL_MLE[0], 1e-10);
    EXPECT_REL(f.scale, GUMBEL_MLE[1], 1e-10);
    cr_expect_eq(f.shape, 0);
    EXPECT_REL(f.loglik, GUMBEL_MLE[2], 1e-9);
}

Test(pwcet, gpd_mle_matches_scipy_genpareto_fit)
{
    double y[NREF];
    load_sample("gpd", y);
    wh_evt_fit f;
    wh_error err;
    cr_assert(wh_fit_gpd_mle(y, NREF, 0, &f, &err), "%s", err.msg);
    cr_expect(f.converged);
    cr_expect_eq(f.loc, 0);
    EXPECT_REL(f.scale, GPD_MLE[0], 1e-5);
    EXPECT_REL(f.shape, GPD_MLE[1], 1e-5);
    EXPECT_REL(f.loglik, GPD_MLE[2], 1e-9);
}

Test(pwcet, pwm_estimators_match_the_published_formulas)
{
    double x[NREF];
    wh_evt_fit f;
    wh_error err;
    load_sample("gev", x);
    cr_assert(wh_fit_gev_pwm(x, NREF, &f, &err), "%s", err.msg);
    EXPECT_REL(f.loc, GEV_PWM[0], 1e-9);
    EXPECT_REL(f.scale, GEV_PWM[1], 1e-9);
    EXPECT_REL(f.shape, GEV_PWM[2], 1e-9);
    EXPECT_REL(f.loglik, GEV_PWM[3], 1e-9);
    cr_expect(f.converged);
    load_sample("gumbel", x);
    cr_assert(wh_fit_gumbel_pwm(x, NREF, &f, &err), "%s", err.msg);
    EXPECT_REL(f.loc, GUMBEL_PWM[0], 1e-9);
    EXPECT_REL(f.scale, GUMBEL_PWM[1], 1e-9);
    EXPECT_REL(f.loglik, GUMBEL_PWM[2], 1e-9);
    load_sample("gpd", x);
    cr_assert(wh_fit_gpd_pwm(x, NREF, 0, &f, &err), "%s", err.msg);
    EXPECT_REL(f.scale, GPD_PWM[0], 1e-9);
    EXPECT_REL(f.shape, GPD_PWM[1], 1e-9);
    EXPECT_REL(f.loglik, GPD_PWM[2], 1e-9);
}

/* The MLE is a maximum: the PWM estimate never has a higher likelihood.
 * The GPD here is fitted over a threshold of 5 to check loc is u. */
Test(pwcet, mle_likelihood_is_at_least_the_pwm_one)
{
    double x[NREF];
    wh_evt_fit m, p;
    load_sample("gev", x);
    cr_assert(wh_fit_gev_mle(x, NREF, &m, NULL) && wh_fit_gev_pwm(x, NREF, &p, NULL));
    cr_expect_geq(m.loglik, p.loglik);
    load_sample("gpd", x);
    cr_assert(wh_fit_gpd_mle(x, NREF, 5, &m, NULL) && wh_fit_gpd_pwm(x, NREF, 5, &p, NULL));
    cr_expect_geq(m.loglik, p.loglik);
    cr_expect_eq(m.loc, 5);
}

Test(pwcet, fits_refuse_too_few_or_bad_values)
{
    const double three[] = { 1, 2, 3 }, neg[] = { 1, -1, 2 }, same[] = { 4, 4, 4, 4 };
    wh_evt_fit f;
    wh_error err;
    cr_expect_not(wh_fit_gev_mle(three, 2, &f, &err));
    cr_expect_not(wh_fit_gpd_pwm(neg, 3, 0, &f, &err));
    cr_expect(strstr(err.msg, "negative"), "%s", err.msg);
    cr_expect_not(wh_fit_gumbel_pwm(same, 4, &f, &err));
    cr_expect(strstr(err.msg, "constant"), "%s", err.msg);
    cr_expect_not(wh_fit_gev_mle(same, 4, &f, &err));
    cr_expect_not(wh_fit_gumbel_mle(same, 4, &f, &err));
}

/* ---- distribution, exceedance and pWCET ---------------------------------- */

static wh_evt_fit make_fit(wh_evt_family fam, double loc, double scale, double shape, int block, double rate)
{
    return (wh_evt_fit){ .family = fam, .method = WH_EVT_PWM, .loc = loc, .scale = scale, .shape = shape,
                         .block = block, .rate = rate, .converged = true };
}

Test(pwcet, exceedance_inverts_pwcet_for_every_family)
{
    const wh_evt_fit fits[] = {
        make_fit(WH_EVT_GEV, 1000, 50, 0.2, 10, 0),  make_fit(WH_EVT_GEV, 1000, 50, -0.2, 10, 0),
        make_fit(WH_EVT_GEV, 1000, 50, 1e-7, 25, 0), make_fit(WH_EVT_GUMBEL, 1000, 50, 0, 10, 0),
        make_fit(WH_EVT_GPD, 1100, 40, 0.3, 0, 0.1), make_fit(WH_EVT_GPD, 1100, 40, -0.3, 0, 0.1),
        make_fit(WH_EVT_EXP, 1100, 40, 0, 0, 0.05),
    };
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++)
        for (int e = 3; e <= 15; e++) {
            double p = pow(10.0, -e), x = wh_evt_pwcet(&fits[i], p);
            cr_expect(isfinite(x), "fit %zu p %g", i, p);
            EXPECT_REL(wh_evt_exceedance(&fits[i], x), p, 1e-6);
        }
}

/* Within double precision of x the round trip is exact where the tail is
 * not steep; check it tightly on the Gumbel and exponential. */
Test(pwcet, exceedance_round_trip_is_tight_at_1e_15)
{
    wh_evt_fit g = make_fit(WH_EVT_GUMBEL, 1000, 50, 0, 10, 0), e = make_fit(WH_EVT_EXP, 1100, 40, 0, 0, 0.05);
    EXPECT_REL(wh_evt_exceedance(&g, wh_evt_pwcet(&g, 1e-15)), 1e-15, 1e-12);
    EXPECT_REL(wh_evt_exceedance(&e, wh_evt_pwcet(&e, 1e-15)), 1e-15, 1e-12);
}

/* 1 - (1 - p)^block must not round to 0 at p = 1e-15: a Gumbel per block
 * of 10 runs at p per run is the Gumbel at 10 p per block. */
Test(pwcet, block_probability_keeps_its_precision)
{
    wh_evt_fit g = make_fit(WH_EVT_GUMBEL, 1000, 50, 0, 10, 0);
    double want = 1000 - 50 * log(-10 * log1p(-1e-15));
    EXPECT_REL(wh_evt_pwcet(&g, 1e-15), want, 1e-14);
    EXPECT_REL(wh_evt_pwcet(&g, 1e-15), 1000 - 50 * log(1e-14), 1e-12);
}

Test(pwcet, near_zero_shape_is_the_gumbel_limit)
{
    wh_evt_fit g = make_fit(WH_EVT_GUMBEL, 1000, 50, 0, 10, 0);
    wh_evt_fit a = make_fit(WH_EVT_GEV, 1000, 50, 1e-12, 10, 0), b = make_fit(WH_EVT_GEV, 1000, 50, -1e-8, 10, 0);
    for (int e = 3; e <= 15; e++) {
        double p = pow(10.0, -e);
        EXPECT_REL(wh_evt_pwcet(&a, p), wh_evt_pwcet(&g, p), 1e-12);
        EXPECT_REL(wh_evt_pwcet(&b, p), wh_evt_pwcet(&g, p), 1e-6);
    }
    wh_evt_fit x = make_fit(WH_EVT_EXP, 0, 40, 0, 0, 0.1), y = make_fit(WH_EVT_GPD, 0, 40, 1e-10, 0, 0.1);
    EXPECT_REL(wh_evt_pwcet(&y, 1e-9), wh_evt_pwcet(&x, 1e-9), 1e-12);
}

Test(pwcet, bounded_tail_stays_below_its_end_point)
{
    wh_evt_fit g = make_fit(WH_EVT_GEV, 1000, 50, -0.5, 10, 0);
    double end = 1000 + 50 / 0.5;
    cr_expect_leq(wh_evt_pwcet(&g, 1e-15), end);
    cr_expect_eq(wh_evt_exceedance(&g, end + 1), 0);
    cr_expect_eq(wh_evt_cdf(&g, end + 1), 1);
    wh_evt_fit p = make_fit(WH_EVT_GPD, 1000, 50, -0.5, 0, 0.1);
    cr_expect_leq(wh_evt_pwcet(&p, 1e-15), 1100);
    cr_expect_eq(wh_evt_exceedance(&p, 1200), 0);
}

Test(pwcet, pot_says_nothing_below_its_threshold)
{
    wh_evt_fit p = make_fit(WH_EVT_GPD, 1000, 50, 0.1, 0, 0.1);
    cr_expect(isnan(wh_evt_exceedance(&p, 999)));
    cr_expect_float_eq(wh_evt_exceedance(&p, 1000), 0.1, 1e-15);
    cr_expect(isnan(wh_evt_pwcet(&p, 0.2)));
    cr_expect_eq(wh_evt_cdf(&p, 990), 0);
    cr_expect(isnan(wh_evt_pwcet(&p, 0)));
    cr_expect(isnan(wh_evt_pwcet(&p, 1)));
}

/* ---- the whole analysis ------------------------------------------------- */

static void expect_curve(const wh_pwcet_estimate *e, const double *ref, double rel)
{
    for (int j = 0; j < WH_PWCET_NPROBS; j++)
        EXPECT_REL(e->pwcet[j], ref[j], rel);
}

Test(pwcet, analysis_of_a_gumbel_sample_matches_the_references)
{
    double x[NREF];
    load_sample("gumbel", x);
    wh_pwcet_options o = no_bootstrap();
    wh_pwcet_report r = analyse(x, NREF, &o);
    cr_expect_eq(r.options.block, 10);
    cr_expect_float_eq(r.options.threshold_q, 0.9, 0);
    cr_expect_eq(r.options.lags, 20);
    EXPECT_REL(r.probs[0], 1e-3, 1e-15);
    EXPECT_REL(r.probs[12], 1e-15, 1e-15);
    EXPECT_REL(r.ljung_box.statistic, IID_GUMBEL[0], 1e-9);
    cr_expect(r.iid_ok, "an i.i.d. sample passes: LB p %g, runs p %g, KS p %g", r.ljung_box.p_value,
              r.runs.p_value, r.ks_halves.p_value);

    const wh_pwcet_estimate *e = &r.est[WH_PWCET_GEV_PWM];
    cr_assert(e->ok, "%s", e->message);
    EXPECT_REL(e->fit.loc, ANA_GEV_PWM[0], 1e-9);
    EXPECT_REL(e->fit.scale, ANA_GEV_PWM[1], 1e-9);
    EXPECT_REL(e->fit.shape, ANA_GEV_PWM[2], 1e-9);
    cr_expect_eq(e->fit.block, 10);
    cr_expect_eq(e->fit.n_fit, (size_t)20);
    expect_curve(e, ANA_GEV_PWM + 3, 1e-9);

    e = &r.est[WH_PWCET_GUMBEL_PWM];
    EXPECT_REL(e->fit.loc, ANA_GUMBEL_PWM[0], 1e-9);
    EXPECT_REL(e->fit.scale, ANA_GUMBEL_PWM[1], 1e-9);
    expect_curve(e, ANA_GUMBEL_PWM + 2, 1e-9);

    e = &r.est[WH_PWCET_GPD_PWM];
    EXPECT_REL(r.threshold, ANA_GPD_PWM[0], 1e-12);
    EXPECT_REL(e->fit.loc, ANA_GPD_PWM[0], 1e-12);
    EXPECT_REL(e->fit.rate, ANA_GPD_PWM[1], 1e-12);
    cr_expect_eq(e->fit.n_fit, (size_t)20);
    EXPECT_REL(e->fit.scale, ANA_GPD_PWM[2], 1e-9);
    EXPECT_REL(e->fit.shape, ANA_GPD_PWM[3], 1e-9);
    expect_curve(e, ANA_GPD_PWM + 4, 1e-9);

    e = &r.est[WH_PWCET_EXP_CV];
    cr_assert(e->ok, "%s", e->message);
    cr_expect_eq(r.cv_excesses, (int)ANA_EXP_CV[0]);
    cr_expect_eq(e->fit.n_fit, (size_t)ANA_EXP_CV[0]);
    EXPECT_REL(e->fit.loc, ANA_EXP_CV[1], 1e-12);
    EXPECT_REL(e->fit.scale, ANA_EXP_CV[2], 1e-9);
    EXPECT_REL(e->fit.rate, ANA_EXP_CV[0] / NREF, 1e-15);
    expect_curve(e, ANA_EXP_CV + 3, 1e-9);

    e = &r.est[WH_PWCET_GEV_MLE];
    cr_assert(e->ok, "%s", e->message);
    EXPECT_REL(e->fit.loc, ANA_GEV_MLE[0], 1e-5);
    EXPECT_REL(e->fit.scale, ANA_GEV_MLE[1], 1e-5);
    EXPECT_REL(e->fit.shape, ANA_GEV_MLE[2], 1e-5);
    e = &r.est[WH_PWCET_GUMBEL_MLE];
    EXPECT_REL(e->fit.loc, ANA_GUMBEL_MLE[0], 1e-10);
    EXPECT_REL(e->fit.scale, ANA_GUMBEL_MLE[1], 1e-10);
    e = &r.est[WH_PWCET_GPD_MLE];
    cr_assert(e->ok, "%s", e->message);
    EXPECT_REL(e->fit.scale, ANA_GPD_MLE[0], 1e-5);
    EXPECT_REL(e->fit.shape, ANA_GPD_MLE[1], 1e-5);
    for (int w = 0; w < WH_PWCET_NFITS; w++)
        for (int j = 0; j < WH_PWCET_NPROBS; j++)
            cr_expect(isnan(r.est[w].lo[j]) && isnan(r.est[w].hi[j]), "no bootstrap, no interval");
}

Test(pwcet, autocorrelated_sample_fails_ljung_box)
{
    double x[NREF];
    load_sample("ar1", x);
    wh_pwcet_options o = no_bootstrap();
    wh_pwcet_report r = analyse(x, NREF, &o);
    cr_expect_lt(r.ljung_box.p_value, 1e-20);
    cr_expect_not(r.iid_ok);
}

Test(pwcet, pwcet_grows_as_the_probability_falls)
{
    const char *names[] = { "gumbel", "gev", "ar1" };
    for (int s = 0; s < 3; s++) {
        double x[NREF];
        load_sample(names[s], x);
        wh_pwcet_options o = no_bootstrap();
        wh_pwcet_report r = analyse(x, NREF, &o);
        for (int w = 0; w < WH_PWCET_NFITS; w++) {
            const wh_pwcet_estimate *e = &r.est[w];
            cr_assert(e->ok, "%s %s: %s", names[s], wh_pwcet_estimate_name(w), e->message);
            for (int j = 1; j < WH_PWCET_NPROBS; j++)
                cr_expect_geq(e->pwcet[j], e->pwcet[j - 1], "%s %s at %g", names[s], wh_pwcet_estimate_name(w),
                              r.probs[j]);
            cr_expect_gt(e->pwcet[0], r.max - (r.max - r.min), "%s", wh_pwcet_estimate_name(w));
        }
    }
}

Test(pwcet, bootstrap_intervals_bracket_the_estimate_and_repeat_with_the_seed)
{
    double x[NREF];
    load_sample("gumbel", x);
    wh_pwcet_options o;
    wh_pwcet_options_init(&o);
    o.bootstrap = 100;
    o.seed = 7;
    wh_pwcet_report a = analyse(x, NREF, &o), b = analyse(x, NREF, &o);
    o.seed = 8;
    wh_pwcet_report c = analyse(x, NREF, &o);
    bool differs = false;
    for (int w = 0; w < WH_PWCET_NFITS; w++) {
        const wh_pwcet_estimate *e = &a.est[w];
        cr_assert(e->ok, "%s: %s", wh_pwcet_estimate_name(w), e->message);
        for (int j = 0; j < WH_PWCET_NPROBS; j++) {
            cr_expect(isfinite(e->lo[j]) && isfinite(e->hi[j]), "%s at %g", wh_pwcet_estimate_name(w), a.probs[j]);
            cr_expect(e->lo[j] <= e->pwcet[j] && e->pwcet[j] <= e->hi[j], "%s at %g: %g not in [%g, %g]",
                      wh_pwcet_estimate_name(w), a.probs[j], e->pwcet[j], e->lo[j], e->hi[j]);
            cr_expect_eq(e->lo[j], b.est[w].lo[j]);
            cr_expect_eq(e->hi[j], b.est[w].hi[j]);
            differs |= e->lo[j] != c.est[w].lo[j];
        }
    }
    cr_expect(differs, "another seed, other intervals");
}

Test(pwcet, fewer_than_100_samples_are_refused)
{
    double x[99];
    for (int i = 0; i < 99; i++)
        x[i] = i;
    wh_pwcet_report r;
    wh_error err;
    cr_expect_not(wh_pwcet_analyse(x, 99, NULL, &r, &err));
    cr_expect_eq(err.kind, WH_ERR_USER);
    cr_expect(strstr(err.msg, "100") && strstr(err.msg, "MBPTA-CV"), "%s", err.msg);
}

Test(pwcet, non_finite_samples_are_refused_with_their_index)
{
    double x[NREF];
    load_sample("gumbel", x);
    x[57] = NAN;
    wh_pwcet_report r;
    wh_error err;
    cr_expect_not(wh_pwcet_analyse(x, NREF, NULL, &r, &err));
    cr_expect_eq(err.kind, WH_ERR_USER);
    cr_expect(strstr(err.msg, "57"), "%s", err.msg);
    x[57] = 1;
    x[3] = INFINITY;
    cr_expect_not(wh_pwcet_analyse(x, NREF, NULL, &r, &err));
    cr_expect(strstr(err.msg, "sample 3 "), "%s", err.msg);
}

Test(pwcet, bad_options_are_refused)
{
    double x[NREF];
    load_sample("gumbel", x);
    wh_pwcet_report r;
    wh_error err;
    wh_pwcet_options o = no_bootstrap();
    o.threshold_q = 1.5;
    cr_expect_not(wh_pwcet_analyse(x, NREF, &o, &r, &err));
    cr_expect(strstr(err.msg, "threshold_q"), "%s", err.msg);
    o = no_bootstrap();
    o.block = 100;   /* 2 blocks */
    cr_expect_not(wh_pwcet_analyse(x, NREF, &o, &r, &err));
    cr_expect(strstr(err.msg, "block"), "%s", err.msg);
}

Test(pwcet, constant_sample_is_reported_without_fits)
{
    double x[150];
    for (int i = 0; i < 150; i++)
        x[i] = 42;
    wh_pwcet_report r = analyse(x, 150, NULL);
    cr_expect_not(r.iid_ok);
    cr_expect(isnan(r.ljung_box.p_value) && isnan(r.runs.p_value));
    cr_expect_float_eq(r.stddev, 0.0, 0);
    for (int w = 0; w < WH_PWCET_NFITS; w++) {
        cr_expect_not(r.est[w].ok);
        cr_expect_str_eq(r.est[w].message, "constant sample: no tail to fit");
        cr_expect(isnan(r.est[w].pwcet[0]));
    }
}

/* Half 0, half 1: the top k values are all 1 (no excess) until k = n/2,
 * whose excesses are all 1 (CV 0): no exponential tail anywhere. */
Test(pwcet, no_exponential_tail_is_reported)
{
    double x[200];
    for (int i = 0; i < 200; i++)
        x[i] = i % 2;
    wh_pwcet_report r = analyse(x, 200, NULL);
    cr_expect_eq(r.cv_excesses, 0);
    cr_expect_not(r.est[WH_PWCET_EXP_CV].ok);
    cr_expect_str_eq(r.est[WH_PWCET_EXP_CV].message, "no threshold with an exponential tail (CV test)");
}

Test(pwcet, default_block_is_n_over_50_within_10_and_n_over_10)
{
    double *x = malloc(2000 * sizeof *x), y[NREF];
    load_sample("gumbel", y);
    for (int i = 0; i < 2000; i++)
        x[i] = y[i % NREF] + i % 7;
    wh_pwcet_options o = no_bootstrap();
    wh_pwcet_report r = analyse(x, 2000, &o);
    cr_expect_eq(r.options.block, 40);
    cr_expect_eq(r.est[WH_PWCET_GEV_PWM].fit.n_fit, (size_t)50);
    r = analyse(x, 150, &o);
    cr_expect_eq(r.options.block, 10);
    cr_expect_eq(r.est[WH_PWCET_GEV_PWM].fit.n_fit, (size_t)15, "the short last block is dropped");
    free(x);
}

Test(pwcet, options_init_states_the_defaults)
{
    wh_pwcet_options o;
    wh_pwcet_options_init(&o);
    cr_expect_eq(o.block, 0);
    cr_expect_float_eq(o.threshold_q, 0.9, 0);
    cr_expect_eq(o.lags, 20);
    cr_expect_float_eq(o.alpha, 0.05, 0);
    cr_expect_eq(o.bootstrap, 200);
    cr_expect_float_eq(o.confidence, 0.95, 0);
    cr_expect_eq(o.seed, 1);
}

Test(pwcet, estimate_and_family_names)
{
    cr_expect_str_eq(wh_pwcet_estimate_name(WH_PWCET_GEV_MLE), "gev-mle");
    cr_expect_str_eq(wh_pwcet_estimate_name(WH_PWCET_GUMBEL_PWM), "gumbel-pwm");
    cr_expect_str_eq(wh_pwcet_estimate_name(WH_PWCET_EXP_CV), "exp-cv");
    cr_expect_str_eq(wh_evt_family_name(WH_EVT_EXP), "exponential");
    cr_expect_str_eq(wh_evt_method_name(WH_EVT_CV), "cv");
}

/* ---- JSON --------------------------------------------------------------- */

Test(pwcet, json_report_has_every_test_fit_and_curve)
{
    double x[NREF];
    load_sample("gumbel", x);
    wh_pwcet_options o;
    wh_pwcet_options_init(&o);
    o.bootstrap = 20;
    wh_pwcet_report r = analyse(x, NREF, &o);
    json_t *j = wh_pwcet_report_json(&r);
    cr_assert(j);
    cr_expect_eq(json_integer_value(json_object_get(j, "n")), NREF);
    cr_expect_float_eq(json_real_value(json_object_get(j, "mean")), r.mean, 0);
    json_t *opt = json_object_get(j, "options");
    cr_expect_eq(json_integer_value(json_object_get(opt, "block")), 10);
    cr_expect_eq(json_integer_value(json_object_get(opt, "bootstrap")), 20);
    json_t *lb = json_object_get(json_object_get(j, "iid"), "ljung_box");
    cr_expect_float_eq(json_real_value(json_object_get(lb, "statistic")), r.ljung_box.statistic, 0);
    cr_expect_eq(json_integer_value(json_object_get(lb, "dof")), 20);
    cr_expect(json_is_true(json_object_get(json_object_get(j, "iid"), "ok")));
    cr_expect(json_object_get(json_object_get(json_object_get(j, "iid"), "runs"), "p_value"));
    cr_expect(json_is_real(json_object_get(j, "threshold")));
    json_t *fits = json_object_get(j, "fits");
    cr_assert_eq(json_array_size(fits), (size_t)WH_PWCET_NFITS);
    json_t *f = json_array_get(fits, WH_PWCET_GPD_MLE);
    cr_expect_str_eq(json_string_value(json_object_get(f, "name")), "gpd-mle");
    cr_expect_str_eq(json_string_value(json_object_get(f, "family")), "gpd");
    cr_expect_str_eq(json_string_value(json_object_get(f, "method")), "mle");
    cr_expect(json_is_true(json_object_get(f, "ok")));
    const char *keys[] = { "loc", "scale", "shape", "block", "rate", "n_fit", "loglik", "converged" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_expect(json_object_get(f, keys[k]), "fit has %s", keys[k]);
    json_t *curve = json_object_get(f, "pwcet");
    cr_assert_eq(json_array_size(curve), (size_t)WH_PWCET_NPROBS);
    json_t *pt = json_array_get(curve, 6);
    cr_expect_float_eq(json_real_value(json_object_get(pt, "p")), 1e-9, 1e-24);
    cr_expect_float_eq(json_real_value(json_object_get(pt, "value")), r.est[WH_PWCET_GPD_MLE].pwcet[6], 0);
    cr_expect(json_is_real(json_object_get(pt, "lo")) && json_is_real(json_object_get(pt, "hi")));
    json_decref(j);
}

Test(pwcet, json_writes_undefined_numbers_as_null)
{
    double x[150];
    for (int i = 0; i < 150; i++)
        x[i] = 42;
    wh_pwcet_report r = analyse(x, 150, NULL);
    json_t *j = wh_pwcet_report_json(&r);
    cr_assert(j);
    json_t *lb = json_object_get(json_object_get(j, "iid"), "ljung_box");
    cr_expect(json_is_null(json_object_get(lb, "p_value")));
    json_t *f = json_array_get(json_object_get(j, "fits"), 0);
    cr_expect(json_is_false(json_object_get(f, "ok")));
    cr_expect_str_eq(json_string_value(json_object_get(f, "message")), "constant sample: no tail to fit");
    cr_expect(json_is_null(json_object_get(f, "loc")));
    cr_expect(json_is_null(json_object_get(json_array_get(json_object_get(f, "pwcet"), 0), "value")));
    char *s = json_dumps(j, 0);
    cr_assert(s, "a NAN anywhere would make jansson refuse to dump");
    free(s);
    json_decref(j);
}
