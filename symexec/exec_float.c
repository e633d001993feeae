/*
 * exec_float.c — f32/f64 instructions through Z3's floating-point theory
 * with the instruction's rounding mode (.rn .rz .rm .rp; none means .rn):
 * add/sub/mul/fma/mad, div and rcp (IEEE forms), sqrt, abs/neg/min/max,
 * copysign, testp, setp/set comparisons (ordered and unordered), cvt
 * between floats and from/to integers (saturating, NaN -> 0), .ftz and
 * .sat.  Approximate and transcendental operations (.approx, div.full,
 * rsqrt, sin, cos, lg2, ex2, tanh) are uninterpreted functions over the bit
 * patterns: the path is marked as going through one.  f16 and bf16 are in
 * exec_half.c.
 */
#include "symexec/internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define C (cx->e->z.c)

static sx_z *ZZ(sx_cx *cx) { return &cx->e->z; }

/* Symbolic float terms make the state's checks go to the FP solver. */
Z3_ast sx_fold_fp(sx_cx *cx, Z3_ast a)
{
    Z3_ast r = sx_z_fold(ZZ(cx), sx_zk(ZZ(cx), a));
    if (r && !cx->s->fp && !sx_z_is_value(ZZ(cx), r))
        cx->s->fp = true;
    return r;
}

static Z3_ast fold(sx_cx *cx, Z3_ast a) { return sx_fold_fp(cx, a); }

static bool is_fp_type(ptx_type t) { return t == PTX_T_F32 || t == PTX_T_F64; }

static Z3_sort fsort(sx_cx *cx, ptx_type t) { return t == PTX_T_F64 ? ZZ(cx)->fp64 : ZZ(cx)->fp32; }

static Z3_ast rmode(sx_cx *cx, ptx_rnd r)
{
    sx_z *z = ZZ(cx);
    switch (r) {
    case PTX_RND_RZ: case PTX_RND_RZI: return z->rm[SX_RM_RTZ];
    case PTX_RND_RM: case PTX_RND_RMI: return z->rm[SX_RM_RTN];
    case PTX_RND_RP: case PTX_RND_RPI: return z->rm[SX_RM_RTP];
    case PTX_RND_RNA: return z->rm[SX_RM_RNA];
    default: return z->rm[SX_RM_RNE];
    }
}

static Z3_ast fzero(sx_cx *cx, ptx_type t, bool neg)
{
    return fold(cx, Z3_mk_fpa_zero(C, fsort(cx, t), neg));
}

static Z3_ast fnum(sx_cx *cx, ptx_type t, double v)
{
    return sx_zk(ZZ(cx), Z3_mk_fpa_numeral_double(C, v, fsort(cx, t)));
}

static Z3_ast ftz(sx_cx *cx, Z3_ast x, ptx_type t)
{
    if (!(cx->ins->flags & PTX_F_FTZ) || t != PTX_T_F32 || !x)
        return x;
    sx_z *z = ZZ(cx);
    Z3_ast sub = fold(cx, Z3_mk_fpa_is_subnormal(C, x));
    Z3_ast zero = sx_z_ite(z, fold(cx, Z3_mk_fpa_is_negative(C, x)), fzero(cx, t, true), fzero(cx, t, false));
    return sx_z_ite(z, sub, zero, x);
}

static Z3_ast sat(sx_cx *cx, Z3_ast x, ptx_type t)
{
    if (!(cx->ins->flags & PTX_F_SAT) || !x)
        return x;
    sx_z *z = ZZ(cx);
    Z3_ast one = fnum(cx, t, 1.0);
    Z3_ast r = sx_z_ite(z, fold(cx, Z3_mk_fpa_gt(C, x, one)), one, x);
    r = sx_z_ite(z, fold(cx, Z3_mk_fpa_lt(C, x, fzero(cx, t, false))), fzero(cx, t, false), r);
    return sx_z_ite(z, fold(cx, Z3_mk_fpa_is_nan(C, x)), fzero(cx, t, false), r);
}

static Z3_ast arg(sx_cx *cx, int i, ptx_type t)
{
    return ftz(cx, sx_opd_get_fp(cx, i, t), t);
}

static int put(sx_cx *cx, Z3_ast r, ptx_type t)
{
    if (!r)
        return -1;
    return sx_opd_set(cx, 0, sat(cx, ftz(cx, r, t), t), t) ? 1 : -1;
}

/* ---- uninterpreted functions ------------------------------------------------ */

static Z3_func_decl uf_decl(sx_engine *e, const char *name, int nargs, int w)
{
    for (int i = 0; i < e->nufs; i++)
        if (!strcmp(e->ufs[i].name, name))
            return e->ufs[i].decl;
    if (e->nufs >= (int)(sizeof e->ufs / sizeof e->ufs[0]))
        return NULL;
    sx_z *z = &e->z;
    Z3_sort dom[3] = { sx_z_bvs(z, w), sx_z_bvs(z, w), sx_z_bvs(z, w) };
    Z3_func_decl d = Z3_mk_func_decl(z->c, Z3_mk_string_symbol(z->c, name), (unsigned)nargs, dom, sx_z_bvs(z, w));
    if (!d)
        return NULL;
    Z3_inc_ref(z->c, Z3_func_decl_to_ast(z->c, d));
    snprintf(e->ufs[e->nufs].name, sizeof e->ufs[e->nufs].name, "%s", name);
    e->ufs[e->nufs].decl = d;
    e->nufs++;
    return d;
}

static int exec_uf(sx_cx *cx, const char *what, int nargs)
{
    sx_z *z = ZZ(cx);
    ptx_type t = cx->ins->type;
    if (!is_fp_type(t))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported type .%s for %s", ptx_type_name(t), what), -1;
    int w = ptx_type_bits(t);
    char name[48];
    snprintf(name, sizeof name, "%s.%s", what, ptx_type_name(t));
    Z3_func_decl d = uf_decl(cx->e, name, nargs, w);
    if (!d)
        return sx_exec_fail(cx, WH_ERR_INTERNAL, "cannot declare the function '%s'", name), -1;
    Z3_ast args[2];
    for (int i = 0; i < nargs; i++) {
        args[i] = sx_z_to_bv(z, arg(cx, i + 1, t));
        if (!args[i])
            return -1;
    }
    Z3_ast r = sx_zk(z, Z3_mk_app(C, d, (unsigned)nargs, args));
    cx->s->uf = true;
    return put(cx, sx_z_as_fp(z, r, w), t);
}

/* ---- arithmetic ------------------------------------------------------------------ */

static Z3_ast fminmax(sx_cx *cx, Z3_ast a, Z3_ast b, bool is_max)
{
    sx_z *z = ZZ(cx);
    Z3_ast an = fold(cx, Z3_mk_fpa_is_nan(C, a)), bn = fold(cx, Z3_mk_fpa_is_nan(C, b));
    Z3_ast lt = fold(cx, Z3_mk_fpa_lt(C, a, b)), gt = fold(cx, Z3_mk_fpa_gt(C, a, b));
    Z3_ast aneg = fold(cx, Z3_mk_fpa_is_negative(C, a));
    /* equal values (incl. +0/-0): min prefers the negative one, max the positive */
    Z3_ast eq = is_max ? sx_z_ite(z, aneg, b, a) : sx_z_ite(z, aneg, a, b);
    Z3_ast r = is_max ? sx_z_ite(z, gt, a, sx_z_ite(z, lt, b, eq)) : sx_z_ite(z, lt, a, sx_z_ite(z, gt, b, eq));
    return sx_z_ite(z, an, b, sx_z_ite(z, bn, a, r));
}

/* neg, abs and copysign change the sign bit only, so a NaN keeps its
 * payload (as on the GPU and in the sim); .ftz flushes first. */
static Z3_ast sign_bits_ftz(sx_cx *cx, Z3_ast v, int w)
{
    if (!v || !(cx->ins->flags & PTX_F_FTZ))
        return v;
    sx_z *z = ZZ(cx);
    int mant = w == 64 ? 52 : 23;
    Z3_ast exp = sx_z_extract(z, v, w - 2, mant), frac = sx_z_extract(z, v, mant - 1, 0);
    Z3_ast sub = sx_z_and2(z, sx_z_eq(z, exp, sx_z_num(z, 0, w - 1 - mant)), sx_z_not(z, sx_z_eq(z, frac, sx_z_num(z, 0, mant))));
    Z3_ast sign_only = fold(cx, Z3_mk_bvand(C, v, sx_z_num(z, 1ull << (w - 1), w)));
    return sx_z_ite(z, sub, sign_only, v);
}

static int exec_fsign(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    ptx_type t = cx->ins->type;
    int w = ptx_type_bits(t);
    ptx_type bt = w == 64 ? PTX_T_B64 : PTX_T_B32;
    Z3_ast sign = sx_z_num(z, 1ull << (w - 1), w), mag = sx_z_num(z, (1ull << (w - 1)) - 1, w);
    Z3_ast a = sign_bits_ftz(cx, sx_opd_get(cx, 1, bt), w), r;
    if (!a)
        return -1;
    switch (cx->ins->op) {
    case PTX_OP_NEG: r = fold(cx, Z3_mk_bvxor(C, a, sign)); break;
    case PTX_OP_ABS: r = fold(cx, Z3_mk_bvand(C, a, mag)); break;
    default: {   /* copysign d, a, b: b's magnitude with a's sign */
        Z3_ast b = sign_bits_ftz(cx, sx_opd_get(cx, 2, bt), w);
        if (!b)
            return -1;
        r = fold(cx, Z3_mk_bvor(C, fold(cx, Z3_mk_bvand(C, a, sign)), fold(cx, Z3_mk_bvand(C, b, mag))));
        break;
    }
    }
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

static int exec_farith(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    Z3_ast rm = rmode(cx, ins->rnd);
    if (ins->op == PTX_OP_NEG || ins->op == PTX_OP_ABS || ins->op == PTX_OP_COPYSIGN)
        return exec_fsign(cx);
    Z3_ast a = arg(cx, 1, t), b = NULL, r = NULL;
    if (!a)
        return -1;
    switch (ins->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MIN: case PTX_OP_MAX:
        if (!(b = arg(cx, 2, t)))
            return -1;
        break;
    default:
        break;
    }
    switch (ins->op) {
    case PTX_OP_ADD: r = fold(cx, Z3_mk_fpa_add(C, rm, a, b)); break;
    case PTX_OP_SUB: r = fold(cx, Z3_mk_fpa_sub(C, rm, a, b)); break;
    case PTX_OP_MUL: r = fold(cx, Z3_mk_fpa_mul(C, rm, a, b)); break;
    case PTX_OP_FMA: case PTX_OP_MAD: {
        Z3_ast b2 = arg(cx, 2, t), c = arg(cx, 3, t);
        if (!b2 || !c)
            return -1;
        r = fold(cx, Z3_mk_fpa_fma(C, rm, a, b2, c));
        break;
    }
    case PTX_OP_MIN: r = fminmax(cx, a, b, false); break;
    case PTX_OP_MAX: r = fminmax(cx, a, b, true); break;
    default: return 0;
    }
    return put(cx, r, t);
}

static int exec_fdiv(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    bool approx = (ins->flags & (PTX_F_APPROX | PTX_F_FULL)) || ins->rnd == PTX_RND_NONE;
    if (ins->op == PTX_OP_DIV) {
        if (approx)
            return exec_uf(cx, (ins->flags & PTX_F_FULL) ? "div.full" : "div.approx", 2);
        Z3_ast a = arg(cx, 1, t), b = arg(cx, 2, t);
        if (!a || !b)
            return -1;
        return put(cx, fold(cx, Z3_mk_fpa_div(C, rmode(cx, ins->rnd), a, b)), t);
    }
    if (ins->op == PTX_OP_RCP) {
        if (approx)
            return exec_uf(cx, "rcp.approx", 1);
        Z3_ast a = arg(cx, 1, t);
        if (!a)
            return -1;
        return put(cx, fold(cx, Z3_mk_fpa_div(C, rmode(cx, ins->rnd), fnum(cx, t, 1.0), a)), t);
    }
    /* sqrt */
    if (approx)
        return exec_uf(cx, "sqrt.approx", 1);
    Z3_ast a = arg(cx, 1, t);
    if (!a)
        return -1;
    return put(cx, fold(cx, Z3_mk_fpa_sqrt(C, rmode(cx, ins->rnd), a)), t);
}

static int exec_testp(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    ptx_type t = cx->ins->type;
    Z3_ast a = sx_opd_get_fp(cx, 1, t);
    if (!a)
        return -1;
    Z3_ast nan = fold(cx, Z3_mk_fpa_is_nan(C, a)), inf = fold(cx, Z3_mk_fpa_is_infinite(C, a)), r;
    switch (cx->ins->mode) {
    case PTX_TESTP_FINITE: r = sx_z_not(z, sx_z_or2(z, nan, inf)); break;
    case PTX_TESTP_INFINITE: r = inf; break;
    case PTX_TESTP_NUMBER: r = sx_z_not(z, nan); break;
    case PTX_TESTP_NOTANUMBER: r = nan; break;
    case PTX_TESTP_NORMAL: r = fold(cx, Z3_mk_fpa_is_normal(C, a)); break;
    case PTX_TESTP_SUBNORMAL: r = fold(cx, Z3_mk_fpa_is_subnormal(C, a)); break;
    default: return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unknown testp mode"), -1;
    }
    return sx_opd_set(cx, 0, r, PTX_T_PRED) ? 1 : -1;
}

Z3_ast sx_float_compare(sx_cx *cx, ptx_cmp cmp, Z3_ast a, Z3_ast b)
{
    sx_z *z = ZZ(cx);
    Z3_ast un = sx_z_or2(z, fold(cx, Z3_mk_fpa_is_nan(C, a)), fold(cx, Z3_mk_fpa_is_nan(C, b)));
    Z3_ast eq = fold(cx, Z3_mk_fpa_eq(C, a, b));
    switch (cmp) {
    case PTX_CMP_EQ: return eq;
    case PTX_CMP_NE: return sx_z_and2(z, sx_z_not(z, eq), sx_z_not(z, un));
    case PTX_CMP_LT: return fold(cx, Z3_mk_fpa_lt(C, a, b));
    case PTX_CMP_LE: return fold(cx, Z3_mk_fpa_leq(C, a, b));
    case PTX_CMP_GT: return fold(cx, Z3_mk_fpa_gt(C, a, b));
    case PTX_CMP_GE: return fold(cx, Z3_mk_fpa_geq(C, a, b));
    case PTX_CMP_EQU: return sx_z_or2(z, eq, un);
    case PTX_CMP_NEU: return sx_z_not(z, eq);
    case PTX_CMP_LTU: return sx_z_or2(z, fold(cx, Z3_mk_fpa_lt(C, a, b)), un);
    case PTX_CMP_LEU: return sx_z_or2(z, fold(cx, Z3_mk_fpa_leq(C, a, b)), un);
    case PTX_CMP_GTU: return sx_z_or2(z, fold(cx, Z3_mk_fpa_gt(C, a, b)), un);
    case PTX_CMP_GEU: return sx_z_or2(z, fold(cx, Z3_mk_fpa_geq(C, a, b)), un);
    case PTX_CMP_NUM: return sx_z_not(z, un);
    case PTX_CMP_NAN: return un;
    default:
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "comparison '%s' on floats", ptx_cmp_name(cmp));
        return NULL;
    }
}

static int exec_fsetp(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    bool pair = (ins->flags & PTX_F_PAIR) != 0;
    int first = pair ? 2 : 1;
    ptx_type st = ins->op == PTX_OP_SET ? ins->type2 : ins->type;
    Z3_ast a = arg(cx, first, st), b = arg(cx, first + 1, st);
    if (!a || !b)
        return -1;
    return sx_finish_compare(cx, sx_float_compare(cx, ins->cmp, a, b), first + 2);
}

/* ---- conversions -------------------------------------------------------------------- */

Z3_ast sx_float_to_int(sx_cx *cx, Z3_ast a, ptx_type st, ptx_type dt)
{
    sx_z *z = ZZ(cx);
    int w = ptx_type_bits(dt);
    bool sgn = ptx_type_is_signed(dt);
    Z3_ast rm = rmode(cx, cx->ins->rnd);
    Z3_ast x = fold(cx, Z3_mk_fpa_round_to_integral(C, rm, a));
    Z3_ast conv = fold(cx, sgn ? Z3_mk_fpa_to_sbv(C, rm, x, (unsigned)w) : Z3_mk_fpa_to_ubv(C, rm, x, (unsigned)w));
    double hi = sgn ? ldexp(1.0, w - 1) : ldexp(1.0, w);
    double lo = sgn ? -ldexp(1.0, w - 1) : 0.0;
    uint64_t maxv = sgn ? (1ull << (w - 1)) - 1 : (w >= 64 ? ~0ull : (1ull << w) - 1);
    uint64_t minv = sgn ? ~0ull << (w - 1) : 0;
    Z3_ast r = sx_z_ite(z, fold(cx, Z3_mk_fpa_geq(C, x, fnum(cx, st, hi))), sx_z_num(z, maxv, w), conv);
    r = sx_z_ite(z, fold(cx, Z3_mk_fpa_lt(C, x, fnum(cx, st, lo))), sx_z_num(z, minv, w), r);
    return sx_z_ite(z, fold(cx, Z3_mk_fpa_is_nan(C, x)), sx_z_num(z, 0, w), r);
}

static int exec_fcvt(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type dt = ins->type, st = ins->type2;
    Z3_ast rm = rmode(cx, ins->rnd);
    if (is_fp_type(dt) && is_fp_type(st)) {
        Z3_ast a = arg(cx, 1, st);
        if (!a)
            return -1;
        Z3_ast r;
        if (ins->rnd >= PTX_RND_RNI)
            r = fold(cx, Z3_mk_fpa_round_to_integral(C, rm, a));
        else
            r = a;
        /* .sat clamps the exact value, before the narrowing rounds it (as
         * the sim does): a tiny negative f64 becomes +0, not -0 */
        r = sat(cx, r, st);
        if (dt != st)
            r = fold(cx, Z3_mk_fpa_to_fp_float(C, ins->rnd >= PTX_RND_RNI ? z->rm[SX_RM_RNE] : rm, r, fsort(cx, dt)));
        return put(cx, r, dt);
    }
    if (is_fp_type(dt)) {
        Z3_ast a = sx_opd_get(cx, 1, st);
        if (!a)
            return -1;
        Z3_ast r = fold(cx, ptx_type_is_signed(st) ? Z3_mk_fpa_to_fp_signed(C, rm, a, fsort(cx, dt))
                                                   : Z3_mk_fpa_to_fp_unsigned(C, rm, a, fsort(cx, dt)));
        return put(cx, r, dt);
    }
    Z3_ast a = arg(cx, 1, st);
    if (!a)
        return -1;
    return sx_opd_set(cx, 0, sx_float_to_int(cx, a, st, dt), dt) ? 1 : -1;
}

int sx_exec_float(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type, t2 = ins->type2;
    int h = sx_exec_half(cx);   /* f16 and bf16 forms (exec_half.c) */
    if (h != 0)
        return h;
    if (ins->op == PTX_OP_CVT) {
        if (!is_fp_type(t) && !is_fp_type(t2)) {
            if (ptx_type_is_float(t) || ptx_type_is_float(t2))
                return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported conversion cvt.%s.%s (line %d)",
                                 ptx_type_name(t), ptx_type_name(t2), ins->line), -1;
            return 0;
        }
        return exec_fcvt(cx);
    }
    if (ins->op == PTX_OP_SETP || ins->op == PTX_OP_SET) {
        ptx_type st = ins->op == PTX_OP_SET ? t2 : t;
        return is_fp_type(st) ? exec_fsetp(cx) : 0;
    }
    switch (ins->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA: case PTX_OP_MAD:
    case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_COPYSIGN:
    case PTX_OP_DIV: case PTX_OP_RCP: case PTX_OP_SQRT: case PTX_OP_TESTP:
    case PTX_OP_RSQRT: case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_LG2: case PTX_OP_EX2:
    case PTX_OP_TANH:
        break;
    default:
        return 0;
    }
    if (!is_fp_type(t)) {
        if (ptx_type_is_float(t))
            return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction '%s' on .%s (line %d)",
                             ins->opcode, ptx_type_name(t), ins->line), -1;
        return 0;
    }
    switch (ins->op) {
    case PTX_OP_DIV: case PTX_OP_RCP: case PTX_OP_SQRT: return exec_fdiv(cx);
    case PTX_OP_TESTP: return exec_testp(cx);
    case PTX_OP_RSQRT: return exec_uf(cx, "rsqrt.approx", 1);
    case PTX_OP_SIN: return exec_uf(cx, "sin.approx", 1);
    case PTX_OP_COS: return exec_uf(cx, "cos.approx", 1);
    case PTX_OP_LG2: return exec_uf(cx, "lg2.approx", 1);
    case PTX_OP_EX2: return exec_uf(cx, "ex2.approx", 1);
    case PTX_OP_TANH: return exec_uf(cx, "tanh.approx", 1);
    default: return exec_farith(cx);
    }
}
