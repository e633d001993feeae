/*
 * extend.c — lane extension: one thread's input, its last branches flipped.
 *
 * Lane amplification (ga/hunt_lanes.c) gives every thread the input of the
 * busiest thread the search has measured; what it cannot do is make that
 * thread busier.  Here the concolic extension (symexec's sx_extend) takes
 * the thread atom (every thread holding that input), follows its path and
 * asks the solver for the neighbour input that takes the other side of
 * one of its last branches, such as one more trip of the loop that made
 * the thread busy; the answer,
 * spread to every thread of a new atom, is what the amplified child gets.
 */
#include "gen/internal.h"
#include "symexec/symexec.h"

#include <stdlib.h>
#include <string.h>

/* Thread t's elements of img's buffer p into every thread's of atom a's
 * bytes dst (elements no thread owns as img has them).  Under an owner by
 * rows, or through an index, the atom's own lengths and index place them:
 * spread_thread has already made them t's. */
static void spread_elems(gen_pool *pool, int a, const wh_image *img, int p, uint64_t t, unsigned char *dst)
{
    const wh_buffer *b = &img->bufs[p];
    const wh_param *par = b->param;
    size_t es = par->elem_size;
    int nl = gen_rows_lengths(img->spec, p);
    const unsigned char *index = par->owner_index ? gen_pool_atom_data(pool, a, par->owner_index - 1) : NULL;
    uint64_t *start = nl < 0 ? NULL : malloc(((size_t)gen_atom_nrows(pool->ref, p) + 1) * sizeof *start);
    wh_error err;
    wh_error_clear(&err);
    memcpy(dst, b->data, b->bytes);
    if (nl >= 0 && (!start || !gen_atom_rows(pool->ref, p, gen_pool_atom_data(pool, a, nl), start, &err))) {
        free(start);   /* the elements stay as img has them */
        return;
    }
    for (uint64_t u = 0; u < (uint64_t)pool->x; u++)
        for (uint64_t j = 0; j < (uint64_t)par->per_thread; j++) {
            uint64_t src = wh_image_owned_elem(img, p, t, j);
            uint64_t to = start ? gen_atom_row_elem(pool->ref, p, start, index, u, j)
                          : par->owner == WH_OWNER_INDEX ? gen_atom_indexed(pool->ref, p, index, u, j)
                          : wh_owned_elem(par, &img->launch, u, j);
            if (src < b->count && to < b->count) memcpy(dst + to * es, b->data + src * es, es);
        }
    free(start);
}

/* img's per-thread inputs into atom a (an image of the pool's X threads),
 * thread t's elements in every thread; indices first, then what they own,
 * then buffers owned by rows, placed by the lengths spread before them. */
static void spread_thread(gen_pool *pool, int a, const wh_image *img, uint64_t t)
{
    for (int pass = 0; pass < 3; pass++)
        for (int p = 0; p < img->nbufs; p++) {
            const wh_param *par = &img->spec->params[p];
            if (par->role == WH_ROLE_INPUT && par->per_thread && gen_owner_pass(par) == pass)
                spread_elems(pool, a, img, p, t, (unsigned char *)gen_pool_atom_data(pool, a, p));
        }
}

struct gen_extender {
    ptx_module *mod;
};

gen_extender *gen_extender_new(const wh_spec *spec, wh_error *err)
{
    char ptx_path[1024];
    if (!wh_spec_ptx_path(spec, ptx_path, sizeof ptx_path, err)) return NULL;
    gen_extender *x = calloc(1, sizeof *x);
    if (!x) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    if (!(x->mod = ptx_parse_file(ptx_path, err))) {
        free(x);
        return NULL;
    }
    return x;
}

void gen_extender_free(gen_extender *x)
{
    if (!x) return;
    ptx_module_free(x->mod);
    free(x);
}

int gen_extend_atom(gen_extender *x, gen_pool *pool, int a, double time_s, wh_error *err)
{
    wh_image *img = wh_image_clone(pool->ref, err);
    if (!img) return -1;
    gen_pool_atom_to_image(pool, a, img);
    /* an atom's row pointer is not kept (the scaler rebuilds the full one):
     * the run reads it, so it is made the running sum of the atom's lengths */
    if (!gen_rebuild_rows(img, err)) {
        wh_image_free(img);
        return -1;
    }
    sx_extend_options o;
    sx_extend_options_default(&o);
    o.time_s = time_s;
    o.query_ms = (unsigned)(time_s * 1000);   /* the latest decision first: it may take it all */
    wh_image *out = NULL;
    int thread = -1;
    int r = sx_extend(pool->spec, x->mod, img, &o, &out, &thread, err);
    wh_image_free(img);
    if (r <= 0) return r < 0 ? -1 : -2;
    int b = gen_pool_reserve(pool, GEN_ATOM_SEED, -1, true, false, err);
    if (b >= 0) spread_thread(pool, b, out, (uint64_t)thread);
    wh_image_free(out);
    return b;
}
