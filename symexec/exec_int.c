/*
 * exec_int.c — integer, bit and predicate instructions on Z3 bit-vectors
 * and Bools: add/sub (with .sat and carries), mul/mad (.lo .hi .wide, 24-bit
 * forms), sad, div/rem, abs/neg/min/max, popc/clz/bfind/brev, bfe/bfi,
 * logic (and lop3) and shifts (shl/shr/shf), prmt, setp/set/selp/slct, mov
 * (incl. vector pack/unpack), integer cvt, cvta and isspacep.
 *
 * Integer division by zero follows SMT-LIB (x/0 = all ones for unsigned,
 * x%0 = x), which PTX leaves undefined.
 */
#include "symexec/internal.h"

#include <string.h>

#define C (cx->e->z.c)

static sx_z *ZZ(sx_cx *cx) { return &cx->e->z; }

static Z3_ast fold(sx_cx *cx, Z3_ast a) { return sx_z_fold(ZZ(cx), sx_zk(ZZ(cx), a)); }

static int type_bits(ptx_type t)
{
    return t == PTX_T_PRED ? 1 : ptx_type_bits(t);
}

/* The carry flag lives in an extra register slot after the function's own. */
static int cc_reg(const sx_cx *cx) { return cx->f->nregs; }

static Z3_ast get_cc(sx_cx *cx)
{
    Z3_ast v = sx_reg_get(cx->e, cx->fr, cc_reg(cx));
    return v ? v : sx_z_num(ZZ(cx), 0, 1);
}

static void set_cc(sx_cx *cx, Z3_ast v)
{
    if (v)
        sx_reg_set(cx->e, cx->fr, cc_reg(cx), v);
}

static Z3_ast ones(sx_cx *cx, int w) { return sx_z_num(ZZ(cx), w >= 64 ? ~0ull : (1ull << w) - 1, w); }

/* Clamp the 32-bit shift amount for a w-bit shift and bring it to w bits. */
static Z3_ast shift_amount(sx_cx *cx, Z3_ast amt32, int w)
{
    sx_z *z = ZZ(cx);
    if (w >= 32)
        return sx_z_resize(z, amt32, w, false);
    Z3_ast big = fold(cx, Z3_mk_bvuge(C, amt32, sx_z_num(z, (uint64_t)w, 32)));
    Z3_ast a = sx_z_ite(z, big, sx_z_num(z, (uint64_t)w, 32), amt32);
    return sx_z_extract(z, a, w - 1, 0);
}

static Z3_ast add_sat_s(sx_cx *cx, Z3_ast a, Z3_ast b, int w, bool sub)
{
    sx_z *z = ZZ(cx);
    Z3_ast ea = sx_z_resize(z, a, w + 1, true), eb = sx_z_resize(z, b, w + 1, true);
    Z3_ast r = fold(cx, sub ? Z3_mk_bvsub(C, ea, eb) : Z3_mk_bvadd(C, ea, eb));
    uint64_t maxv = (1ull << (w - 1)) - 1;
    Z3_ast mx = sx_z_num(z, maxv, w + 1), mn = sx_z_num(z, ~maxv, w + 1);
    r = sx_z_ite(z, fold(cx, Z3_mk_bvsgt(C, r, mx)), mx, r);
    r = sx_z_ite(z, fold(cx, Z3_mk_bvslt(C, r, mn)), mn, r);
    return sx_z_extract(z, r, w - 1, 0);
}

static int exec_addsub(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    int w = type_bits(t);
    bool sub = ins->op == PTX_OP_SUB || ins->op == PTX_OP_SUBC;
    Z3_ast a = sx_opd_get(cx, 1, t), b = sx_opd_get(cx, 2, t);
    if (!a || !b)
        return -1;
    Z3_ast r;
    if ((ins->flags & PTX_F_SAT) && ptx_type_is_signed(t)) {
        r = add_sat_s(cx, a, b, w, sub);
    } else if (!(ins->flags & PTX_F_CC) && ins->op != PTX_OP_ADDC && ins->op != PTX_OP_SUBC) {
        r = fold(cx, sub ? Z3_mk_bvsub(C, a, b) : Z3_mk_bvadd(C, a, b));
    } else {
        Z3_ast ea = sx_z_resize(z, a, w + 1, false), eb = sx_z_resize(z, b, w + 1, false);
        Z3_ast full = fold(cx, sub ? Z3_mk_bvsub(C, ea, eb) : Z3_mk_bvadd(C, ea, eb));
        if (ins->op == PTX_OP_ADDC || ins->op == PTX_OP_SUBC) {
            Z3_ast cin = sx_z_resize(z, get_cc(cx), w + 1, false);
            full = fold(cx, sub ? Z3_mk_bvsub(C, full, cin) : Z3_mk_bvadd(C, full, cin));
        }
        r = sx_z_extract(z, full, w - 1, 0);
        if (ins->flags & PTX_F_CC)
            set_cc(cx, sx_z_extract(z, full, w, w));   /* carry out / borrow */
    }
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

/* Product of a and b in 2w bits, extended by signedness; NULL when Z3
 * failed on the way (a NULL argument would crash Z3 itself: seen under
 * AddressSanitizer, a widening cancelled by the solver's watchdog). */
static Z3_ast wide_product(sx_cx *cx, Z3_ast a, Z3_ast b, int w, bool sgn)
{
    sx_z *z = ZZ(cx);
    Z3_ast ea = sx_z_resize(z, a, 2 * w, sgn), eb = sx_z_resize(z, b, 2 * w, sgn);
    return ea && eb ? fold(cx, Z3_mk_bvmul(C, ea, eb)) : NULL;
}

static Z3_ast mul_mode(sx_cx *cx, Z3_ast a, Z3_ast b, int w, bool sgn, uint32_t flags, int *rw)
{
    sx_z *z = ZZ(cx);
    *rw = w;
    if (flags & PTX_F_WIDE) {
        *rw = 2 * w;
        return wide_product(cx, a, b, w, sgn);
    }
    if (flags & PTX_F_HI)
        return sx_z_extract(z, wide_product(cx, a, b, w, sgn), 2 * w - 1, w);
    return fold(cx, Z3_mk_bvmul(C, a, b));
}

static int exec_mul(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    int w = type_bits(t), rw;
    bool sgn = ptx_type_is_signed(t);
    Z3_ast a = sx_opd_get(cx, 1, t), b = sx_opd_get(cx, 2, t);
    if (!a || !b)
        return -1;
    Z3_ast r = mul_mode(cx, a, b, w, sgn, ins->flags, &rw);
    if (!r)
        return -1;
    if (ins->op == PTX_OP_MAD || ins->op == PTX_OP_MADC) {
        Z3_ast c = sx_opd_get(cx, 3, rw == w ? t : (sgn ? PTX_T_S64 : PTX_T_U64));
        if (!c || !(c = sx_z_as_bv(z, c, rw)))
            return -1;
        if ((ins->flags & PTX_F_SAT) && sgn && (ins->flags & PTX_F_HI)) {
            r = add_sat_s(cx, r, c, rw, false);
        } else if (ins->op != PTX_OP_MADC && !(ins->flags & PTX_F_CC)) {
            r = fold(cx, Z3_mk_bvadd(C, r, c));
        } else {
            Z3_ast er = sx_z_resize(z, r, rw + 1, false), ec = sx_z_resize(z, c, rw + 1, false);
            Z3_ast full = fold(cx, Z3_mk_bvadd(C, er, ec));
            if (ins->op == PTX_OP_MADC)
                full = fold(cx, Z3_mk_bvadd(C, full, sx_z_resize(z, get_cc(cx), rw + 1, false)));
            if (ins->flags & PTX_F_CC)
                set_cc(cx, sx_z_extract(z, full, rw, rw));
            r = sx_z_extract(z, full, rw - 1, 0);
        }
    }
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

static int exec_mul24(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    bool sgn = ptx_type_is_signed(t);
    Z3_ast a = sx_opd_get(cx, 1, t), b = sx_opd_get(cx, 2, t);
    if (!a || !b)
        return -1;
    a = sx_z_resize(z, sx_z_extract(z, a, 23, 0), 64, sgn);
    b = sx_z_resize(z, sx_z_extract(z, b, 23, 0), 64, sgn);
    Z3_ast p = fold(cx, Z3_mk_bvmul(C, a, b));
    Z3_ast r = (ins->flags & PTX_F_HI) ? sx_z_extract(z, p, 47, 16) : sx_z_extract(z, p, 31, 0);
    if (ins->op == PTX_OP_MAD24) {
        Z3_ast c = sx_opd_get(cx, 3, t);
        if (!c)
            return -1;
        r = fold(cx, Z3_mk_bvadd(C, r, c));
    }
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

static Z3_ast int_abs(sx_cx *cx, Z3_ast a, int w)
{
    sx_z *z = ZZ(cx);
    Z3_ast neg = fold(cx, Z3_mk_bvslt(C, a, sx_z_num(z, 0, w)));
    return sx_z_ite(z, neg, fold(cx, Z3_mk_bvneg(C, a)), a);
}

static int exec_arith2(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    int w = type_bits(t);
    bool sgn = ptx_type_is_signed(t);
    Z3_ast a = sx_opd_get(cx, 1, t);
    if (!a)
        return -1;
    Z3_ast r = NULL, b = NULL;
    if (ins->op != PTX_OP_ABS && ins->op != PTX_OP_NEG) {
        b = sx_opd_get(cx, 2, t);
        if (!b)
            return -1;
    }
    if ((ins->op == PTX_OP_DIV || ins->op == PTX_OP_REM) && !sgn && cx->e->follow) {
        Z3_ast q = sx_follow_divrem(cx, a, b, w, ins->op == PTX_OP_REM);
        if (q)
            return sx_opd_set(cx, 0, q, t) ? 1 : -1;
    }
    switch (ins->op) {
    case PTX_OP_DIV:   /* ptx_int_divrem: x / 0 is all ones for signed x too (bvsdiv gives 1 if x < 0) */
        r = fold(cx, sgn ? Z3_mk_bvsdiv(C, a, b) : Z3_mk_bvudiv(C, a, b));
        if (sgn)
            r = sx_z_ite(z, sx_z_eq(z, b, sx_z_num(z, 0, w)), sx_z_num(z, ~0ull, w), r);
        break;
    case PTX_OP_REM: r = fold(cx, sgn ? Z3_mk_bvsrem(C, a, b) : Z3_mk_bvurem(C, a, b)); break;
    case PTX_OP_ABS: r = int_abs(cx, a, w); break;
    case PTX_OP_NEG: r = fold(cx, Z3_mk_bvneg(C, a)); break;
    case PTX_OP_MIN: case PTX_OP_MAX: {
        Z3_ast lt = fold(cx, sgn ? Z3_mk_bvslt(C, a, b) : Z3_mk_bvult(C, a, b));
        r = ins->op == PTX_OP_MIN ? sx_z_ite(z, lt, a, b) : sx_z_ite(z, lt, b, a);
        break;
    }
    case PTX_OP_SAD: {
        Z3_ast c = sx_opd_get(cx, 3, t);
        Z3_ast lt = fold(cx, sgn ? Z3_mk_bvslt(C, a, b) : Z3_mk_bvult(C, a, b));
        Z3_ast d = sx_z_ite(z, lt, fold(cx, Z3_mk_bvsub(C, b, a)), fold(cx, Z3_mk_bvsub(C, a, b)));
        r = c ? fold(cx, Z3_mk_bvadd(C, d, c)) : NULL;
        break;
    }
    default: return 0;
    }
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

/* ---- bit counting and fields ------------------------------------------------ */

static Z3_ast bit(sx_cx *cx, Z3_ast a, int i)
{
    return sx_z_extract(ZZ(cx), a, i, i);
}

static int exec_bits(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    int w = type_bits(t);
    Z3_ast a = sx_opd_get(cx, 1, t);
    if (!a)
        return -1;
    Z3_ast r = NULL;
    switch (ins->op) {
    case PTX_OP_POPC:
        r = sx_z_num(z, 0, 32);
        for (int i = 0; i < w && r; i++)
            r = fold(cx, Z3_mk_bvadd(C, r, sx_z_resize(z, bit(cx, a, i), 32, false)));
        return sx_opd_set(cx, 0, r, PTX_T_U32) ? 1 : -1;
    case PTX_OP_CLZ:
        r = sx_z_num(z, (uint64_t)w, 32);
        for (int i = 0; i < w && r; i++)   /* lowest set bit first, highest wins */
            r = sx_z_ite(z, sx_z_eq(z, bit(cx, a, i), sx_z_num(z, 1, 1)), sx_z_num(z, (uint64_t)(w - 1 - i), 32), r);
        return sx_opd_set(cx, 0, r, PTX_T_U32) ? 1 : -1;
    case PTX_OP_BFIND: {
        Z3_ast x = a;
        if (ptx_type_is_signed(t))   /* negative: look for the highest 0 */
            x = sx_z_ite(z, sx_z_eq(z, bit(cx, a, w - 1), sx_z_num(z, 1, 1)), fold(cx, Z3_mk_bvnot(C, a)), a);
        r = sx_z_num(z, 0xffffffffu, 32);
        for (int i = 0; i < w && r; i++) {
            uint64_t pos = (ins->flags & PTX_F_SHIFTAMT) ? (uint64_t)(w - 1 - i) : (uint64_t)i;
            r = sx_z_ite(z, sx_z_eq(z, bit(cx, x, i), sx_z_num(z, 1, 1)), sx_z_num(z, pos, 32), r);
        }
        return sx_opd_set(cx, 0, r, PTX_T_U32) ? 1 : -1;
    }
    case PTX_OP_BREV:
        r = bit(cx, a, 0);
        for (int i = 1; i < w && r; i++)
            r = sx_z_concat(z, r, bit(cx, a, i));
        return sx_opd_set(cx, 0, r, t) ? 1 : -1;
    default:
        return 0;
    }
}

static Z3_ast umin(sx_cx *cx, Z3_ast a, Z3_ast b)
{
    return sx_z_ite(ZZ(cx), fold(cx, Z3_mk_bvult(C, a, b)), a, b);
}

/* Mask of the low n bits (n may reach w). */
static Z3_ast low_mask(sx_cx *cx, Z3_ast n, int w)
{
    sx_z *z = ZZ(cx);
    Z3_ast big = fold(cx, Z3_mk_bvuge(C, n, sx_z_num(z, (uint64_t)w, w)));
    Z3_ast m = fold(cx, Z3_mk_bvsub(C, fold(cx, Z3_mk_bvshl(C, sx_z_num(z, 1, w), n)), sx_z_num(z, 1, w)));
    return sx_z_ite(z, big, ones(cx, w), m);
}

static int exec_bfe(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    ptx_type t = cx->ins->type;
    int w = type_bits(t);
    Z3_ast a = sx_opd_get(cx, 1, t), b = sx_opd_get(cx, 2, PTX_T_U32), c = sx_opd_get(cx, 3, PTX_T_U32);
    if (!a || !b || !c)
        return -1;
    Z3_ast pos = sx_z_resize(z, fold(cx, Z3_mk_bvand(C, b, sx_z_num(z, 0xff, 32))), w, false);
    Z3_ast len = sx_z_resize(z, fold(cx, Z3_mk_bvand(C, c, sx_z_num(z, 0xff, 32))), w, false);
    Z3_ast W = sx_z_num(z, (uint64_t)w, w);
    Z3_ast beyond = fold(cx, Z3_mk_bvuge(C, pos, W));
    Z3_ast eff = sx_z_ite(z, beyond, sx_z_num(z, 0, w), umin(cx, len, fold(cx, Z3_mk_bvsub(C, W, pos))));
    Z3_ast m = low_mask(cx, eff, w);
    Z3_ast sh = fold(cx, Z3_mk_bvlshr(C, a, pos));
    Z3_ast r = fold(cx, Z3_mk_bvand(C, sh, m));
    if (ptx_type_is_signed(t)) {
        Z3_ast top = umin(cx, fold(cx, Z3_mk_bvsub(C, fold(cx, Z3_mk_bvadd(C, pos, len)), sx_z_num(z, 1, w))),
                          sx_z_num(z, (uint64_t)(w - 1), w));
        Z3_ast sb = sx_z_extract(z, fold(cx, Z3_mk_bvlshr(C, a, top)), 0, 0);
        Z3_ast neg = sx_z_and2(z, sx_z_not(z, sx_z_eq(z, len, sx_z_num(z, 0, w))), sx_z_eq(z, sb, sx_z_num(z, 1, 1)));
        r = sx_z_ite(z, neg, fold(cx, Z3_mk_bvor(C, r, fold(cx, Z3_mk_bvnot(C, m)))), r);
    }
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

/* bmsk d, pos, len: len ones from bit pos (.wrap takes both mod 32, .clamp
 * saturates), as harness/sim/exec.c. */
static int exec_bmsk(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    Z3_ast pos = sx_opd_get(cx, 1, PTX_T_U32), len = sx_opd_get(cx, 2, PTX_T_U32);
    if (!pos || !len)
        return -1;
    Z3_ast k32 = sx_z_num(z, 32, 32);
    if (!(cx->ins->flags & PTX_F_CLAMP)) {
        pos = fold(cx, Z3_mk_bvand(C, pos, sx_z_num(z, 31, 32)));
        len = fold(cx, Z3_mk_bvand(C, len, sx_z_num(z, 31, 32)));
    }
    Z3_ast len64 = sx_z_resize(z, umin(cx, len, k32), 64, false), pos64 = sx_z_resize(z, umin(cx, pos, k32), 64, false);
    Z3_ast mask = fold(cx, Z3_mk_bvsub(C, fold(cx, Z3_mk_bvshl(C, sx_z_num(z, 1, 64), len64)), sx_z_num(z, 1, 64)));
    Z3_ast r = sx_z_extract(z, fold(cx, Z3_mk_bvshl(C, mask, pos64)), 31, 0);
    return sx_opd_set(cx, 0, r, PTX_T_B32) ? 1 : -1;
}

/* szext d, a, n: a's low n bits extended by the type's signedness; n >= 32
 * keeps a, n == 0 gives 0. */
static int exec_szext(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    bool sgn = ptx_type_is_signed(cx->ins->type);
    Z3_ast a = sx_opd_get(cx, 1, PTX_T_B32), n = sx_opd_get(cx, 2, PTX_T_U32);
    if (!a || !n)
        return -1;
    if (!(cx->ins->flags & PTX_F_CLAMP))
        n = fold(cx, Z3_mk_bvand(C, n, sx_z_num(z, 31, 32)));
    Z3_ast k32 = sx_z_num(z, 32, 32), sh = fold(cx, Z3_mk_bvsub(C, k32, n));
    Z3_ast up = fold(cx, Z3_mk_bvshl(C, a, sh));
    Z3_ast ext = fold(cx, sgn ? Z3_mk_bvashr(C, up, sh) : Z3_mk_bvlshr(C, up, sh));
    Z3_ast r = sx_z_ite(z, sx_z_eq(z, n, sx_z_num(z, 0, 32)), sx_z_num(z, 0, 32), ext);
    r = sx_z_ite(z, fold(cx, Z3_mk_bvuge(C, n, k32)), a, r);
    return sx_opd_set(cx, 0, r, PTX_T_B32) ? 1 : -1;
}

/* fns d, mask, base, offset with a concrete base and offset (the usual
 * form): the bit position where the running count of mask's set bits,
 * walking from base, reaches |offset| (ptx_fns).  A symbolic mask is fine. */
static int exec_fns(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    Z3_ast mask = sx_opd_get(cx, 1, PTX_T_B32), b = sx_opd_get(cx, 2, PTX_T_U32), o = sx_opd_get(cx, 3, PTX_T_S32);
    uint64_t base, off;
    if (!mask || !b || !o)
        return -1;
    if (!sx_z_get_u64(z, b, &base) || !sx_z_get_u64(z, o, &off))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "fns with a data-dependent base or offset"), -1;
    int32_t offset = (int32_t)(uint32_t)off;
    Z3_ast none = sx_z_num(z, 0xffffffffu, 32), r = none;
    if (base <= 31 && offset == 0) {
        r = sx_z_ite(z, sx_z_eq(z, bit(cx, mask, (int)base), sx_z_num(z, 1, 1)), sx_z_num(z, base, 32), none);
    } else if (base <= 31) {
        int inc = offset > 0 ? 1 : -1;
        uint64_t want = offset > 0 ? (uint64_t)offset : (uint64_t)(-(int64_t)offset);
        /* positions in walking order; the count is monotone, so at most one
         * position has its bit set with the count equal to want */
        Z3_ast count = sx_z_num(z, 0, 8), hit[32];
        int pos[32], n = 0;
        for (int p = (int)base; p >= 0 && p < 32; p += inc) {
            Z3_ast set = sx_z_eq(z, bit(cx, mask, p), sx_z_num(z, 1, 1));
            count = fold(cx, Z3_mk_bvadd(C, count, sx_z_resize(z, bit(cx, mask, p), 8, false)));
            hit[n] = sx_z_and2(z, set, sx_z_eq(z, count, sx_z_num(z, want > 255 ? 255 : want, 8)));
            pos[n++] = p;
        }
        for (int i = n - 1; i >= 0; i--)
            r = sx_z_ite(z, hit[i], sx_z_num(z, (uint64_t)pos[i], 32), r);
        if (want > 32)
            r = none;
    }
    return sx_opd_set(cx, 0, r, PTX_T_B32) ? 1 : -1;
}

static int exec_bfi(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    ptx_type t = cx->ins->type;
    int w = type_bits(t);
    Z3_ast f = sx_opd_get(cx, 1, t), b = sx_opd_get(cx, 2, t);
    Z3_ast c = sx_opd_get(cx, 3, PTX_T_U32), d = sx_opd_get(cx, 4, PTX_T_U32);
    if (!f || !b || !c || !d)
        return -1;
    Z3_ast pos = sx_z_resize(z, fold(cx, Z3_mk_bvand(C, c, sx_z_num(z, 0xff, 32))), w, false);
    Z3_ast len = sx_z_resize(z, fold(cx, Z3_mk_bvand(C, d, sx_z_num(z, 0xff, 32))), w, false);
    Z3_ast m = fold(cx, Z3_mk_bvshl(C, low_mask(cx, len, w), pos));
    Z3_ast keep = fold(cx, Z3_mk_bvand(C, b, fold(cx, Z3_mk_bvnot(C, m))));
    Z3_ast ins = fold(cx, Z3_mk_bvand(C, fold(cx, Z3_mk_bvshl(C, f, pos)), m));
    return sx_opd_set(cx, 0, fold(cx, Z3_mk_bvor(C, keep, ins)), t) ? 1 : -1;
}

/* dp4a: c + the sum of the products of the four byte pairs of a and b;
 * dp2a: c + the two products of a's halves with two bytes of b (.lo: the
 * low two bytes, .hi: the high two).  Signedness from each source type. */
static int exec_dp(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    bool as = ptx_type_is_signed(ins->type), bs = ptx_type_is_signed(ins->type2);
    Z3_ast a = sx_opd_get(cx, 1, PTX_T_B32), b = sx_opd_get(cx, 2, PTX_T_B32);
    Z3_ast r = sx_opd_get(cx, 3, (as || bs) ? PTX_T_S32 : PTX_T_U32);
    if (!a || !b || !r)
        return -1;
    bool four = ins->op == PTX_OP_DP4A;
    int bbase = (!four && (ins->flags & PTX_F_HI)) ? 2 : 0;
    for (int k = 0; k < (four ? 4 : 2); k++) {
        int aw = four ? 8 : 16;
        Z3_ast ak = sx_z_resize(z, sx_z_extract(z, a, aw * k + aw - 1, aw * k), 32, as);
        Z3_ast bk = sx_z_resize(z, sx_z_extract(z, b, 8 * (bbase + k) + 7, 8 * (bbase + k)), 32, bs);
        r = fold(cx, Z3_mk_bvadd(C, r, fold(cx, Z3_mk_bvmul(C, ak, bk))));
    }
    return sx_opd_set(cx, 0, r, PTX_T_B32) ? 1 : -1;
}

/* ---- logic and shifts ------------------------------------------------------- */

static int exec_logic(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    Z3_ast a = sx_opd_get(cx, 1, t), b = NULL, r = NULL;
    if (!a)
        return -1;
    if (ins->op == PTX_OP_AND || ins->op == PTX_OP_OR || ins->op == PTX_OP_XOR) {
        b = sx_opd_get(cx, 2, t);
        if (!b)
            return -1;
    }
    if (t == PTX_T_PRED) {
        switch (ins->op) {
        case PTX_OP_AND: r = sx_z_and2(z, a, b); break;
        case PTX_OP_OR: r = sx_z_or2(z, a, b); break;
        case PTX_OP_XOR: r = fold(cx, Z3_mk_xor(C, a, b)); break;
        case PTX_OP_NOT: r = sx_z_not(z, a); break;
        case PTX_OP_CNOT: r = sx_z_not(z, a); break;
        default: return 0;
        }
        return sx_opd_set(cx, 0, r, t) ? 1 : -1;
    }
    int w = type_bits(t);
    switch (ins->op) {
    case PTX_OP_AND: r = fold(cx, Z3_mk_bvand(C, a, b)); break;
    case PTX_OP_OR: r = fold(cx, Z3_mk_bvor(C, a, b)); break;
    case PTX_OP_XOR: r = fold(cx, Z3_mk_bvxor(C, a, b)); break;
    case PTX_OP_NOT: r = fold(cx, Z3_mk_bvnot(C, a)); break;
    case PTX_OP_CNOT: r = sx_z_ite(z, sx_z_eq(z, a, sx_z_num(z, 0, w)), sx_z_num(z, 1, w), sx_z_num(z, 0, w)); break;
    default: return 0;
    }
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

static int exec_lop3(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    ptx_type t = cx->ins->type;
    int w = type_bits(t);
    Z3_ast a = sx_opd_get(cx, 1, t), b = sx_opd_get(cx, 2, t), c = sx_opd_get(cx, 3, t);
    uint64_t lut;
    Z3_ast l = sx_opd_get(cx, 4, PTX_T_U32);
    if (!a || !b || !c || !l)
        return -1;
    if (!sx_z_get_u64(z, l, &lut))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "lop3 with a non-constant table"), -1;
    Z3_ast na = fold(cx, Z3_mk_bvnot(C, a)), nb = fold(cx, Z3_mk_bvnot(C, b)), nc = fold(cx, Z3_mk_bvnot(C, c));
    Z3_ast r = sx_z_num(z, 0, w);
    for (int k = 0; k < 8; k++) {
        if (!(lut >> k & 1))
            continue;
        Z3_ast ta = (0xF0 >> k & 1) ? a : na, tb = (0xCC >> k & 1) ? b : nb, tc = (0xAA >> k & 1) ? c : nc;
        Z3_ast term = fold(cx, Z3_mk_bvand(C, fold(cx, Z3_mk_bvand(C, ta, tb)), tc));
        r = fold(cx, Z3_mk_bvor(C, r, term));
    }
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

static int exec_shift(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    int w = type_bits(t);
    Z3_ast a = sx_opd_get(cx, 1, t), n = sx_opd_get(cx, 2, PTX_T_U32);
    if (!a || !n)
        return -1;
    n = shift_amount(cx, n, w);
    Z3_ast r;
    if (ins->op == PTX_OP_SHL)
        r = fold(cx, Z3_mk_bvshl(C, a, n));
    else if (ptx_type_is_signed(t))
        r = fold(cx, Z3_mk_bvashr(C, a, n));
    else
        r = fold(cx, Z3_mk_bvlshr(C, a, n));
    return sx_opd_set(cx, 0, r, t) ? 1 : -1;
}

static int exec_shf(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    Z3_ast a = sx_opd_get(cx, 1, PTX_T_B32), b = sx_opd_get(cx, 2, PTX_T_B32), c = sx_opd_get(cx, 3, PTX_T_U32);
    if (!a || !b || !c)
        return -1;
    Z3_ast n = (ins->flags & PTX_F_WRAP) ? fold(cx, Z3_mk_bvand(C, c, sx_z_num(z, 31, 32)))
                                         : umin(cx, c, sx_z_num(z, 32, 32));
    Z3_ast v = sx_z_concat(z, b, a), n64 = sx_z_resize(z, n, 64, false);
    Z3_ast r = (ins->flags & PTX_F_LEFT) ? sx_z_extract(z, fold(cx, Z3_mk_bvshl(C, v, n64)), 63, 32)
                                         : sx_z_extract(z, fold(cx, Z3_mk_bvlshr(C, v, n64)), 31, 0);
    return sx_opd_set(cx, 0, r, PTX_T_B32) ? 1 : -1;
}

static int exec_prmt(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    Z3_ast a = sx_opd_get(cx, 1, PTX_T_B32), b = sx_opd_get(cx, 2, PTX_T_B32), c = sx_opd_get(cx, 3, PTX_T_B32);
    uint64_t sel;
    if (!a || !b || !c)
        return -1;
    if (cx->ins->mode != 0 || !sx_z_get_u64(z, c, &sel))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "prmt with a mode or a non-constant selector"), -1;
    Z3_ast v = sx_z_concat(z, b, a), r = NULL;
    for (int k = 0; k < 4; k++) {
        unsigned s = (unsigned)(sel >> (4 * k)) & 0xf;
        Z3_ast byte = sx_z_extract(z, v, 8 * (int)(s & 7) + 7, 8 * (int)(s & 7));
        if (s & 8) {
            Z3_ast sb = sx_z_extract(z, byte, 7, 7);
            byte = sx_z_ite(z, sx_z_eq(z, sb, sx_z_num(z, 1, 1)), sx_z_num(z, 0xff, 8), sx_z_num(z, 0, 8));
        }
        r = r ? sx_z_concat(z, byte, r) : byte;
    }
    return sx_opd_set(cx, 0, r, PTX_T_B32) ? 1 : -1;
}

/* ---- compare and select ------------------------------------------------------ */

static Z3_ast int_compare(sx_cx *cx, ptx_cmp cmp, ptx_type t, Z3_ast a, Z3_ast b)
{
    bool sgn = ptx_type_is_signed(t);
    switch (cmp) {
    case PTX_CMP_EQ: return sx_z_eq(ZZ(cx), a, b);
    case PTX_CMP_NE: return sx_z_not(ZZ(cx), sx_z_eq(ZZ(cx), a, b));
    case PTX_CMP_LT: return fold(cx, sgn ? Z3_mk_bvslt(C, a, b) : Z3_mk_bvult(C, a, b));
    case PTX_CMP_LE: return fold(cx, sgn ? Z3_mk_bvsle(C, a, b) : Z3_mk_bvule(C, a, b));
    case PTX_CMP_GT: return fold(cx, sgn ? Z3_mk_bvsgt(C, a, b) : Z3_mk_bvugt(C, a, b));
    case PTX_CMP_GE: return fold(cx, sgn ? Z3_mk_bvsge(C, a, b) : Z3_mk_bvuge(C, a, b));
    case PTX_CMP_LO: return fold(cx, Z3_mk_bvult(C, a, b));
    case PTX_CMP_LS: return fold(cx, Z3_mk_bvule(C, a, b));
    case PTX_CMP_HI: return fold(cx, Z3_mk_bvugt(C, a, b));
    case PTX_CMP_HS: return fold(cx, Z3_mk_bvuge(C, a, b));
    default:
        sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "comparison '%s' on an integer type", ptx_cmp_name(cmp));
        return NULL;
    }
}

/* setp/set tail: combine with the optional predicate operand and write. */
int sx_finish_compare(sx_cx *cx, Z3_ast r, int cop)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    if (!r)
        return -1;
    Z3_ast q = sx_z_not(z, r);
    if (ins->boolop != PTX_BOOL_NONE) {
        Z3_ast c = sx_opd_get_pred(cx, cop);
        if (!c)
            return -1;
        switch (ins->boolop) {
        case PTX_BOOL_AND: r = sx_z_and2(z, r, c); q = sx_z_and2(z, q, c); break;
        case PTX_BOOL_OR: r = sx_z_or2(z, r, c); q = sx_z_or2(z, q, c); break;
        default: r = fold(cx, Z3_mk_xor(C, r, c)); q = fold(cx, Z3_mk_xor(C, q, c)); break;
        }
    }
    if (ins->op == PTX_OP_SET) {
        ptx_type dt = ins->type;
        int w = type_bits(dt);
        Z3_ast one = sx_z_num(z, ptx_set_true(dt), w);
        return sx_opd_set(cx, 0, sx_z_ite(z, r, one, sx_z_num(z, 0, w)), dt) ? 1 : -1;
    }
    if (!sx_opd_set(cx, 0, r, PTX_T_PRED))
        return -1;
    if (ins->flags & PTX_F_PAIR && ins->nops > 1 && ins->ops[1].kind != PTX_OPD_NONE)
        return sx_opd_set(cx, 1, q, PTX_T_PRED) ? 1 : -1;
    return 1;
}

static int exec_setp(sx_cx *cx)
{
    const ptx_instr *ins = cx->ins;
    bool pair = (ins->flags & PTX_F_PAIR) != 0;
    int first = pair ? 2 : 1;
    ptx_type st = ins->op == PTX_OP_SET ? ins->type2 : ins->type;
    Z3_ast a = sx_opd_get(cx, first, st), b = sx_opd_get(cx, first + 1, st);
    if (!a || !b)
        return -1;
    return sx_finish_compare(cx, int_compare(cx, ins->cmp, st, a, b), first + 2);
}

static int exec_select(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    bool fl = t == PTX_T_F32 || t == PTX_T_F64;
    Z3_ast a = fl ? sx_opd_get_fp(cx, 1, t) : sx_opd_get(cx, 1, t);
    Z3_ast b = fl ? sx_opd_get_fp(cx, 2, t) : sx_opd_get(cx, 2, t), c;
    if (!a || !b)
        return -1;
    if (ins->op == PTX_OP_SELP) {
        c = sx_opd_get_pred(cx, 3);
    } else {
        ptx_type ct = ins->type2;
        if (ct == PTX_T_F32) {
            Z3_ast f = sx_opd_get_fp(cx, 3, ct);
            c = f ? sx_z_not(z, fold(cx, Z3_mk_fpa_lt(C, f, fold(cx, Z3_mk_fpa_zero(C, z->fp32, false))))) : NULL;
            /* NaN >= 0 is false in PTX: slct picks b */
            if (c && f)
                c = sx_z_and2(z, c, sx_z_not(z, fold(cx, Z3_mk_fpa_is_nan(C, f))));
        } else {
            Z3_ast v = sx_opd_get(cx, 3, PTX_T_S32);
            c = v ? fold(cx, Z3_mk_bvsge(C, v, sx_z_num(z, 0, 32))) : NULL;
        }
    }
    if (!c)
        return -1;
    return sx_opd_set(cx, 0, sx_z_ite(z, c, a, b), t) ? 1 : -1;
}

/* ---- moves and conversions ------------------------------------------------------ */

static int exec_mov(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type;
    const ptx_operand *d = &ins->ops[0], *s = ins->nops > 1 ? &ins->ops[1] : NULL;
    if (!s)
        return sx_exec_fail(cx, WH_ERR_USER, "mov without a source"), -1;
    int w = type_bits(t);
    if (s->kind == PTX_OPD_VEC) {           /* pack {a, b} into one register */
        int n = s->nelems, pw = w / (n > 0 ? n : 1);
        Z3_ast v = NULL;
        for (int i = 0; i < n; i++) {
            const ptx_operand *el = &s->elems[i];
            Z3_ast p = el->kind == PTX_OPD_REG ? sx_reg_get(cx->e, cx->fr, el->reg) : sx_z_num(z, (uint64_t)el->ival, pw);
            p = sx_z_as_bv(z, p ? p : sx_z_num(z, 0, pw), pw);
            v = v ? sx_z_concat(z, p, v) : p;
        }
        return sx_opd_set(cx, 0, v, t) ? 1 : -1;
    }
    if (d->kind == PTX_OPD_VEC) {           /* unpack one register into {a, b} */
        Z3_ast v = sx_opd_get(cx, 1, t);
        int n = d->nelems, pw = w / (n > 0 ? n : 1);
        for (int i = 0; i < n && v; i++) {
            const ptx_operand *el = &d->elems[i];
            if (el->kind == PTX_OPD_REG && !sx_reg_write(cx, el->reg, sx_z_extract(z, v, pw * i + pw - 1, pw * i)))
                return -1;
        }
        return v ? 1 : -1;
    }
    Z3_ast v;
    if (t == PTX_T_PRED) {
        v = sx_opd_get_pred(cx, 1);
    } else if (s->kind == PTX_OPD_REG && ptx_type_is_float(t)) {
        v = sx_reg_get(cx->e, cx->fr, s->reg);
        v = v ? (sx_z_is_fp(z, v) && sx_z_width(z, v) == w ? v : sx_z_as_bv(z, v, w)) : sx_z_num(z, 0, w);
    } else {
        v = sx_opd_get(cx, 1, t);
    }
    return sx_opd_set(cx, 0, v, t) ? 1 : -1;
}

static int exec_cvt_int(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type dt = ins->type, st = ins->type2;
    int dw = type_bits(dt), sw = type_bits(st);
    Z3_ast a = sx_opd_get(cx, 1, st);
    if (!a)
        return -1;
    bool ssgn = ptx_type_is_signed(st), dsgn = ptx_type_is_signed(dt);
    Z3_ast r;
    if (ins->flags & PTX_F_SAT) {
        /* clamp the source value into the destination range */
        int ew = (sw > dw ? sw : dw) + 2;
        Z3_ast ea = sx_z_resize(z, a, ew, ssgn);
        uint64_t hi = dsgn ? (1ull << (dw - 1)) - 1 : (dw >= 64 ? ~0ull : (1ull << dw) - 1);
        int64_t lo = dsgn ? -(int64_t)(1ull << (dw - 1)) : 0;
        Z3_ast H = sx_z_resize(z, sx_z_num(z, hi, dw), ew, false), L = sx_z_resize(z, sx_z_num(z, (uint64_t)lo, dw), ew, dsgn);
        ea = sx_z_ite(z, fold(cx, Z3_mk_bvsgt(C, ea, H)), H, ea);
        ea = sx_z_ite(z, fold(cx, Z3_mk_bvslt(C, ea, L)), L, ea);
        r = sx_z_extract(z, ea, dw - 1, 0);
    } else {
        r = sx_z_resize(z, a, dw, ssgn);
    }
    /* a register wider than the destination type gets the value extended
     * by the destination's signedness (as the sim does) */
    if (dw < 64)
        r = sx_z_resize(z, r, 64, dsgn);
    return sx_opd_set(cx, 0, r, dt) ? 1 : -1;
}

/* mapa in a cluster of one block (as the sim): rank 0 maps an address to
 * itself, any other ends the path where the sim faults; the rank must be
 * concrete. */
static int exec_mapa(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    ptx_type t = cx->ins->type == PTX_T_NONE ? PTX_T_U64 : cx->ins->type;
    Z3_ast a = sx_opd_get(cx, 1, t), r = sx_opd_get(cx, 2, PTX_T_U32);
    uint64_t rank;
    if (!a || !r)
        return -1;
    if (!sx_z_get_u64(z, fold(cx, r), &rank))
        return sx_exec_fail(cx, WH_ERR_UNSUPPORTED, "mapa with a data-dependent block rank (line %d)", cx->ins->line),
               -1;
    if (rank != 0) {
        char why[96];
        snprintf(why, sizeof why, "mapa to block rank %llu: the cluster has one block (rank 0)",
                 (unsigned long long)rank);
        sx_fault_path(cx, why);
        return 1;
    }
    return sx_opd_set(cx, 0, a, t) ? 1 : -1;
}

static int exec_cvta(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    const ptx_instr *ins = cx->ins;
    ptx_type t = ins->type == PTX_T_NONE ? PTX_T_U64 : ins->type;
    int w = type_bits(t);
    Z3_ast a = sx_opd_get(cx, 1, t);
    if (!a)
        return -1;
    a = sx_z_resize(z, a, 64, false);
    uint64_t win = 0;
    if (ins->space == PTX_SPACE_SHARED)
        win = PTX_ADDR_SHARED;
    else if (ins->space == PTX_SPACE_LOCAL)
        win = PTX_ADDR_LOCAL;
    else if (ins->space == PTX_SPACE_CONST)
        win = PTX_ADDR_CONST;
    else if (ins->space == PTX_SPACE_PARAM)
        win = PTX_ADDR_PARAM;
    Z3_ast r = a;
    if (win)
        r = fold(cx, (ins->flags & PTX_F_TO) ? Z3_mk_bvsub(C, a, sx_z_num(z, win, 64))
                                             : Z3_mk_bvadd(C, a, sx_z_num(z, win, 64)));
    return sx_opd_set(cx, 0, sx_z_resize(z, r, w, false), t) ? 1 : -1;
}

static Z3_ast in_window(sx_cx *cx, Z3_ast a, uint64_t base, uint64_t bytes)
{
    sx_z *z = ZZ(cx);
    return sx_z_and2(z, fold(cx, Z3_mk_bvuge(C, a, sx_z_num(z, base, 64))),
                  fold(cx, Z3_mk_bvult(C, a, sx_z_num(z, base + bytes, 64))));
}

static int exec_isspacep(sx_cx *cx)
{
    sx_z *z = ZZ(cx);
    Z3_ast a = sx_opd_get(cx, 1, PTX_T_U64);
    if (!a)
        return -1;
    /* ptx_generic_space as a term */
    Z3_ast in_sh = in_window(cx, a, PTX_ADDR_SHARED, PTX_ADDR_WINDOW);
    Z3_ast in_lo = in_window(cx, a, PTX_ADDR_LOCAL, PTX_ADDR_WINDOW);
    Z3_ast in_co = in_window(cx, a, PTX_ADDR_CONST, PTX_ADDR_WINDOW);
    Z3_ast r;
    switch (cx->ins->space) {
    case PTX_SPACE_SHARED: case PTX_SPACE_SHARED_CLUSTER: r = in_sh; break;
    case PTX_SPACE_LOCAL: r = in_lo; break;
    case PTX_SPACE_CONST: r = in_co; break;
    case PTX_SPACE_GLOBAL: r = sx_z_not(z, sx_z_or2(z, in_sh, sx_z_or2(z, in_lo, in_co))); break;
    default: r = z->fls; break;
    }
    return sx_opd_set(cx, 0, r, PTX_T_PRED) ? 1 : -1;
}

int sx_exec_int(sx_cx *cx)
{
    switch (cx->ins->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_ADDC: case PTX_OP_SUBC: return exec_addsub(cx);
    case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_MADC: return exec_mul(cx);
    case PTX_OP_MUL24: case PTX_OP_MAD24: return exec_mul24(cx);
    case PTX_OP_DIV: case PTX_OP_REM: case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_MIN:
    case PTX_OP_MAX: case PTX_OP_SAD:
        return exec_arith2(cx);
    case PTX_OP_POPC: case PTX_OP_CLZ: case PTX_OP_BFIND: case PTX_OP_BREV: return exec_bits(cx);
    case PTX_OP_BFE: return exec_bfe(cx);
    case PTX_OP_DP4A: case PTX_OP_DP2A: return exec_dp(cx);
    case PTX_OP_BFI: return exec_bfi(cx);
    case PTX_OP_BMSK: return exec_bmsk(cx);
    case PTX_OP_SZEXT: return exec_szext(cx);
    case PTX_OP_FNS: return exec_fns(cx);
    case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_CNOT:
        return exec_logic(cx);
    case PTX_OP_LOP3: return exec_lop3(cx);
    case PTX_OP_SHL: case PTX_OP_SHR: return exec_shift(cx);
    case PTX_OP_SHF: return exec_shf(cx);
    case PTX_OP_PRMT: return exec_prmt(cx);
    case PTX_OP_SETP: case PTX_OP_SET: return exec_setp(cx);
    case PTX_OP_SELP: case PTX_OP_SLCT: return exec_select(cx);
    case PTX_OP_MOV: return exec_mov(cx);
    case PTX_OP_CVT: return exec_cvt_int(cx);
    case PTX_OP_CVTA: return exec_cvta(cx);
    case PTX_OP_MAPA: return exec_mapa(cx);
    case PTX_OP_CREATEPOLICY:   /* an opaque cache policy, as the sim gives it: 0 */
        return sx_opd_set(cx, 0, sx_z_num(ZZ(cx), 0, 64), PTX_T_B64) ? 1 : -1;
    case PTX_OP_ISSPACEP: return exec_isspacep(cx);
    default: return 0;
    }
}
