/*
 * z3util.c — a thin layer over the Z3 C API: a reference-counted context,
 * scratch references for temporaries, sorts, numerals, constant folding and
 * conversions between bit-vectors, Bools and IEEE floats.
 */
#include "symexec/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void z_error_handler(Z3_context c, Z3_error_code e)
{
    (void)c;
    (void)e;   /* errors are picked up by sx_zk() through Z3_get_error_code */
}

static Z3_sort keep_sort(sx_z *z, Z3_sort s)
{
    Z3_inc_ref(z->c, Z3_sort_to_ast(z->c, s));
    return s;
}

static Z3_ast keep_ast(sx_z *z, Z3_ast a)
{
    Z3_inc_ref(z->c, a);
    return a;
}

bool sx_z_init(sx_z *z, wh_error *err)
{
    memset(z, 0, sizeof *z);
    Z3_config cfg = Z3_mk_config();
    Z3_set_param_value(cfg, "model", "true");
    z->c = Z3_mk_context_rc(cfg);
    Z3_del_config(cfg);
    if (!z->c) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "cannot create a Z3 context");
        return false;
    }
    Z3_set_error_handler(z->c, z_error_handler);
    z->bool_s = keep_sort(z, Z3_mk_bool_sort(z->c));
    z->fp32 = keep_sort(z, Z3_mk_fpa_sort_32(z->c));
    z->fp64 = keep_sort(z, Z3_mk_fpa_sort_64(z->c));
    z->idx_s = sx_z_bvs(z, 64);
    z->byte_s = sx_z_bvs(z, 8);
    z->arr_s = keep_sort(z, Z3_mk_array_sort(z->c, z->idx_s, z->byte_s));
    z->rm[SX_RM_RNE] = keep_ast(z, Z3_mk_fpa_rne(z->c));
    z->rm[SX_RM_RTZ] = keep_ast(z, Z3_mk_fpa_rtz(z->c));
    z->rm[SX_RM_RTN] = keep_ast(z, Z3_mk_fpa_rtn(z->c));
    z->rm[SX_RM_RTP] = keep_ast(z, Z3_mk_fpa_rtp(z->c));
    z->rm[SX_RM_RNA] = keep_ast(z, Z3_mk_fpa_rna(z->c));
    z->tru = keep_ast(z, Z3_mk_true(z->c));
    z->fls = keep_ast(z, Z3_mk_false(z->c));
    return true;
}

void sx_z_fini(sx_z *z)
{
    if (!z->c)
        return;
    sx_z_release(z);
    free(z->tmp);
    for (int w = 0; w <= 128; w++)
        if (z->bv[w])
            Z3_dec_ref(z->c, Z3_sort_to_ast(z->c, z->bv[w]));
    Z3_dec_ref(z->c, Z3_sort_to_ast(z->c, z->bool_s));
    Z3_dec_ref(z->c, Z3_sort_to_ast(z->c, z->fp32));
    Z3_dec_ref(z->c, Z3_sort_to_ast(z->c, z->fp64));
    Z3_dec_ref(z->c, Z3_sort_to_ast(z->c, z->arr_s));
    for (int i = 0; i < 5; i++)
        Z3_dec_ref(z->c, z->rm[i]);
    Z3_dec_ref(z->c, z->tru);
    Z3_dec_ref(z->c, z->fls);
    Z3_del_context(z->c);
    z->c = NULL;
}

Z3_ast sx_zk(sx_z *z, Z3_ast a)
{
    if (!a) {
        if (!z->failed) {
            Z3_error_code code = Z3_get_error_code(z->c);
            snprintf(z->errmsg, sizeof z->errmsg, "Z3: %s",
                     code != Z3_OK ? Z3_get_error_msg(z->c, code) : "null result");
        }
        z->failed = true;
        return NULL;
    }
    if (z->ntmp == z->captmp) {
        int cap = z->captmp ? z->captmp * 2 : 256;
        Z3_ast *t = realloc(z->tmp, (size_t)cap * sizeof *t);
        if (!t) {
            z->failed = true;
            snprintf(z->errmsg, sizeof z->errmsg, "out of memory");
            return a;
        }
        z->tmp = t;
        z->captmp = cap;
    }
    Z3_inc_ref(z->c, a);
    z->tmp[z->ntmp++] = a;
    return a;
}

void sx_z_release(sx_z *z)
{
    for (int i = z->ntmp - 1; i >= 0; i--)
        Z3_dec_ref(z->c, z->tmp[i]);
    z->ntmp = 0;
}

void sx_z_inc(sx_z *z, Z3_ast a)
{
    if (a)
        Z3_inc_ref(z->c, a);
}

void sx_z_dec(sx_z *z, Z3_ast a)
{
    if (a)
        Z3_dec_ref(z->c, a);
}

Z3_sort sx_z_bvs(sx_z *z, int w)
{
    if (w < 1 || w > 128)
        w = w < 1 ? 1 : 128;
    if (!z->bv[w])
        z->bv[w] = keep_sort(z, Z3_mk_bv_sort(z->c, (unsigned)w));
    return z->bv[w];
}

Z3_ast sx_z_num(sx_z *z, uint64_t v, int w)
{
    if (w < 64)
        v &= (1ull << w) - 1;
    return sx_zk(z, Z3_mk_unsigned_int64(z->c, v, sx_z_bvs(z, w)));
}

Z3_ast sx_z_bool(sx_z *z, bool b)
{
    return b ? z->tru : z->fls;
}

int sx_z_bool_value(sx_z *z, Z3_ast a)
{
    Z3_lbool v = Z3_get_bool_value(z->c, a);
    return v == Z3_L_TRUE ? 1 : v == Z3_L_FALSE ? 0 : -1;
}

bool sx_z_is_value(sx_z *z, Z3_ast a)
{
    return Z3_is_numeral_ast(z->c, a) || sx_z_bool_value(z, a) >= 0;
}

bool sx_z_get_u64(sx_z *z, Z3_ast a, uint64_t *v)
{
    if (!Z3_is_numeral_ast(z->c, a))
        return false;
    Z3_sort s = Z3_get_sort(z->c, a);
    if (Z3_get_sort_kind(z->c, s) != Z3_BV_SORT)
        return false;
    if (Z3_get_bv_sort_size(z->c, s) > 64)
        return false;
    uint64_t x = 0;
    if (!Z3_get_numeral_uint64(z->c, a, &x))
        return false;
    *v = x;
    return true;
}

static Z3_sort_kind kind_of(sx_z *z, Z3_ast a)
{
    return Z3_get_sort_kind(z->c, Z3_get_sort(z->c, a));
}

bool sx_z_is_bool(sx_z *z, Z3_ast a) { return kind_of(z, a) == Z3_BOOL_SORT; }
bool sx_z_is_fp(sx_z *z, Z3_ast a) { return kind_of(z, a) == Z3_FLOATING_POINT_SORT; }
bool sx_z_is_bv(sx_z *z, Z3_ast a) { return kind_of(z, a) == Z3_BV_SORT; }

int sx_z_width(sx_z *z, Z3_ast a)
{
    Z3_sort s = Z3_get_sort(z->c, a);
    switch (Z3_get_sort_kind(z->c, s)) {
    case Z3_BV_SORT: return (int)Z3_get_bv_sort_size(z->c, s);
    case Z3_FLOATING_POINT_SORT:
        return (int)(Z3_fpa_get_ebits(z->c, s) + Z3_fpa_get_sbits(z->c, s));
    case Z3_BOOL_SORT: return 1;
    default: return 0;
    }
}

Z3_ast sx_z_simplify(sx_z *z, Z3_ast a)
{
    if (!a)
        return NULL;
    return sx_zk(z, Z3_simplify(z->c, a));
}

Z3_ast sx_z_fold(sx_z *z, Z3_ast a)
{
    if (!a)
        return NULL;
    if (Z3_get_ast_kind(z->c, a) != Z3_APP_AST)
        return a;
    Z3_app app = Z3_to_app(z->c, a);
    unsigned n = Z3_get_app_num_args(z->c, app);
    if (n == 0)
        return a;
    for (unsigned i = 0; i < n; i++) {
        Z3_ast arg = Z3_get_app_arg(z->c, app, i);
        if (!sx_z_is_value(z, arg) && Z3_get_sort_kind(z->c, Z3_get_sort(z->c, arg)) != Z3_ROUNDING_MODE_SORT)
            return a;
    }
    return sx_z_simplify(z, a);
}

Z3_ast sx_z_not(sx_z *z, Z3_ast a)
{
    if (!a)
        return NULL;
    int v = sx_z_bool_value(z, a);
    if (v >= 0)
        return sx_z_bool(z, !v);
    return sx_zk(z, Z3_mk_not(z->c, a));
}

Z3_ast sx_z_and2(sx_z *z, Z3_ast a, Z3_ast b)
{
    if (!a || !b)
        return NULL;
    int va = sx_z_bool_value(z, a), vb = sx_z_bool_value(z, b);
    if (va == 0 || vb == 0)
        return z->fls;
    if (va == 1)
        return b;
    if (vb == 1)
        return a;
    Z3_ast args[2] = { a, b };
    return sx_zk(z, Z3_mk_and(z->c, 2, args));
}

Z3_ast sx_z_or2(sx_z *z, Z3_ast a, Z3_ast b)
{
    if (!a || !b)
        return NULL;
    int va = sx_z_bool_value(z, a), vb = sx_z_bool_value(z, b);
    if (va == 1 || vb == 1)
        return z->tru;
    if (va == 0)
        return b;
    if (vb == 0)
        return a;
    Z3_ast args[2] = { a, b };
    return sx_zk(z, Z3_mk_or(z->c, 2, args));
}

Z3_ast sx_z_ite(sx_z *z, Z3_ast c, Z3_ast a, Z3_ast b)
{
    if (!c || !a || !b)
        return NULL;
    int v = sx_z_bool_value(z, c);
    if (v == 1)
        return a;
    if (v == 0)
        return b;
    if (a == b)
        return a;
    return sx_zk(z, Z3_mk_ite(z->c, c, a, b));
}

Z3_ast sx_z_extract(sx_z *z, Z3_ast a, int hi, int lo)
{
    if (!a)
        return NULL;
    if (lo == 0 && hi + 1 == sx_z_width(z, a))
        return a;
    return sx_z_fold(z, sx_zk(z, Z3_mk_extract(z->c, (unsigned)hi, (unsigned)lo, a)));
}

Z3_ast sx_z_concat(sx_z *z, Z3_ast hi, Z3_ast lo)
{
    if (!hi || !lo)
        return NULL;
    return sx_z_fold(z, sx_zk(z, Z3_mk_concat(z->c, hi, lo)));
}

Z3_ast sx_z_eq(sx_z *z, Z3_ast a, Z3_ast b)
{
    if (!a || !b)
        return NULL;
    return sx_z_fold(z, sx_zk(z, Z3_mk_eq(z->c, a, b)));
}

Z3_ast sx_z_to_bv(sx_z *z, Z3_ast a)
{
    if (!a)
        return NULL;
    switch (kind_of(z, a)) {
    case Z3_BV_SORT:
        return a;
    case Z3_BOOL_SORT:
        return sx_z_ite(z, a, sx_z_num(z, 1, 1), sx_z_num(z, 0, 1));
    case Z3_FLOATING_POINT_SORT: {
        /* fp.to_ieee_bv leaves a NaN's bits open: pin them to the contract's NaN */
        Z3_sort s = Z3_get_sort(z->c, a);
        int w = (int)(Z3_fpa_get_ebits(z->c, s) + Z3_fpa_get_sbits(z->c, s));
        uint64_t nan = w == 16 ? PTX_NAN_F16 : w == 32 ? PTX_NAN_F32 : PTX_NAN_F64;
        Z3_ast bits = sx_z_fold(z, sx_zk(z, Z3_mk_fpa_to_ieee_bv(z->c, a)));
        Z3_ast is_nan = sx_z_fold(z, sx_zk(z, Z3_mk_fpa_is_nan(z->c, a)));
        return sx_z_ite(z, is_nan, sx_z_num(z, nan, w), bits);
    }
    default:
        z->failed = true;
        snprintf(z->errmsg, sizeof z->errmsg, "unexpected sort in a register");
        return NULL;
    }
}

Z3_ast sx_z_resize(sx_z *z, Z3_ast a, int w, bool sext)
{
    if (!a)
        return NULL;
    int aw = sx_z_width(z, a);
    if (aw == w)
        return a;
    if (aw > w)
        return sx_z_extract(z, a, w - 1, 0);
    Z3_ast r = sext ? Z3_mk_sign_ext(z->c, (unsigned)(w - aw), a)
                    : Z3_mk_zero_ext(z->c, (unsigned)(w - aw), a);
    return sx_z_fold(z, sx_zk(z, r));
}

Z3_ast sx_z_as_bv(sx_z *z, Z3_ast a, int w)
{
    if (!a)
        return NULL;
    if (sx_z_is_bool(z, a))
        return sx_z_ite(z, a, sx_z_num(z, 1, w), sx_z_num(z, 0, w));
    return sx_z_resize(z, sx_z_to_bv(z, a), w, false);
}

Z3_ast sx_z_as_fp(sx_z *z, Z3_ast a, int w)
{
    if (!a)
        return NULL;
    if (sx_z_is_fp(z, a)) {
        if (sx_z_width(z, a) == w)
            return a;
        /* a float of the other width held in a register: reinterpret bits */
        a = sx_z_to_bv(z, a);
    }
    Z3_ast bv = sx_z_as_bv(z, a, w);
    return sx_z_fold(z, sx_zk(z, Z3_mk_fpa_to_fp_bv(z->c, bv, w == 64 ? z->fp64 : z->fp32)));
}

Z3_ast sx_z_as_bool(sx_z *z, Z3_ast a)
{
    if (!a)
        return NULL;
    if (sx_z_is_bool(z, a))
        return a;
    Z3_ast bv = sx_z_to_bv(z, a);
    return sx_z_not(z, sx_z_eq(z, bv, sx_z_num(z, 0, sx_z_width(z, bv))));
}
