/*
 * rankcorr.c — do two measurements of the same inputs rank them alike?
 * Spearman's rho (the correlation of the ranks, ties at their mean rank)
 * and Kendall's tau-b (concordant against discordant pairs, corrected for
 * ties), as bench_fidelity compares the sim's ranking of inputs with a
 * GPU's.  O(n^2) for tau: n is tens of inputs.
 */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    double v;
    int i;
} keyed;

static int by_value(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

/* rank[i] of x[i] among x[0..n), from 1, ties at their mean rank. */
static bool ranks(const double *x, int n, double *rank)
{
    keyed *k = malloc((size_t)n * sizeof *k);
    if (!k)
        return false;
    for (int i = 0; i < n; i++)
        k[i] = (keyed){ x[i], i };
    qsort(k, (size_t)n, sizeof *k, by_value);
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && k[j].v == k[i].v)
            j++;
        double mean = (i + 1 + j) / 2.0;   /* ranks i+1 .. j */
        for (int m = i; m < j; m++)
            rank[k[m].i] = mean;
        i = j;
    }
    free(k);
    return true;
}

bool wh_spearman(const double *x, const double *y, int n, double *rho)
{
    if (n < 2)
        return false;
    double *rx = malloc((size_t)n * sizeof *rx), *ry = malloc((size_t)n * sizeof *ry);
    bool ok = rx && ry && ranks(x, n, rx) && ranks(y, n, ry);
    if (ok) {
        double mx = 0, my = 0;
        for (int i = 0; i < n; i++) {
            mx += rx[i];
            my += ry[i];
        }
        mx /= n;
        my /= n;
        double sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < n; i++) {
            sxy += (rx[i] - mx) * (ry[i] - my);
            sxx += (rx[i] - mx) * (rx[i] - mx);
            syy += (ry[i] - my) * (ry[i] - my);
        }
        ok = sxx > 0 && syy > 0;   /* a constant sample has no ranking */
        if (ok)
            *rho = sxy / sqrt(sxx * syy);
    }
    free(rx);
    free(ry);
    return ok;
}

bool wh_kendall_tau_b(const double *x, const double *y, int n, double *tau)
{
    if (n < 2)
        return false;
    double conc = 0, disc = 0, tie_x = 0, tie_y = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double dx = x[i] - x[j], dy = y[i] - y[j];
            if (dx == 0 && dy == 0)
                continue;
            if (dx == 0)
                tie_x++;
            else if (dy == 0)
                tie_y++;
            else if ((dx > 0) == (dy > 0))
                conc++;
            else
                disc++;
        }
    double d = sqrt((conc + disc + tie_x) * (conc + disc + tie_y));
    if (d == 0)
        return false;
    *tau = (conc - disc) / d;
    return true;
}
