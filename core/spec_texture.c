/*
 * spec_texture.c — the spec keys of texture, surface and tensor map
 * parameters (README, "Textures", "Surfaces", "Tensor maps"): their
 * dimensions, formats, address and filter modes, layers and levels, and
 * the element count of their backing buffer.  Errors name the spec file
 * and JSON path, as every spec error does.
 */
#include "core/spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADDRESSES "\"clamp\" (the default), \"border\", \"wrap\" or \"mirror\""

/* One address mode, or one per dimension. */
static bool parse_tex_address(spec_loader *ld, json_t *v, const char *jpath, wh_texture *t)
{
    for (int d = 0; d < t->ndims; d++) {
        json_t *e = json_is_array(v) ? json_array_get(v, (size_t)d) : v;
        const char *name = json_string_value(e);
        int k = WH_TEX_CLAMP;
        while (name && k <= WH_TEX_ADDRESS_LAST && strcmp(name, wh_tex_address_name((wh_tex_address)k))) k++;
        if (!name || k > WH_TEX_ADDRESS_LAST)
            return spec_bad(ld, jpath, "expected %s, or one per dimension", ADDRESSES);
        if ((k == WH_TEX_WRAP || k == WH_TEX_MIRROR) && !t->normalized_coords)
            return spec_bad(ld, jpath, "\"%s\" needs \"normalized_coords\": true (CUDA clamps otherwise)", name);
        t->address[d] = (wh_tex_address)k;
    }
    if (json_is_array(v) && json_array_size(v) != (size_t)t->ndims)
        return spec_bad(ld, jpath, "expected one address mode per dimension (%d)", t->ndims);
    return true;
}

static bool get_flag(spec_loader *ld, json_t *obj, const char *key, const char *jpath, bool *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) return true;
    if (!json_is_boolean(v)) return spec_bad(ld, jpath, "\"%s\" must be true or false", key);
    *out = json_is_true(v);
    return true;
}

/* The texels' type: 8/16/32-bit integers or f32, in 1, 2 or 4 channels
 * (the channel counts CUDA arrays take). */
static bool check_texel_type(spec_loader *ld, const wh_param *p, const char *jpath, const wh_texture *t)
{
    wh_type ct = p->fields[0].type;
    size_t cs = wh_type_size(ct);
    if (p->nfields != 1 && p->nfields != 2 && p->nfields != 4)
        return spec_bad(ld, jpath, "a texel has 1, 2 or 4 channels (fields), not %d", p->nfields);
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].type != ct || p->fields[f].offset != (size_t)f * cs)
            return spec_bad(ld, jpath, "a texel's channels (fields) are of one type, packed");
    if (cs > 4 || ct == WH_F64)
        return spec_bad(ld, jpath, "texels are 8-, 16- or 32-bit integers or f32, not %s", wh_type_name(ct));
    if (t->read_normalized && (cs > 2 || wh_type_is_float(ct)))
        return spec_bad(ld, jpath, "\"read\": \"normalized_float\" is for 8- and 16-bit integer texels");
    if ((t->filter_linear || t->mip_linear) && !wh_type_is_float(ct) && !t->read_normalized)
        return spec_bad(ld, jpath, "linear filtering needs f32 texels or \"read\": \"normalized_float\"");
    return true;
}

/* p's element count from the expression `text` (its dimensions'). */
static bool count_of_text(spec_loader *ld, const char *text, const char *jpath, wh_param *p)
{
    json_t *v = json_string(text);
    if (!v) return spec_bad(ld, jpath, "out of memory");
    bool ok = spec_get_expr(ld, v, jpath, &p->count);
    json_decref(v);
    return ok;
}

/* The count of a texture's buffer: the product of its dimensions (of a
 * mipmapped one: the sum over its levels, max(1, dim >> k) each). */
static bool texture_count(spec_loader *ld, wh_texture *t, const char *jpath, wh_param *p)
{
    char text[4000];
    int n = 0;
    for (int k = 0; k < t->levels && n < (int)sizeof text; k++)
        for (int d = 0; d < t->ndims && n < (int)sizeof text; d++)
            n += k ? snprintf(text + n, sizeof text - (size_t)n, "%smax(1,(%s)/%d)", d ? "*" : "+",
                              wh_expr_text(t->dims[d]), 1 << k)
                   : snprintf(text + n, sizeof text - (size_t)n, "%s(%s)", d ? "*" : "", wh_expr_text(t->dims[d]));
    if (t->layers && n < (int)sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, "*(%s)", wh_expr_text(t->layers));
    if (t->cube && n < (int)sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, "*6");
    if (n >= (int)sizeof text) return spec_bad(ld, jpath, "dimensions too long");
    return count_of_text(ld, text, jpath, p);
}

/* "dims" of a texture or surface. */
static bool parse_dims(spec_loader *ld, json_t *o, const char *sub, wh_texture *t)
{
    char dp[352];
    snprintf(dp, sizeof dp, "%s.dims", sub);
    json_t *dims = json_object_get(o, "dims");
    if (!json_is_array(dims) || json_array_size(dims) < 1 || json_array_size(dims) > 3)
        return spec_bad(ld, dp, "expected [width], [width, height] or [width, height, depth] (texels)");
    t->ndims = (int)json_array_size(dims);
    for (int d = 0; d < t->ndims; d++)
        if (!spec_get_expr(ld, json_array_get(dims, (size_t)d), dp, &t->dims[d])) return false;
    return true;
}

/* The "texture" or "surface" object of parameter p (key), its keys
 * checked and its dims parsed into a new p->tex; NULL after an error.
 * sub receives the object's JSON path. */
static json_t *open_object(spec_loader *ld, json_t *pobj, const char *jpath, const char *key,
                           const char *const *keys, wh_param *p, char *sub, size_t n)
{
    snprintf(sub, n, "%s.%s", jpath, key);
    json_t *o = json_object_get(pobj, key);
    if (!json_is_object(o)) {
        spec_bad(ld, sub, "a %s needs \"%s\": { \"dims\": [...]%s }", key, key, keys[1] ? ", ..." : "");
        return NULL;
    }
    if (!spec_check_keys(ld, o, sub, keys)) return NULL;
    if (!(p->tex = calloc(1, sizeof *p->tex))) {
        spec_bad(ld, sub, "out of memory");
        return NULL;
    }
    return parse_dims(ld, o, sub, p->tex) ? o : NULL;
}

/* "layers" and "cube": a layered texture (1-D or 2-D layers), a cubemap
 * (square 2-D faces, point sampled) or a layered cubemap, in a CUDA array. */
static bool parse_layers(spec_loader *ld, json_t *o, const char *sub, wh_texture *t)
{
    char lp[352];
    snprintf(lp, sizeof lp, "%s.layers", sub);
    json_t *layers = json_object_get(o, "layers");
    if (layers && !spec_get_expr(ld, layers, lp, &t->layers)) return false;
    if (!get_flag(ld, o, "cube", sub, &t->cube)) return false;
    if ((t->layers || t->cube) && t->linear_memory) {
        if (json_object_get(o, "memory"))
            return spec_bad(ld, sub, "a layered or cubemap texture is a CUDA array (\"memory\": \"array\")");
        t->linear_memory = false;   /* 1-D layers: the default is an array */
    }
    if (t->layers && !t->cube && t->ndims == 3)
        return spec_bad(ld, lp, "layers are of 1-D or 2-D textures");
    if (t->cube && t->ndims != 2)
        return spec_bad(ld, sub, "a cubemap's \"dims\" are its faces' [width, height] (equal)");
    if (t->cube && t->filter_linear)
        return spec_bad(ld, sub, "a cubemap is point sampled here (filtering across its faces is not modelled)");
    return true;
}

/* "levels" and "mipmap_filter": a mipmapped array (tex2DLod, tex2DGrad),
 * of 1-D, 2-D or 3-D levels read at normalized coordinates. */
static bool parse_levels(spec_loader *ld, json_t *o, const char *sub, wh_texture *t)
{
    char lp[352];
    snprintf(lp, sizeof lp, "%s.levels", sub);
    json_t *levels = json_object_get(o, "levels");
    t->levels = 1;
    if (levels && (!json_is_integer(levels) || json_integer_value(levels) < 1 ||
                   json_integer_value(levels) > WH_TEX_MAX_LEVELS))
        return spec_bad(ld, lp, "a mipmapped texture's levels are an integer, 1 to %d", WH_TEX_MAX_LEVELS);
    if (levels)
        t->levels = (int)json_integer_value(levels);
    const char *mf = json_string_value(json_object_get(o, "mipmap_filter"));
    if (json_object_get(o, "mipmap_filter") && (!mf || (strcmp(mf, "point") && strcmp(mf, "linear"))))
        return spec_bad(ld, sub, "\"mipmap_filter\" is \"point\" (the nearest level, the default) or \"linear\"");
    t->mip_linear = mf && !strcmp(mf, "linear");
    if (t->levels == 1)
        return !t->mip_linear || spec_bad(ld, sub, "\"mipmap_filter\" is for a mipmapped texture (\"levels\" above 1)");
    if (t->linear_memory || t->layers || t->cube || t->gather)
        return spec_bad(ld, lp, "a mipmapped texture is a CUDA array of one layer, neither layered, a cubemap nor made "
                        "for tld4 (\"memory\": \"array\")");
    if (!t->normalized_coords)
        return spec_bad(ld, lp, "a mipmapped texture is read at normalized coordinates (\"normalized_coords\": true): "
                        "one coordinate then names one place at every level");
    return true;
}

/* "surface": the CUDA array a `kind: surface` parameter's surface object
 * reads and writes (suld/sust). */
bool spec_parse_surface(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    static const char *const keys[] = { "dims", "layers", "cube", NULL };
    char sub[320], lp[340];
    json_t *o = open_object(ld, pobj, jpath, "surface", keys, p, sub, sizeof sub);
    if (!o) return false;
    wh_texture *t = p->tex;
    t->surface = true;
    t->levels = 1;
    json_t *layers = json_object_get(o, "layers");
    snprintf(lp, sizeof lp, "%s.layers", sub);
    if (layers && !spec_get_expr(ld, layers, lp, &t->layers)) return false;
    if (t->layers && t->ndims == 3) return spec_bad(ld, lp, "layers are of 1-D or 2-D surfaces");
    if (!get_flag(ld, o, "cube", sub, &t->cube)) return false;
    if (t->cube && t->ndims != 2)
        return spec_bad(ld, sub, "a cubemap surface's \"dims\" are its faces' [width, height] (equal)");
    if (!check_texel_type(ld, p, jpath, t)) return false;
    if (json_object_get(pobj, "count"))
        return spec_bad(ld, jpath, "a surface's element count is the product of its \"dims\" (no \"count\")");
    return texture_count(ld, t, jpath, p);
}

/* "texture": the texture object a `kind: texture` parameter stands for. */
bool spec_parse_texture(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    static const char *const keys[] = { "dims", "memory", "address", "filter", "normalized_coords", "read", "gather",
                                        "layers", "cube", "levels", "mipmap_filter", NULL };
    char sub[320];
    json_t *o = open_object(ld, pobj, jpath, "texture", keys, p, sub, sizeof sub);
    if (!o) return false;
    wh_texture *t = p->tex;
    const char *mem = json_string_value(json_object_get(o, "memory"));
    if (json_object_get(o, "memory") && (!mem || (strcmp(mem, "linear") && strcmp(mem, "array"))))
        return spec_bad(ld, sub, "\"memory\" is \"linear\" (1-D, tex1Dfetch) or \"array\" (a CUDA array)");
    t->linear_memory = mem ? !strcmp(mem, "linear") : t->ndims == 1;
    if (t->linear_memory && t->ndims != 1) return spec_bad(ld, sub, "\"memory\": \"linear\" is for 1-D textures");
    const char *filter = json_string_value(json_object_get(o, "filter"));
    if (json_object_get(o, "filter") && (!filter || (strcmp(filter, "point") && strcmp(filter, "linear"))))
        return spec_bad(ld, sub, "\"filter\" is \"point\" (the default) or \"linear\"");
    t->filter_linear = filter && !strcmp(filter, "linear");
    const char *read = json_string_value(json_object_get(o, "read"));
    if (json_object_get(o, "read") && (!read || (strcmp(read, "element") && strcmp(read, "normalized_float"))))
        return spec_bad(ld, sub, "\"read\" is \"element\" (the default) or \"normalized_float\"");
    t->read_normalized = read && !strcmp(read, "normalized_float");
    if (!get_flag(ld, o, "normalized_coords", sub, &t->normalized_coords)) return false;
    if (!get_flag(ld, o, "gather", sub, &t->gather) || !parse_layers(ld, o, sub, t)) return false;
    if (t->gather && (t->linear_memory || t->ndims != 2 || t->layers || t->cube))
        return spec_bad(ld, sub, "\"gather\" (an array made for tex2Dgather, tld4) is for 2-D textures in a "
                "CUDA array, "
                   "neither layered nor a cubemap");
    if (!parse_levels(ld, o, sub, t)) return false;
    if (t->linear_memory && (t->filter_linear || t->normalized_coords || json_object_get(o, "address")))
        return spec_bad(ld, sub, "a texture over linear memory has no filtering, normalized coordinates or address "
                        "modes (out-of-range fetches read 0): say \"memory\": \"array\" for those");
    if (t->linear_memory)
        t->address[0] = WH_TEX_BORDER;
    json_t *addr = json_object_get(o, "address");
    if (addr) {
        char ap[352];
        snprintf(ap, sizeof ap, "%s.address", sub);
        if (!parse_tex_address(ld, addr, ap, t)) return false;
    }
    if (!check_texel_type(ld, p, jpath, t)) return false;
    if (json_object_get(pobj, "count"))
        return spec_bad(ld, jpath, "a texture's texel count is the product of its \"dims\" (no \"count\")");
    return texture_count(ld, t, jpath, p);
}

/* "tensor_map": the CUtensorMap a `kind: tensor_map` parameter stands
 * for (cuTensorMapEncodeTiled's tiled form: packed strides, element
 * strides of 1, no interleave), its elements the tensor's. */
bool spec_parse_tensor_map(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p)
{
    static const char *const keys[] = { "dims", "box", "swizzle", "oob_fill", NULL };
    char sub[320], dp[352];
    snprintf(sub, sizeof sub, "%s.tensor_map", jpath);
    json_t *o = json_object_get(pobj, "tensor_map");
    if (!json_is_object(o)) return spec_bad(ld, sub, "a tensor map needs \"tensor_map\": { \"dims\": [...], "
            "\"box\": [...] }");
    if (!spec_check_keys(ld, o, sub, keys)) return false;
    if (!(p->tmap = calloc(1, sizeof *p->tmap))) return spec_bad(ld, sub, "out of memory");
    wh_tensor_map *t = p->tmap;
    json_t *dims = json_object_get(o, "dims"), *box = json_object_get(o, "box");
    snprintf(dp, sizeof dp, "%s.dims", sub);
    if (!json_is_array(dims) || json_array_size(dims) < 1 || json_array_size(dims) > WH_TMAP_MAX_RANK)
        return spec_bad(ld, dp, "expected 1 to %d dimensions (elements, dimension 0 the fastest)", WH_TMAP_MAX_RANK);
    t->rank = (int)json_array_size(dims);
    for (int d = 0; d < t->rank; d++)
        if (!spec_get_expr(ld, json_array_get(dims, (size_t)d), dp, &t->dims[d])) return false;
    snprintf(dp, sizeof dp, "%s.box", sub);
    if (!json_is_array(box) || (int)json_array_size(box) != t->rank)
        return spec_bad(ld, dp, "expected one box size per dimension (%d)", t->rank);
    for (int d = 0; d < t->rank; d++) {
        json_t *b = json_array_get(box, (size_t)d);
        if (!json_is_integer(b) || json_integer_value(b) < 1 || json_integer_value(b) > WH_TMAP_MAX_BOX)
            return spec_bad(ld, dp, "box sizes are integers, 1 to %d elements", WH_TMAP_MAX_BOX);
        t->box[d] = (int)json_integer_value(b);
    }
    json_t *sw = json_object_get(o, "swizzle");
    const char *swn = json_string_value(sw);
    int k = 0;
    while (swn && k <= WH_SWIZZLE_LAST && strcmp(swn, wh_swizzle_name((wh_swizzle)k))) k++;
    if (sw && (!swn || k > WH_SWIZZLE_LAST))
        return spec_bad(ld, sub, "\"swizzle\" is \"none\" (the default), \"32B\", \"64B\" or \"128B\"");
    t->swizzle = sw ? (wh_swizzle)k : WH_SWIZZLE_NONE;
    const char *fill = json_string_value(json_object_get(o, "oob_fill"));
    if (json_object_get(o, "oob_fill") && (!fill || (strcmp(fill, "zero") && strcmp(fill, "nan"))))
        return spec_bad(ld, sub, "\"oob_fill\" is \"zero\" (the default) or \"nan\" (float tensors)");
    t->oob_nan = fill && !strcmp(fill, "nan");
    if (p->type == WH_STRUCT)
        return spec_bad(ld, jpath, "a tensor's elements are one integer or float type");
    size_t es = wh_type_size(p->type);
    if (t->oob_nan && !wh_type_is_float(p->type))
        return spec_bad(ld, sub, "\"oob_fill\": \"nan\" is for float tensors");
    if ((size_t)t->box[0] * es % 16)
        return spec_bad(ld, dp, "a box's first dimension is a multiple of 16 bytes (%d elements of %zu bytes are %zu)",
                        t->box[0], es, (size_t)t->box[0] * es);
    uint64_t box_bytes = es;
    for (int d = 0; d < t->rank; d++) box_bytes *= (uint64_t)t->box[d];
    if (box_bytes > WH_TMAP_MAX_BOX_BYTES)
        return spec_bad(ld, dp, "a box of %llu bytes cannot fit a block's shared memory (%u bytes at most, a Hopper "
                        "block's)", (unsigned long long)box_bytes, WH_TMAP_MAX_BOX_BYTES);
    size_t span = t->swizzle ? (size_t)16 << t->swizzle : 0;
    if (span && (size_t)t->box[0] * es > span)
        return spec_bad(ld, dp, "with the %s swizzle a box's first dimension is at most %zu bytes, not %zu",
                        wh_swizzle_name(t->swizzle), span, (size_t)t->box[0] * es);
    if (json_object_get(pobj, "count"))
        return spec_bad(ld, jpath, "a tensor's element count is the product of its \"dims\" (no \"count\")");
    char text[2000];
    int n = 0;
    for (int d = 0; d < t->rank && n < (int)sizeof text; d++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s(%s)", d ? "*" : "", wh_expr_text(t->dims[d]));
    if (n >= (int)sizeof text) return spec_bad(ld, jpath, "dimensions too long");
    return count_of_text(ld, text, jpath, p);
}
