/*
 * test_saturation.c — the symbolic stage stops an X once it finds nothing
 * new (sx_options.saturation_s, explore --saturation, hunt
 * --explore-saturation): on a kernel with 2^24 equally long paths per
 * thread, which no budget of these tests could finish, the search stops
 * after its first paths, no sooner than the rule allows; off, the path
 * budget stops it; the stage records it (paths.json, run.json) and keys
 * its cache by it.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli/cli.h"
#include "gen/explore.h"
#include "symexec/symexec.h"
#include "tests/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIAMONDS "tests/specs/sym_diamonds.json"

typedef struct {
    wh_spec *spec;
    ptx_module *mod;
} kernel;

static kernel open_kernel(void)
{
    kernel k;
    wh_error err;
    k.spec = wh_spec_load(DIAMONDS, &err);
    cr_assert(k.spec, "%s", err.msg);
    char ptx[1024];
    cr_assert(wh_spec_ptx_path(k.spec, ptx, sizeof ptx, &err), "%s", err.msg);
    k.mod = ptx_parse_file(ptx, &err);
    cr_assert(k.mod, "%s", err.msg);
    return k;
}

static void close_kernel(kernel *k)
{
    ptx_module_free(k->mod);
    wh_spec_free(k->spec);
}

static sx_result *explore(const kernel *k, double saturation_s, int path_budget)
{
    sx_options o;
    sx_options_default(&o);
    o.threads = 1;
    o.time_budget_s = 600;
    o.path_budget = path_budget;
    o.saturation_s = saturation_s;
    wh_error err;
    sx_result *r = sx_explore(k->spec, k->mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    return r;
}

/* Both legs are covered by the first two paths and every path is as long
 * as the others: nothing new comes after them, and the search stops once
 * as long again as they took has passed, and at least saturation_s, with
 * states left (it did not finish, and no budget stopped it). */
Test(saturation, an_exploration_that_finds_nothing_new_stops)
{
    kernel k = open_kernel();
    sx_result *r = explore(&k, 0.3, 0);
    cr_expect(r->saturated);
    cr_expect(r->budget_hit && !r->path_cap_hit, "saturation is not the path budget");
    cr_expect_gt(r->npending, 0, "it stopped with states left");
    cr_expect_eq(r->nlegs_covered, r->nlegs);
    cr_expect_geq(r->npaths, 2);
    cr_expect_lt(r->npaths, 1 << 24);
    cr_expect_geq(r->time_s, r->last_gain_s + 0.3 - 1e-3, "stopped %g s after the last gain at %g s", r->time_s,
                  r->last_gain_s);
    cr_expect_geq(r->time_s, 2 * r->last_gain_s - 1e-3, "no sooner than as long again as the last gain took");
    sx_result_free(r);
    close_kernel(&k);
}

/* The symexec default is off: only the budgets stop it. */
Test(saturation, off_the_budgets_stop_it)
{
    kernel k = open_kernel();
    sx_result *r = explore(&k, 0, 64);
    cr_expect_not(r->saturated);
    cr_expect(r->path_cap_hit);
    cr_expect_eq(r->npaths, 64);
    sx_result_free(r);
    close_kernel(&k);
}

/* The stage: saturation is off in the library's defaults (the command
 * line's is GEN_SATURATION_S), recorded per X in the result and
 * paths.json, and part of the cache key. */
Test(saturation, the_stage_records_it_and_keys_its_cache_by_it)
{
    kernel k = open_kernel();
    char cache[] = "/tmp/wh_sat_XXXXXX";
    cr_assert(mkdtemp(cache));
    gen_explore_options o;
    gen_explore_options_default(&o);
    cr_expect_eq(o.saturation_s, 0);
    cr_expect_gt(GEN_SATURATION_S, 0);
    o.quiet = true;
    o.cache_dir = cache;
    o.models = 1;
    o.saturation_s = 0.3;
    wh_error err;
    gen_result *r = gen_explore(k.spec, k.mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    cr_assert_eq(r->nxs, 1);
    cr_expect(r->xs[0].saturated && r->xs[0].budget_hit && !r->xs[0].path_cap);
    cr_expect_geq(r->xs[0].last_gain_s, 0);
    cr_expect_gt(r->pool.natoms, 0, "a saturated X is kept: its paths get atoms");
    json_t *doc = ts_load_json(r->paths_json);
    json_t *x0 = json_array_get(json_object_get(doc, "coverage_per_x"), 0);
    cr_expect(json_is_true(json_object_get(x0, "saturated")), "paths.json says it saturated");
    json_decref(doc);
    char key[17];
    snprintf(key, sizeof key, "%s", r->cache_key);
    gen_result_free(r);
    o.saturation_s = 0;
    o.path_budget = 40;
    r = gen_explore(k.spec, k.mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    cr_expect_not(r->from_cache, "another saturation is another exploration");
    cr_expect_str_neq(r->cache_key, key);
    cr_expect(!r->xs[0].saturated && r->xs[0].path_cap);
    gen_result_free(r);
    ts_rmtree(cache);
    close_kernel(&k);
}

Test(saturation, explore_and_hunt_take_it, .init = cr_redirect_stderr)
{
    char dir[] = "/tmp/wh_sat_cli_XXXXXX";
    cr_assert(mkdtemp(dir));
    char res[128], out[128], run[128], path[300];
    snprintf(res, sizeof res, "%s/results", dir);
    snprintf(out, sizeof out, "%s/explore", dir);
    snprintf(run, sizeof run, "%s/hunt", dir);
    const char *bad[] = { DIAMONDS, "--saturation", "-1" };
    cr_expect_eq(ts_run_cmd(cmd_explore, "explore", bad, 3, NULL, NULL), 1);
    const char *word[] = { DIAMONDS, "--saturation", "soon" };
    cr_expect_eq(ts_run_cmd(cmd_explore, "explore", word, 3, NULL, NULL), 1);
    const char *args[] = { DIAMONDS, "--saturation", "0.3", "--models", "1", "--results", res, "-o", out, "--quiet" };
    cr_assert_eq(ts_run_cmd(cmd_explore, "explore", args, 10, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s/paths.json", out);
    json_t *doc = ts_load_json(path);
    cr_expect(json_is_true(json_object_get(json_array_get(json_object_get(doc, "coverage_per_x"), 0), "saturated")));
    json_decref(doc);
    /* the command line's default saturates too (its 2 s, not a budget) */
    const char *dflt[] = { DIAMONDS, "--models", "1", "--time", "600", "--no-cache", "--results", res, "-o", out,
                           "--quiet" };
    cr_assert_eq(ts_run_cmd(cmd_explore, "explore", dflt, 11, NULL, NULL), 0);
    doc = ts_load_json(path);
    cr_expect(json_is_true(json_object_get(json_array_get(json_object_get(doc, "coverage_per_x"), 0), "saturated")),
              "explore saturates by default");
    json_decref(doc);
    const char *hunt[] = { DIAMONDS, "--backend", "sim", "--evals", "5", "--explore-saturation", "0.3",
                           "--models", "1", "--results", res, "-o", run, "--quiet" };
    cr_assert_eq(ts_run_cmd(cmd_hunt, "hunt", hunt, 14, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s/run.json", run);
    json_t *rj = ts_load_json(path);
    cr_expect_float_eq(json_number_value(json_object_get(json_object_get(rj, "options"), "explore_saturation")), 0.3,
                       1e-9);
    cr_expect(json_is_true(json_object_get(json_object_get(rj, "explore"), "cached")),
              "hunt's --explore-saturation is explore's --saturation: the same cache entry");
    json_decref(rj);
    const char *badh[] = { DIAMONDS, "--explore-saturation", "-2" };
    cr_expect_eq(ts_run_cmd(cmd_hunt, "hunt", badh, 3, NULL, NULL), 1);
    ts_rmtree(dir);
}
