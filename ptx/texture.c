/*
 * texture.c — what a `tex` fetch reads, one definition for the emulator and
 * the symbolic executor: a texture's description at a launch, the texels a
 * fetch touches (coordinates, address modes, point and linear filtering)
 * and the values it returns (texel formats, read modes).
 *
 * The rules follow the CUDA C Programming Guide's "Texture Fetching"
 * appendix: a normalized coordinate is scaled by the dimension; point
 * sampling reads texel floor(x); linear filtering reads floor(x - 0.5) and
 * the next one with weights in 1/256 steps (the guide's 9-bit fixed point
 * with 8 fractional bits); clamp, border (0), wrap and mirror address
 * modes; a texture over linear memory (tex1Dfetch) reads 0 out of range.
 * Where the guide is silent this file decides, and the README says so: an
 * integer coordinate is a texel index and never filtered; a NaN coordinate
 * reads texel 0; wrap and mirror act on the texel index; channels a texel
 * lacks read 0; a filtered value is the f32 sum, in tap order, of weight x
 * value.  Surfaces (suld.b/sust.b): x is a byte offset in its row, y and z
 * rows and slices; out of bounds .trap faults, .zero reads 0 and drops the
 * store, .clamp goes to the nearest place inside; an x that is no multiple
 * of the access size faults.  The formatted sust.p and sured.p count x in
 * samples and convert values to the surface's format (saturating integer
 * channels, decided here).  Compared with an H200 (README, "Textures"):
 * point sampling, tld4, layered and cubemap fetches and suld.b/sust.b
 * agree; the rest (filtering, the formatted forms...) is not compared yet.
 */
#include "ptx/internal.h"

#include <math.h>
#include <string.h>

/* Level k's size in dimension d: max(1, dims[d] >> k), as CUDA's. */
static int64_t level_dim(const ptx_texture *t, int k, int d)
{
    int64_t n = t->dims[d] >> k;
    return d < t->ndims && n > 1 ? n : 1;
}

/* A mipmapped texture's levels, one after another: none past the one
 * whose largest dimension is 1 (CUDA refuses more). */
bool ptx_tex_set_levels(ptx_texture *t, int levels, bool mip_linear)
{
    int64_t largest = t->dims[0] > t->dims[1] ? t->dims[0] : t->dims[1];
    largest = largest > t->dims[2] ? largest : t->dims[2];
    t->levels = levels > 1 ? levels : 1;
    t->mip_linear = mip_linear;
    if (t->levels > WH_TEX_MAX_LEVELS || largest >> (t->levels - 1) < 1)
        return false;
    int64_t base = 0;
    for (int k = 0; k < t->levels; k++) {
        t->level_base[k] = base;
        base += level_dim(t, k, 0) * level_dim(t, k, 1) * level_dim(t, k, 2);
    }
    return true;
}

static bool make_levels(const wh_spec *spec, const wh_param *pp, const wh_texture *d, ptx_texture *t, wh_error *err)
{
    if (ptx_tex_set_levels(t, d->levels, d->mip_linear))
        return true;
    int64_t largest = t->dims[0] > t->dims[1] ? t->dims[0] : t->dims[1];
    largest = largest > t->dims[2] ? largest : t->dims[2];
    wh_error_set(err, WH_ERR_USER, spec->path, 0, 0,
                 "texture '%s': %d mipmap levels, more than its largest dimension (%lld) allows (%d)", pp->name,
                 t->levels, (long long)largest, 64 - __builtin_clzll((unsigned long long)largest));
    return false;
}

bool ptx_texture_make(const wh_spec *spec, int p, const int64_t *vars, ptx_texture *t, wh_error *err)
{
    const wh_param *pp = &spec->params[p];
    const wh_texture *d = pp->tex;
    memset(t, 0, sizeof *t);
    if (!d) {
        wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "parameter '%s' is not a texture", pp->name);
        return false;
    }
    t->ndims = d->ndims;
    for (int k = 0; k < 3; k++) {
        t->dims[k] = 1;
        if (k >= d->ndims)
            continue;
        if (!wh_spec_eval(spec, d->dims[k], vars, "a texture dimension", &t->dims[k], err))
            return false;
        if (t->dims[k] < 1 || t->dims[k] > INT32_MAX) {
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "texture '%s': dimension %d is %lld (expected 1..%d)",
                         pp->name, k, (long long)t->dims[k], INT32_MAX);
            return false;
        }
        t->address[k] = (int)d->address[k];
    }
    t->filter_linear = d->filter_linear;
    t->normalized_coords = d->normalized_coords;
    t->read_normalized = d->read_normalized;
    t->linear_memory = d->linear_memory;
    t->surface = d->surface;
    t->gather = d->gather;
    t->cube = d->cube;
    if (d->cube && t->dims[0] != t->dims[1]) {
        wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "texture '%s': a cubemap's faces are square, not %lld x %lld",
                     pp->name, (long long)t->dims[0], (long long)t->dims[1]);
        return false;
    }
    if (d->layers) {
        if (!wh_spec_eval(spec, d->layers, vars, "a texture's layers", &t->layers, err))
            return false;
        if (t->layers < 1 || t->layers > 65535) {
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "texture '%s': %lld layers (expected 1..65535)", pp->name,
                         (long long)t->layers);
            return false;
        }
    }
    t->channels = pp->nfields;
    t->chan_bytes = (int)wh_type_size(pp->fields[0].type);
    t->chan_float = wh_type_is_float(pp->fields[0].type);
    t->chan_signed = wh_type_is_signed(pp->fields[0].type);
    t->texel_bytes = t->channels * t->chan_bytes;
    return make_levels(spec, pp, d, t, err);
}

static float f32_of(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* floor(x) as a texel index: saturated to the s32 range, NaN -> 0. */
static int64_t floor_index(float x)
{
    if (isnan(x))
        return 0;
    float f = floorf(x);
    if (f <= -2147483648.0f)
        return INT32_MIN;
    if (f >= 2147483648.0f)
        return INT32_MAX;
    return (int64_t)f;
}

/* Texel index i of a dimension of n texels under an address mode; -1 for
 * a border texel (reads 0). */
static int64_t address(int mode, int64_t i, int64_t n)
{
    int64_t m;
    switch (mode) {
    case WH_TEX_CLAMP: return i < 0 ? 0 : i >= n ? n - 1 : i;
    case WH_TEX_BORDER: return i < 0 || i >= n ? -1 : i;
    case WH_TEX_WRAP:
        m = i % n;
        return m < 0 ? m + n : m;
    default:
        m = i % (2 * n);
        if (m < 0)
            m += 2 * n;
        return m < n ? m : 2 * n - 1 - m;
    }
}

/* One dimension of a fetch: its texels (one, or two when filtering) and
 * their weights. */
typedef struct {
    int n;
    int64_t at[2];
    float w[2];
} dim_taps;

static void taps_of_dim(const ptx_texture *t, int d, bool int_coords, bool linear, uint32_t coord, dim_taps *o)
{
    int64_t size = t->dims[d];
    o->w[0] = 1.0f;
    o->n = 1;
    if (int_coords) {
        o->at[0] = address(t->address[d], (int32_t)coord, size);
        return;
    }
    float x = f32_of(coord);
    if (t->normalized_coords)
        x = x * (float)size;
    if (!linear) {
        o->at[0] = address(t->address[d], floor_index(x), size);
        return;
    }
    float xb = x - 0.5f;
    int64_t i0 = floor_index(xb);
    float frac = xb - floorf(xb);
    if (isnan(frac))
        frac = 0.0f;
    float q = floorf(frac * 256.0f + 0.5f);
    o->n = 2;
    o->at[0] = address(t->address[d], i0, size);
    o->at[1] = address(t->address[d], i0 + 1, size);
    o->w[0] = (256.0f - q) / 256.0f;
    o->w[1] = q / 256.0f;
}

/* The taps of a fetch within one layer (or face) at coord[0..ndims). */
static int layer_taps(const ptx_texture *t, bool int_coords, const uint32_t coord[3], ptx_tex_tap *taps)
{
    dim_taps dt[3];
    int total = 1;
    for (int d = 0; d < t->ndims; d++) {
        taps_of_dim(t, d, int_coords, t->filter_linear, coord[d], &dt[d]);
        total *= dt[d].n;
    }
    for (int k = 0; k < total; k++) {
        int64_t index = 0, stride = 1;
        float w = 1.0f;
        int rest = k;
        for (int d = 0; d < t->ndims; d++) {
            int pick = rest % dt[d].n;
            rest /= dt[d].n;
            int64_t a = dt[d].at[pick];
            w = d == 0 ? dt[d].w[pick] : w * dt[d].w[pick];
            if (a < 0 || index < 0)
                index = -1;
            else
                index += a * stride;
            stride *= t->dims[d];
        }
        taps[k].index = index;
        taps[k].weight = w;
    }
    return total;
}

int ptx_tex_geometry_of(int ndims, bool layered, bool cube, bool surface)
{
    if (cube && surface)   /* surfCubemap*: the faces are the layers of a 2-D array */
        return PTX_TEX_A2D;
    if (cube)
        return layered ? PTX_TEX_ACUBE : PTX_TEX_CUBE;
    if (layered)
        return ndims == 1 ? PTX_TEX_A1D : PTX_TEX_A2D;
    return ndims;
}

int ptx_tex_geometry(const ptx_texture *t)
{
    return ptx_tex_geometry_of(t->ndims, t->layers > 0, t->cube, t->surface);
}

const char *ptx_tex_geom_name(int g)
{
    static const char *const names[] = { "?", "1d", "2d", "3d", "a1d", "a2d", "cube", "acube" };
    return g >= 0 && g <= PTX_TEX_GEOM_LAST ? names[g] : "?";
}

bool ptx_tex_geom_layered(int g)
{
    return g == PTX_TEX_A1D || g == PTX_TEX_A2D || g == PTX_TEX_ACUBE;
}

int64_t ptx_tex_texels(const ptx_texture *t)
{
    if (t->levels > 1)
        return t->level_base[t->levels - 1] + level_dim(t, t->levels - 1, 0) * level_dim(t, t->levels - 1, 1) *
                                                  level_dim(t, t->levels - 1, 2);
    return t->dims[0] * t->dims[1] * t->dims[2] * (t->layers ? t->layers : 1) * (t->cube ? 6 : 1);
}

int ptx_tex_geom_dims(int g)
{
    static const int dims[] = { 0, 1, 2, 3, 1, 2, 2, 2 };
    return g >= 0 && g <= PTX_TEX_GEOM_LAST ? dims[g] : 0;
}

int ptx_tex_coord_elems(int g)
{
    return g == PTX_TEX_1D ? 1 : g == PTX_TEX_2D || g == PTX_TEX_A1D ? 2 : 4;
}

int ptx_tex_coords_used(int g)
{
    static const int used[] = { 0, 1, 2, 3, 2, 3, 3, 4 };
    return g >= 0 && g <= PTX_TEX_GEOM_LAST ? used[g] : 0;
}

/* The face a cubemap direction (x, y, z) points at (+x -x +y -y +z -z:
 * 0..5) and the face's normalized coordinates (s / m + 1) / 2 and
 * (t / m + 1) / 2, after the CUDA guide's table; on a tie the earlier axis
 * is major, and a zero direction reads face 0's centre. */
static int cube_face(float x, float y, float z, float *u, float *v)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, sc, tc;
    int face;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1;
        m = ax, sc = x >= 0 ? -z : z, tc = -y;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3;
        m = ay, sc = x, tc = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5;
        m = az, sc = z >= 0 ? x : -x, tc = -y;
    }
    if (!(m > 0)) {   /* zero or NaN */
        *u = *v = 0.5f;
        return 0;
    }
    *u = (sc / m + 1.0f) * 0.5f;
    *v = (tc / m + 1.0f) * 0.5f;
    return face;
}

int ptx_tex_taps(const ptx_texture *t, bool int_coords, const uint32_t coord[4], ptx_tex_tap *taps)
{
    int first = t->layers ? 1 : 0;
    int64_t slice = 0;
    if (t->layers)
        slice = coord[0] >= (uint64_t)t->layers ? t->layers - 1 : (int64_t)coord[0];
    uint32_t inner[3] = { coord[first], coord[first + 1], coord[first + 2] };
    int n;
    if (t->cube) {
        /* the face, point-sampled at normalized coordinates, clamped */
        ptx_texture face = *t;
        face.normalized_coords = true;
        face.filter_linear = false;
        face.address[0] = face.address[1] = WH_TEX_CLAMP;
        float u, v;
        slice = slice * 6 + cube_face(f32_of(inner[0]), f32_of(inner[1]), f32_of(inner[2]), &u, &v);
        uint32_t uv[3] = { bits_of(u), bits_of(v), 0 };
        n = layer_taps(&face, false, uv, taps);
    } else {
        n = layer_taps(t, int_coords, inner, taps);
    }
    int64_t size = t->dims[0] * t->dims[1] * t->dims[2];
    for (int k = 0; k < n && slice; k++)
        if (taps[k].index >= 0)
            taps[k].index += slice * size;
    return n;
}

/* The taps of a fetch of level k alone, at that level's size, their
 * weights times w, placed among the levels' texels. */
void ptx_tex_level(const ptx_texture *t, int k, ptx_texture *level)
{
    *level = *t;
    level->levels = 1;
    for (int d = 0; d < 3; d++)
        level->dims[d] = level_dim(t, k, d);
}

static int level_taps(const ptx_texture *t, int k, float w, bool int_coords, const uint32_t coord[4],
                      ptx_tex_tap *taps)
{
    ptx_texture level;
    ptx_tex_level(t, k, &level);
    int n = ptx_tex_taps(&level, int_coords, coord, taps);
    for (int i = 0; i < n; i++) {
        if (taps[i].index >= 0)
            taps[i].index += t->level_base[k];
        taps[i].weight *= w;
    }
    return n;
}

int ptx_tex_taps_lod(const ptx_texture *t, bool int_coords, const uint32_t coord[4], float lod, ptx_tex_tap *taps)
{
    if (t->levels <= 1)
        return ptx_tex_taps(t, int_coords, coord, taps);
    float last = (float)(t->levels - 1);
    if (isnan(lod))
        lod = 0.0f;
    if (!t->mip_linear) {
        float k = floorf(lod + 0.5f);
        return level_taps(t, k < 0 ? 0 : k > last ? (int)last : (int)k, 1.0f, int_coords, coord, taps);
    }
    lod = lod < 0 ? 0 : lod > last ? last : lod;
    int k = (int)floorf(lod);
    float q = floorf((lod - (float)k) * 256.0f + 0.5f);
    if (q <= 0.0f || k + 1 > t->levels - 1)
        return level_taps(t, k, 1.0f, int_coords, coord, taps);
    int n = level_taps(t, k, (256.0f - q) / 256.0f, int_coords, coord, taps);
    return n + level_taps(t, k + 1, q / 256.0f, int_coords, coord, taps + n);
}

float ptx_tex_grad_lod(const ptx_texture *t, const float *ddx, const float *ddy)
{
    float lx = 0.0f, ly = 0.0f;
    for (int d = 0; d < t->ndims; d++) {
        float x = ddx[d] * (float)t->dims[d], y = ddy[d] * (float)t->dims[d];
        lx += x * x;
        ly += y * y;
    }
    return 0.5f * log2f(lx > ly ? lx : ly);
}

float ptx_tex_lod(const ptx_texture *t, const float *v, int n)
{
    return n == 0 ? 0.0f : n == 1 ? v[0] : ptx_tex_grad_lod(t, v, v + n / 2);
}

uint32_t ptx_tex_channel(const ptx_texture *t, const uint8_t *texel, int c)
{
    if (c >= t->channels)
        return 0;
    const uint8_t *p = texel + (size_t)c * (size_t)t->chan_bytes;
    uint32_t raw = 0;
    memcpy(&raw, p, (size_t)t->chan_bytes);
    if (t->chan_float || t->chan_bytes == 4)
        return raw;
    int bits = 8 * t->chan_bytes;
    if (t->read_normalized) {
        if (!t->chan_signed)
            return bits_of((float)raw / (float)((1u << bits) - 1));
        int32_t v = (int32_t)(raw << (32 - bits)) >> (32 - bits);
        if (v == -(1 << (bits - 1)))
            return bits_of(-1.0f);
        return bits_of((float)v / (float)((1 << (bits - 1)) - 1));
    }
    if (t->chan_signed)
        return (uint32_t)((int32_t)(raw << (32 - bits)) >> (32 - bits));
    return raw;
}

void ptx_tex_fetch(const ptx_texture *t, const uint8_t *texels, const ptx_tex_tap *taps, int n, uint32_t out[4])
{
    for (int c = 0; c < 4; c++) {
        if (n == 1) {
            out[c] = taps[0].index < 0 ? 0 : ptx_tex_channel(t, texels + taps[0].index * t->texel_bytes, c);
            continue;
        }
        float acc = 0.0f;
        for (int k = 0; k < n; k++) {
            float v = taps[k].index < 0 ? 0.0f : f32_of(ptx_tex_channel(t, texels + taps[k].index * t->texel_bytes, c));
            float term = taps[k].weight * v;
            acc = acc + term;
        }
        out[c] = bits_of(acc);
    }
}

void ptx_tex_gather_taps(const ptx_texture *t, const uint32_t coord[2], ptx_tex_tap taps[4])
{
    dim_taps dx, dy;
    taps_of_dim(t, 0, false, true, coord[0], &dx);
    taps_of_dim(t, 1, false, true, coord[1], &dy);
    static const int order[4][2] = { { 0, 1 }, { 1, 1 }, { 1, 0 }, { 0, 0 } };
    for (int k = 0; k < 4; k++) {
        int64_t x = dx.at[order[k][0]], y = dy.at[order[k][1]];
        taps[k].index = x < 0 || y < 0 ? -1 : y * t->dims[0] + x;
        taps[k].weight = 1.0f;
    }
}

void ptx_tex_gather(const ptx_texture *t, const uint8_t *texels, const ptx_tex_tap taps[4], int comp,
                    uint32_t out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = taps[k].index < 0 ? 0 : ptx_tex_channel(t, texels + taps[k].index * t->texel_bytes, comp);
}

uint32_t ptx_tex_query_value(const ptx_texture *t, int q)
{
    /* CUDA's cudaTextureAddressMode numbers, by wh_tex_address */
    static const uint32_t cuda_address[] = { [WH_TEX_CLAMP] = 1, [WH_TEX_BORDER] = 3, [WH_TEX_WRAP] = 0,
                                             [WH_TEX_MIRROR] = 2 };
    switch (q) {
    case PTX_TXQ_WIDTH: case PTX_TXQ_HEIGHT: case PTX_TXQ_DEPTH: {
        int d = q - PTX_TXQ_WIDTH;
        return d < t->ndims ? (uint32_t)t->dims[d] : 0;
    }
    case PTX_TXQ_NORMALIZED_COORDS: return t->normalized_coords;
    case PTX_TXQ_FILTER_MODE: return t->filter_linear;
    case PTX_TXQ_ADDR_MODE_0: case PTX_TXQ_ADDR_MODE_1: case PTX_TXQ_ADDR_MODE_2:
        return cuda_address[t->address[q - PTX_TXQ_ADDR_MODE_0]];
    default: return 0;
    }
}

/* Where an access of `bytes` at x bytes into its row, row y, slice z and
 * layer lands (ptx_surf_offset). */
static ptx_surf_place surf_place(const ptx_texture *t, int64_t layer, int64_t x, int64_t y, int64_t z, int bytes,
                                 bool clamp, uint64_t *off)
{
    int64_t align = bytes > 16 ? 16 : bytes;
    int64_t row = t->dims[0] * t->texel_bytes;
    /* a cubemap's faces are its layers (face + 6 layer) */
    int64_t layers = (t->layers ? t->layers : 1) * (t->cube ? 6 : 1);
    if (x % align)
        return PTX_SURF_MISALIGNED;
    bool out = x < 0 || x + bytes > row || y < 0 || y >= t->dims[1] || z < 0 || z >= t->dims[2] || layer >= layers;
    if (out && !clamp)
        return PTX_SURF_OUT;
    if (out) {
        int64_t last = (row - bytes) / align * align;
        x = x < 0 ? 0 : x > last ? last : x;
        y = y < 0 ? 0 : y >= t->dims[1] ? t->dims[1] - 1 : y;
        z = z < 0 ? 0 : z >= t->dims[2] ? t->dims[2] - 1 : z;
        layer = layer >= layers ? layers - 1 : layer;
        if (last < 0)
            return PTX_SURF_OUT;   /* a row narrower than the access */
    }
    *off = (uint64_t)(((layer * t->dims[2] + z) * t->dims[1] + y) * row + x);
    return PTX_SURF_IN;
}

/* An access's coordinates: a layered one's first is its layer (u32). */
static ptx_surf_place surf_coords(const ptx_texture *t, const uint32_t coord[4], int64_t x_scale, int bytes,
                                  bool clamp, uint64_t *off)
{
    int first = t->layers || t->cube ? 1 : 0;
    int64_t layer = first ? (int64_t)coord[0] : 0;
    int64_t x = (int64_t)(int32_t)coord[first] * x_scale, y = t->ndims > 1 ? (int32_t)coord[first + 1] : 0;
    int64_t z = t->ndims > 2 ? (int32_t)coord[first + 2] : 0;
    return surf_place(t, layer, x, y, z, bytes, clamp, off);
}

ptx_surf_place ptx_surf_offset(const ptx_texture *t, const uint32_t coord[4], int bytes, bool clamp, uint64_t *off)
{
    return surf_coords(t, coord, 1, bytes, clamp, off);
}

ptx_surf_place ptx_surf_sample_offset(const ptx_texture *t, const uint32_t coord[4], bool clamp, uint64_t *off)
{
    return surf_coords(t, coord, t->texel_bytes, t->texel_bytes, clamp, off);
}

/* Value v, an s32 or a u32, saturated to an integer channel of `bytes`. */
static uint32_t saturate_channel(uint32_t v, int bytes, bool is_signed)
{
    if (bytes >= 4)
        return v;
    int bits = 8 * bytes;
    if (!is_signed)
        return v > (1u << bits) - 1 ? (1u << bits) - 1 : v;
    int32_t s = (int32_t)v, hi = (int32_t)((1u << (bits - 1)) - 1), lo = -hi - 1;
    return (uint32_t)(s > hi ? hi : s < lo ? lo : s);
}

void ptx_surf_format_texel(const ptx_texture *t, const uint32_t *v, int n, uint8_t *texel)
{
    for (int c = 0; c < t->channels; c++) {
        uint32_t x = c < n ? v[c] : 0;
        if (!t->chan_float)
            x = saturate_channel(x, t->chan_bytes, t->chan_signed);
        /* little-endian: the channel's low bytes */
        for (int b = 0; b < t->chan_bytes; b++)
            texel[c * t->chan_bytes + b] = (uint8_t)(x >> (8 * b));
    }
}

ptx_type ptx_surf_reduce_type(const ptx_texture *t, ptx_type ty)
{
    if (ty != PTX_T_B32 || t->channels != 1 || t->chan_bytes != 4 || t->chan_float)
        return PTX_T_NONE;
    return t->chan_signed ? PTX_T_S32 : PTX_T_U32;
}
