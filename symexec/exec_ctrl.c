/*
 * exec_ctrl.c — control flow: branches (forking on symbolic conditions,
 * loop bounds, decision traces, leg coverage), calls and returns with
 * their .param/.reg arguments, exit, barriers, and the no-op
 * synchronisation instructions (membar, fence, bar.warp.sync...).
 * Also the block-visit trace from which warp-issued instructions are
 * computed (metrics.c).
 */
#include "symexec/internal.h"

#include <stdio.h>
#include <string.h>

/* ---- block visits and loops ------------------------------------------------ */

static void close_visit(sx_engine *e, sx_state *s, int t)
{
    sx_thread *th = &s->th[t];
    if (th->vis_count <= 0 || th->nfr == 0)
        return;
    const sx_frame *fr = &th->fr[th->nfr - 1];
    sx_node *n = sx_node_push(th->vis, NULL, (th->nfr - 1) << 16 | fr->func, fr->block,
                           th->vis_count, s->interval);
    if (!n) {
        e->fatal = true;
        return;
    }
    th->vis = n;
    th->vis_count = 0;
}

void sx_enter_block(sx_engine *e, sx_state *s, int t, int block)
{
    sx_thread *th = &s->th[t];
    sx_frame *fr = &th->fr[th->nfr - 1];
    const ptx_function *f = &e->mod->funcs[fr->func];
    close_visit(e, s, t);
    if (block >= 0 && block < f->nblocks && f->blocks[block].loop_header) {
        int L = f->blocks[block].loop;
        if (L >= 0 && f->loops[L].header == block) {
            if (fr->block >= 0 && ptx_loop_contains(f, L, fr->block))
                fr->loop_iter[L]++;
            else
                fr->loop_iter[L] = 0;
        }
    }
    fr->block = block;
}

/* ---- branches ---------------------------------------------------------------- */

typedef struct {
    int target;        /* instruction index when taken */
    int loop;          /* loop whose membership the two legs disagree on, or -1 */
    int cont;          /* the side staying in it */
    int leg[2];
} branch_info;

static void take_leg(sx_cx *cx, bool side, const branch_info *bi)
{
    sx_thread *th = cx->th;
    sx_node *n = sx_node_push(th->dec, NULL, cx->fr->func, cx->pc, side, cx->s->interval);
    if (!n) {
        cx->e->fatal = true;
        return;
    }
    th->dec = n;
    if (bi->leg[side] >= 0)
        sx_leg_mark(cx->e, cx->s, bi->leg[side]);
    cx->next_pc = side ? bi->target : cx->pc + 1;
}

static void branch_child(sx_cx *cx, bool side, void *arg)
{
    take_leg(cx, side, arg);
    sx_advance_pc(cx);
}

static int block_of_instr(const ptx_function *f, int i)
{
    return i >= 0 && i < f->ninstrs ? f->instrs[i].block : -1;
}

static void loop_analysis(sx_cx *cx, branch_info *bi, sx_fork *fk)
{
    const ptx_function *f = cx->f;
    int b = cx->ins->block;
    int bt = block_of_instr(f, bi->target), bf = block_of_instr(f, cx->pc + 1);
    bi->loop = -1;
    for (int L = b >= 0 ? f->blocks[b].loop : -1; L >= 0; L = f->loops[L].parent) {
        bool in_t = bt >= 0 && ptx_loop_contains(f, L, bt);
        bool in_f = bf >= 0 && ptx_loop_contains(f, L, bf);
        if (in_t != in_f) {
            bi->loop = L;
            bi->cont = in_t ? 1 : 0;
            break;
        }
    }
    if (bi->loop < 0)
        return;
    if (cx->fr->loop_iter[bi->loop] >= cx->e->max_iter)
        fk->cut[bi->cont] = true;
}

static int exec_bra(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    if (ins->target_instr < 0)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "branch without a resolved target"), -1;
    if (ins->guard < 0) {
        cx->next_pc = ins->target_instr;
        return 1;
    }
    sx_z *z = &cx->e->z;
    Z3_ast c = sx_reg_get(cx->e, cx->fr, ins->guard);
    c = c ? sx_z_as_bool(z, c) : z->fls;
    if (ins->guard_neg)
        c = sx_z_not(z, c);
    branch_info bi = { .target = ins->target_instr, .loop = -1 };
    bi.leg[1] = sx_leg_index(cx->e, cx->fr->func, ins->block, true);
    bi.leg[0] = sx_leg_index(cx->e, cx->fr->func, ins->block, false);
    sx_fork fk = { .apply = branch_child, .arg = &bi, .prefer = -1,
                   .leg = { bi.leg[0], bi.leg[1] } };
    char note[200];
    loop_analysis(cx, &bi, &fk);
    if (bi.loop >= 0) {
        snprintf(note, sizeof note, "thread %d: loop at line %d cut after %d iterations",
                 cx->t, cx->f->blocks[cx->f->loops[bi.loop].header].line_first,
                 cx->fr->loop_iter[bi.loop]);
        fk.cut_note[0] = fk.cut_note[1] = note;
    }
    int side = sx_fork_on(cx, c, &fk);
    if (side < 0)
        return -1;
    take_leg(cx, side != 0, &bi);
    return 1;
}

/* ---- calls and returns -------------------------------------------------------- */

static int region_of_operand(sx_cx *cx, const ptx_operand *o, int func)
{
    sx_engine *e = cx->e;
    if ((o->kind != PTX_OPD_SYMBOL && o->kind != PTX_OPD_ADDR) || o->sym.kind != PTX_SYM_LOCAL_VAR)
        return -1;
    return e->fl[func].var_region[o->sym.index * e->X + cx->t];
}

/* Call operand o (an argument or a result) of n bytes: its register, or
 * its .param variable's region (*region; -1 for a register). */
static Z3_ast call_operand(sx_cx *cx, const ptx_operand *o, int n, int *region)
{
    *region = -1;
    if (o->kind == PTX_OPD_REG)
        return sx_reg_get(cx->e, cx->fr, o->reg);
    *region = region_of_operand(cx, o, cx->fr->func);
    return *region >= 0 ? sx_mem_read(cx->e, cx->s, *region, 0, n) : NULL;
}

/* malloc(size) as on the sim: a 16-byte aligned block of the device heap
 * after the state's earlier ones, or NULL once the heap is spent.  A
 * symbolic size is not pinned (it is often the loop bound the path's
 * atoms should vary): the block takes the size's upper bound over the
 * input domains, so no input makes blocks overlap; the blocks then sit
 * elsewhere than on the sim, which only a kernel that compares pointers
 * would see, and a path may see NULL sooner than the sim does. */
static int device_malloc(sx_cx *cx, const ptx_function *cf)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    const ptx_instr *ins = cx->ins;
    int region;
    Z3_ast size = ins->ncall_args >= 1 ? call_operand(cx, &ins->call_args[0], 8, &region) : NULL;
    uint64_t n;
    if (!size || e->heap_region < 0)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "malloc's size is not a .param variable"), -1;
    size = sx_z_resize(z, sx_z_to_bv(z, size), 64, false);
    uint64_t lo;
    if (!sx_z_get_u64(z, size, &n) && !sx_interval_of(e, size, &lo, &n))
        n = UINT64_MAX;   /* unbounded: NULL */
    uint64_t at = (cx->s->heap_used + 15) / 16 * 16, ptr = 0;
    if (n <= SX_HEAP_BYTES && at <= SX_HEAP_BYTES - n) {
        ptr = sx_layout_generic(&e->regions[e->heap_region]) + at;
        cx->s->heap_used = at + n;
    }
    if (ins->ncall_rets < 1 || cf->nrets < 1)
        return 1;
    const ptx_operand *o = &ins->call_rets[0];
    Z3_ast v = sx_z_num(z, ptr, 64);
    if (o->kind == PTX_OPD_REG) {
        sx_reg_set(e, cx->fr, o->reg, v);
        return 1;
    }
    region = region_of_operand(cx, o, cx->fr->func);
    if (region < 0 || !sx_mem_write(e, cx->s, region, 0, 8, v))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "malloc's result is not a .param variable"), -1;
    return 1;
}

/* A call to a function the PTX only declares: printf's vprintf prints
 * nothing and returns 0 (as on the sim), assert's __assertfail ends the
 * path as an error (a failed assertion is a finding), malloc hands out a
 * block of the device heap and free does nothing (as on the sim); others
 * are refused. */
static int external_call(sx_cx *cx, const ptx_function *cf)
{
    sx_engine *e = cx->e;
    const ptx_instr *ins = cx->ins;
    if (!strcmp(cf->name, "__assertfail")) {
        /* the state's model takes this path: an input that fails it */
        sx_issue_add(e, SX_ISSUE_ASSERT, ins->line, cx->t, NULL, cx->s->model,
                     "assertion failed (__assertfail) in thread %d", cx->t);
        sx_state_note(cx->s, "thread %d failed an assertion (__assertfail) at line %d", cx->t, ins->line);
        cx->s->end = SX_PATH_ERROR;
        cx->dead = true;
        return 1;
    }
    if (!strcmp(cf->name, "malloc"))
        return device_malloc(cx, cf);
    if (!strcmp(cf->name, "free"))
        return 1;
    if (strcmp(cf->name, "vprintf"))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "call to '%s', which has no body in the PTX", cf->name), -1;
    for (int k = 0; k < ins->ncall_rets && k < cf->nrets; k++) {
        const ptx_operand *o = &ins->call_rets[k];
        if (o->kind == PTX_OPD_REG) {
            sx_reg_set(e, cx->fr, o->reg, sx_z_num(&e->z, 0, (int)cf->rets[k].size * 8));
            continue;
        }
        int dst = region_of_operand(cx, o, cx->fr->func);
        if (dst < 0 || !sx_mem_zero(e, cx->s, dst, cf->rets[k].size))
            return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "vprintf's result is not a .param variable"), -1;
    }
    return 1;
}

/* The call of function `callee` (the instruction's, or an indirect
 * call's target) by thread cx->t: arguments in, a frame pushed. */
static int call_function(sx_cx *cx, int callee)
{
    sx_engine *e = cx->e;
    const ptx_instr *ins = cx->ins;
    const ptx_function *cf = &e->mod->funcs[callee];
    if (!cf->has_body)
        return external_call(cx, cf);
    if (cx->th->nfr >= 64)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "call depth over 64 (recursion?)"), -1;
    if (ins->ncall_args != cf->nparams)
        return sx_exec_fail(cx, WH_ERR_USER, "call passes %d arguments, '%s' takes %d",
                         ins->ncall_args, cf->name, cf->nparams), -1;
    int caller = cx->fr->func;
    Z3_ast regargs[64] = { 0 };
    for (int k = 0; k < cf->nparams && k < 64; k++) {
        const ptx_operand *a = &ins->call_args[k];
        const ptx_param *p = &cf->params[k];
        if (p->space == PTX_SPACE_REG) {
            if (a->kind != PTX_OPD_REG)
                return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "argument %d of a .reg parameter is not a register", k), -1;
            regargs[k] = sx_reg_get(e, cx->fr, a->reg);
            continue;
        }
        int src = region_of_operand(cx, a, caller);
        int dst = e->fl[callee].param_region[k * e->X + cx->t];
        if (src < 0 || dst < 0)
            return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "call argument %d is not a .param variable", k), -1;
        if (!sx_mem_copy(e, cx->s, dst, src, p->size))
            return -1;
    }
    cx->fr->pc = cx->pc + 1;
    close_visit(e, cx->s, cx->t);
    if (!sx_frame_push(e, cx->th, callee, cx->pc))
        return -1;
    sx_frame *nf = &cx->th->fr[cx->th->nfr - 1];
    for (int k = 0; k < cf->nparams && k < 64; k++)
        if (cf->params[k].space == PTX_SPACE_REG && regargs[k])
            sx_reg_set(e, nf, cf->params[k].reg, regargs[k]);
    cx->stop = true;
    return 1;
}

/* ---- indirect calls ------------------------------------------------------ */

/* The sim faults on a target that is no function, or one whose parameters
 * the call does not match (harness/sim/simt.c): the path ends as an error
 * and the issue says for which inputs. */
static void indirect_fault(sx_cx *cx, Z3_ast cond, Z3_model m, uint64_t target, void *arg)
{
    sx_engine *e = cx->e;
    const char *name = arg;
    char msg[300];
    if (name)
        snprintf(msg, sizeof msg, "indirect call of '%s' with %d argument(s) and %d result(s), which it does not "
                 "take, by thread %d", name, cx->ins->ncall_args, cx->ins->ncall_rets, cx->t);
    else
        snprintf(msg, sizeof msg, "indirect call to a target that is no function of the module (case %llu) by "
                 "thread %d", (unsigned long long)target, cx->t);
    sx_issue_add(e, SX_ISSUE_BRANCH, cx->ins->line, cx->t, cond ? Z3_ast_to_string(e->z.c, cond) : NULL, m, "%s",
                 msg);
    sx_state_note(cx->s, "%s (line %d)", msg, cx->ins->line);
    cx->s->end = SX_PATH_ERROR;
    cx->dead = true;
}

/* Candidate k of an indirect call: the k-th function whose address the
 * module takes. */
static int indirect_take(sx_cx *cx, int k, void *arg)
{
    (void)arg;
    int callee = cx->e->call_targets[k];
    const ptx_function *cf = &cx->e->mod->funcs[callee];
    if (cf->nparams != cx->ins->ncall_args || cf->nrets != cx->ins->ncall_rets) {
        indirect_fault(cx, NULL, NULL, 0, (void *)cf->name);
        return 1;
    }
    return call_function(cx, callee);
}

/* A call through a register: a concrete target calls its function; a
 * symbolic one forks over the functions whose address the module takes
 * (the index of the one it equals, or past them: a fault). */
static int indirect_call(sx_cx *cx)
{
    sx_engine *e = cx->e;
    sx_z *z = &e->z;
    int n = e->ncall_targets;
    Z3_ast t = sx_opd_get(cx, cx->ins->nops > 0 && cx->ins->ops[0].kind == PTX_OPD_LIST ? 1 : 0, PTX_T_U64);
    if (!t)
        return -1;
    sx_multiway mw = { n, indirect_take, NULL, indirect_fault, NULL };
    uint64_t v;
    if (sx_z_get_u64(z, t, &v)) {
        for (int k = 0; k < n; k++)
            if (v == PTX_ADDR_FUNC + (uint64_t)e->call_targets[k] * PTX_ADDR_FUNC_STRIDE)
                return indirect_take(cx, k, NULL);
        indirect_fault(cx, NULL, NULL, n, NULL);
        return 1;
    }
    Z3_ast idx = sx_z_num(z, (uint64_t)n, 32);
    for (int k = n - 1; k >= 0; k--) {
        Z3_ast a = sx_z_num(z, PTX_ADDR_FUNC + (uint64_t)e->call_targets[k] * PTX_ADDR_FUNC_STRIDE, 64);
        idx = sx_zk(z, Z3_mk_ite(z->c, sx_z_eq(z, t, a), sx_z_num(z, (uint64_t)k, 32), idx));
    }
    return sx_fork_multiway(cx, idx, &mw);
}

static int exec_call(sx_cx *cx)
{
    if (cx->ins->callee < 0)
        return indirect_call(cx);
    return call_function(cx, cx->ins->callee);
}

static void thread_exit(sx_cx *cx)
{
    close_visit(cx->e, cx->s, cx->t);
    cx->th->status = TS_EXITED;
    cx->stop = true;
}

bool sx_exec_return(sx_cx *cx)
{
    sx_engine *e = cx->e;
    sx_thread *th = cx->th;
    if (th->nfr <= 1) {
        thread_exit(cx);
        return true;
    }
    sx_frame *cf = &th->fr[th->nfr - 1];
    sx_frame *caller = &th->fr[th->nfr - 2];
    const ptx_function *callee = &e->mod->funcs[cf->func];
    const ptx_function *pf = &e->mod->funcs[caller->func];
    const ptx_instr *call = &pf->instrs[cf->call_instr];
    Z3_ast regrets[16] = { 0 };
    int rr[16];
    for (int k = 0; k < callee->nrets && k < call->ncall_rets && k < 16; k++) {
        const ptx_param *p = &callee->rets[k];
        const ptx_operand *o = &call->call_rets[k];
        rr[k] = -1;
        if (p->space == PTX_SPACE_REG) {
            if (o->kind == PTX_OPD_REG) {
                regrets[k] = sx_reg_get(e, cf, p->reg);
                rr[k] = o->reg;
            }
            continue;
        }
        int src = e->fl[cf->func].ret_region[k * e->X + cx->t];
        int dst = -1;
        if ((o->kind == PTX_OPD_SYMBOL || o->kind == PTX_OPD_ADDR) && o->sym.kind == PTX_SYM_LOCAL_VAR)
            dst = e->fl[caller->func].var_region[o->sym.index * e->X + cx->t];
        if (src >= 0 && dst >= 0 && !sx_mem_copy(e, cx->s, dst, src, p->size))
            return false;
    }
    for (int k = 0; k < 16; k++)
        if (regrets[k])
            sx_z_inc(&e->z, regrets[k]);
    close_visit(e, cx->s, cx->t);
    sx_frame_pop(e, th);
    sx_frame *fr = &th->fr[th->nfr - 1];
    for (int k = 0; k < callee->nrets && k < call->ncall_rets && k < 16; k++) {
        if (regrets[k] && rr[k] >= 0)
            sx_reg_set(e, fr, rr[k], regrets[k]);
        sx_z_dec(&e->z, regrets[k]);
    }
    if (fr->pc < pf->ninstrs && pf->instrs[fr->pc].block != fr->block)
        sx_enter_block(e, cx->s, cx->t, pf->instrs[fr->pc].block);
    cx->stop = true;
    return true;
}

/* ---- barriers ----------------------------------------------------------------- */

static int exec_bar(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    if (ins->op == PTX_OP_BAR_WARP)
        return 1;                       /* threads of a warp run in order anyway */
    if (ins->mode == PTX_BAR_ARRIVE || ins->mode == PTX_BAR_CLUSTER_ARRIVE)
        return 1;                       /* arrives without waiting */
    /* barrier.cluster.wait (a cluster of one block): it waits for every
     * thread's arrival; the threads run one at a time, so waiting until
     * every live thread waits (or has exited) is the same for the arrive /
     * wait pairs code makes, and stricter for anything else */
    if (ins->mode == PTX_BAR_RED) {
        /* the predicate is the last operand; the result comes at release */
        Z3_ast p = sx_opd_get_pred(cx, ins->nops - 1);
        if (!p)
            return -1;
        sx_z_inc(&cx->e->z, p);
        sx_z_dec(&cx->e->z, cx->th->bar_val);
        cx->th->bar_val = p;
    }
    close_visit(cx->e, cx->s, cx->t);
    cx->th->status = TS_BARRIER;
    cx->th->wait_func = cx->fr->func;
    cx->th->wait_pc = cx->pc;
    return 1;
}

/* bar.red: every thread waiting at one gets the reduction of the
 * predicates of all the threads waiting at that instruction. */
static bool barrier_reductions(sx_engine *e, sx_state *s)
{
    sx_z *z = &e->z;
    for (int t = 0; t < s->X; t++) {
        sx_thread *th = &s->th[t];
        if (th->status != TS_BARRIER || !th->bar_val)
            continue;
        const ptx_instr *ins = &e->mod->funcs[th->wait_func].instrs[th->wait_pc];
        Z3_ast r = ins->aop == PTX_AOP_POPC ? sx_z_num(z, 0, 32) : sx_z_bool(z, ins->aop == PTX_AOP_AND);
        for (int u = 0; u < s->X; u++) {
            const sx_thread *o = &s->th[u];
            if (o->status != TS_BARRIER || !o->bar_val || o->wait_func != th->wait_func
                || o->wait_pc != th->wait_pc)
                continue;
            if (ins->aop == PTX_AOP_POPC)
                r = sx_z_fold(z, sx_zk(z, Z3_mk_bvadd(z->c, r, sx_z_ite(z, o->bar_val, sx_z_num(z, 1, 32), sx_z_num(z, 0, 32)))));
            else if (ins->aop == PTX_AOP_AND)
                r = sx_z_and2(z, r, o->bar_val);
            else
                r = sx_z_or2(z, r, o->bar_val);
        }
        sx_cx cx;
        sx_cx_init(&cx, e, s, t);
        if (ins->ops[0].kind == PTX_OPD_REG && !sx_reg_write(&cx, ins->ops[0].reg, r))
            return false;
    }
    for (int t = 0; t < s->X; t++) {
        sx_z_dec(z, s->th[t].bar_val);
        s->th[t].bar_val = NULL;
    }
    return true;
}

bool sx_barrier_release(sx_engine *e, sx_state *s)
{
    int first = -1, nexit = 0, nwait = 0;
    bool mismatch = false;
    for (int t = 0; t < s->X; t++) {
        const sx_thread *th = &s->th[t];
        if (th->status == TS_EXITED) {
            nexit++;
            continue;
        }
        if (th->status != TS_BARRIER)
            continue;
        nwait++;
        if (first < 0)
            first = t;
        else if (th->wait_func != s->th[first].wait_func || th->wait_pc != s->th[first].wait_pc)
            mismatch = true;
    }
    /* a thread that exits has arrived as far as barrier.cluster.wait goes */
    bool cluster = first >= 0 && e->mod->funcs[s->th[first].wait_func].instrs[s->th[first].wait_pc].mode ==
                                     PTX_BAR_CLUSTER_WAIT;
    if (first >= 0 && (mismatch || (nexit > 0 && !cluster))) {
        const sx_thread *th = &s->th[first];
        s->barrier_div = true;
        int line = e->mod->funcs[th->wait_func].instrs[th->wait_pc].line;
        if (mismatch) {
            sx_issue_add(e, SX_ISSUE_BARRIER, line, first, NULL, NULL,
                      "barrier divergence: threads wait at different barriers (thread %d at line %d)",
                      first, line);
            sx_state_note(s, "threads waited at different barriers (interval %d)", s->interval);
        } else {
            sx_issue_add(e, SX_ISSUE_BARRIER, line, first, NULL, NULL,
                      "barrier divergence: %d thread(s) exited while %d wait at the barrier of line %d",
                      nexit, nwait, line);
            sx_state_note(s, "%d thread(s) exited before the barrier of line %d (interval %d)",
                       nexit, line, s->interval);
        }
    }
    if (!barrier_reductions(e, s))
        return false;
    s->interval++;
    for (int t = 0; t < s->X; t++)
        if (s->th[t].status == TS_BARRIER)
            s->th[t].status = TS_RUN;
    return true;
}

void sx_mbarrier_deadlock(sx_engine *e, sx_state *s)
{
    int t = 0, nbar = 0;
    for (int u = s->X - 1; u >= 0; u--) {
        if (s->th[u].status == TS_MBAR)
            t = u;
        nbar += s->th[u].status == TS_BARRIER;
    }
    const sx_thread *th = &s->th[t];
    int line = e->mod->funcs[th->fr[th->nfr - 1].func].instrs[th->fr[th->nfr - 1].pc].line;
    sx_issue_add(e, SX_ISSUE_BARRIER, line, t, NULL, NULL,
                 "mbarrier deadlock: thread %d waits at line %d for a phase no thread can complete%s", t, line,
                 nbar ? " (others wait at bar.sync)" : "");
    sx_state_note(s, "thread %d waits on an mbarrier phase no arrival can complete (line %d)", t, line);
    s->end = SX_PATH_ERROR;
    s->over = true;
}

int sx_exec_ctrl(sx_cx *cx)
{
    switch (cx->ins->op) {
    case PTX_OP_BRA: return exec_bra(cx);
    case PTX_OP_BRX: return sx_exec_brx(cx);
    case PTX_OP_CALL: return exec_call(cx);
    case PTX_OP_RET: return sx_exec_return(cx) ? 1 : -1;
    case PTX_OP_EXIT: thread_exit(cx); return 1;
    case PTX_OP_BAR: case PTX_OP_BAR_WARP: return exec_bar(cx);
    case PTX_OP_MEMBAR: case PTX_OP_FENCE: case PTX_OP_NANOSLEEP: case PTX_OP_PMEVENT:
    case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU: case PTX_OP_GRIDDEPCONTROL:
    case PTX_OP_SETMAXNREG: case PTX_OP_DISCARD: case PTX_OP_APPLYPRIORITY:
        return 1;
    case PTX_OP_TRAP:
        sx_state_note(cx->s, "thread %d executed trap at line %d", cx->t, cx->ins->line);
        cx->s->end = SX_PATH_ERROR;
        cx->dead = true;
        return 1;
    default:
        return 0;
    }
}
