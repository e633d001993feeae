/*
 * test_stats.c — the rank comparison of search outcomes (core/stats.c):
 * A12 and the exact Mann-Whitney p-value against a published example and
 * hand counts, ties at mid-ranks, and the normal approximation's limits.
 */
#include <criterion/criterion.h>

#include "core/stats.h"

#include <math.h>

static wh_rank_test run(const double *x, int nx, const double *y, int ny)
{
    wh_rank_test r;
    cr_assert(wh_rank_test_run(x, nx, y, ny, &r));
    return r;
}

/* R's documented wilcox.test example (depression scores): W = 35, exact
 * two-sided p = 0.2544 (one-sided "greater" p = 0.1272). */
Test(stats, matches_the_published_wilcoxon_example)
{
    const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
    const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
    wh_rank_test r = run(x, 10, y, 5);
    cr_expect_float_eq(r.u, 35.0, 1e-12);
    cr_expect_float_eq(r.a12, 0.7, 1e-12);
    cr_expect(r.exact);
    cr_expect(fabs(r.p_value - 0.2544) < 5e-5, "p = %.6f", r.p_value);
}

/* Complete separation of 3 against 3: 2 of the C(6,3) = 20 splits are as
 * extreme, so p = 0.1 -- three seeds can never show p < 0.05. */
Test(stats, separation_of_three_seeds_gives_p_one_tenth)
{
    const double lo[] = { 1, 2, 3 }, hi[] = { 4, 5, 6 };
    wh_rank_test r = run(hi, 3, lo, 3);
    cr_expect_float_eq(r.a12, 1.0, 1e-12);
    cr_expect_float_eq(r.p_value, 0.1, 1e-12);
    r = run(lo, 3, hi, 3);
    cr_expect_float_eq(r.a12, 0.0, 1e-12);
    cr_expect_float_eq(r.p_value, 0.1, 1e-12);
}

/* Ties count half in A12 and share mid-ranks in the permutation test:
 * x = {5, 5, 5}, y = {5, 4}: the 4 ranks 1, the four 5s 3.5 each; x's rank
 * sum 10.5 is 1.5 from the mean 9, as are the 4 splits of the 10 that leave
 * the 4 out (the other 6 sum to 8), so p = 0.4. */
Test(stats, ties_count_half)
{
    const double x[] = { 5, 5, 5 }, y[] = { 5, 4 };
    wh_rank_test r = run(x, 3, y, 2);
    cr_expect_float_eq(r.u, 4.5, 1e-12);
    cr_expect_float_eq(r.a12, 0.75, 1e-12);
    cr_expect_float_eq(r.p_value, 0.4, 1e-12);
    const double same[] = { 7, 7, 7, 7 };
    r = run(same, 2, same + 2, 2);
    cr_expect_float_eq(r.a12, 0.5, 1e-12);
    cr_expect_float_eq(r.p_value, 1.0, 1e-12);
}

/* Five seeds each separate at p = 2 / C(10,5) = 0.0079. */
Test(stats, five_seeds_each_can_be_significant)
{
    const double lo[] = { 10, 11, 12, 13, 14 }, hi[] = { 20, 21, 22, 23, 24 };
    wh_rank_test r = run(hi, 5, lo, 5);
    cr_expect_float_eq(r.p_value, 2.0 / 252.0, 1e-12);
}

Test(stats, large_samples_use_the_normal_approximation)
{
    double x[60], y[60], all[120];
    for (int i = 0; i < 60; i++) {
        x[i] = 100 + i;   /* every x above every y */
        y[i] = i;
    }
    wh_rank_test r = run(x, 60, y, 60);
    cr_expect(!r.exact);
    cr_expect_float_eq(r.a12, 1.0, 1e-12);
    cr_expect(r.p_value < 1e-15, "p = %g", r.p_value);
    for (int i = 0; i < 120; i++)
        all[i] = i;   /* interleaved: x the even values, y the odd */
    for (int i = 0; i < 60; i++) {
        x[i] = all[2 * i];
        y[i] = all[2 * i + 1];
    }
    r = run(x, 60, y, 60);
    cr_expect(fabs(r.a12 - 0.5) < 0.01, "A12 = %g", r.a12);
    cr_expect(r.p_value > 0.8, "p = %g", r.p_value);
    for (int i = 0; i < 60; i++)
        x[i] = y[i] = 3;
    r = run(x, 60, y, 60);
    cr_expect_float_eq(r.p_value, 1.0, 1e-12);
}

Test(stats, empty_samples_are_refused)
{
    const double x[] = { 1 };
    wh_rank_test r;
    cr_expect(!wh_rank_test_run(x, 1, x, 0, &r));
    cr_expect(!wh_rank_test_run(x, 0, x, 1, &r));
}

/* Rank correlation: the values scipy's documentation gives for its own
 * examples (spearmanr([1,2,3,4,5], [5,6,7,8,7]) and kendalltau([12, 2, 1,
 * 12, 2], [1, 4, 7, 1, 0]), tau-b), ties included; the extremes; and what
 * has no ranking. */
Test(stats, rank_correlations_match_the_published_examples)
{
    const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 5, 6, 7, 8, 7 };
    double rho = 0, tau = 0;
    cr_assert(wh_spearman(a, b, 5, &rho));
    cr_expect(fabs(rho - 0.8207826816681233) < 1e-12, "rho = %.16g", rho);
    const double c[] = { 12, 2, 1, 12, 2 }, d[] = { 1, 4, 7, 1, 0 };
    cr_assert(wh_kendall_tau_b(c, d, 5, &tau));
    cr_expect(fabs(tau - -0.47140452079103173) < 1e-12, "tau = %.16g", tau);
    const double up[] = { 10, 20, 30, 40 }, down[] = { 4, 3, 2, 1 }, same[] = { 7, 7, 7, 7 };
    cr_assert(wh_spearman(up, up, 4, &rho) && wh_kendall_tau_b(up, up, 4, &tau));
    cr_expect_float_eq(rho, 1.0, 1e-12);
    cr_expect_float_eq(tau, 1.0, 1e-12);
    cr_assert(wh_spearman(up, down, 4, &rho) && wh_kendall_tau_b(up, down, 4, &tau));
    cr_expect_float_eq(rho, -1.0, 1e-12);
    cr_expect_float_eq(tau, -1.0, 1e-12);
    cr_expect_not(wh_spearman(up, same, 4, &rho), "a constant sample has no ranking");
    cr_expect_not(wh_kendall_tau_b(same, same, 4, &tau));
    cr_expect_not(wh_spearman(up, up, 1, &rho));
}
