/*
 * test_sim_timing.c — properties of the sim backend's timing model on the
 * bundled ground-truth kernels: the paper's Fig. 1(a) (divergent warps cost
 * more than uniform ones) and Fig. 1(b) / Listing 1 (every thread on the
 * atomic leg is the worst), coalesced < strided < random gathers, bank
 * conflicts, loop trip counts, and determinism.
 */
#include "tests/sim_support.h"
#include "harness/sim/sim.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cycles of one run of the spec at `path` (seed 1) after `fill` set its input. */
typedef void (*fill_fn)(simcase *c, uint64_t arg);

static uint64_t cycles_of(const char *path, fill_fn fill, uint64_t arg)
{
    simcase c;
    sc_open(&c, path, 1, false);
    if (fill)
        fill(&c, arg);
    sc_run(&c);
    uint64_t cy = c.res.cycles;
    if (getenv("SIM_TIMING_VERBOSE"))
        fprintf(stderr, "%-10s arg %-4llu: %llu cycles, %llu warp instructions\n", c.spec->name,
                (unsigned long long)arg, (unsigned long long)cy, (unsigned long long)c.res.warp_instructions);
    sc_close(&c);
    return cy;
}

/* fig1a / fig1b / artificial: arg 0 = no 7s, 1 = all 7s, 2 = one 7 per warp (lane 3),
 * 3 = half of each warp 7s, 4 = random (as drawn) */
static void fill_sevens(simcase *c, uint64_t mode)
{
    const char *name = c->spec->params[0].name;
    int *v = sc_buf(c, name);
    for (uint64_t t = 0; t < sc_threads(c); t++) {
        switch (mode) {
        case 0: v[t] = v[t] == 7 ? 8 : v[t]; break;
        case 1: v[t] = 7; break;
        case 2: v[t] = (t % 32 == 3) ? 7 : (v[t] == 7 ? 8 : v[t]); break;
        case 3: v[t] = (t % 32 < 16) ? 7 : 9; break;
        default: break;
        }
    }
}

/* The cycles of a "sevens" kernel under each fill_sevens mode. */
typedef struct {
    uint64_t none, all, one, half, rnd;
} sevens_cycles;

static sevens_cycles cycles_of_sevens(const char *path)
{
    sevens_cycles cy;
    cy.none = cycles_of(path, fill_sevens, 0);
    cy.all = cycles_of(path, fill_sevens, 1);
    cy.one = cycles_of(path, fill_sevens, 2);
    cy.half = cycles_of(path, fill_sevens, 3);
    cy.rnd = cycles_of(path, fill_sevens, 4);
    return cy;
}

/* Listing 1: every thread on the atomic leg is the worst input. */
static void assert_all_sevens_worst(const sevens_cycles *cy)
{
    cr_assert_gt(cy->all, cy->half, "all 7 (%llu) > half (%llu)", (unsigned long long)cy->all,
                 (unsigned long long)cy->half);
    cr_assert_gt(cy->all, cy->one);
    cr_assert_gt(cy->all, cy->rnd);
}

Test(sim_timing, fig1a_divergence_costs_more)
{
    sevens_cycles cy = cycles_of_sevens(SIM_KERNEL("fig1a"));
    /* uniform warps issue one leg, divergent warps both: t1 + t2 > t1 > t2 */
    cr_assert_gt(cy.all, cy.none, "t1 (%llu) > t2 (%llu)", (unsigned long long)cy.all, (unsigned long long)cy.none);
    cr_assert_gt(cy.one, cy.all, "divergent (%llu) > uniform t1 (%llu)", (unsigned long long)cy.one,
                 (unsigned long long)cy.all);
    cr_assert_gt(cy.half, cy.all);
}

Test(sim_timing, fig1b_all_on_the_atomic_leg_is_worst)
{
    sevens_cycles cy = cycles_of_sevens(SIM_KERNEL("fig1b"));
    assert_all_sevens_worst(&cy);
    cr_assert_gt(cy.half, cy.one);
    cr_assert_gt(cy.all, 2 * cy.one, "no divergence but serialized atomics dominate");
    cr_assert_geq(cy.one, cy.none);
}

Test(sim_timing, artificial_listing1_worst_case)
{
    sevens_cycles cy = cycles_of_sevens(SIM_KERNEL("artificial"));
    assert_all_sevens_worst(&cy);
}

/* gt_gather: 0 coalesced idx = tid, 1 strided idx = 2 tid, 2 one sector per lane idx = 8 tid,
 * 3 random (as drawn), 4 all equal */
static void fill_gather(simcase *c, uint64_t mode)
{
    int *idx = sc_buf(c, "idx");
    for (uint64_t t = 0; t < sc_threads(c); t++) {
        switch (mode) {
        case 0: idx[t] = (int)t; break;
        case 1: idx[t] = (int)(2 * t); break;
        case 2: idx[t] = (int)(8 * t); break;
        case 4: idx[t] = 5; break;
        default: break;
        }
    }
}

Test(sim_timing, gather_coalesced_strided_random)
{
    uint64_t coal = cycles_of(SIM_KERNEL("gt_gather"), fill_gather, 0);
    uint64_t strided = cycles_of(SIM_KERNEL("gt_gather"), fill_gather, 1);
    uint64_t sector = cycles_of(SIM_KERNEL("gt_gather"), fill_gather, 2);
    uint64_t rnd = cycles_of(SIM_KERNEL("gt_gather"), fill_gather, 3);
    uint64_t same = cycles_of(SIM_KERNEL("gt_gather"), fill_gather, 4);
    cr_assert_lt(coal, strided, "coalesced %llu < strided %llu", (unsigned long long)coal,
                 (unsigned long long)strided);
    cr_assert_lt(strided, rnd, "strided %llu < random %llu", (unsigned long long)strided, (unsigned long long)rnd);
    cr_assert_geq(sector, rnd, "a sector per lane, none reused (%llu) is the worst (random %llu)",
                  (unsigned long long)sector, (unsigned long long)rnd);
    cr_assert_lt(same, strided, "all lanes on one sector is cheap (broadcast)");
}

/* gt_bank: 0 conflict-free col = tid % 32, 1 all equal (32-way), 2 two columns per warp (16-way) */
static void fill_bank(simcase *c, uint64_t mode)
{
    int *col = sc_buf(c, "col");
    for (uint64_t t = 0; t < sc_threads(c); t++)
        col[t] = mode == 0 ? (int)(t % 32) : mode == 1 ? 9 : (int)(t % 2);
}

Test(sim_timing, bank_conflicts_cost_more)
{
    uint64_t free_ = cycles_of(SIM_KERNEL("gt_bank"), fill_bank, 0);
    uint64_t two = cycles_of(SIM_KERNEL("gt_bank"), fill_bank, 2);
    uint64_t all = cycles_of(SIM_KERNEL("gt_bank"), fill_bank, 1);
    cr_assert_lt(free_, two, "conflict-free %llu < 16-way %llu", (unsigned long long)free_, (unsigned long long)two);
    cr_assert_lt(two, all, "16-way %llu < 32-way %llu", (unsigned long long)two, (unsigned long long)all);
    cr_assert_gt(all, 4 * free_, "32-way conflicts dominate the kernel");
}

/* gt_loop: every n = arg */
static void fill_loop(simcase *c, uint64_t n)
{
    int *v = sc_buf(c, "n");
    for (uint64_t t = 0; t < sc_threads(c); t++)
        v[t] = (int)n;
}

/* one lane per warp runs `arg` iterations, the others none */
static void fill_loop_one_lane(simcase *c, uint64_t n)
{
    int *v = sc_buf(c, "n");
    for (uint64_t t = 0; t < sc_threads(c); t++)
        v[t] = t % 32 == 7 ? (int)n : 0;
}

Test(sim_timing, more_iterations_cost_more)
{
    uint64_t prev = 0;
    for (uint64_t n = 0; n <= 64; n += 16) {
        uint64_t cy = cycles_of(SIM_KERNEL("gt_loop"), fill_loop, n);
        cr_assert_gt(cy, prev, "n = %llu: %llu cycles, not more than %llu", (unsigned long long)n,
                     (unsigned long long)cy, (unsigned long long)prev);
        prev = cy;
    }
    /* a warp runs as long as its longest lane */
    uint64_t one = cycles_of(SIM_KERNEL("gt_loop"), fill_loop_one_lane, 64);
    uint64_t all = cycles_of(SIM_KERNEL("gt_loop"), fill_loop, 64);
    uint64_t zero = cycles_of(SIM_KERNEL("gt_loop"), fill_loop, 0);
    cr_assert_gt(one, zero + (all - zero) / 2);
}

/* gt_atomic: 0 distinct keys key = tid % 1024, 1 every key 77 */
/* 0: consecutive keys (a warp's 32 counters in 4 sectors), 1: all equal,
 * 2: a warp's 32 keys 8 counters apart (32 sectors), 3: every lane of
 * warp w on counter w % 32 (one line), 4: on counter 32 (w % 32) (a line
 * each) */
static void fill_atomic_keys(simcase *c, uint64_t mode)
{
    int *key = sc_buf(c, "key");
    for (uint64_t t = 0; t < sc_threads(c); t++) {
        uint64_t w = t / 32 % 32;
        key[t] = mode == 0 ? (int)(t % 1024) : mode == 1 ? 77 : mode == 2 ? (int)(t * 8 % 1024 + t / 128 % 8)
                 : (int)(mode == 3 ? w : 32 * w);
    }
}

/* The L2 applies a request's atomics on one sector together: 32 distinct
 * counters cost more spread over 32 sectors than packed in 4. */
Test(sim_timing, gt_atomic_scattered_sectors_cost_more_than_packed_ones)
{
    uint64_t packed = cycles_of(SIM_KERNEL("gt_atomic"), fill_atomic_keys, 0);
    uint64_t scattered = cycles_of(SIM_KERNEL("gt_atomic"), fill_atomic_keys, 2);
    cr_assert_gt(scattered, packed, "32 sectors %llu vs 4 %llu", (unsigned long long)scattered,
                 (unsigned long long)packed);
}

/* The spec at `path` filled from `seed` on the sim with the profile at
 * `profile` (NULL: built-in). */
static void open_with_profile(simcase *c, const char *path, uint64_t seed, const char *profile, bool want_outputs)
{
    sc_load(c, path, true);
    sc_fill(c, seed, seed);
    harness_options o = sc_options(want_outputs);
    o.profile_path = profile;
    cr_assert(sc_attach(c, &o), "%s", c->err.msg);
}

/* A profile of `text` in a new directory from `dir` (a mkdtemp template):
 * its path into `path`. */
static void profile_file(char *dir, const char *text, char *path, size_t n)
{
    tsim_mkdtemp(dir);
    tsim_write(dir, "p.json", text);
    snprintf(path, n, "%s/p.json", dir);
}

/* Cycles of gt_atomic with the sim profile at `profile` (NULL: built-in)
 * after fill_atomic_keys set its keys. */
static uint64_t atomic_cycles_with(const char *profile, uint64_t mode)
{
    simcase c;
    open_with_profile(&c, SIM_KERNEL("gt_atomic"), 1, profile, false);
    fill_atomic_keys(&c, mode);
    sc_run(&c);
    uint64_t cy = c.res.cycles;
    sc_close(&c);
    return cy;
}

/* memory.atomic_unit_bytes: atomics queue per unit of that many bytes, a
 * request's words in one unit applied together.  Every warp's 32 lanes on
 * counter w % 32 (32 words of one 128-byte line): per word (the built-in
 * 4) the 32 queues run side by side, far faster than every key on one
 * word; per 128-byte unit they share one queue and take about as long. */
Test(sim_timing, atomics_on_one_unit_share_its_queue)
{
    char dir[] = "/tmp/wh_sim_unitXXXXXX", path[300];
    profile_file(dir, "{ \"memory\": { \"atomic_unit_bytes\": 128 } }", path, sizeof path);
    uint64_t word_line = atomic_cycles_with(NULL, 3), word_one = atomic_cycles_with(NULL, 1);
    uint64_t unit_line = atomic_cycles_with(path, 3), unit_one = atomic_cycles_with(path, 1);
    uint64_t unit_spread = atomic_cycles_with(path, 4);
    cr_expect_lt(4 * word_line, word_one, "per word: 32 words of a line %llu, one word %llu",
                 (unsigned long long)word_line, (unsigned long long)word_one);
    cr_expect_gt(2 * unit_line, unit_one, "per line: 32 words of a line %llu, one word %llu",
                 (unsigned long long)unit_line, (unsigned long long)unit_one);
    cr_expect_lt(4 * unit_spread, unit_one, "per line, each warp's word in a line of its own: %llu",
                 (unsigned long long)unit_spread);
    ts_rmtree(dir);
}

Test(sim_timing, gt_atomic_same_key_serialises)
{
    uint64_t distinct = cycles_of(SIM_KERNEL("gt_atomic"), fill_atomic_keys, 0);
    uint64_t same = cycles_of(SIM_KERNEL("gt_atomic"), fill_atomic_keys, 1);
    cr_assert_gt(same, 4 * distinct, "all keys equal %llu vs distinct %llu", (unsigned long long)same,
                 (unsigned long long)distinct);
}

/* gt_paths32: 0 one leaf for every thread, 1 four leaves per warp, 2 32 leaves per warp */
static void fill_paths(simcase *c, uint64_t mode)
{
    unsigned *sel = sc_buf(c, "sel");
    for (uint64_t t = 0; t < sc_threads(c); t++)
        sel[t] = mode == 0 ? 3u : mode == 1 ? (unsigned)(t % 4) : (unsigned)(t % 32);
}

Test(sim_timing, gt_paths32_distinct_leaves_per_warp)
{
    uint64_t cy[3];
    for (uint64_t mode = 0; mode < 3; mode++)
        cy[mode] = cycles_of(SIM_KERNEL("gt_paths32"), fill_paths, mode);
    cr_assert_lt(cy[0], cy[1]);
    cr_assert_lt(cy[1], cy[2]);
}

Test(sim_timing, identical_inputs_identical_cycles)
{
    static const char *names[] = { SIM_KERNEL("artificial"), SIM_KERNEL("gt_hash"), SIM_KERNEL("lbm"),
                                   SIM_KERNEL("bfs1"), SIM_KERNEL("gt_atomic") };
    for (int k = 0; k < 5; k++) {
        uint64_t first = 0;
        for (int rep = 0; rep < 3; rep++) {
            simcase c;
            sc_open(&c, names[k], 42, false);
            sc_run(&c);
            if (rep == 0)
                first = c.res.cycles;
            else
                cr_assert_eq(c.res.cycles, first, "%s: run %d gave %llu, run 0 %llu", names[k], rep,
                             (unsigned long long)c.res.cycles, (unsigned long long)first);
            sc_close(&c);
        }
    }
}

/* The reconvergence option: same results, fewer issued instructions when a
 * loop with a `break` diverges. */
static void run_with_profile(const char *profile, uint64_t *warp, uint64_t *cycles, int **out, size_t *n)
{
    simcase c;
    open_with_profile(&c, SIM_CORPUS("loop_break_continue"), 9, profile, true);
    sc_run(&c);
    *warp = c.res.warp_instructions;
    *cycles = c.res.cycles;
    int k = wh_image_find(c.img, "out");
    cr_assert(k >= 0, "no buffer out");
    *n = c.img->bufs[k].bytes;
    *out = malloc(*n);
    memcpy(*out, c.img->bufs[k].data, *n);
    sc_close(&c);
}

Test(sim_timing, reconvergence_merge_option)
{
    char dir[] = "/tmp/wh_sim_profXXXXXX", path[300];
    profile_file(dir, "{ \"control\": { \"reconvergence\": \"ipdom+merge\" } }", path, sizeof path);
    uint64_t w1, c1, w2, c2;
    int *o1, *o2;
    size_t n1, n2;
    run_with_profile(NULL, &w1, &c1, &o1, &n1);
    run_with_profile(path, &w2, &c2, &o2, &n2);
    cr_assert_eq(n1, n2);
    cr_assert(memcmp(o1, o2, n1) == 0, "the reconvergence policy must not change results");
    cr_assert_lt(w2 * 2, w1, "merging: %llu warp instructions, plain ipdom %llu", (unsigned long long)w2,
                 (unsigned long long)w1);
    cr_assert_lt(c2, c1);
    free(o1);
    free(o2);
    ts_rmtree(dir);
}

Test(sim_timing, repeated_runs_in_one_harness_are_identical)
{
    /* the backend reuses device memory and blocks between runs: no state leaks */
    static const char *names[] = { SIM_KERNEL("gt_hash"), SIM_KERNEL("bfs1"), SIM_KERNEL("lbm") };
    for (int k = 0; k < 3; k++) {
        simcase c;
        sc_open(&c, names[k], 5, true);
        uint8_t *first = NULL;
        size_t bytes = 0;
        uint64_t cycles = 0;
        int ob = -1;
        for (int i = 0; i < c.img->nbufs; i++)
            if (c.img->spec->params[i].role == WH_ROLE_OUTPUT)
                ob = i;
        cr_assert(ob >= 0);
        /* keep the inputs: want_all_buffers copies every buffer back */
        wh_error err;
        wh_image *pristine = wh_image_clone(c.img, &err);
        for (int rep = 0; rep < 3; rep++) {
            for (int i = 0; i < c.img->nbufs; i++)
                memcpy(c.img->bufs[i].data, pristine->bufs[i].data, c.img->bufs[i].bytes);
            sc_run(&c);
            if (rep == 0) {
                cycles = c.res.cycles;
                bytes = c.img->bufs[ob].bytes;
                first = malloc(bytes);
                memcpy(first, c.img->bufs[ob].data, bytes);
            } else {
                cr_assert_eq(c.res.cycles, cycles, "%s run %d", names[k], rep);
                cr_assert(memcmp(first, c.img->bufs[ob].data, bytes) == 0, "%s run %d outputs", names[k], rep);
            }
        }
        free(first);
        wh_image_free(pristine);
        sc_close(&c);
    }
}

/* ---- the bandwidth bins ------------------------------------------------------- */

/* Bookings serialise at the bandwidth, and the bins kept stay within
 * SIM_BW_MAX_BINS however far simulated time runs (a runaway loop used to
 * grow them without bound: a gigabyte after 1e8 warp instructions). */
Test(sim_timing, bandwidth_bins_serialise_and_stay_bounded)
{
    sim_bw b;
    sim_bw_init(&b, 64, 2.0); /* 128 sectors per 64-cycle bin */
    /* (Criterion's macros may evaluate their arguments twice: book first.) */
    double first = sim_bw_take(&b, 0, 64);
    cr_expect_float_eq(first, 32.0, 1e-9, "64 sectors at 2 per cycle: %g", first);
    double second = sim_bw_take(&b, 0, 128);
    cr_expect_float_eq(second, 96.0, 1e-9, "queued behind the first booking: %g", second);
    double t = 0;
    for (int k = 0; k < 4000; k++) {
        t += 64.0 * 1000; /* a thousand bins later each time: 4e6 bins in all */
        double done = sim_bw_take(&b, t, 64);
        cr_assert_float_eq(done, t + 32.0, 1e-6, "booking %d: %g", k, done);
        cr_assert_leq(b.n, SIM_BW_MAX_BINS, "booking %d: %zu bins kept", k, b.n);
    }
    cr_expect_gt(b.base, 0, "the window slid");
    /* A booking older than the window is served from the window's start. */
    double start = (double)b.base * 64;
    double old = sim_bw_take(&b, 0, 1);
    cr_expect_geq(old, start, "served no earlier than the window: %g", old);
    sim_bw_free(&b);
}

/* --sim-noise: each repetition scaled by 1 + sigma z, z standard normal;
 * unbiased, with the asked spread, reproducible by seed, off by default. */
static harness_result noisy_measure(const wh_spec *s, const wh_image *img, double sigma, uint64_t seed, int reps)
{
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.sim_noise = sigma;
    o.noise_seed = seed;
    wh_error err;
    harness *h = harness_open(s, HARNESS_SIM, &o, &err);
    cr_assert(h, "%s", err.msg);
    harness_result r;
    cr_assert(harness_measure(h, (wh_image *)img, reps, &r, &err), "%s", err.msg);
    harness_close(h);
    return r;
}

Test(sim_timing, emulated_noise_is_unbiased_seeded_and_off_by_default)
{
    simcase c;
    sc_open(&c, "kernels/fig1a.json", 1, false);
    harness_result r0 = noisy_measure(c.spec, c.img, 0, 1, 50);
    double exact = r0.mean;
    cr_expect_eq(r0.stddev, 0, "no noise unless asked");
    harness_result a = noisy_measure(c.spec, c.img, 0.05, 7, 4000);
    harness_result b = noisy_measure(c.spec, c.img, 0.05, 7, 4000);
    harness_result d = noisy_measure(c.spec, c.img, 0.05, 8, 4000);
    cr_expect(fabs(a.mean / exact - 1) < 0.005, "mean %g, exact %g", a.mean, exact);
    cr_expect(fabs(a.stddev / exact - 0.05) < 0.005, "relative spread %g", a.stddev / exact);
    cr_expect_eq(memcmp(a.times, b.times, 4000 * sizeof *a.times), 0, "the same seed, the same draws");
    cr_expect_neq(memcmp(a.times, d.times, 4000 * sizeof *a.times), 0, "another seed, other draws");
    cr_expect_eq(a.cycles, r0.cycles, "the counters stay exact");
    harness_result_free(&r0);
    harness_result_free(&a);
    harness_result_free(&b);
    harness_result_free(&d);
    wh_error err;
    harness_options o;
    harness_options_init(&o);
    o.sim_noise = 0.1;
    cr_expect_null(harness_open(c.spec, HARNESS_CUDA, &o, &err), "noise is the sim's only");
    cr_expect(strstr(err.msg, "sim backend"), "%s", err.msg);
    sc_close(&c);
}
