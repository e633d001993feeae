/*
 * stats.h — is one search strategy better than another, over seeds?
 *
 * Search outcomes (the longest time each seeded run found) are few, not
 * normal, and often tied (runs that reach the same known worst), so the
 * comparison is by ranks: the Vargha-Delaney effect size A12 and the
 * two-sided Mann-Whitney U test, exact (the permutation distribution of
 * the rank sum, ties at mid-ranks) up to WH_RANK_EXACT_MAX observations
 * in all, the normal approximation with tie correction beyond.
 */
#ifndef WH_CORE_STATS_H
#define WH_CORE_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* Above this many observations in all the p-value is approximated. */
#define WH_RANK_EXACT_MAX 100

typedef struct {
    double a12;     /* P(X > Y) + P(X = Y) / 2 for one draw of each */
    double u;       /* Mann-Whitney U of x: pairs (x, y) with x > y, ties 1/2 */
    double p_value; /* two-sided: no difference between the two samples */
    bool exact;     /* p_value from the exact permutation distribution */
} wh_rank_test;

/* The distribution of repeated measurements. */
typedef struct {
    double mean, median, min, max;
    double stddev;  /* sample standard deviation (n - 1); 0 for one value */
} wh_summary;

/* A copy of x[0..n) in ascending order (free it); NULL when memory runs out. */
double *wh_sorted_copy(const double *x, size_t n);

/* Summarize x[0..n); false when n < 1 or memory runs out. */
bool wh_summarize(const double *x, int n, wh_summary *out);

/* Compare samples x (nx values) and y (ny); false when either is empty or
 * memory runs out.  NaNs are not allowed. */
bool wh_rank_test_run(const double *x, int nx, const double *y, int ny, wh_rank_test *out);

/* Rank correlation of paired measurements x[i], y[i] of n items
 * (rankcorr.c): Spearman's rho (ties at their mean rank) and Kendall's
 * tau-b; false when n < 2 or a sample is constant (no ranking), or memory
 * runs out. */
bool wh_spearman(const double *x, const double *y, int n, double *rho);
bool wh_kendall_tau_b(const double *x, const double *y, int n, double *tau);

#endif
