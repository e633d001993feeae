/*
 * exec_warp.c — warp collectives among the X threads: shfl.sync, vote
 * (all/any/uni/ballot), match (any/all), redux.sync, activemask, elect.
 *
 * Under the canonical schedule a thread that reaches a collective stops
 * there; when no thread can run any more, the threads of one warp stopped
 * at the same instruction (same function, pc and call depth) form the
 * active set and the collective runs for all of them at once.  Threads of
 * the warp that went elsewhere (another branch, exited) are inactive, as on
 * SIMT hardware where only converged lanes take part.  A shfl whose source
 * lane is inactive reads that thread's register as it is at that moment;
 * a lane no thread occupies (>= X) reads 0, as the emulator does.  A shfl
 * whose lane or clamp operand is symbolic reads through an ite over the
 * warp's lanes on the source lane's term (sx_shfl_source_term).
 */
#include "symexec/internal.h"

#include <stdlib.h>
#include <string.h>

#define C (e->z.c)

static bool is_collective(ptx_opcode op)
{
    switch (op) {
    case PTX_OP_SHFL: case PTX_OP_VOTE: case PTX_OP_MATCH: case PTX_OP_ACTIVEMASK:
    case PTX_OP_REDUX: case PTX_OP_ELECT:
        return true;
    default:
        return false;
    }
}

int sx_exec_warp_stop(sx_cx *cx)
{
    if (!is_collective(cx->ins->op))
        return 0;
    cx->th->status = TS_WARP;
    cx->th->wait_func = cx->fr->func;
    cx->th->wait_pc = cx->pc;
    return 1;
}

typedef struct {
    int n;
    int t[1024];
    sx_cx cx[1024];
} group;

static Z3_ast fold(sx_engine *e, Z3_ast a) { return sx_z_fold(&e->z, sx_zk(&e->z, a)); }

static uint32_t lane_bit(int t) { return 1u << (t % 32); }

/* The value a shfl reads from a lane outside the active set: what that
 * thread's register holds now (it went elsewhere), or 0 for a lane no
 * thread of the X-thread launch occupies (as the emulator reads it). */
static Z3_ast absent_lane(sx_engine *e, group *g, int i, int from)
{
    sx_z *z = &e->z;
    const sx_cx *cx = &g->cx[i];
    const ptx_operand *a = &cx->ins->ops[(cx->ins->flags & PTX_F_PAIR) ? 2 : 1];
    if (from >= e->X || from < 0 || a->kind != PTX_OPD_REG)
        return sx_z_num(z, 0, 32);
    const sx_thread *th = &cx->s->th[from];
    const sx_frame *fr = &th->fr[th->nfr - 1];
    if (fr->func != cx->fr->func)
        return sx_z_num(z, 0, 32);
    Z3_ast v = sx_reg_get(e, fr, a->reg);
    return v ? sx_z_as_bv(z, v, 32) : sx_z_num(z, 0, 32);
}

/* Lane field (5 bits at `lo`) of a shfl operand, as an 8-bit number. */
static Z3_ast shfl_field(sx_z *z, Z3_ast x, int lo)
{
    return sx_z_resize(z, sx_z_extract(z, sx_z_as_bv(z, x, 32), lo + 4, lo), 8, false);
}

/* ptx_shfl_source (ptx/semantics.c) over terms: the same steps on 8-bit
 * signed numbers, which hold every intermediate (lane - b down to -31,
 * lane + b up to 62).  Kept step for step with the C function;
 * tests/test_symexec_warp_ctrl.c checks the two agree. */
Z3_ast sx_shfl_source_term(sx_z *z, ptx_shfl_mode mode, int lane, Z3_ast b, Z3_ast c, Z3_ast *in_range)
{
    Z3_context cc = z->c;
    Z3_ast bval = shfl_field(z, b, 0), cval = shfl_field(z, c, 0), seg = shfl_field(z, c, 8);
    Z3_ast l = sx_z_num(z, (uint64_t)lane, 8), nseg = sx_z_fold(z, sx_zk(z, Z3_mk_bvnot(cc, seg)));
    Z3_ast lseg = sx_z_fold(z, sx_zk(z, Z3_mk_bvand(cc, l, seg)));
    Z3_ast max_lane = sx_z_fold(z, sx_zk(z, Z3_mk_bvor(cc, lseg, sx_z_fold(z, sx_zk(z, Z3_mk_bvand(cc, cval, nseg))))));
    Z3_ast j, ok;
    switch (mode) {
    case PTX_SHFL_UP:
        j = sx_z_fold(z, sx_zk(z, Z3_mk_bvsub(cc, l, bval)));
        ok = sx_z_fold(z, sx_zk(z, Z3_mk_bvsge(cc, j, max_lane)));
        break;
    case PTX_SHFL_DOWN:
        j = sx_z_fold(z, sx_zk(z, Z3_mk_bvadd(cc, l, bval)));
        ok = sx_z_fold(z, sx_zk(z, Z3_mk_bvsle(cc, j, max_lane)));
        break;
    case PTX_SHFL_BFLY:
        j = sx_z_fold(z, sx_zk(z, Z3_mk_bvxor(cc, l, bval)));
        ok = sx_z_fold(z, sx_zk(z, Z3_mk_bvsle(cc, j, max_lane)));
        break;
    default:
        j = sx_z_fold(z, sx_zk(z, Z3_mk_bvor(cc, lseg, sx_z_fold(z, sx_zk(z, Z3_mk_bvand(cc, bval, nseg))))));
        ok = sx_z_fold(z, sx_zk(z, Z3_mk_bvsle(cc, j, max_lane)));
        break;
    }
    *in_range = ok;
    return sx_z_ite(z, ok, j, l);
}

/* What lane `from` of the warp gives reader i: the member's value, or
 * what an absent lane reads. */
static Z3_ast shfl_lane_value(sx_engine *e, group *g, Z3_ast *val, int i, int from)
{
    for (int k = 0; k < g->n; k++)
        if (g->t[k] == from)
            return val[k];
    return absent_lane(e, g, i, from);
}

/* Reader i's value for a symbolic source lane: an ite over the warp's 32
 * lanes (runs of one value collapse, so lanes no thread occupies cost
 * nothing past the first). */
static Z3_ast shfl_select(sx_engine *e, group *g, Z3_ast *val, int i, Z3_ast src)
{
    sx_z *z = &e->z;
    int warp0 = g->t[i] / 32 * 32;
    Z3_ast v = shfl_lane_value(e, g, val, i, warp0 + 31);
    for (int j = 30; j >= 0 && v; j--) {
        Z3_ast lj = shfl_lane_value(e, g, val, i, warp0 + j);
        if (lj != v)
            v = sx_z_ite(z, sx_z_eq(z, src, sx_z_num(z, (uint64_t)j, 8)), lj, v);
    }
    return v;
}

/* The source lane of each reader (concrete lane and clamp operands take
 * ptx_shfl_source itself; symbolic ones its term), then the values. */
static bool run_shfl(sx_engine *e, group *g)
{
    sx_z *z = &e->z;
    Z3_ast val[1024], src[1024], pv[1024];
    for (int i = 0; i < g->n; i++) {
        sx_cx *cx = &g->cx[i];
        const ptx_instr *ins = cx->ins;
        int base = (ins->flags & PTX_F_PAIR) ? 2 : 1;
        val[i] = sx_opd_get(cx, base, PTX_T_B32);
        Z3_ast b = sx_opd_get(cx, base + 1, PTX_T_U32), c = sx_opd_get(cx, base + 2, PTX_T_U32);
        uint64_t bv, cv;
        if (!val[i] || !b || !c)
            return false;
        if (sx_z_get_u64(z, b, &bv) && sx_z_get_u64(z, c, &cv)) {
            bool ok;
            int j = ptx_shfl_source((ptx_shfl_mode)ins->mode, g->t[i] % 32, (uint32_t)bv, (uint32_t)cv, &ok);
            src[i] = sx_z_num(z, (uint64_t)j, 8);
            pv[i] = sx_z_bool(z, ok);
        } else {
            src[i] = sx_shfl_source_term(z, (ptx_shfl_mode)ins->mode, g->t[i] % 32, b, c, &pv[i]);
        }
        if (!src[i] || !pv[i])
            return sx_exec_fail(cx, WH_ERR_INTERNAL, "%s", z->errmsg);
    }
    for (int i = 0; i < g->n; i++) {
        sx_cx *cx = &g->cx[i];
        uint64_t j;
        Z3_ast v = sx_z_get_u64(z, src[i], &j) ? shfl_lane_value(e, g, val, i, g->t[i] / 32 * 32 + (int)j)
                                               : shfl_select(e, g, val, i, src[i]);
        if (!sx_opd_set(cx, 0, v, PTX_T_B32))
            return false;
        if ((cx->ins->flags & PTX_F_PAIR) && !sx_opd_set(cx, 1, pv[i], PTX_T_PRED))
            return false;
    }
    return true;
}

static bool run_vote(sx_engine *e, group *g)
{
    sx_z *z = &e->z;
    Z3_ast p[1024];
    for (int i = 0; i < g->n; i++)
        if (!(p[i] = sx_opd_get_pred(&g->cx[i], 1)))
            return false;
    int mode = g->cx[0].ins->mode;
    Z3_ast r = NULL;
    switch (mode) {
    case PTX_VOTE_ALL:
        r = z->tru;
        for (int i = 0; i < g->n; i++)
            r = sx_z_and2(z, r, p[i]);
        break;
    case PTX_VOTE_ANY:
        r = z->fls;
        for (int i = 0; i < g->n; i++)
            r = sx_z_or2(z, r, p[i]);
        break;
    case PTX_VOTE_UNI:
        r = z->tru;
        for (int i = 1; i < g->n; i++)
            r = sx_z_and2(z, r, sx_z_eq(z, p[i], p[0]));
        break;
    default:
        r = sx_z_num(z, 0, 32);
        for (int i = 0; i < g->n; i++)
            r = fold(e, Z3_mk_bvor(C, r, sx_z_ite(z, p[i], sx_z_num(z, lane_bit(g->t[i]), 32), sx_z_num(z, 0, 32))));
        break;
    }
    for (int i = 0; i < g->n; i++)
        if (!sx_opd_set(&g->cx[i], 0, r, mode == PTX_VOTE_BALLOT ? PTX_T_B32 : PTX_T_PRED))
            return false;
    return true;
}

static uint32_t group_mask(const group *g)
{
    uint32_t m = 0;
    for (int i = 0; i < g->n; i++)
        m |= lane_bit(g->t[i]);
    return m;
}

static bool run_match(sx_engine *e, group *g)
{
    sx_z *z = &e->z;
    ptx_type t = g->cx[0].ins->type;
    int w = ptx_type_bits(t);
    bool pair = (g->cx[0].ins->flags & PTX_F_PAIR) != 0;
    Z3_ast a[1024];
    for (int i = 0; i < g->n; i++)
        if (!(a[i] = sx_opd_get(&g->cx[i], pair ? 2 : 1, t)))
            return false;
    (void)w;
    if (g->cx[0].ins->mode == PTX_MATCH_ALL) {
        Z3_ast all = z->tru;
        for (int i = 1; i < g->n; i++)
            all = sx_z_and2(z, all, sx_z_eq(z, a[i], a[0]));
        Z3_ast d = sx_z_ite(z, all, sx_z_num(z, group_mask(g), 32), sx_z_num(z, 0, 32));
        for (int i = 0; i < g->n; i++) {
            if (!sx_opd_set(&g->cx[i], 0, d, PTX_T_B32))
                return false;
            if (pair && !sx_opd_set(&g->cx[i], 1, all, PTX_T_PRED))
                return false;
        }
        return true;
    }
    for (int i = 0; i < g->n; i++) {
        Z3_ast d = sx_z_num(z, 0, 32);
        for (int k = 0; k < g->n; k++)
            d = fold(e, Z3_mk_bvor(C, d, sx_z_ite(z, sx_z_eq(z, a[k], a[i]), sx_z_num(z, lane_bit(g->t[k]), 32),
                                               sx_z_num(z, 0, 32))));
        if (!sx_opd_set(&g->cx[i], 0, d, PTX_T_B32))
            return false;
    }
    return true;
}

static bool run_redux(sx_engine *e, group *g)
{
    sx_z *z = &e->z;
    const ptx_instr *ins = g->cx[0].ins;
    ptx_type t = ins->type;
    bool sgn = ptx_type_is_signed(t);
    Z3_ast r = NULL;
    for (int i = 0; i < g->n; i++) {
        Z3_ast a = sx_opd_get(&g->cx[i], 1, t);
        if (!a)
            return false;
        if (!r) {
            r = a;
            continue;
        }
        switch (ins->aop) {
        case PTX_AOP_ADD: r = fold(e, Z3_mk_bvadd(C, r, a)); break;
        case PTX_AOP_AND: r = fold(e, Z3_mk_bvand(C, r, a)); break;
        case PTX_AOP_OR: r = fold(e, Z3_mk_bvor(C, r, a)); break;
        case PTX_AOP_XOR: r = fold(e, Z3_mk_bvxor(C, r, a)); break;
        case PTX_AOP_MIN:
            r = sx_z_ite(z, fold(e, sgn ? Z3_mk_bvslt(C, a, r) : Z3_mk_bvult(C, a, r)), a, r);
            break;
        case PTX_AOP_MAX:
            r = sx_z_ite(z, fold(e, sgn ? Z3_mk_bvsgt(C, a, r) : Z3_mk_bvugt(C, a, r)), a, r);
            break;
        default:
            return sx_exec_fail(&g->cx[0], WH_ERR_UNSUPPORTED, "unsupported redux operation");
        }
    }
    for (int i = 0; i < g->n; i++)
        if (!sx_opd_set(&g->cx[i], 0, r, t))
            return false;
    return true;
}

static bool run_group(sx_engine *e, group *g)
{
    const ptx_instr *ins = g->cx[0].ins;
    sx_z *z = &e->z;
    bool ok;
    switch (ins->op) {
    case PTX_OP_SHFL: ok = run_shfl(e, g); break;
    case PTX_OP_VOTE: ok = run_vote(e, g); break;
    case PTX_OP_MATCH: ok = run_match(e, g); break;
    case PTX_OP_REDUX: ok = run_redux(e, g); break;
    case PTX_OP_ACTIVEMASK:
        ok = true;
        for (int i = 0; i < g->n && ok; i++)
            ok = sx_opd_set(&g->cx[i], 0, sx_z_num(z, group_mask(g), 32), PTX_T_B32);
        break;
    case PTX_OP_ELECT: {
        int leader = g->t[0] % 32;
        ok = true;
        for (int i = 0; i < g->n && ok; i++) {
            sx_cx *cx = &g->cx[i];
            int pi = (cx->ins->flags & PTX_F_PAIR) ? 1 : 0;
            if (pi)
                ok = sx_opd_set(cx, 0, sx_z_num(z, (uint64_t)leader, 32), PTX_T_B32);
            if (ok)
                ok = sx_opd_set(cx, pi, sx_z_bool(z, i == 0), PTX_T_PRED);
        }
        break;
    }
    default:
        ok = false;
    }
    if (!ok)
        return false;
    for (int i = 0; i < g->n; i++) {
        sx_cx *cx = &g->cx[i];
        cx->th->instrs++;
        cx->th->vis_count++;
        cx->th->status = TS_RUN;
        sx_advance_pc(cx);
    }
    return true;
}

bool sx_warp_collectives(sx_engine *e, sx_state *s)
{
    group *g = malloc(sizeof *g);
    if (!g)
        return false;
    bool *done = calloc((size_t)s->X, sizeof *done);
    bool ok = done != NULL;
    for (int t = 0; t < s->X && ok; t++) {
        if (done[t] || s->th[t].status != TS_WARP)
            continue;
        const sx_thread *a = &s->th[t];
        g->n = 0;
        for (int u = t; u < s->X && g->n < 1024; u++) {
            const sx_thread *b = &s->th[u];
            if (done[u] || b->status != TS_WARP || u / 32 != t / 32 || b->nfr != a->nfr
                || b->wait_func != a->wait_func || b->wait_pc != a->wait_pc)
                continue;
            done[u] = true;
            g->t[g->n] = u;
            sx_cx_init(&g->cx[g->n], e, s, u);
            g->n++;
        }
        ok = run_group(e, g);
        sx_z_release(&e->z);
    }
    free(done);
    free(g);
    return ok && !e->fatal;
}
