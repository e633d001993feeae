/*
 * test_symexec.c — the symbolic executor on the paper's examples and on
 * kernels with indirection, data-dependent loops, barriers, floats and warp
 * collectives: path counts, formulas (checked for equivalence with Z3),
 * brdiv, instruction counts, coverage, atoms that follow their paths.
 */
#include <criterion/criterion.h>

#include "symexec/symexec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <z3.h>

/* ---- helpers ---------------------------------------------------------------- */

typedef struct {
    wh_spec *spec;
    ptx_module *mod;
    sx_result *res;
} run;

static void run_free(run *r)
{
    sx_result_free(r->res);
    ptx_module_free(r->mod);
    wh_spec_free(r->spec);
}

static void load(run *r, const char *spec_path)
{
    wh_error err;
    wh_error_clear(&err);
    memset(r, 0, sizeof *r);
    r->spec = wh_spec_load(spec_path, &err);
    cr_assert(r->spec, "%s: %s", spec_path, err.msg);
    char ptx[1024];
    cr_assert(wh_spec_ptx_path(r->spec, ptx, sizeof ptx, &err), "%s", err.msg);
    r->mod = ptx_parse_file(ptx, &err);
    cr_assert(r->mod, "%s: %s", ptx, err.msg);
}

static run explore(const char *spec_path, int x, int max_iter, double time_s, int paths)
{
    run r;
    load(&r, spec_path);
    sx_options o;
    sx_options_default(&o);
    o.threads = x;
    o.max_iter = max_iter;
    o.time_budget_s = time_s;
    o.path_budget = paths;
    wh_error err;
    wh_error_clear(&err);
    r.res = sx_explore(r.spec, r.mod, &o, &err);
    cr_assert(r.res, "%s: line %d: %s", spec_path, err.line, err.msg);
    return r;
}

/* Parse SMT-LIB2 text into one conjunction (a referenced AST of the
 * reference-counted context c). */
static Z3_ast parse_conj(Z3_context c, const char *text)
{
    Z3_ast_vector v = Z3_parse_smtlib2_string(c, text, 0, NULL, NULL, 0, NULL, NULL);
    cr_assert(v && Z3_get_error_code(c) == Z3_OK, "cannot parse: %s", text);
    Z3_ast_vector_inc_ref(c, v);
    unsigned n = Z3_ast_vector_size(c, v);
    Z3_ast args[64];
    cr_assert(n < 64);
    for (unsigned i = 0; i < n; i++) {
        args[i] = Z3_ast_vector_get(c, v, i);
        Z3_inc_ref(c, args[i]);
    }
    Z3_ast f = n == 0 ? Z3_mk_true(c) : n == 1 ? args[0] : Z3_mk_and(c, n, args);
    Z3_inc_ref(c, f);
    for (unsigned i = 0; i < n; i++)
        Z3_dec_ref(c, args[i]);
    Z3_ast_vector_dec_ref(c, v);
    return f;
}

/* Is domains => (formula <=> expected) valid?  `decls` declares the
 * constants `expected` mentions. */
static bool equivalent(const char *formula, const char *domains, const char *decls, const char *expected)
{
    Z3_config cfg = Z3_mk_config();
    Z3_context c = Z3_mk_context_rc(cfg);
    Z3_del_config(cfg);
    Z3_ast f = parse_conj(c, formula);
    Z3_ast d = parse_conj(c, domains);
    char buf[4096];
    snprintf(buf, sizeof buf, "%s (assert %s)", decls, expected);
    Z3_ast e = parse_conj(c, buf);
    Z3_ast eq = Z3_mk_eq(c, f, e);
    Z3_inc_ref(c, eq);
    Z3_ast neq = Z3_mk_not(c, eq);
    Z3_inc_ref(c, neq);
    Z3_solver s = Z3_mk_solver(c);
    Z3_solver_inc_ref(c, s);
    Z3_solver_assert(c, s, d);
    Z3_solver_assert(c, s, neq);
    bool same = Z3_solver_check(c, s) == Z3_L_FALSE;
    Z3_solver_dec_ref(c, s);
    Z3_dec_ref(c, neq);
    Z3_dec_ref(c, eq);
    Z3_dec_ref(c, e);
    Z3_dec_ref(c, d);
    Z3_dec_ref(c, f);
    Z3_del_context(c);
    return same;
}

static const sx_decision *first_decision(const sx_path *p, int t)
{
    cr_assert_gt(p->ndecisions[t], 0, "thread %d made no decision", t);
    return &p->decisions[t][0];
}

static wh_image *atom(const run *r, int path, uint64_t seed)
{
    wh_error err;
    wh_error_clear(&err);
    wh_launch l = wh_launch_threads((unsigned)r->res->threads);
    wh_image *img = wh_image_new(r->spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    cr_assert(sx_path_model(r->res, path, seed, img, &err), "path %d: %s", path, err.msg);
    cr_assert(wh_image_check_domains(img, &err), "atom of path %d leaves its domain: %s", path, err.msg);
    return img;
}

static int32_t i32_at(const wh_image *img, int p, uint64_t i)
{
    return (int32_t)wh_value_get_int(WH_I32, img->bufs[p].data + 4 * i);
}

/* The paper's Fig. 1 kernels at X = 2: four paths, one per pair of legs,
 * formulas equivalent to "input[t] == 7" (or its negation) per thread,
 * brdiv 0 when both threads agree and 100 when they do not. */
static void check_fig1(const char *spec_path, const char *name)
{
    run r = explore(spec_path, 2, 0, 30, 0);
    sx_result *res = r.res;
    cr_assert_eq(res->npaths, 4, "%s: %d paths", name, res->npaths);
    cr_expect_eq(res->ndone, 4);
    cr_expect_eq(res->ncut, 0);
    cr_expect_eq(res->npending, 0);
    cr_expect_eq(res->nlegs, 2);
    cr_expect_eq(res->nlegs_covered, 2);
    cr_expect_float_eq(sx_result_coverage(res), 100.0, 1e-9);
    char decls[256];
    snprintf(decls, sizeof decls, "(declare-fun |%s[0]| () (_ BitVec 32)) (declare-fun |%s[1]| () (_ BitVec 32))",
             name, name);
    /* which leg is "== 7" depends on how nvcc laid the branch out: find
     * the polarity for which every path matches */
    int good[2] = { 0, 0 };
    bool seen[4] = { false };
    for (int pol = 0; pol < 2; pol++) {
        for (int i = 0; i < 4; i++) {
            const sx_path *p = &res->paths[i];
            bool t0 = first_decision(p, 0)->taken, t1 = first_decision(p, 1)->taken;
            bool e0 = t0 ^ pol, e1 = t1 ^ pol;   /* thread's input is 7 */
            char expect[512];
            snprintf(expect, sizeof expect, "(and %s(= |%s[0]| #x00000007)%s %s(= |%s[1]| #x00000007)%s)",
                     e0 ? "" : "(not ", name, e0 ? "" : ")", e1 ? "" : "(not ", name, e1 ? "" : ")");
            if (equivalent(p->formula, res->domains, decls, expect))
                good[pol]++;
            if (pol == 0)
                seen[(t0 ? 2 : 0) + (t1 ? 1 : 0)] = true;
        }
    }
    cr_expect(good[0] == 4 || good[1] == 4, "%s: formulas match %d / %d paths", name, good[0], good[1]);
    for (int k = 0; k < 4; k++)
        cr_expect(seen[k], "%s: leg pair %d missing", name, k);
    for (int i = 0; i < 4; i++) {
        const sx_path *p = &res->paths[i];
        bool agree = first_decision(p, 0)->taken == first_decision(p, 1)->taken;
        cr_expect_float_eq(p->brdiv, agree ? 0.0 : 100.0, 1e-9, "%s path %d", name, i);
        cr_expect_eq(p->intervals, 1);
        cr_expect_not(p->uf);
        cr_expect_eq(p->nlegs, agree ? 1 : 2);
        /* SIMT: agreeing threads issue together, diverging ones serialize */
        if (agree)
            cr_expect_eq(p->warp_instr * 2, p->instr, "%s path %d", name, i);
        else
            cr_expect(p->warp_instr > p->instr / 2 && p->warp_instr < p->instr);
        /* the atom follows the path: input[t] == 7 exactly on the "7" leg */
        wh_image *img = atom(&r, i, 0);
        int pol = good[0] == 4 ? 0 : 1;
        for (int t = 0; t < 2; t++)
            cr_expect_eq(i32_at(img, 0, (uint64_t)t) == 7, first_decision(p, t)->taken ^ pol,
                         "%s path %d thread %d", name, i, t);
        wh_image_free(img);
    }
    run_free(&r);
}

Test(symexec, fig1a_four_paths)
{
    check_fig1("kernels/fig1a.json", "input");
}

Test(symexec, fig1b_four_paths)
{
    check_fig1("kernels/fig1b.json", "input");
}

Test(symexec, artificial_four_paths_x2)
{
    check_fig1("kernels/artificial.json", "values");
}

Test(symexec, artificial_x3_eight_paths)
{
    run r = explore("kernels/artificial.json", 3, 0, 30, 0);
    cr_expect_eq(r.res->npaths, 8);
    cr_expect_eq(r.res->nlegs_covered, 2);
    for (int i = 0; i < r.res->npaths; i++) {
        const sx_path *p = &r.res->paths[i];
        int n7 = 0;
        for (int t = 0; t < 3; t++)
            n7 += first_decision(p, t)->taken;
        /* distinct thread paths: 1 or 2 of 3 -> brdiv 0 or 50 */
        cr_expect_float_eq(p->brdiv, (n7 == 0 || n7 == 3) ? 0.0 : 50.0, 1e-9);
    }
    run_free(&r);
}

/* ---- atoms -------------------------------------------------------------------- */

Test(symexec, atoms_distinct_seeds_stay_in_domain)
{
    run r = explore("kernels/fig1a.json", 2, 0, 30, 0);
    /* the path where neither input is 7 leaves 255 values each */
    int free_path = -1;
    for (int i = 0; i < r.res->npaths; i++)
        if (r.res->paths[i].nlegs == 1 && r.res->paths[i].instr == 60)
            free_path = i;
    if (free_path < 0)
        free_path = 0;
    int distinct = 0;
    int32_t prev0 = -1, prev1 = -1;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        wh_image *img = atom(&r, free_path, seed);
        int32_t a = i32_at(img, 0, 0), b = i32_at(img, 0, 1);
        cr_expect(a >= 0 && a <= 255 && b >= 0 && b <= 255);
        if (a != prev0 || b != prev1)
            distinct++;
        prev0 = a;
        prev1 = b;
        wh_image_free(img);
    }
    cr_expect_geq(distinct, 4, "only %d distinct atoms over 8 seeds", distinct);
    run_free(&r);
}

/* ---- indirection and data-dependent loops --------------------------------------- */

Test(symexec, bfs_small_indirection_and_loop_exhaustive)
{
    run r = explore("tests/specs/sym_bfs_small.json", 2, 0, 60, 0);
    sx_result *res = r.res;
    cr_expect_gt(res->npaths, 8);
    cr_expect_eq(res->npending, 0, "exhaustive exploration expected");
    cr_expect_eq(res->ncut, 0);
    cr_expect_eq(res->nerror, 0);
    cr_expect_eq(res->nissues, 0, "edges stay inside [0, X-1]: no out-of-bounds report");
    bool select = false;
    int mind = 1 << 30, maxd = 0;
    for (int i = 0; i < res->npaths; i++) {
        const sx_path *p = &res->paths[i];
        /* visited is read only as visited[edges[e]]: a formula naming both
         * reads it at an input index (word cases, or an array's select) */
        select = select || strstr(p->formula, "select") || (strstr(p->formula, "edges[") &&
                                                             strstr(p->formula, "visited["));
        for (int t = 0; t < p->nthreads; t++) {
            mind = p->ndecisions[t] < mind ? p->ndecisions[t] : mind;
            maxd = p->ndecisions[t] > maxd ? p->ndecisions[t] : maxd;
        }
        wh_image *img = atom(&r, i, 0);
        wh_image_free(img);
    }
    cr_expect(select, "no formula reads memory at a symbolic index");
    cr_expect_lt(mind, maxd, "the loop's trip count should vary with the input");
    run_free(&r);
}

Test(symexec, bfs1_beats_gklee_coverage)
{
    run r = explore("kernels/bfs1.json", 2, 0, 60, 300);
    /* GKLEE reached 83.33 % at 2 threads */
    cr_expect_geq(sx_result_coverage(r.res), 83.33, "coverage %.2f", sx_result_coverage(r.res));
    run_free(&r);
}

Test(symexec, loop_cut_paths_are_kept_and_counted)
{
    run r = explore("kernels/gt_loop.json", 2, 3, 60, 0);
    sx_result *res = r.res;
    cr_expect_gt(res->ncut, 0);
    cr_expect_eq(res->npaths, res->ndone + res->ncut + res->nerror);
    cr_expect_eq(res->max_iter, 3);
    int cut = 0;
    for (int i = 0; i < res->npaths; i++) {
        const sx_path *p = &res->paths[i];
        if (p->kind != SX_PATH_CUT)
            continue;
        cut++;
        cr_expect(p->note && strstr(p->note, "cut after 3 iterations"), "note: %s", p->note ? p->note : "");
        wh_image *img = atom(&r, i, 0);   /* a cut path's formula has models too */
        bool long_trip = false;
        for (int t = 0; t < 2; t++)
            long_trip = long_trip || i32_at(img, 0, (uint64_t)t) > 3;
        cr_expect(long_trip, "a cut path's atom should iterate past the bound");
        wh_image_free(img);
    }
    cr_expect_eq(cut, res->ncut);
    cr_expect_float_eq(sx_result_coverage(res), 100.0, 1e-9);
    run_free(&r);
}

Test(symexec, out_of_bounds_reported_with_a_model)
{
    run r = explore("tests/specs/sym_gather_oob.json", 2, 0, 30, 0);
    cr_assert_geq(r.res->nissues, 1);
    const sx_issue *is = &r.res->issues[0];
    cr_expect_eq(is->kind, SX_ISSUE_OOB);
    cr_expect(strstr(is->message, "'data'"), "%s", is->message);
    cr_expect(is->condition && strstr(is->condition, "idx["), "%s", is->condition ? is->condition : "");
    cr_expect(is->model && strstr(is->model, "idx[0]=16"), "%s", is->model ? is->model : "");
    /* the path goes on inside the bounds */
    cr_expect_eq(r.res->ndone, 1);
    run_free(&r);
}

/* ---- barriers ------------------------------------------------------------------- */

Test(symexec, shared_reduction_counts_barrier_intervals)
{
    for (int x = 2; x <= 4; x += 2) {
        run r = explore("tests/specs/sym_reduce.json", x, 0, 30, 0);
        cr_assert_eq(r.res->npaths, 1, "the tree reduction has one path (branches on tid only)");
        const sx_path *p = &r.res->paths[0];
        cr_expect_eq(p->intervals, 10, "8 loop barriers + 1 + the end: %d", p->intervals);
        cr_expect_eq(p->kind, SX_PATH_DONE);
        cr_expect(p->brdiv > 0.0 && p->brdiv < 100.0, "brdiv %f", p->brdiv);
        cr_expect_eq(r.res->nissues, 0);
        run_free(&r);
    }
}

Test(symexec, barrier_skipped_by_an_exited_thread_is_reported)
{
    run r = explore("tests/specs/sym_barrier_div.json", 2, 0, 30, 0);
    cr_assert_eq(r.res->npaths, 4);
    cr_assert_eq(r.res->nissues, 1);
    cr_expect_eq(r.res->issues[0].kind, SX_ISSUE_BARRIER);
    cr_expect(strstr(r.res->issues[0].message, "exited"), "%s", r.res->issues[0].message);
    /* the PTX has .locs (-lineinfo): the issue and the legs name their CUDA lines */
    const char *src = r.res->issues[0].source;
    cr_expect(src && strstr(src, "barrier_div.cu:14"), "the __syncthreads(): %s", src ? src : "(none)");
    cr_assert_gt(r.res->nlegs, 0);
    char leg[600];
    cr_expect(sx_leg_source(r.mod, &r.res->legs[0], leg, sizeof leg) && strstr(leg, "barrier_div.cu:11"),
              "the if (v > 5): %s", leg);
    int errors = 0;
    for (int i = 0; i < 4; i++) {
        const sx_path *p = &r.res->paths[i];
        bool split = first_decision(p, 0)->taken != first_decision(p, 1)->taken;
        /* exactly the paths where one thread returns and the other waits */
        cr_expect_eq(p->kind == SX_PATH_ERROR, split, "path %d", i);
        if (p->kind == SX_PATH_ERROR) {
            errors++;
            cr_expect(p->note && strstr(p->note, "before the barrier"), "%s", p->note ? p->note : "");
            cr_expect_eq(p->intervals, 2);
            cr_expect_float_eq(p->brdiv, 50.0, 1e-9);   /* (100 + 0) / 2 */
        }
    }
    cr_expect_eq(errors, 2);
    cr_expect_eq(r.res->nerror, 2);
    run_free(&r);
}

/* printf is a no-op and assert's failure an error path with an issue
 * whose input fails it: no unsupported call, every leg covered, and the
 * issue's model has 77 in the failing thread. */
Test(symexec, printf_runs_and_a_failed_assertion_is_an_issue)
{
    run r = explore("tests/specs/sym_printf_assert.json", 2, 0, 30, 0);
    cr_expect_float_eq(sx_result_coverage(r.res), 100.0, 1e-9);
    cr_expect_gt(r.res->nerror, 0, "the paths where a thread fails the assertion");
    cr_expect_gt(r.res->ndone, 0, "and the ones where none does");
    bool assertion = false;
    for (int i = 0; i < r.res->nissues; i++) {
        const sx_issue *is = &r.res->issues[i];
        cr_expect_neq(is->kind, SX_ISSUE_UNSUPPORTED, "%s", is->message);
        if (is->kind != SX_ISSUE_ASSERT) continue;
        assertion = true;
        wh_launch l = wh_launch_threads(2);
        wh_error err;
        wh_image *img = wh_image_new(r.spec, &l, &err);
        cr_assert(img, "%s", err.msg);
        cr_assert(sx_issue_image(r.res, i, img, &err), "%s", err.msg);
        int32_t v = (int32_t)wh_value_get_int(WH_I32, img->bufs[0].data + 4 * (size_t)is->thread);
        cr_expect_eq(v, 77, "thread %d's value fails assert(v != 77)", is->thread);
        cr_expect(is->source && strstr(is->source, "printf_assert.cu:16"), "%s", is->source ? is->source : "");
        wh_image_free(img);
    }
    cr_expect(assertion, "the failed assertion is an issue");
    for (int i = 0; i < r.res->npaths; i++)
        if (r.res->paths[i].kind == SX_PATH_ERROR)
            cr_expect(r.res->paths[i].note && strstr(r.res->paths[i].note, "failed an assertion"), "%s",
                      r.res->paths[i].note ? r.res->paths[i].note : "");
    run_free(&r);
}

/* The longest path among the first n of scalar_trip (a loop of a searched
 * trip count) under each order. */
static uint64_t longest_of_first(sx_order order, int n)
{
    run r;
    load(&r, "tests/specs/scalar_trip.json");
    sx_options o;
    sx_options_default(&o);
    o.threads = 2;
    o.path_budget = n;
    o.order = order;
    wh_error err;
    r.res = sx_explore(r.spec, r.mod, &o, &err);
    cr_assert(r.res, "%s", err.msg);
    cr_assert_eq(r.res->npaths, n);
    uint64_t most = 0;
    for (int i = 0; i < n; i++)
        if (r.res->paths[i].instr > most) most = r.res->paths[i].instr;
    run_free(&r);
    return most;
}

/* Once every leg is covered, --order time runs the state that has run
 * longest: within the same path budget it finishes a longer path than the
 * random order (both seeded: the figures are the same every run). */
Test(symexec, the_time_order_finishes_longer_paths_within_a_budget)
{
    uint64_t random = longest_of_first(SX_ORDER_RANDOM, 8), time = longest_of_first(SX_ORDER_TIME, 8);
    cr_expect_gt(time, random, "time order %llu instructions, random %llu", (unsigned long long)time,
                 (unsigned long long)random);
}

/* Saturation ("nothing new for a while") never stops an X before its
 * first path: bvh_traverse's first path takes longer than 0.01 s, and a
 * saturation of 0.01 s stopped its X = 2 with no path at all (as the
 * default 2 s did to the held-out kd_nearest on a loaded machine: no atom,
 * the hunt on random ones). */
Test(symexec, saturation_waits_for_the_first_path, .timeout = 120)
{
    run r;
    load(&r, "kernels/corpus/bvh_traverse.json");
    sx_options o;
    sx_options_default(&o);
    o.threads = 2;
    o.time_budget_s = 60;
    o.path_budget = 1;
    o.saturation_s = 0.01;
    wh_error err;
    r.res = sx_explore(r.spec, r.mod, &o, &err);
    cr_assert(r.res, "%s", err.msg);
    cr_expect_eq(r.res->npaths, 1, "saturated with %d paths", r.res->npaths);
    cr_expect_not(r.res->saturated);
    sx_result_free(r.res);
    /* after a smaller X gave paths (deepen says so), a larger one may stop pathless */
    o.saturate_pathless = true;
    r.res = sx_explore(r.spec, r.mod, &o, &err);
    cr_assert(r.res, "%s", err.msg);
    cr_expect_eq(r.res->npaths, 0);
    cr_expect(r.res->saturated);
    run_free(&r);
}

/* ---- floats --------------------------------------------------------------------- */

Test(symexec, float_branches_follow_ieee)
{
    run r = explore("tests/specs/sym_float.json", 2, 0, 60, 0);
    cr_assert_eq(r.res->npaths, 4);
    for (int i = 0; i < 4; i++) {
        const sx_path *p = &r.res->paths[i];
        cr_expect(strstr(p->formula, "fp.fma"), "path %d formula lacks the fma", i);
        cr_expect_not(p->uf);
        for (uint64_t seed = 0; seed < 2; seed++) {
            wh_image *img = atom(&r, i, seed);
            for (int t = 0; t < 2; t++) {
                float v;
                memcpy(&v, img->bufs[0].data + 4 * t, 4);
                float y = fmaf(v, 0.5f, 1.0f);
                bool jumps = !(y < 0.75f);   /* @%p2 bra with setp.geu */
                cr_expect_eq(first_decision(p, t)->taken, jumps, "path %d thread %d x=%g", i, t, (double)v);
            }
            wh_image_free(img);
        }
    }
    run_free(&r);
}

/* An address made from a float (a particle's cell) is pinned to the
 * state's model without a question to the FP solver (each takes a second
 * or more there: pic_deposit's stage finished no path in 10 s), and the
 * path holds the pin, so its atoms put each thread in its pinned cell. */
Test(symexec, an_address_made_from_a_float_is_pinned_without_the_solver)
{
    run r = explore("tests/specs/sym_float_scatter.json", 2, 0, 30, 0);
    cr_assert_eq(r.res->npaths, 1);
    cr_expect_eq(r.res->solver_calls, 0, "%ld solver calls", r.res->solver_calls);
    cr_expect_geq(r.res->pinned, 2, "one address per thread");
    wh_image *img = atom(&r, 0, 1);
    cr_assert(img);
    float x0, x1;
    memcpy(&x0, img->bufs[0].data, 4);
    memcpy(&x1, img->bufs[0].data + 4, 4);
    cr_expect(x0 >= 0 && x0 <= 64 && x1 >= 0 && x1 <= 64, "in the domain: %g %g", (double)x0, (double)x1);
    wh_image_free(img);
    run_free(&r);
}

Test(symexec, approximate_division_is_uninterpreted)
{
    run r = explore("tests/specs/sym_float_approx.json", 2, 0, 30, 0);
    cr_assert_geq(r.res->npaths, 1);
    for (int i = 0; i < r.res->npaths; i++)
        cr_expect(r.res->paths[i].uf, "path %d should be marked as going through a UF", i);
    run_free(&r);
}

/* ---- warp collectives --------------------------------------------------------------- */

Test(symexec, warp_shuffle_ballot_all_tie_threads)
{
    run r = explore("tests/specs/sym_warp.json", 2, 0, 30, 0);
    sx_result *res = r.res;
    cr_expect_float_eq(sx_result_coverage(res), 100.0, 1e-9);
    cr_assert_gt(res->npaths, 4);
    for (int i = 0; i < res->npaths; i++) {
        const sx_path *p = &res->paths[i];
        wh_image *img = atom(&r, i, 0);
        int32_t v[2] = { i32_at(img, 0, 0), i32_at(img, 0, 1) };
        for (int t = 0; t < 2; t++) {
            cr_assert_eq(p->ndecisions[t], 3);
            int s = v[t ^ 1];                               /* shfl.bfly 1 */
            bool both_big = v[0] > 10 && v[1] > 10;         /* popc(ballot) == 2 */
            bool all_nonzero = v[0] != 0 && v[1] != 0;      /* vote.all */
            cr_expect_eq(p->decisions[t][0].taken, !(s > v[t]), "path %d t%d shfl", i, t);
            cr_expect_eq(p->decisions[t][1].taken, !both_big, "path %d t%d ballot", i, t);
            cr_expect_eq(p->decisions[t][2].taken, !all_nonzero, "path %d t%d all", i, t);
        }
        wh_image_free(img);
    }
    run_free(&r);
}

/* ---- budgets, errors ------------------------------------------------------------------ */

Test(symexec, time_budget_stops_and_counts_pending)
{
    run r = explore("kernels/nsichneu.json", 2, 0, 2.0, 0);
    cr_expect(r.res->budget_hit);
    cr_expect_gt(r.res->npending, 0);
    cr_expect_lt(r.res->time_s, 6.0);
    run_free(&r);
}

Test(symexec, path_budget)
{
    run r = explore("kernels/gt_paths32.json", 2, 0, 30, 10);
    cr_expect_eq(r.res->npaths, 10);
    cr_expect(r.res->budget_hit);
    run_free(&r);
}

/* An instruction the executor cannot model ends its state as a cut path
 * and is reported as an issue naming the opcode and line; the
 * exploration goes on and keeps its paths. */
Test(symexec, unsupported_instruction_ends_its_state_not_the_exploration)
{
    run r;
    load(&r, "tests/specs/sym_unsupported.json");
    sx_options o;
    sx_options_default(&o);
    wh_error err;
    wh_error_clear(&err);
    sx_result *res = sx_explore(r.spec, r.mod, &o, &err);
    cr_assert(res, "%s", err.msg);
    cr_expect_eq(res->npaths, 1);
    cr_expect_eq(res->ncut, 1, "the path ends, cut, at the fns");
    cr_assert_eq(res->nissues, 1);
    cr_expect_eq(res->issues[0].kind, SX_ISSUE_UNSUPPORTED);
    cr_expect_eq(res->issues[0].line, 19);
    cr_expect(strstr(res->issues[0].message, "fns"), "%s", res->issues[0].message);
    cr_expect(strstr(res->paths[0].note, "the path ends there"), "%s", res->paths[0].note);
    sx_result_free(res);
    run_free(&r);
}

Test(symexec, spec_and_ptx_mismatch_is_a_user_error)
{
    run a, b;
    load(&a, "kernels/fig1a.json");
    load(&b, "kernels/fig1b.json");
    sx_options o;
    sx_options_default(&o);
    wh_error err;
    wh_error_clear(&err);
    sx_result *res = sx_explore(a.spec, b.mod, &o, &err);   /* fig1a's entry is not in fig1b.ptx */
    cr_expect_null(res);
    cr_expect_eq(err.kind, WH_ERR_USER);
    cr_expect(strstr(err.msg, "fig1a"), "%s", err.msg);
    o.threads = 0;
    res = sx_explore(a.spec, a.mod, &o, &err);
    cr_expect_null(res);
    run_free(&a);
    run_free(&b);
}

/* A loop that spins on an input value the path has fixed asks the solver
 * the same question every iteration; the answer is remembered while the
 * path constraints do not change, so reaching the instruction cap costs a
 * handful of checks instead of one per iteration (250 000 before). */
Test(symexec, a_settled_condition_is_not_asked_again)
{
    run r = explore("tests/specs/hang_small.json", 1, 4, 60, 0);
    int spinning = -1;
    for (int i = 0; i < r.res->npaths; i++)
        if (r.res->paths[i].kind == SX_PATH_CUT) spinning = i;
    cr_assert_geq(spinning, 0, "the spinning path is cut at the instruction cap");
    cr_expect_gt(r.res->paths[spinning].ndecisions[0], 1000, "it went round the loop: %d decisions",
                 r.res->paths[spinning].ndecisions[0]);
    cr_expect_lt(r.res->solver_calls, 100, "%ld solver checks", (long)r.res->solver_calls);
    run_free(&r);
}

/* A grid-stride loop of 1500 atomics per thread at symbolic shared-memory
 * offsets (bins[v[i] & 63]): after SX_SYMBOLIC_STORES_MAX symbolic stores
 * the offsets are pinned, and past SX_ARRAY_OPS_MAX such accesses the path
 * ends as cut, saying why, instead of handing Z3 a formula it does not
 * answer in bounded time (it ignored its timeout for minutes before). */
Test(symexec, long_symbolic_store_chains_are_pinned_then_cut)
{
    run r = explore("tests/specs/sim_histogram_shared.json", 2, 0, 30, 5);
    cr_expect_gt(r.res->pinned, 0);
    cr_assert_geq(r.res->ncut, 1);
    bool said = false;
    for (int i = 0; i < r.res->npaths; i++)
        said |= r.res->paths[i].kind == SX_PATH_CUT && r.res->paths[i].note &&
                strstr(r.res->paths[i].note, "loads and stores at symbolic offsets");
    cr_expect(said, "a cut path says why");
    run_free(&r);
}

/* The slot of a key in the 2048-slot table of sym_alias_slot (its hash). */
static uint32_t alias_slot_of(uint32_t key)
{
    return (uint32_t)(key * 2654435761u) >> 21;
}

/* The table is larger than SX_ARRAY_REGION_MAX, so its symbolic offsets are
 * pinned, never made a Z3 array; before thread 1's probe is pinned the
 * executor forks over the slot thread 0 wrote, so both the probe that meets
 * thread 0's key and the one that does not are explored, each with an atom
 * whose keys do (do not) share a slot. */
Test(symexec, large_table_probes_fork_over_written_slots)
{
    run r = explore("tests/specs/sym_alias_slot.json", 2, 0, 20, 0);
    cr_expect_gt(r.res->pinned, 0, "the table's offsets are pinned");
    cr_assert_eq(r.res->npaths, 2, "one path per probe outcome: %d", r.res->npaths);
    int meet = 0, miss = 0;
    for (int i = 0; i < r.res->npaths; i++) {
        wh_image *img = atom(&r, i, 0);
        uint32_t k0 = (uint32_t)wh_value_get_int(WH_U32, img->bufs[0].data);
        uint32_t k1 = (uint32_t)wh_value_get_int(WH_U32, img->bufs[0].data + 4);
        if (alias_slot_of(k0) == alias_slot_of(k1))
            meet++;
        else
            miss++;
        wh_image_free(img);
    }
    cr_expect_eq(meet, 1, "a path whose keys share a slot");
    cr_expect_eq(miss, 1, "a path whose keys do not");
    run_free(&r);
}

/* union_find_roots's walk loads parent[x], then parent[parent[x]], and
 * writes the grandparent back, all at input offsets.  As a Z3 byte array
 * every check gave up (2 paths of X = 2 in 24 s); as word cases (memory.c)
 * X = 2 finishes, each loaded word's bounds proving the next address inside
 * the buffer without the solver. */
Test(symexec, pointer_chasing_stores_are_word_cases)
{
    run r = explore("kernels/holdout/union_find_roots.json", 2, 0, 20, 0);
    cr_expect_geq(r.res->npaths, 10, "%d paths", r.res->npaths);
    cr_expect_eq(r.res->npending, 0, "X = 2 explored to the end");
    cr_expect_eq(r.res->giveups, 0, "%ld give-ups", (long)r.res->giveups);
    int deep = 0;
    for (int i = 0; i < r.res->npaths; i++)
        deep = r.res->paths[i].ndecisions[0] > deep ? r.res->paths[i].ndecisions[0] : deep;
    cr_expect_geq(deep, 3, "a walk of several trips: %d decisions", deep);
    run_free(&r);
}

/* A binary search over 65535 fixed keys: the loop's bounds go through
 * selp, so every probe after the first is at a symbolic offset into a
 * 256 KB table.  As a Z3 array that table took the whole budget (0 paths
 * in 10 s); pinned, the paths come within the budget. */
Test(symexec, binary_search_over_a_large_table_finds_paths)
{
    run r = explore("kernels/corpus/binary_search.json", 2, 0, 10, 20);
    cr_expect_eq(r.res->npaths, 20, "%d paths", r.res->npaths);
    cr_expect_gt(r.res->pinned, 0);
    cr_expect_eq(r.res->giveups, 0, "%ld give-ups", (long)r.res->giveups);
    run_free(&r);
}

/* escape_time's float checks give up, yet its concolic states still fork
 * where a sampled input shows the other side of a branch feasible
 * (witness.c): many paths at X = 2 where following the model gave 4 in
 * 40 s (bench/symexec_witness.md). */
/* escape_time at X = 2, 100 ms per check (its float checks give up), 20 s
 * and `paths` paths at most. */
static void explore_escape_time(run *r, int paths)
{
    load(r, "kernels/corpus/escape_time.json");
    sx_options o;
    sx_options_default(&o);
    o.threads = 2;
    o.time_budget_s = 20;
    o.path_budget = paths;
    o.query_ms = 100;
    wh_error err;
    wh_error_clear(&err);
    r->res = sx_explore(r->spec, r->mod, &o, &err);
    cr_assert(r->res, "%s", err.msg);
}

Test(symexec, sampled_witnesses_fork_where_the_solver_gives_up)
{
    run r;
    explore_escape_time(&r, 20);
    cr_expect_gt(r.res->giveups, 0, "no check gave up");
    cr_expect_gt(r.res->witnesses, 0, "no side shown feasible by a sampled input");
    cr_expect_geq(r.res->npaths, 10, "%d paths", r.res->npaths);
    run_free(&r);
}

/* After the solver gives up on a state (here every check of escape_time's
 * float iteration past 100 ms) the state turns concolic: it follows its
 * model to the end instead of giving up check after check, and its final
 * model is its atom. */
Test(symexec, a_state_the_solver_gave_up_on_follows_its_model)
{
    run r;
    explore_escape_time(&r, 2);
    cr_assert_gt(r.res->giveups, 0, "no check gave up");
    int concolic = -1;
    for (int i = 0; i < r.res->npaths; i++)
        if (r.res->paths[i].note && strstr(r.res->paths[i].note, "follows its model"))
            concolic = i;
    cr_assert_geq(concolic, 0, "no path went on after a give-up (%d paths)", r.res->npaths);
    cr_expect_gt(r.res->concolic, 0, "counted in sx_result.concolic");
    wh_image *img = atom(&r, concolic, 0);
    wh_image_free(img);
    run_free(&r);
}
