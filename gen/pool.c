/*
 * pool.c — the atom pool: every X-thread input the search can place in a gene.
 */
#include "gen/gen.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool gen_pool_init(gen_pool *pool, const wh_spec *spec, int x, wh_error *err)
{
    memset(pool, 0, sizeof *pool);
    pool->spec = spec;
    pool->x = x;
    wh_launch l = wh_launch_threads((unsigned)x);
    pool->ref = wh_image_new(spec, &l, err);
    pool->offset = calloc(spec->nparams ? (size_t)spec->nparams : 1, sizeof *pool->offset);
    if (!pool->ref || !pool->offset) {
        if (pool->ref) wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        gen_pool_free(pool);
        return false;
    }
    for (int p = 0; p < spec->nparams; p++) {
        pool->offset[p] = pool->atom_bytes;
        if (spec->params[p].role == WH_ROLE_INPUT) pool->atom_bytes += pool->ref->bufs[p].bytes;
    }
    return true;
}

void gen_pool_free(gen_pool *pool)
{
    wh_image_free(pool->ref);
    free(pool->offset);
    free(pool->atoms);
    free(pool->data);
    memset(pool, 0, sizeof *pool);
}

static bool grow(gen_pool *pool, wh_error *err)
{
    if (pool->natoms < pool->cap) return true;
    int cap = pool->cap ? pool->cap * 2 : 64;
    gen_atom *a = realloc(pool->atoms, (size_t)cap * sizeof *a);
    if (a) pool->atoms = a;
    unsigned char *d = realloc(pool->data, (size_t)cap * (pool->atom_bytes ? pool->atom_bytes : 1));
    if (d) pool->data = d;
    if (!a || !d) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for %d atoms", cap);
        return false;
    }
    pool->cap = cap;
    return true;
}

int gen_pool_add(gen_pool *pool, const wh_image *img, gen_atom_origin origin, int path, bool valid,
                 wh_error *err)
{
    if (img->spec != pool->spec || wh_launch_threads_total(&img->launch) != (uint64_t)pool->x) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "atom of %llu threads added to a pool of X = %d",
                     (unsigned long long)wh_launch_threads_total(&img->launch), pool->x);
        return -1;
    }
    if (!grow(pool, err)) return -1;
    unsigned char *blob = pool->data + (size_t)pool->natoms * pool->atom_bytes;
    for (int p = 0; p < img->nbufs; p++)
        if (pool->spec->params[p].role == WH_ROLE_INPUT)
            memcpy(blob + pool->offset[p], img->bufs[p].data, img->bufs[p].bytes);
    pool->atoms[pool->natoms] = (gen_atom){ origin, path, valid };
    return pool->natoms++;
}

void gen_pool_set_full(gen_pool *pool, const wh_image *full)
{
    pool->full = full;
}

/* Field f of every element of the reference image's input buffer p, drawn
 * across the full launch's domain of that element (floats: the value;
 * integers: an offset from the atom's own low end, which is how gen_scale
 * moves values, so the scaled value is uniform over the full domain). */
static bool fill_field_full(gen_pool *pool, int p, int f, pcg32 *rng, wh_error *err)
{
    wh_buffer *b = &pool->ref->bufs[p];
    const wh_field *fd = &b->param->fields[f];
    uint64_t nfull = pool->full->bufs[p].count;
    bool by_index = wh_field_varies_by_index(fd);
    wh_bounds sb, db;
    for (uint64_t e = 0; e < b->count; e++) {
        if ((e == 0 || by_index) && (!wh_image_bounds(pool->ref, p, f, e, &sb, err) ||
                                     !wh_image_bounds(pool->full, p, f, e < nfull ? e : nfull - 1, &db, err)))
            return false;
        void *at = b->data + e * b->param->elem_size + fd->offset;
        if (db.is_float) {
            double v = db.flo + (db.fhi - db.flo) * pcg32_double(rng);
            wh_value_set_float(fd->type, at, fd->type == WH_F32 && (float)v > (float)db.fhi ? db.fhi : v);
        } else {
            uint64_t width = (uint64_t)db.hi - (uint64_t)db.lo;
            int64_t off = pcg32_range_i64(rng, 0, width > INT64_MAX ? INT64_MAX : (int64_t)width);
            wh_value_set_int(fd->type, at, (int64_t)((uint64_t)sb.lo + (uint64_t)off));
        }
    }
    return true;
}

int gen_pool_add_random(gen_pool *pool, pcg32 *rng, wh_error *err)
{
    if (!pool->full) {
        if (!wh_image_fill_random(pool->ref, rng, err)) return -1;
    } else {
        for (int p = 0; p < pool->ref->nbufs; p++)
            for (int f = 0; pool->spec->params[p].role == WH_ROLE_INPUT && f < pool->spec->params[p].nfields; f++)
                if (!fill_field_full(pool, p, f, rng, err)) return -1;
    }
    return gen_pool_add(pool, pool->ref, GEN_ATOM_RANDOM, -1, true, err);
}

const unsigned char *gen_pool_atom_data(const gen_pool *pool, int a, int p)
{
    if (pool->spec->params[p].role != WH_ROLE_INPUT) return NULL;
    return pool->data + (size_t)a * pool->atom_bytes + pool->offset[p];
}

void gen_pool_atom_to_image(const gen_pool *pool, int a, wh_image *img)
{
    for (int p = 0; p < img->nbufs; p++)
        if (pool->spec->params[p].role == WH_ROLE_INPUT)
            memcpy(img->bufs[p].data, gen_pool_atom_data(pool, a, p), img->bufs[p].bytes);
}
