/*
 * test_symexec_warp_ctrl.c — the three constructs the symbolic executor
 * took over from the emulator-only list: brx.idx (one path per feasible
 * target, an index past the list an error path with an issue), cp.async
 * (a global -> shared copy at issue, with its zero fill) and a shfl whose
 * lane or clamp operand is data-dependent (an ite over the warp's lanes on
 * the source lane's term).  Every finished path's atoms replay on the sim
 * with the same per-thread branch decisions, thread instructions and warp
 * instructions, as in tests/test_symexec_sound.c; the source lane's term
 * agrees with ptx_shfl_source on every lane operand for many clamps.
 */
#include <criterion/criterion.h>

#include "harness/harness.h"
#include "symexec/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_X 8
#define MAX_DEC 256

/* ---- exploring and replaying ---------------------------------------------------- */

typedef struct {
    wh_spec *spec;
    ptx_module *mod;
    sx_result *res;
} run;

static run explore(const char *spec_path, int x)
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
    sx_options o;
    sx_options_default(&o);
    o.threads = x;
    o.time_budget_s = 60;
    r.res = sx_explore(r.spec, r.mod, &o, &err);
    cr_assert(r.res, "%s: line %d: %s", spec_path, err.line, err.msg);
    return r;
}

static void run_free(run *r)
{
    sx_result_free(r->res);
    ptx_module_free(r->mod);
    wh_spec_free(r->spec);
}

typedef struct {
    int n[MAX_X];
    int func[MAX_X][MAX_DEC], block[MAX_X][MAX_DEC];
    bool taken[MAX_X][MAX_DEC];
} trace;

static void on_branch(void *ctx, uint64_t thread, int func, int block, bool taken)
{
    trace *tr = ctx;
    cr_assert(thread < MAX_X && tr->n[thread] < MAX_DEC);
    int k = tr->n[thread]++;
    tr->func[thread][k] = func;
    tr->block[thread][k] = block;
    tr->taken[thread][k] = taken;
}

/* An atom of path i (seed), its image freshly made. */
static wh_image *atom(const run *r, int i, uint64_t seed)
{
    wh_error err;
    wh_error_clear(&err);
    wh_launch l = wh_launch_threads((unsigned)r->res->threads);
    wh_image *img = wh_image_new(r->spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    cr_assert(sx_path_model(r->res, i, seed, img, &err), "path %d: %s", i, err.msg);
    cr_assert(wh_image_check_domains(img, &err), "path %d: %s", i, err.msg);
    return img;
}

/* Run img on the sim with the branch trace into tr. */
static void sim_run(const run *r, wh_image *img, trace *tr, harness_result *res)
{
    wh_error err;
    wh_error_clear(&err);
    harness_options ho;
    harness_options_init(&ho);
    ho.quiet = true;
    ho.on_branch = on_branch;
    ho.branch_ctx = tr;
    harness *h = harness_open(r->spec, HARNESS_SIM, &ho, &err);
    cr_assert(h, "%s", err.msg);
    memset(tr, 0, sizeof *tr);
    cr_assert(harness_measure(h, img, 1, res, &err), "%s", err.msg);
    harness_close(h);
}

/* Path i's atoms (two seeds) take its decisions on the sim and issue its
 * thread and warp instructions. */
static void replays(const run *r, int i)
{
    const sx_path *p = &r->res->paths[i];
    trace *tr = calloc(1, sizeof *tr);
    cr_assert(tr);
    for (uint64_t seed = 0; seed < 2; seed++) {
        wh_image *img = atom(r, i, seed);
        harness_result res;
        sim_run(r, img, tr, &res);
        cr_assert_eq(res.status, HARNESS_OK, "path %d: %s", i, res.message);
        for (int t = 0; t < p->nthreads; t++) {
            cr_assert_eq(tr->n[t], p->ndecisions[t], "path %d thread %d: decisions", i, t);
            for (int k = 0; k < tr->n[t]; k++) {
                const sx_decision *d = &p->decisions[t][k];
                cr_expect_eq(tr->func[t][k], d->func);
                cr_expect_eq(tr->block[t][k], r->mod->funcs[d->func].instrs[d->instr].block);
                cr_expect_eq(tr->taken[t][k], d->taken, "path %d thread %d decision %d", i, t, k);
            }
        }
        cr_expect_eq(res.lane_instructions, p->instr, "path %d: thread instructions", i);
        cr_expect_eq(res.warp_instructions, p->warp_instr, "path %d: warp instructions", i);
        harness_result_free(&res);
        wh_image_free(img);
    }
    free(tr);
}

/* Every finished path of r replays; returns how many there are. */
static int all_replay(const run *r)
{
    int done = 0;
    for (int i = 0; i < r->res->npaths; i++) {
        if (r->res->paths[i].kind != SX_PATH_DONE)
            continue;
        replays(r, i);
        done++;
    }
    return done;
}

static uint32_t u32_at(const wh_image *img, int p, uint64_t i)
{
    uint32_t v;
    memcpy(&v, img->bufs[p].data + 4 * i, 4);
    return v;
}

/* ---- brx.idx ---------------------------------------------------------------------- */

/* One thread: sel in [0, 3] against three targets gives three finished
 * paths (sel = 0, 1, 2, one each) and an error path for sel = 3, reported
 * as an issue with its condition and model; the sim faults on that atom. */
Test(symexec_warp_ctrl, brx_forks_one_path_per_target)
{
    run r = explore("tests/specs/sym_brx.json", 1);
    cr_assert_eq(r.res->npaths, 4);
    cr_expect_eq(r.res->ndone, 3);
    cr_expect_eq(r.res->nerror, 1);
    bool seen[3] = { false, false, false };
    int err_path = -1;
    for (int i = 0; i < r.res->npaths; i++) {
        const sx_path *p = &r.res->paths[i];
        wh_image *img = atom(&r, i, 0);
        uint32_t sel = u32_at(img, 0, 0);
        if (p->kind == SX_PATH_ERROR) {
            err_path = i;
            cr_expect_eq(sel, 3u);
            cr_expect(p->note && strstr(p->note, "out of range"), "%s", p->note ? p->note : "");
        } else {
            cr_assert_lt(sel, 3u);
            cr_expect(!seen[sel], "two paths for target %u", sel);
            seen[sel] = true;
        }
        wh_image_free(img);
    }
    cr_expect(seen[0] && seen[1] && seen[2]);
    cr_assert_eq(r.res->nissues, 1);
    const sx_issue *is = &r.res->issues[0];
    cr_expect_eq(is->kind, SX_ISSUE_BRANCH);
    cr_expect(strstr(is->message, "brx.idx index 3 out of range (3 targets)"), "%s", is->message);
    cr_expect(is->condition && strstr(is->condition, "sel[0]"), "%s", is->condition ? is->condition : "");
    cr_expect(is->model && strstr(is->model, "sel[0]=3"), "%s", is->model ? is->model : "");
    /* the emulator faults on the error path's atom */
    cr_assert_geq(err_path, 0);
    wh_image *img = atom(&r, err_path, 0);
    trace *tr = calloc(1, sizeof *tr);
    cr_assert(tr);
    harness_result res;
    sim_run(&r, img, tr, &res);
    cr_expect_eq(res.status, HARNESS_FAULT);
    cr_expect(strstr(res.message, "brx.idx index 3 out of range"), "%s", res.message);
    harness_result_free(&res);
    free(tr);
    wh_image_free(img);
    cr_expect_eq(all_replay(&r), 3);
    run_free(&r);
}

/* Two threads: every combination of targets (3 x 3, the second brx.idx
 * guarded) is a finished path whose atoms replay, divergent ones included. */
Test(symexec_warp_ctrl, brx_paths_replay_on_the_sim_at_two_threads)
{
    run r = explore("tests/specs/sym_brx.json", 2);
    cr_expect_eq(r.res->ndone, 9);
    cr_expect_gt(r.res->nerror, 0);
    cr_expect_eq(all_replay(&r), 9);
    run_free(&r);
}

/* ---- cp.async ----------------------------------------------------------------------- */

/* The copied word decides the first branch (both sides), the zero-filled
 * copy with a data-dependent src-size the second (both sides), and the
 * 8-byte copy with src-size 4 always clears its upper word (one side). */
Test(symexec_warp_ctrl, cp_async_copies_global_to_shared)
{
    run r = explore("tests/specs/sym_cp_async.json", 1);
    cr_expect_eq(r.res->ndone, r.res->npaths);
    cr_expect_eq(r.res->ndone, 4, "2 sides of `in > 7` x 2 of `partial == full`: %d", r.res->ndone);
    bool side[2][2] = { { false, false }, { false, false } };
    for (int i = 0; i < r.res->npaths; i++) {
        const sx_path *p = &r.res->paths[i];
        cr_assert_eq(p->ndecisions[0], 3);
        side[0][p->decisions[0][0].taken] = true;
        side[1][p->decisions[0][1].taken] = true;
        cr_expect(!p->decisions[0][2].taken, "the zero fill left a nonzero upper word");
        wh_image *img = atom(&r, i, 0);
        int32_t in = (int32_t)u32_at(img, 0, 0);
        uint32_t size = u32_at(img, 1, 0);
        cr_expect_eq(p->decisions[0][0].taken, in > 7);
        uint32_t part = size >= 4 ? (uint32_t)in : (uint32_t)in & ((1u << (8 * size)) - 1);
        cr_expect_eq(p->decisions[0][1].taken, part == (uint32_t)in, "in %d size %u", in, size);
        wh_image_free(img);
    }
    cr_expect(side[0][0] && side[0][1] && side[1][0] && side[1][1]);
    cr_expect_eq(all_replay(&r), 4);
    run_free(&r);
}

Test(symexec_warp_ctrl, cp_async_paths_replay_at_two_threads)
{
    run r = explore("tests/specs/sym_cp_async.json", 2);
    cr_expect_eq(r.res->ndone, 16);
    cr_expect_eq(all_replay(&r), 16);
    run_free(&r);
}

/* ---- shfl with a data-dependent lane or clamp ------------------------------------------ */

/* Thread 0 reads lane `lane & 31` (its own value, thread 1's, or 0 from a
 * lane no thread occupies); thread 1's up-shuffle by one is in its segment
 * only when the clamp's low bits are 0 outside its segment mask. */
Test(symexec_warp_ctrl, shfl_with_a_data_dependent_lane_forks_and_replays)
{
    run r = explore("tests/specs/sym_shfl_lane.json", 2);
    cr_expect_eq(r.res->ndone, r.res->npaths);
    bool taken[2][2] = { { false, false }, { false, false } };
    for (int i = 0; i < r.res->npaths; i++) {
        const sx_path *p = &r.res->paths[i];
        cr_assert_eq(p->ndecisions[1], 3);
        taken[0][p->decisions[0][0].taken] = true;
        taken[1][p->decisions[1][1].taken] = true;
        wh_image *img = atom(&r, i, 1);
        int32_t v0 = (int32_t)u32_at(img, 0, 0), v1 = (int32_t)u32_at(img, 0, 1);
        uint32_t lane = u32_at(img, 1, 0) & 31, c1 = u32_at(img, 2, 1);
        int32_t got = lane == 0 ? v0 : lane == 1 ? v1 : 0;
        cr_expect_eq(p->decisions[0][0].taken, got > 5, "lane %u", lane);
        bool ok;
        int src = ptx_shfl_source(PTX_SHFL_UP, 1, 1, c1, &ok);
        cr_expect_eq(p->decisions[1][1].taken, ok, "clamp %u", c1);
        cr_expect_eq(src, ok ? 0 : 1);
        wh_image_free(img);
    }
    cr_expect(taken[0][0] && taken[0][1], "thread 0's first branch both ways");
    cr_expect(taken[1][0] && taken[1][1], "thread 1's in-segment branch both ways");
    cr_expect_eq(all_replay(&r), r.res->ndone);
    run_free(&r);
}

/* The source lane's term against ptx_shfl_source: every mode and lane,
 * every lane operand (with junk above its 5 bits), clamps with and without
 * segment masks and junk. */
Test(symexec_warp_ctrl, shfl_source_term_matches_the_contract)
{
    sx_z z;
    wh_error err;
    wh_error_clear(&err);
    cr_assert(sx_z_init(&z, &err), "%s", err.msg);
    Z3_ast b = sx_zk(&z, Z3_mk_const(z.c, Z3_mk_string_symbol(z.c, "b"), sx_z_bvs(&z, 32)));
    Z3_ast c = sx_zk(&z, Z3_mk_const(z.c, Z3_mk_string_symbol(z.c, "c"), sx_z_bvs(&z, 32)));
    static const uint32_t clamps[] = { 0x1f, 0, 7, 0x10, 0x81f, 0x181f, 0x1c1f, 0x1e00, 0x1f1f, 0x0c13,
                                       0xffffffffu, 0x5555, 0xe0001f08u };
    static const ptx_shfl_mode modes[] = { PTX_SHFL_UP, PTX_SHFL_DOWN, PTX_SHFL_BFLY, PTX_SHFL_IDX };
    for (int m = 0; m < 4; m++) {
        for (int lane = 0; lane < 32; lane++) {
            Z3_ast ok_t;
            Z3_ast src_t = sx_shfl_source_term(&z, modes[m], lane, b, c, &ok_t);
            cr_assert(src_t && ok_t);
            for (size_t k = 0; k < sizeof clamps / sizeof clamps[0]; k++) {
                for (uint32_t bv = 0; bv < 32; bv++) {
                    uint32_t bb = bv | (k % 3 == 0 ? 0xa0u : 0);
                    bool ok;
                    int want = ptx_shfl_source(modes[m], lane, bb, clamps[k], &ok);
                    Z3_ast from[2] = { b, c };
                    Z3_ast to[2] = { sx_z_num(&z, bb, 32), sx_z_num(&z, clamps[k], 32) };
                    Z3_ast s = sx_zk(&z, Z3_simplify(z.c, sx_zk(&z, Z3_substitute(z.c, src_t, 2, from, to))));
                    Z3_ast o = sx_zk(&z, Z3_simplify(z.c, sx_zk(&z, Z3_substitute(z.c, ok_t, 2, from, to))));
                    uint64_t got;
                    cr_assert(sx_z_get_u64(&z, s, &got));
                    cr_assert_eq((int)got, want, "mode %d lane %d b %u c 0x%x", m, lane, bb, clamps[k]);
                    cr_assert_eq(sx_z_bool_value(&z, o), ok ? 1 : 0, "mode %d lane %d b %u c 0x%x", m, lane,
                                 bb, clamps[k]);
                }
            }
            sx_z_release(&z);
            b = sx_zk(&z, Z3_mk_const(z.c, Z3_mk_string_symbol(z.c, "b"), sx_z_bvs(&z, 32)));
            c = sx_zk(&z, Z3_mk_const(z.c, Z3_mk_string_symbol(z.c, "c"), sx_z_bvs(&z, 32)));
        }
    }
    sx_z_release(&z);
    sx_z_fini(&z);
}
