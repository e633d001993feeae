/*
 * test_scalar_search.c — searched scalars (a scalar with a "range" instead
 * of a "value"): the spec says what it accepts, images start at the range's
 * low end and fill it at random, the symbolic stage reads the scalar as a
 * symbol (one path per trip count of a loop it bounds, each atom carrying
 * its count, replayed on the sim), and the search sets it.  Then "step"
 * beside a range (values lo + k*step), on the scalar and on a buffer.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/image.h"
#include "core/spec.h"
#include "gen/explore.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPEC "tests/specs/scalar_trip.json"
#define STEP_SPEC "tests/specs/scalar_trip_step.json"

static int n_param(const wh_spec *s)
{
    for (int p = 0; p < s->nparams; p++)
        if (!strcmp(s->params[p].name, "n")) return p;
    cr_assert_fail("no scalar n in %s", s->path);
    return -1;
}

static void expect_refused(const char *scalar, const char *msg)
{
    char json[512], dir[64];
    snprintf(json, sizeof json, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
             "\"params\":[{\"name\":\"n\",\"kind\":\"scalar\",%s}]}", scalar);
    wh_error err;
    wh_spec *s = ts_temp_spec(json, dir, &err);
    cr_expect_null(s, "%s was accepted", scalar);
    wh_spec_free(s);
    cr_expect(strstr(err.msg, msg), "%s: %s", scalar, err.msg);
    ts_rmtree(dir);
}

Test(scalar_search, the_spec_says_what_a_searched_scalar_takes)
{
    expect_refused("\"type\":\"i32\",\"range\":[0,4],\"value\":2", "takes \"range\" (its domain) and no \"value\"");
    expect_refused("\"type\":\"i32\",\"range\":[0,\"i\"]", "its range cannot use i");
    expect_refused("\"type\":\"i32\"", "a scalar needs \"value\" (or \"range\", to be searched)");
    expect_refused("\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"i32\",\"value\":1}],\"range\":[0,1]",
                   "a struct scalar cannot be searched");
}

Test(scalar_search, images_start_low_and_draw_within_the_range)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    int n = n_param(s);
    cr_expect_eq(s->params[n].role, WH_ROLE_INPUT);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[n].data), 0, "the low end of [0, 40]");
    bool seen_high = false;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        pcg32 rng;
        pcg32_seed(&rng, seed, 1);
        cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
        int64_t v = wh_value_get_int(WH_I32, img->bufs[n].data);
        cr_expect(v >= 0 && v <= 40, "%lld", (long long)v);
        seen_high |= v >= 30;
    }
    cr_expect(seen_high, "random values spread over the range");
    wh_value_set_int(WH_I32, img->bufs[n].data, 41);
    cr_expect_not(wh_image_check_domains(img, &err));
    cr_expect(strstr(err.msg, "input \"n\" element 0 is 41 (domain [0, 40])"), "%s", err.msg);
    wh_image_free(img);
    wh_spec_free(s);
}

/* The loop's bound is the scalar: one path per trip count (0..40 at the
 * stage's default loop bound or more), and each path's atoms carry the
 * scalar value that takes it, replayed on the sim. */
Test(scalar_search, the_symbolic_stage_reads_it_as_a_symbol)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    char cache[64];
    gen_result *r = ts_explore(s, 20, cache);
    cr_expect_gt(r->npaths, 10, "one path per trip count, not one for the spec's value (%d)", r->npaths);
    cr_expect_eq(r->atoms_invalid, 0, "every atom replays its path on the sim");
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    int n = n_param(s), distinct = 0;
    bool seen[41] = { false };
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        int64_t v = wh_value_get_int(WH_I32, img->bufs[n].data);
        cr_assert(v >= 0 && v <= 40);
        distinct += !seen[v];
        seen[v] = true;
    }
    cr_expect_gt(distinct, 10, "the atoms' trip counts differ (%d distinct)", distinct);
    wh_image_free(img);
    gen_result_free(r);
    wh_spec_free(s);
    ts_rmtree(cache);
}

/* Each strategy's best input (loaded, so checked against its domain) runs
 * the loop at least 32 times, on the scalar's step. */
static void expect_bests_run_long(const char *path, int64_t step)
{
    static const char *const strategies[] = { "gdivan", "random-ga", "random" };
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_assert(s, "%s", err.msg);
    for (int k = 0; k < 3; k++) {
        wh_image *img = ts_hunt_best(s, strategies[k], "60");
        int64_t v = wh_value_get_int(WH_I32, img->bufs[n_param(s)].data);
        cr_expect(v >= 32 && v % step == 0, "%s's best runs the loop %lld times", strategies[k], (long long)v);
        wh_image_free(img);
    }
    wh_spec_free(s);
}

/* The search sets the scalar near the top of its range (the trip count is
 * the kernel's whole time), not at the low end where images start. */
Test(scalar_search, the_search_sets_it)
{
    expect_bests_run_long(SPEC, 1);
}

/* ---- "step" ----------------------------------------------------------------- */

static bool on_step(int64_t v, int64_t lo, int64_t step, int64_t hi)
{
    return v >= lo && v <= hi && (v - lo) % step == 0;
}

Test(scalar_search, the_spec_says_where_a_step_goes)
{
    expect_refused("\"type\":\"i32\",\"value\":2,\"step\":4", "\"step\" goes with a \"range\"");
    expect_refused("\"type\":\"f32\",\"range\":[0,1],\"step\":4", "\"step\" is for integer values");
    expect_refused("\"type\":\"i32\",\"range\":[0,8],\"step\":\"i+1\"", "a step cannot use i");
    char json[512], dir[64];
    snprintf(json, sizeof json, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
             "\"params\":[{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":4,\"role\":\"input\","
             "\"range\":[0,3],\"structure\":\"permutation\",\"step\":2}]}");
    wh_error err;
    wh_spec *s = ts_temp_spec(json, dir, &err);
    cr_expect_null(s);
    cr_expect_str_eq(err.path, "$.params[0].step");
    cr_expect(strstr(err.msg, "not on one with another structure"), "%s", err.msg);
    wh_spec_free(s);
    ts_rmtree(dir);
    /* a step below 1, known once the constants are: refused when an image is made */
    cr_assert(s = wh_spec_load(STEP_SPEC, &err), "%s", err.msg);
    cr_assert(wh_spec_set_const(s, "STEP", "0", &err), "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_expect_null(img);
    cr_expect(strstr(err.msg, "the step of \"n\" is 0: it must be at least 1"), "%s", err.msg);
    wh_image_free(img);
    wh_spec_free(s);
}

/* Random images take every step of the range and nothing between; the top
 * is the last step under hi; an input off its step is refused by name,
 * and a projection moves a value down onto its step. */
Test(scalar_search, random_values_keep_their_step)
{
    wh_error err;
    wh_spec *s = wh_spec_load(STEP_SPEC, &err);
    cr_assert(s, "%s", err.msg);
    int n = n_param(s), in = 0;   /* "in", the spec's first parameter */
    cr_assert(s->params[in].fields[0].step, "in has a step");
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    bool seen[11] = { false }, seen_top_in = false;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        pcg32 rng;
        pcg32_seed(&rng, seed, 1);
        cr_assert(wh_image_fill_random(img, &rng, &err), "%s", err.msg);
        int64_t v = wh_value_get_int(WH_I32, img->bufs[n].data);
        cr_assert(on_step(v, 0, 4, 40), "n = %lld", (long long)v);
        seen[v / 4] = true;
        for (uint64_t e = 0; e < img->bufs[in].count; e++) {
            int64_t x = wh_value_get_int(WH_I32, img->bufs[in].data + 4 * e);
            cr_assert(on_step(x, 1, 5, 96), "in[%llu] = %lld", (unsigned long long)e, (long long)x);
            seen_top_in |= x == 96;
        }
    }
    for (int k = 0; k <= 10; k++) cr_expect(seen[k], "n = %d never drawn", 4 * k);
    cr_expect(seen_top_in, "in's last step, 96, drawn");
    cr_expect(wh_image_check_domains(img, &err), "%s", err.msg);
    wh_value_set_int(WH_I32, img->bufs[n].data, 6);
    cr_expect_not(wh_image_check_domains(img, &err));
    cr_expect(strstr(err.msg, "input \"n\" element 0 is 6 (domain [0, 40] in steps of 4 from its low end)"), "%s",
              err.msg);
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[n].data), 4, "6 moved down onto its step");
    wh_value_set_int(WH_I32, img->bufs[in].data, 99);
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[in].data), 96);
    wh_image_free(img);
    wh_spec_free(s);
}

/* The stage assumes the step: the loop's trip count only takes multiples
 * of 4, so at most 11 paths (41 without it), and every atom is on its
 * steps and replays its path. */
Test(scalar_search, the_symbolic_stage_assumes_the_step)
{
    wh_error err;
    wh_spec *s = wh_spec_load(STEP_SPEC, &err);
    cr_assert(s, "%s", err.msg);
    char cache[64];
    gen_result *r = ts_explore(s, 20, cache);
    cr_expect_leq(r->npaths, 11, "one path per step of the trip count (%d)", r->npaths);
    cr_expect_geq(r->npaths, 5, "%d", r->npaths);
    cr_expect_eq(r->atoms_invalid, 0, "every atom replays its path on the sim");
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    cr_expect_gt(r->pool.natoms, 0);
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        int64_t v = wh_value_get_int(WH_I32, img->bufs[n_param(s)].data);
        cr_expect(on_step(v, 0, 4, 40), "atom %d: n = %lld", a, (long long)v);
        for (uint64_t e = 0; e < img->bufs[0].count; e++) {
            int64_t x = wh_value_get_int(WH_I32, img->bufs[0].data + 4 * e);
            cr_expect(on_step(x, 1, 5, 96), "atom %d: in[%llu] = %lld", a, (unsigned long long)e, (long long)x);
        }
    }
    wh_image_free(img);
    gen_result_free(r);
    wh_spec_free(s);
    ts_rmtree(cache);
}

/* The search keeps the step: its best inputs run the loop 32, 36 or 40
 * times, not 42 (the range's top, off the step). */
Test(scalar_search, the_search_keeps_the_step)
{
    expect_bests_run_long(STEP_SPEC, 4);
}
