/*
 * test_running_sum.c — running sums ("prefix_sum_of"): a buffer, or a
 * struct field, that is the running sum of another, as a packed CSR row
 * start is of the row lengths.  The spec refuses what cannot hold; random
 * images have it; the projection keeps the summands where the total fits
 * and lowers the last ones where it does not, once; a broken sum is named
 * by element; the symbolic stage assumes it (every atom of a CSR BFS
 * holds it and replays); every strategy's best input has it.
 * tests/specs/csr_sssp.json (on buffers) and csr_bfs.json (on fields).
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "gen/explore.h"
#include "tests/support.h"

#include <stdio.h>
#include <string.h>

#define SSSP "tests/specs/csr_sssp.json"
#define BFS "tests/specs/csr_bfs.json"

/* Field f of element e of buffer p. */
static int64_t at(const wh_image *img, int p, int f, uint64_t e)
{
    const wh_param *par = img->bufs[p].param;
    return wh_value_get_int(par->fields[f].type, img->bufs[p].data + e * par->elem_size + par->fields[f].offset);
}

/* Field df of buffer dp is lo plus the running sum of field sf of buffer
 * sp, the total at most hi; checked here element by element. */
static bool is_running_sum(const wh_image *img, int dp, int df, int sp, int sf, int64_t lo, int64_t hi)
{
    int64_t run = lo;
    for (uint64_t e = 0; e < img->bufs[dp].count; e++) {
        if (at(img, dp, df, e) != run) return false;
        run += at(img, sp, sf, e);
    }
    return run <= hi;
}

/* A spec of two input buffers, s (summed) and r (their sum), whose JSON
 * members follow "name"; grid 1 x block 4. */
static void expect_refused(const char *r_members, const char *s_members, const char *msg, const char *path)
{
    char json[1400], dir[64];
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],\"params\":["
             "{\"name\":\"r\",%s},{\"name\":\"s\",%s}]}", r_members, s_members);
    wh_error err;
    wh_spec *spec = ts_temp_spec(json, dir, &err);
    wh_image *img = NULL;
    if (spec) {
        wh_launch l = wh_spec_launch_full(spec);
        img = wh_image_new(spec, &l, &err);
    }
    cr_expect_null(img, "%s / %s was accepted", r_members, s_members);
    if (!img) {
        cr_expect(strstr(err.msg, msg), "%s: %s", r_members, err.msg);
        cr_expect_str_eq(err.path, path, "%s", r_members);
    }
    wh_image_free(img);
    wh_spec_free(spec);
    ts_rmtree(dir);
}

#define SUMMED "\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,8]"

Test(running_sum, what_cannot_hold_is_refused_with_its_place)
{
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,32],"
                   "\"prefix_sum_of\":\"t\"", SUMMED, "no parameter or global \"t\"", "$.params[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,32],"
                   "\"prefix_sum_of\":\"r\"", SUMMED, "its own running sum", "$.params[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\","
                   "\"prefix_sum_of\":\"s\"", SUMMED, "needs a \"range\"", "$.params[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"f32\",\"count\":4,\"role\":\"input\",\"range\":[0,32],"
                   "\"prefix_sum_of\":\"s\"", SUMMED, "a running sum is an integer", "$.params[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,32],"
                   "\"prefix_sum_of\":\"s\"", "\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"output\"",
                   "\"s\" is not an input buffer", "$.params[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,32],"
                   "\"structure\":\"sorted\",\"prefix_sum_of\":\"s\"", SUMMED, "no other \"structure\"",
                   "$.params[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,\"i\"],"
                   "\"prefix_sum_of\":\"s\"", SUMMED, "does not depend on i", "$.params[0].prefix_sum_of");
    /* at the launch: counts that differ, a summand that may be negative,
     * four summands of at least 5 past the sum's high end 10 */
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,32],"
                   "\"prefix_sum_of\":\"s\"", "\"kind\":\"buffer\",\"type\":\"i32\",\"count\":5,\"role\":\"input\"",
                   "4 elements, but what it sums has 5", "$.params[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,32],"
                   "\"prefix_sum_of\":\"s\"",
                   "\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[-1,8]",
                   "may be negative", "$.params[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[0,10],"
                   "\"prefix_sum_of\":\"s\"",
                   "\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\",\"range\":[5,8]",
                   "4 summands of at least 5 pass the range's high end 10", "$.params[0].prefix_sum_of");
    /* on fields */
    expect_refused("\"kind\":\"buffer\",\"type\":\"struct\",\"count\":4,\"role\":\"input\",\"fields\":["
                   "{\"name\":\"start\",\"type\":\"i32\",\"range\":[0,32],\"prefix_sum_of\":\"len\"},"
                   "{\"name\":\"n\",\"type\":\"i32\",\"range\":[0,8]}]", SUMMED, "no field \"len\"",
                   "$.params[0].fields[0].prefix_sum_of");
    expect_refused("\"kind\":\"buffer\",\"type\":\"struct\",\"count\":4,\"role\":\"input\",\"fields\":["
                   "{\"name\":\"start\",\"type\":\"i32\",\"count\":2,\"range\":[0,32],\"prefix_sum_of\":\"n\"},"
                   "{\"name\":\"n\",\"type\":\"i32\",\"range\":[0,8]}]", SUMMED, "an array field cannot",
                   "$.params[0].fields[0].prefix_sum_of");
}

static wh_image *random_image(const wh_spec *s, uint64_t seed)
{
    wh_error err;
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, seed, 3);
    cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
    return img;
}

/* Random images have the sum, on buffers and on fields; the check agrees. */
Test(running_sum, random_images_have_it)
{
    wh_error err;
    wh_spec *sssp = wh_spec_load(SSSP, &err), *bfs = wh_spec_load(BFS, &err);
    cr_assert(sssp && bfs, "%s", err.msg);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        wh_image *a = random_image(sssp, seed), *b = random_image(bfs, seed);
        uint64_t n = a->bufs[0].count;
        cr_expect(is_running_sum(a, 0, 0, 1, 0, 0, (int64_t)n * 8), "seed %llu: row_start", (unsigned long long)seed);
        cr_expect(is_running_sum(b, 0, 0, 0, 1, 0, (int64_t)n * 8), "seed %llu: nodes.start", (unsigned long long)seed);
        cr_expect(wh_image_check_structure(a, 0, &err), "%s", err.msg);
        cr_expect(wh_image_check_structure(b, 0, &err), "%s", err.msg);
        wh_image_free(a);
        wh_image_free(b);
    }
    wh_spec_free(sssp);
    wh_spec_free(bfs);
}

/* Summands that fit are kept; where the total would pass the range's high
 * end the summand is lowered to what is left; projecting again changes
 * nothing; a broken sum is named by its element. */
Test(running_sum, the_projection_keeps_what_fits_and_lowers_the_rest)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SSSP, &err);
    cr_assert(s, "%s", err.msg);
    wh_image *img = random_image(s, 1);
    uint64_t n = img->bufs[0].count;   /* 256 nodes, 2048 edge slots */
    for (uint64_t e = 0; e < n; e++)
        wh_value_set_int(WH_I32, img->bufs[1].data + 4 * e, e < 60 ? 32 : 3);
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    cr_expect(is_running_sum(img, 0, 0, 1, 0, 0, 2048));
    for (uint64_t e = 0; e < 60; e++) cr_expect_eq(at(img, 1, 0, e), 32, "degree %llu kept", (unsigned long long)e);
    cr_expect_eq(at(img, 0, 0, 60), 1920);
    int64_t total = 1920;
    for (uint64_t e = 60; e < n; e++) total += at(img, 1, 0, e);
    cr_expect_eq(total, 2048, "the last degrees lowered to fill the 2048 slots exactly");
    cr_expect_eq(at(img, 1, 0, n - 1), 0);
    wh_image *again = wh_image_clone(img, &err);
    cr_assert(again && wh_image_restructure(again, &err), "%s", err.msg);
    cr_expect_eq(memcmp(again->bufs[0].data, img->bufs[0].data, img->bufs[0].bytes), 0, "idempotent");
    cr_expect_eq(memcmp(again->bufs[1].data, img->bufs[1].data, img->bufs[1].bytes), 0, "idempotent");
    wh_value_set_int(WH_I32, img->bufs[0].data + 4 * 2, 5);
    cr_expect_not(wh_image_check_structure(img, 0, &err));
    cr_expect(strstr(err.msg, "element 2 is 5, not 64 (the sum before it)"), "%s", err.msg);
    wh_image_free(again);
    wh_image_free(img);
    wh_spec_free(s);
}

/* The symbolic stage assumes the sum: every atom of the CSR BFS has its
 * nodes' starts summing their edge counts, and replays its path. */
Test(running_sum, the_symbolic_stage_assumes_it, .timeout = 240)
{
    wh_error err;
    wh_spec *s = wh_spec_load(BFS, &err);
    cr_assert(s, "%s", err.msg);
    ts_need_ptx("build/ptx/kernels/bfs.ptx");
    char cache[64];
    gen_result *r = ts_explore(s, 20, cache);
    cr_expect_null(r->unassumed);
    cr_expect_gt(r->pool.natoms, 0);
    cr_expect_eq(r->atoms_invalid, 0, "every atom replays its path on the sim");
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        cr_expect(is_running_sum(img, 0, 0, 0, 1, 0, (int64_t)r->x * 8), "atom %d", a);
    }
    wh_image_free(img);
    gen_result_free(r);
    wh_spec_free(s);
    ts_rmtree(cache);
}

/* Whatever the strategy builds, the input it keeps has the sum (best/
 * loads, its structure checked, and is checked here again). */
Test(running_sum, every_strategy_keeps_it, .timeout = 240)
{
    static const char *const strategies[] = { "gdivan", "random-ga", "random" };
    wh_error err;
    wh_spec *s = wh_spec_load(SSSP, &err);
    cr_assert(s, "%s", err.msg);
    ts_need_ptx("build/ptx/kernels/corpus/sssp_relax.ptx");
    for (int k = 0; k < 3; k++) {
        wh_image *img = ts_hunt_best(s, strategies[k], "40");
        cr_expect(is_running_sum(img, 0, 0, 1, 0, 0, (int64_t)img->bufs[0].count * 8), "%s's best", strategies[k]);
        wh_image_free(img);
    }
    wh_spec_free(s);
}
