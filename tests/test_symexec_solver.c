/*
 * test_symexec_solver.c — the executor's shortcuts around the solver,
 * driven through its internal interface: refutations remembered along a
 * path (and never lent to a path they do not cover), and conditions over
 * selected floats rewritten without floats (an equivalence, checked with
 * Z3), plus their effect on a whole kernel: lbm explored to the end,
 * every path formula free of floats and satisfied by its atoms.
 */
#include <criterion/criterion.h>

#include "core/clock.h"
#include "symexec/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    wh_spec *spec;
    ptx_module *mod;
    sx_result *res;
} run;

static run explore_with(const char *spec_path, const sx_options *o)
{
    run r;
    wh_error err;
    wh_error_clear(&err);
    memset(&r, 0, sizeof r);
    r.spec = wh_spec_load(spec_path, &err);
    cr_assert(r.spec, "%s: %s", spec_path, err.msg);
    char ptx[1024];
    cr_assert(wh_spec_ptx_path(r.spec, ptx, sizeof ptx, &err), "%s", err.msg);
    r.mod = ptx_parse_file(ptx, &err);
    cr_assert(r.mod, "%s: %s", ptx, err.msg);
    r.res = sx_explore(r.spec, r.mod, o, &err);
    cr_assert(r.res, "%s: %s", spec_path, err.msg);
    return r;
}

static run explore_mb(const char *spec_path, int x, double time_s, unsigned solver_mb)
{
    sx_options o;
    sx_options_default(&o);
    o.threads = x;
    o.time_budget_s = time_s;
    o.solver_mb = solver_mb;
    return explore_with(spec_path, &o);
}

static run explore(const char *spec_path, int x, double time_s)
{
    return explore_mb(spec_path, x, time_s, 0);
}

static void run_free(run *r)
{
    sx_result_free(r->res);
    ptx_module_free(r->mod);
    wh_spec_free(r->spec);
}

static Z3_ast num(sx_engine *e, int v)
{
    return sx_z_num(&e->z, (uint64_t)(uint32_t)v, 32);
}

/* (input[t] > v), signed */
static Z3_ast gt(sx_engine *e, int t, int v)
{
    return sx_zk(&e->z, Z3_mk_bvsgt(e->z.c, e->syms[t].ast, num(e, v)));
}

/* An engine with its Z3 context and symbols, from a finished run of
 * fig1a at X = 2 (input[0], input[1] in [0, 255]). */
static sx_engine *engine_of(run *r)
{
    sx_engine *e = r->res->priv;
    cr_assert(e);
    cr_assert_geq(e->nsyms, 2);
    cr_assert(e->syms[0].ast && e->syms[1].ast);
    return e;
}

Test(symexec_solver, a_refutation_answers_longer_paths_only)
{
    run r = explore("kernels/fig1a.json", 2, 30);
    sx_engine *e = engine_of(&r);
    sx_state *s = sx_state_new(e);
    cr_assert(s);
    sx_state_add_pc(e, s, gt(e, 0, 100));
    Z3_ast low = sx_z_not(&e->z, gt(e, 0, 50));          /* input[0] <= 50 */
    long c0 = e->checks;
    cr_expect_eq(sx_solver_check(e, s, low, NULL), 0);
    cr_expect_eq(e->checks, c0 + 1, "the first refutation asks the solver");

    /* the same state, and a copy whose pc grew: no solver call */
    cr_expect_eq(sx_solver_check(e, s, low, NULL), 0);
    sx_state *c = sx_state_clone(e, s);
    cr_assert(c);
    sx_state_add_pc(e, c, gt(e, 1, 7));
    cr_expect_eq(sx_solver_check(e, c, low, NULL), 0);
    cr_expect_eq(e->checks, c0 + 1, "%ld checks", e->checks - c0);

    /* a state whose pc does not extend the refuting one: it must ask, and
     * the query is satisfiable there, with a model of its whole pc */
    sx_state *o = sx_state_new(e);
    cr_assert(o);
    sx_state_add_pc(e, o, gt(e, 1, 7));
    Z3_model m = NULL;
    cr_expect_eq(sx_solver_check(e, o, low, &m), 1);
    cr_expect_eq(e->checks, c0 + 2);
    cr_assert(m);
    Z3_ast both = sx_z_and2(&e->z, o->pc->ast, low);
    Z3_ast v = sx_model_value(e, m, both);
    cr_expect(v && sx_z_bool_value(&e->z, v) == 1, "the model satisfies the pc and the query");
    Z3_model_dec_ref(e->z.c, m);

    /* a satisfiable answer is not remembered as a refutation */
    Z3_ast high = gt(e, 0, 200);
    cr_expect_eq(sx_solver_check(e, s, high, NULL), 1);
    cr_expect_eq(sx_solver_check(e, s, high, NULL), 1);
    cr_expect_eq(e->checks, c0 + 4);

    sx_state_free(e, o);
    sx_state_free(e, c);
    sx_state_free(e, s);
    sx_z_release(&e->z);
    run_free(&r);
}

/* Is (a <=> b) valid under the domains? */
static bool equivalent(sx_engine *e, Z3_ast a, Z3_ast b)
{
    Z3_context c = e->z.c;
    Z3_solver s = Z3_mk_solver(c);
    Z3_solver_inc_ref(c, s);
    Z3_solver_assert(c, s, e->domains);
    Z3_solver_assert(c, s, sx_z_not(&e->z, sx_zk(&e->z, Z3_mk_eq(c, a, b))));
    bool same = Z3_solver_check(c, s) == Z3_L_FALSE;
    Z3_solver_dec_ref(c, s);
    return same;
}

static Z3_ast fnum(sx_engine *e, float v)
{
    return sx_zk(&e->z, Z3_mk_fpa_numeral_float(e->z.c, v, e->z.fp32));
}

Test(symexec_solver, selected_floats_are_a_case_split)
{
    run r = explore("kernels/fig1a.json", 2, 30);
    sx_engine *e = engine_of(&r);
    sx_z *z = &e->z;
    Z3_context c = z->c;
    Z3_ast rne = z->rm[SX_RM_RNE];
    /* u = ite(input[0] == 2, 0.05, 1/81); rho = ite(input[1] > 3, 1, 0.5) */
    Z3_ast a0 = sx_z_eq(z, e->syms[0].ast, num(e, 2)), a1 = gt(e, 1, 3);
    Z3_ast u = sx_z_ite(z, a0, fnum(e, 0.05f), fnum(e, 1.0f / 81.0f));
    Z3_ast rho = sx_z_ite(z, a1, fnum(e, 1.0f), fnum(e, 0.5f));
    Z3_ast uu = sx_zk(z, Z3_mk_fpa_mul(c, rne, u, u));

    /* a guard no input can trigger folds to false */
    Z3_ast never = sx_zk(z, Z3_mk_fpa_gt(c, uu, fnum(e, 0.3f)));
    Z3_ast r0 = sx_cases_defloat(e, never);
    cr_expect_eq(sx_z_bool_value(z, r0), 0);

    /* one that depends on the selects becomes a condition on the inputs */
    Z3_ast q = sx_zk(z, Z3_mk_fpa_lt(c, sx_zk(z, Z3_mk_fpa_mul(c, rne, rho, uu)), fnum(e, 0.002f)));
    Z3_ast r1 = sx_cases_defloat(e, q);
    cr_expect_neq(r1, q);
    cr_expect_not(sx_cases_has_float(e, r1));
    cr_expect(sx_cases_has_float(e, q));
    cr_expect(equivalent(e, q, r1));
    cr_expect(equivalent(e, r1, sx_z_or2(z, sx_z_not(z, a0), sx_z_not(z, a1))));

    /* a free float is no case split: left alone */
    Z3_ast f = sx_zk(z, Z3_mk_const(c, Z3_mk_string_symbol(c, "free_float"), z->fp32));
    Z3_ast g = sx_zk(z, Z3_mk_fpa_lt(c, sx_zk(z, Z3_mk_fpa_mul(c, rne, f, u)), fnum(e, 0.002f)));
    cr_expect_eq(sx_cases_defloat(e, g), g);
    /* and so is a condition without floats */
    cr_expect_eq(sx_cases_defloat(e, a1), a1);
    sx_z_release(z);
    run_free(&r);
}

/* lbm's float terms only select among fixed populations by cell type:
 * with the rewrite its exploration at X = 2 ends well inside the budget
 * (it took 2.5 s of solver time before; the same 49 paths now take a
 * tenth of a second), the path formulas have no floats, and each path
 * still has an atom within the domains (the soundness suite replays
 * them on the emulator). */
Test(symexec_solver, lbm_explores_to_the_end_without_floats, .timeout = 120)
{
    run r = explore("kernels/lbm.json", 2, 60);
    sx_result *res = r.res;
    cr_expect_eq(res->npending, 0, "%d states left", res->npending);
    cr_expect_not(res->budget_hit);
    cr_expect_eq(res->ndone, res->npaths);
    cr_expect_gt(res->npaths, 40, "%d paths", res->npaths);
    sx_engine *e = res->priv;
    for (int i = 0; i < res->npaths; i++) {
        cr_expect_not(e->form_fp[i], "path %d", i);
        cr_expect_null(strstr(res->paths[i].formula, "fp."), "path %d: %s", i, res->paths[i].formula);
        wh_error err;
        wh_error_clear(&err);
        wh_launch l = wh_launch_threads(2);
        wh_image *img = wh_image_new(r.spec, &l, &err);
        cr_assert(img, "%s", err.msg);
        cr_assert(sx_path_model(res, i, 0, img, &err), "path %d: %s", i, err.msg);
        cr_expect(wh_image_check_domains(img, &err), "path %d: %s", i, err.msg);
        wh_image_free(img);
    }
    run_free(&r);
}

/* sx_model_limits: past the deadline no check starts, and a path found
 * by this engine still has atoms: seed 0 is its final state's model, other
 * seeds keep the pins that model screens true.  (Only a path read back
 * from the cache, with no model, has none then.) */
Test(symexec_solver, model_limits_stop_at_the_deadline)
{
    run r = explore("tests/specs/sym_alias_slot.json", 2, 30);
    cr_assert_gt(r.res->npaths, 0);
    wh_error err;
    wh_error_clear(&err);
    wh_launch l = wh_launch_threads(2);
    wh_image *img = wh_image_new(r.spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    sx_model_limits(r.res, 1000, wh_clock_s() - 1);
    long checks = r.res->model_checks;
    for (int p = 0; p < r.res->npaths; p++)
        for (uint64_t seed = 0; seed < 4; seed++)
            cr_expect(sx_path_model(r.res, p, seed, img, &err), "path %d seed %d: %s", p, (int)seed, err.msg);
    cr_expect_eq(r.res->model_checks, checks, "a check ran past the deadline");
    wh_image_free(img);
    run_free(&r);
}

/* ---- the watchdog --------------------------------------------------------------- */

/* 16 pigeons in 15 holes, as 8-bit values below 15 pairwise distinct:
 * unsatisfiable, and exponential for the SAT core (12 pigeons took 9 s,
 * 14 more than 20), far beyond the watchdog's 200 ms.  Interrupted, the
 * check answers unknown; the context must then answer the next check (an
 * interrupt that stayed set would cancel every later call). */
enum { PIGEONS = 16 };

/* The pigeons into s: p[i] (referenced) below PIGEONS - 1, pairwise distinct. */
static void assert_pigeons(Z3_context c, Z3_solver s, Z3_ast *p)
{
    Z3_sort s8 = Z3_mk_bv_sort(c, 8);
    for (int i = 0; i < PIGEONS; i++) {
        char name[16];
        snprintf(name, sizeof name, "pigeon%d", i);
        p[i] = Z3_mk_const(c, Z3_mk_string_symbol(c, name), s8);
        Z3_inc_ref(c, p[i]);
        Z3_solver_assert(c, s, Z3_mk_bvult(c, p[i], Z3_mk_unsigned_int(c, PIGEONS - 1, s8)));
        for (int j = 0; j < i; j++)
            Z3_solver_assert(c, s, Z3_mk_not(c, Z3_mk_eq(c, p[i], p[j])));
    }
}

Test(symexec_solver, watchdog_interrupts_a_check_and_the_context_goes_on)
{
    Z3_config cfg = Z3_mk_config();
    Z3_context c = Z3_mk_context_rc(cfg);
    Z3_del_config(cfg);
    Z3_solver s = Z3_mk_simple_solver(c);
    Z3_solver_inc_ref(c, s);
    Z3_ast p[PIGEONS];
    assert_pigeons(c, s, p);

    sx_watchdog *w = sx_watchdog_new(c, 0);
    cr_assert(w);
    sx_watchdog_arm(w, 200);
    Z3_lbool r = Z3_solver_check(c, s);
    cr_expect_eq(sx_watchdog_disarm(w), SX_CUT_TIME, "the watchdog fired at the deadline");
    cr_expect_eq(r, Z3_L_UNDEF, "an interrupted check answers unknown");

    /* the same check under a memory limit Z3 is already past: cut for
     * memory at the first look, long before the deadline */
    sx_watchdog *m = sx_watchdog_new(c, 1);
    cr_assert(m);
    double t0 = wh_clock_s();
    sx_watchdog_arm(m, 60000);
    r = Z3_solver_check(c, s);
    cr_expect_eq(sx_watchdog_disarm(m), SX_CUT_MEMORY, "the watchdog fired for memory");
    cr_expect_eq(r, Z3_L_UNDEF);
    cr_expect_lt(wh_clock_s() - t0, 30.0, "cut long before the 60 s deadline");
    sx_watchdog_free(m);

    Z3_solver_reset(c, s);
    Z3_solver_assert(c, s, Z3_mk_bvugt(c, p[0], p[1]));
    sx_watchdog_arm(w, 60000);
    cr_expect_eq(Z3_solver_check(c, s), Z3_L_TRUE, "the context answers after an interrupt");
    cr_expect_eq(sx_watchdog_disarm(w), SX_CUT_NONE, "an easy check is not cut");

    sx_watchdog_free(w);
    Z3_solver_dec_ref(c, s);
    for (int i = 0; i < PIGEONS; i++)
        Z3_dec_ref(c, p[i]);
    Z3_del_context(c);
}

/* A memory limit Z3 is past from the start (1 MiB): no check is made, each
 * is a give-up counted for memory, and the exploration still ends with a
 * path (followed on its model) instead of failing; the default limit cuts
 * nothing on the same kernel. */
Test(symexec_solver, a_memory_limit_gives_up_checks_and_keeps_the_paths)
{
    run r = explore_mb("kernels/gt_hash.json", 2, 10, 1);
    cr_expect_gt(r.res->memouts, 0, "checks given up for memory");
    cr_expect_geq(r.res->interrupted, r.res->memouts);
    cr_expect_gt(r.res->giveups, 0);
    cr_expect_gt(r.res->npaths, 0, "partial, never failed");
    run_free(&r);

    run d = explore("kernels/gt_hash.json", 2, 10);
    cr_expect_eq(d.res->memouts, 0, "the default limit cuts nothing here");
    cr_expect_gt(d.res->npaths, 1);
    run_free(&d);
}

/* ---- checks in a child process (isolate.c) ---------------------------------------- */

/* The pigeons of the watchdog test, in the engine's context: an isolated
 * check of them is killed at its deadline and answers unknown, and the
 * parent's context answers the next check (the child had its own copy). */
Test(symexec_solver, an_isolated_check_is_killed_at_its_deadline)
{
    run r = explore("tests/specs/sym_float.json", 2, 10);
    sx_engine *e = r.res->priv;
    Z3_context c = e->z.c;
    Z3_solver s = Z3_mk_simple_solver(c);
    Z3_solver_inc_ref(c, s);
    Z3_ast p[PIGEONS];
    assert_pigeons(c, s, p);
    Z3_lbool answer = Z3_L_TRUE;
    double t0 = wh_clock_s();
    int how = sx_isolated_check(e, s, t0 + 0.2, NULL, &answer);
    cr_expect_eq(how, -1, "the child was killed at the deadline (%d)", how);
    cr_expect_eq(answer, Z3_L_UNDEF);
    cr_expect_lt(wh_clock_s() - t0, 5.0, "killed, not left to run (12 pigeons took 9 s)");
    Z3_solver_reset(c, s);
    Z3_solver_assert(c, s, Z3_mk_bvugt(c, p[0], p[1]));
    cr_expect_eq(sx_isolated_check(e, s, wh_clock_s() + 60, NULL, &answer), 1);
    cr_expect_eq(answer, Z3_L_TRUE, "an easy check answers in the child");
    cr_expect_eq(Z3_solver_check(c, s), Z3_L_TRUE, "and in the parent");
    Z3_solver_assert(c, s, Z3_mk_bvugt(c, p[1], p[0]));
    cr_expect_eq(sx_isolated_check(e, s, wh_clock_s() + 60, NULL, &answer), 1);
    cr_expect_eq(answer, Z3_L_FALSE, "an unsatisfiable check answers so in the child, not unknown");
    Z3_solver_dec_ref(c, s);
    for (int i = 0; i < PIGEONS; i++)
        Z3_dec_ref(c, p[i]);
    run_free(&r);
}

/* A satisfiable check on floats in a child: the model rebuilt from the
 * values it sends back satisfies every assertion.  (It need not be the
 * model the same check makes here afterwards: rebuilding it adds terms to
 * this context, and Z3's choices follow its terms' ids.)  The product
 * pins x[1] to one float, so a value off by one bit fails. */
Test(symexec_solver, an_isolated_model_satisfies_the_check)
{
    run r = explore("tests/specs/sym_float.json", 2, 10);
    sx_engine *e = r.res->priv;
    Z3_context c = e->z.c;
    cr_assert_geq(e->nsyms, 2);
    sx_z *z = &e->z;   /* sx_zk: each term referenced until sx_z_release */
    Z3_sort f32 = Z3_mk_fpa_sort_32(c);
    Z3_ast x0 = sx_zk(z, Z3_mk_fpa_to_fp_bv(c, e->syms[0].ast, f32));
    Z3_ast x1 = sx_zk(z, Z3_mk_fpa_to_fp_bv(c, e->syms[1].ast, f32));
    Z3_ast rne = sx_zk(z, Z3_mk_fpa_rne(c));
    Z3_ast prod = sx_zk(z, Z3_mk_fpa_mul(c, rne, x0, x1));
    Z3_ast want = sx_zk(z, Z3_mk_fpa_numeral_float(c, 2.5f, f32));
    Z3_ast first = sx_zk(z, Z3_mk_fpa_numeral_float(c, -0.625f, f32));
    Z3_ast f[3] = { e->domains, sx_zk(z, Z3_mk_fpa_eq(c, prod, want)), sx_zk(z, Z3_mk_fpa_eq(c, x0, first)) };
    Z3_solver s = Z3_mk_solver_for_logic(c, Z3_mk_string_symbol(c, "QF_BVFP"));
    Z3_solver_inc_ref(c, s);
    for (int i = 0; i < 3; i++)
        Z3_solver_assert(c, s, f[i]);
    Z3_model m = NULL;
    Z3_lbool answer = Z3_L_UNDEF;
    cr_assert_eq(sx_isolated_check(e, s, wh_clock_s() + 60, &m, &answer), 1);
    cr_assert_eq(answer, Z3_L_TRUE);
    cr_assert(m);
    for (int i = 0; i < 3; i++) {
        Z3_ast v = sx_model_value(e, m, f[i]);
        cr_expect(v && sx_z_bool_value(z, v) == 1, "assertion %d does not hold in the rebuilt model", i);
    }
    Z3_model_dec_ref(c, m);
    Z3_solver_dec_ref(c, s);
    sx_z_release(z);
    run_free(&r);
}

/* Atoms of float paths with a deadline near (checks in a child process)
 * are the atoms made without one (checks here), byte for byte.  On this
 * kernel the checks that reach the solver are the pins it refuses (the
 * screen keeps the others), so it is the child's "unsatisfiable" that
 * must agree; the test above covers its models. */
Test(symexec_solver, isolated_float_checks_refuse_the_same_pins)
{
    run r = explore("tests/specs/sym_float.json", 2, 30);
    sx_engine *e = r.res->priv;
    int fp = 0;
    for (int i = 0; i < r.res->npaths; i++)
        fp += e->form_fp[i];
    cr_assert_gt(fp, 0, "no path over floats");
    wh_error err;
    wh_error_clear(&err);
    wh_launch l = wh_launch_threads(2);
    wh_image *here = wh_image_new(r.spec, &l, &err), *there = wh_image_new(r.spec, &l, &err);
    cr_assert(here && there, "%s", err.msg);
    int compared = 0;
    long isolated = 0;
    for (int i = 0; i < r.res->npaths; i++) {
        if (!e->form_fp[i])
            continue;
        for (uint64_t seed = 1; seed < 4; seed++) {
            sx_model_limits(r.res, 0, 0);
            bool a = sx_path_model(r.res, i, seed, here, &err);
            /* isolated: within SX_ISOLATE_LEFT_MS of the deadline */
            sx_model_limits(r.res, 20000, wh_clock_s() + 2.9);
            long checks = e->isolated;
            bool b = sx_path_model(r.res, i, seed, there, &err);
            isolated += e->isolated - checks;
            cr_expect_eq(a, b, "path %d seed %d: %s", i, (int)seed, err.msg);
            for (int k = 0; a && b && k < here->nbufs; k++)
                cr_expect_arr_eq(here->bufs[k].data, there->bufs[k].data, here->bufs[k].bytes,
                                 "path %d seed %d: buffer %d differs", i, (int)seed, k);
            compared += a && b;
        }
    }
    cr_expect_gt(compared, 0);
    cr_expect_gt(isolated, 0, "no check ran in a child (every pin screened)");
    wh_image_free(here);
    wh_image_free(there);
    run_free(&r);
}

/* The search's checks on floats, each in a child process: the same
 * paths and legs as in process (sym_float is explored to its end), and
 * the children did the checking.  (The run "in process" may isolate some
 * too: a check slowed to 200 ms on a loaded machine sets the rule off.) */
Test(symexec_solver, float_search_checks_in_a_child_find_the_same_paths)
{
    sx_options o;
    sx_options_default(&o);
    o.time_budget_s = 60;
    run here = explore_with("tests/specs/sym_float.json", &o);
    o.isolate_fp = true;
    run there = explore_with("tests/specs/sym_float.json", &o);
    cr_expect_gt(((sx_engine *)there.res->priv)->isolated, 0, "no check ran in a child");
    cr_expect_eq(here.res->npaths, there.res->npaths);
    cr_expect_eq(here.res->nlegs_covered, there.res->nlegs_covered);
    cr_expect_eq(there.res->giveups, 0);
    run_free(&here);
    run_free(&there);
}

/* A check on floats killed in its child at the query limit (1 ms: a fork
 * alone takes longer) is a give-up counted as cut, not a question passed
 * on to the incremental solver in process, which Z3 may hold past every
 * limit; the exploration still ends with paths (followed on models). */
Test(symexec_solver, a_float_check_killed_in_its_child_is_a_give_up)
{
    sx_options o;
    sx_options_default(&o);
    o.time_budget_s = 60;
    o.query_ms = 1;
    o.isolate_fp = true;
    run r = explore_with("tests/specs/sym_float.json", &o);
    cr_expect_gt(r.res->interrupted, 0, "no child was killed");
    cr_expect_geq(r.res->giveups, r.res->interrupted);
    cr_expect_gt(r.res->npaths, 0);
    run_free(&r);
}

/* ---- progress -------------------------------------------------------------------- */

typedef struct {
    int calls;
    sx_progress last;
    bool monotone;
} progress_log;

static void log_progress(void *ctx, const sx_progress *p)
{
    progress_log *l = ctx;
    if (l->calls > 0 && (p->paths < l->last.paths || p->legs_covered < l->last.legs_covered ||
                         p->solver_calls < l->last.solver_calls))
        l->monotone = false;
    l->last = *p;
    l->calls++;
}

/* The search reports as it goes: snapshots that only grow and end below
 * the final result. */
Test(symexec_solver, progress_is_reported_during_the_search)
{
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = wh_spec_load("kernels/nsichneu.json", &err);
    cr_assert(spec, "%s", err.msg);
    char ptx[1024];
    cr_assert(wh_spec_ptx_path(spec, ptx, sizeof ptx, &err), "%s", err.msg);
    ptx_module *mod = ptx_parse_file(ptx, &err);
    cr_assert(mod, "%s", err.msg);
    progress_log log = { .monotone = true };
    sx_options o;
    sx_options_default(&o);
    o.threads = 2;
    o.path_budget = 3;
    o.progress = log_progress;
    o.progress_ctx = &log;
    o.progress_s = 1e-6;
    sx_result *r = sx_explore(spec, mod, &o, &err);
    cr_assert(r, "%s", err.msg);
    cr_expect_geq(log.calls, 2, "reported %d times", log.calls);
    cr_expect(log.monotone, "snapshots only grow");
    cr_expect_eq(log.last.threads, 2);
    cr_expect_eq(log.last.legs, r->nlegs);
    cr_expect_leq(log.last.paths, r->npaths);
    cr_expect_leq(log.last.legs_covered, r->nlegs_covered);
    sx_result_free(r);
    ptx_module_free(mod);
    wh_spec_free(spec);
}
