/*
 * tensor_map.c — what a cp.async.bulk.tensor copy moves, one definition
 * for the emulator and the symbolic executor: a tensor map's description
 * at a launch (the checks cuTensorMapEncodeTiled makes), the elements of
 * a box at given coordinates, where each lands in shared memory, and what
 * an element outside the tensor reads.
 *
 * The rules follow the CUDA driver API's cuTensorMapEncodeTiled and the
 * PTX ISA's tensor copies (tiled mode): coordinates are signed element
 * indices, one per dimension; a box is box[0] x ... elements, dimension 0
 * fastest, packed in shared memory; elements outside the tensor read 0 (or
 * a NaN with the NaN fill) and are not written by a store; the copy
 * completes the whole box's bytes on its mbarrier, out-of-bounds elements
 * included.  The swizzled layouts XOR the 16-byte chunk index within a
 * 32-, 64- or 128-byte span with the span's row (shared address bits 7
 * and up), decided here from the layouts CUTLASS documents; not yet
 * compared with a GPU.
 */
#include "ptx/internal.h"

#include <string.h>

static bool refuse(const wh_spec *spec, wh_error *err, const char *name, const char *fmt, long long a,
                   long long b)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, a, b);
    wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "tensor map '%s': %s (cuTensorMapEncodeTiled refuses it)", name,
                 msg);
    return false;
}

bool ptx_tmap_make(const wh_spec *spec, int p, const int64_t *vars, ptx_tensor_map *t, wh_error *err)
{
    const wh_param *pp = &spec->params[p];
    const wh_tensor_map *d = pp->tmap;
    memset(t, 0, sizeof *t);
    if (!d) {
        wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "parameter '%s' is not a tensor map", pp->name);
        return false;
    }
    t->rank = d->rank;
    t->elem_bytes = (int)pp->elem_size;
    t->type = (int)pp->type;
    t->swizzle = (int)d->swizzle;
    t->oob_nan = d->oob_nan;
    int64_t stride = t->elem_bytes;
    for (int k = 0; k < WH_TMAP_MAX_RANK; k++) {
        t->dims[k] = 1;
        t->box[k] = k < d->rank ? d->box[k] : 1;
        if (k >= d->rank)
            continue;
        if (!wh_spec_eval(spec, d->dims[k], vars, "a tensor map dimension", &t->dims[k], err))
            return false;
        if (t->dims[k] < 1 || t->dims[k] > (1ll << 32))
            return refuse(spec, err, pp->name, "dimension %lld is %lld (expected 1..2^32)", k, t->dims[k]);
        if (k > 0 && stride % 16)
            return refuse(spec, err, pp->name, "the stride of dimension %lld is %lld bytes, no multiple of 16 (pad "
                          "dimension 0)", k, stride);
        if (k > 0 && stride >= (1ll << 40))
            return refuse(spec, err, pp->name, "the stride of dimension %lld is %lld bytes (at most 2^40 - 1)", k,
                          stride);
        stride *= t->dims[k];
    }
    return true;
}

uint32_t ptx_tmap_box_elems(const ptx_tensor_map *t)
{
    uint32_t n = 1;
    for (int k = 0; k < WH_TMAP_MAX_RANK; k++)
        n *= (uint32_t)t->box[k];
    return n;
}

uint32_t ptx_tmap_box_bytes(const ptx_tensor_map *t)
{
    return ptx_tmap_box_elems(t) * (uint32_t)t->elem_bytes;
}

int64_t ptx_tmap_elem(const ptx_tensor_map *t, const int32_t *c, uint32_t k)
{
    int64_t index = 0, scale = 1;
    for (int d = 0; d < t->rank; d++) {
        int64_t at = (int64_t)c[d] + (int64_t)(k % (uint32_t)t->box[d]);
        k /= (uint32_t)t->box[d];
        if (at < 0 || at >= t->dims[d])
            return -1;
        index += at * scale;
        scale *= t->dims[d];
    }
    return index;
}

uint64_t ptx_tmap_smem(const ptx_tensor_map *t, uint64_t base, uint32_t k)
{
    uint64_t a = base + (uint64_t)k * (uint64_t)t->elem_bytes;
    if (t->swizzle == WH_SWIZZLE_NONE)
        return a;
    uint64_t mask = (1ull << t->swizzle) - 1;
    return a ^ (((a >> 7) & mask) << 4);
}

void ptx_tmap_fill(const ptx_tensor_map *t, uint8_t *out)
{
    memset(out, 0, (size_t)t->elem_bytes);
    if (!t->oob_nan)
        return;
    /* the default quiet NaN of the element's width */
    if (t->elem_bytes == 4) {
        uint32_t v = 0x7fffffffu;
        memcpy(out, &v, 4);
    } else if (t->elem_bytes == 8) {
        uint64_t v = 0x7fffffffffffffffull;
        memcpy(out, &v, 8);
    }
}
