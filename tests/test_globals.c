/*
 * test_globals.c — module variables as spec entries ("globals"): the spec
 * says what a global takes, the PTX must define it large enough, the sim
 * fills .global and .const variables from the image and reads outputs
 * back (an output starts from the variable's initializer), the kernel's
 * time follows a __constant__ array's data, the symbolic stage reads the
 * array as symbols, and the search fills it.  (The fake CUDA driver's
 * agreement is in test_cuda_fake.c.)
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "core/spec.h"
#include "gen/explore.h"
#include "harness/harness.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPEC "tests/specs/module_inputs.json"
#define PTX "build/ptx/tests/ptx/module_inputs.ptx"

static int param_named(const wh_spec *s, const char *name)
{
    for (int p = 0; p < s->nparams; p++)
        if (!strcmp(s->params[p].name, name)) return p;
    cr_assert_fail("no parameter or global '%s' in %s", name, s->path);
    return -1;
}

/* A spec of module_inputs whose globals list is `globals`: loaded, then
 * opened on the sim; the first refusal's message and JSON path. */
static bool open_with(const char *globals, wh_error *err)
{
    char cwd[4096], json[6000], dir[64];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"ptx\":\"%s/" PTX "\",\"entry\":\"module_inputs\",\"grid\":[1],"
             "\"block\":[32],\"params\":[{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\","
             "\"role\":\"output\"},{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":32}],"
             "\"globals\":%s}", cwd, globals);
    wh_spec *s = ts_temp_spec(json, dir, err);
    bool ok = false;
    if (s) {
        harness_options o;
        harness_options_init(&o);
        o.quiet = true;
        harness *h = harness_open(s, HARNESS_SIM, &o, err);
        ok = h != NULL;
        harness_close(h);
    }
    wh_spec_free(s);
    ts_rmtree(dir);
    return ok;
}

static void expect_refused(const char *globals, const char *msg, const char *jpath)
{
    wh_error err;
    cr_expect_not(open_with(globals, &err), "%s was accepted", globals);
    cr_expect(strstr(err.msg, msg), "%s: %s", globals, err.msg);
    if (jpath) cr_expect_str_eq(err.path, jpath, "%s", globals);
}

Test(globals, the_spec_and_the_ptx_say_what_a_global_takes)
{
    ts_need_ptx(PTX);
    wh_error err;
    cr_expect(open_with("[{\"name\":\"trips\",\"type\":\"i32\",\"count\":32,\"role\":\"input\",\"range\":[0,9]}]", &err),
              "%s", err.msg);
    expect_refused("{}", "expected an array of module variables", "$.globals");
    expect_refused("[{\"name\":\"trips\",\"kind\":\"scalar\",\"type\":\"i32\",\"value\":1}]",
                   "a module variable is a \"buffer\" (count 1 for a single value)", "$.globals[0]");
    expect_refused("[{\"name\":\"n\",\"type\":\"i32\",\"count\":1,\"role\":\"output\"}]",
                   "duplicate name \"n\" (parameters and globals share one name space)", "$.globals[0].name");
    expect_refused("[{\"name\":\"trips\",\"type\":\"i32\",\"count\":1,\"role\":\"fixed\",\"init\":{\"generator\":\"zero\"}},"
                   "{\"name\":\"tripz\",\"type\":\"i32\",\"count\":1,\"role\":\"output\"}]",
                   "defines no .global or .const variable of that name (it has: trips, weights, total, hits)",
                   "$.globals[1]");
    expect_refused("[{\"name\":\"trips\",\"type\":\"i32\",\"count\":33,\"role\":\"input\",\"range\":[0,9]}]",
                   "33 elements of 4 bytes do not fit the .const variable (128 bytes", "$.globals[0].count");
    expect_refused("[{\"name\":\"trips\",\"type\":\"i32\",\"count\":32,\"role\":\"output\"}]",
                   "is a .const variable", "$.globals[0].role");
    expect_refused("[{\"name\":\"weights\",\"type\":\"i32\",\"count\":64,\"role\":\"input\",\"range\":[0,\"2*j\"]}]",
                   "unknown name 'j'", NULL);
}

/* trips[k] = k % 5, weights = iota: every output, total and hits (7 in
 * the PTX's initializer, plus thread 0's one) as the kernel computes. */
Test(globals, the_sim_fills_module_variables_and_reads_them_back)
{
    ts_need_ptx(PTX);
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    int trips = param_named(s, "trips"), weights = param_named(s, "weights");
    for (int k = 0; k < 32; k++) wh_value_set_int(WH_I32, img->bufs[trips].data + 4 * k, k % 5);
    for (int k = 0; k < 64; k++)
        cr_assert_eq(wh_value_get_int(WH_I32, img->bufs[weights].data + 4 * k), k, "a fixed iota global");
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_outputs = true;
    harness *h = harness_open(s, HARNESS_SIM, &o, &err);
    cr_assert(h, "%s", err.msg);
    for (int run = 0; run < 2; run++) {   /* the second run starts afresh, not from the first's */
        harness_result r;
        cr_assert(harness_measure(h, img, 1, &r, &err), "%s", err.msg);
        cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
        harness_result_free(&r);
        uint64_t total = 0;
        for (int i = 0; i < 128; i++) {
            int t = (i % 64 & 31) % 5, acc = 0;
            for (int k = 0; k < t; k++) acc += (i + k) & 63;
            cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[0].data + 4 * i), acc, "out[%d]", i);
            total += (uint32_t)acc;
        }
        cr_expect_eq((uint64_t)wh_value_get_int(WH_U64, img->bufs[param_named(s, "total")].data), total);
        cr_expect_eq(wh_value_get_int(WH_I32, img->bufs[param_named(s, "hits")].data), 8, "7 + 1, each run");
    }
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
}

static double time_with_trips(const wh_spec *s, int value)
{
    wh_error err;
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    int trips = param_named(s, "trips");
    for (int k = 0; k < 32; k++) wh_value_set_int(WH_I32, img->bufs[trips].data + 4 * k, value);
    double t = ts_sim_time(s, img);
    wh_image_free(img);
    return t;
}

/* The loop bound lives in the __constant__ array: its data is the time
 * (the Parboil JDS case, where every input timed the same). */
Test(globals, the_time_follows_a_constant_array)
{
    ts_need_ptx(PTX);
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    double t0 = time_with_trips(s, 0), t6 = time_with_trips(s, 6), t12 = time_with_trips(s, 12);
    cr_expect(t0 < t6 && t6 < t12, "%g %g %g cycles", t0, t6, t12);
    cr_expect_gt(t12, 2 * t0, "%g vs %g cycles", t12, t0);
    wh_spec_free(s);
}

/* One path per trip count of the loop the constant array bounds, atoms
 * that carry those counts and replay on the sim. */
Test(globals, the_symbolic_stage_reads_a_global_as_symbols)
{
    ts_need_ptx(PTX);
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    char cache[64];
    gen_result *r = ts_explore(s, 20, cache);
    cr_expect_geq(r->npaths, 13, "a path per trip count 0..12 (%d)", r->npaths);
    cr_expect_eq(r->atoms_invalid, 0, "every atom replays its path on the sim");
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    int trips = param_named(s, "trips");
    bool seen[13] = { false };
    int distinct = 0;
    for (int a = 0; a < r->pool.natoms; a++) {
        gen_pool_atom_to_image(&r->pool, a, img);
        int64_t v = wh_value_get_int(WH_I32, img->bufs[trips].data);
        cr_assert(v >= 0 && v <= 12, "%lld", (long long)v);
        distinct += !seen[v];
        seen[v] = true;
    }
    cr_expect_eq(distinct, 13, "thread 0's trip count takes every value (%d distinct)", distinct);
    wh_image_free(img);
    gen_result_free(r);
    wh_spec_free(s);
    ts_rmtree(cache);
}

/* The search's best input runs long loops: well above the images' low end
 * (every trip count 0), near every count 12. */
Test(globals, the_search_fills_a_global)
{
    ts_need_ptx(PTX);
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    double t0 = time_with_trips(s, 0), t12 = time_with_trips(s, 12);
    wh_image *best = ts_hunt_best(s, "gdivan", "60");
    double t = ts_sim_time(s, best);
    cr_expect_gt(t, t0 + 0.9 * (t12 - t0), "best %g cycles; all 0: %g, all 12: %g", t, t0, t12);
    wh_image_free(best);
    wh_spec_free(s);
}
