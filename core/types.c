/*
 * types.c — the element types of kernel specs: names, sizes, signedness.
 */
#include "core/spec.h"

typedef struct {
    const char *name;
    size_t size;
    bool is_float, is_signed;
} type_info;

static const type_info types[] = {
    [WH_I8] = { "i8", 1, false, true },    [WH_U8] = { "u8", 1, false, false },
    [WH_I16] = { "i16", 2, false, true },  [WH_U16] = { "u16", 2, false, false },
    [WH_I32] = { "i32", 4, false, true },  [WH_U32] = { "u32", 4, false, false },
    [WH_I64] = { "i64", 8, false, true },  [WH_U64] = { "u64", 8, false, false },
    [WH_F32] = { "f32", 4, true, true },   [WH_F64] = { "f64", 8, true, true },
    [WH_STRUCT] = { "struct", 0, false, false },
};

const char *wh_type_name(wh_type t) { return types[t].name; }
size_t wh_type_size(wh_type t) { return types[t].size; }
bool wh_type_is_float(wh_type t) { return types[t].is_float; }
bool wh_type_is_signed(wh_type t) { return types[t].is_signed; }

void wh_type_limits(wh_type t, int64_t *lo, int64_t *hi)
{
    size_t bits = 8 * types[t].size;
    if (bits == 64) {
        *lo = types[t].is_signed ? INT64_MIN : 0;
        *hi = INT64_MAX;
    } else if (types[t].is_signed) {
        *hi = ((int64_t)1 << (bits - 1)) - 1;
        *lo = -*hi - 1;
    } else {
        *lo = 0;
        *hi = ((int64_t)1 << bits) - 1;
    }
}

bool wh_type_holds(wh_type t, int64_t v)
{
    int64_t lo, hi;
    wh_type_limits(t, &lo, &hi);
    return v >= lo && v <= hi;
}

const char *wh_role_name(wh_role r)
{
    static const char *const names[] = { "none", "input", "output", "fixed" };
    return names[r];
}

const char *wh_check_name(wh_check c)
{
    static const char *const names[] = { "exact", "multiset", "none" };
    return names[c];
}

const char *wh_structure_name(wh_structure s)
{
    static const char *const names[] = { "none", "sorted", "strictly_sorted", "distinct", "permutation",
                                         "offsets", "neighbors", "forest" };
    return names[s];
}

const char *wh_tex_address_name(wh_tex_address a)
{
    static const char *const names[] = { "clamp", "border", "wrap", "mirror" };
    return names[a];
}

const char *wh_swizzle_name(wh_swizzle z)
{
    static const char *const names[] = { "none", "32B", "64B", "128B" };
    return names[z];
}

const char *wh_key_hash_name(wh_key_hash h)
{
    static const char *const names[] = { "identity", "fmix32" };
    return names[h];
}

const char *wh_owner_name(wh_owner o)
{
    static const char *const names[] = { "contiguous", "stride", "block_stride", "warp_stride", "warp", "rows", "index" };
    return names[o];
}
