/*
 * pool.c — the atom pool: every X-thread input the search can place in a gene.
 */
#include "gen/gen.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Fill pool->draw_bounds for the current domain source (see gen.h). */
static void cache_draw_bounds(gen_pool *pool)
{
    const wh_image *full = pool->full ? pool->full : pool->ref;
    for (int p = 0; p < pool->spec->nparams; p++) {
        const wh_param *par = &pool->spec->params[p];
        for (int f = 0; par->role == WH_ROLE_INPUT && f < par->nfields; f++) {
            int k = pool->field_base[p] + f;
            wh_error err;
            pool->draw_cached[k] = !wh_field_varies_by_index(&par->fields[f]) && pool->ref->bufs[p].count > 0 &&
                                   full->bufs[p].count > 0 &&
                                   wh_image_bounds(pool->ref, p, f, 0, &pool->draw_bounds[2 * k], &err) &&
                                   wh_image_bounds(full, p, f, 0, &pool->draw_bounds[2 * k + 1], &err);
        }
    }
}

bool gen_pool_init(gen_pool *pool, const wh_spec *spec, int x, wh_error *err)
{
    memset(pool, 0, sizeof *pool);
    pool->spec = spec;
    pool->x = x;
    wh_launch l = wh_launch_threads((unsigned)x);
    pool->ref = wh_image_new(spec, &l, err);
    pool->offset = calloc(spec->nparams ? (size_t)spec->nparams : 1, sizeof *pool->offset);
    pool->field_base = calloc(spec->nparams ? (size_t)spec->nparams : 1, sizeof *pool->field_base);
    int nfields = 0;
    for (int p = 0; p < spec->nparams; p++) nfields += spec->params[p].nfields;
    pool->draw_bounds = calloc(2 * (size_t)nfields + 2, sizeof *pool->draw_bounds);
    pool->draw_cached = calloc((size_t)nfields + 1, sizeof *pool->draw_cached);
    if (!pool->ref || !pool->offset || !pool->field_base || !pool->draw_bounds || !pool->draw_cached) {
        if (pool->ref) wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        gen_pool_free(pool);
        return false;
    }
    for (int p = 0; p < spec->nparams; p++) {
        if (spec->params[p].role != WH_ROLE_INPUT) continue;
        size_t *part = spec->params[p].per_thread ? &pool->thread_bytes : &pool->shared_bytes;
        pool->offset[p] = *part;
        *part += pool->ref->bufs[p].bytes;
    }
    for (int p = 1; p < spec->nparams; p++) pool->field_base[p] = pool->field_base[p - 1] + spec->params[p - 1].nfields;
    cache_draw_bounds(pool);
    return true;
}

void gen_pool_free(gen_pool *pool)
{
    wh_image_free(pool->ref);
    free(pool->offset);
    free(pool->field_base);
    free(pool->draw_bounds);
    free(pool->draw_cached);
    free(pool->atoms);
    free(pool->data);
    free(pool->sdata);
    memset(pool, 0, sizeof *pool);
}

static bool grow(gen_pool *pool, wh_error *err)
{
    if (pool->natoms < pool->cap) return true;
    int cap = pool->cap ? pool->cap * 2 : 64;
    gen_atom *a = realloc(pool->atoms, (size_t)cap * sizeof *a);
    if (a) pool->atoms = a;
    unsigned char *d = realloc(pool->data, (size_t)cap * (pool->thread_bytes ? pool->thread_bytes : 1));
    if (d) pool->data = d;
    if (!a || !d) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for %d atoms", cap);
        return false;
    }
    pool->cap = cap;
    return true;
}

/* A new shared blob; its index, or -1. */
static int new_shared(gen_pool *pool, wh_error *err)
{
    if (pool->nshared == pool->scap) {
        int cap = pool->scap ? pool->scap * 2 : 16;
        unsigned char *d = realloc(pool->sdata, (size_t)cap * pool->shared_bytes);
        if (!d) {
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for %d shared inputs of %zu bytes", cap,
                         pool->shared_bytes);
            return -1;
        }
        pool->sdata = d;
        pool->scap = cap;
    }
    return pool->nshared++;
}

int gen_pool_reserve(gen_pool *pool, gen_atom_origin origin, int path, bool valid, bool with_shared,
                     wh_error *err)
{
    if (!grow(pool, err)) return -1;
    int shared = with_shared && pool->shared_bytes ? new_shared(pool, err) : -1;
    if (with_shared && pool->shared_bytes && shared < 0) return -1;
    pool->atoms[pool->natoms] = (gen_atom){ origin, path, valid, shared };
    return pool->natoms++;
}

/* Adds img's per-thread inputs, and its shared ones when with_shared. */
static int add_parts(gen_pool *pool, const wh_image *img, gen_atom_origin origin, int path, bool valid,
                     bool with_shared, wh_error *err)
{
    int id = gen_pool_reserve(pool, origin, path, valid, with_shared, err);
    for (int p = 0; id >= 0 && p < img->nbufs; p++) {
        unsigned char *at = (unsigned char *)gen_pool_atom_data(pool, id, p);
        if (at) memcpy(at, img->bufs[p].data, img->bufs[p].bytes);
    }
    return id;
}

int gen_pool_add(gen_pool *pool, const wh_image *img, gen_atom_origin origin, int path, bool valid,
                 wh_error *err)
{
    if (img->spec != pool->spec || wh_launch_threads_total(&img->launch) != (uint64_t)pool->x) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "atom of %llu threads added to a pool of X = %d",
                     (unsigned long long)wh_launch_threads_total(&img->launch), pool->x);
        return -1;
    }
    return add_parts(pool, img, origin, path, valid, true, err);
}

void gen_pool_set_full(gen_pool *pool, const wh_image *full)
{
    pool->full = full;
    cache_draw_bounds(pool);
}

/* Field f of every element of the reference image's input buffer p, drawn
 * across the full launch's domain of that element (floats: the value;
 * integers: an offset from the atom's own low end, which is how gen_scale
 * moves values, so the scaled value is uniform over the full domain). */
static bool fill_field_full(const gen_pool *pool, int p, int f, pcg32 *rng, unsigned char *dst, wh_error *err)
{
    const wh_buffer *b = &pool->ref->bufs[p];
    const wh_field *fd = &b->param->fields[f];
    const wh_image *full = pool->full ? pool->full : pool->ref;
    uint64_t nfull = full->bufs[p].count;
    bool by_index = wh_field_varies_by_index(fd);
    int k = pool->field_base[p] + f;
    bool cached = pool->draw_cached[k];
    wh_bounds sb = pool->draw_bounds[2 * k], db = pool->draw_bounds[2 * k + 1];
    for (uint64_t e = 0; e < b->count; e++) {
        if (!cached && (e == 0 || by_index) && (!wh_image_bounds(pool->ref, p, f, e, &sb, err) ||
                                     !wh_image_bounds(full, p, f, e < nfull ? e : nfull - 1, &db, err)))
            return false;
        void *at = dst + e * b->param->elem_size + fd->offset;
        if (db.is_float) {
            double v = wh_bounds_lerp(&db, pcg32_double(rng));
            wh_value_set_float(fd->type, at, fd->type == WH_F32 && (float)v > (float)db.fhi ? db.fhi : v);
        } else {
            uint64_t steps = wh_bounds_steps(&db);
            int64_t off = pcg32_range_i64(rng, 0, steps > INT64_MAX ? INT64_MAX : (int64_t)steps) * db.step;
            wh_value_set_int(fd->type, at, (int64_t)((uint64_t)sb.lo + (uint64_t)off));
        }
    }
    return true;
}

/* Every field of input buffer p drawn as fill_field_full does; a hash
 * table's keys then a random table, as wh_image_fill_random makes one
 * (element by element, its keys would fill every slot, and the projection
 * would leave one key in two, each at its home: no probe walk at all). */
static bool fill_param_full(const gen_pool *pool, int p, pcg32 *rng, unsigned char *dst, wh_error *err)
{
    for (int f = 0; f < pool->spec->params[p].nfields; f++)
        if (!fill_field_full(pool, p, f, rng, dst, err)) return false;
    return wh_image_fill_hash_table_at(pool->ref, p, dst, rng, err);
}

int gen_pool_add_random(gen_pool *pool, pcg32 *rng, bool with_shared, wh_error *err)
{
    if (!pool->full) {
        if (!wh_image_fill_random(pool->ref, rng, err)) return -1;
    } else {
        for (int p = 0; p < pool->ref->nbufs; p++) {
            const wh_param *par = &pool->spec->params[p];
            if (par->role != WH_ROLE_INPUT || (!par->per_thread && !with_shared)) continue;
            if (!fill_param_full(pool, p, rng, pool->ref->bufs[p].data, err)) return -1;
        }
    }
    return add_parts(pool, pool->ref, GEN_ATOM_RANDOM, -1, true, with_shared, err);
}

int gen_seeded_allele(uint32_t seed)
{
    return -1 - (int)(seed & 0x7fffffff);
}

bool gen_pool_draw_seeded(const gen_pool *pool, int allele, int p, unsigned char *dst, wh_error *err)
{
    pcg32 rng;
    pcg32_seed(&rng, (uint64_t)(-1 - (int64_t)allele), 0x7365656400000000ull + (uint64_t)p);
    return fill_param_full(pool, p, &rng, dst, err);
}

const unsigned char *gen_pool_atom_data(const gen_pool *pool, int a, int p)
{
    const wh_param *par = &pool->spec->params[p];
    if (par->role != WH_ROLE_INPUT) return NULL;
    if (par->per_thread) return pool->data + (size_t)a * pool->thread_bytes + pool->offset[p];
    int sh = pool->atoms[a].shared;
    return sh < 0 ? NULL : pool->sdata + (size_t)sh * pool->shared_bytes + pool->offset[p];
}

void gen_pool_drop_last(gen_pool *pool)
{
    if (pool->natoms == 0) return;
    int sh = pool->atoms[--pool->natoms].shared;
    if (sh >= 0 && sh == pool->nshared - 1) pool->nshared--;
}

bool gen_pool_same(const gen_pool *pool, int a, int b)
{
    const gen_atom *x = &pool->atoms[a], *y = &pool->atoms[b];
    if (memcmp(pool->data + (size_t)a * pool->thread_bytes, pool->data + (size_t)b * pool->thread_bytes,
               pool->thread_bytes))
        return false;
    if ((x->shared < 0) != (y->shared < 0)) return false;
    return x->shared < 0 || !memcmp(pool->sdata + (size_t)x->shared * pool->shared_bytes,
                                    pool->sdata + (size_t)y->shared * pool->shared_bytes, pool->shared_bytes);
}

void gen_pool_atom_to_image(const gen_pool *pool, int a, wh_image *img)
{
    for (int p = 0; p < img->nbufs; p++) {
        if (pool->spec->params[p].role != WH_ROLE_INPUT) continue;
        const unsigned char *src = gen_pool_atom_data(pool, a, p);
        if (src) memcpy(img->bufs[p].data, src, img->bufs[p].bytes);
        else {
            wh_error err;
            wh_image_fill_low(img, p, &err); /* the domains were checked when the image was made */
        }
    }
}
