/*
 * test_sim_corpus.c — the sim backend against C references on the PTX
 * corpus (tests/ptx/NAME.cu, specs in tests/specs/sim_NAME.json): integer
 * arithmetic, control flow, loops, shared memory and barriers, device
 * functions, local arrays, switches, special registers, memory spaces.
 * Every kernel runs on several random inputs (PCG32 seeds).  Float,
 * atomic and warp-level kernels are in test_sim_corpus_fp.c.
 */
#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "harness/harness.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    wh_spec *spec;
    wh_image *img;
    harness *h;
    harness_result res;
} simcase;

/* Load tests/specs/sim_NAME.json, fill a random image with `seed`, open
 * the sim.  Skips the test when the PTX has not been built. */
static void sc_open(simcase *c, const char *name, uint64_t seed, bool all_buffers)
{
    char path[256];
    snprintf(path, sizeof path, "tests/specs/sim_%s.json", name);
    wh_error err;
    wh_error_clear(&err);
    memset(c, 0, sizeof *c);
    c->spec = wh_spec_load(path, &err);
    cr_assert(c->spec, "%s: %s", path, err.msg);
    char ptx[4096];
    if (!wh_spec_ptx_path(c->spec, ptx, sizeof ptx, &err)) {
        wh_spec_free(c->spec);
        c->spec = NULL;
        cr_skip_test("%s: PTX not built: run make ptx", name);
    }
    wh_launch L = wh_spec_launch_full(c->spec);
    c->img = wh_image_new(c->spec, &L, &err);
    cr_assert(c->img, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, seed, 17);
    cr_assert(wh_image_fill_random(c->img, &rng, &err), "%s", err.msg);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_outputs = true;
    o.want_all_buffers = all_buffers;
    c->h = harness_open(c->spec, HARNESS_SIM, &o, &err);
    cr_assert(c->h, "%s: %s", name, err.msg);
}

static void sc_run(simcase *c)
{
    wh_error err;
    wh_error_clear(&err);
    harness_result_free(&c->res);
    cr_assert(harness_measure(c->h, c->img, 1, &c->res, &err), "%s", err.msg);
    cr_assert_eq(c->res.status, HARNESS_OK, "%s: status %s: %s", c->spec->name,
                 harness_status_name(c->res.status), c->res.message);
    cr_assert_gt(c->res.cycles, 0);
}

static void *sc_buf(simcase *c, const char *name)
{
    int i = wh_image_find(c->img, name);
    cr_assert(i >= 0, "no buffer %s", name);
    return c->img->bufs[i].data;
}

static uint64_t sc_count(simcase *c, const char *name)
{
    int i = wh_image_find(c->img, name);
    cr_assert(i >= 0, "no buffer %s", name);
    return c->img->bufs[i].count;
}

static int64_t sc_int(simcase *c, const char *name)
{
    int i = wh_image_find(c->img, name);
    cr_assert(i >= 0, "no scalar %s", name);
    return wh_value_get_int(c->img->spec->params[i].type, c->img->bufs[i].data);
}

static void sc_close(simcase *c)
{
    harness_result_free(&c->res);
    harness_close(c->h);
    wh_image_free(c->img);
    wh_spec_free(c->spec);
    memset(c, 0, sizeof *c);
}

static uint64_t threads_of(simcase *c)
{
    return wh_launch_threads_total(&c->img->launch);
}

#define SEEDS 3

/* ---- simple arithmetic and control flow -------------------------------------- */

Test(sim_corpus, vec_add)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "vec_add", s, false);
        sc_run(&c);
        const int *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b"), *o = sc_buf(&c, "c");
        int n = (int)sc_int(&c, "n");
        for (uint64_t i = 0; i < threads_of(&c); i++)
            cr_assert_eq(o[i], (int)i < n ? a[i] + b[i] : 0, "i=%llu", (unsigned long long)i);
        sc_close(&c);
    }
}

Test(sim_corpus, loops_for_while_do)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "sum_to", s, false);
        sc_run(&c);
        const int *n = sc_buf(&c, "n"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++)
            cr_assert_eq(o[i], n[i] * (n[i] - 1) / 2);
        sc_close(&c);

        sc_open(&c, "collatz", s, false);
        sc_run(&c);
        const unsigned *v = sc_buf(&c, "v");
        const int *st = sc_buf(&c, "steps");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            unsigned x = v[i];
            int k = 0;
            while (x > 1u && k < 1000) {
                x = (x & 1u) ? 3u * x + 1u : x >> 1;
                k++;
            }
            cr_assert_eq(st[i], k, "collatz(%u)", v[i]);
        }
        sc_close(&c);

        sc_open(&c, "digits", s, false);
        sc_run(&c);
        v = sc_buf(&c, "v");
        o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            unsigned x = v[i];
            int d = 0;
            do {
                d++;
                x /= 10u;
            } while (x);
            cr_assert_eq(o[i], d);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, loop_nested)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "loop_nested", s, false);
        sc_run(&c);
        const int *m = sc_buf(&c, "m"), *o = sc_buf(&c, "out");
        int rows = (int)sc_int(&c, "rows"), cols = (int)sc_int(&c, "cols");
        for (int i = 0; i < cols; i++) {
            int sum = 0;
            for (int r = 0; r < rows; r++)
                for (int k = 0; k <= r; k++)
                    sum += m[r * cols + (k + i) % cols];
            cr_assert_eq(o[i], sum);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, loop_unroll)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "loop_unroll", s, false);
        sc_run(&c);
        const unsigned *in = sc_buf(&c, "in");
        const unsigned *f = sc_buf(&c, "out_full"), *four = sc_buf(&c, "out_four"), *one = sc_buf(&c, "out_one");
        int len = (int)sc_int(&c, "len");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            unsigned h8 = 7, h = 7;
            for (int k = 0; k < len; k++) {
                h = h * 31u + in[i * (uint64_t)len + (uint64_t)k];
                if (k < 8)
                    h8 = h;
            }
            cr_assert_eq(f[i], h8);
            cr_assert_eq(four[i], h);
            cr_assert_eq(one[i], h);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, loop_break_continue)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "loop_break_continue", s, false);
        sc_run(&c);
        const int *rows = sc_buf(&c, "rows"), *o = sc_buf(&c, "out"), *sk = sc_buf(&c, "skipped");
        int len = (int)sc_int(&c, "len"), key = (int)sc_int(&c, "key");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            int found = -1, neg = 0;
            for (int k = 0; k < len; k++) {
                int v = rows[i * (uint64_t)len + (uint64_t)k];
                if (v < 0) {
                    neg++;
                    continue;
                }
                if (v == key) {
                    found = k;
                    break;
                }
            }
            cr_assert_eq(o[i], found);
            cr_assert_eq(sk[i], neg);
        }
        sc_close(&c);
    }
}

static int classify(int v)
{
    int code = 0;
    if (v > 100) {
        code = 1;
        if (v % 2 == 0) {
            code += 10;
            if (v > 1000)
                code += 100;
        } else {
            code += 20;
        }
    } else if (v < -100) {
        code = 2;
        if (v < -1000)
            code += 30;
    } else {
        for (int k = 0; k < (v & 7); k++)
            code += k * v;
    }
    if (code & 1)
        code = -code;
    return code;
}

Test(sim_corpus, divergent_nested_if)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "divergent_nested_if", s, false);
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++)
            cr_assert_eq(o[i], classify(in[i]), "v=%d", in[i]);
        sc_close(&c);
    }
}

Test(sim_corpus, early_return)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "early_return", s, false);
        int *in = sc_buf(&c, "in");
        in[0] = 0;
        in[1] = 64;
        in[2] = -7;
        in[3] = 96;
        sc_run(&c);
        const int *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < (int)threads_of(&c); i++) {
            int v = in[i], e;
            if (i >= n)
                e = 0;
            else if (v < 0)
                e = 0;
            else if (v == 0)
                e = 1;
            else if ((v & (v - 1)) == 0)
                e = 2;
            else
                e = __builtin_ctz((unsigned)v);
            cr_assert_eq(o[i], e, "i=%d v=%d", i, v);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, switch_dense)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "switch_dense", s, false);
        sc_run(&c);
        const int *op = sc_buf(&c, "ops"), *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            int x = a[i], y = b[i], r;
            switch (op[i]) {
            case 0: r = x + y; break;
            case 1: r = x - y; break;
            case 2: r = x * y; break;
            case 3: r = y != 0 ? x / y : 0; break;
            case 4: r = x & y; break;
            case 5: r = x | y; break;
            case 6: r = x ^ y; break;
            case 7: r = (int)((unsigned)x << (y & 31)); break;
            case 8: r = x >> (y & 31); break;
            case 9: r = x < y ? x : y; break;
            default: r = -1; break;
            }
            cr_assert_eq(o[i], r, "op %d x %d y %d", op[i], x, y);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, switch_sparse)
{
    static const int keys[] = { 3, 17, 100, 1000, 65536, -5, 4, 0 };
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "switch_sparse", s, false);
        int *k = sc_buf(&c, "key");
        for (uint64_t i = 0; i < threads_of(&c); i += 3)
            k[i] = keys[(i / 3) % 8];
        sc_run(&c);
        const int *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            int e;
            switch (k[i]) {
            case 3: e = 1; break;
            case 17: e = 2; break;
            case 100: case 1000: e = 3; break;
            case 65536: e = 4; break;
            case -5: e = 5; break;
            default: e = 0; break;
            }
            cr_assert_eq(o[i], e, "key %d", k[i]);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, int_divmod)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "int_divmod", s, false);
        int *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b");
        for (uint64_t i = 0; i < threads_of(&c); i += 4)
            b[i] = -b[i];
        a[1] = INT_MIN;
        b[1] = 3;
        a[2] = INT_MAX;
        b[2] = -1;
        sc_run(&c);
        const long long *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            int x = a[i], y = b[i];
            unsigned ux = (unsigned)x, uy = (unsigned)y;
            const long long *r = o + i * 8;
            cr_assert_eq(r[0], x / y);
            cr_assert_eq(r[1], x % y);
            cr_assert_eq(r[2], ux / uy);
            cr_assert_eq(r[3], ux % uy);
            cr_assert_eq(r[4], x / 7);
            cr_assert_eq(r[5], x % -3);
            cr_assert_eq(r[6], ((long long)x * x) / (long long)y);
            cr_assert_eq(r[7], ux % 1000u);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, int64_ops)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "int64_ops", s, false);
        sc_run(&c);
        const long long *x = sc_buf(&c, "x"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            long long a = x[2 * i], b = x[2 * i + 1];
            unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
            int sh = (int)(b & 63);
            const long long *r = o + i * 7;
            cr_assert_eq(r[0], (long long)(ua * ub));
            cr_assert_eq(r[1], (long long)(ua + ub));
            cr_assert_eq(r[2], (long long)(ua - ub));
            cr_assert_eq(r[3], (long long)(ua << sh));
            cr_assert_eq(r[4], a >> sh);
            cr_assert_eq(r[5], (long long)(ua >> sh));
            cr_assert_eq(r[6], (a < b) + 2 * (ua < ub));
        }
        sc_close(&c);
    }
}

static unsigned brev32(unsigned v)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++)
        if (v & (1u << i))
            r |= 1u << (31 - i);
    return r;
}

static unsigned byte_perm(unsigned a, unsigned b, unsigned sel)
{
    unsigned long long x = ((unsigned long long)b << 32) | a;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) {
        unsigned k = (sel >> (4 * i)) & 7;
        r |= (unsigned)((x >> (8 * k)) & 0xff) << (8 * i);
    }
    return r;
}

Test(sim_corpus, bit_tricks)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "bit_tricks", s, false);
        unsigned *x = sc_buf(&c, "x");
        x[0] = 0;
        x[1] = 0;
        x[2] = 0x80000000u;
        x[3] = 32;
        sc_run(&c);
        const unsigned *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            unsigned a = x[2 * i], b = x[2 * i + 1], sh = b & 63u;
            unsigned long long ab = ((unsigned long long)a << 32) | b;
            unsigned long long lohi = ((unsigned long long)b << 32) | a;
            const unsigned *r = o + i * 12;
            cr_assert_eq(r[0], (unsigned)__builtin_popcount(a));
            cr_assert_eq(r[1], a ? (unsigned)__builtin_clz(a) : 32u);
            cr_assert_eq(r[2], (unsigned)__builtin_ffs((int)a));
            cr_assert_eq(r[3], brev32(a));
            cr_assert_eq(r[4], byte_perm(a, b, 0x5140u));
            cr_assert_eq(r[5], (unsigned)((lohi << (sh & 31)) >> 32), "funnelshift_l a %u b %u", a, b);
            cr_assert_eq(r[6], (unsigned)(lohi >> (sh & 31)), "funnelshift_r a %u b %u", a, b);
            cr_assert_eq(r[7], (unsigned)__builtin_popcountll(ab));
            cr_assert_eq(r[8], ab ? (unsigned)__builtin_clzll(ab) : 64u);
            cr_assert_eq(r[9], (unsigned)(((unsigned long long)a * b) >> 32));
            cr_assert_eq(r[10], (unsigned)(((long long)(int)a * (int)b) >> 32));
            cr_assert_eq(r[11], (a > b ? a - b : b - a) + sh);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, minmax_abs_select)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "minmax_abs_select", s, false);
        sc_run(&c);
        const int *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            int x = a[i], y = b[i];
            const int *r = o + i * 6;
            cr_assert_eq(r[0], x < y ? x : y);
            cr_assert_eq(r[1], x > y ? x : y);
            cr_assert_eq(r[2], abs(x));
            cr_assert_eq(r[3], (int)((unsigned)x < (unsigned)y ? (unsigned)x : (unsigned)y));
            cr_assert_eq(r[4], x < -100 ? -100 : (x > 100 ? 100 : x));
            cr_assert_eq(r[5], x > y ? x - y : y - x + 1);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, char_short)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "char_short", s, false);
        sc_run(&c);
        const unsigned char *rgba = sc_buf(&c, "rgba"), *gray = sc_buf(&c, "gray");
        const short *sh = sc_buf(&c, "s"), *h16 = sc_buf(&c, "hist16");
        const signed char *ch = sc_buf(&c, "c"), *sb = sc_buf(&c, "sb");
        for (uint64_t i = 0; i < threads_of(&c); i++) {
            const unsigned char *px = rgba + 4 * i;
            cr_assert_eq(gray[i], (unsigned char)((77u * px[0] + 150u * px[1] + 29u * px[2]) >> 8));
            int v = sh[i] * 3 - 1000;
            v = v < -32768 ? -32768 : (v > 32767 ? 32767 : v);
            cr_assert_eq(h16[i], (short)v);
            cr_assert_eq(sb[i], (signed char)(ch[i] / 2));
        }
        sc_close(&c);
    }
}

/* ---- shared memory and barriers -------------------------------------------------- */

Test(sim_corpus, reduce_shared)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "reduce_shared", s, false);
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (uint64_t b = 0; b < sc_count(&c, "out"); b++) {
            int sum = 0;
            for (int t = 0; t < 256; t++) {
                int i = (int)b * 256 + t;
                sum += i < n ? in[i] : 0;
            }
            cr_assert_eq(o[b], sum, "block %llu", (unsigned long long)b);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, reduce_dynamic_shared)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "reduce_dynamic_shared", s, false);
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        int bs = (int)c.img->launch.block[0];
        for (uint64_t b = 0; b < sc_count(&c, "out"); b++) {
            int m = INT_MIN;
            for (int t = 0; t < bs; t++) {
                int i = (int)b * bs + t;
                if (i < n && in[i] > m)
                    m = in[i];
            }
            cr_assert_eq(o[b], m);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, scan_shared)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "scan_shared", s, false);
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        int bs = (int)c.img->launch.block[0];
        for (int i = 0; i < (int)threads_of(&c); i++) {
            int sum = 0;
            for (int j = i - i % bs; j <= i; j++)
                sum += in[j];
            cr_assert_eq(o[i], i < n ? sum : 0, "i=%d", i);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, matmul_tiled)
{
    for (uint64_t s = 1; s <= 2; s++) {
        simcase c;
        sc_open(&c, "matmul_tiled", s, false);
        sc_run(&c);
        const int *A = sc_buf(&c, "A"), *B = sc_buf(&c, "B"), *C = sc_buf(&c, "C");
        int n = (int)sc_int(&c, "n");
        for (int r = 0; r < n; r++)
            for (int k = 0; k < n; k++) {
                int acc = 0;
                for (int j = 0; j < n; j++)
                    acc += A[r * n + j] * B[j * n + k];
                cr_assert_eq(C[r * n + k], acc, "C[%d][%d]", r, k);
            }
        sc_close(&c);
    }
}

Test(sim_corpus, transpose_shared_padded)
{
    for (uint64_t s = 1; s <= 2; s++) {
        simcase c;
        sc_open(&c, "transpose_shared_padded", s, false);
        sc_run(&c);
        const float *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        int rows = (int)sc_int(&c, "rows"), cols = (int)sc_int(&c, "cols");
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < cols; x++)
                cr_assert_eq(o[x * rows + y], in[y * cols + x]);
        sc_close(&c);
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

Test(sim_corpus, bitonic_sort_shared)
{
    for (uint64_t s = 1; s <= 2; s++) {
        simcase c;
        sc_open(&c, "bitonic_sort_shared", s, true);
        int *d = sc_buf(&c, "data");
        uint64_t n = sc_count(&c, "data");
        int *ref = malloc(n * sizeof *ref);
        memcpy(ref, d, n * sizeof *ref);
        for (uint64_t b = 0; b < n / 256; b++)
            qsort(ref + b * 256, 256, sizeof *ref, cmp_int);
        sc_run(&c);
        for (uint64_t i = 0; i < n; i++)
            cr_assert_eq(d[i], ref[i], "i=%llu", (unsigned long long)i);
        free(ref);
        sc_close(&c);
    }
}

Test(sim_corpus, sync_variants)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "sync_variants", s, false);
        int *in = sc_buf(&c, "in");
        /* block 1: every value positive (all = 1) */
        for (int t = 0; t < 256; t++)
            if (in[256 + t] <= 0)
                in[256 + t] = 1 + t;
        sc_run(&c);
        const int *o = sc_buf(&c, "out"), *ws = sc_buf(&c, "warp_sum");
        for (uint64_t b = 0; b < 3; b++) {
            int cnt = 0;
            for (int t = 0; t < 256; t++)
                cnt += in[b * 256 + (uint64_t)t] > 0;
            cr_assert_eq(o[b * 3 + 0], cnt);
            cr_assert_eq(o[b * 3 + 1], cnt == 256);
            cr_assert_eq(o[b * 3 + 2], cnt > 0);
        }
        for (uint64_t w = 0; w < threads_of(&c) / 32; w++) {
            int sum = 0;
            for (int l = 0; l < 32; l++)
                sum += in[w * 32 + (uint64_t)l];
            cr_assert_eq(ws[w], sum);
        }
        sc_close(&c);
    }
}

/* ---- memory spaces, calls, local arrays ------------------------------------------ */

Test(sim_corpus, device_func_noinline)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "device_func_noinline", s, false);
        sc_run(&c);
        const unsigned *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b"), *tr = sc_buf(&c, "triples"),
                       *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < (int)threads_of(&c); i++) {
            if (i >= n) {
                cr_assert_eq(o[i], 0u);
                continue;
            }
            unsigned x = a[i], y = b[i];
            while (y) {
                unsigned t = x % y;
                x = y;
                y = t;
            }
            unsigned v = (a[i] * b[i]) % 10007u, r = 0;
            while ((r + 1) * (r + 1) <= v)
                r++;
            unsigned e = x * 1000u + r + tr[3 * i] + tr[3 * i + 1] + tr[3 * i + 2];
            cr_assert_eq(o[i], e, "i=%d", i);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, templates)
{
    for (uint64_t s = 1; s <= 2; s++) {
        simcase c;
        sc_open(&c, "templates_int", s, false);
        sc_run(&c);
        const int *x = sc_buf(&c, "x"), *y = sc_buf(&c, "y"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < n; i++)
            cr_assert_eq(o[i], x[4 * i] * y[4 * i] + x[4 * i + 1] * y[4 * i + 1] + x[4 * i + 2] * y[4 * i + 2] +
                                   x[4 * i + 3] * y[4 * i + 3]);
        sc_close(&c);

        sc_open(&c, "templates_u64", s, false);
        sc_run(&c);
        const unsigned long long *ux = sc_buf(&c, "x"), *uy = sc_buf(&c, "y"), *uo = sc_buf(&c, "out");
        n = (int)sc_int(&c, "n");
        for (int i = 0; i < n; i++) {
            unsigned long long e = 0;
            for (int k = 0; k < 4; k++)
                e += ux[4 * i + k] * uy[4 * i + k];
            cr_assert_eq(uo[i], e);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, local_array)
{
    for (uint64_t s = 1; s <= SEEDS; s++) {
        simcase c;
        sc_open(&c, "local_array", s, false);
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out"), *pick = sc_buf(&c, "pick");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < n; i++) {
            int a[16];
            memcpy(a, in + i * 16, sizeof a);
            qsort(a, 16, sizeof *a, cmp_int);
            for (int k = 0; k < 16; k++)
                cr_assert_eq(o[i * 16 + k], a[k]);
            cr_assert_eq(pick[i], a[in[i * 16] & 15]);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, global_var)
{
    for (uint64_t s = 1; s <= 2; s++) {
        simcase c;
        sc_open(&c, "global_var", s, false);
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < (int)threads_of(&c); i++) {
            int k = in[i] & 15;
            cr_assert_eq(o[i], i < n ? k * k + 1000 : 0);
        }
        sc_close(&c);
    }
}

Test(sim_corpus, special_regs)
{
    simcase c;
    sc_open(&c, "special_regs", 1, false);
    sc_run(&c);
    const unsigned *o = sc_buf(&c, "out");
    const wh_launch *L = &c.img->launch;
    for (unsigned bz = 0; bz < L->grid[2]; bz++)
        for (unsigned by = 0; by < L->grid[1]; by++)
            for (unsigned bx = 0; bx < L->grid[0]; bx++)
                for (unsigned tz = 0; tz < L->block[2]; tz++)
                    for (unsigned ty = 0; ty < L->block[1]; ty++)
                        for (unsigned tx = 0; tx < L->block[0]; tx++) {
                            unsigned b = bx + L->grid[0] * (by + L->grid[1] * bz);
                            unsigned t = tx + L->block[0] * (ty + L->block[1] * tz);
                            unsigned bs = L->block[0] * L->block[1] * L->block[2];
                            const unsigned *r = o + (size_t)(b * bs + t) * 14;
                            unsigned e[14] = { tx, ty, tz, L->block[0], L->block[1], L->block[2],
                                               bx, by, bz, L->grid[0], L->grid[1], L->grid[2], t % 32, t / 32 };
                            for (int k = 0; k < 14; k++)
                                cr_assert_eq(r[k], e[k], "block %u thread %u reg %d", b, t, k);
                        }
    sc_close(&c);
}

Test(sim_corpus, index_2d)
{
    simcase c;
    sc_open(&c, "index_2d", 1, false);
    sc_run(&c);
    const float *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
    int rows = (int)sc_int(&c, "rows"), cols = (int)sc_int(&c, "cols");
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++)
            cr_assert_eq(o[x * rows + y], in[y * cols + x]);
    sc_close(&c);
}

Test(sim_corpus, pointer_arith64)
{
    simcase c;
    sc_open(&c, "pointer_arith64", 2, false);
    sc_run(&c);
    const float *base = sc_buf(&c, "base"), *o = sc_buf(&c, "out");
    const long long *offs = sc_buf(&c, "offs");
    int rows = (int)sc_int(&c, "rows"), cols = (int)sc_int(&c, "cols");
    long long pitch = sc_int(&c, "pitch");
    for (int r = 0; r < rows; r++) {
        const float *row = (const float *)((const char *)base + r * pitch);
        float sum = 0;
        for (int k = 0; k < cols; k++)
            sum += row[k];
        cr_assert_eq(o[r], sum, "row %d", r);
        cr_assert_eq(offs[r], r * pitch + (cols - 1) * 4);
    }
    sc_close(&c);
}
