/*
 * interval.c — cheap unsigned bounds of bit-vector terms, so that most
 * symbolic addresses are proven inside their buffer without the solver.
 *
 * Bounds come from numerals, the input symbols' domains (non-negative
 * ranges only) and a few operators (and, or with a mask, add, sub of a
 * numeral, mul/shl by a numeral, lshr, urem, zero/sign extension,
 * extract, ite).  Anything else, or any possible wrap-around, gives up.
 * Results are over-approximations: a term always lies in its interval.
 * The same walk tells how many low bits of a term are zero whatever the
 * inputs (an offset times 4 is a multiple of 4), for memory.c's word cases.
 */
#include "symexec/internal.h"

#include <string.h>

#define MAX_DEPTH 48
#define MAX_WORK 4096   /* nodes visited per query (shared subterms count again) */

typedef struct {
    uint64_t lo, hi;
    bool ok;
} iv;

static iv none(void) { return (iv){ 0, 0, false }; }

static uint64_t mask_of(int w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }

static iv full(int w) { return (iv){ 0, mask_of(w), true }; }

static bool add_ok(uint64_t a, uint64_t b, int w, uint64_t *r)
{
    uint64_t s = a + b;
    if (s < a || s > mask_of(w))
        return false;
    *r = s;
    return true;
}

static bool mul_ok(uint64_t a, uint64_t b, int w, uint64_t *r)
{
    if (a != 0 && b > mask_of(w) / a)
        return false;
    *r = a * b;
    return true;
}

static iv eval(sx_engine *e, Z3_ast a, int depth, int *work);

static iv arg_iv(sx_engine *e, Z3_app app, unsigned i, int depth, int *work)
{
    return eval(e, Z3_get_app_arg(e->z.c, app, i), depth + 1, work);
}

static bool arg_num(sx_engine *e, Z3_app app, unsigned i, uint64_t *v)
{
    return sx_z_get_u64(&e->z, Z3_get_app_arg(e->z.c, app, i), v);
}

static iv symbol_iv(sx_engine *e, Z3_ast a, int w)
{
    int si = sx_layout_symbol_of(e, a);
    if (si < 0)
        return full(w);
    const sx_symbol *s = &e->syms[si];
    wh_bounds b;
    if (wh_type_is_float(s->type) || !wh_image_bounds(e->img, s->param, s->field, s->elem, &b, NULL)
        || b.lo < 0)
        return full(w);
    return (iv){ (uint64_t)b.lo, (uint64_t)b.hi, true };
}

static iv eval_app(sx_engine *e, Z3_ast a, Z3_app app, int w, int depth, int *work)
{
    Z3_context c = e->z.c;
    Z3_func_decl d = Z3_get_app_decl(c, app);
    unsigned n = Z3_get_app_num_args(c, app);
    uint64_t k;
    iv x, y;
    switch (Z3_get_decl_kind(c, d)) {
    case Z3_OP_UNINTERPRETED:
        return n == 0 ? symbol_iv(e, a, w) : full(w);
    case Z3_OP_BAND:
        for (unsigned i = 0; i < n; i++)
            if (arg_num(e, app, i, &k))
                return (iv){ 0, k, true };
        return full(w);
    case Z3_OP_BADD: {
        iv r = { 0, 0, true };
        for (unsigned i = 0; i < n && r.ok; i++) {
            x = arg_iv(e, app, i, depth, work);
            r.ok = x.ok && add_ok(r.lo, x.lo, w, &r.lo) && add_ok(r.hi, x.hi, w, &r.hi);
        }
        return r.ok ? r : full(w);
    }
    case Z3_OP_BSUB:
        x = arg_iv(e, app, 0, depth, work);
        if (n == 2 && x.ok && arg_num(e, app, 1, &k) && x.lo >= k)
            return (iv){ x.lo - k, x.hi - k, true };
        return full(w);
    case Z3_OP_BMUL:
        if (n == 2 && (arg_num(e, app, 0, &k) || arg_num(e, app, 1, &k))) {
            bool first = arg_num(e, app, 0, &k);
            x = arg_iv(e, app, first ? 1 : 0, depth, work);
            iv r = { 0, 0, x.ok };
            if (r.ok && mul_ok(x.lo, k, w, &r.lo) && mul_ok(x.hi, k, w, &r.hi))
                return r;
        }
        return full(w);
    case Z3_OP_BSHL:
        if (n == 2 && arg_num(e, app, 1, &k) && k < 64) {
            x = arg_iv(e, app, 0, depth, work);
            iv r = { 0, 0, x.ok };
            if (r.ok && mul_ok(x.lo, 1ull << k, w, &r.lo) && mul_ok(x.hi, 1ull << k, w, &r.hi))
                return r;
        }
        return full(w);
    case Z3_OP_BLSHR:
        if (n == 2 && arg_num(e, app, 1, &k)) {
            x = arg_iv(e, app, 0, depth, work);
            if (k >= 64)
                return (iv){ 0, 0, true };
            return x.ok ? (iv){ x.lo >> k, x.hi >> k, true } : (iv){ 0, mask_of(w) >> k, true };
        }
        return full(w);
    case Z3_OP_BUREM: case Z3_OP_BUREM_I:
        if (n == 2 && arg_num(e, app, 1, &k) && k > 0)
            return (iv){ 0, k - 1, true };
        return full(w);
    case Z3_OP_ZERO_EXT:
        x = arg_iv(e, app, 0, depth, work);
        return x.ok ? x : full(sx_z_width(&e->z, Z3_get_app_arg(c, app, 0)));
    case Z3_OP_SIGN_EXT: {
        int aw = sx_z_width(&e->z, Z3_get_app_arg(c, app, 0));
        x = arg_iv(e, app, 0, depth, work);
        if (x.ok && aw > 0 && aw <= 64 && x.hi < (1ull << (aw - 1)))
            return x;
        return full(w);
    }
    case Z3_OP_EXTRACT: {
        unsigned lo = (unsigned)Z3_get_decl_int_parameter(c, d, 1);
        x = arg_iv(e, app, 0, depth, work);
        if (lo == 0 && x.ok && x.hi <= mask_of(w))
            return x;
        return full(w);
    }
    case Z3_OP_ITE:
        x = arg_iv(e, app, 1, depth, work);
        y = arg_iv(e, app, 2, depth, work);
        if (x.ok && y.ok)
            return (iv){ x.lo < y.lo ? x.lo : y.lo, x.hi > y.hi ? x.hi : y.hi, true };
        return full(w);
    default:
        return full(w);
    }
}

static iv eval(sx_engine *e, Z3_ast a, int depth, int *work)
{
    sx_z *z = &e->z;
    if (depth > MAX_DEPTH || --*work < 0 || Z3_get_sort_kind(z->c, Z3_get_sort(z->c, a)) != Z3_BV_SORT)
        return none();
    int w = sx_z_width(z, a);
    if (w > 64)
        return none();
    uint64_t v;
    if (sx_z_get_u64(z, a, &v))
        return (iv){ v, v, true };
    if (Z3_get_ast_kind(z->c, a) != Z3_APP_AST)
        return full(w);
    return eval_app(e, a, Z3_to_app(z->c, a), w, depth, work);
}

bool sx_interval_of(sx_engine *e, Z3_ast a, uint64_t *lo, uint64_t *hi)
{
    int work = MAX_WORK;
    iv r = eval(e, a, 0, &work);
    if (!r.ok || r.hi < r.lo)
        return false;
    *lo = r.lo;
    *hi = r.hi;
    return true;
}

/* ---- known-zero low bits --------------------------------------------------- */

static int min_int(int a, int b) { return a < b ? a : b; }

static int zero_bits(sx_engine *e, Z3_ast a, int depth, int *work);

static int arg_zero_bits(sx_engine *e, Z3_app app, unsigned i, int depth, int *work)
{
    return zero_bits(e, Z3_get_app_arg(e->z.c, app, i), depth + 1, work);
}

static int zero_bits_app(sx_engine *e, Z3_app app, int w, int depth, int *work)
{
    Z3_context c = e->z.c;
    Z3_func_decl d = Z3_get_app_decl(c, app);
    unsigned n = Z3_get_app_num_args(c, app);
    int r = 0;
    uint64_t k;
    switch (Z3_get_decl_kind(c, d)) {
    case Z3_OP_BMUL:        /* the factors' zero bits add up */
        for (unsigned i = 0; i < n; i++)
            r += arg_zero_bits(e, app, i, depth, work);
        return min_int(r, w);
    case Z3_OP_BAND:        /* any operand's zero bits stay zero */
        for (unsigned i = 0; i < n; i++) {
            int z = arg_zero_bits(e, app, i, depth, work);
            r = z > r ? z : r;
        }
        return r;
    case Z3_OP_BADD: case Z3_OP_BSUB: case Z3_OP_BOR: case Z3_OP_ITE: {
        unsigned first = Z3_get_decl_kind(c, d) == Z3_OP_ITE ? 1 : 0;
        r = w;
        for (unsigned i = first; i < n; i++)
            r = min_int(r, arg_zero_bits(e, app, i, depth, work));
        return r;
    }
    case Z3_OP_BSHL:
        if (n == 2 && sx_z_get_u64(&e->z, Z3_get_app_arg(c, app, 1), &k))
            return k >= (uint64_t)w ? w : min_int(w, (int)k + arg_zero_bits(e, app, 0, depth, work));
        return 0;
    case Z3_OP_ZERO_EXT: case Z3_OP_SIGN_EXT: {
        int aw = sx_z_width(&e->z, Z3_get_app_arg(c, app, 0));
        r = arg_zero_bits(e, app, 0, depth, work);
        return r >= aw ? w : r;   /* an all-zero operand extends to zero */
    }
    case Z3_OP_CONCAT: {    /* the last operand holds the low bits */
        int low = 0;
        for (unsigned i = n; i-- > 0;) {
            int aw = sx_z_width(&e->z, Z3_get_app_arg(c, app, i));
            int z = arg_zero_bits(e, app, i, depth, work);
            low += z;
            if (z < aw)
                break;
        }
        return min_int(low, w);
    }
    case Z3_OP_EXTRACT: {
        int lo = Z3_get_decl_int_parameter(c, d, 1);
        r = arg_zero_bits(e, app, 0, depth, work) - lo;
        return r < 0 ? 0 : min_int(r, w);
    }
    default:
        return 0;
    }
}

static int zero_bits(sx_engine *e, Z3_ast a, int depth, int *work)
{
    sx_z *z = &e->z;
    if (depth > MAX_DEPTH || --*work < 0 || Z3_get_sort_kind(z->c, Z3_get_sort(z->c, a)) != Z3_BV_SORT)
        return 0;
    int w = sx_z_width(z, a);
    uint64_t v;
    if (w <= 64 && sx_z_get_u64(z, a, &v))
        return v ? __builtin_ctzll(v) : w;
    if (Z3_get_ast_kind(z->c, a) != Z3_APP_AST)
        return 0;
    return zero_bits_app(e, Z3_to_app(z->c, a), w, depth, work);
}

int sx_low_zero_bits(sx_engine *e, Z3_ast a)
{
    int work = MAX_WORK;
    return zero_bits(e, a, 0, &work);
}
