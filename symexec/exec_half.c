/*
 * exec_half.c — f16 (Z3 FP(5,11)) and bf16 (FP(8,8)) instructions, scalar
 * and packed (.f16x2/.bf16x2: two elements in a .b32 register, element 0 in
 * the low half), built term for term after the emulator (harness/sim/
 * float.c), which rounds each element once from its exact value to the
 * narrow format, so one IEEE operation in the narrow sort gives its bits:
 *
 *   - add/sub/mul/fma/mad on f16 and bf16 with .rn (or none), .sat and
 *     .relu; .sat and .relu clamp the exact value (a negative result that
 *     rounds to -0 becomes +0), which the same operation rounded toward
 *     -inf tells;
 *   - neg/abs (sign bit only) and min/max (.NaN, .relu, .sat) on both;
 *   - setp (packed: p from element 0, q from element 1) and set into a
 *     32-bit destination from a scalar source;
 *   - cvt between f16/bf16 and f32/f64/f16/bf16/integers in every
 *     rounding mode, and the packed cvt.f16x2.f32 d, a, b (a to the high
 *     half).
 *
 * Results are written as bit-vectors: a 16-bit float term would read back
 * with the f16 NaN whatever its format.  What the sim computes in a way a
 * term cannot follow is refused with the instruction and its line (see
 * arith_refusal and the refuse calls).
 */
#include "symexec/internal.h"

#define C (cx->e->z.c)

static sx_z *ZZ(sx_cx *cx) { return &cx->e->z; }

static Z3_ast fold(sx_cx *cx, Z3_ast a) { return sx_fold_fp(cx, a); }

static bool is_half(ptx_type t)
{
    return t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2;
}

static bool is_packed(ptx_type t) { return t == PTX_T_F16X2 || t == PTX_T_BF16X2; }

static bool is_bf(ptx_type t) { return t == PTX_T_BF16 || t == PTX_T_BF16X2; }

static bool is_int_type(ptx_type t) { return t >= PTX_T_B8 && t <= PTX_T_S64 && t != PTX_T_B128; }

static bool int_rounding(ptx_rnd r)
{
    return r == PTX_RND_RNI || r == PTX_RND_RZI || r == PTX_RND_RMI || r == PTX_RND_RPI;
}

static int refuse(sx_cx *cx, const char *why)
{
    const ptx_instr *ins = cx->ins;
    sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "unsupported instruction '%s' on .%s (line %d): %s", ins->opcode,
                 ptx_type_name(is_half(ins->type) ? ins->type : ins->type2), ins->line, why);
    return -1;
}

/* ---- sorts, constants, bits -------------------------------------------------- */

/* The sort of one element; a temporary of the instruction like any AST. */
static Z3_sort hsort(sx_cx *cx, bool bf)
{
    Z3_sort s = Z3_mk_fpa_sort(C, bf ? 8 : 5, bf ? 8 : 11);
    return s && sx_zk(ZZ(cx), Z3_sort_to_ast(C, s)) ? s : NULL;
}

static Z3_ast fzero(sx_cx *cx, Z3_sort s, bool neg) { return fold(cx, Z3_mk_fpa_zero(C, s, neg)); }

static Z3_ast fone(sx_cx *cx, Z3_sort s) { return fold(cx, Z3_mk_fpa_numeral_double(C, 1.0, s)); }

static Z3_ast rm_of(sx_cx *cx, int which) { return ZZ(cx)->rm[which]; }

/* 16 bits as an element of the format. */
static Z3_ast to_fp(sx_cx *cx, Z3_ast bits, bool bf)
{
    Z3_sort s = hsort(cx, bf);
    if (!bits || !s)
        return NULL;
    return fold(cx, Z3_mk_fpa_to_fp_bv(C, bits, s));
}

/* An element's bits; a NaN gets the bits `nan` (fp.to_ieee_bv leaves them open). */
static Z3_ast bits_or(sx_cx *cx, Z3_ast r, Z3_ast nan)
{
    if (!r || !nan)
        return NULL;
    Z3_ast bits = fold(cx, Z3_mk_fpa_to_ieee_bv(C, r));
    return sx_z_ite(ZZ(cx), fold(cx, Z3_mk_fpa_is_nan(C, r)), nan, bits);
}

/* The NaN the sim's arithmetic and min/max give (ptx.h). */
static Z3_ast bits_of(sx_cx *cx, Z3_ast r, bool bf)
{
    return bits_or(cx, r, sx_z_num(ZZ(cx), bf ? PTX_NAN_BF16 : PTX_NAN_F16, 16));
}

/* ---- operands ----------------------------------------------------------------- */

/* Bits of element `lane` of source operand i of the instruction's type.  A
 * float immediate of a scalar form is the literal rounded to the format to
 * nearest even, as the sim does. */

static Z3_ast opd_lane(sx_cx *cx, int i, ptx_type t, int lane)
{
    sx_z *z = ZZ(cx);
    const ptx_operand *o = i < cx->ins->nops ? &cx->ins->ops[i] : NULL;
    if (o && o->kind == PTX_OPD_IMM_FLOAT) {
        Z3_ast d = fold(cx, Z3_mk_fpa_to_fp_bv(C, sx_z_num(z, o->f64bits, 64), z->fp64));
        return bits_of(cx, fold(cx, Z3_mk_fpa_to_fp_float(C, rm_of(cx, SX_RM_RNE), d, hsort(cx, is_bf(t)))), is_bf(t));
    }
    Z3_ast v = sx_opd_get(cx, i, is_packed(t) ? PTX_T_B32 : PTX_T_B16);
    return is_packed(t) ? sx_z_extract(z, v, 16 * lane + 15, 16 * lane) : v;
}

/* Immediates the sim reads differently from a literal of the format
 * (integers; floats in a packed operand, taken as f32 bits). */
static bool odd_immediate(sx_cx *cx, int first, int n)
{
    for (int i = first; i < first + n && i < cx->ins->nops; i++) {
        int k = cx->ins->ops[i].kind;
        if (k == PTX_OPD_IMM_INT || (k == PTX_OPD_IMM_FLOAT && is_packed(cx->ins->type)))
            return true;
    }
    return false;
}

/* ---- clamps ------------------------------------------------------------------- */

/* .relu then .sat on the exact result, of which r is the rounded value and
 * `neg` says whether it is below zero (a tiny negative rounds to -0, yet
 * clamps to +0 like any negative; an exact -0 stays -0). */
static Z3_ast clamp(sx_cx *cx, Z3_ast r, Z3_ast neg, Z3_sort s)
{
    sx_z *z = ZZ(cx);
    if (!r || !neg)
        return NULL;
    Z3_ast nan = fold(cx, Z3_mk_fpa_is_nan(C, r));
    if (cx->ins->flags & PTX_F_RELU)
        r = sx_z_ite(z, nan, r, sx_z_ite(z, neg, fzero(cx, s, false), r));
    if (cx->ins->flags & PTX_F_SAT) {
        Z3_ast hi = sx_z_ite(z, fold(cx, Z3_mk_fpa_gt(C, r, fone(cx, s))), fone(cx, s), r);
        r = sx_z_ite(z, sx_z_or2(z, nan, neg), fzero(cx, s, false), hi);
    }
    return r;
}

static bool clamps(sx_cx *cx) { return (cx->ins->flags & (PTX_F_RELU | PTX_F_SAT)) != 0; }

/* ---- arithmetic ---------------------------------------------------------------- */

static Z3_ast arith(sx_cx *cx, Z3_ast rm, Z3_ast a, Z3_ast b, Z3_ast c)
{
    switch (cx->ins->op) {
    case PTX_OP_ADD: return fold(cx, Z3_mk_fpa_add(C, rm, a, b));
    case PTX_OP_SUB: return fold(cx, Z3_mk_fpa_sub(C, rm, a, b));
    case PTX_OP_MUL: return fold(cx, Z3_mk_fpa_mul(C, rm, a, b));
    default: return fold(cx, Z3_mk_fpa_fma(C, rm, a, b, c));
    }
}

/* The sim's fmin_ptx / fmax_ptx: a NaN operand gives the other one (.NaN:
 * a NaN); equal values (+0, -0) give the negative one for min. */
static Z3_ast minmax(sx_cx *cx, Z3_ast a, Z3_ast b, Z3_sort s)
{
    sx_z *z = ZZ(cx);
    bool is_max = cx->ins->op == PTX_OP_MAX;
    Z3_ast an = fold(cx, Z3_mk_fpa_is_nan(C, a)), bn = fold(cx, Z3_mk_fpa_is_nan(C, b));
    Z3_ast eq = fold(cx, Z3_mk_fpa_eq(C, a, b)), lt = fold(cx, Z3_mk_fpa_lt(C, a, b));
    Z3_ast aneg = fold(cx, Z3_mk_fpa_is_negative(C, a));
    Z3_ast r = is_max ? sx_z_ite(z, eq, sx_z_ite(z, aneg, b, a), sx_z_ite(z, lt, b, a))
                      : sx_z_ite(z, eq, sx_z_ite(z, aneg, a, b), sx_z_ite(z, lt, a, b));
    Z3_ast nan_out = (cx->ins->flags & PTX_F_NAN) ? sx_z_or2(z, an, bn) : sx_z_and2(z, an, bn);
    r = sx_z_ite(z, an, b, sx_z_ite(z, bn, a, r));
    return sx_z_ite(z, nan_out, fold(cx, Z3_mk_fpa_nan(C, s)), r);
}

/* One element of add/sub/mul/fma/min/max from its operands' bits. */
static Z3_ast lane_arith(sx_cx *cx, bool bf, Z3_ast *src)
{
    Z3_sort s = hsort(cx, bf);
    Z3_ast a = to_fp(cx, src[0], bf), b = to_fp(cx, src[1], bf), c = src[2] ? to_fp(cx, src[2], bf) : NULL;
    if (!s || !a || !b)
        return NULL;
    ptx_opcode op = cx->ins->op;
    if (op == PTX_OP_MIN || op == PTX_OP_MAX) {
        Z3_ast r = minmax(cx, a, b, s);
        if (clamps(cx))
            r = clamp(cx, r, fold(cx, Z3_mk_fpa_lt(C, r, fzero(cx, s, false))), s);
        return bits_of(cx, r, bf);
    }
    Z3_ast r = arith(cx, rm_of(cx, SX_RM_RNE), a, b, c);
    if (clamps(cx)) {
        /* rounded toward -inf, a result is below zero exactly when the exact one is */
        Z3_ast down = arith(cx, rm_of(cx, SX_RM_RTN), a, b, c);
        r = clamp(cx, r, fold(cx, Z3_mk_fpa_lt(C, down, fzero(cx, s, false))), s);
    }
    return bits_of(cx, r, bf);
}

/* neg and abs change the sign bit only, as in the sim: a NaN keeps its bits. */
static Z3_ast lane_sign(sx_cx *cx, bool bf, Z3_ast *src)
{
    (void)bf;
    sx_z *z = ZZ(cx);
    if (cx->ins->op == PTX_OP_NEG)
        return fold(cx, Z3_mk_bvxor(C, src[0], sx_z_num(z, 0x8000, 16)));
    return fold(cx, Z3_mk_bvand(C, src[0], sx_z_num(z, 0x7fff, 16)));
}

typedef Z3_ast (*lane_fn)(sx_cx *cx, bool bf, Z3_ast *src);

/* Run fn on each element (two for a packed type) of sources 1..nsrc and
 * write the result into operand 0. */
static int run_lanes(sx_cx *cx, int nsrc, lane_fn fn)
{
    ptx_type t = cx->ins->type;
    bool packed = is_packed(t);
    Z3_ast out[2] = { NULL, NULL };
    for (int lane = 0; lane < (packed ? 2 : 1); lane++) {
        Z3_ast src[3] = { NULL, NULL, NULL };
        for (int k = 0; k < nsrc; k++)
            if (!(src[k] = opd_lane(cx, k + 1, t, lane)))
                return -1;
        if (!(out[lane] = fn(cx, is_bf(t), src)))
            return -1;
    }
    Z3_ast v = packed ? sx_z_concat(ZZ(cx), out[1], out[0]) : out[0];
    return sx_opd_set(cx, 0, v, packed ? PTX_T_B32 : PTX_T_B16) ? 1 : -1;
}

/* Why the sim's result of an arithmetic form cannot be followed, or NULL. */
static const char *arith_refusal(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    if (ins->flags & PTX_F_FTZ)
        return ".ftz on f16 is not modelled symbolically yet";
    if (ins->flags & ~(PTX_F_SAT | PTX_F_RELU | PTX_F_NAN))
        return "modifier not modelled";
    if (ins->rnd != PTX_RND_NONE && ins->rnd != PTX_RND_RN)
        return "only .rn rounding (the only one PTX allows on f16/bf16 arithmetic)";
    if (odd_immediate(cx, 1, 3))
        return "integer or packed immediate operand";
    return NULL;
}

static int exec_harith(sx_cx *cx)
{
    const char *why = arith_refusal(cx);
    if (why)
        return refuse(cx, why);
    switch (cx->ins->op) {
    case PTX_OP_NEG: case PTX_OP_ABS: return run_lanes(cx, 1, lane_sign);
    case PTX_OP_FMA: case PTX_OP_MAD: return run_lanes(cx, 3, lane_arith);
    default: return run_lanes(cx, 2, lane_arith);
    }
}

/* ---- comparisons ---------------------------------------------------------------- */

static Z3_ast combine(sx_cx *cx, Z3_ast r, Z3_ast c)
{
    sx_z *z = ZZ(cx);
    switch (cx->ins->boolop) {
    case PTX_BOOL_AND: return sx_z_and2(z, r, c);
    case PTX_BOOL_OR: return sx_z_or2(z, r, c);
    case PTX_BOOL_XOR: return fold(cx, Z3_mk_xor(C, r, c));
    default: return r;
    }
}

static Z3_ast compare_lane(sx_cx *cx, ptx_type t, int first, int lane)
{
    Z3_ast a = to_fp(cx, opd_lane(cx, first, t, lane), is_bf(t));
    Z3_ast b = to_fp(cx, opd_lane(cx, first + 1, t, lane), is_bf(t));
    return a && b ? sx_float_compare(cx, cx->ins->cmp, a, b) : NULL;
}

/* setp.cmp.f16x2 p|q, a, b: p from element 0, q from element 1, each
 * combined with the predicate operand. */
static int packed_setp(sx_cx *cx, int first)
{
    ptx_type t = cx->ins->type;
    Z3_ast r[2];
    for (int lane = 0; lane < 2; lane++)
        if (!(r[lane] = compare_lane(cx, t, first, lane)))
            return -1;
    if (cx->ins->boolop != PTX_BOOL_NONE) {
        Z3_ast c = sx_opd_get_pred(cx, first + 2);
        if (!c)
            return -1;
        for (int lane = 0; lane < 2; lane++)
            r[lane] = combine(cx, r[lane], c);
    }
    if (!sx_opd_set(cx, 0, r[0], PTX_T_PRED))
        return -1;
    if (first == 2 && cx->ins->ops[1].kind != PTX_OPD_NONE)
        return sx_opd_set(cx, 1, r[1], PTX_T_PRED) ? 1 : -1;
    return 1;
}

static int exec_hcompare(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    bool set = ins->op == PTX_OP_SET;
    ptx_type st = set ? ins->type2 : ins->type;
    int first = (ins->flags & PTX_F_PAIR) ? 2 : 1;
    if (ins->flags & PTX_F_FTZ)
        return refuse(cx, ".ftz on f16 compares is not modelled symbolically yet");
    if (set && (is_packed(ins->type) || is_packed(st)))
        return refuse(cx, "a packed set (not modelled)");
    if (odd_immediate(cx, first, 2))
        return refuse(cx, "integer or packed immediate operand");
    if (is_packed(st))
        return packed_setp(cx, first);
    return sx_finish_compare(cx, compare_lane(cx, st, first, 0), first + 2);
}

/* ---- conversions ----------------------------------------------------------------- */

static Z3_ast ftz32(sx_cx *cx, Z3_ast x)
{
    sx_z *z = ZZ(cx);
    Z3_ast zero = sx_z_ite(z, fold(cx, Z3_mk_fpa_is_negative(C, x)), fzero(cx, z->fp32, true), fzero(cx, z->fp32, false));
    return sx_z_ite(z, fold(cx, Z3_mk_fpa_is_subnormal(C, x)), zero, x);
}

/* The source of a float-to-float or float-to-int cvt as a term of its own
 * sort, f32 flushed under .ftz, then rounded to an
 * integer (.rni ...) and clamped to [0, 1] (.sat) exactly, as the sim does
 * on the double before converting. */
static Z3_ast cvt_source(sx_cx *cx, ptx_type st)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    Z3_ast bits = sx_opd_get(cx, 1, st == PTX_T_F64 ? PTX_T_B64 : st == PTX_T_F32 ? PTX_T_B32 : PTX_T_B16);
    Z3_ast x = is_half(st) ? to_fp(cx, bits, is_bf(st)) : sx_z_as_fp(z, bits, ptx_type_bits(st));
    if (!x)
        return NULL;
    Z3_sort s = Z3_get_sort(C, x);
    if (st == PTX_T_F32 && (ins->flags & PTX_F_FTZ))
        x = ftz32(cx, x);
    if (int_rounding(ins->rnd)) {
        int m = ins->rnd == PTX_RND_RZI ? SX_RM_RTZ : ins->rnd == PTX_RND_RMI ? SX_RM_RTN
              : ins->rnd == PTX_RND_RPI ? SX_RM_RTP : SX_RM_RNE;
        x = fold(cx, Z3_mk_fpa_round_to_integral(C, rm_of(cx, m), x));
    }
    if ((ins->flags & PTX_F_SAT) && !is_int_type(ins->type))
        x = clamp(cx, x, fold(cx, Z3_mk_fpa_lt(C, x, fzero(cx, s, false))), s);
    return x;
}

static int rm_index(ptx_rnd r)
{
    switch (r) {
    case PTX_RND_RZ: return SX_RM_RTZ;
    case PTX_RND_RM: return SX_RM_RTN;
    case PTX_RND_RP: return SX_RM_RTP;
    case PTX_RND_RNA: return SX_RM_RNA;
    default: return SX_RM_RNE;
    }
}

/* float (f16, bf16, f32, f64) -> float or integer. */
static int cvt_from_float(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type dt = ins->type, st = ins->type2;
    ptx_rnd rnd = int_rounding(ins->rnd) ? PTX_RND_RN : ins->rnd;
    if (is_int_type(dt) && !int_rounding(ins->rnd))
        return refuse(cx, "a conversion to an integer needs .rni, .rzi, .rmi or .rpi");
    Z3_ast x = cvt_source(cx, st);
    if (!x)
        return -1;
    if (is_int_type(dt)) {   /* every f16/bf16 value is an f32 */
        Z3_ast f = fold(cx, Z3_mk_fpa_to_fp_float(C, rm_of(cx, SX_RM_RNE), x, z->fp32));
        return sx_opd_set(cx, 0, sx_float_to_int(cx, f, PTX_T_F32, dt), dt) ? 1 : -1;
    }
    Z3_ast r;
    if (dt == PTX_T_F16 || dt == PTX_T_BF16) {   /* one rounding; any NaN is the canonical one */
        bool bf = dt == PTX_T_BF16;
        r = bits_of(cx, fold(cx, Z3_mk_fpa_to_fp_float(C, rm_of(cx, rm_index(rnd)), x, hsort(cx, bf))), bf);
    } else {   /* f16/bf16 -> f32/f64: exact */
        r = fold(cx, Z3_mk_fpa_to_fp_float(C, rm_of(cx, SX_RM_RNE), x, dt == PTX_T_F64 ? z->fp64 : z->fp32));
        if (dt == PTX_T_F32 && (ins->flags & PTX_F_FTZ))
            r = ftz32(cx, r);
    }
    return sx_opd_set(cx, 0, r, dt == PTX_T_F16 || dt == PTX_T_BF16 ? PTX_T_B16 : dt) ? 1 : -1;
}

/* integer -> f16 or bf16: one rounding in the instruction's mode. */
static int cvt_from_int(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type dt = ins->type, st = ins->type2;
    bool bf = dt == PTX_T_BF16, sgn = ptx_type_is_signed(st);
    if (ins->flags & (PTX_F_SAT | PTX_F_FTZ))
        return refuse(cx, "the emulator ignores .sat/.ftz here");
    if (int_rounding(ins->rnd))
        return refuse(cx, "an integer rounding (.rni ...) into a float type");
    Z3_ast v = sx_opd_get(cx, 1, st), r;
    if (!v)
        return -1;
    Z3_ast rm = rm_of(cx, rm_index(ins->rnd));
    Z3_sort s = hsort(cx, bf);
    r = bits_of(cx, fold(cx, sgn ? Z3_mk_fpa_to_fp_signed(C, rm, v, s) : Z3_mk_fpa_to_fp_unsigned(C, rm, v, s)), bf);
    return sx_opd_set(cx, 0, r, PTX_T_B16) ? 1 : -1;
}

/* cvt.rnd{.relu}.f16x2.f32 d, a, b: a to element 1, b to element 0. */
static int cvt_packed(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    bool bf = ins->type == PTX_T_BF16X2;
    ptx_rnd rnd = ins->rnd == PTX_RND_NONE ? PTX_RND_RN : ins->rnd;
    if (ins->type2 != PTX_T_F32 || ins->nops != 3)
        return refuse(cx, "only the two-source form from .f32");
    if (ins->flags & ~PTX_F_RELU)
        return refuse(cx, "the emulator ignores modifiers other than .relu here");
    if (int_rounding(rnd))
        return refuse(cx, "rounding mode not modelled");
    Z3_ast out[2];
    for (int k = 0; k < 2; k++) {
        Z3_ast bits = sx_opd_get(cx, 1 + k, PTX_T_B32), x = sx_z_as_fp(z, bits, 32);
        if (!x)
            return -1;
        if (ins->flags & PTX_F_RELU)
            x = clamp(cx, x, fold(cx, Z3_mk_fpa_lt(C, x, fzero(cx, z->fp32, false))), z->fp32);
        out[k] = bits_of(cx, fold(cx, Z3_mk_fpa_to_fp_float(C, rm_of(cx, rm_index(rnd)), x, hsort(cx, bf))), bf);
    }
    return sx_opd_set(cx, 0, sx_z_concat(z, out[0], out[1]), PTX_T_B32) ? 1 : -1;
}

static int exec_hcvt(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type dt = ins->type, st = ins->type2;
    if (is_packed(dt))
        return cvt_packed(cx);
    if (is_packed(st) || dt == PTX_T_TF32 || st == PTX_T_TF32 || (!is_int_type(st) && !ptx_type_is_float(st)))
        return refuse(cx, "conversion not modelled");
    if (ins->flags & ~(PTX_F_SAT | PTX_F_FTZ))
        return refuse(cx, "modifier not modelled");
    if (ins->nops > 1 && ins->ops[1].kind != PTX_OPD_REG)
        return refuse(cx, "immediate source operand");
    return is_int_type(st) ? cvt_from_int(cx) : cvt_from_float(cx);
}

/* ---- dispatch --------------------------------------------------------------------- */

int sx_exec_half(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type, t2 = ins->type2;
    switch (ins->op) {
    case PTX_OP_CVT:
        return is_half(t) || is_half(t2) ? exec_hcvt(cx) : 0;
    case PTX_OP_SETP:
        return is_half(t) ? exec_hcompare(cx) : 0;
    case PTX_OP_SET:
        return is_half(t) || is_half(t2) ? exec_hcompare(cx) : 0;
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA: case PTX_OP_MAD:
    case PTX_OP_NEG: case PTX_OP_ABS: case PTX_OP_MIN: case PTX_OP_MAX:
        return is_half(t) ? exec_harith(cx) : 0;
    default:
        return 0;   /* other float ops on f16/bf16 are refused by sx_exec_float */
    }
}
