/*
 * test_sim_kernels.c — the sim backend against C references on the bundled
 * kernels (kernels/NAME.json): artificial, fig1a, fig1b, the gt_* ground
 * truths, bfs1/bfs2, lbm (a C port of the whole step, floats within a
 * tolerance) and nsichneu (the Petri net regenerated from the generator's
 * LCG, kernels/gen_nsichneu.py).  Racy kernels (gt_hash, bfs1) are checked
 * through the invariants every interleaving keeps.
 */
#include "core/pcg32.h"
#include "tests/sim_support.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(sim_kernels, artificial)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("artificial"), SIM_SEEDS, false)) {
        int *v = sc_buf(&c, "values");
        for (int t = 0; t < 256; t += 3)   /* block 0: many threads on the atomic leg */
            v[t] = 7;
        sc_run(&c);
        const int *r = sc_buf(&c, "result");
        uint64_t n = sc_count(&c, "result");
        int *e = calloc(n, sizeof *e);
        for (uint64_t t = 0; t < sc_threads(&c); t++) {
            if (v[t] == 7)
                e[t / 256] += 56;
            else
                e[t] += 10;
        }
        for (uint64_t i = 0; i < n; i++)
            cr_assert_eq(r[i], e[i], "result[%llu]", (unsigned long long)i);
        free(e);
    }
}

Test(sim_kernels, fig1a)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("fig1a"), SIM_SEEDS, false)) {
        int *in = sc_buf(&c, "input");
        for (int t = 0; t < 64; t += 5)
            in[t] = 7;
        sc_run(&c);
        const unsigned *o = sc_buf(&c, "out");
        unsigned a = (unsigned)sc_int(&c, "a"), b = (unsigned)sc_int(&c, "b");
        for (uint64_t t = 0; t < sc_threads(&c); t++) {
            unsigned r;
            if (in[t] == 7) {
                r = a;
                for (unsigned k = 0; k < 16; k++)
                    r = r * b + k;
            } else {
                r = (unsigned)in[t] ^ a;
                r = r + (r << 3);
                r = r ^ (r >> 5);
                r = r + b;
                r = r ^ (r << 7);
                r = r + (r >> 11);
            }
            cr_assert_eq(o[t], r, "t=%llu", (unsigned long long)t);
        }
    }
}

Test(sim_kernels, fig1b)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("fig1b"), SIM_SEEDS, false)) {
        int *in = sc_buf(&c, "input");
        for (int t = 0; t < 300; t += 7)
            in[t] = 7;
        sc_run(&c);
        const int *acc = sc_buf(&c, "acc"), *o = sc_buf(&c, "out");
        int sum = 0;
        for (uint64_t t = 0; t < sc_threads(&c); t++) {
            int v = in[t];
            if (v == 7) {
                sum += v + (int)t;
                cr_assert_eq(o[t], 0);
            } else {
                int r = v * 3 + 1;
                r ^= r << 4;
                r += (int)t;
                cr_assert_eq(o[t], r);
            }
        }
        cr_assert_eq(acc[0], sum);
    }
}

Test(sim_kernels, gt_atomic)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("gt_atomic"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *key = sc_buf(&c, "key"), *acc = sc_buf(&c, "acc");
        int e[1024] = { 0 };
        for (uint64_t t = 0; t < sc_threads(&c); t++)
            e[key[t]]++;
        for (int k = 0; k < 1024; k++)
            cr_assert_eq(acc[k], e[k]);
    }
}

Test(sim_kernels, gt_bank_and_gather)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("gt_bank"), SIM_SEEDS, false)) {
        sc_run(&c);
        const unsigned *o = sc_buf(&c, "out");
        for (uint64_t t = 0; t < sc_threads(&c); t++)
            cr_assert_eq(o[t], 1u);   /* column c is updated once, in round 0, by r + 1 */
    }
    while (sc_seeds(&c, SIM_KERNEL("gt_gather"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *idx = sc_buf(&c, "idx"), *g = sc_buf(&c, "out");
        for (uint64_t t = 0; t < sc_threads(&c); t++)
            cr_assert_eq(g[t], idx[t] + 1);
    }
}

Test(sim_kernels, gt_hash)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("gt_hash"), 4, false)) {
        unsigned *key = sc_buf(&c, "key");
        if (c.seed == 2)   /* the worst case: one home slot for every key */
            for (uint64_t t = 0; t < sc_threads(&c); t++)
                key[t] = 5 + 4096u * (unsigned)(t + 1);
        if (c.seed == 3)   /* all keys equal */
            for (uint64_t t = 0; t < sc_threads(&c); t++)
                key[t] = 12345;
        sc_run(&c);
        const unsigned *table = sc_buf(&c, "table");
        const int *slot = sc_buf(&c, "slot_of"), *probes = sc_buf(&c, "probes");
        for (uint64_t t = 0; t < sc_threads(&c); t++) {
            cr_assert(slot[t] >= 0 && slot[t] < 4096);
            cr_assert_eq(table[slot[t]], key[t]);
            int home = (int)(key[t] & 4095u);
            cr_assert_eq(probes[t], ((slot[t] - home) & 4095) + 1);
        }
        int used = 0;
        for (int k = 0; k < 4096; k++)
            used += table[k] != 0;
        int distinct = 0;
        for (uint64_t t = 0; t < sc_threads(&c); t++) {
            bool first = true;
            for (uint64_t u = 0; u < t && first; u++)
                first = key[u] != key[t];
            distinct += first;
        }
        cr_assert_eq(used, distinct);
    }
}

Test(sim_kernels, gt_loop)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("gt_loop"), SIM_SEEDS, false)) {
        sc_run(&c);
        const int *n = sc_buf(&c, "n");
        const unsigned *o = sc_buf(&c, "out");
        unsigned seed = (unsigned)sc_int(&c, "seed");
        for (uint64_t t = 0; t < sc_threads(&c); t++) {
            unsigned x = seed ^ (unsigned)t;
            for (int i = 0; i < n[t]; i++) {
                x = x * 1664525u + 1013904223u;
                x ^= x >> 13;
                x += (unsigned)i;
            }
            cr_assert_eq(o[t], x);
        }
    }
}

/* gt_paths32: the template tree of kernels/gt_paths32.cu, written as C recursion. */
static unsigned paths_work(int code, unsigned x)
{
    const unsigned k = 0x9E3779B9u * (unsigned)(code + 1);
    int shape = code & 3;
    for (int s = 0; s < 8; s++) {
        if (shape == 0)
            x = x * (k | 1u) + (unsigned)s;
        else if (shape == 1)
            x = (x ^ (x >> ((s % 7) + 3))) + k;
        else if (shape == 2)
            x = (x << 5) - x + (k >> s);
        else
            x = (x ^ k) * 0x85EBCA6Bu + (unsigned)(s * code);
    }
    return x;
}

static unsigned paths_go(int level, int code, unsigned v, unsigned x)
{
    if (level < 0)
        return x ^ (unsigned)code;
    int next = (v & (1u << level)) ? 2 * code + 1 : 2 * code;
    return paths_go(level - 1, next, v, paths_work(next, x));
}

Test(sim_kernels, gt_paths32)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("gt_paths32"), 2, false)) {
        unsigned *sel = sc_buf(&c, "sel");
        for (int t = 0; t < 32; t++)   /* warp 0: all 32 leaves */
            sel[t] = (unsigned)t;
        sc_run(&c);
        const unsigned *o = sc_buf(&c, "out");
        unsigned seed = (unsigned)sc_int(&c, "seed");
        for (uint64_t t = 0; t < sc_threads(&c); t++)
            cr_assert_eq(o[t], paths_go(4, 1, sel[t], seed ^ (unsigned)t), "t=%llu sel=%u", (unsigned long long)t,
                         sel[t]);
    }
}

typedef struct {
    int start, n_edges;
} bfs_node;

Test(sim_kernels, bfs)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("bfs1"), SIM_SEEDS, true)) {
        const bfs_node *nodes = sc_buf(&c, "nodes");
        const int *edges = sc_buf(&c, "edges");
        unsigned char *mask = sc_buf(&c, "mask");
        const unsigned char *visited = sc_buf(&c, "visited");
        uint64_t n = sc_threads(&c);
        unsigned char *mask0 = malloc(n);
        memcpy(mask0, mask, n);
        sc_run(&c);
        const unsigned char *upd = sc_buf(&c, "updating");
        const int *cost = sc_buf(&c, "cost");
        unsigned char *reached = calloc(n, 1);
        for (uint64_t t = 0; t < n; t++) {
            if (!mask0[t])
                continue;
            cr_assert_eq(mask[t], 0);
            for (int e = nodes[t].start; e < nodes[t].start + nodes[t].n_edges; e++)
                if (!visited[edges[e]])
                    reached[edges[e]] = 1;
        }
        for (uint64_t t = 0; t < n; t++) {
            cr_assert_eq(upd[t], reached[t], "updating[%llu]", (unsigned long long)t);
            if (reached[t])   /* racy: cost[tid] may have been raised by another thread */
                cr_assert(cost[t] >= 1, "cost[%llu] = %d", (unsigned long long)t, cost[t]);
            else
                cr_assert_eq(cost[t], 0);
            if (!mask0[t])
                cr_assert_eq(mask[t], 0);
        }
        free(mask0);
        free(reached);
    }
    while (sc_seeds(&c, SIM_KERNEL("bfs2"), SIM_SEEDS, true)) {
        uint64_t n = sc_threads(&c);
        unsigned char *u2 = sc_buf(&c, "updating");
        unsigned char *u20 = malloc(n);
        memcpy(u20, u2, n);
        sc_run(&c);
        const unsigned char *m2 = sc_buf(&c, "mask"), *v2 = sc_buf(&c, "visited");
        const int *over = sc_buf(&c, "over");
        int any = 0;
        for (uint64_t t = 0; t < n; t++) {
            cr_assert_eq(m2[t], u20[t]);
            cr_assert_eq(v2[t], u20[t]);
            cr_assert_eq(u2[t], 0);
            any |= u20[t];
        }
        cr_assert_eq(over[0], any);
        free(u20);
    }
}

/* ---- lbm: a C port of kernels/lbm.cu --------------------------------------------- */

static float lbm_feq(float w, float cx, float cy, float rho, float ux, float uy)
{
    float cu = 3.0f * (cx * ux + cy * uy);
    float uu = 1.5f * (ux * ux + uy * uy);
    return w * rho * (1.0f + cu + 0.5f * cu * cu - uu);
}

static float lbm_pull(const float *f_in, const int *flags, int N, int cell, int src, int q, int opp, float cx,
                      float cy, float *fx, float *fy, int *contacts)
{
    if (flags[src] == 1) {
        float v = f_in[opp * N + cell];
        float m = 2.0f * v + f_in[q * N + cell];
        *fx -= cx * m;
        *fy -= cy * m;
        *contacts += 1;
        return v;
    }
    return f_in[q * N + src];
}

static void lbm_cell(const float *f_in, float *f_out, float *force, const int *flags, int nx, int ny,
                     float omega, float u_in, float accel, int cell)
{
    const float W0 = 4.0f / 9.0f, W1 = 1.0f / 9.0f, W2 = 1.0f / 36.0f;
    int N = nx * ny;
    int x = cell % nx, y = cell / nx;
    int xe = (x + 1 == nx) ? 0 : x + 1, xw = (x == 0) ? nx - 1 : x - 1;
    int yn = (y + 1 == ny) ? 0 : y + 1, ys = (y == 0) ? ny - 1 : y - 1;
    int type = flags[cell];
    float f[9], fx = 0, fy = 0;
    int contacts = 0;
    if (type == 1) {
        static const int src[9] = { 0, 3, 4, 1, 2, 7, 8, 5, 6 };
        for (int q = 0; q < 9; q++)
            f[q] = f_in[src[q] * N + cell];
    } else if (type == 3) {
        int w = y * nx + xw;
        for (int q = 0; q < 9; q++)
            f[q] = f_in[q * N + w];
    } else {
        f[0] = f_in[cell];
        f[1] = lbm_pull(f_in, flags, N, cell, y * nx + xw, 1, 3, -1, 0, &fx, &fy, &contacts);
        f[2] = lbm_pull(f_in, flags, N, cell, ys * nx + x, 2, 4, 0, -1, &fx, &fy, &contacts);
        f[3] = lbm_pull(f_in, flags, N, cell, y * nx + xe, 3, 1, 1, 0, &fx, &fy, &contacts);
        f[4] = lbm_pull(f_in, flags, N, cell, yn * nx + x, 4, 2, 0, 1, &fx, &fy, &contacts);
        f[5] = lbm_pull(f_in, flags, N, cell, ys * nx + xw, 5, 7, -1, -1, &fx, &fy, &contacts);
        f[6] = lbm_pull(f_in, flags, N, cell, ys * nx + xe, 6, 8, 1, -1, &fx, &fy, &contacts);
        f[7] = lbm_pull(f_in, flags, N, cell, yn * nx + xe, 7, 5, 1, 1, &fx, &fy, &contacts);
        f[8] = lbm_pull(f_in, flags, N, cell, yn * nx + xw, 8, 6, -1, 1, &fx, &fy, &contacts);
    }
    if (type == 4) {
        float rho_w = f[0] + f[1] + f[3] + 2.0f * (f[2] + f[5] + f[6]);
        f[4] = f[2];
        f[7] = f[5] - rho_w * u_in / 6.0f;
        f[8] = f[6] + rho_w * u_in / 6.0f;
    } else if (type == 5) {
        f[2] = f[4];
        f[5] = f[7];
        f[6] = f[8];
    }
    if (type == 1) {
    } else if (type == 6) {
        f[0] = W0;
        f[1] = f[2] = f[3] = f[4] = W1;
        f[5] = f[6] = f[7] = f[8] = W2;
    } else {
        float rho = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] + f[8];
        if (rho < 1e-3f)
            rho = 1e-3f;
        float ux = (f[1] + f[5] + f[8] - f[3] - f[6] - f[7]) / rho;
        float uy = (f[2] + f[5] + f[6] - f[4] - f[7] - f[8]) / rho;
        if (type == 2) {
            ux = u_in;
            uy = 0;
        }
        float u2 = ux * ux + uy * uy;
        if (u2 > 0.3f) {
            float sc = sqrtf(0.3f / u2);
            ux *= sc;
            uy *= sc;
        }
        static const float cx[9] = { 0, 1, 0, -1, 0, 1, -1, -1, 1 }, cy[9] = { 0, 0, 1, 0, -1, 1, 1, -1, -1 };
        const float wq[9] = { W0, W1, W1, W1, W1, W2, W2, W2, W2 };
        float e[9];
        for (int q = 0; q < 9; q++)
            e[q] = lbm_feq(wq[q], cx[q], cy[q], rho, ux, uy);
        for (int q = 0; q < 9; q++)
            f[q] = type == 2 ? e[q] : f[q] - omega * (f[q] - e[q]);
        if (type == 7) {
            float a = 3.0f * rho * accel;
            f[1] += W1 * a;
            f[3] -= W1 * a;
            f[5] += W2 * a;
            f[8] += W2 * a;
            f[6] -= W2 * a;
            f[7] -= W2 * a;
        }
    }
    for (int q = 0; q < 9; q++)
        f_out[q * N + cell] = f[q];
    if (contacts > 0) {
        force[2 * cell] = fx;
        force[2 * cell + 1] = fy;
    }
}

Test(sim_kernels, lbm)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("lbm"), 2, false)) {
        float *f_in = sc_buf(&c, "f_in");
        /* perturb the uniform state so that every leg computes something distinct */
        pcg32 rng;
        pcg32_seed(&rng, c.seed, 5);
        for (uint64_t i = 0; i < sc_count(&c, "f_in"); i++)
            f_in[i] = 0.11111111f * (0.8f + 0.4f * (float)pcg32_double(&rng));
        sc_run(&c);
        int nx = (int)sc_int(&c, "nx"), ny = (int)sc_int(&c, "ny"), N = nx * ny;
        const int *flags = sc_buf(&c, "flags");
        const float *f_out = sc_buf(&c, "f_out"), *force = sc_buf(&c, "force");
        float *ef = calloc((size_t)N * 9, sizeof *ef), *eforce = calloc((size_t)N * 2, sizeof *eforce);
        for (int cell = 0; cell < N; cell++)
            lbm_cell(f_in, ef, eforce, flags, nx, ny, 1.7f, 0.05f, 0.001f, cell);
        for (int i = 0; i < 9 * N; i++)
            cr_assert(fabsf(f_out[i] - ef[i]) <= 1e-6f + 1e-5f * fabsf(ef[i]), "f_out[%d] = %g, want %g (type %d)",
                      i, f_out[i], ef[i], flags[i % N]);
        for (int i = 0; i < 2 * N; i++)
            cr_assert(fabsf(force[i] - eforce[i]) <= 1e-6f + 1e-5f * fabsf(eforce[i]), "force[%d]", i);
        free(ef);
        free(eforce);
    }
}

/* ---- nsichneu: the net read back from kernels/nsichneu.cu ---------------------------
 *
 * The kernel is generated (kernels/gen_nsichneu.py): a sequence of guarded
 * transitions `if (TERM && TERM ...) { STMT; ... }` inside the steps loop.
 * The reference parses those blocks from the .cu source and interprets
 * them on each thread's marking: terms are sums of `m[P]` and integer
 * literals compared with > < >= <= == !=; statements are `m[P] += E;`,
 * `m[P] -= E;` with E a literal or `m[Q] & 1`, `fired++;` and
 * `trace = trace * 33u + Ku;`.  A line of another shape fails the test. */

typedef struct {
    int lhs[3], nl;     /* operands: >= 0 a place, < 0 the literal -(op + 1) */
    int op;
    int rhs[3], nr;
} ns_term;

typedef struct {
    int kind, place, src, lit;   /* kind 0 m[place] += lit, 1 m[place] += m[src] & 1, 2 fired, 3 trace */
} ns_stmt;

typedef struct {
    int nterms;
    ns_term term[8];
    int nstmts;
    ns_stmt stmt[16];
} ns_trans;

static int ns_operand(const char **pp)
{
    const char *p = *pp;
    while (*p == ' ')
        p++;
    int v;
    int n = 0;
    if (sscanf(p, "m[%d]%n", &v, &n) == 1 && n > 0) {
        *pp = p + n;
        return v;
    }
    if (sscanf(p, "%d%n", &v, &n) == 1 && n > 0) {
        *pp = p + n;
        return -(v + 1);
    }
    return -1000000;
}

static int ns_side(const char **pp, int *ops)
{
    int n = 0;
    for (;;) {
        int o = ns_operand(pp);
        if (o == -1000000 || n == 3)
            return -1;
        ops[n++] = o;
        const char *p = *pp;
        while (*p == ' ')
            p++;
        if (*p != '+')
            return n;
        *pp = p + 1;
    }
}

static bool ns_parse_cond(const char *cond, ns_trans *t)
{
    const char *p = cond;
    t->nterms = 0;
    while (*p) {
        if (t->nterms == 8)
            return false;
        ns_term *tm = &t->term[t->nterms++];
        tm->nl = ns_side(&p, tm->lhs);
        if (tm->nl < 0)
            return false;
        while (*p == ' ')
            p++;
        static const char *ops[] = { ">=", "<=", "==", "!=", ">", "<" };
        int k;
        for (k = 0; k < 6; k++)
            if (!strncmp(p, ops[k], strlen(ops[k])))
                break;
        if (k == 6)
            return false;
        tm->op = k;
        p += strlen(ops[k]);
        tm->nr = ns_side(&p, tm->rhs);
        if (tm->nr < 0)
            return false;
        while (*p == ' ')
            p++;
        if (!strncmp(p, "&&", 2))
            p += 2;
        else if (*p)
            return false;
    }
    return t->nterms > 0;
}

static bool ns_parse_stmt(const char *line, ns_trans *t)
{
    if (t->nstmts == 16)
        return false;
    ns_stmt *s = &t->stmt[t->nstmts];
    int a, b, n = 0;
    char sign;
    if (sscanf(line, " m[%d] += m[%d] & 1;%n", &a, &b, &n) == 2 && n > 0) {
        *s = (ns_stmt){ 1, a, b, 0 };
    } else if (sscanf(line, " m[%d] %c= %d;%n", &a, &sign, &b, &n) == 3 && n > 0 && (sign == '+' || sign == '-')) {
        *s = (ns_stmt){ 0, a, 0, sign == '-' ? -b : b };
    } else if (strstr(line, "fired++;")) {
        *s = (ns_stmt){ 2, 0, 0, 0 };
    } else if (sscanf(line, " trace = trace * 33u + %du;%n", &a, &n) == 1 && n > 0) {
        *s = (ns_stmt){ 3, 0, 0, a };
    } else {
        return false;
    }
    t->nstmts++;
    return true;
}

/* Transitions of kernels/nsichneu.cu in order; returns their number or -1. */
static int ns_read(const char *path, ns_trans *tr, int max, char *bad, size_t nbad)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(bad, nbad, "cannot open %.200s", path);
        return -1;
    }
    char line[1024];
    bool in_loop = false;
    int n = -1;
    bool in_body = false;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ')
            p++;
        if (!in_loop) {
            if (strstr(p, "for (int s = 0; s < steps; s++)"))
                in_loop = true;
            continue;
        }
        if (!strncmp(p, "if (", 4)) {
            char *end = strstr(p, ") {");
            if (!end || ++n >= max)
                break;
            *end = 0;
            memset(&tr[n], 0, sizeof tr[n]);
            if (!ns_parse_cond(p + 4, &tr[n])) {
                snprintf(bad, nbad, "cannot parse the guard: %.200s", p + 4);
                fclose(f);
                return -1;
            }
            in_body = true;
        } else if (in_body && *p == '}') {
            in_body = false;
        } else if (in_body) {
            if (!ns_parse_stmt(p, &tr[n])) {
                snprintf(bad, nbad, "cannot parse the statement: %.200s", p);
                fclose(f);
                return -1;
            }
        } else if (*p == '}' && n >= 0) {
            break;   /* end of the steps loop */
        }
    }
    fclose(f);
    return n + 1;
}

static int ns_value(const int *ops, int n, const int *m)
{
    int v = 0;
    for (int i = 0; i < n; i++)
        v += ops[i] >= 0 ? m[ops[i]] : -ops[i] - 1;
    return v;
}

static bool ns_enabled(const ns_trans *t, const int *m)
{
    for (int i = 0; i < t->nterms; i++) {
        int l = ns_value(t->term[i].lhs, t->term[i].nl, m), r = ns_value(t->term[i].rhs, t->term[i].nr, m);
        bool ok;
        switch (t->term[i].op) {
        case 0: ok = l >= r; break;
        case 1: ok = l <= r; break;
        case 2: ok = l == r; break;
        case 3: ok = l != r; break;
        case 4: ok = l > r; break;
        default: ok = l < r; break;
        }
        if (!ok)
            return false;
    }
    return true;
}

Test(sim_kernels, nsichneu)
{
    static ns_trans net[1024];
    char bad[512] = "";
    int nt = ns_read("kernels/nsichneu.cu", net, 1024, bad, sizeof bad);
    cr_assert(nt > 100, "kernels/nsichneu.cu: %s", bad);
    simcase c = { 0 };
    while (sc_seeds(&c, SIM_KERNEL("nsichneu"), 2, false)) {
        int *mk = sc_buf(&c, "marking");
        for (int p = 0; p < 64; p++)   /* thread 0: a rich marking */
            mk[p] = 3;
        sc_run(&c);
        const int *out = sc_buf(&c, "out");
        const unsigned *trace = sc_buf(&c, "trace");
        int steps = (int)sc_int(&c, "steps");
        uint64_t total_fired = 0;
        for (uint64_t t = 0; t < sc_threads(&c); t++) {
            int m[64];
            memcpy(m, mk + t * 64, sizeof m);
            unsigned tr = 0;
            int fired = 0;
            for (int st = 0; st < steps; st++)
                for (int k = 0; k < nt; k++) {
                    if (!ns_enabled(&net[k], m))
                        continue;
                    for (int i = 0; i < net[k].nstmts; i++) {
                        const ns_stmt *x = &net[k].stmt[i];
                        switch (x->kind) {
                        case 0: m[x->place] += x->lit; break;
                        case 1: m[x->place] += m[x->src] & 1; break;
                        case 2: fired++; break;
                        default: tr = tr * 33u + (unsigned)x->lit; break;
                        }
                    }
                }
            total_fired += (uint64_t)fired;
            for (int p = 0; p < 64; p++)
                cr_assert_eq(out[t * 64 + (uint64_t)p], m[p], "thread %llu place %d", (unsigned long long)t, p);
            cr_assert_eq(trace[t], tr ^ (unsigned)fired, "thread %llu", (unsigned long long)t);
        }
        cr_assert_gt(total_fired, 0);
    }
}
