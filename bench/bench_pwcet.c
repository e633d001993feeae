/*
 * bench_pwcet.c — what a pWCET analysis costs (core/pwcet.h).
 *
 *   bench_pwcet [--bootstrap B]
 *
 * For campaigns of 1,000, 10,000 and 100,000 samples (Gumbel draws from
 * PCG32, i.i.d. by construction), the wall time of wh_pwcet_analyse with
 * the default bootstrap (200 resamples per fit) and without one, and what
 * the analysis said: the i.i.d. verdict and the pWCET at 1e-9 of the
 * Gumbel (MLE) fit against the distribution's exact quantile, so a
 * regression in speed or in the estimators shows here.
 */
#include "core/clock.h"
#include "core/pcg32.h"
#include "core/pwcet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MU 1000.0
#define BETA 20.0

static double *gumbel_sample(size_t n, uint64_t seed)
{
    double *x = malloc(n * sizeof *x);
    if (!x) return NULL;
    pcg32 rng;
    pcg32_seed(&rng, seed, 7);
    for (size_t i = 0; i < n; i++) {
        double u = (pcg32_next(&rng) + 0.5) / 4294967296.0;
        x[i] = MU - BETA * log(-log(u));
    }
    return x;
}

static bool run(size_t n, int bootstrap)
{
    double *x = gumbel_sample(n, n);
    if (!x) return false;
    wh_pwcet_options o;
    wh_pwcet_options_init(&o);
    o.bootstrap = bootstrap;
    wh_pwcet_report r;
    wh_error err;
    double t0 = wh_clock_s();
    bool ok = wh_pwcet_analyse(x, n, &o, &r, &err);
    double dt = wh_clock_s() - t0;
    free(x);
    if (!ok) {
        fprintf(stderr, "bench_pwcet: %s\n", err.msg);
        return false;
    }
    /* per run p = 1e-9: the Gumbel's own quantile */
    double exact = MU - BETA * log(-log1p(-1e-9));
    const wh_pwcet_estimate *g = &r.est[WH_PWCET_GUMBEL_MLE];
    printf("%8zu samples  bootstrap %3d  %8.3f s   i.i.d. %-6s  gumbel-mle pWCET(1e-9) %.1f [%.1f, %.1f]  exact %.1f\n",
           n, bootstrap, dt, r.iid_ok ? "passed" : "FAILED", g->pwcet[6], g->lo[6], g->hi[6], exact);
    return true;
}

int main(int argc, char **argv)
{
    int bootstrap = 200;
    if (argc == 3 && !strcmp(argv[1], "--bootstrap")) bootstrap = atoi(argv[2]);
    else if (argc != 1) {
        fprintf(stderr, "usage: bench_pwcet [--bootstrap B]\n");
        return 1;
    }
    static const size_t sizes[] = { 1000, 10000, 100000 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (!run(sizes[i], 0) || !run(sizes[i], bootstrap)) return 2;
    return 0;
}
