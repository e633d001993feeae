/*
 * test_sim_timing.c — properties of the sim backend's timing model on the
 * bundled ground-truth kernels: the paper's Fig. 1(a) (divergent warps cost
 * more than uniform ones) and Fig. 1(b) / Listing 1 (every thread on the
 * atomic leg is the worst), coalesced < strided < random gathers, bank
 * conflicts, loop trip counts, and determinism.
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
#include <unistd.h>

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
    snprintf(path, sizeof path, "kernels/%s.json", name);
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

/* Cycles of one run of `name` after `fill` set its input. */
typedef void (*fill_fn)(simcase *c, uint64_t arg);

static uint64_t cycles_of(const char *name, fill_fn fill, uint64_t arg)
{
    simcase c;
    sc_open(&c, name, 1, false);
    if (fill)
        fill(&c, arg);
    sc_run(&c);
    uint64_t cy = c.res.cycles;
    if (getenv("SIM_TIMING_VERBOSE"))
        fprintf(stderr, "%-10s arg %-4llu: %llu cycles, %llu warp instructions\n", name, (unsigned long long)arg,
                (unsigned long long)cy, (unsigned long long)c.res.warp_instructions);
    sc_close(&c);
    return cy;
}

/* fig1a / fig1b / artificial: arg 0 = no 7s, 1 = all 7s, 2 = one 7 per warp (lane 3),
 * 3 = half of each warp 7s, 4 = random (as drawn) */
static void fill_sevens(simcase *c, uint64_t mode)
{
    const char *name = c->spec->params[0].name;
    int *v = sc_buf(c, name);
    for (uint64_t t = 0; t < threads_of(c); t++) {
        switch (mode) {
        case 0: v[t] = v[t] == 7 ? 8 : v[t]; break;
        case 1: v[t] = 7; break;
        case 2: v[t] = (t % 32 == 3) ? 7 : (v[t] == 7 ? 8 : v[t]); break;
        case 3: v[t] = (t % 32 < 16) ? 7 : 9; break;
        default: break;
        }
    }
}

Test(sim_timing, fig1a_divergence_costs_more)
{
    uint64_t none = cycles_of("fig1a", fill_sevens, 0);
    uint64_t all = cycles_of("fig1a", fill_sevens, 1);
    uint64_t one = cycles_of("fig1a", fill_sevens, 2);
    uint64_t half = cycles_of("fig1a", fill_sevens, 3);
    /* uniform warps issue one leg, divergent warps both: t1 + t2 > t1 > t2 */
    cr_assert_gt(all, none, "t1 (%llu) > t2 (%llu)", (unsigned long long)all, (unsigned long long)none);
    cr_assert_gt(one, all, "divergent (%llu) > uniform t1 (%llu)", (unsigned long long)one, (unsigned long long)all);
    cr_assert_gt(half, all);
}

Test(sim_timing, fig1b_all_on_the_atomic_leg_is_worst)
{
    uint64_t none = cycles_of("fig1b", fill_sevens, 0);
    uint64_t all = cycles_of("fig1b", fill_sevens, 1);
    uint64_t one = cycles_of("fig1b", fill_sevens, 2);
    uint64_t half = cycles_of("fig1b", fill_sevens, 3);
    uint64_t rnd = cycles_of("fig1b", fill_sevens, 4);
    cr_assert_gt(all, half, "all 7 (%llu) > half (%llu)", (unsigned long long)all, (unsigned long long)half);
    cr_assert_gt(half, one);
    cr_assert_gt(all, 2 * one, "no divergence but serialized atomics dominate");
    cr_assert_geq(one, none);
    cr_assert_gt(all, rnd);
}

Test(sim_timing, artificial_listing1_worst_case)
{
    uint64_t rnd = cycles_of("artificial", fill_sevens, 4);
    uint64_t one = cycles_of("artificial", fill_sevens, 2);
    uint64_t half = cycles_of("artificial", fill_sevens, 3);
    uint64_t all = cycles_of("artificial", fill_sevens, 1);
    cr_assert_gt(all, half, "all 7 (%llu) > half (%llu)", (unsigned long long)all, (unsigned long long)half);
    cr_assert_gt(all, one);
    cr_assert_gt(all, rnd);
}

/* gt_gather: 0 coalesced idx = tid, 1 strided idx = 2 tid, 2 one sector per lane idx = 8 tid,
 * 3 random (as drawn), 4 all equal */
static void fill_gather(simcase *c, uint64_t mode)
{
    int *idx = sc_buf(c, "idx");
    for (uint64_t t = 0; t < threads_of(c); t++) {
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
    uint64_t coal = cycles_of("gt_gather", fill_gather, 0);
    uint64_t strided = cycles_of("gt_gather", fill_gather, 1);
    uint64_t sector = cycles_of("gt_gather", fill_gather, 2);
    uint64_t rnd = cycles_of("gt_gather", fill_gather, 3);
    uint64_t same = cycles_of("gt_gather", fill_gather, 4);
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
    for (uint64_t t = 0; t < threads_of(c); t++)
        col[t] = mode == 0 ? (int)(t % 32) : mode == 1 ? 9 : (int)(t % 2);
}

Test(sim_timing, bank_conflicts_cost_more)
{
    uint64_t free_ = cycles_of("gt_bank", fill_bank, 0);
    uint64_t two = cycles_of("gt_bank", fill_bank, 2);
    uint64_t all = cycles_of("gt_bank", fill_bank, 1);
    cr_assert_lt(free_, two, "conflict-free %llu < 16-way %llu", (unsigned long long)free_, (unsigned long long)two);
    cr_assert_lt(two, all, "16-way %llu < 32-way %llu", (unsigned long long)two, (unsigned long long)all);
    cr_assert_gt(all, 4 * free_, "32-way conflicts dominate the kernel");
}

/* gt_loop: every n = arg */
static void fill_loop(simcase *c, uint64_t n)
{
    int *v = sc_buf(c, "n");
    for (uint64_t t = 0; t < threads_of(c); t++)
        v[t] = (int)n;
}

/* one lane per warp runs `arg` iterations, the others none */
static void fill_loop_one_lane(simcase *c, uint64_t n)
{
    int *v = sc_buf(c, "n");
    for (uint64_t t = 0; t < threads_of(c); t++)
        v[t] = t % 32 == 7 ? (int)n : 0;
}

Test(sim_timing, more_iterations_cost_more)
{
    uint64_t prev = 0;
    for (uint64_t n = 0; n <= 64; n += 16) {
        uint64_t cy = cycles_of("gt_loop", fill_loop, n);
        cr_assert_gt(cy, prev, "n = %llu: %llu cycles, not more than %llu", (unsigned long long)n,
                     (unsigned long long)cy, (unsigned long long)prev);
        prev = cy;
    }
    /* a warp runs as long as its longest lane */
    uint64_t one = cycles_of("gt_loop", fill_loop_one_lane, 64);
    uint64_t all = cycles_of("gt_loop", fill_loop, 64);
    uint64_t zero = cycles_of("gt_loop", fill_loop, 0);
    cr_assert_gt(one, zero + (all - zero) / 2);
}

Test(sim_timing, gt_atomic_same_key_serialises)
{
    simcase c;
    uint64_t cy[2];
    for (int mode = 0; mode < 2; mode++) {
        sc_open(&c, "gt_atomic", 1, false);
        int *key = sc_buf(&c, "key");
        for (uint64_t t = 0; t < threads_of(&c); t++)
            key[t] = mode == 0 ? (int)(t % 1024) : 77;
        sc_run(&c);
        cy[mode] = c.res.cycles;
        sc_close(&c);
    }
    cr_assert_gt(cy[1], 4 * cy[0], "all keys equal %llu vs distinct %llu", (unsigned long long)cy[1],
                 (unsigned long long)cy[0]);
}

Test(sim_timing, gt_paths32_distinct_leaves_per_warp)
{
    uint64_t cy[3];
    for (int mode = 0; mode < 3; mode++) {
        simcase c;
        sc_open(&c, "gt_paths32", 1, false);
        unsigned *sel = sc_buf(&c, "sel");
        for (uint64_t t = 0; t < threads_of(&c); t++)
            sel[t] = mode == 0 ? 3u : mode == 1 ? (unsigned)(t % 4) : (unsigned)(t % 32);
        sc_run(&c);
        cy[mode] = c.res.cycles;
        sc_close(&c);
    }
    cr_assert_lt(cy[0], cy[1]);
    cr_assert_lt(cy[1], cy[2]);
}

Test(sim_timing, identical_inputs_identical_cycles)
{
    static const char *names[] = { "artificial", "gt_hash", "lbm", "bfs1", "gt_atomic" };
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
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = wh_spec_load("tests/specs/sim_loop_break_continue.json", &err);
    cr_assert(spec, "%s", err.msg);
    char ptx[4096];
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err)) {
        wh_spec_free(spec);
        cr_skip_test("loop_break_continue PTX not built: run make ptx");
    }
    wh_launch L = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &L, &err);
    pcg32 rng;
    pcg32_seed(&rng, 9, 9);
    cr_assert(wh_image_fill_random(img, &rng, &err));
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_outputs = true;
    o.profile_path = profile;
    harness *h = harness_open(spec, HARNESS_SIM, &o, &err);
    cr_assert(h, "%s", err.msg);
    harness_result res;
    cr_assert(harness_measure(h, img, 1, &res, &err));
    cr_assert_eq(res.status, HARNESS_OK, "%s", res.message);
    *warp = res.warp_instructions;
    *cycles = res.cycles;
    int k = wh_image_find(img, "out");
    *n = img->bufs[k].bytes;
    *out = malloc(*n);
    memcpy(*out, img->bufs[k].data, *n);
    harness_result_free(&res);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(spec);
}

Test(sim_timing, reconvergence_merge_option)
{
    char path[] = "/tmp/wh_sim_profXXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *text = "{ \"control\": { \"reconvergence\": \"ipdom+merge\" } }";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
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
    unlink(path);
}

Test(sim_timing, repeated_runs_in_one_harness_are_identical)
{
    /* the backend reuses device memory and blocks between runs: no state leaks */
    static const char *names[] = { "gt_hash", "bfs1", "lbm" };
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
