/*
 * exec_mem.c — ld / ldu / st (scalars and .v2/.v4 vectors, every state
 * space), kernel parameters, and atom / red (add inc dec min max and or
 * xor exch cas, integer and float).  Under the canonical schedule an atomic
 * is a plain read-modify-write: threads run one after the other.  cp.async
 * copies global to shared memory at issue, as the emulator does.
 */
#include "symexec/internal.h"

#include <string.h>

#define C (cx->e->z.c)

static sx_z *ZZ(sx_cx *cx) { return &cx->e->z; }

static Z3_ast fold(sx_cx *cx, Z3_ast a) { return sx_z_fold(ZZ(cx), sx_zk(ZZ(cx), a)); }

static int reg_width(const sx_cx *cx, const ptx_operand *o)
{
    if (o->kind != PTX_OPD_REG)
        return 0;
    return cx->f->regs[o->reg].bits;
}

/* A loaded value into destination operand o (register or sink). */
static bool put_loaded(sx_cx *cx, const ptx_operand *o, Z3_ast v, ptx_type t)
{
    if (o->kind == PTX_OPD_SINK)
        return true;
    if (o->kind != PTX_OPD_REG)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported load destination");
    int rw = reg_width(cx, o), vw = sx_z_width(ZZ(cx), v);
    if (rw > vw && !sx_z_is_fp(ZZ(cx), v))
        v = sx_z_resize(ZZ(cx), v, rw, ptx_type_is_signed(t));
    return sx_reg_write(cx, o->reg, v);
}

/* The bytes [off, off + n) of a searched scalar's symbol, NULL when they
 * are no searched scalar's; *bad when they straddle one's edge. */
static Z3_ast searched_scalar(sx_cx *cx, uint64_t off, int n, bool *bad)
{
    sx_engine *e = cx->e;
    *bad = false;
    for (int p = 0; p < e->spec->nparams && p < e->entry->nparams; p++) {
        const ptx_param *pp = &e->entry->params[p];
        if (e->scalar_sym[p] < 0 || off >= pp->offset + pp->size || off + (uint64_t)n <= pp->offset)
            continue;
        if (off < pp->offset || off + (uint64_t)n > pp->offset + pp->size) {
            *bad = true;
            return NULL;
        }
        const sx_symbol *s = &e->syms[e->scalar_sym[p]];
        Z3_ast v = s->ast ? s->ast : sx_z_num(ZZ(cx), s->value, s->bytes * 8);
        int lo = (int)(off - pp->offset) * 8;
        return lo == 0 && n == s->bytes ? v : sx_z_extract(ZZ(cx), v, lo + 8 * n - 1, lo);
    }
    return NULL;
}

static Z3_ast param_read(sx_cx *cx, Z3_ast addr, int n)
{
    sx_z *z = ZZ(cx);
    uint64_t off;
    if (!sx_z_get_u64(z, addr, &off)) {
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "kernel parameter read at a computed address");
        return NULL;
    }
    if (off + (uint64_t)n > cx->e->nparam_bytes) {
        sx_exec_fail(cx, WH_ERR_USER, "kernel parameter read past the parameter space");
        return NULL;
    }
    bool straddles;
    Z3_ast sym = searched_scalar(cx, off, n, &straddles);
    if (sym || straddles) {
        if (straddles)
            sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "a parameter read across a searched scalar's edge");
        return sym;
    }
    uint64_t v = 0;
    const uint8_t *p = cx->e->params + off;
    if (n > 8) {
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "parameter read of %d bytes", n);
        return NULL;
    }
    for (int k = n - 1; k >= 0; k--)
        v = v << 8 | p[k];
    return sx_z_num(z, v, 8 * n);
}

static Z3_ast load_at(sx_cx *cx, ptx_space sp, Z3_ast addr, int n)
{
    uint64_t g;
    if (sp == PTX_SPACE_PARAM)
        return param_read(cx, addr, n);
    /* a kernel parameter at its generic address (cvta.param), as the sim reads it */
    if (sp == PTX_SPACE_GENERIC && sx_z_get_u64(ZZ(cx), fold(cx, addr), &g) && ptx_generic_space(g) == PTX_SPACE_PARAM)
        return param_read(cx, sx_z_num(ZZ(cx), g - PTX_ADDR_PARAM, 64), n);
    Z3_ast v;
    return sx_mem_load(cx, sp, addr, n, &v) ? v : NULL;
}

static Z3_ast addr_plus(sx_cx *cx, Z3_ast a, uint64_t k)
{
    if (!k)
        return a;
    return fold(cx, Z3_mk_bvadd(C, a, sx_z_num(ZZ(cx), k, 64)));
}

static int exec_ld(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    int n = ptx_type_size(t);
    if (n <= 0 || ins->nops < 2)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "load of an unsupported type"), -1;
    ptx_space sp;
    Z3_ast addr = sx_opd_addr(cx, &ins->ops[1], &sp);
    if (!addr)
        return -1;
    const ptx_operand *d = &ins->ops[0];
    if (d->kind == PTX_OPD_VEC) {
        for (int i = 0; i < d->nelems; i++) {
            Z3_ast v = load_at(cx, sp, addr_plus(cx, addr, (uint64_t)(i * n)), n);
            if (!v || !put_loaded(cx, &d->elems[i], v, t))
                return -1;
            if (cx->dead)
                return 1;
        }
        return 1;
    }
    Z3_ast v = load_at(cx, sp, addr, n);
    if (!v)
        return -1;
    return put_loaded(cx, d, v, t) ? 1 : -1;
}

static Z3_ast store_value(sx_cx *cx, const ptx_operand *o, ptx_type t, int n)
{
    sx_z *z = ZZ(cx);
    Z3_ast v;
    switch (o->kind) {
    case PTX_OPD_REG:
        v = sx_reg_get(cx->e, cx->fr, o->reg);
        if (!v)
            return sx_z_num(z, 0, 8 * n);
        if (sx_z_is_fp(z, v) && sx_z_width(z, v) == 8 * n)
            return v;
        return sx_z_as_bv(z, v, 8 * n);
    case PTX_OPD_IMM_INT:
        return sx_z_num(z, (uint64_t)o->ival, 8 * n);
    case PTX_OPD_IMM_FLOAT:
        return sx_z_num(z, n == 8 ? o->f64bits : o->f32bits, 8 * n);
    default:
        (void)t;
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported store operand");
        return NULL;
    }
}

static int exec_st(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    int n = ptx_type_size(t);
    if (n <= 0 || ins->nops < 2)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "store of an unsupported type"), -1;
    ptx_space sp;
    Z3_ast addr = sx_opd_addr(cx, &ins->ops[0], &sp);
    if (!addr)
        return -1;
    if (sp == PTX_SPACE_PARAM)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "store to a kernel parameter"), -1;
    const ptx_operand *s = &ins->ops[1];
    if (s->kind == PTX_OPD_VEC) {
        for (int i = 0; i < s->nelems; i++) {
            Z3_ast v = store_value(cx, &s->elems[i], t, n);
            if (!v || !sx_mem_store(cx, sp, addr_plus(cx, addr, (uint64_t)(i * n)), n, v))
                return -1;
            if (cx->dead)
                return 1;
        }
        return 1;
    }
    Z3_ast v = store_value(cx, s, t, n);
    if (!v)
        return -1;
    return sx_mem_store(cx, sp, addr, n, v) ? 1 : -1;
}

/* ---- atomics ---------------------------------------------------------------- */

Z3_ast sx_atom_value(sx_cx *cx, ptx_atomop op, ptx_type t, Z3_ast old, Z3_ast b, Z3_ast c)
{
    sx_z *z = ZZ(cx);
    int w = ptx_type_bits(t);
    bool sgn = ptx_type_is_signed(t);
    if (t == PTX_T_F32 || t == PTX_T_F64) {
        Z3_ast fo = sx_z_as_fp(z, old, w), fb = sx_z_as_fp(z, b, w);
        switch (op) {
        case PTX_AOP_ADD: return fold(cx, Z3_mk_fpa_add(C, z->rm[SX_RM_RNE], fo, fb));
        case PTX_AOP_EXCH: return b;
        case PTX_AOP_MIN: return sx_z_ite(z, fold(cx, Z3_mk_fpa_lt(C, fb, fo)), fb, fo);
        case PTX_AOP_MAX: return sx_z_ite(z, fold(cx, Z3_mk_fpa_gt(C, fb, fo)), fb, fo);
        default: break;
        }
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported float atomic .%s", ptx_atomop_name(op));
        return NULL;
    }
    old = sx_z_as_bv(z, old, w);
    switch (op) {
    case PTX_AOP_ADD: return fold(cx, Z3_mk_bvadd(C, old, b));
    case PTX_AOP_AND: return fold(cx, Z3_mk_bvand(C, old, b));
    case PTX_AOP_OR: return fold(cx, Z3_mk_bvor(C, old, b));
    case PTX_AOP_XOR: return fold(cx, Z3_mk_bvxor(C, old, b));
    case PTX_AOP_EXCH: return b;
    case PTX_AOP_MIN:
        return sx_z_ite(z, fold(cx, sgn ? Z3_mk_bvslt(C, b, old) : Z3_mk_bvult(C, b, old)), b, old);
    case PTX_AOP_MAX:
        return sx_z_ite(z, fold(cx, sgn ? Z3_mk_bvsgt(C, b, old) : Z3_mk_bvugt(C, b, old)), b, old);
    case PTX_AOP_INC:
        return sx_z_ite(z, fold(cx, Z3_mk_bvuge(C, old, b)), sx_z_num(z, 0, w),
                     fold(cx, Z3_mk_bvadd(C, old, sx_z_num(z, 1, w))));
    case PTX_AOP_DEC:
        return sx_z_ite(z, sx_z_or2(z, sx_z_eq(z, old, sx_z_num(z, 0, w)), fold(cx, Z3_mk_bvugt(C, old, b))), b,
                     fold(cx, Z3_mk_bvsub(C, old, sx_z_num(z, 1, w))));
    case PTX_AOP_CAS:
        return sx_z_ite(z, sx_z_eq(z, old, b), c, old);
    default:
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported atomic operation .%s", ptx_atomop_name(op));
        return NULL;
    }
}

static int exec_atom(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    int n = ptx_type_size(t);
    bool red = ins->op == PTX_OP_RED;
    int ao = red ? 0 : 1;   /* address operand */
    if (n <= 0 || ins->nops < ao + 2 || ins->vec > 1)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported atomic form"), -1;
    ptx_space sp;
    Z3_ast addr = sx_opd_addr(cx, &ins->ops[ao], &sp);
    if (!addr)
        return -1;
    Z3_ast b = sx_opd_get(cx, ao + 1, t), c = NULL;
    if (!b)
        return -1;
    if (ins->aop == PTX_AOP_CAS && !(c = sx_opd_get(cx, ao + 2, t)))
        return -1;
    /* the read-modify-write runs unguarded on a copy of the guard */
    Z3_ast old = load_at(cx, sp, addr, n);
    if (!old || cx->dead)
        return old ? 1 : -1;
    Z3_ast nv = sx_atom_value(cx, ins->aop, t, old, sx_z_as_bv(ZZ(cx), b, 8 * n), c ? sx_z_as_bv(ZZ(cx), c, 8 * n) : NULL);
    if (!nv || !sx_mem_store(cx, sp, addr, n, nv))
        return -1;
    if (red || cx->dead)
        return 1;
    return put_loaded(cx, &ins->ops[0], old, t) ? 1 : -1;
}

/* ---- cp.async ----------------------------------------------------------------- */

/* `n` bytes of zeros above value v (a bit-vector of `have` bytes, or NULL). */
static Z3_ast zero_extend_bytes(sx_cx *cx, Z3_ast v, int have, int n)
{
    sx_z *z = ZZ(cx);
    if (have >= n)
        return v;
    Z3_ast zero = sx_z_num(z, 0, 8 * (n - have));
    return v ? sx_z_concat(z, zero, sx_z_to_bv(z, v)) : zero;
}

/* A copy whose source size is known: one load of sz bytes, one store of cp
 * (zero-filled past sz), as the emulator resolves the two ranges. */
static int cp_async_fixed(sx_cx *cx, Z3_ast dst, Z3_ast src, int cp, int sz)
{
    Z3_ast v = NULL;
    if (sz > 0) {
        if (!sx_mem_load(cx, PTX_SPACE_GLOBAL, src, sz, &v))
            return -1;
        if (cx->dead)
            return 1;
    }
    v = zero_extend_bytes(cx, v, sz, cp);
    return v && sx_mem_store(cx, PTX_SPACE_SHARED, dst, cp, v) ? 1 : -1;
}

/* A copy whose source size is symbolic: byte i is read only when i < sz
 * (the load runs under that guard, so its bounds are checked only then, as
 * the emulator reads sz bytes) and is zero otherwise. */
static int cp_async_partial(sx_cx *cx, Z3_ast dst, Z3_ast src, int cp, Z3_ast sz)
{
    sx_z *z = ZZ(cx);
    Z3_ast guard = cx->guard, v = NULL;
    for (int i = 0; i < cp; i++) {
        Z3_ast in = fold(cx, Z3_mk_bvult(C, sx_z_num(z, (uint64_t)i, 32), sz));
        Z3_ast b = NULL;
        cx->guard = guard ? sx_z_and2(z, guard, in) : in;
        bool ok = sx_mem_load(cx, PTX_SPACE_GLOBAL, addr_plus(cx, src, (uint64_t)i), 1, &b);
        cx->guard = guard;
        if (!ok)
            return -1;
        if (cx->dead)
            return 1;
        b = sx_z_ite(z, in, sx_z_to_bv(z, b), sx_z_num(z, 0, 8));
        v = v ? sx_z_concat(z, b, v) : b;
    }
    return v && sx_mem_store(cx, PTX_SPACE_SHARED, dst, cp, v) ? 1 : -1;
}

/* cp.async.ca/cg.shared.global [dst], [src], cp-size{, src-size}: the
 * emulator copies at issue (harness/sim/mem.c exec_cp_async):
 * min(src-size, cp-size) bytes from global memory, zeros up to cp-size.
 * commit_group and wait_group / wait_all only wait: no-ops here. */
static int exec_cp_async(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    sx_z *z = ZZ(cx);
    if (ins->mode != PTX_CP_COPY)
        return 1;
    if (ins->nops < 3)
        return sx_exec_fail(cx, WH_ERR_USER, "cp.async needs [dst], [src] and a size"), -1;
    Z3_ast cps = sx_opd_get(cx, 2, PTX_T_U32);
    uint64_t cp, szv;
    if (!cps)
        return -1;
    if (!sx_z_get_u64(z, cps, &cp))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "cp.async with a data-dependent cp-size"), -1;
    if (cp == 0 || cp > 16)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "cp.async of %llu bytes", (unsigned long long)cp), -1;
    Z3_ast sz = ins->nops > 3 ? sx_opd_get(cx, 3, PTX_T_U32) : cps;
    ptx_space sp;
    Z3_ast dst = sx_opd_addr(cx, &ins->ops[0], &sp);
    Z3_ast src = dst ? sx_opd_addr(cx, &ins->ops[1], &sp) : NULL;
    if (!sz || !dst || !src)
        return -1;
    if (sx_z_get_u64(z, sz, &szv))
        return cp_async_fixed(cx, dst, src, (int)cp, szv < cp ? (int)szv : (int)cp);
    return cp_async_partial(cx, dst, src, (int)cp, sz);
}

/* ---- mbarrier -------------------------------------------------------------------- */

/* The object's bytes and transitions are ptx/mbarrier.c's, as the sim's,
 * so that atoms replay.  Counts and objects must be concrete (a symbolic
 * one ends the state as unsupported). */
static bool mbar_value(sx_cx *cx, Z3_ast v, uint64_t *out, const char *what)
{
    if (v && sx_z_get_u64(ZZ(cx), fold(cx, v), out))
        return true;
    return v ? sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "mbarrier with a symbolic %s (line %d)", what, cx->ins->line)
             : false;
}

/* Threads waiting on a phase try again: one just completed. */
static void mbar_wake(sx_cx *cx)
{
    for (int t = 0; t < cx->s->X; t++)
        if (cx->s->th[t].status == TS_MBAR)
            cx->s->th[t].status = TS_RUN;
}

/* The object at addr (obj) after operation `mode` with arg, stored; the
 * threads waiting on a phase it completed are woken. */
static int mbar_store_applied(sx_cx *cx, Z3_ast addr, ptx_space sp, uint64_t obj, int mode, uint32_t flags,
                              uint64_t arg)
{
    uint64_t next;
    bool completed;
    const char *why = ptx_mbar_apply(mode, flags, obj, arg, &next, &completed);
    if (why)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "mbarrier: %s (line %d)", why, cx->ins->line), -1;
    if (!sx_mem_store(cx, sp, addr, 8, sx_z_num(ZZ(cx), next, 64)))
        return -1;
    if (completed)
        mbar_wake(cx);
    return 1;
}

/* The mbarrier object operand k names: its address, space and (concrete)
 * value; 0 when the path ended there, -1 on failure. */
static int mbar_object(sx_cx *cx, int k, Z3_ast *addr, ptx_space *sp, uint64_t *obj)
{
    if (!(*addr = sx_opd_addr(cx, &cx->ins->ops[k], sp)))
        return -1;
    if (*sp == PTX_SPACE_SHARED_CLUSTER)   /* a block's own objects: one CTA per cluster */
        *sp = PTX_SPACE_SHARED;
    Z3_ast cur = load_at(cx, *sp, *addr, 8);
    if (!mbar_value(cx, cur, obj, "object"))
        return -1;
    return cx->dead ? 0 : 1;
}

/* arrive, arrive_drop (a count, or .expect_tx's bytes), expect_tx,
 * complete_tx: the new object stored; an arrival's state token to its
 * destination. */
static int mbar_update(sx_cx *cx, Z3_ast addr, ptx_space sp, uint64_t obj)
{
    const ptx_instr *ins = cx->ins;
    bool arrival = ins->mode == PTX_MBAR_ARRIVE || ins->mode == PTX_MBAR_ARRIVE_DROP;
    int argop = arrival ? 2 : 1;
    uint64_t arg = 1;
    if (ins->nops > argop &&
        !mbar_value(cx, sx_opd_get(cx, argop, PTX_T_U32), &arg, ins->flags & PTX_F_EXPECT_TX || !arrival ?
                    "transaction count" : "count"))
        return -1;
    if (mbar_store_applied(cx, addr, sp, obj, ins->mode, ins->flags, arg) < 0)
        return -1;
    return !arrival || sx_opd_set(cx, 0, sx_z_num(ZZ(cx), obj, 64), PTX_T_B64) ? 1 : -1;
}

/* test_wait, try_wait: true once the token's phase (or the parity's) has
 * completed; until then the thread waits there (the spin loop a library
 * wraps around it would only ask again). */
static int mbar_wait(sx_cx *cx, uint64_t obj)
{
    const ptx_instr *ins = cx->ins;
    uint64_t v;
    if (!mbar_value(cx, sx_opd_get(cx, 2, PTX_T_B64), &v, ins->flags & PTX_F_PARITY ? "parity" : "token"))
        return -1;
    if (!ptx_mbar_phase_done(ins->flags, obj, v)) {
        cx->th->status = TS_MBAR;
        cx->stop = true;
        return 1;
    }
    return sx_opd_set(cx, 0, sx_z_bool(ZZ(cx), true), PTX_T_PRED) ? 1 : -1;
}

static int exec_mbarrier(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    if (!ins->mode)
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction '%s' form (line %d)", ins->opcode,
                            ins->line), -1;
    if (ins->mode == PTX_MBAR_PENDING_COUNT) {
        uint64_t token;
        if (!mbar_value(cx, sx_opd_get(cx, 1, PTX_T_B64), &token, "token"))
            return -1;
        return sx_opd_set(cx, 0, sx_z_num(ZZ(cx), ptx_mbar_pending(token), 32), PTX_T_U32) ? 1 : -1;
    }
    ptx_space sp;
    Z3_ast addr;
    if (ins->mode == PTX_MBAR_INIT || ins->mode == PTX_MBAR_INVAL) {
        uint64_t n = 0;
        if (!(addr = sx_opd_addr(cx, &ins->ops[ptx_mbar_addr_operand(ins)], &sp)))
            return -1;
        if (ins->mode == PTX_MBAR_INIT && !mbar_value(cx, sx_opd_get(cx, 1, PTX_T_U32), &n, "count"))
            return -1;
        return sx_mem_store(cx, sp, addr, 8, sx_z_num(ZZ(cx), ins->mode == PTX_MBAR_INIT ? ptx_mbar_init(n) : 0, 64))
                   ? 1 : -1;
    }
    uint64_t obj;
    int got = mbar_object(cx, ptx_mbar_addr_operand(ins), &addr, &sp, &obj);
    if (got <= 0)
        return got < 0 ? -1 : 1;
    if (ins->mode == PTX_MBAR_TEST_WAIT || ins->mode == PTX_MBAR_TRY_WAIT)
        return mbar_wait(cx, obj);
    return mbar_update(cx, addr, sp, obj);
}

/* ---- cp.async.bulk --------------------------------------------------------------- */

/* A copy into shared memory completes its bytes on the mbarrier of
 * operand k (ptx/mbarrier.c, as mbarrier.complete_tx). */
static int complete_tx(sx_cx *cx, int k, uint64_t bytes)
{
    Z3_ast bar;
    ptx_space sp;
    uint64_t obj;
    int got = mbar_object(cx, k, &bar, &sp, &obj);
    if (got <= 0)
        return got < 0 ? -1 : 1;
    return mbar_store_applied(cx, bar, sp, obj, PTX_MBAR_COMPLETE_TX, 0, bytes);
}

/* A concrete operand's value, or false (unsupported, said) when it is
 * symbolic. */
static bool bulk_concrete(sx_cx *cx, Z3_ast v, uint64_t *out, const char *what)
{
    if (v && sx_z_get_u64(ZZ(cx), fold(cx, v), out))
        return true;
    return v ? sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "cp.async.bulk with a data-dependent %s (line %d)", what,
                            cx->ins->line)
             : false;
}

/* cp.async.bulk [dst], [src], size{, [mbar]}: the copy runs at issue, as
 * the emulator's does (harness/sim/mem.c exec_cp_bulk), 16 bytes at a
 * time; a size or a concrete address off 16 bytes ends the path where the
 * emulator faults; a copy into shared memory then completes its bytes on
 * the mbarrier (ptx/mbarrier.c, as mbarrier.complete_tx).  The size must
 * be concrete. */
static int exec_cp_bulk(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    uint64_t size, a;
    if (!bulk_concrete(cx, sx_opd_get(cx, 2, PTX_T_U32), &size, "size"))
        return -1;
    ptx_space dsp, ssp;
    Z3_ast dst = sx_opd_addr(cx, &ins->ops[0], &dsp), src = dst ? sx_opd_addr(cx, &ins->ops[1], &ssp) : NULL;
    if (!dst || !src)
        return -1;
    bool misaligned = size % 16 != 0;
    misaligned |= sx_z_get_u64(ZZ(cx), fold(cx, dst), &a) && a % 16;
    misaligned |= sx_z_get_u64(ZZ(cx), fold(cx, src), &a) && a % 16;
    if (misaligned) {
        sx_fault_path(cx, "misaligned bulk copy: it moves a multiple of 16 bytes between 16-byte aligned addresses");
        return 1;
    }
    dsp = dsp == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : dsp;
    ssp = ptx_cp_bulk_source(ins->mode);
    for (uint64_t o = 0; o < size && !cx->dead; o += 16) {
        Z3_ast v;
        if (!sx_mem_load(cx, ssp, addr_plus(cx, src, o), 16, &v))
            return -1;
        if (!cx->dead && !sx_mem_store(cx, dsp, addr_plus(cx, dst, o), 16, v))
            return -1;
    }
    if (cx->dead || !ptx_cp_bulk_completes_tx(ins->mode))
        return 1;
    return complete_tx(cx, 3, size);
}

/* ---- cp.async.bulk.tensor -------------------------------------------------------- */

/* The tensor map parameter operand o names, by its generic address
 * (cvta.param) or as the parameter itself; NULL (unsupported, said) for
 * any other place (a map in global or shared memory is not modelled) or a
 * data-dependent address. */
static const ptx_tensor_map *tensor_map_of(sx_cx *cx, const ptx_operand *o, int *param)
{
    ptx_space sp;
    Z3_ast a = sx_opd_addr(cx, o, &sp);
    uint64_t v;
    if (!a)
        return NULL;
    if (!sx_z_get_u64(ZZ(cx), fold(cx, a), &v)) {
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "cp.async.bulk.tensor with a data-dependent tensor map (line %d)",
                     cx->ins->line);
        return NULL;
    }
    bool named = o->sym.kind == PTX_SYM_PARAM;
    uint64_t off = named ? v : v - PTX_ADDR_PARAM;
    const sx_engine *e = cx->e;
    for (int p = 0; p < e->entry->nparams && p < e->spec->nkparams && (named || v >= PTX_ADDR_PARAM); p++)
        if (e->tmap[p].rank && e->entry->params[p].offset == off) {
            *param = p;
            return &e->tmap[p];
        }
    sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "cp.async.bulk.tensor (line %d): address 0x%llx is no tensor map parameter "
                 "of the spec (maps in global or shared memory are not modelled)", cx->ins->line,
                 (unsigned long long)v);
    return NULL;
}

/* A tensor copy's coordinates, which must be concrete (a symbolic one ends
 * the state as unsupported). */
static bool tensor_coords(sx_cx *cx, const ptx_operand *v, int32_t *c)
{
    memset(c, 0, WH_TMAP_MAX_RANK * sizeof *c);
    for (int d = 0; d < v->nelems && d < WH_TMAP_MAX_RANK; d++) {
        uint64_t u;
        Z3_ast x = sx_opd_value(cx, &v->elems[d], PTX_T_S32);
        if (!x)
            return false;
        if (!sx_z_get_u64(ZZ(cx), fold(cx, x), &u))
            return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "cp.async.bulk.tensor with a data-dependent coordinate "
                                "(line %d)", cx->ins->line);
        c[d] = (int32_t)(uint32_t)u;
    }
    return true;
}

/* cp.async.bulk.tensor (tiled): the box moves at issue, element by
 * element, as the emulator's does (harness/sim/mem.c exec_cp_tensor, one
 * layout: ptx/tensor_map.c); a box off 128 bytes in shared memory ends the
 * path where the emulator faults; a load completes the box's bytes on the
 * mbarrier.  The box's shared address and the coordinates must be
 * concrete. */
static int exec_cp_tensor(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    sx_z *z = ZZ(cx);
    bool load = ins->mode == PTX_CP_TENSOR_TO_SHARED;
    int t = ptx_cp_tensor_operand(ins->mode), p = -1;
    const ptx_tensor_map *tm = tensor_map_of(cx, &ins->ops[t], &p);
    int32_t c[WH_TMAP_MAX_RANK];
    if (!tm || !tensor_coords(cx, &ins->ops[t].elems[0], c))
        return -1;
    ptx_space bsp;
    uint64_t box;
    Z3_ast ba = sx_opd_addr(cx, &ins->ops[1 - t], &bsp);
    if (!ba || !bulk_concrete(cx, ba, &box, "shared address"))
        return -1;
    if (box % PTX_TMAP_SMEM_ALIGN) {
        sx_fault_path(cx, "misaligned tensor copy: its box in shared memory needs 128-byte alignment");
        return 1;
    }
    uint64_t base = sx_layout_generic(&cx->e->regions[cx->e->tmap_region[p]]);
    uint32_t n = ptx_tmap_box_elems(tm);
    int es = tm->elem_bytes;
    uint8_t fill[8];
    ptx_tmap_fill(tm, fill);
    uint64_t fv = 0;
    for (int b = es - 1; b >= 0; b--)
        fv = fv << 8 | fill[b];
    for (uint32_t k = 0; k < n && !cx->dead; k++) {
        int64_t el = ptx_tmap_elem(tm, c, k);
        if (el < 0 && !load)
            continue;   /* a store writes nothing outside the tensor */
        Z3_ast at = sx_z_num(z, ptx_tmap_smem(tm, box, k), 64), v = NULL;
        Z3_ast g = el < 0 ? NULL : sx_z_num(z, base + (uint64_t)el * (uint64_t)es, 64);
        if (!g)
            v = sx_z_num(z, fv, 8 * es);
        else if (!sx_mem_load(cx, load ? PTX_SPACE_GLOBAL : PTX_SPACE_SHARED, load ? g : at, es, &v))
            return -1;
        if (!cx->dead && !sx_mem_store(cx, load ? PTX_SPACE_SHARED : PTX_SPACE_GLOBAL, load ? at : g, es, v))
            return -1;
    }
    return cx->dead || !load ? 1 : complete_tx(cx, 2, ptx_tmap_box_bytes(tm));
}

int sx_exec_mem(sx_cx *cx)
{
    switch (cx->ins->op) {
    case PTX_OP_MBARRIER: return exec_mbarrier(cx);
    case PTX_OP_CP_ASYNC:
        if (ptx_cp_is_tensor_copy(cx->ins->mode))
            return exec_cp_tensor(cx);
        return ptx_cp_is_bulk_copy(cx->ins->mode) ? exec_cp_bulk(cx) : exec_cp_async(cx);
    case PTX_OP_LD: case PTX_OP_LDU: return exec_ld(cx);
    case PTX_OP_ST: return exec_st(cx);
    case PTX_OP_ATOM: case PTX_OP_RED: return exec_atom(cx);
    default: return 0;
    }
}
