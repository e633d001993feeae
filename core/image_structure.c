/*
 * image_structure.c — structured input buffers: sorted, strictly sorted,
 * distinct, permutation, offsets (core/spec.h, wh_structure) over a
 * buffer's elements (a buffer of one type, or one field of a struct), an
 * array field's order within each element (a tree node's keys), and
 * running sums ("prefix_sum_of": a buffer or struct field that is the
 * running sum of another, as CSR row starts are of row lengths); and the
 * entry to every other structure's projection and check, each in a file
 * of its own (neighbour lists image_neighbors.c, lists from positions
 * image_nearest.c, trees image_tree.c, hash tables image_hash_table.c,
 * lower-triangle columns image_rows.c, shortest-path states
 * image_paths.c).
 *
 * The search builds inputs element by element (atoms tiled over the
 * launch, value edits, random values), so no operator has to know a
 * buffer's structure: every image it builds is brought to it here, by a
 * projection that keeps as much of what the search chose as it can.
 * Sorting keeps the multiset of values; distinct and permutation keep the
 * order of the values (ranks), so a search that moves one value still
 * moves where it lands.  Each projection leaves a buffer that already has
 * its structure unchanged, so applying it twice is applying it once.
 */
#include "core/image.h"
#include "core/image_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t v;
    uint64_t at;
} ranked;

int wh_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* By value, ties by position: a stable order, so equal values keep theirs. */
static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
    return (x->at > y->at) - (x->at < y->at);
}

static bool structure_fits(const wh_image *img, int p, wh_error *err);
static bool restructure_alone(wh_image *img, int p, wh_error *err);
static bool arrays_fit(const wh_image *img, int p, wh_error *err);
static bool restructure_arrays(wh_image *img, int p, wh_error *err);
static bool check_arrays(const wh_image *img, int p, wh_error *err);

bool wh_image_oom(wh_error *err)
{
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
    return false;
}

static unsigned char *elem_at(const wh_buffer *b, uint64_t e)
{
    return b->data + e * b->param->elem_size;
}

/* Sorted values in [lo, hi] made increasing with the fewest changes near
 * the ends: element i is clamped to [lo + i, hi - (n - 1 - i)] (the only
 * places an increasing sequence can have it), then raised past its
 * predecessor.  Needs hi - lo >= n - 1 (wh_image_structure_fits). */
static void make_increasing(int64_t *v, uint64_t n, int64_t lo, int64_t hi)
{
    for (uint64_t i = 0; i < n; i++) {
        int64_t min = lo + (int64_t)i, max = hi - (int64_t)(n - 1 - i);
        v[i] = v[i] < min ? min : v[i] > max ? max : v[i];
        if (i > 0 && v[i] <= v[i - 1]) v[i] = v[i - 1] + 1;
    }
}

/* Field f of element e of buffer p: where it is, its type, and the
 * structure over the buffer's elements it has (a buffer of one type: the
 * buffer's; an array field's orders the array within each element, below). */
unsigned char *wh_image_value_at(const wh_image *img, int p, int f, uint64_t e)
{
    return elem_at(&img->bufs[p], e) + img->bufs[p].param->fields[f].offset;
}

wh_type wh_image_type_of(const wh_image *img, int p, int f)
{
    return img->bufs[p].param->fields[f].type;
}

static wh_structure structure_of(const wh_param *par, int f)
{
    if (par->type != WH_STRUCT) return par->structure;
    return par->fields[f].array_len > 1 ? WH_STRUCTURE_NONE : par->fields[f].structure;
}

/* Moves past which sort_values gives up inserting: a few elements out of
 * place cost at most this, a shuffled buffer falls to qsort early. */
#define INSERTION_MOVES(n) (4 * (n) + 64)

/* qsort's result, in one pass when the values are in order or nearly so:
 * a sorted buffer with a few elements edited is what the search's edits,
 * refinement and an image restructured again leave, and sorting it anew
 * each time was most of a warp-first unit launch (binary_search's keys).
 * Insertion while it has moved fewer than INSERTION_MOVES elements; then
 * the element in hand is put down (the values stay a permutation) and
 * qsort sorts the rest. */
static void sort_values(unsigned char *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    unsigned char hand[sizeof(int64_t) > sizeof(double) ? sizeof(int64_t) : sizeof(double)];
    uint64_t moves = 0;
    for (size_t i = 1; i < n; i++) {
        if (cmp(base + (i - 1) * size, base + i * size) <= 0) continue;
        memcpy(hand, base + i * size, size);
        size_t j = i;
        for (; j > 0 && cmp(base + (j - 1) * size, hand) > 0 && moves < INSERTION_MOVES(n); j--, moves++)
            memcpy(base + j * size, base + (j - 1) * size, size);
        memcpy(base + j * size, hand, size);
        if (moves >= INSERTION_MOVES(n)) {
            qsort(base, n, size, cmp);
            return;
        }
    }
}

static bool restructure_floats(wh_image *img, int p, int f, wh_error *err)
{
    uint64_t n = img->bufs[p].count;
    double *v = malloc(n * sizeof *v);
    if (!v) return wh_image_oom(err);
    for (uint64_t e = 0; e < n; e++) v[e] = wh_value_get_float(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, e));
    sort_values((unsigned char *)v, n, sizeof *v, cmp_f64);
    for (uint64_t e = 0; e < n; e++) wh_value_set_float(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, e), v[e]);
    free(v);
    return true;
}

/* Sorted, strictly sorted and offsets: the values in order. */
static bool restructure_in_order(wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err)
{
    uint64_t n = img->bufs[p].count;
    wh_structure s = structure_of(img->bufs[p].param, f);
    int64_t *v = malloc(n * sizeof *v);
    if (!v) return wh_image_oom(err);
    for (uint64_t e = 0; e < n; e++) v[e] = wh_value_get_int(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, e));
    sort_values((unsigned char *)v, n, sizeof *v, wh_cmp_i64);
    if (s == WH_STRUCTURE_STRICTLY_SORTED) make_increasing(v, n, bd->lo, bd->hi);
    if (s == WH_STRUCTURE_OFFSETS) {
        v[0] = bd->lo;
        v[n - 1] = bd->hi;
    }
    for (uint64_t e = 0; e < n; e++) wh_value_set_int(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, e), v[e]);
    free(v);
    return true;
}

static ranked *rank_values(const wh_image *img, int p, int f)
{
    uint64_t n = img->bufs[p].count;
    ranked *r = malloc(n * sizeof *r);
    if (!r) return NULL;
    for (uint64_t e = 0; e < n; e++) {
        r[e].v = wh_value_get_int(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, e));
        r[e].at = e;
    }
    qsort(r, n, sizeof *r, cmp_ranked);
    return r;
}

/* Distinct and permutation: each element keeps its rank among the values. */
static bool restructure_by_rank(wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err)
{
    uint64_t n = img->bufs[p].count;
    ranked *r = rank_values(img, p, f);
    int64_t *v = malloc(n * sizeof *v);
    if (!r || !v) {
        free(r);
        free(v);
        return wh_image_oom(err);
    }
    bool permutation = structure_of(img->bufs[p].param, f) == WH_STRUCTURE_PERMUTATION;
    for (uint64_t k = 0; k < n; k++) v[k] = permutation ? bd->lo + (int64_t)k : r[k].v;
    make_increasing(v, n, bd->lo, bd->hi);
    for (uint64_t k = 0; k < n; k++) wh_value_set_int(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, r[k].at), v[k]);
    free(r);
    free(v);
    return true;
}

/* The error names the buffer (and a struct's field) and the structure,
 * at the spec's "structure" key. */
bool wh_structure_error(const wh_image *img, int p, int f, wh_error *err, const char *fmt, ...)
{
    const wh_param *par = img->bufs[p].param;
    const wh_field *fd = &par->fields[f];
    char msg[256], path[80], suffix[48], field[120] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(suffix, sizeof suffix, ".structure");
    if (par->type == WH_STRUCT) {
        int entry = 0;
        for (int g = 0; g < f; g++) entry += par->fields[g].array_index == 0;
        snprintf(field, sizeof field, ", %sfield \"%.*s\"", fd->array_len > 1 ? "array " : "",
                 (int)strcspn(fd->name, "["), fd->name);
        snprintf(suffix, sizeof suffix, ".fields[%d].structure", entry);
    }
    wh_structure s = par->type == WH_STRUCT ? fd->structure : par->structure;
    wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "input \"%s\"%s (\"structure\": \"%s\"): %s", par->name,
                 field, wh_structure_name(s), msg);
    wh_param_jpath(img->spec, p, suffix, path, sizeof path);
    wh_error_set_path(err, path);
    return false;
}

/* A sorted field whose range depends on i ("(i+1)/n": a CDF that ends at
 * 1): sorting and then clamping each value into its own range keeps the
 * order only when neither end of the range ever falls, so that is what
 * such a range must do. */
static bool sorted_bounds_rise(const wh_image *img, int p, int f, wh_error *err)
{
    wh_bounds prev, cur;
    if (!wh_image_bounds(img, p, f, 0, &prev, err)) return false;
    for (uint64_t e = 1; e < img->bufs[p].count; e++, prev = cur) {
        if (!wh_image_bounds(img, p, f, e, &cur, err)) return false;
        bool rise = cur.is_float ? cur.flo >= prev.flo && cur.fhi >= prev.fhi : cur.lo >= prev.lo && cur.hi >= prev.hi;
        if (!rise)
            return wh_structure_error(img, p, f, err, "the range falls from element %llu to element %llu (a sorted "
                                   "buffer's range may depend on i only if neither end ever falls)",
                                   (unsigned long long)e - 1, (unsigned long long)e);
    }
    return true;
}

/* Each value of a sorted field with a range that rises with i clamped
 * into its own range (sorted_bounds_rise: the order stays). */
static bool clamp_each(wh_image *img, int p, int f, wh_error *err)
{
    wh_type t = wh_image_type_of(img, p, f);
    for (uint64_t e = 0; e < img->bufs[p].count; e++) {
        wh_bounds bd;
        unsigned char *at = wh_image_value_at(img, p, f, e);
        if (!wh_image_bounds(img, p, f, e, &bd, err)) return false;
        if (bd.is_float) {
            double v = wh_value_get_float(t, at);
            wh_value_set_float(t, at, v < bd.flo ? bd.flo : v > bd.fhi ? bd.fhi : v);
        } else {
            int64_t v = wh_value_get_int(t, at);
            wh_value_set_int(t, at, v < bd.lo ? bd.lo : v > bd.hi ? bd.hi : v);
        }
    }
    return true;
}

/* ---- array fields ---------------------------------------------------------- */

/* An array field's structure orders its n elements within each element of
 * the buffer (a b+tree node's keys: "keys[0]" .. "keys[n-1]", consecutive
 * fields); the same projections as a whole buffer's, element by element. */

static bool array_start(const wh_param *par, int f)
{
    const wh_field *fd = &par->fields[f];
    return fd->array_len > 1 && fd->array_index == 0 && fd->structure != WH_STRUCTURE_NONE;
}

static bool arrays_fit(const wh_image *img, int p, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    for (int f = 0; f < par->nfields; f++) {
        wh_bounds bd;
        int n = par->fields[f].array_len;
        if (!array_start(par, f) || par->fields[f].structure == WH_STRUCTURE_SORTED) continue;
        if (!wh_image_bounds(img, p, f, 0, &bd, err)) return false;
        if ((uint64_t)bd.hi - (uint64_t)bd.lo < (uint64_t)n - 1)
            return wh_structure_error(img, p, f, err, "the range has %lld values, fewer than the array's %d",
                                   (long long)((uint64_t)bd.hi - (uint64_t)bd.lo + 1), n);
    }
    return true;
}

/* The array at field f of element el into r, each value with its index. */
static void gather_array(const wh_param *par, int f, const unsigned char *el, ranked *r)
{
    for (int k = 0; k < par->fields[f].array_len; k++) {
        r[k].v = wh_value_get_int(par->fields[f + k].type, el + par->fields[f + k].offset);
        r[k].at = (uint64_t)k;
    }
}

/* The array at field f of element e, ordered as its structure says. */
static void restructure_array(wh_image *img, int p, int f, uint64_t e, const wh_bounds *bd, ranked *r, int64_t *v)
{
    const wh_param *par = img->bufs[p].param;
    int n = par->fields[f].array_len;
    unsigned char *el = elem_at(&img->bufs[p], e);
    gather_array(par, f, el, r);
    qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    for (int k = 0; k < n; k++) v[k] = r[k].v;
    if (par->fields[f].structure != WH_STRUCTURE_SORTED) make_increasing(v, (uint64_t)n, bd->lo, bd->hi);
    /* sorted ones go in order; distinct ones back to their ranks' places */
    for (int k = 0; k < n; k++) {
        int at = par->fields[f].structure == WH_STRUCTURE_DISTINCT ? (int)r[k].at : k;
        wh_value_set_int(par->fields[f + at].type, el + par->fields[f + at].offset, v[k]);
    }
}

static bool restructure_arrays(wh_image *img, int p, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    for (int f = 0; f < par->nfields; f++) {
        wh_bounds bd;
        if (!array_start(par, f)) continue;
        if (!arrays_fit(img, p, err) || !wh_image_bounds(img, p, f, 0, &bd, err)) return false;
        int n = par->fields[f].array_len;
        ranked *r = malloc((size_t)n * sizeof *r);
        int64_t *v = malloc((size_t)n * sizeof *v);
        if (!r || !v) {
            free(r);
            free(v);
            return wh_image_oom(err);
        }
        for (uint64_t e = 0; e < img->bufs[p].count; e++) restructure_array(img, p, f, e, &bd, r, v);
        free(r);
        free(v);
    }
    return true;
}

/* Element e's array at field f against its structure (r: room for it). */
static bool check_array(const wh_image *img, int p, int f, uint64_t e, ranked *r, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    wh_structure s = par->fields[f].structure;
    int n = par->fields[f].array_len;
    gather_array(par, f, elem_at(&img->bufs[p], e), r);
    if (s == WH_STRUCTURE_DISTINCT) qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    for (int k = 1; k < n; k++) {
        int64_t x = r[k - 1].v, y = r[k].v;
        bool ok = s == WH_STRUCTURE_SORTED ? x <= y : x < y;
        if (!ok)
            return wh_structure_error(img, p, f, err, "element %llu: %s is %lld and %s is %lld", (unsigned long long)e,
                               par->fields[f + (int)r[k - 1].at].name, (long long)x,
                               par->fields[f + (int)r[k].at].name, (long long)y);
    }
    return true;
}

/* The first element whose array breaks its structure, as an error. */
static bool check_arrays(const wh_image *img, int p, wh_error *err)
{
    const wh_param *par = img->bufs[p].param;
    for (int f = 0; f < par->nfields; f++) {
        if (!array_start(par, f)) continue;
        ranked *r = malloc((size_t)par->fields[f].array_len * sizeof *r);
        if (!r) return wh_image_oom(err);
        bool ok = true;
        for (uint64_t e = 0; ok && e < img->bufs[p].count; e++) ok = check_array(img, p, f, e, r, err);
        free(r);
        if (!ok) return false;
    }
    return true;
}

/* ---- running sums ---------------------------------------------------------- */

/* One running sum: field df of buffer dp holds, at element e, the range's
 * low end plus the sum of field sf of buffer sp over the elements before e;
 * the total may not pass the range's high end. */
typedef struct {
    int dp, df, sp, sf;
} prefix;

/* The running sums buffer p takes part in (as the sum or as the summed), at
 * most one per field of p plus the buffers summing p; while wh_image_new
 * fills the buffers in order, only those whose two buffers both exist. */
static int prefixes_of(const wh_image *img, int p, prefix *out, int max)
{
    int n = 0;
    for (int q = 0; q < img->nbufs && n < max; q++) {
        const wh_param *par = &img->spec->params[q];
        int src = par->prefix_of - 1;
        if (par->prefix_of && (q == p || src == p) && img->bufs[q].param && img->bufs[src].param)
            out[n++] = (prefix){ q, 0, src, 0 };
        for (int f = 0; q == p && f < par->nfields && n < max; f++)
            if (par->fields[f].prefix_of) out[n++] = (prefix){ p, f, p, par->fields[f].prefix_of - 1 };
    }
    return n;
}

static int64_t field_get(const wh_image *img, int p, int f, uint64_t e)
{
    const wh_buffer *b = &img->bufs[p];
    return wh_value_get_int(b->param->fields[f].type, elem_at(b, e) + b->param->fields[f].offset);
}

static void field_set(wh_image *img, int p, int f, uint64_t e, int64_t v)
{
    wh_buffer *b = &img->bufs[p];
    wh_value_set_int(b->param->fields[f].type, elem_at(b, e) + b->param->fields[f].offset, v);
}

static bool prefix_error(const wh_image *img, const prefix *x, wh_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool prefix_error(const wh_image *img, const prefix *x, wh_error *err, const char *fmt, ...)
{
    const wh_param *d = img->bufs[x->dp].param;
    char msg[256], path[96], suffix[48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bool on_field = d->type == WH_STRUCT;
    wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "input \"%s%s%s\" (the running sum of \"%s%s%s\"): %s",
                 d->name, on_field ? "." : "", on_field ? d->fields[x->df].name : "", img->bufs[x->sp].param->name,
                 on_field ? "." : "", on_field ? img->bufs[x->sp].param->fields[x->sf].name : "", msg);
    if (on_field)
        snprintf(suffix, sizeof suffix, ".fields[%d].prefix_sum_of", x->df);
    else
        snprintf(suffix, sizeof suffix, ".prefix_sum_of");
    wh_param_jpath(img->spec, x->dp, suffix, path, sizeof path);
    wh_error_set_path(err, path);
    return false;
}

/* Both buffers equally long, summands never negative, and room for the
 * smallest summands: n * lo_s <= hi - lo. */
static bool prefix_fits(const wh_image *img, const prefix *x, wh_bounds *d, wh_bounds *sb, wh_error *err)
{
    uint64_t n = img->bufs[x->dp].count;
    if (!wh_image_bounds(img, x->dp, x->df, 0, d, err) || !wh_image_bounds(img, x->sp, x->sf, 0, sb, err))
        return false;
    if (img->bufs[x->sp].count != n)
        return prefix_error(img, x, err, "%llu elements, but what it sums has %llu at this launch",
                            (unsigned long long)n, (unsigned long long)img->bufs[x->sp].count);
    if (sb->lo < 0)
        return prefix_error(img, x, err, "what it sums may be negative (its range starts at %lld)", (long long)sb->lo);
    if (n && (d->hi - d->lo) / (int64_t)n < sb->lo)
        return prefix_error(img, x, err, "%llu summands of at least %lld pass the range's high end %lld",
                            (unsigned long long)n, (long long)sb->lo, (long long)d->hi);
    return true;
}

/* The sum from the summands, lowering a summand where the total would
 * pass the range's high end (keeping room for the ones after it). */
static bool apply_prefix(wh_image *img, const prefix *x, wh_error *err)
{
    wh_bounds d, sb;
    if (!prefix_fits(img, x, &d, &sb, err)) return false;
    uint64_t n = img->bufs[x->dp].count;
    int64_t run = d.lo;
    for (uint64_t e = 0; e < n; e++) {
        field_set(img, x->dp, x->df, e, run);
        int64_t len = field_get(img, x->sp, x->sf, e), room = d.hi - run - (int64_t)(n - 1 - e) * sb.lo;
        if (len > room) field_set(img, x->sp, x->sf, e, len = room);
        run += len;
    }
    return true;
}

static bool check_prefix(const wh_image *img, const prefix *x, wh_error *err)
{
    wh_bounds d, sb;
    if (!prefix_fits(img, x, &d, &sb, err)) return false;
    int64_t run = d.lo;
    for (uint64_t e = 0; e < img->bufs[x->dp].count; e++) {
        int64_t v = field_get(img, x->dp, x->df, e);
        if (v != run)
            return prefix_error(img, x, err, "element %llu is %lld, not %lld (the sum before it)",
                                (unsigned long long)e, (long long)v, (long long)run);
        run += field_get(img, x->sp, x->sf, e);
    }
    if (run > d.hi)
        return prefix_error(img, x, err, "the sum reaches %lld, past the range's high end %lld", (long long)run,
                            (long long)d.hi);
    return true;
}

#define MAX_PREFIXES 64

bool wh_image_sum_into(wh_image *img, int p, int f, wh_error *err)
{
    prefix x[MAX_PREFIXES];
    for (int k = 0, n = prefixes_of(img, p, x, MAX_PREFIXES); k < n; k++) {
        if (x[k].dp != p || x[k].df != f) continue;
        wh_bounds d, sb;
        if (!prefix_fits(img, &x[k], &d, &sb, err)) return false;
        int64_t run = d.lo;
        for (uint64_t e = 0; e < img->bufs[p].count; e++) {
            field_set(img, p, f, e, run);
            run += field_get(img, x[k].sp, x[k].sf, e);
        }
        return run <= d.hi || prefix_error(img, &x[k], err, "what it sums totals %lld, past the range's high end %lld",
                                           (long long)run, (long long)d.hi);
    }
    return true;
}

static bool apply_prefixes(wh_image *img, int p, wh_error *err)
{
    prefix x[MAX_PREFIXES];
    int n = prefixes_of(img, p, x, MAX_PREFIXES);
    for (int k = 0; k < n; k++)
        if (!apply_prefix(img, &x[k], err)) return false;
    return true;
}

static bool check_prefixes(const wh_image *img, int p, wh_error *err)
{
    prefix x[MAX_PREFIXES];
    int n = prefixes_of(img, p, x, MAX_PREFIXES);
    for (int k = 0; k < n; k++)
        if (!check_prefix(img, &x[k], err)) return false;
    return true;
}

bool wh_image_structure_fits(const wh_image *img, int p, wh_error *err)
{
    prefix x[MAX_PREFIXES];
    wh_bounds d, sb;
    for (int k = 0, n = prefixes_of(img, p, x, MAX_PREFIXES); k < n; k++)
        if (!prefix_fits(img, &x[k], &d, &sb, err)) return false;
    return structure_fits(img, p, err) && arrays_fit(img, p, err);
}

static bool structure_fits(const wh_image *img, int p, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    for (int f = 0; f < b->param->nfields; f++) {
        wh_structure s = structure_of(b->param, f);
        wh_bounds bd;
        if (s == WH_STRUCTURE_SORTED && wh_field_varies_by_index(&b->param->fields[f]) &&
            !sorted_bounds_rise(img, p, f, err))
            return false;
        if (s == WH_STRUCTURE_NONE || s == WH_STRUCTURE_SORTED || b->count == 0) continue;
        if (!wh_image_bounds(img, p, f, 0, &bd, err)) return false;
        uint64_t width = (uint64_t)bd.hi - (uint64_t)bd.lo; /* values in the range, less one */
        if (s == WH_STRUCTURE_NEIGHBORS) continue;   /* restructure_neighbors says when a range is too small */
        if (s == WH_STRUCTURE_FOREST) {
            if (bd.lo >= 0 && (uint64_t)bd.hi < b->count) continue;
            return wh_structure_error(img, p, f, err, "a parent names an element: the range [%lld, %lld] must lie "
                                      "within [0, %llu] at this launch", (long long)bd.lo, (long long)bd.hi,
                                      (unsigned long long)(b->count - 1));
        }
        if (s == WH_STRUCTURE_OFFSETS) {
            if (b->count > 1 || bd.lo == bd.hi) continue;
            return wh_structure_error(img, p, f, err, "one offset cannot be both the range's ends %lld and %lld",
                                   (long long)bd.lo, (long long)bd.hi);
        }
        if (s == WH_STRUCTURE_PERMUTATION && width != b->count - 1)
            return wh_structure_error(img, p, f, err, "a permutation of the range's %lld values needs as many "
                                   "elements, and the buffer has %lld at this launch", (long long)(width + 1),
                                   (long long)b->count);
        if (width < b->count - 1)
            return wh_structure_error(img, p, f, err, "the range has %lld values, fewer than the buffer's %lld "
                                   "elements", (long long)(width + 1), (long long)b->count);
    }
    return true;
}

/* Integer values onto their field's step ("step" beside a range): rounded
 * down, so that every producer of inputs (operators, edits, the scaler,
 * refinement) keeps the domain, and order is kept for "sorted". */
static bool snap_steps(wh_image *img, int p, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    for (int f = 0; f < b->param->nfields; f++) {
        const wh_field *fd = &b->param->fields[f];
        wh_bounds bd;
        bool by_index = wh_field_varies_by_index(fd);
        for (uint64_t e = 0; fd->step && e < b->count; e++) {
            if ((e == 0 || by_index) && !wh_image_bounds(img, p, f, e, &bd, err)) return false;
            unsigned char *at = wh_image_value_at(img, p, f, e);
            wh_value_set_int(fd->type, at, wh_bounds_snap(&bd, wh_value_get_int(fd->type, at)));
        }
    }
    return true;
}

bool wh_image_restructure_buffer(wh_image *img, int p, wh_error *err)
{
    return snap_steps(img, p, err) && restructure_alone(img, p, err) && restructure_arrays(img, p, err) && apply_prefixes(img, p, err) &&
           wh_image_restructure_tree(img, p, err) && wh_image_restructure_hash_table(img, p, err) &&
           wh_image_restructure_rows(img, p, err) && wh_image_restructure_paths(img, p, err);
}

static bool restructure_field(wh_image *img, int p, int f, wh_error *err)
{
    wh_bounds bd;
    if (!wh_image_bounds(img, p, f, 0, &bd, err)) return false;
    if (wh_field_varies_by_index(&img->bufs[p].param->fields[f]))   /* sorted: the spec allows no other */
        return sorted_bounds_rise(img, p, f, err) &&
               (bd.is_float ? restructure_floats(img, p, f, err) : restructure_in_order(img, p, f, &bd, err)) &&
               clamp_each(img, p, f, err);
    if (bd.is_float) return restructure_floats(img, p, f, err);
    switch (structure_of(img->bufs[p].param, f)) {
    case WH_STRUCTURE_DISTINCT:
    case WH_STRUCTURE_PERMUTATION: return restructure_by_rank(img, p, f, &bd, err);
    case WH_STRUCTURE_FOREST: return wh_image_restructure_forest(img, p, f, err);
    case WH_STRUCTURE_NEIGHBORS:   /* from positions: the lists; elements past them as any list's */
        return img->bufs[p].param->nearest_of
                   ? wh_image_restructure_nearest(img, p, err) && wh_image_restructure_unowned(img, p, f, &bd, err)
                   : wh_image_restructure_neighbors(img, p, f, &bd, err);
    default: return restructure_in_order(img, p, f, &bd, err);
    }
}

static bool restructure_alone(wh_image *img, int p, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    for (int f = 0; b->count > 0 && f < b->param->nfields; f++)
        if (structure_of(b->param, f) != WH_STRUCTURE_NONE && !restructure_field(img, p, f, err)) return false;
    return true;
}

bool wh_image_restructure(wh_image *img, wh_error *err)
{
    for (int p = 0; p < img->nbufs; p++)
        if (img->bufs[p].param->role == WH_ROLE_INPUT && !wh_image_restructure_buffer(img, p, err)) return false;
    return true;
}

/* The first pair of neighbours out of order, as an error. */
static bool check_in_order(const wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    wh_type t = wh_image_type_of(img, p, f);
    wh_structure s = structure_of(b->param, f);
    bool strict = s == WH_STRUCTURE_STRICTLY_SORTED;
    for (uint64_t e = 1; e < b->count; e++) {
        bool ok;
        const unsigned char *x = wh_image_value_at(img, p, f, e - 1), *y = wh_image_value_at(img, p, f, e);
        if (bd->is_float)
            ok = wh_value_get_float(t, x) <= wh_value_get_float(t, y);
        else if (strict)
            ok = wh_value_get_int(t, x) < wh_value_get_int(t, y);
        else
            ok = wh_value_get_int(t, x) <= wh_value_get_int(t, y);
        if (!ok)
            return wh_structure_error(img, p, f, err, strict ? "element %lld is not above element %lld"
                                                          : "element %lld is below element %lld",
                                   (long long)e, (long long)(e - 1));
    }
    if (s != WH_STRUCTURE_OFFSETS) return true;
    int64_t first = wh_value_get_int(t, wh_image_value_at(img, p, f, 0));
    int64_t last = wh_value_get_int(t, wh_image_value_at(img, p, f, b->count - 1));
    if (first != bd->lo)
        return wh_structure_error(img, p, f, err, "the first offset is %lld, not the range's low end %lld",
                               (long long)first, (long long)bd->lo);
    if (last != bd->hi)
        return wh_structure_error(img, p, f, err, "the last offset is %lld, not the range's high end %lld",
                               (long long)last, (long long)bd->hi);
    return true;
}

/* The first value found twice, as an error (a permutation's values are in
 * its range, checked with the domains, and as many as the range holds). */
static bool check_distinct(const wh_image *img, int p, int f, wh_error *err)
{
    ranked *r = rank_values(img, p, f);
    if (!r) return wh_image_oom(err);
    for (uint64_t k = 1; k < img->bufs[p].count; k++)
        if (r[k].v == r[k - 1].v) {
            uint64_t a = r[k - 1].at, b = r[k].at;
            long long v = (long long)r[k].v;
            free(r);
            return wh_structure_error(img, p, f, err, "elements %llu and %llu are both %lld", (unsigned long long)a,
                                   (unsigned long long)b, v);
        }
    free(r);
    return true;
}

bool wh_image_check_structure(const wh_image *img, int p, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    if (!check_prefixes(img, p, err) || !check_arrays(img, p, err) || !wh_image_check_tree(img, p, err) ||
        !wh_image_check_hash_table(img, p, err) || !wh_image_check_nearest(img, p, err) ||
        !wh_image_check_rows(img, p, err) || !wh_image_check_paths(img, p, err))
        return false;
    if (b->count == 0) return true;
    if (!wh_image_structure_fits(img, p, err)) return false;
    for (int f = 0; f < b->param->nfields; f++) {
        wh_structure s = structure_of(b->param, f);
        wh_bounds bd;
        if (s == WH_STRUCTURE_NONE) continue;
        if (!wh_image_bounds(img, p, f, 0, &bd, err)) return false;
        bool ok = s == WH_STRUCTURE_FOREST                                     ? wh_image_check_forest(img, p, f, err)
                  : s == WH_STRUCTURE_NEIGHBORS                                  ? wh_image_check_neighbors(img, p, f, &bd, err)
                  : s == WH_STRUCTURE_DISTINCT || s == WH_STRUCTURE_PERMUTATION ? check_distinct(img, p, f, err)
                                                                                : check_in_order(img, p, f, &bd, err);
        if (!ok) return false;
    }
    return true;
}
