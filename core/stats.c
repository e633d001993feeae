/*
 * stats.c — rank-based comparison of two samples (see stats.h).
 *
 * Ranks are doubled so that mid-ranks of ties stay integers; the exact
 * p-value then counts, by dynamic programming over (subset size, rank
 * sum), the ways nx of the N doubled ranks can add up to each sum: every
 * split of the pooled observations is equally likely when both samples
 * come from one distribution.  Counts are doubles: C(100, 50) overflows
 * 64-bit integers, and a p-value needs no more than double precision.
 */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double value;
    int from_x;
} pooled;

static int cmp_pooled(const void *a, const void *b)
{
    double u = ((const pooled *)a)->value, v = ((const pooled *)b)->value;
    return (u > v) - (u < v);
}

/* Doubled mid-ranks of the sorted pool (ranks 1..n: doubled 2..2n), and
 * the tie term sum(t^3 - t) of the normal approximation. */
static void doubled_ranks(const pooled *p, int n, int *rank2, double *tie_term)
{
    *tie_term = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && p[j + 1].value == p[i].value)
            j++;
        for (int k = i; k <= j; k++)
            rank2[k] = i + j + 2;   /* 2 * mean of ranks i+1 .. j+1 */
        double t = j - i + 1;
        *tie_term += t * t * t - t;
        i = j + 1;
    }
}

/* P(|S - mean| >= |s_obs - mean|) for S the sum of nx of the doubled
 * ranks drawn without replacement; NAN when out of memory. */
static double exact_two_sided(const int *rank2, int n, int nx, long s_obs)
{
    long max_sum = (long)n * (n + 1);
    size_t width = (size_t)max_sum + 1;
    double *ways = calloc((size_t)(nx + 1) * width, sizeof *ways);
    if (!ways)
        return NAN;
    ways[0] = 1;   /* the empty subset, sum 0 */
    for (int i = 0; i < n; i++)
        for (int k = (i + 1 < nx ? i + 1 : nx); k >= 1; k--) {
            double *to = ways + (size_t)k * width, *from = ways + (size_t)(k - 1) * width;
            for (long s = max_sum; s >= rank2[i]; s--)
                to[s] += from[s - rank2[i]];
        }
    long mean2 = (long)nx * (n + 1);   /* the mean of S */
    long obs = labs(s_obs - mean2);
    double tail = 0, total = 0;
    const double *row = ways + (size_t)nx * width;
    for (long s = 0; s <= max_sum; s++) {
        total += row[s];
        if (labs(s - mean2) >= obs)
            tail += row[s];
    }
    free(ways);
    return tail / total;
}

static double normal_two_sided(double u, int nx, int ny, double tie_term)
{
    double n = nx + ny;
    double var = (double)nx * ny / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
    if (var <= 0)
        return 1;   /* every value tied: no evidence either way */
    double dev = fabs(u - (double)nx * ny / 2.0) - 0.5;   /* continuity correction */
    if (dev < 0)
        dev = 0;
    return erfc(dev / sqrt(var) / sqrt(2.0));
}

bool wh_rank_test_run(const double *x, int nx, const double *y, int ny, wh_rank_test *out)
{
    if (nx <= 0 || ny <= 0)
        return false;
    int n = nx + ny;
    pooled *p = malloc((size_t)n * sizeof *p);
    int *rank2 = malloc((size_t)n * sizeof *rank2);
    if (!p || !rank2) {
        free(p);
        free(rank2);
        return false;
    }
    for (int i = 0; i < nx; i++)
        p[i] = (pooled){ x[i], 1 };
    for (int i = 0; i < ny; i++)
        p[nx + i] = (pooled){ y[i], 0 };
    qsort(p, (size_t)n, sizeof *p, cmp_pooled);
    double tie_term;
    doubled_ranks(p, n, rank2, &tie_term);
    long sum2_x = 0;
    for (int i = 0; i < n; i++)
        if (p[i].from_x)
            sum2_x += rank2[i];
    free(p);

    memset(out, 0, sizeof *out);
    out->u = (double)sum2_x / 2.0 - (double)nx * (nx + 1) / 2.0;
    out->a12 = out->u / ((double)nx * ny);
    out->exact = n <= WH_RANK_EXACT_MAX;
    if (out->exact) {
        /* the DP walks items in pooled order; the order does not matter */
        out->p_value = exact_two_sided(rank2, n, nx, sum2_x);
        if (isnan(out->p_value)) {
            free(rank2);
            return false;
        }
    } else {
        out->p_value = normal_two_sided(out->u, nx, ny, tie_term);
    }
    free(rank2);
    if (out->p_value > 1)
        out->p_value = 1;
    return true;
}

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double *wh_sorted_copy(const double *x, size_t n)
{
    double *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) return NULL;
    if (n) memcpy(sorted, x, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, ascending);
    return sorted;
}

bool wh_summarize(const double *x, int n, wh_summary *out)
{
    double *sorted = n > 0 ? wh_sorted_copy(x, (size_t)n) : NULL;
    if (!sorted) return false;
    double sum = 0, var = 0;
    for (int i = 0; i < n; i++) sum += sorted[i];
    out->mean = sum / n;
    for (int i = 0; i < n; i++) var += (sorted[i] - out->mean) * (sorted[i] - out->mean);
    out->stddev = n > 1 ? sqrt(var / (n - 1)) : 0;
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    free(sorted);
    return true;
}
