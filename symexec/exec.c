/*
 * exec.c — one step of one thread: guard, operands, dispatch to the
 * instruction families (sx_exec_int, sx_exec_float, sx_exec_mem, sx_exec_ctrl,
 * exec_warp), then the next pc and block bookkeeping.
 */
#include "symexec/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An instruction the executor cannot model ends its state, not the
 * exploration: the path is kept as cut there (its decisions so far are a
 * prefix atoms replay), and the issue is reported once per line. */
static void end_state_unsupported(sx_cx *cx, const char *what)
{
    sx_issue_add(cx->e, SX_ISSUE_UNSUPPORTED, cx->ins->line, cx->t, NULL, NULL, "%s", what);
    sx_state_note(cx->s, "%s; the path ends there (cut)", what);
    cx->s->end = SX_PATH_CUT;
    cx->s->over = true;
    cx->dead = true;
}

bool sx_exec_fail(sx_cx *cx, wh_error_kind kind, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char text[256], src[600], what[1700];
    ptx_format_instr(cx->e->mod, cx->f, cx->ins, text, sizeof text);
    bool has_src = ptx_source_of(cx->e->mod, cx->ins, src, sizeof src);
    snprintf(what, sizeof what, "%s: '%s' in %s at line %d%s%s%s", msg, text, cx->f->name, cx->ins->line,
             has_src ? " (CUDA source " : "", src, has_src ? ")" : "");
    if (kind == WH_ERR_UNSUPPORTED) {
        end_state_unsupported(cx, what);
        return false;
    }
    if (!wh_error_is_set(cx->e->err))
        wh_error_set(cx->e->err, kind, cx->e->mod->name, cx->ins->line, cx->ins->col, "%s", what);
    cx->e->fatal = true;
    return false;
}

/* ---- operands ------------------------------------------------------------- */

static int reg_bits(const sx_cx *cx, int r)
{
    const ptx_reg *rg = &cx->f->regs[r];
    return rg->bits * (rg->vec > 1 ? rg->vec : 1);
}

/* The symbolic launch: one block of X threads (x only) on SM 0 of a
 * device with the default profile's SM and warp-slot counts. */
static Z3_ast sreg_value(sx_cx *cx, const ptx_operand *o)
{
    sx_z *z = &cx->e->z;
    uint32_t X = (uint32_t)cx->e->X, t = (uint32_t)cx->t;
    int bits = ptx_sreg_bits(o->sreg);
    ptx_thread_view v = {
        .tid = { t, 0, 0 }, .ntid = { X, 1, 1 }, .ctaid = { 0, 0, 0 }, .nctaid = { 1, 1, 1 },
        .warpid = t / 32, .nwarpid = PTX_DEFAULT_NWARPID, .smid = 0, .nsmid = PTX_DEFAULT_NSMID,
        .gridid = PTX_GRIDID, .dynamic_smem = cx->e->img->shared_bytes, .total_smem = cx->e->shared_size,
    };
    uint64_t value;
    if (!ptx_sreg_value(&v, o->sreg, o->sreg_comp, &value))
        value = cx->th->instrs;   /* clocks and timers: the thread's instruction count */
    return sx_z_num(z, value, bits);
}

/* Region holding a function-scope or module symbol for this thread. */
static int symbol_region(sx_cx *cx, const ptx_symref *sym)
{
    sx_engine *e = cx->e;
    int X = e->X, fi = cx->fr->func;
    switch (sym->kind) {
    case PTX_SYM_LOCAL_VAR: return e->fl[fi].var_region[sym->index * X + cx->t];
    case PTX_SYM_PARAM: return cx->f->is_entry ? -1 : e->fl[fi].param_region[sym->index * X + cx->t];
    case PTX_SYM_RET: return e->fl[fi].ret_region[sym->index * X + cx->t];
    case PTX_SYM_MODULE_VAR:
        for (int i = 0; i < e->nregions; i++) {
            const sx_region *r = &e->regions[i];
            if (r->kind != SX_R_PARAMBUF && !strcmp(r->name, sym->name)
                && (r->space != PTX_SPACE_LOCAL || r->thread == cx->t))
                return i;
        }
        return -1;
    default: return -1;
    }
}

static Z3_ast symbol_address(sx_cx *cx, const ptx_symref *sym, int64_t add, ptx_space *space)
{
    sx_z *z = &cx->e->z;
    if (sym->kind == PTX_SYM_PARAM && cx->f->is_entry) {
        *space = PTX_SPACE_PARAM;
        const ptx_param *p = &cx->f->params[sym->index];
        return sx_z_num(z, p->offset + (uint64_t)add, 64);
    }
    if (sym->kind == PTX_SYM_FUNC) {   /* a function's address, as the sim gives it */
        *space = PTX_SPACE_GENERIC;
        return sx_z_num(z, PTX_ADDR_FUNC + (uint64_t)sym->index * PTX_ADDR_FUNC_STRIDE + (uint64_t)add, 64);
    }
    int r = symbol_region(cx, sym);
    if (r < 0) {
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported address of symbol '%s'", sym->name);
        return NULL;
    }
    const sx_region *g = &cx->e->regions[r];
    *space = g->space;
    return sx_z_num(z, g->base + (uint64_t)add, 64);
}

Z3_ast sx_opd_addr(sx_cx *cx, const ptx_operand *o, ptx_space *space)
{
    sx_z *z = &cx->e->z;
    /* a cluster of one block: its shared::cluster window is the block's own */
    *space = cx->ins->space == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : cx->ins->space;
    if (o->kind == PTX_OPD_ADDR && o->sym.kind != PTX_SYM_NONE) {
        ptx_space s2;
        Z3_ast a = symbol_address(cx, &o->sym, o->ival, &s2);
        /* .param variables of functions live in per-thread storage */
        if (a && (s2 == PTX_SPACE_LOCAL || s2 == PTX_SPACE_PARAM || *space == PTX_SPACE_GENERIC))
            *space = s2;
        if (a && *space == PTX_SPACE_GENERIC)
            *space = s2;
        return a;
    }
    if (o->kind == PTX_OPD_ADDR && o->reg >= 0) {
        Z3_ast b = sx_reg_get(cx->e, cx->fr, o->reg);
        if (!b)
            b = sx_z_num(z, 0, 64);
        b = sx_z_resize(z, sx_z_to_bv(z, b), 64, false);
        if (o->ival)
            b = sx_z_fold(z, sx_zk(z, Z3_mk_bvadd(z->c, b, sx_z_num(z, (uint64_t)o->ival, 64))));
        return b;
    }
    if (o->kind == PTX_OPD_ADDR || o->kind == PTX_OPD_IMM_INT)
        return sx_z_num(z, (uint64_t)o->ival, 64);
    sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported address operand");
    return NULL;
}

static Z3_ast imm_float_bits(sx_cx *cx, const ptx_operand *o, int w)
{
    sx_z *z = &cx->e->z;
    if (w == 64)
        return sx_z_num(z, o->f64bits, 64);
    if (w == 32)
        return sx_z_num(z, o->f32bits, 32);
    return sx_z_num(z, o->f32bits, w);
}

Z3_ast sx_opd_get(sx_cx *cx, int i, ptx_type t)
{
    if (i >= cx->ins->nops) {
        sx_exec_fail(cx, WH_ERR_USER, "missing operand %d", i + 1);
        return NULL;
    }
    ptx_operand_kind k = cx->ins->ops[i].kind;
    if (k != PTX_OPD_REG && k != PTX_OPD_IMM_INT && k != PTX_OPD_IMM_FLOAT && k != PTX_OPD_SPECIAL &&
        k != PTX_OPD_SYMBOL) {
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported operand kind for operand %d", i + 1);
        return NULL;
    }
    return sx_opd_value(cx, &cx->ins->ops[i], t);
}

Z3_ast sx_opd_value(sx_cx *cx, const ptx_operand *o, ptx_type t)
{
    sx_z *z = &cx->e->z;
    int w = t == PTX_T_PRED ? 1 : ptx_type_bits(t);
    Z3_ast v;
    switch (o->kind) {
    case PTX_OPD_REG:
        v = sx_reg_get(cx->e, cx->fr, o->reg);
        if (!v)
            v = reg_bits(cx, o->reg) == 1 ? z->fls : sx_z_num(z, 0, reg_bits(cx, o->reg));
        if (t == PTX_T_PRED) {
            v = sx_z_as_bool(z, v);
            return o->neg ? sx_z_not(z, v) : v;
        }
        if (ptx_type_is_float(t) && sx_z_is_fp(z, v) && sx_z_width(z, v) == w)
            return v;
        return sx_z_as_bv(z, v, w);
    case PTX_OPD_IMM_INT:
        if (t == PTX_T_PRED)
            return sx_z_bool(z, o->ival != 0);
        return sx_z_num(z, (uint64_t)o->ival, w);
    case PTX_OPD_IMM_FLOAT:
        return imm_float_bits(cx, o, w);
    case PTX_OPD_SPECIAL:
        return sx_z_resize(z, sreg_value(cx, o), w, false);
    case PTX_OPD_SYMBOL: {
        ptx_space sp;
        Z3_ast a = symbol_address(cx, &o->sym, o->ival, &sp);
        return a ? sx_z_resize(z, a, w, false) : NULL;
    }
    default:
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported operand kind");
        return NULL;
    }
}

Z3_ast sx_opd_get_fp(sx_cx *cx, int i, ptx_type t)
{
    int w = ptx_type_bits(t);
    return sx_z_as_fp(&cx->e->z, sx_opd_get(cx, i, t), w);
}

Z3_ast sx_opd_get_pred(sx_cx *cx, int i)
{
    return sx_opd_get(cx, i, PTX_T_PRED);
}

/* Bring `old` to the sort of `v` for a guarded write. */
static Z3_ast same_sort(sx_z *z, Z3_ast old, Z3_ast v)
{
    if (sx_z_is_bool(z, v))
        return sx_z_as_bool(z, old);
    if (sx_z_is_fp(z, v))
        return sx_z_as_fp(z, old, sx_z_width(z, v));
    return sx_z_as_bv(z, old, sx_z_width(z, v));
}

bool sx_reg_write(sx_cx *cx, int r, Z3_ast v)
{
    sx_z *z = &cx->e->z;
    if (!v || z->failed)
        return sx_exec_fail(cx, WH_ERR_INTERNAL, "%s", z->failed ? z->errmsg : "no value computed");
    int w = reg_bits(cx, r);
    if (w == 1)
        v = sx_z_as_bool(z, v);
    else if (sx_z_is_bool(z, v))
        v = sx_z_as_bv(z, v, w);
    else if (sx_z_width(z, v) != w)
        v = sx_z_as_bv(z, v, w);
    if (cx->guard) {
        Z3_ast old = sx_reg_get(cx->e, cx->fr, r);
        if (!old)
            old = w == 1 ? z->fls : sx_z_num(z, 0, w);
        v = sx_z_ite(z, cx->guard, v, same_sort(z, old, v));
    }
    if (!v)
        return sx_exec_fail(cx, WH_ERR_INTERNAL, "%s", z->errmsg);
    sx_reg_set(cx->e, cx->fr, r, v);
    return true;
}

bool sx_opd_set(sx_cx *cx, int i, Z3_ast v, ptx_type t)
{
    (void)t;
    if (i >= cx->ins->nops)
        return sx_exec_fail(cx, WH_ERR_USER, "missing destination operand");
    const ptx_operand *o = &cx->ins->ops[i];
    if (o->kind == PTX_OPD_SINK)
        return true;
    if (o->kind != PTX_OPD_REG)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported destination operand");
    return sx_reg_write(cx, o->reg, v);
}

/* ---- guards ---------------------------------------------------------------- */

/* Instructions whose symbolic guard becomes an ite on their effect. */
static bool guard_as_ite(ptx_opcode op)
{
    switch (op) {
    case PTX_OP_BRA: case PTX_OP_BRX: case PTX_OP_CALL: case PTX_OP_RET: case PTX_OP_EXIT:
    case PTX_OP_BAR: case PTX_OP_BAR_WARP: case PTX_OP_SHFL: case PTX_OP_VOTE:
    case PTX_OP_MATCH: case PTX_OP_ACTIVEMASK: case PTX_OP_REDUX: case PTX_OP_ELECT:
    case PTX_OP_TRAP: case PTX_OP_BRKPT: case PTX_OP_MBARRIER:
        return false;
    default:
        return true;
    }
}

/* The copy of a guard fork skips the instruction. */
static void skip_apply(sx_cx *cx, bool side, void *arg)
{
    (void)arg;
    if (side)
        return;
    cx->th->instrs++;
    cx->th->vis_count++;
    sx_advance_pc(cx);
}

void sx_cx_init(sx_cx *cx, sx_engine *e, sx_state *s, int t)
{
    memset(cx, 0, sizeof *cx);
    cx->e = e;
    cx->s = s;
    cx->t = t;
    cx->th = &s->th[t];
    cx->fr = &cx->th->fr[cx->th->nfr - 1];
    cx->f = &e->mod->funcs[cx->fr->func];
    cx->pc = cx->fr->pc;
    cx->ins = cx->pc < cx->f->ninstrs ? &cx->f->instrs[cx->pc] : NULL;
    cx->next_pc = -1;
}

/* ---- stepping ------------------------------------------------------------------ */

static bool dispatch(sx_cx *cx)
{
    int r;
    if (!(ptx_opcode_engines(cx->ins->op) & PTX_IN_SYM))   /* ptx/opcodes.def */
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction '%s' (line %d)",
                         cx->ins->opcode, cx->ins->line);
    if ((r = sx_exec_ctrl(cx)) != 0)
        return r > 0;
    if ((r = sx_exec_mem(cx)) != 0)
        return r > 0;
    if ((r = sx_exec_tex(cx)) != 0)
        return r > 0;
    if ((r = sx_exec_float(cx)) != 0)
        return r > 0;
    if ((r = sx_exec_int(cx)) != 0)
        return r > 0;
    return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction '%s' (line %d)",
                     cx->ins->opcode, cx->ins->line);
}

void sx_advance_pc(sx_cx *cx)
{
    sx_frame *fr = cx->fr;
    const ptx_function *f = cx->f;
    int next = cx->next_pc >= 0 ? cx->next_pc : cx->pc + 1;
    bool jumped = cx->next_pc >= 0;
    fr->pc = next;
    if (next >= f->ninstrs)
        return;   /* falls off the end: treated as ret at the next step */
    int nb = f->instrs[next].block;
    if (jumped || nb != fr->block)
        sx_enter_block(cx->e, cx->s, cx->t, nb);
}

/* One instruction of the current thread: its guard, then its semantics. */
static bool step_instruction(sx_engine *e, sx_state *s, sx_cx *cxp)
{
    sx_z *z = &e->z;
    sx_cx cx = *cxp;   /* the step's own context: forks and guards change it */
    sx_thread *th = cx.th;
    sx_frame *fr = cx.fr;
    bool skip = false;
    if (cx.ins->guard >= 0 && cx.ins->op != PTX_OP_BRA) {
        Z3_ast g = sx_reg_get(e, fr, cx.ins->guard);
        g = g ? sx_z_as_bool(z, g) : z->fls;
        if (cx.ins->guard_neg)
            g = sx_z_not(z, g);
        int gv = sx_z_bool_value(z, g);
        if (gv == 0) {
            skip = true;
        } else if (gv < 0) {
            if (guard_as_ite(cx.ins->op)) {
                cx.guard = g;
            } else {
                sx_fork fk = { .apply = skip_apply, .prefer = 1, .leg = { -1, -1 } };
                int side = sx_fork_on(&cx, g, &fk);
                if (side < 0) {
                    sx_z_release(z);
                    return false;
                }
                skip = side == 0;
            }
        }
    }
    if (skip) {
        th->instrs++;
        th->vis_count++;
        sx_advance_pc(&cx);
        sx_z_release(z);
        return true;
    }
    /* warp collectives wait for the other threads before running */
    if (th->status == TS_RUN && sx_exec_warp_stop(&cx) > 0) {
        sx_z_release(z);
        return !e->fatal;
    }
    th->instrs++;
    th->vis_count++;
    bool ok = dispatch(&cx);
    if (ok && z->failed)
        ok = sx_exec_fail(&cx, WH_ERR_INTERNAL, "%s", z->errmsg);
    if (!ok && s->over && !e->fatal) {   /* ended by an unsupported instruction */
        sx_z_release(z);
        return true;
    }
    if (ok && cx.dead) {
        s->over = true;
    } else if (ok && !cx.stop) {
        sx_advance_pc(&cx);
    }
    sx_z_release(z);
    return ok;
}

bool sx_exec_step(sx_engine *e, sx_state *s)
{
    sx_z *z = &e->z;
    sx_cx cx;
    sx_cx_init(&cx, e, s, s->cur);
    sx_thread *th = cx.th;
    sx_frame *fr = cx.fr;
    if (!cx.ins) {
        sx_exec_return(&cx);
        sx_z_release(z);
        return !e->fatal;
    }
    if (th->instrs >= e->opt.max_thread_instrs) {
        s->end = SX_PATH_CUT;
        s->over = true;
        sx_state_note(s, "thread %d reached the instruction cap (%llu) at line %d", cx.t,
                   (unsigned long long)e->opt.max_thread_instrs, cx.ins->line);
        return true;
    }
    /* an atomic waits for its warp, then runs in lane order (search.c) */
    bool atomic = cx.ins->op == PTX_OP_ATOM || cx.ins->op == PTX_OP_RED || cx.ins->op == PTX_OP_SURED;
    bool at_wait = fr->func == th->wait_func && cx.pc == th->wait_pc;
    if (th->atom_pass && !(atomic && at_wait)) {
        /* a copy that took the false side of the atomic's guard: past it */
        th->atom_pass = false;
        th->status = TS_ATOM_DONE;
        return true;
    }
    if (atomic && !th->atom_pass) {
        th->status = TS_ATOM;
        th->wait_func = fr->func;
        th->wait_pc = cx.pc;
        return true;
    }
    /* the pass is spent only once the atomic has run: a copy forked inside
     * it runs the instruction again and keeps its pass (memory.c) */
    bool ok = step_instruction(e, s, &cx);
    if (ok && atomic && !s->over) {
        th->atom_pass = false;
        th->status = TS_ATOM_DONE;
    }
    return ok;
}
