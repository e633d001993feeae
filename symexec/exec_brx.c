/*
 * exec_brx.c — brx.idx, the indirect branch through a .branchtargets list,
 * with the emulator's semantics (harness/sim/simt.c sim_brx): the thread
 * jumps to the label at position `index`; an index at or past the list's
 * end is a fault ("brx.idx index out of range").
 *
 * A concrete index jumps.  A symbolic one is a multi-way fork: one state
 * per feasible target, each with `index == k` on its path, and one error
 * path when `index >= n` is feasible (reported as an issue, like a
 * possible out-of-bounds access).  No branch decision is recorded: the
 * emulator reports only bra to its branch trace, so the paths' decision
 * traces stay comparable with a replay (tests/test_symexec_sound.c); the
 * block visits, which warp_instr is computed from, follow the jump as for
 * any branch.  A guard was decided before (exec.c forks on it).
 *
 * The fork itself (sx_fork_multiway) serves any choice among n outcomes
 * by a symbolic index; an indirect call (exec_ctrl.c) uses it over the
 * functions whose address the module takes.
 */
#include "symexec/internal.h"

#include <stdio.h>
#include <stdlib.h>

/* One outcome of the index: target k (k < n) or out of range (k == n). */
typedef struct {
    Z3_ast cond;             /* the index's condition for it (temporary) */
    Z3_model model;          /* a model of the path with cond (referenced), or NULL */
    bool feasible;
    bool cut;                /* taking it passes the loop bound of a loop it stays in */
} brx_case;

/* The instruction's .branchtargets list (sx_exec_brx checked it is one). */
static const ptx_btargets *brx_list(const sx_cx *cx)
{
    return &cx->f->btargets[cx->ins->ops[1].sym.index];
}

/* Instruction index of target k. */
static int brx_target(const sx_cx *cx, int k)
{
    const ptx_btargets *bt = brx_list(cx);
    return cx->f->labels[bt->labels[k]].instr;
}

/* Block of an instruction index; -1 past the code (a label at its end). */
static int block_at(const ptx_function *f, int instr)
{
    return instr >= 0 && instr < f->ninstrs ? f->instrs[instr].block : -1;
}

/* Jump to target k: the copy of a fork and the current state alike. */
static int brx_jump(sx_cx *cx, int k, void *arg)
{
    (void)arg;
    cx->next_pc = brx_target(cx, k);
    return 1;
}

/* The emulator faults on an index past the list: the path ends as an
 * error, and the search reports where and for which inputs. */
static void brx_out_of_range(sx_cx *cx, Z3_ast cond, Z3_model m, uint64_t idx, void *arg)
{
    (void)arg;
    sx_engine *e = cx->e;
    int n = brx_list(cx)->nlabels;
    char msg[256];
    snprintf(msg, sizeof msg, "brx.idx index %llu out of range (%d targets) by thread %d",
             (unsigned long long)idx, n, cx->t);
    sx_issue_add(e, SX_ISSUE_BRANCH, cx->ins->line, cx->t,
                 cond ? Z3_ast_to_string(e->z.c, cond) : NULL, m, "%s", msg);
    sx_state_note(cx->s, "%s (line %d)", msg, cx->ins->line);
    cx->s->end = SX_PATH_ERROR;
    cx->dead = true;
}

/* Does jumping to target k keep the thread in a loop it has iterated
 * max_iter times already, while another target leaves it?  That is the
 * loop's continuation, cut as bra cuts it (exec_ctrl.c). */
static bool brx_cuts(const sx_cx *cx, int k, void *arg)
{
    (void)arg;
    const ptx_function *f = cx->f;
    int n = brx_list(cx)->nlabels, b = cx->ins->block;
    int bk = block_at(f, brx_target(cx, k));
    for (int L = b >= 0 ? f->blocks[b].loop : -1; L >= 0; L = f->loops[L].parent) {
        if (cx->fr->loop_iter[L] < cx->e->max_iter || bk < 0 || !ptx_loop_contains(f, L, bk))
            continue;
        for (int j = 0; j < n; j++) {
            int bj = block_at(f, brx_target(cx, j));
            if (bj < 0 || !ptx_loop_contains(f, L, bj))
                return true;
        }
    }
    return false;
}

/* Which outcomes the path allows: the state's model gives one for free,
 * the index's bounds rule some out, the solver decides the rest.  A check
 * the solver gives up on drops that outcome (counted as a give-up, and
 * *open set: the followed outcome's condition must then go on the path);
 * the others keep their exact condition, so their atoms still replay. */
static bool way_feasible(sx_cx *cx, Z3_ast idx, brx_case *cs, int n, int *mcase, bool *open)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    uint64_t lo = 0, hi = UINT32_MAX, mv = 0;
    if (!sx_interval_of(e, idx, &lo, &hi)) {
        lo = 0;
        hi = UINT32_MAX;
    }
    Z3_ast m = sx_model_value(e, cx->s->model, idx);
    *mcase = m && sx_z_get_u64(z, m, &mv) ? (mv < (uint64_t)n ? (int)mv : n) : -1;
    *open = false;
    for (int k = 0; k <= n; k++) {
        bool possible = k < n ? (uint64_t)k >= lo && (uint64_t)k <= hi : hi >= (uint64_t)n;
        if (k == *mcase) {
            cs[k].feasible = true;
            continue;
        }
        if (!possible)
            continue;
        if (cx->s->concolic) {
            /* a concolic state follows its model (fork.c), and takes
             * another outcome only where a sampled input shows it */
            cs[k].model = sx_witness_find(e, cx->s, cs[k].cond);
            cs[k].feasible = cs[k].model != NULL;
            *open |= !cs[k].feasible;
            continue;
        }
        int r = sx_solver_check(e, cx->s, cs[k].cond, &cs[k].model);
        if (r < 0 && z->failed)
            return false;
        if (r < 0) {
            e->giveups++;
            cx->s->concolic = true;
            cs[k].model = sx_witness_find(e, cx->s, cs[k].cond);   /* witness.c */
            r = cs[k].model != NULL;
            *open |= !r;
            if (!r)
                sx_state_note(cx->s, "solver gave up on a target of the %s at line %d; not explored",
                              cx->ins->opcode, cx->ins->line);
        }
        cs[k].feasible = r == 1;
    }
    return true;
}

/* The outcome the current state follows: the model's when it is a plain
 * target, else a feasible plain (not cut) target, else the model's (the
 * error or a cut), else any feasible one; -1 when none is known. */
static int way_follow(const brx_case *cs, int n, int mcase)
{
    if (mcase >= 0 && mcase < n && !cs[mcase].cut)
        return mcase;
    for (int k = 0; k < n; k++)
        if (cs[k].feasible && !cs[k].cut)
            return k;
    if (mcase >= 0)
        return mcase;
    for (int k = 0; k <= n; k++)
        if (cs[k].feasible)
            return k;
    return -1;
}

/* The index's value in a model, for the error message. */
static uint64_t way_index_in(sx_engine *e, Z3_model m, Z3_ast idx)
{
    uint64_t v = 0;
    Z3_ast mv = sx_model_value(e, m, idx);
    if (mv)
        sx_z_get_u64(&e->z, mv, &v);
    return v;
}

/* Outcome k for the state of cx (its condition already on the path):
 * take it, fault, or end as a cut continuation; -1 when taking fails. */
static int way_take(sx_cx *cx, const sx_multiway *mw, const brx_case *c, int k, Z3_ast idx, const char *cut_note)
{
    if (k == mw->n) {
        mw->fault(cx, c->cond, cx->s->model, way_index_in(cx->e, cx->s->model, idx), mw->arg);
    } else if (c->cut) {
        cx->s->end = SX_PATH_CUT;
        sx_state_note(cx->s, "%s", cut_note);
        cx->dead = true;
    } else {
        return mw->take(cx, k, mw->arg);
    }
    return 1;
}

/* A copy of the state takes outcome k: queued, or recorded at once when it
 * ends here (an error, or a cut continuation). */
static bool way_spawn(sx_cx *cx, const sx_multiway *mw, const brx_case *c, int k, Z3_ast idx, const char *cut_note)
{
    sx_engine *e = cx->e;
    sx_state *s = sx_state_clone(e, cx->s);
    if (!s) {
        e->fatal = true;
        return false;
    }
    e->forks++;
    sx_state_add_pc(e, s, c->cond);
    if (c->model)
        sx_state_set_model(e, s, c->model);
    sx_cx ccx;
    sx_cx_init(&ccx, e, s, cx->t);
    if (way_take(&ccx, mw, c, k, idx, cut_note) < 0) {
        sx_state_free(e, s);
        return false;
    }
    if (!ccx.dead) {
        if (!ccx.stop)
            sx_advance_pc(&ccx);
        s->new_leg = -1;
        sx_work_push(e, s);
        return true;
    }
    s->over = true;
    bool ok = sx_metrics_record(e, s);
    sx_state_free(e, s);
    return ok;
}

/* The conditions of the n + 1 outcomes, and which targets are cut. */
static void way_cases(sx_cx *cx, const sx_multiway *mw, Z3_ast idx, brx_case *cs, int n)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    for (int k = 0; k <= n; k++) {
        cs[k].cond = k < n ? sx_z_eq(z, idx, sx_z_num(z, (uint64_t)k, 32))
                           : sx_zk(z, Z3_mk_bvuge(z->c, idx, sx_z_num(z, (uint64_t)n, 32)));
        if (cx->s->fp)
            cs[k].cond = sx_cases_defloat(e, cs[k].cond);
        cs[k].cut = k < n && mw->cuts && mw->cuts(cx, k, mw->arg);
    }
}

int sx_fork_multiway(sx_cx *cx, Z3_ast idx, const sx_multiway *mw)
{
    sx_engine *e = cx->e;
    int n = mw->n;
    brx_case *cs = calloc((size_t)n + 1, sizeof *cs);
    if (!cs) {
        e->fatal = true;
        return -1;
    }
    char note[200];
    snprintf(note, sizeof note, "thread %d: loop cut after %d iterations at the %s of line %d",
             cx->t, e->max_iter, cx->ins->opcode, cx->ins->line);
    way_cases(cx, mw, idx, cs, n);
    int mcase = -1, rc = 1, nfeasible = 0, follow = -1;
    bool open = false;
    if (!way_feasible(cx, idx, cs, n, &mcase, &open) || (follow = way_follow(cs, n, mcase)) < 0) {
        rc = -1;
        goto out;
    }
    for (int k = 0; k <= n; k++)
        nfeasible += cs[k].feasible;
    for (int k = 0; k <= n && rc > 0; k++)
        if (k != follow && cs[k].feasible && !way_spawn(cx, mw, &cs[k], k, idx, note))
            rc = -1;
    if (rc < 0)
        goto out;
    if (nfeasible > 1 || open || follow != mcase)
        sx_state_add_pc(e, cx->s, cs[follow].cond);
    if (cs[follow].model)
        sx_state_set_model(e, cx->s, cs[follow].model);
    rc = way_take(cx, mw, &cs[follow], follow, idx, note);
out:
    for (int k = 0; k <= n; k++)
        if (cs[k].model)
            Z3_model_dec_ref(e->z.c, cs[k].model);
    free(cs);
    return rc;
}

int sx_exec_brx(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    if (ins->nops < 2 || ins->ops[1].sym.kind != PTX_SYM_BRANCHTARGETS)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "brx.idx without a .branchtargets list"), -1;
    int n = brx_list(cx)->nlabels;
    Z3_ast idx = sx_opd_get(cx, 0, PTX_T_U32);
    if (!idx)
        return -1;
    uint64_t v;
    sx_multiway mw = { n, brx_jump, brx_cuts, brx_out_of_range, NULL };
    if (!sx_z_get_u64(&cx->e->z, idx, &v))
        return sx_fork_multiway(cx, idx, &mw);
    if (v >= (uint64_t)n)
        brx_out_of_range(cx, NULL, NULL, v, NULL);
    else
        brx_jump(cx, (int)v, NULL);
    return 1;
}
