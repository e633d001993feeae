/*
 * image_nearest.c — neighbour lists derived from positions ("neighbors"
 * with "nearest_of", core/spec.h): thread t's elements of the list name
 * the per_thread elements of the positions buffer nearest to element t,
 * nearest first, as SHOC's MD builds its list on the host (a brute-force
 * sort of the distances; ties here by index).  The search varies the
 * positions; the list follows them, so no input holds a list that its
 * positions could not give.
 *
 * The distance is Euclidean over every field of a position (one value:
 * one dimension; a field whose range is one value adds nothing), in
 * double.  The candidates are the positions whose index lies in the
 * list's range, the thread's own excluded.  Where the range holds fewer
 * other positions than the list is long (the symbolic stage's few
 * threads), the nearest ones repeat in order, as "neighbors" allows there.
 *
 * The nearest ones come from a k-d tree over (coordinate, index) keys, so
 * that equal positions (a cluster the search fills with one value) still
 * split by index, and a subtree whose nearest possible point is farther
 * than the k-th found, or as far but of higher indices, is skipped: a
 * query costs about k log n even when every position is the same.
 */
#include "core/image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_POINTS 8

typedef struct {
    const double *xyz;      /* point i's coordinates at i * dims */
    int dims;
    uint64_t n;             /* points: candidates first .. first + n - 1 */
    uint64_t first;
    uint64_t *perm;         /* the tree's order of the points (offsets from first) */
    unsigned char *dim;     /* internal node at perm position m: its split dimension */
    uint64_t *min_index;    /* node at m (its range's middle): the least point index of its range */
} kd_tree;

typedef struct {
    double d2;
    uint64_t index;
} found;

typedef struct {
    found *heap;            /* a max-heap by (d2, index): heap[0] the farthest kept */
    int n, k;
    uint64_t self;
    const double *q;        /* the query point */
} query;

static double coord(const kd_tree *t, uint64_t p, int d)
{
    return t->xyz[p * (uint64_t)t->dims + (uint64_t)d];
}

/* Squared distance from point p of xyz (dims coordinates each) to q; NaN
 * (inf - inf) as +inf. */
static double dist2(const double *xyz, int dims, uint64_t p, const double *q)
{
    double s = 0;
    for (int d = 0; d < dims; d++) {
        double x = xyz[p * (uint64_t)dims + (uint64_t)d] - q[d];
        s += x * x;
    }
    return isnan(s) ? INFINITY : s;
}

/* Point a before point b along dimension d: by coordinate, then index. */
static bool key_less(const kd_tree *t, uint64_t a, uint64_t b, int d)
{
    double x = coord(t, a, d), y = coord(t, b, d);
    return x < y || (x == y && a < b);
}

/* perm[lo..hi) partitioned so that perm[m] is the one of its key rank. */
static void select_rank(kd_tree *t, uint64_t lo, uint64_t hi, uint64_t m, int d)
{
    while (hi - lo > 1) {
        uint64_t pivot = t->perm[lo + (hi - lo) / 2], i = lo, j = hi - 1;
        while (i <= j) {
            while (key_less(t, t->perm[i], pivot, d)) i++;
            while (key_less(t, pivot, t->perm[j], d)) j--;
            if (i <= j) {
                uint64_t x = t->perm[i];
                t->perm[i] = t->perm[j];
                t->perm[j] = x;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (m <= j) hi = j + 1;
        else if (m >= i) lo = i;
        else return;
    }
}

/* The dimension along which perm[lo..hi)'s points spread most. */
static int widest(const kd_tree *t, uint64_t lo, uint64_t hi)
{
    int best = 0;
    double spread = -1;
    for (int d = 0; d < t->dims; d++) {
        double a = INFINITY, b = -INFINITY;
        for (uint64_t i = lo; i < hi; i++) {
            double x = coord(t, t->perm[i], d);
            a = x < a ? x : a;
            b = x > b ? x : b;
        }
        if (b - a > spread) spread = b - a, best = d;
    }
    return best;
}

/* Builds the subtree of perm[lo..hi) (not empty); its least point index,
 * kept at its middle position as for every node, leaf or not. */
static uint64_t build(kd_tree *t, uint64_t lo, uint64_t hi)
{
    uint64_t m = lo + (hi - lo) / 2, least = UINT64_MAX;
    if (hi - lo <= LEAF_POINTS) {
        for (uint64_t i = lo; i < hi; i++) least = t->perm[i] < least ? t->perm[i] : least;
    } else {
        int d = widest(t, lo, hi);
        select_rank(t, lo, hi, m, d);
        t->dim[m] = (unsigned char)d;
        uint64_t a = build(t, lo, m), b = m + 1 < hi ? build(t, m + 1, hi) : UINT64_MAX;
        least = t->perm[m];
        least = a < least ? a : least;
        least = b < least ? b : least;
    }
    t->min_index[m] = least;
    return least;
}

static bool kd_new(kd_tree *t, const double *xyz, int dims, uint64_t first, uint64_t n)
{
    *t = (kd_tree){ .xyz = xyz, .dims = dims, .n = n, .first = first };
    t->perm = malloc((n ? n : 1) * sizeof *t->perm);
    t->dim = malloc(n ? n : 1);
    t->min_index = malloc((n ? n : 1) * sizeof *t->min_index);
    if (!t->perm || !t->dim || !t->min_index) return false;
    for (uint64_t i = 0; i < n; i++) t->perm[i] = first + i;
    if (n) build(t, 0, n);
    return true;
}

static void kd_free(kd_tree *t)
{
    free(t->perm);
    free(t->dim);
    free(t->min_index);
}

static bool farther(found a, found b)
{
    return a.d2 > b.d2 || (a.d2 == b.d2 && a.index > b.index);
}

static void sift_down(query *q, int i)
{
    for (;;) {
        int c = 2 * i + 1;
        if (c >= q->n) return;
        if (c + 1 < q->n && farther(q->heap[c + 1], q->heap[c])) c++;
        if (!farther(q->heap[c], q->heap[i])) return;
        found x = q->heap[i];
        q->heap[i] = q->heap[c];
        q->heap[c] = x;
        i = c;
    }
}

static void offer(query *q, const kd_tree *t, uint64_t p)
{
    if (p == q->self) return;
    found f = { dist2(t->xyz, t->dims, p, q->q), p };
    if (q->n < q->k) {
        int i = q->n++;
        q->heap[i] = f;
        while (i > 0 && farther(q->heap[i], q->heap[(i - 1) / 2])) {
            found x = q->heap[i];
            q->heap[i] = q->heap[(i - 1) / 2];
            q->heap[(i - 1) / 2] = x;
            i = (i - 1) / 2;
        }
    } else if (farther(q->heap[0], f)) {
        q->heap[0] = f;
        sift_down(q, 0);
    }
}

/* Could a point of the range whose least index is `least`, at least
 * d2 away, still be kept? */
static bool worth(const query *q, double d2, uint64_t least)
{
    return q->n < q->k || farther(q->heap[0], (found){ d2, least });
}

/* The subtree of perm[lo..hi): a leaf's points, or the node's point and
 * its children, the one whose nearest possible point (a lower bound on
 * the distance, then the least index) comes first visited first, each
 * only while it could still hold a point to keep.  The near child's bound
 * is 0 (the query lies on its side); the far one's the gap to the split.
 * (A bound on the distance to the whole region, Arya and Mount's, saved
 * 4 % of md_cutoff's queries: most of the time is spent on the k = 32
 * points kept, not on the ones pruned.) */
static void search(query *q, const kd_tree *t, uint64_t lo, uint64_t hi)
{
    if (hi - lo <= LEAF_POINTS) {
        for (uint64_t i = lo; i < hi; i++) offer(q, t, t->perm[i]);
        return;
    }
    uint64_t m = lo + (hi - lo) / 2, p = t->perm[m];
    int d = t->dim[m];
    double gap = q->q[d] - coord(t, p, d), gap2 = isnan(gap) ? 0 : gap * gap;   /* inf - inf: no bound */
    bool left_near = gap < 0 || (gap == 0 && q->self < p);
    offer(q, t, p);
    uint64_t side_lo[2] = { lo, m + 1 }, side_hi[2] = { m, hi };
    found bound[2];
    for (int c = 0; c < 2; c++) {
        bool near = (c == 0) == left_near;
        uint64_t mid = side_lo[c] + (side_hi[c] - side_lo[c]) / 2;
        bound[c] = (found){ near ? 0 : gap2, side_lo[c] < side_hi[c] ? t->min_index[mid] : UINT64_MAX };
    }
    int first = farther(bound[0], bound[1]) ? 1 : 0;
    for (int k = 0; k < 2; k++) {
        int c = k == 0 ? first : 1 - first;
        if (side_lo[c] < side_hi[c] && worth(q, bound[c].d2, bound[c].index)) search(q, t, side_lo[c], side_hi[c]);
    }
}

static int by_distance(const void *a, const void *b)
{
    found x = *(const found *)a, y = *(const found *)b;
    return farther(x, y) - farther(y, x);
}

/* The k nearest points to point self (itself excluded), nearest first,
 * into out (as many as there are, up to k); their number. */
static int nearest(const kd_tree *t, uint64_t self, int k, found *out)
{
    double here[WH_NEAREST_MAX_DIMS];
    for (int d = 0; d < t->dims; d++) here[d] = coord(t, self, d);
    query q = { out, 0, k, self, here };
    if (t->n) search(&q, t, 0, t->n);
    qsort(out, (size_t)q.n, sizeof *out, by_distance);
    return q.n;
}

/* ---- the neighbour list of an image -------------------------------------------------- */

typedef struct {
    double *xyz;            /* every position's coordinates (dims per element) */
    int dims;
    kd_tree tree;
    found *best;            /* a thread's nearest, per_thread of them */
    wh_bounds bd;           /* the list's range: the candidates */
} nearest_lists;

static double field_value(const wh_buffer *b, int f, uint64_t e)
{
    const wh_field *fd = &b->param->fields[f];
    const unsigned char *at = b->data + e * b->param->elem_size + fd->offset;
    return wh_type_is_float(fd->type) ? wh_value_get_float(fd->type, at) : (double)wh_value_get_int(fd->type, at);
}

static bool nearest_error(const wh_image *img, int p, wh_error *err, const char *msg)
{
    const wh_param *par = img->bufs[p].param;
    char path[96];
    wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "input \"%s\" (\"nearest_of\": \"%s\"): %s", par->name,
                 img->spec->params[par->nearest_of - 1].name, msg);
    wh_param_jpath(img->spec, p, ".nearest_of", path, sizeof path);
    wh_error_set_path(err, path);
    return false;
}

static void lists_free(nearest_lists *l)
{
    free(l->xyz);
    free(l->best);
    kd_free(&l->tree);
}

static bool lists_new(const wh_image *img, int p, nearest_lists *l, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    const wh_buffer *pos = &img->bufs[par->nearest_of - 1];
    memset(l, 0, sizeof *l);
    if (!wh_image_bounds(img, p, 0, 0, &l->bd, err)) return false;
    uint64_t threads = wh_launch_threads_total(&img->launch);
    char msg[200];
    if (l->bd.lo < 0 || (uint64_t)l->bd.hi >= pos->count) {
        snprintf(msg, sizeof msg, "the list's range [%lld, %lld] names positions past the %llu there are",
                 (long long)l->bd.lo, (long long)l->bd.hi, (unsigned long long)pos->count);
        return nearest_error(img, p, err, msg);
    }
    if (pos->count < threads) {
        snprintf(msg, sizeof msg, "%llu positions for %llu threads: thread t's list is of the positions nearest "
                 "position t", (unsigned long long)pos->count, (unsigned long long)threads);
        return nearest_error(img, p, err, msg);
    }
    l->dims = pos->param->nfields;
    l->xyz = malloc((pos->count ? pos->count : 1) * (size_t)l->dims * sizeof *l->xyz);
    l->best = malloc((size_t)par->per_thread * sizeof *l->best);
    bool ok = l->xyz && l->best;
    for (uint64_t e = 0; ok && e < pos->count; e++)
        for (int f = 0; f < l->dims; f++) {
            double x = field_value(pos, f, e);   /* NaN as +inf: the keys stay a total order */
            l->xyz[e * (uint64_t)l->dims + (uint64_t)f] = isnan(x) ? INFINITY : x;
        }
    ok = ok && kd_new(&l->tree, l->xyz, l->dims, (uint64_t)l->bd.lo, (uint64_t)(l->bd.hi - l->bd.lo + 1));
    if (!ok) {
        lists_free(l);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
    }
    return ok;
}

/* Thread t's nearest positions into l->best, nearest first (as many as
 * the range holds other than t's own, up to the list's length). */
static int thread_nearest(const wh_image *img, int p, const nearest_lists *l, uint64_t t)
{
    return nearest(&l->tree, t, img->bufs[p].param->per_thread, l->best);
}

static unsigned char *list_elem(const wh_image *img, int p, uint64_t e)
{
    return img->bufs[p].data + e * img->bufs[p].param->elem_size;
}

bool wh_image_restructure_nearest(wh_image *img, int p, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    nearest_lists l;
    if (!par->nearest_of || !img->bufs[p].count) return true;
    if (!lists_new(img, p, &l, err)) return false;
    bool ok = true;
    for (uint64_t t = 0; ok && t < wh_launch_threads_total(&img->launch); t++) {
        int n = thread_nearest(img, p, &l, t);
        for (uint64_t j = 0; ok && j < (uint64_t)par->per_thread; j++) {
            uint64_t e = wh_owned_elem(par, &img->launch, t, j);
            if (e >= img->bufs[p].count) continue;
            if (n == 0) {
                char msg[160];
                snprintf(msg, sizeof msg, "thread %llu has no position other than its own in the range "
                         "[%lld, %lld] to name", (unsigned long long)t, (long long)l.bd.lo, (long long)l.bd.hi);
                ok = nearest_error(img, p, err, msg);
                break;
            }
            wh_value_set_int(par->type, list_elem(img, p, e), (int64_t)l.best[j % (uint64_t)n].index);
        }
    }
    lists_free(&l);
    return ok;
}

/* Each element of thread t's list names a position as far from t's as
 * the one of its place in nearest order (so a list that breaks ties
 * otherwise passes); that no two name the same one, and none t itself,
 * is "neighbors"' own check (image_structure.c). */
static bool check_thread(const wh_image *img, int p, const nearest_lists *l, uint64_t t, int n, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    for (uint64_t j = 0; j < (uint64_t)par->per_thread; j++) {
        uint64_t e = wh_owned_elem(par, &img->launch, t, j);
        if (e >= img->bufs[p].count || n == 0) continue;
        int64_t v = wh_value_get_int(par->type, list_elem(img, p, e));
        char msg[240];
        if (v < l->bd.lo || v > l->bd.hi) {
            snprintf(msg, sizeof msg, "element %llu (thread %llu's neighbour %llu) names position %lld, outside the "
                     "range", (unsigned long long)e, (unsigned long long)t, (unsigned long long)j, (long long)v);
            return nearest_error(img, p, err, msg);
        }
        double d2 = dist2(l->xyz, l->dims, (uint64_t)v, l->xyz + t * (uint64_t)l->dims);
        double want = l->best[j % (uint64_t)n].d2;
        if (v != (int64_t)t && d2 == want) continue;
        snprintf(msg, sizeof msg, "element %llu (thread %llu's neighbour %llu) names position %lld at squared "
                 "distance %g, where its neighbour %llu in nearest order is at %g", (unsigned long long)e,
                 (unsigned long long)t, (unsigned long long)j, (long long)v, d2, (unsigned long long)j, want);
        return nearest_error(img, p, err, msg);
    }
    return true;
}

bool wh_image_check_nearest(const wh_image *img, int p, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    nearest_lists l;
    if (!par->nearest_of || !img->bufs[p].count) return true;
    if (!lists_new(img, p, &l, err)) return false;
    bool ok = true;
    for (uint64_t t = 0; ok && t < wh_launch_threads_total(&img->launch); t++)
        ok = check_thread(img, p, &l, t, thread_nearest(img, p, &l, t), err);
    lists_free(&l);
    return ok;
}
