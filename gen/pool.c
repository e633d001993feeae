/*
 * pool.c — the atom pool: every X-thread input the search can place in a gene.
 */
#include "gen/gen.h"

#include <stdlib.h>

void gen_pool_init(gen_pool *pool, const wh_spec *spec, int x)
{
    pool->spec = spec;
    pool->x = x;
    pool->atoms = NULL;
    pool->natoms = pool->cap = 0;
}

void gen_pool_free(gen_pool *pool)
{
    for (int i = 0; i < pool->natoms; i++) wh_image_free(pool->atoms[i].img);
    free(pool->atoms);
    pool->atoms = NULL;
    pool->natoms = pool->cap = 0;
}

int gen_pool_add(gen_pool *pool, wh_image *img, gen_atom_origin origin, int path, bool valid, wh_error *err)
{
    if (wh_launch_threads_total(&img->launch) != (uint64_t)pool->x) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "atom of %llu threads added to a pool of X = %d",
                     (unsigned long long)wh_launch_threads_total(&img->launch), pool->x);
        wh_image_free(img);
        return -1;
    }
    if (pool->natoms == pool->cap) {
        int cap = pool->cap ? pool->cap * 2 : 16;
        gen_atom *a = realloc(pool->atoms, (size_t)cap * sizeof *a);
        if (!a) {
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
            wh_image_free(img);
            return -1;
        }
        pool->atoms = a;
        pool->cap = cap;
    }
    pool->atoms[pool->natoms] = (gen_atom){ origin, path, valid, img };
    return pool->natoms++;
}

int gen_pool_add_random(gen_pool *pool, pcg32 *rng, wh_error *err)
{
    wh_launch l = wh_launch_threads((unsigned)pool->x);
    wh_image *img = wh_image_new(pool->spec, &l, err);
    if (!img) return -1;
    if (!wh_image_fill_random(img, rng, err)) {
        wh_image_free(img);
        return -1;
    }
    return gen_pool_add(pool, img, GEN_ATOM_RANDOM, -1, true, err);
}
