/*
 * decode.c — pre-decoding a kernel for the sim backend.
 *
 * Done once at open time, after layout.c has placed the memory: give every
 * register a slot (slots.c), and turn each ptx_instr into a compact
 * sim_instr whose operands are register slots, 64-bit immediates or
 * resolved addresses, with its timing class, the registers it reads and writes (for the scoreboard)
 * and, for branches, its target and reconvergence point.  Instructions the
 * emulator does not implement decode to SIM_OP_UNSUPPORTED; they stop a run
 * only when they are executed.
 */
#include "harness/sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    sim_prog *P;
    sim_func *F;
    const ptx_function *pf;
    const ptx_instr *pi;
    wh_error *err;
} dctx;

/* ------------------------------------------------------------------------ */
/* Instruction decoding                                                     */
/* ------------------------------------------------------------------------ */

static bool is_pred_reg(const ptx_function *f, int reg)
{
    return reg >= 0 && reg < f->nregs && f->regs[reg].type == PTX_T_PRED;
}

static bool derr(dctx *c, const char *what)
{
    wh_error_set(c->err, WH_ERR_INTERNAL, c->P->file, c->pi ? c->pi->line : 0, 0,
                 "sim: cannot decode instruction (%s)", what);
    return false;
}

/* Address of a symbol in its own state space (mov, ld/st with [sym]).
 * *local_rel: the value is relative to the frame's local base. */
static bool sym_addr(dctx *c, const ptx_symref *s, uint64_t *val, bool *local_rel, ptx_space *space)
{
    const sim_prog *P = c->P;
    *local_rel = false;
    *space = PTX_SPACE_GLOBAL;
    switch (s->kind) {
    case PTX_SYM_MODULE_VAR: {
        if (s->index < 0 || s->index >= P->m->nvars)
            return derr(c, "bad module variable");
        const ptx_var *v = &P->m->vars[s->index];
        *space = v->space;
        *val = sim_mvar_addr(P, s->index);
        return true;
    }
    case PTX_SYM_LOCAL_VAR: {
        if (s->index < 0 || s->index >= c->pf->nvars)
            return derr(c, "bad local variable");
        const ptx_var *v = &c->pf->vars[s->index];
        *space = v->space;
        *val = c->F->var_off[s->index];
        if (v->space == PTX_SPACE_LOCAL)
            *local_rel = true;
        return true;
    }
    case PTX_SYM_PARAM:
        if (s->index < 0 || s->index >= c->pf->nparams)
            return derr(c, "bad parameter");
        *space = PTX_SPACE_PARAM;
        *val = c->pf->params[s->index].offset;
        return true;
    case PTX_SYM_RET:
        if (s->index < 0 || s->index >= c->pf->nrets)
            return derr(c, "bad return parameter");
        *space = PTX_SPACE_PARAM;
        *val = c->F->ret_off + c->pf->rets[s->index].offset;
        return true;
    case PTX_SYM_FUNC:
        *space = PTX_SPACE_GLOBAL;
        *val = PTX_ADDR_FUNC + (uint64_t)s->index * PTX_ADDR_FUNC_STRIDE;
        return true;
    default:
        return derr(c, "unresolved symbol");
    }
}

static ptx_type src_type(const ptx_instr *pi, int k)
{
    switch (pi->op) {
    case PTX_OP_CVT:
        return pi->type2;
    case PTX_OP_SHL: case PTX_OP_SHR:
        return k == 1 ? PTX_T_U32 : pi->type;
    case PTX_OP_BFE:
        return k >= 1 ? PTX_T_U32 : pi->type;
    case PTX_OP_BFI:
        return k >= 2 ? PTX_T_U32 : pi->type;
    case PTX_OP_SET: case PTX_OP_SLCT:
        if (pi->op == PTX_OP_SLCT && k == 2)
            return pi->type2;
        return pi->type2 ? pi->type2 : pi->type;
    case PTX_OP_SHFL: case PTX_OP_VOTE: case PTX_OP_MATCH: case PTX_OP_REDUX:
        return k == 0 ? pi->type : PTX_T_B32;
    default:
        return pi->type;
    }
}

static uint64_t int_to_float_bits(int64_t v, ptx_type t)
{
    return sim_float_imm((double)v, t);
}

static bool decode_src(dctx *c, const ptx_operand *o, ptx_type ty, sim_opd *out)
{
    memset(out, 0, sizeof *out);
    switch (o->kind) {
    case PTX_OPD_REG:
        if (o->reg < 0 || o->reg >= c->pf->nregs)
            return derr(c, "bad register");
        if (is_pred_reg(c->pf, o->reg)) {
            out->kind = SIM_OPD_PRED;
            out->neg = o->neg;
        } else {
            out->kind = SIM_OPD_REG;
        }
        out->slot = c->F->slot[o->reg];
        return true;
    case PTX_OPD_SPECIAL:
        out->kind = SIM_OPD_SREG;
        out->sreg = (uint8_t)o->sreg;
        out->comp = o->sreg_comp;
        out->slot = o->sreg_index;
        return true;
    case PTX_OPD_IMM_INT:
        out->kind = SIM_OPD_IMM;
        if (ptx_type_is_float(ty))
            out->imm = int_to_float_bits(o->ival, ty);
        else
            out->imm = (uint64_t)o->ival;
        return true;
    case PTX_OPD_IMM_FLOAT:
        out->kind = SIM_OPD_IMM;
        if (ty == PTX_T_F64)
            out->imm = o->f64bits;
        else if (ty == PTX_T_F32)
            out->imm = o->f32bits;
        else if (ptx_type_is_float(ty))
            out->imm = sim_float_imm(o->fval, ty);
        else if (o->fwidth == 64 || (o->fwidth == 0 && ptx_type_bits(ty) == 64))
            out->imm = o->f64bits;
        else
            out->imm = o->f32bits;
        return true;
    case PTX_OPD_SYMBOL: {
        uint64_t v;
        bool rel;
        ptx_space sp;
        if (!sym_addr(c, &o->sym, &v, &rel, &sp))
            return false;
        out->kind = rel ? SIM_OPD_LOCALSYM : SIM_OPD_IMM;
        out->imm = v + (uint64_t)o->ival;
        return true;
    }
    case PTX_OPD_SINK:
        out->kind = SIM_OPD_IMM;
        return true;
    default:
        return derr(c, "unexpected operand kind");
    }
}

static bool decode_dst(dctx *c, const ptx_operand *o, int32_t *slot, bool *is_pred)
{
    *is_pred = false;
    if (o->kind == PTX_OPD_SINK) {
        *slot = -1;
        return true;
    }
    if (o->kind != PTX_OPD_REG || o->reg < 0 || o->reg >= c->pf->nregs)
        return derr(c, "destination is not a register");
    *slot = c->F->slot[o->reg];
    *is_pred = is_pred_reg(c->pf, o->reg);
    return true;
}

/* [reg + off], [sym + off], [imm].  For a generic access to a symbol of
 * another space, the generic window is added. */
static bool decode_addr(dctx *c, const ptx_operand *o, ptx_space ispace, sim_addr *a)
{
    a->base = -1;
    a->local_rel = false;
    a->off = (uint64_t)o->ival;
    if (o->kind == PTX_OPD_IMM_INT) {
        a->off = (uint64_t)o->ival;
        return true;
    }
    if (o->kind == PTX_OPD_REG) {
        a->base = c->F->slot[o->reg];
        a->off = 0;
        return true;
    }
    if (o->kind != PTX_OPD_ADDR && o->kind != PTX_OPD_SYMBOL)
        return derr(c, "expected an address");
    if (o->reg >= 0 && o->sym.kind == PTX_SYM_NONE) {
        a->base = c->F->slot[o->reg];
        return true;
    }
    if (o->sym.kind != PTX_SYM_NONE) {
        uint64_t v;
        bool rel;
        ptx_space sp;
        if (!sym_addr(c, &o->sym, &v, &rel, &sp))
            return false;
        if (o->reg >= 0)
            a->base = c->F->slot[o->reg];
        a->local_rel = rel;
        a->off += v;
        if (ispace == PTX_SPACE_GENERIC && sp != PTX_SPACE_GLOBAL) {
            if (sp == PTX_SPACE_PARAM)
                return true;  /* generic param access: reported at run time */
            a->off += sim_window_of(sp);
        }
    }
    return true;
}

static void add_dep(sim_instr *s, const sim_func *F, int slot, bool pred)
{
    if (slot < 0 || s->ndeps >= (int)(sizeof s->deps / sizeof s->deps[0]))
        return;
    s->deps[s->ndeps++] = pred ? F->nslots + slot : slot;
}

static void add_out(sim_instr *s, const sim_func *F, int slot, bool pred)
{
    if (slot < 0 || s->nouts >= (int)(sizeof s->outs / sizeof s->outs[0]))
        return;
    s->outs[s->nouts++] = pred ? F->nslots + slot : slot;
}

/* A global load the L1 may serve: ld (ldu) of the global or generic
 * space without the .cg (L2 only), .cv (fetch again) or volatile. */
static bool uses_l1(const ptx_instr *pi)
{
    if ((pi->op != PTX_OP_LD && pi->op != PTX_OP_LDU) || (pi->flags & PTX_F_VOLATILE) ||
        (pi->space != PTX_SPACE_GLOBAL && pi->space != PTX_SPACE_GENERIC))
        return false;
    for (int i = 0; i < pi->nmods; i++)
        if (!strcmp(pi->mods[i], "cg") || !strcmp(pi->mods[i], "cv"))
            return false;
    return true;
}

static sim_class float_class(ptx_type t)
{
    return t == PTX_T_F64 ? SIM_C_FP64 : SIM_C_FMA;
}

static sim_class classify(const ptx_instr *pi)
{
    ptx_type t = pi->type;
    bool fl = ptx_type_is_float(t);
    switch (pi->op) {
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ST: case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU:
        switch (pi->space) {
        case PTX_SPACE_LOCAL: return SIM_C_LOCAL;
        case PTX_SPACE_CONST: case PTX_SPACE_PARAM: return SIM_C_CONST;
        case PTX_SPACE_SHARED: case PTX_SPACE_SHARED_CLUSTER: return SIM_C_SHARED;
        default: return SIM_C_GLOBAL;
        }
    case PTX_OP_CP_ASYNC: case PTX_OP_TEX: case PTX_OP_TLD4: case PTX_OP_SULD: case PTX_OP_SUST:
        return SIM_C_GLOBAL;
    case PTX_OP_TXQ: case PTX_OP_SUQ:   /* the object's descriptor, as a constant */
        return SIM_C_CONST;
    case PTX_OP_ATOM: case PTX_OP_RED: case PTX_OP_MBARRIER: case PTX_OP_SURED:
        return SIM_C_ATOM;
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_FMA:
    case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_SETP:
    case PTX_OP_SET: case PTX_OP_SELP: case PTX_OP_COPYSIGN: case PTX_OP_TESTP: case PTX_OP_SLCT:
        return fl ? float_class(t) : SIM_C_ALU;
    case PTX_OP_DIV:
        if (!fl)
            return SIM_C_IDIV;
        if (t == PTX_T_F64)
            return SIM_C_DDIV;
        return (pi->flags & (PTX_F_APPROX | PTX_F_FULL)) ? SIM_C_SFU : SIM_C_FDIV;
    case PTX_OP_REM:
        return SIM_C_IDIV;
    case PTX_OP_SQRT: case PTX_OP_RCP:
        if (t == PTX_T_F64)
            return (pi->flags & PTX_F_APPROX) ? SIM_C_FP64 : SIM_C_DDIV;
        return (pi->flags & PTX_F_APPROX) ? SIM_C_SFU : SIM_C_FDIV;
    case PTX_OP_RSQRT:
        return t == PTX_T_F64 ? SIM_C_DDIV : SIM_C_SFU;
    case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_LG2: case PTX_OP_EX2: case PTX_OP_TANH:
        return SIM_C_SFU;
    case PTX_OP_CVT:
        if (pi->type == PTX_T_F64 || pi->type2 == PTX_T_F64)
            return SIM_C_FP64;
        return (ptx_type_is_float(pi->type) || ptx_type_is_float(pi->type2)) ? SIM_C_FMA : SIM_C_ALU;
    case PTX_OP_BRA: case PTX_OP_BRX: case PTX_OP_CALL: case PTX_OP_RET: case PTX_OP_EXIT:
    case PTX_OP_TRAP: case PTX_OP_BRKPT: case PTX_OP_NANOSLEEP: case PTX_OP_PMEVENT: case PTX_OP_GRIDDEPCONTROL:
    case PTX_OP_SETMAXNREG: case PTX_OP_DISCARD: case PTX_OP_APPLYPRIORITY:
        return SIM_C_CTRL;
    case PTX_OP_MAPA:
        return SIM_C_ALU;
    case PTX_OP_BAR: case PTX_OP_MEMBAR: case PTX_OP_FENCE:
        return SIM_C_BAR;
    case PTX_OP_BAR_WARP: case PTX_OP_SHFL: case PTX_OP_VOTE: case PTX_OP_MATCH: case PTX_OP_REDUX:
    case PTX_OP_ACTIVEMASK: case PTX_OP_ELECT:
        return SIM_C_WARP;
    default:
        return SIM_C_ALU;
    }
}

/* Whether the emulator implements this decoded instruction. */
static bool supported(const ptx_instr *pi)
{
    ptx_type t = pi->type;
    if (!(ptx_opcode_engines(pi->op) & PTX_IN_SIM))   /* ptx/opcodes.def */
        return false;
    switch (pi->op) {
    case PTX_OP_CALL:
        return true;                     /* an indirect call's target is checked when it runs */
    case PTX_OP_LD: case PTX_OP_ST: case PTX_OP_LDU:
        return t != PTX_T_B128 && t != PTX_T_NONE && pi->space != PTX_SPACE_TEX && (pi->vec <= 4);
    case PTX_OP_ATOM: case PTX_OP_RED:
        return t != PTX_T_B128 && t != PTX_T_NONE && pi->vec <= 1;
    case PTX_OP_REDUX:
        return !ptx_type_is_float(t);
    case PTX_OP_CVT:
        if (t == PTX_T_NONE || pi->type2 == PTX_T_NONE)
            return false;
        break;
    case PTX_OP_SET:   /* per-half results of a packed compare are not emulated */
        if (pi->type2 == PTX_T_F16X2 || pi->type2 == PTX_T_BF16X2)
            return false;
        break;
    case PTX_OP_TEX: {
        /* a texture object in a register: the geometries ptx/texture.c
         * knows, 32-bit results, s32 or f32 coordinates (.texref
         * texture references are gone from CUDA 12) */
        const ptx_operand *a = &pi->ops[1];
        return pi->mode != 0 && a->reg >= 0 && a->nelems == 1 &&
               (t == PTX_T_F32 || t == PTX_T_S32 || t == PTX_T_U32) &&
               (pi->type2 == PTX_T_S32 || pi->type2 == PTX_T_F32);
    }
    case PTX_OP_TLD4: {   /* as tex, .2d at f32 coordinates */
        const ptx_operand *a = &pi->ops[1];
        return pi->mode != 0 && a->reg >= 0 && a->nelems == 1 &&
               (t == PTX_T_F32 || t == PTX_T_S32 || t == PTX_T_U32) && pi->type2 == PTX_T_F32;
    }
    case PTX_OP_TXQ: case PTX_OP_SUQ:
        return pi->mode != 0 && pi->ops[1].reg >= 0;
    case PTX_OP_MBARRIER:   /* in shared memory (a generic address to it) */
        return pi->mode != 0 && (pi->space == PTX_SPACE_SHARED || pi->space == PTX_SPACE_GENERIC);
    case PTX_OP_SURED:   /* a surface object in a register, one integer value (.p: .b32, .b64) */
        return pi->mode != 0 && pi->ops[0].reg >= 0 && pi->ops[0].nelems == 1 &&
               (t == PTX_T_U32 || t == PTX_T_S32 || t == PTX_T_B32 || t == PTX_T_U64 || t == PTX_T_S64 ||
                (t == PTX_T_B64 && (pi->flags & PTX_F_FORMATTED)));
    case PTX_OP_SULD: case PTX_OP_SUST: {
        /* a surface object in a register, .b forms of 1..8-byte elements
         * (sust.p: .b32); sust's values in registers (their slots ride in
         * dst) */
        const ptx_operand *a = &pi->ops[pi->op == PTX_OP_SULD ? 1 : 0];
        const ptx_operand *v = &pi->ops[pi->op == PTX_OP_SULD ? 0 : 1];
        bool regs = true;
        for (int k = 0; pi->op == PTX_OP_SUST && k < pi->vec; k++)
            regs &= (v->kind == PTX_OPD_VEC ? v->elems[k].kind : v->kind) == PTX_OPD_REG;
        bool formatted = (pi->flags & PTX_F_FORMATTED) != 0;
        return pi->mode != 0 && a->reg >= 0 && a->nelems == 1 && pi->vec <= 4 && regs &&
               (formatted ? t == PTX_T_B32
                          : t == PTX_T_B8 || t == PTX_T_B16 || t == PTX_T_B32 || t == PTX_T_B64);
    }
    case PTX_OP_CP_ASYNC:
        return pi->mode != 0;
    default:
        break;
    }
    /* half and bfloat (scalar and packed): arithmetic, compare, select,
     * conversions and moves are emulated; tf32 and the rest are not */
    if (t == PTX_T_TF32 || (pi->type2 == PTX_T_TF32))
        return false;
    if (t == PTX_T_F16X2 || t == PTX_T_BF16X2 || t == PTX_T_BF16 || t == PTX_T_F16) {
        switch (pi->op) {
        case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA: case PTX_OP_MAD:
        case PTX_OP_NEG: case PTX_OP_ABS: case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_EX2:
        case PTX_OP_TANH: case PTX_OP_COPYSIGN: case PTX_OP_SETP: case PTX_OP_SELP: case PTX_OP_MOV:
        case PTX_OP_CVT: case PTX_OP_LD: case PTX_OP_ST: case PTX_OP_LDU: case PTX_OP_SHFL:
        case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT:
            return true;
        case PTX_OP_ATOM: case PTX_OP_RED: case PTX_OP_SET:
            return t == PTX_T_F16 || t == PTX_T_BF16;
        default:
            return false;
        }
    }
    return true;
}

static int access_size(const ptx_instr *pi)
{
    int s = ptx_type_size(pi->type);
    return s > 0 ? s : 4;
}

/* tex.level's level of detail (one value of the coordinates' type, .f32
 * or .s32, as the ISA says) and tex.grad's gradients (.f32: ddx's
 * elements, then ddy's, as many each) ride in cargs, a plain tex has none;
 * the fetch waits for them as the GPU's does. */
static bool decode_lod_sources(dctx *c, sim_instr *s)
{
    int n = 0;
    for (int k = 2; k < c->pi->nops; k++)
        n += c->pi->ops[k].kind == PTX_OPD_VEC ? c->pi->ops[k].nelems : 1;
    if (!n)
        return true;
    s->cargs = wh_xcalloc((size_t)n, sizeof *s->cargs);
    s->ncargs = (uint8_t)n;
    int i = 0;
    for (int k = 2; k < c->pi->nops; k++) {
        const ptx_operand *o = &c->pi->ops[k];
        for (int e = 0; e < (o->kind == PTX_OPD_VEC ? o->nelems : 1); e++, i++) {
            ptx_type t = n == 1 ? c->pi->type2 : PTX_T_F32;
            if (!decode_src(c, o->kind == PTX_OPD_VEC ? &o->elems[e] : o, t, &s->cargs[i]))
                return false;
            if (s->cargs[i].kind == SIM_OPD_REG)
                add_dep(s, c->F, s->cargs[i].slot, false);
        }
    }
    return true;
}

/* tex, tld4, suld, sust, sured, txq, suq: the texture or surface object's
 * slot in addr.base, the coordinates in src (a layered access's first is
 * its u32 layer; none for a query), sured's value after them; mode keeps
 * the geometry (tld4: and the component) or the query; sust's values are
 * registers whose slots go in dst. */
static bool decode_tex_sources(dctx *c, sim_instr *s)
{
    bool store = c->pi->op == PTX_OP_SUST || c->pi->op == PTX_OP_SURED;
    const ptx_operand *a = &c->pi->ops[store ? 0 : 1];
    bool query = c->pi->op == PTX_OP_TXQ || c->pi->op == PTX_OP_SUQ;
    int geom = c->pi->mode % PTX_TLD4_COMP;
    int n = query ? 0 : ptx_tex_coords_used(geom);
    bool layered = ptx_tex_geom_layered(geom);
    ptx_type ct = c->pi->op == PTX_OP_TEX || c->pi->op == PTX_OP_TLD4 ? c->pi->type2 : PTX_T_S32;
    for (int k = 0; c->pi->op == PTX_OP_SUST && k < c->pi->vec; k++) {
        const ptx_operand *v = &c->pi->ops[1];
        s->dst[k] = c->F->slot[(v->kind == PTX_OPD_VEC ? &v->elems[k] : v)->reg];
        add_dep(s, c->F, s->dst[k], false);
    }
    s->addr.base = c->F->slot[a->reg];
    add_dep(s, c->F, s->addr.base, false);
    for (int k = 0; k < n; k++) {
        sim_opd *d = &s->src[k];
        if (!decode_src(c, &a->elems[0].elems[k], layered && k == 0 ? PTX_T_U32 : ct, d))
            return false;
        if (d->kind == SIM_OPD_REG)
            add_dep(s, c->F, d->slot, false);
    }
    if (c->pi->op == PTX_OP_TEX && !decode_lod_sources(c, s))
        return false;
    if (c->pi->op == PTX_OP_SURED) {
        if (n >= 4 || !decode_src(c, &c->pi->ops[1], c->pi->type, &s->src[n]))
            return false;
        if (s->src[n].kind == SIM_OPD_REG)
            add_dep(s, c->F, s->src[n].slot, false);
        n++;
    }
    s->nsrc = (uint8_t)n;
    s->space = PTX_SPACE_GLOBAL;
    return true;
}

/* A source operand from an address (register plus offset, or an offset). */
static void addr_source(dctx *c, sim_instr *s, const sim_addr *a, sim_opd *d)
{
    d->kind = a->base >= 0 ? SIM_OPD_REG : SIM_OPD_IMM;
    d->slot = a->base;
    d->imm = a->off;
    if (a->base >= 0)
        add_dep(s, c->F, a->base, false);
}

/* cp.async.bulk.tensor: the shared box in addr; the tensor map's generic
 * address in src[0] (a parameter named in place, [param, {...}], becomes
 * its generic address) and, into shared memory, the mbarrier's in src[1];
 * the coordinates (s32) in cargs.  The prefetch is a hint: nothing. */
static bool decode_tensor_sources(dctx *c, sim_instr *s)
{
    const ptx_instr *pi = c->pi;
    s->nsrc = 0;
    if (pi->mode == PTX_CP_TENSOR_PREFETCH)
        return true;
    int t = ptx_cp_tensor_operand(pi->mode);
    const ptx_operand *tm = &pi->ops[t], *box = &pi->ops[1 - t];
    if (!decode_addr(c, box, PTX_SPACE_SHARED, &s->addr))
        return false;
    if (s->addr.base >= 0)
        add_dep(s, c->F, s->addr.base, false);
    sim_addr a;
    if (!decode_addr(c, tm, tm->reg >= 0 ? PTX_SPACE_GENERIC : PTX_SPACE_PARAM, &a))
        return false;
    if (tm->reg < 0)
        a.off += PTX_ADDR_PARAM;
    addr_source(c, s, &a, &s->src[0]);
    s->nsrc = 1;
    if (pi->mode == PTX_CP_TENSOR_TO_SHARED) {
        if (!decode_addr(c, &pi->ops[2], PTX_SPACE_SHARED, &a))
            return false;
        addr_source(c, s, &a, &s->src[1]);
        s->nsrc = 2;
    }
    const ptx_operand *v = &tm->elems[0];
    s->cargs = wh_xcalloc((size_t)v->nelems, sizeof *s->cargs);
    s->ncargs = (uint8_t)v->nelems;
    for (int e = 0; e < v->nelems; e++) {
        if (!decode_src(c, &v->elems[e], PTX_T_S32, &s->cargs[e]))
            return false;
        if (s->cargs[e].kind == SIM_OPD_REG)
            add_dep(s, c->F, s->cargs[e].slot, false);
    }
    return true;
}

static bool decode_ops(dctx *c, sim_instr *s)
{
    const ptx_instr *pi = c->pi;
    const sim_func *F = c->F;
    int first_src = 1;
    int nops = pi->nops;
    const ptx_operand *ops = pi->ops;

    /* destinations */
    switch (pi->op) {
    case PTX_OP_ST: case PTX_OP_RED: case PTX_OP_BAR: case PTX_OP_BAR_WARP: case PTX_OP_BRA:
    case PTX_OP_BRX: case PTX_OP_CALL: case PTX_OP_RET: case PTX_OP_EXIT: case PTX_OP_MEMBAR:
    case PTX_OP_FENCE: case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU: case PTX_OP_TRAP:
    case PTX_OP_NANOSLEEP: case PTX_OP_PMEVENT: case PTX_OP_CP_ASYNC: case PTX_OP_SUST: case PTX_OP_SURED:
    case PTX_OP_SETMAXNREG: case PTX_OP_DISCARD: case PTX_OP_APPLYPRIORITY:
        first_src = 0;
        if (pi->op == PTX_OP_BAR && pi->mode == PTX_BAR_RED)
            first_src = 1;
        break;
    case PTX_OP_MBARRIER:
        if (ptx_mbar_addr_operand(pi) == 0)   /* init, inval, expect_tx, complete_tx: no destination */
            first_src = 0;
        break;
    default:
        break;
    }
    if (first_src == 1 && nops >= 1) {
        if (ops[0].kind == PTX_OPD_VEC) {
            if (ops[0].nelems > 4)
                return false;
            for (int e = 0; e < ops[0].nelems; e++) {
                if (!decode_dst(c, &ops[0].elems[e], &s->dst[e], &s->dst_pred[e]))
                    return false;
                add_out(s, F, s->dst[e], s->dst_pred[e]);
            }
            s->ndst = (uint8_t)ops[0].nelems;
        } else {
            if (!decode_dst(c, &ops[0], &s->dst[0], &s->dst_pred[0]))
                return false;
            add_out(s, F, s->dst[0], s->dst_pred[0]);
            s->ndst = 1;
        }
        if ((pi->flags & PTX_F_PAIR) && nops >= 2) {
            bool pp;
            if (!decode_dst(c, &ops[1], &s->dstp, &pp))
                return false;
            add_out(s, F, s->dstp, true);
            first_src = 2;
        }
    }

    if (pi->op == PTX_OP_TEX || pi->op == PTX_OP_TLD4 || pi->op == PTX_OP_SULD || pi->op == PTX_OP_SUST ||
        pi->op == PTX_OP_SURED || pi->op == PTX_OP_TXQ || pi->op == PTX_OP_SUQ)
        return decode_tex_sources(c, s);

    if (pi->op == PTX_OP_CP_ASYNC && (ptx_cp_is_tensor_copy(pi->mode) || pi->mode == PTX_CP_TENSOR_PREFETCH))
        return decode_tensor_sources(c, s);

    /* address operand */
    int addr_op = -1;
    switch (pi->op) {
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ATOM:
        addr_op = 1;
        break;
    case PTX_OP_ST: case PTX_OP_RED: case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU:
        addr_op = 0;
        break;
    case PTX_OP_CP_ASYNC:
        if (pi->mode == PTX_CP_COPY || ptx_cp_is_bulk_copy(pi->mode))
            addr_op = 0;
        break;
    case PTX_OP_MBARRIER:
        addr_op = ptx_mbar_addr_operand(pi);
        break;
    default:
        break;
    }
    if (addr_op >= 0) {
        if (addr_op >= nops)
            return derr(c, "missing address");
        if (!decode_addr(c, &ops[addr_op], (ptx_space)pi->space, &s->addr))
            return false;
        if (s->addr.base >= 0)
            add_dep(s, F, s->addr.base, false);
    }

    /* sources */
    int k = 0;
    for (int i = first_src; i < nops; i++) {
        if (i == addr_op)
            continue;
        const ptx_operand *o = &ops[i];
        if (pi->op == PTX_OP_BRA || pi->op == PTX_OP_CALL)
            break;
        if (pi->op == PTX_OP_BRX && i == 1)
            break;
        if (pi->op == PTX_OP_CP_ASYNC && pi->mode == PTX_CP_BULK_PREFETCH)
            break;   /* a hint: nothing to run */
        if (pi->op == PTX_OP_CP_ASYNC && (i == 1 || (i == 3 && ptx_cp_bulk_completes_tx(pi->mode))) &&
            pi->mode != PTX_CP_BULK_PREFETCH) {
            /* more addresses: the source (global, or a bulk copy's shared
             * one), a bulk copy's mbarrier (shared) */
            sim_addr a2;
            ptx_space sp = i == 3 ? PTX_SPACE_SHARED : pi->mode == PTX_CP_COPY ? PTX_SPACE_GLOBAL
                                                                                 : ptx_cp_bulk_source(pi->mode);
            if (!decode_addr(c, o, sp, &a2))
                return false;
            addr_source(c, s, &a2, &s->src[k]);
            k++;
            continue;
        }
        if (o->kind == PTX_OPD_VEC) {
            if (o->nelems > 4 || k + o->nelems > 4)
                return false;
            for (int e = 0; e < o->nelems; e++) {
                if (!decode_src(c, &o->elems[e], src_type(pi, k), &s->src[k]))
                    return false;
                if (s->src[k].kind == SIM_OPD_REG || s->src[k].kind == SIM_OPD_PRED)
                    add_dep(s, F, s->src[k].slot, s->src[k].kind == SIM_OPD_PRED);
                k++;
            }
            continue;
        }
        if (k >= 4)
            return false;
        if (o->kind == PTX_OPD_ADDR) {
            /* cvta / isspacep / mov of an address expression */
            sim_addr a;
            if (!decode_addr(c, o, PTX_SPACE_GLOBAL, &a))
                return false;
            s->src[k].kind = a.local_rel ? SIM_OPD_LOCALSYM : SIM_OPD_IMM;
            s->src[k].imm = a.off;
            if (a.base >= 0)
                return false;
            k++;
            continue;
        }
        if (!decode_src(c, o, src_type(pi, k), &s->src[k]))
            return false;
        if (s->src[k].kind == SIM_OPD_REG || s->src[k].kind == SIM_OPD_PRED)
            add_dep(s, F, s->src[k].slot, s->src[k].kind == SIM_OPD_PRED);
        k++;
    }
    s->nsrc = (uint8_t)k;
    return true;
}

static void decode_call(dctx *c, sim_instr *s)
{
    const ptx_instr *pi = c->pi;
    /* arguments: param-space offsets in the caller's area (or registers) */
    s->ncargs = (uint8_t)(pi->ncall_args > 255 ? 255 : pi->ncall_args);
    s->ncrets = (uint8_t)(pi->ncall_rets > 255 ? 255 : pi->ncall_rets);
    s->cargs = wh_xcalloc((size_t)s->ncargs + (size_t)s->ncrets, sizeof *s->cargs);
    for (int i = 0; i < s->ncargs + s->ncrets; i++) {
        const ptx_operand *o = i < s->ncargs ? &pi->call_args[i] : &pi->call_rets[i - s->ncargs];
        sim_opd *d = &s->cargs[i];
        if (o->kind == PTX_OPD_SYMBOL || o->kind == PTX_OPD_ADDR) {
            uint64_t v;
            bool rel;
            ptx_space sp;
            if (sym_addr(c, &o->sym, &v, &rel, &sp)) {
                d->kind = SIM_OPD_IMM;   /* param-space offset */
                d->imm = v + (uint64_t)o->ival;
                d->sreg = 1;             /* marks "an address in the param area" */
            }
        } else {
            ptx_type t = PTX_T_B64;
            decode_src(c, o, t, d);
            if (d->kind == SIM_OPD_REG)
                add_dep(s, c->F, d->slot, false);
        }
    }
}

static void instr_text(const ptx_instr *pi, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s", pi->opcode ? pi->opcode : "?");
    for (int i = 0; i < pi->nmods && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, ".%s", pi->mods[i]);
}

static bool decode_instr(dctx *c, sim_instr *s, int idx)
{
    const ptx_instr *pi = c->pi;
    const ptx_function *f = c->pf;
    memset(s, 0, sizeof *s);
    s->pidx = idx;
    s->op = (uint16_t)pi->op;
    s->ty = (uint8_t)pi->type;
    s->ty2 = (uint8_t)pi->type2;
    s->space = (uint8_t)pi->space;
    s->vec = (uint8_t)(pi->vec > 0 ? pi->vec : 1);
    s->size = (uint8_t)access_size(pi);
    s->mode = (uint8_t)pi->mode;
    s->rnd = (uint8_t)pi->rnd;
    s->cmp = (uint8_t)pi->cmp;
    s->boolop = (uint8_t)pi->boolop;
    s->aop = (uint8_t)pi->aop;
    s->flags = pi->flags;
    s->cls = (uint8_t)classify(pi);
    s->l1 = uses_l1(pi);
    s->pipe = (int8_t)sim_class_pipe(s->cls);
    s->guard = -1;
    s->dstp = -1;
    s->target = -1;
    s->rpc = -1;
    s->callee = -1;
    s->btargets = -1;
    for (int i = 0; i < 4; i++)
        s->dst[i] = -1;
    if (pi->guard >= 0) {
        s->guard = c->F->slot[pi->guard];
        s->guard_neg = pi->guard_neg;
        add_dep(s, c->F, s->guard, true);
    }
    if (!supported(pi)) {
        s->op = SIM_OP_UNSUPPORTED;
        return true;
    }
    switch (pi->op) {
    case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU: case PTX_OP_MEMBAR: case PTX_OP_FENCE:
    case PTX_OP_PMEVENT:
    case PTX_OP_GRIDDEPCONTROL:   /* one grid at a time: no prerequisite grid to wait for, no dependent to start */
    case PTX_OP_SETMAXNREG:       /* a warpgroup's register budget: the sim has no register file to share */
    case PTX_OP_DISCARD: case PTX_OP_APPLYPRIORITY:   /* L2 hints: the sim's L2 keeps no priorities */
        s->op = SIM_OP_NOP;
        return true;
    case PTX_OP_BRA:
        s->target = pi->target_instr;
        if (s->target < 0)
            return derr(c, "branch without a target");
        s->rpc = ptx_reconverge_instr(f, pi->block);
        return true;
    case PTX_OP_CALL:
        s->callee = pi->callee;
        decode_call(c, s);
        if (pi->callee < 0) {
            /* indirect: the target register (after the results' list) is src 0 */
            const ptx_operand *t = &pi->ops[pi->nops > 0 && pi->ops[0].kind == PTX_OPD_LIST ? 1 : 0];
            decode_src(c, t, PTX_T_B64, &s->src[0]);
            s->nsrc = 1;
            if (s->src[0].kind == SIM_OPD_REG)
                add_dep(s, c->F, s->src[0].slot, false);
            return true;
        }
        if (!c->P->m->funcs[pi->callee].has_body) {
            /* an external function: printf's vprintf is a no-op returning 0,
             * assert's __assertfail a fault, malloc a block of the device
             * heap, free nothing; anything else stops the run (unsupported)
             * when called */
            const char *name = c->P->m->funcs[pi->callee].name;
            s->op = !strcmp(name, "vprintf") ? SIM_OP_VPRINTF
                  : !strcmp(name, "__assertfail") ? SIM_OP_ASSERTFAIL
                  : !strcmp(name, "malloc") ? SIM_OP_MALLOC
                  : !strcmp(name, "free") ? SIM_OP_FREE : SIM_OP_UNSUPPORTED;
        }
        return true;
    case PTX_OP_RET: case PTX_OP_EXIT: case PTX_OP_TRAP:
        return true;
    default:
        break;
    }
    if (!decode_ops(c, s)) {
        s->op = SIM_OP_UNSUPPORTED;
        return true;
    }
    if (pi->op == PTX_OP_BRX) {
        if (pi->nops < 2 || pi->ops[1].sym.kind != PTX_SYM_BRANCHTARGETS) {
            s->op = SIM_OP_UNSUPPORTED;
            return true;
        }
        s->btargets = pi->ops[1].sym.index;
        s->rpc = ptx_reconverge_instr(f, pi->block);
        return true;
    }
    if (pi->op == PTX_OP_MOV) {
        if (pi->nops >= 2 && pi->ops[1].kind == PTX_OPD_VEC)
            s->op = SIM_OP_PACK;
        else if (pi->nops >= 1 && pi->ops[0].kind == PTX_OPD_VEC)
            s->op = SIM_OP_UNPACK;
    }
    if (pi->type == PTX_T_PRED &&
        (pi->op == PTX_OP_MOV || pi->op == PTX_OP_AND || pi->op == PTX_OP_OR ||
         pi->op == PTX_OP_XOR || pi->op == PTX_OP_NOT))
        s->op = SIM_OP_PMOV;
    if (pi->op == PTX_OP_BAR_WARP)
        s->op = SIM_OP_NOP;
    if (s->op == SIM_OP_PMOV)
        s->mode = (uint8_t)pi->op;   /* which predicate operation */
    return true;
}

/* ------------------------------------------------------------------------ */
/* Functions                                                                */
/* ------------------------------------------------------------------------ */

static bool decode_function(sim_prog *P, int fi, wh_error *err)
{
    sim_func *F = &P->funcs[fi];
    const ptx_function *f = F->pf;
    sim_assign_slots(F);
    sim_layout_function(P, F);
    F->ncode = f->ninstrs + 1;
    F->code = wh_xcalloc((size_t)F->ncode, sizeof *F->code);
    dctx c = { P, F, f, NULL, err };
    for (int i = 0; i < f->ninstrs; i++) {
        c.pi = &f->instrs[i];
        if (!decode_instr(&c, &F->code[i], i))
            return false;
    }
    sim_instr *end = &F->code[f->ninstrs];
    memset(end, 0, sizeof *end);
    end->op = SIM_OP_END;
    end->cls = SIM_C_CTRL;
    end->pipe = (int8_t)sim_class_pipe(SIM_C_CTRL);
    end->guard = -1;
    end->dstp = -1;
    end->pidx = f->ninstrs > 0 ? f->ninstrs - 1 : -1;
    sim_compact_slots(F);
    return true;
}

void sim_instr_text(const sim_prog *P, const sim_func *F, const sim_instr *in, char *buf, size_t size)
{
    (void)P;
    if (in->pidx < 0 || in->pidx >= F->pf->ninstrs) {
        snprintf(buf, size, "(end of %s)", F->pf->name);
        return;
    }
    instr_text(&F->pf->instrs[in->pidx], buf, size);
}

bool sim_load(sim_prog *P, const wh_spec *spec, const ptx_module *m, int entry, wh_error *err)
{
    P->spec = spec;
    P->m = m;
    P->entry = entry;
    const char *slash = m->name ? strrchr(m->name, '/') : NULL;
    P->file = slash ? slash + 1 : (m->name ? m->name : "?");
    if (!ptx_one_block_clusters(&m->funcs[entry], m->name, err))
        return false;
    P->nfuncs = m->nfuncs;
    P->funcs = wh_xcalloc((size_t)m->nfuncs, sizeof *P->funcs);
    for (int i = 0; i < m->nfuncs; i++) {
        P->funcs[i].pf = &m->funcs[i];
        P->funcs[i].index = i;
        P->funcs[i].var_off = wh_xcalloc((size_t)m->funcs[i].nvars, sizeof(uint32_t));
    }
    sim_layout_program(P, entry);
    for (int i = 0; i < m->nfuncs; i++)
        if (P->funcs[i].used && !decode_function(P, i, err))
            return false;
    /* param layout of the kernel for the spec's parameters */
    const ptx_function *k = &m->funcs[entry];
    P->kparam_bytes = k->param_bytes;
    P->kparam_off = wh_xcalloc((size_t)spec->nparams, sizeof *P->kparam_off);
    for (int i = 0; i < spec->nparams && i < k->nparams; i++)
        P->kparam_off[i] = k->params[i].offset;
    P->local_size = sim_local_size(P, entry);
    return true;
}

void sim_prog_free(sim_prog *P)
{
    if (!P)
        return;
    if (P->funcs) {
        for (int i = 0; i < P->nfuncs; i++) {
            sim_func *F = &P->funcs[i];
            if (F->code)
                for (int j = 0; j < F->ncode; j++)
                    free(F->code[j].cargs);
            free(F->code);
            free(F->slot);
            free(F->var_off);
        }
    }
    free(P->funcs);
    free(P->mvar_off);
    free(P->cbank);
    if (P->mcache) {
        for (int r = 0; r < P->nregions; r++) {
            free(P->mcache[r].data);
            free(P->mcache[r].touched);
            free(P->mcache[r].afree);
        }
    }
    free(P->mcache);
    if (P->caches) {
        sim_cache_free(P->caches[0]);
        sim_cache_free(P->caches[1]);
        free(P->caches);
    }
    if (P->bcache) {
        for (int i = 0; i < P->bcache->n; i++)
            sim_block_free(P->bcache->b[i]);
        free(P->bcache->b);
    }
    free(P->bcache);
    free(P->regions);
    free(P->region_of_param);
    free(P->var_of_param);
    free(P->address_taken);
    free(P->kparam_off);
    memset(P, 0, sizeof *P);
}
