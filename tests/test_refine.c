/*
 * test_refine.c — element refinement of the warp-first unit
 * (gen/refine.c) and the kernel's constants it draws from
 * (gen/dictionary.c): the dictionary
 * holds every immediate with its neighbours and negation, not address
 * offsets; on a kernel whose lanes spin for every byte equal to 90, the
 * refined warp holds many of them with the dictionary and next to none
 * with uniform draws alone, in the same launches; `hunt` draws from it
 * unless told --no-refine-dictionary, and run.json says which; on 1 or
 * 3 threads refinement ends with the same unit; with work ties (hunt's
 * default, --no-refine-work-ties) lanes below the slowest climb too.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli/cli.h"
#include "gen/explore.h"
#include "gen/gen.h"
#include "ptx/ptx.h"
#include "tests/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC_SPEC "tests/specs/magic_bytes.json"
#define MAGIC_PTX "tests/ptx_sym/magic_bytes.ptx"

static bool has_int(const gen_dictionary *d, int64_t v)
{
    int first;
    return gen_dictionary_ints_in(d, v, v, &first) == 1 && d->ints[first] == v;
}

Test(dictionary, holds_immediates_neighbours_and_negations)
{
    wh_error err;
    ptx_module *mod = ptx_parse_file(MAGIC_PTX, &err);
    cr_assert(mod, "%s", err.msg);
    gen_dictionary d;
    cr_assert(gen_dictionary_build(mod, &d, &err), "%s", err.msg);
    for (int64_t v = 89; v <= 91; v++) cr_expect(has_int(&d, v), "%lld", (long long)v);
    cr_expect(has_int(&d, -90));
    cr_expect(has_int(&d, 8) && has_int(&d, 7) && has_int(&d, 6), "the loop bound and the shift");
    cr_expect(!has_int(&d, 92) && !has_int(&d, 88));
    for (int i = 1; i < d.nints; i++) cr_assert_lt(d.ints[i - 1], d.ints[i], "sorted, each once");
    int first, n = gen_dictionary_ints_in(&d, 0, 255, &first);
    cr_expect_gt(n, 3);
    for (int i = first; i < first + n; i++) cr_expect(d.ints[i] >= 0 && d.ints[i] <= 255);
    cr_expect_eq(gen_dictionary_ints_in(&d, 1000, 2000, &first), 0);
    cr_expect_eq(d.nfloats, 0);
    gen_dictionary_free(&d);
    ptx_module_free(mod);
}

Test(dictionary, leaves_address_offsets_out_and_keeps_floats)
{
    const char *text = ".version 7.0\n.target sm_70\n.address_size 64\n"
                       ".visible .entry k(.param .u64 p)\n{\n"
                       "    .reg .b64 %rd<4>;\n    .reg .f32 %f<4>;\n    .reg .pred %p<2>;\n"
                       "    ld.param.u64 %rd1, [p];\n"
                       "    ld.global.f32 %f1, [%rd1+1234];\n"
                       "    setp.lt.f32 %p1, %f1, 0f3FC00000;\n"
                       "    @%p1 st.global.f32 [%rd1+4], %f1;\n"
                       "    ret;\n}\n";
    wh_error err;
    ptx_module *mod = ptx_parse_string(text, "offsets.ptx", &err);
    cr_assert(mod, "%s", err.msg);
    gen_dictionary d;
    cr_assert(gen_dictionary_build(mod, &d, &err), "%s", err.msg);
    cr_expect(!has_int(&d, 1234) && !has_int(&d, 4), "address offsets are not constants of the code");
    int first;
    cr_assert_eq(gen_dictionary_floats_in(&d, 0, 10, &first), 1);
    cr_expect_float_eq(d.floats[first], 1.5, 1e-12);
    gen_dictionary_free(&d);
    ptx_module_free(mod);
}

/* The bytes equal to 90 of lane t. */
static int lane_matches(const wh_image *cell, uint64_t t)
{
    const uint8_t *text = cell->bufs[0].data;
    int n = 0;
    for (int k = 0; k < 8; k++) n += text[t * 8 + k] == 90;
    return n;
}

/* The bytes equal to 90 of the lane with the most of them. */
static int most_matches(const wh_image *cell)
{
    int best = 0;
    for (uint64_t t = 0; t < cell->bufs[0].count / 8; t++)
        if (lane_matches(cell, t) > best) best = lane_matches(cell, t);
    return best;
}

/* The lanes with at least `at_least` bytes equal to 90. */
static int lanes_matching(const wh_image *cell, int at_least)
{
    int n = 0;
    for (uint64_t t = 0; t < cell->bufs[0].count / 8; t++) n += lane_matches(cell, t) >= at_least;
    return n;
}

/* Warp-first composition from random alleles only (no path atom knows
 * the magic value), then refinement in at most 20000 unit launches; the
 * refined warp's most matching lane, or 0 when refinement gained too
 * little to make an image. */
static int refined_matches(const wh_spec *s, bool dictionary, bool work_ties, int threads, gen_warp_report *rep,
                           wh_image **out)
{
    wh_error err;
    wh_launch fl = wh_spec_launch_full(s);
    wh_image *full = wh_image_new(s, &fl, &err);
    cr_assert(full, "%s", err.msg);
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, 1, &err), "%s", err.msg);
    gen_pool_set_full(&pool, full);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &fl, 1, &lay, &err), "%s", err.msg);
    int cand[4];
    for (int i = 0; i < 4; i++) cand[i] = gen_seeded_allele((uint32_t)(11 + i));
    gen_warp_options o;
    gen_warp_options_default(&o);
    o.candidates = 4;
    o.refine_launches = 20000;
    o.dictionary = dictionary;
    o.work_ties = work_ties;
    o.refine_threads = threads;
    o.seed = 3;
    wh_image *cell = NULL;
    wh_error_clear(&err);
    int *genes = gen_warp_compose(s, &pool, cand, 4, &lay, &o, rep, full, &cell, &err);
    cr_assert(!wh_error_is_set(&err), "%s", err.msg);
    int n = cell ? most_matches(cell) : 0;
    free(genes);
    if (out) *out = cell;
    else wh_image_free(cell);
    gen_pool_free(&pool);
    wh_image_free(full);
    return n;
}

Test(dictionary, refinement_finds_the_compared_value, .timeout = 120)
{
    wh_error err;
    wh_spec *s = wh_spec_load(MAGIC_SPEC, &err);
    cr_assert(s, "%s", err.msg);
    gen_warp_report with, without;
    int m_with = refined_matches(s, true, false, 1, &with, NULL), m_without = refined_matches(s, false, false, 1, &without, NULL);
    cr_expect_geq(m_with, 7, "with the dictionary: %d matches in a lane (%ld launches)", m_with,
                  with.refine_evaluations);
    cr_expect_leq(m_without, 3, "uniform draws: %d matches in a lane (%ld launches)", m_without,
                  without.refine_evaluations);
    cr_expect_gt(with.refined_cycles, without.refined_cycles);
    cr_expect_leq(with.refine_evaluations, 20000);
    wh_spec_free(s);
}

/* A hunt's refinement option as run.json reports it: `key` when the hunt
 * is given `flag` (NULL: none). */
static bool hunt_refine_option(const char *res, const char *run, const char *flag, const char *key)
{
    const char *args[] = { MAGIC_SPEC, "--backend", "sim", "--evals", "4", "--explore-paths", "16",
                           "--explore-saturation", "0", "--warp-refine", "300", "--no-explain", "--results", res,
                           "-o", run, "--quiet", flag };
    cr_assert_eq(ts_run_cmd(cmd_hunt, "hunt", args, flag ? 18 : 17, NULL, NULL), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/run.json", run);
    json_t *rj = ts_load_json(path);
    json_t *opt = json_object_get(rj, "options");
    cr_assert(json_is_boolean(json_object_get(opt, key)), "%s", key);
    bool on = json_is_true(json_object_get(opt, key));
    cr_expect_gt(json_integer_value(json_object_get(json_object_get(json_object_get(rj, "warp_first"), "refine"),
                                                    "sim_launches")), 0);
    json_decref(rj);
    return on;
}

/* The hunt's default draws from the dictionary and keeps work ties;
 * --no-refine-dictionary and --no-refine-work-ties turn them off, and
 * run.json says which. */
Test(dictionary, hunt_takes_the_option, .init = cr_redirect_stderr, .timeout = 120)
{
    char dir[] = "/tmp/wh_dict_cli_XXXXXX";
    cr_assert(mkdtemp(dir));
    char res[128], run[128];
    snprintf(res, sizeof res, "%s/results", dir);
    snprintf(run, sizeof run, "%s/hunt", dir);
    cr_expect(hunt_refine_option(res, run, NULL, "refine_dictionary"), "on by default");
    cr_expect(!hunt_refine_option(res, run, "--no-refine-dictionary", "refine_dictionary"),
              "off with --no-refine-dictionary");
    cr_expect(hunt_refine_option(res, run, NULL, "refine_work_ties"), "on by default");
    cr_expect(!hunt_refine_option(res, run, "--no-refine-work-ties", "refine_work_ties"),
              "off with --no-refine-work-ties");
    cr_expect(hunt_refine_option(res, run, "--no-refine-work-ties", "refine_dictionary"), "the other stays on");
    ts_rmtree(dir);
}

/* Refinement measures an element's candidates on several threads at once
 * and keeps the first longest, as one thread does: the same unit, cycles
 * and counts on 1 and 3 threads. */
Test(refine, threads_end_with_the_same_unit, .timeout = 120)
{
    wh_error err;
    wh_spec *s = wh_spec_load(MAGIC_SPEC, &err);
    cr_assert(s, "%s", err.msg);
    gen_warp_report one, three;
    wh_image *a = NULL, *b = NULL;
    refined_matches(s, true, true, 1, &one, &a);
    refined_matches(s, true, true, 3, &three, &b);
    cr_expect_eq(one.refine_threads, 1);
    cr_expect_eq(three.refine_threads, 3);
    cr_assert(a && b, "both refined");
    cr_expect_eq(one.refined_cycles, three.refined_cycles);
    cr_expect_eq(one.refine_evaluations, three.refine_evaluations);
    cr_expect_eq(one.refined_elements, three.refined_elements);
    cr_expect_eq(memcmp(a->bufs[0].data, b->bufs[0].data, a->bufs[0].count), 0, "the same bytes");
    wh_image_free(a);
    wh_image_free(b);
    wh_spec_free(s);
}

/* A lane below the slowest one gains the unit no cycles by matching
 * more: with work ties refinement keeps such values anyway (the lanes do
 * more work), so most lanes climb; without them only the slowest lane
 * does, and the unit is no shorter for the ties. */
Test(refine, work_ties_let_lanes_below_the_slowest_climb, .timeout = 120)
{
    wh_error err;
    wh_spec *s = wh_spec_load(MAGIC_SPEC, &err);
    cr_assert(s, "%s", err.msg);
    gen_warp_report ties, longer;
    wh_image *a = NULL, *b = NULL;
    refined_matches(s, true, true, 1, &ties, &a);
    refined_matches(s, true, false, 1, &longer, &b);
    cr_assert(a && b, "both refined");
    int climbed_ties = lanes_matching(a, 4), climbed_longer = lanes_matching(b, 4);
    cr_expect_geq(climbed_ties, 16, "with ties %d of 32 lanes hold 4 matches or more", climbed_ties);
    cr_expect_leq(climbed_longer, 4, "longer only: %d of 32 lanes hold 4 matches or more", climbed_longer);
    cr_expect_geq(ties.refined_cycles, longer.refined_cycles);
    wh_image_free(a);
    wh_image_free(b);
    wh_spec_free(s);
}
