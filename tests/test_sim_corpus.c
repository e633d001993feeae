/*
 * test_sim_corpus.c — the sim backend against C references on the PTX
 * corpus (tests/ptx/NAME.cu, specs in tests/specs/sim_NAME.json): integer
 * arithmetic, control flow, loops, shared memory and barriers, device
 * functions, local arrays, switches, special registers, memory spaces.
 * Every kernel runs on several random inputs (PCG32 seeds).  Float,
 * atomic and warp-level kernels are in test_sim_corpus_fp.c.
 */
#include "tests/sim_support.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- simple arithmetic and control flow -------------------------------------- */

Test(sim_corpus, vec_add)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("vec_add"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b"), *o = sc_buf(&c, "c");
        int n = (int)sc_int(&c, "n");
        for (uint64_t i = 0; i < sc_threads(&c); i++)
            cr_assert_eq(o[i], (int)i < n ? a[i] + b[i] : 0, "i=%llu", (unsigned long long)i);
    }
}

Test(sim_corpus, loops_for_while_do)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("sum_to"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *n = sc_buf(&c, "n"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++)
            cr_assert_eq(o[i], n[i] * (n[i] - 1) / 2);
    }
    while (sc_seeds(&c, SIM_CORPUS("collatz"), SIM_SEEDS, false)) {
        sc_run(&c);
        const unsigned *v = sc_buf(&c, "v");
        const int *st = sc_buf(&c, "steps");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            unsigned x = v[i];
            int k = 0;
            while (x > 1u && k < 1000) {
                x = (x & 1u) ? 3u * x + 1u : x >> 1;
                k++;
            }
            cr_assert_eq(st[i], k, "collatz(%u)", v[i]);
        }
    }
    while (sc_seeds(&c, SIM_CORPUS("digits"), SIM_SEEDS, false)) {
        sc_run(&c);
        const unsigned *v = sc_buf(&c, "v");
        const int *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            unsigned x = v[i];
            int d = 0;
            do {
                d++;
                x /= 10u;
            } while (x);
            cr_assert_eq(o[i], d);
        }
    }
}

Test(sim_corpus, loop_nested)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("loop_nested"), SIM_SEEDS, false)) {
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
    }
}

Test(sim_corpus, loop_unroll)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("loop_unroll"), SIM_SEEDS, false)) {
        sc_run(&c);
        const unsigned *in = sc_buf(&c, "in");
        const unsigned *f = sc_buf(&c, "out_full"), *four = sc_buf(&c, "out_four"), *one = sc_buf(&c, "out_one");
        int len = (int)sc_int(&c, "len");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
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
    }
}

Test(sim_corpus, loop_break_continue)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("loop_break_continue"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *rows = sc_buf(&c, "rows"), *o = sc_buf(&c, "out"), *sk = sc_buf(&c, "skipped");
        int len = (int)sc_int(&c, "len"), key = (int)sc_int(&c, "key");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
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
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("divergent_nested_if"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++)
            cr_assert_eq(o[i], classify(in[i]), "v=%d", in[i]);
    }
}

Test(sim_corpus, early_return)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("early_return"), SIM_SEEDS, false)) {
        int *in = sc_buf(&c, "in");
        in[0] = 0;
        in[1] = 64;
        in[2] = -7;
        in[3] = 96;
        sc_run(&c);
        const int *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < (int)sc_threads(&c); i++) {
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
    }
}

Test(sim_corpus, switch_dense)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("switch_dense"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *op = sc_buf(&c, "ops"), *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
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
    }
}

Test(sim_corpus, switch_sparse)
{
    static const int keys[] = { 3, 17, 100, 1000, 65536, -5, 4, 0 };
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("switch_sparse"), SIM_SEEDS, false)) {
        int *k = sc_buf(&c, "key");
        for (uint64_t i = 0; i < sc_threads(&c); i += 3)
            k[i] = keys[(i / 3) % 8];
        sc_run(&c);
        const int *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
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
    }
}

Test(sim_corpus, int_divmod)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("int_divmod"), SIM_SEEDS, false)) {
        int *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b");
        for (uint64_t i = 0; i < sc_threads(&c); i += 4)
            b[i] = -b[i];
        a[1] = INT_MIN;
        b[1] = 3;
        a[2] = INT_MAX;
        b[2] = -1;
        sc_run(&c);
        const long long *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
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
    }
}

Test(sim_corpus, int64_ops)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("int64_ops"), SIM_SEEDS, false)) {
        sc_run(&c);
        const long long *x = sc_buf(&c, "x"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
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
    }
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
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("bit_tricks"), SIM_SEEDS, false)) {
        unsigned *x = sc_buf(&c, "x");
        x[0] = 0;
        x[1] = 0;
        x[2] = 0x80000000u;
        x[3] = 32;
        sc_run(&c);
        const unsigned *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            unsigned a = x[2 * i], b = x[2 * i + 1], sh = b & 63u;
            unsigned long long ab = ((unsigned long long)a << 32) | b;
            unsigned long long lohi = ((unsigned long long)b << 32) | a;
            const unsigned *r = o + i * 12;
            cr_assert_eq(r[0], (unsigned)__builtin_popcount(a));
            cr_assert_eq(r[1], a ? (unsigned)__builtin_clz(a) : 32u);
            cr_assert_eq(r[2], (unsigned)__builtin_ffs((int)a));
            cr_assert_eq(r[3], tsim_brev32(a));
            cr_assert_eq(r[4], byte_perm(a, b, 0x5140u));
            cr_assert_eq(r[5], (unsigned)((lohi << (sh & 31)) >> 32), "funnelshift_l a %u b %u", a, b);
            cr_assert_eq(r[6], (unsigned)(lohi >> (sh & 31)), "funnelshift_r a %u b %u", a, b);
            cr_assert_eq(r[7], (unsigned)__builtin_popcountll(ab));
            cr_assert_eq(r[8], ab ? (unsigned)__builtin_clzll(ab) : 64u);
            cr_assert_eq(r[9], (unsigned)(((unsigned long long)a * b) >> 32));
            cr_assert_eq(r[10], (unsigned)(((long long)(int)a * (int)b) >> 32));
            cr_assert_eq(r[11], (a > b ? a - b : b - a) + sh);
        }
    }
}

Test(sim_corpus, minmax_abs_select)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("minmax_abs_select"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            int x = a[i], y = b[i];
            const int *r = o + i * 6;
            cr_assert_eq(r[0], x < y ? x : y);
            cr_assert_eq(r[1], x > y ? x : y);
            cr_assert_eq(r[2], abs(x));
            cr_assert_eq(r[3], (int)((unsigned)x < (unsigned)y ? (unsigned)x : (unsigned)y));
            cr_assert_eq(r[4], x < -100 ? -100 : (x > 100 ? 100 : x));
            cr_assert_eq(r[5], x > y ? x - y : y - x + 1);
        }
    }
}

Test(sim_corpus, char_short)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("char_short"), SIM_SEEDS, false)) {
        sc_run(&c);
        const unsigned char *rgba = sc_buf(&c, "rgba"), *gray = sc_buf(&c, "gray");
        const short *sh = sc_buf(&c, "s"), *h16 = sc_buf(&c, "hist16");
        const signed char *ch = sc_buf(&c, "c"), *sb = sc_buf(&c, "sb");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            const unsigned char *px = rgba + 4 * i;
            cr_assert_eq(gray[i], (unsigned char)((77u * px[0] + 150u * px[1] + 29u * px[2]) >> 8));
            int v = sh[i] * 3 - 1000;
            v = v < -32768 ? -32768 : (v > 32767 ? 32767 : v);
            cr_assert_eq(h16[i], (short)v);
            cr_assert_eq(sb[i], (signed char)(ch[i] / 2));
        }
    }
}

/* ---- shared memory and barriers -------------------------------------------------- */

Test(sim_corpus, reduce_shared)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("reduce_shared"), SIM_SEEDS, false)) {
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
    }
}

Test(sim_corpus, reduce_dynamic_shared)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("reduce_dynamic_shared"), SIM_SEEDS, false)) {
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
    }
}

Test(sim_corpus, scan_shared)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("scan_shared"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        int bs = (int)c.img->launch.block[0];
        for (int i = 0; i < (int)sc_threads(&c); i++) {
            int sum = 0;
            for (int j = i - i % bs; j <= i; j++)
                sum += in[j];
            cr_assert_eq(o[i], i < n ? sum : 0, "i=%d", i);
        }
    }
}

Test(sim_corpus, matmul_tiled)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("matmul_tiled"), 2, false)) {
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
    }
}

/* out (cols x rows) is in (rows x cols) transposed. */
static void check_transposed(simcase *c)
{
    const float *in = sc_buf(c, "in"), *o = sc_buf(c, "out");
    int rows = (int)sc_int(c, "rows"), cols = (int)sc_int(c, "cols");
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++)
            cr_assert_eq(o[x * rows + y], in[y * cols + x]);
}

Test(sim_corpus, transpose_shared_padded)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("transpose_shared_padded"), 2, false)) {
        sc_run(&c);
        check_transposed(&c);
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

Test(sim_corpus, bitonic_sort_shared)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("bitonic_sort_shared"), 2, true)) {
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
    }
}

Test(sim_corpus, sync_variants)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("sync_variants"), SIM_SEEDS, false)) {
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
        for (uint64_t w = 0; w < sc_threads(&c) / 32; w++) {
            int sum = 0;
            for (int l = 0; l < 32; l++)
                sum += in[w * 32 + (uint64_t)l];
            cr_assert_eq(ws[w], sum);
        }
    }
}

/* ---- memory spaces, calls, local arrays ------------------------------------------ */

Test(sim_corpus, device_func_noinline)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("device_func_noinline"), SIM_SEEDS, false)) {
        sc_run(&c);
        const unsigned *a = sc_buf(&c, "a"), *b = sc_buf(&c, "b"), *tr = sc_buf(&c, "triples"),
                       *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < (int)sc_threads(&c); i++) {
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
    }
}

Test(sim_corpus, templates)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("templates_int"), 2, false)) {
        sc_run(&c);
        const int *x = sc_buf(&c, "x"), *y = sc_buf(&c, "y"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < n; i++)
            cr_assert_eq(o[i], x[4 * i] * y[4 * i] + x[4 * i + 1] * y[4 * i + 1] + x[4 * i + 2] * y[4 * i + 2] +
                                   x[4 * i + 3] * y[4 * i + 3]);
    }
    while (sc_seeds(&c, SIM_CORPUS("templates_u64"), 2, false)) {
        sc_run(&c);
        const unsigned long long *ux = sc_buf(&c, "x"), *uy = sc_buf(&c, "y"), *uo = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < n; i++) {
            unsigned long long e = 0;
            for (int k = 0; k < 4; k++)
                e += ux[4 * i + k] * uy[4 * i + k];
            cr_assert_eq(uo[i], e);
        }
    }
}

Test(sim_corpus, local_array)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("local_array"), SIM_SEEDS, false)) {
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
    }
}

Test(sim_corpus, global_var)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("global_var"), 2, false)) {
        sc_run(&c);
        const int *in = sc_buf(&c, "in"), *o = sc_buf(&c, "out");
        int n = (int)sc_int(&c, "n");
        for (int i = 0; i < (int)sc_threads(&c); i++) {
            int k = in[i] & 15;
            cr_assert_eq(o[i], i < n ? k * k + 1000 : 0);
        }
    }
}

Test(sim_corpus, special_regs)
{
    simcase c;
    sc_open(&c, SIM_CORPUS("special_regs"), 1, false);
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
    sc_open(&c, SIM_CORPUS("index_2d"), 1, false);
    sc_run(&c);
    check_transposed(&c);
    sc_close(&c);
}

Test(sim_corpus, pointer_arith64)
{
    simcase c;
    sc_open(&c, SIM_CORPUS("pointer_arith64"), 2, false);
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

/* ---- a struct passed by value ------------------------------------------------- */

/* The kernel's struct, to check the spec's layout of a struct scalar. */
struct byval_config {
    float scale;
    float offset;
    int lo;
    int hi;
    double unused_pad;
    char tag;
};

Test(sim_corpus, struct_byval)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_CORPUS("struct_byval"), SIM_SEEDS, false)) {
        sc_run(&c);
        const struct byval_config *cfg = sc_buf(&c, "cfg");
        cr_assert_eq(sizeof *cfg, 32);
        cr_assert_eq(cfg->scale, 1.5f);
        cr_assert_eq(cfg->offset, -2.25f);
        cr_assert_eq(cfg->lo, -100);
        cr_assert_eq(cfg->hi, 200, "an expression over the launch: blocks*100");
        cr_assert_eq(cfg->tag, 3);
        const int *in = sc_buf(&c, "in"), *out = sc_buf(&c, "out");
        const signed char *flags = sc_buf(&c, "flags");
        int n = (int)sc_int(&c, "n");
        for (uint64_t i = 0; i < sc_threads(&c); i++) {
            if ((int)i >= n) {
                cr_assert_eq(out[i], 0);
                continue;
            }
            int v = (int)(cfg->scale * (float)in[i] + cfg->offset);
            v = v < cfg->lo ? cfg->lo : v > cfg->hi ? cfg->hi : v;
            cr_assert_eq(out[i], v, "i=%llu in=%d", (unsigned long long)i, in[i]);
            cr_assert_eq(flags[i], (signed char)(cfg->tag + (v == cfg->hi)));
        }
    }
}
