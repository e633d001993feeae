/*
 * image_neighbors.c — neighbour lists ("structure": "neighbors", core/
 * spec.h): thread t's elements name other threads, each once, never t
 * (the projection and the check that image_structure.c runs for such a
 * buffer; "nearest_of" lists are derived in image_nearest.c and come here
 * only for their elements past the lists).
 */
#include "core/image.h"
#include "core/image_internal.h"

#include <stdlib.h>

/* "neighbors": a thread's elements name distinct threads, none of them
 * itself (a neighbour list: the nearest atoms, each once, never the atom
 * itself).  Where the range holds fewer other values than the list is
 * long (a launch of fewer threads than neighbours, as the symbolic
 * stage's few threads), the list may repeat a value but still never names
 * its thread.  An owner's list is worked on in a small sorted set of the
 * values taken; elements past the owned ones (a count above per_thread x
 * threads) are only kept off their owner's index. */
typedef struct {
    int64_t *taken;      /* sorted: the owner's own index and the values kept */
    int ntaken;
    uint64_t *elem;      /* the owner's elements, in order of j */
    bool *moves;         /* elem[k] names a taken value: it must move */
    int nelem;
} neighbour_list;

static bool is_taken(const neighbour_list *l, int64_t v)
{
    return bsearch(&v, l->taken, (size_t)l->ntaken, sizeof *l->taken, wh_cmp_i64) != NULL;
}

static void take(neighbour_list *l, int64_t v)
{
    int at = l->ntaken;
    while (at > 0 && l->taken[at - 1] > v) {
        l->taken[at] = l->taken[at - 1];
        at--;
    }
    l->taken[at] = v;
    l->ntaken++;
}

/* The free value nearest above v, else the nearest below (v clamped to
 * the range first); false when the range has none left. */
static bool nearest_free(const neighbour_list *l, int64_t v, const wh_bounds *bd, int64_t *out)
{
    v = v < bd->lo ? bd->lo : v > bd->hi ? bd->hi : v;
    for (int64_t u = v; u <= bd->hi; u++)
        if (!is_taken(l, u)) return *out = u, true;
    for (int64_t u = v - 1; u >= bd->lo; u--)
        if (!is_taken(l, u)) return *out = u, true;
    return false;
}

/* Thread t's elements of buffer p (those below its count). */
static void owned_list(const wh_image *img, int p, uint64_t t, neighbour_list *l)
{
    const wh_param *par = img->bufs[p].param;
    l->nelem = 0;
    for (uint64_t j = 0; j < (uint64_t)par->per_thread; j++) {
        uint64_t e = wh_owned_elem(par, &img->launch, t, j);
        if (e < img->bufs[p].count) l->elem[l->nelem++] = e;
    }
}

/* The range holds as many values other than thread t as its list is long. */
static bool room_for_distinct(const neighbour_list *l, uint64_t t, const wh_bounds *bd)
{
    uint64_t values = (uint64_t)bd->hi - (uint64_t)bd->lo + 1;
    if ((int64_t)t >= bd->lo && (int64_t)t <= bd->hi) values--;
    return values >= (uint64_t)l->nelem;
}

/* Marks the elements of thread t's list that name itself or (when the
 * range has room for distinct values) repeat an earlier one; the values
 * kept go to the taken set.  Whether the list is to be distinct. */
static bool mark_repeats(const wh_image *img, int p, int f, uint64_t t, const wh_bounds *bd, neighbour_list *l)
{
    bool distinct = room_for_distinct(l, t, bd);
    l->ntaken = 0;
    take(l, (int64_t)t);
    for (int k = 0; k < l->nelem; k++) {
        int64_t v = wh_value_get_int(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, l->elem[k]));
        l->moves[k] = is_taken(l, v);
        if (!l->moves[k] && distinct) take(l, v);
    }
    return distinct;
}

static bool neighbour_list_new(const wh_param *par, neighbour_list *l)
{
    int k = par->per_thread;
    l->taken = malloc(((size_t)k + 1) * sizeof *l->taken);
    l->elem = malloc((size_t)k * sizeof *l->elem);
    l->moves = malloc((size_t)k * sizeof *l->moves);
    return l->taken && l->elem && l->moves;
}

static void neighbour_list_free(neighbour_list *l)
{
    free(l->taken);
    free(l->elem);
    free(l->moves);
}

/* Element e lies past every thread's list (a count above per_thread x
 * threads); *own is the thread it would belong to, *j its place there. */
static bool unowned(const wh_image *img, int p, uint64_t e, uint64_t *own, uint64_t *j)
{
    const wh_param *par = img->bufs[p].param;
    *own = wh_elem_owner(par, &img->launch, e, j);
    return *own >= wh_launch_threads_total(&img->launch) || *j >= (uint64_t)par->per_thread;
}

/* Elements past the lists: one that names its owner moves to the next
 * index, or the one below at the range's top. */
bool wh_image_restructure_unowned(wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err)
{
    for (uint64_t e = 0, own, j; e < img->bufs[p].count; e++) {
        unsigned char *at = wh_image_value_at(img, p, f, e);
        if (!unowned(img, p, e, &own, &j) || wh_value_get_int(wh_image_type_of(img, p, f), at) != (int64_t)own) continue;
        if (bd->lo == bd->hi)
            return wh_structure_error(img, p, f, err, "element %llu's range holds one value, %lld, its owner "
                                   "thread's own index", (unsigned long long)e, (long long)own);
        wh_value_set_int(wh_image_type_of(img, p, f), at, (int64_t)own < bd->hi ? (int64_t)own + 1 : (int64_t)own - 1);
    }
    return true;
}

/* A repeated or own index moves to the nearest free one above it, else
 * below (an own index at the range's top: the one below), so a list that
 * is already one is left as it is. */
bool wh_image_restructure_neighbors(wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err)
{
    neighbour_list l;
    bool ok = neighbour_list_new(img->bufs[p].param, &l) || wh_image_oom(err);
    uint64_t threads = wh_launch_threads_total(&img->launch);
    for (uint64_t t = 0; ok && t < threads; t++) {
        owned_list(img, p, t, &l);
        bool distinct = mark_repeats(img, p, f, t, bd, &l);
        for (int k = 0; ok && k < l.nelem; k++) {
            if (!l.moves[k]) continue;
            unsigned char *at = wh_image_value_at(img, p, f, l.elem[k]);
            int64_t v;
            if (!nearest_free(&l, wh_value_get_int(wh_image_type_of(img, p, f), at), bd, &v)) {
                ok = wh_structure_error(img, p, f, err, "element %llu's range holds one value, %llu, its owner "
                                     "thread's own index", (unsigned long long)l.elem[k], (unsigned long long)t);
                break;
            }
            wh_value_set_int(wh_image_type_of(img, p, f), at, v);
            if (distinct) take(&l, v);
        }
    }
    neighbour_list_free(&l);
    return ok && wh_image_restructure_unowned(img, p, f, bd, err);
}

static bool own_index_error(const wh_image *img, int p, int f, wh_error *err, uint64_t e, uint64_t own, uint64_t j)
{
    return wh_structure_error(img, p, f, err, "element %llu (thread %llu's element %llu) names its own thread, %llu",
                           (unsigned long long)e, (unsigned long long)own, (unsigned long long)j,
                           (unsigned long long)own);
}

/* The first element that names its owner, or repeats an earlier element
 * of its owner's list, as an error. */
bool wh_image_check_neighbors(const wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err)
{
    neighbour_list l;
    if (!neighbour_list_new(img->bufs[p].param, &l)) {
        neighbour_list_free(&l);
        return wh_image_oom(err);
    }
    bool ok = true;
    uint64_t threads = wh_launch_threads_total(&img->launch);
    for (uint64_t t = 0; ok && t < threads; t++) {
        owned_list(img, p, t, &l);
        mark_repeats(img, p, f, t, bd, &l);
        for (int k = 0; ok && k < l.nelem; k++) {
            if (!l.moves[k]) continue;
            int64_t v = wh_value_get_int(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, l.elem[k]));
            ok = v == (int64_t)t ? own_index_error(img, p, f, err, l.elem[k], t, (uint64_t)k)
                                 : wh_structure_error(img, p, f, err, "element %llu (thread %llu's element %d) names "
                                                   "thread %lld, as an earlier element of the thread does",
                                                   (unsigned long long)l.elem[k], (unsigned long long)t, k,
                                                   (long long)v);
        }
    }
    neighbour_list_free(&l);
    for (uint64_t e = 0, own, j; ok && e < img->bufs[p].count; e++)
        if (unowned(img, p, e, &own, &j) && wh_value_get_int(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, e)) == (int64_t)own)
            ok = own_index_error(img, p, f, err, e, own, j);
    return ok;
}
