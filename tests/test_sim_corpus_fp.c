/*
 * test_sim_corpus_fp.c — the sim backend against C references on the PTX
 * corpus: float and double arithmetic (bit-exact where the PTX rounds
 * correctly, a tolerance for .approx), conversions, half precision,
 * atomics (global, shared, 64-bit, float), warp shuffles, votes, match
 * and redux, and the "last block" pattern.  Helpers in sim_support.h.
 */
#include "core/pcg32.h"
#include "tests/sim_support.h"

#include <criterion/criterion.h>
#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same_f(float a, float b)
{
    if (isnan(a) && isnan(b))
        return true;
    return memcmp(&a, &b, sizeof a) == 0;
}

static bool same_d(double a, double b)
{
    if (isnan(a) && isnan(b))
        return true;
    return memcmp(&a, &b, sizeof a) == 0;
}

static bool near_f(double got, double want, double rel, double abs_tol)
{
    if (isnan(want))
        return isnan(got);
    return fabs(got - want) <= abs_tol + rel * fabs(want);
}

/* ---- floats ------------------------------------------------------------------------ */

Test(sim_corpus_fp, saxpy_grid_stride)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("saxpy"), SIM_SEEDS, true)) {
        const float *x = sc_buf(&c, "x");
        float *y = sc_buf(&c, "y");
        uint64_t n = sc_count(&c, "y");
        float *y0 = malloc(n * sizeof *y0);
        memcpy(y0, y, n * sizeof *y0);
        float a = 2.5f;
        sc_run(&c);
        for (uint64_t i = 0; i < n; i++)
            cr_assert(same_f(y[i], fmaf(a, x[i], y0[i])), "i=%llu", (unsigned long long)i);
        free(y0);
    }
}

Test(sim_corpus_fp, float_math)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("float_math"), SIM_SEEDS, false)) {
        float *x = sc_buf(&c, "x");
        x[0] = 2.5f;    /* rintf ties to even */
        x[3] = -3.5f;
        x[6] = 1e-40f;  /* subnormal (no .ftz: kept) */
        sc_run(&c);
        const float *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            float a = x[3 * i], b = x[3 * i + 1], cc = x[3 * i + 2];
            const float *r = o + i * 10;
            float e[10] = { a / b, sqrtf(fabsf(a)), fmaf(a, b, cc), fminf(a, b), fmaxf(a, b),
                            floorf(a), ceilf(a), truncf(a), rintf(a), copysignf(cc, b) };
            for (int k = 0; k < 10; k++)
                cr_assert(same_f(r[k], e[k]), "i=%llu k=%d got %a want %a", (unsigned long long)i, k, r[k], e[k]);
        }
    }
}

Test(sim_corpus_fp, float_approx)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("float_approx"), SIM_SEEDS, false)) {
        float *in = sc_buf(&c, "in");
        in[0] = 0.25f;
        in[1] = 1.5f;
        in[2] = -0.5f;
        sc_run(&c);
        const float *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            double x = in[i], y = 1.0 + fabs(x);
            const float *r = o + i * 8;
            double e[8] = { sin(x), cos(x), exp(x), log(y), x / y, 1.0 / sqrt(y), sqrt(y),
                            x < 0 ? 0 : (x > 1 ? 1 : x) };
            for (int k = 0; k < 8; k++)
                cr_assert(near_f(r[k], e[k], 2e-6, 2e-6), "i=%llu k=%d got %g want %g", (unsigned long long)i, k,
                          r[k], e[k]);
        }
    }
}

Test(sim_corpus_fp, float_compare_nan)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("float_compare_nan"), SIM_SEEDS, false)) {
        float *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b");
        a[0] = NAN;        b[0] = 1.0f;
        a[1] = 1.0f;       b[1] = NAN;
        a[2] = INFINITY;   b[2] = 1.0f;
        a[3] = -INFINITY;  b[3] = -INFINITY;
        a[4] = -0.0f;      b[4] = 0.0f;
        a[5] = 2.0f;       b[5] = 2.0f;
        a[6] = -NAN;       b[6] = -NAN;
        sc_run(&c);
        const int *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            float x = a[i], y = b[i];
            int m = 0;
            if (x < y) m |= 1;
            if (x <= y) m |= 2;
            if (x == y) m |= 4;
            if (x != y) m |= 8;
            if (isnan(x)) m |= 16;
            if (isinf(x)) m |= 32;
            if (signbit(x)) m |= 64;
            if (!(x >= y)) m |= 128;
            cr_assert_eq(o[i], m, "i=%llu a=%g b=%g", (unsigned long long)i, x, y);
        }
    }
}

Test(sim_corpus_fp, double_math)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("double_math"), SIM_SEEDS, false)) {
        double *x = sc_buf(&c, "x");
        x[0] = -2.5;
        sc_run(&c);
        const double *o = sc_buf(&c, "out");
        const long long *io = sc_buf(&c, "iout");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            double a = x[3 * i], b = x[3 * i + 1], cc = x[3 * i + 2];
            double e[6] = { a / b, sqrt(fabs(a)), fma(a, b, cc), a * b - cc, (double)(float)a, floor(a) };
            for (int k = 0; k < 6; k++)
                cr_assert(same_d(o[i * 6 + k], e[k]), "i=%llu k=%d", (unsigned long long)i, k);
            cr_assert_eq(io[i], (long long)a);
        }
    }
}

Test(sim_corpus_fp, half_ops)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("half_ops"), SIM_SEEDS, false)) {
        float *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b");
        pcg32 rng;
        pcg32_seed(&rng, c.seed, 3);
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            a[i] = (float)((int)pcg32_bounded(&rng, 65) - 32) / 4.0f;   /* quarters in [-8, 8] */
            b[i] = (float)((int)pcg32_bounded(&rng, 65) - 32) / 4.0f;
        }
        sc_run(&c);
        const float *o = sc_buf(&c, "out");
        const int *cmp = sc_buf(&c, "cmp");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            cr_assert_eq(o[i], a[i] * b[i] + a[i], "a=%g b=%g", a[i], b[i]);
            cr_assert_eq(cmp[i], a[i] < b[i]);
        }
    }
}

static long long f2i_sat(double r)
{
    if (isnan(r))
        return 0;
    if (r >= 2147483647.0)
        return INT_MAX;
    if (r <= -2147483648.0)
        return INT_MIN;
    return (long long)r;
}

static int bits_of_float(float f)
{
    int b;
    memcpy(&b, &f, 4);
    return b;
}

Test(sim_corpus_fp, conversions)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("conversions"), SIM_SEEDS, false)) {
        float *f = sc_buf(&c, "f");
        int *v = sc_buf(&c, "v");
        f[0] = 2.5f;  f[1] = -2.5f;  f[2] = 3e9f;  f[3] = -3e9f;  f[4] = NAN;  f[5] = -0.75f;
        v[0] = 16777217;  v[1] = -16777219;  v[2] = INT_MIN;  v[3] = 0x12345678;
        sc_run(&c);
        const long long *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            float x = f[i];
            int w = v[i];
            const long long *r = o + i * 12;
            cr_assert_eq(r[0], f2i_sat(nearbyint(x)), "rn %g", x);
            cr_assert_eq(r[1], f2i_sat(trunc(x)), "rz %g", x);
            cr_assert_eq(r[2], f2i_sat(ceil(x)), "ru %g", x);
            cr_assert_eq(r[3], f2i_sat(floor(x)), "rd %g", x);
            double u = trunc(x);
            long long eu = isnan(x) ? 0 : (u <= 0 ? 0 : (u >= 4294967295.0 ? 4294967295LL : (long long)u));
            cr_assert_eq(r[4], eu, "u rz %g", x);
            float big = x * 1.0e6f;
            long long el = isnan(big) ? 0 : (long long)nearbyint(big);
            cr_assert_eq(r[5], el, "ll %g", x);
            cr_assert_eq(r[6], (long long)(signed char)w);
            cr_assert_eq(r[7], (long long)(unsigned short)w);
            cr_assert_eq(r[8], (long long)(short)w);
            cr_assert_eq(r[9], (long long)(unsigned)w);
            cr_assert_eq(r[10], (long long)bits_of_float((float)w));
            int old = fegetround();
            fesetround(FE_TOWARDZERO);
            volatile int vw = w;
            volatile float rz = (float)vw;
            fesetround(old);
            cr_assert_eq(r[11], (long long)bits_of_float(rz), "rz of %d", w);
        }
    }
}

Test(sim_corpus_fp, vector_types)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("vector_types"), SIM_SEEDS, false)) {
        sc_run(&c);
        const float *in4 = sc_buf(&c, "in4"), *out4 = sc_buf(&c, "out4"), *dot = sc_buf(&c, "dot");
        const int *in2 = sc_buf(&c, "in2"), *out2 = sc_buf(&c, "out2");
        float k = 1.5f;
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            const float *a = in4 + 4 * i;
            for (int j = 0; j < 4; j++)
                cr_assert(same_f(out4[4 * i + (uint64_t)j], a[j] * k));
            cr_assert_eq(out2[2 * i], in2[2 * i + 1]);
            cr_assert_eq(out2[2 * i + 1], in2[2 * i]);
            cr_assert(same_f(dot[i], fmaf(a[0], a[1], a[2] * a[3])), "dot %llu", (unsigned long long)i);
        }
    }
}

typedef struct {
    float px, py, pz, vx, vy, vz;
    short age;
    char alive, kind;
} particle;

Test(sim_corpus_fp, struct_aos)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("struct_aos"), SIM_SEEDS, true)) {
        cr_assert_eq(c.img->spec->params[0].elem_size, sizeof(particle));
        particle *p = sc_buf(&c, "p");
        uint64_t n = sc_count(&c, "p");
        particle *ref = malloc(n * sizeof *ref);
        memcpy(ref, p, n * sizeof *ref);
        float ax = 0.5f, ay = -9.75f, az = 0.125f, dt = 0.01f;
        int nn = (int)sc_int(&c, "n");
        for (int i = 0; i < nn; i++) {
            particle *q = &ref[i];
            if (!q->alive)
                continue;
            q->vx = fmaf(ax, dt, q->vx);
            q->vy = fmaf(ay, dt, q->vy);
            q->vz = fmaf(az, dt, q->vz);
            q->px = fmaf(q->vx, dt, q->px);
            q->py = fmaf(q->vy, dt, q->py);
            q->pz = fmaf(q->vz, dt, q->pz);
            q->age = (short)(q->age + 1);
            q->alive = q->age < 50;
        }
        sc_run(&c);
        for (uint64_t i = 0; i < n; i++) {
            cr_assert(same_f(p[i].px, ref[i].px) && same_f(p[i].vy, ref[i].vy) && same_f(p[i].pz, ref[i].pz),
                      "particle %llu", (unsigned long long)i);
            cr_assert_eq(p[i].age, ref[i].age);
            cr_assert_eq(p[i].alive, ref[i].alive);
            cr_assert_eq(p[i].kind, ref[i].kind);
        }
        free(ref);
    }
}

Test(sim_corpus_fp, index_3d)
{
    simcase c;
    sc_open(&c, SIM_CORPUS("index_3d"), 1, false);
    sc_run(&c);
    const float *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
    int nx = (int)sc_int(&c, "nx"), ny = (int)sc_int(&c, "ny"), nz = (int)sc_int(&c, "nz");
    int sy = nx, sz = nx * ny;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                int i = z * sz + y * sy + x;
                float e;
                if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1)
                    e = in[i];
                else
                    e = 6.0f * in[i] - in[i - 1] - in[i + 1] - in[i - sy] - in[i + sy] - in[i - sz] - in[i + sz];
                cr_assert(same_f(o[i], e), "cell %d %d %d", x, y, z);
            }
    sc_close(&c);
}

Test(sim_corpus_fp, constant_mem)
{
    static const float coef[8] = { 1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, -0.03125f, 0.015625f, -0.0078125f };
    static const int table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("constant_mem"), SIM_SEEDS, false)) {
        sc_run(&c);
        const float *x = sc_buf(&c, "x"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            float r = coef[7];
            for (int k = 6; k >= 0; k--)
                r = fmaf(r, x[i], coef[k]);
            cr_assert(same_f(o[i], r + (float)table[i & 7]), "i=%llu", (unsigned long long)i);
        }
    }
}

Test(sim_corpus_fp, templates_float)
{
    simcase c;
    sc_open(&c, SIM_CORPUS("templates_float"), 1, false);
    sc_run(&c);
    const float *x = sc_buf(&c, "x"), *y = sc_buf(&c, "y"), *o = sc_buf(&c, "out");
    int n = (int)sc_int(&c, "n");
    for (int i = 0; i < n; i++) {
        double e = 0;
        for (int k = 0; k < 4; k++)
            e += (double)x[4 * i + k] * y[4 * i + k];
        cr_assert(near_f(o[i], e, 1e-5, 1e-4), "i=%d got %g want %g", i, o[i], e);
    }
    sc_close(&c);
}

/* ---- atomics ----------------------------------------------------------------------- */

Test(sim_corpus_fp, atomics_int)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("atomics_int"), SIM_SEEDS, true)) {
        int *acc = sc_buf(&c, "acc");
        unsigned *uacc = sc_buf(&c, "uacc");
        int init[9] = { 0, 0, INT_MAX, INT_MIN, 0, 0, -1, 0, INT_MIN };
        unsigned uinit[5] = { 0, 0, 0xFFFFFFFFu, 0, 0 };
        memcpy(acc, init, sizeof init);
        memcpy(uacc, uinit, sizeof uinit);
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *olde = sc_buf(&c, "old_exch");
        int n = (int)sc_int(&c, "n");
        long long sum = 0;
        int mn = INT_MAX, mx = INT_MIN, x = 0, m3 = INT_MIN;
        unsigned bits = 0, usum = 0, umin = 0xFFFFFFFFu, umax = 0;
        for (int i = 0; i < n; i++) {
            sum += in[i];
            mn = in[i] < mn ? in[i] : mn;
            mx = in[i] > mx ? in[i] : mx;
            bits |= 1u << (i & 31);
            x ^= in[i];
            m3 = in[i] * 3 > m3 ? in[i] * 3 : m3;
            usum += (unsigned)in[i];
            umin = (unsigned)in[i] < umin ? (unsigned)in[i] : umin;
            umax = (unsigned)in[i] > umax ? (unsigned)in[i] : umax;
        }
        cr_assert_eq(acc[0], (int)sum);
        cr_assert_eq(acc[1], (int)-sum);
        cr_assert_eq(acc[2], mn);
        cr_assert_eq(acc[3], mx);
        cr_assert_eq(acc[5], (int)bits);
        cr_assert_eq(acc[6], (int)~bits);
        cr_assert_eq(acc[7], x);
        cr_assert_eq(acc[8], m3);
        cr_assert_eq(uacc[0], usum);
        cr_assert_eq(uacc[1], (unsigned)(n % 16));
        cr_assert_eq(uacc[2], umin);
        cr_assert_eq(uacc[3], umax);
        cr_assert_eq(uacc[4], (unsigned)((10 - n % 10) % 10));
        /* exch: the olds and the final value are 0, 1..n, each once */
        char *seen = calloc((size_t)n + 1, 1);
        for (int i = 0; i < n; i++) {
            cr_assert(olde[i] >= 0 && olde[i] <= n && !seen[olde[i]]);
            seen[olde[i]] = 1;
        }
        cr_assert(acc[4] >= 1 && acc[4] <= n && !seen[acc[4]]);
        free(seen);
    }
}

Test(sim_corpus_fp, atomics_shared)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("atomics_shared"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int b = 0; b < 3; b++) {
            int e[8] = { 0, INT_MAX, INT_MIN, 0, -1, 0, 0, 0 };
            for (int t = 0; t < 128; t++) {
                int i = b * 128 + t;
                if (i >= n)
                    continue;
                int v = in[i];
                e[0] += v;
                e[1] = v < e[1] ? v : e[1];
                e[2] = v > e[2] ? v : e[2];
                e[3] |= v;
                e[4] &= v;
                e[5] ^= v;
                e[6] += v & 1;
                e[7]++;
            }
            for (int k = 0; k < 8; k++)
                cr_assert_eq(o[b * 8 + k], e[k], "block %d k %d", b, k);
        }
    }
}

Test(sim_corpus_fp, atomics_float64)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("atomics_float64"), SIM_SEEDS, true)) {
        unsigned long long *acc = sc_buf(&c, "acc64");
        memset(acc, 0, 6 * sizeof *acc);
        acc[1] = ~0ULL;
        sc_run(&c);
        const float *x = sc_buf(&c, "x"), *facc = sc_buf(&c, "facc");
        const double *dacc = sc_buf(&c, "dacc");
        const unsigned long long *u = sc_buf(&c, "u");
        int n = (int)sc_int(&c, "n");
        double fs = 0;
        unsigned long long sum = 0, mn = ~0ULL, mx = 0, orv = 0, s1 = 0;
        bool exch_ok = false;
        for (int i = 0; i < n; i++) {
            fs += x[i];
            sum += u[i];
            mn = u[i] < mn ? u[i] : mn;
            mx = u[i] > mx ? u[i] : mx;
            orv |= u[i];
            s1 += u[i] + 1;
            exch_ok |= acc[5] == u[i];
        }
        cr_assert(near_f(facc[0], fs, 1e-5, 1e-3), "float sum %g vs %g", facc[0], fs);
        cr_assert(near_f(dacc[0], fs, 1e-12, 1e-9), "double sum %g vs %g", dacc[0], fs);
        cr_assert_eq(facc[1], (float)n);
        cr_assert_eq(acc[0], sum);
        cr_assert_eq(acc[1], mn);
        cr_assert_eq(acc[2], mx);
        cr_assert_eq(acc[3], orv);
        cr_assert_eq(acc[4], s1);
        cr_assert(exch_ok);
    }
}

Test(sim_corpus_fp, atomics_scoped)
{
    simcase c;
    sc_open(&c, SIM_CORPUS("atomics_scoped"), 1, false);
    sc_run(&c);
    const int *in = sc_buf(&c, "in"), *acc = sc_buf(&c, "acc");
    int n = (int)sc_int(&c, "n"), mx = 0;
    for (int i = 0; i < n; i++)
        mx = in[i] > mx ? in[i] : mx;
    cr_assert_eq(acc[0], n);
    cr_assert_eq(acc[1], n);
    cr_assert_eq(acc[2], mx);
    sc_close(&c);
}

Test(sim_corpus_fp, histogram_shared)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("histogram_shared"), SIM_SEEDS, false)) {
        sc_run(&c);
        const unsigned *v = sc_buf(&c, "v"), *h = sc_buf(&c, "hist");
        unsigned e[64] = { 0 };
        for (uint64_t i = 0; i < sc_count(&c, "v"); i++)
            e[v[i] & 63]++;
        for (int b = 0; b < 64; b++)
            cr_assert_eq(h[b], e[b], "bin %d", b);
    }
}

Test(sim_corpus_fp, ldg_volatile_fence)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("ldg_volatile_fence"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *partial = sc_buf(&c, "partial"), *total = sc_buf(&c, "total");
        const unsigned *counter = sc_buf(&c, "counter");
        int n = (int)sc_int(&c, "n"), all = 0;
        for (int b = 0; b < 5; b++) {
            int sum = 0;
            for (int t = 0; t < 128; t++)
                sum += b * 128 + t < n ? in[b * 128 + t] : 0;
            cr_assert_eq(partial[b], sum);
            all += sum;
        }
        cr_assert_eq(total[0], all);
        cr_assert_eq(counter[0], 0u);
    }
}

/* ---- warp-level ----------------------------------------------------------------------- */

Test(sim_corpus_fp, warp_shuffle)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("warp_shuffle"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *sum = sc_buf(&c, "sum"), *bc = sc_buf(&c, "bcast"),
                  *scan = sc_buf(&c, "scan"), *rot = sc_buf(&c, "rot");
        for (uint64_t w = 0; w < sc_threads(&c) / 32; w++) {
            const int *v = in + w * 32;
            int tot = 0, run = 0;
            for (int l = 0; l < 32; l++)
                tot += v[l];
            cr_assert_eq(sum[w], tot);
            for (int l = 0; l < 32; l++) {
                run += v[l];
                cr_assert_eq(bc[w * 32 + (uint64_t)l], v[5]);
                cr_assert_eq(scan[w * 32 + (uint64_t)l], run, "warp %llu lane %d", (unsigned long long)w, l);
                cr_assert_eq(rot[w * 32 + (uint64_t)l], l < 31 ? v[l + 1] : v[l]);
            }
        }
    }
}

Test(sim_corpus_fp, warp_vote)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("warp_vote"), SIM_SEEDS, false)) {
        int *in = sc_buf(&c, "in");
        for (int l = 0; l < 32; l++)   /* warp 1: every lane positive */
            in[32 + l] = 1 + (l % 4);
        sc_run(&c);
        const int *o = sc_buf(&c, "out");
        for (uint64_t w = 0; w < sc_threads(&c) / 32; w++) {
            int pos = 0, odd = 0;
            for (int l = 0; l < 32; l++) {
                pos += in[w * 32 + (uint64_t)l] > 0;
                odd += in[w * 32 + (uint64_t)l] & 1;
            }
            for (int l = 0; l < 32; l++) {
                const int *r = o + (w * 32 + (uint64_t)l) * 4;
                cr_assert_eq(r[0], pos == 32);
                cr_assert_eq(r[1], pos > 0);
                cr_assert_eq(r[2], pos);
                cr_assert_eq(r[3], (in[w * 32 + (uint64_t)l] & 1) ? odd : -1, "warp %llu lane %d",
                             (unsigned long long)w, l);
            }
        }
    }
}

Test(sim_corpus_fp, warp_match_reduce)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("warp_match_reduce"), SIM_SEEDS, false)) {
        int *key = sc_buf(&c, "key");
        for (int l = 0; l < 32; l++)   /* warp 2: all keys equal */
            key[64 + l] = 2;
        sc_run(&c);
        const unsigned *val = sc_buf(&c, "val"), *peers = sc_buf(&c, "peers"), *red = sc_buf(&c, "red");
        const int *uni = sc_buf(&c, "uniform");
        for (uint64_t w = 0; w < sc_threads(&c) / 32; w++) {
            const int *k = key + w * 32;
            const unsigned *v = val + w * 32;
            unsigned add = 0, mn = ~0u, mx = 0, an = ~0u, orv = 0, xr = 0;
            bool same = true;
            for (int l = 0; l < 32; l++) {
                add += v[l];
                mn = v[l] < mn ? v[l] : mn;
                mx = v[l] > mx ? v[l] : mx;
                an &= v[l];
                orv |= v[l];
                xr ^= v[l];
                same &= k[l] == k[0];
            }
            for (int l = 0; l < 32; l++) {
                unsigned pm = 0;
                for (int j = 0; j < 32; j++)
                    if (k[j] == k[l])
                        pm |= 1u << j;
                uint64_t i = w * 32 + (uint64_t)l;
                cr_assert_eq(peers[i], pm);
                cr_assert_eq(uni[i], same);
                unsigned e[6] = { add, mn, mx, an, orv, xr };
                for (int q = 0; q < 6; q++)
                    cr_assert_eq(red[i * 6 + (uint64_t)q], e[q]);
            }
        }
    }
}
