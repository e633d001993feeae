/*
 * edit.c — value edits: operators on a full-size input that state a
 * relation between elements directly (one value everywhere, a sorted or
 * reversed run, a ramp of distinct values, a lane's values copied across
 * its warp, the domain's extremes).
 *
 * Atoms are X-thread inputs and the scaler repeats them; neither can say
 * "every edge into one node" or "distances falling with the node index",
 * which are what contention and ordering worst cases are made of.  An edit
 * is named by a 31-bit code, so a GA gene can hold it and a checkpoint
 * needs no table: the code seeds a PCG32 stream that draws the buffer, the
 * field, the run and the operator, against the launch's own layout.
 * Every written value is clamped into its element's domain, so an edited
 * image never violates the spec.
 *
 * A shape edit draws the run's values from a distribution whose family
 * and parameters come from the code: how a CSR matrix's row lengths or a
 * graph's degrees are spread (a long tail, a heavy lane in every warp, a
 * few hubs) is then searched like any other gene, and the running sum
 * over them (row starts) follows by projection.
 */
#include "gen/gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[GEN_EDIT_KINDS] = {
    "none", "fill-copy", "fill-low", "fill-high", "sort-up", "sort-down",
    "ramp-up", "ramp-down", "reverse", "warp-copy", "shape",
};

static const char *const shape_names[GEN_SHAPE_FAMILIES] = { "skew", "heavy-lanes", "hubs" };

const char *gen_edit_kind_name(gen_edit_kind k)
{
    return k >= 0 && k < GEN_EDIT_KINDS ? kind_names[k] : "?";
}

/* A field worth editing: an input buffer's field whose domain is not a
 * single value (judged at element 0: "i*8" in ["i*8", "i*8"] is pinned),
 * and that is no running sum (the projection recomputes it from its
 * summands: an edit of it would be undone). */
static bool editable(const wh_image *img, int p, int f)
{
    const wh_param *par = &img->spec->params[p];
    if (par->role != WH_ROLE_INPUT || par->kind != WH_BUFFER || img->bufs[p].count == 0) return false;
    if (par->prefix_of || par->fields[f].prefix_of) return false;
    wh_bounds b;
    wh_error err;
    wh_error_clear(&err);
    if (!wh_image_bounds(img, p, f, 0, &b, &err)) return false;
    return b.is_float ? b.fhi > b.flo : b.hi > b.lo;
}

/* Elements one thread owns (a warp owns 32 of these); 1 for shared inputs. */
static uint64_t owner_elems(const wh_param *par)
{
    return par->per_thread > 0 ? (uint64_t)par->per_thread : 1;
}

/* Log-uniform in [1, n]. */
static uint64_t log_uniform(pcg32 *rng, uint64_t n)
{
    double u = pcg32_double(rng) * log2((double)n + 1.0);
    uint64_t len = (uint64_t)exp2(u);
    return len < 1 ? 1 : len > n ? n : len;
}

static uint64_t draw_below(pcg32 *rng, uint64_t n)
{
    return n <= 1 ? 0 : n <= UINT32_MAX ? pcg32_bounded(rng, (uint32_t)n) : pcg32_next64(rng) % n;
}

/* The run: the whole buffer, whole warps' worth of elements, or any run. */
static void draw_run(pcg32 *rng, uint64_t count, uint64_t warp_elems, gen_edit *e)
{
    uint32_t how = pcg32_bounded(rng, 3);
    if (how == 0 || count == 1) {
        e->first = 0;
        e->count = count;
    } else if (how == 1 && warp_elems < count) {
        uint64_t warps = (count + warp_elems - 1) / warp_elems, len = log_uniform(rng, warps);
        e->first = draw_below(rng, warps - len + 1) * warp_elems;
        e->count = len * warp_elems;
        if (e->first + e->count > count) e->count = count - e->first;
    } else {
        e->count = log_uniform(rng, count);
        e->first = draw_below(rng, count - e->count + 1);
    }
}

/* The editable fields in buffer order: how many there are, and the
 * ordinal-th one's buffer and field (left alone when it is out of range). */
static int editable_fields(const wh_image *full, int ordinal, int *param, int *field)
{
    int n = 0;
    for (int p = 0; p < full->nbufs; p++)
        for (int f = 0; f < full->spec->params[p].nfields; f++)
            if (editable(full, p, f) && n++ == ordinal) {
                *param = p;
                *field = f;
            }
    return n;
}

/* A screen code: the whole of one field's buffer, one kind (bit 31 set,
 * which random codes never have). */
static uint32_t screen_code(int ordinal, gen_edit_kind kind)
{
    return GEN_EDIT_SCREEN_BIT | (uint32_t)ordinal << 4 | (uint32_t)kind;
}

void gen_edit_decode(const wh_image *full, uint32_t code, gen_edit *e)
{
    memset(e, 0, sizeof *e);
    e->kind = GEN_EDIT_NONE;
    if (code == 0) return;
    if (code & GEN_EDIT_SCREEN_BIT) {
        uint32_t ordinal = (code & ~GEN_EDIT_SCREEN_BIT) >> 4, kind = code & 15;
        if (kind == GEN_EDIT_NONE || kind >= GEN_EDIT_KINDS) return;
        if ((int)ordinal >= editable_fields(full, (int)ordinal, &e->param, &e->field)) return;
        e->count = full->bufs[e->param].count;
        e->kind = (gen_edit_kind)kind;
        return;
    }
    int nfields = editable_fields(full, -1, &e->param, &e->field);
    if (nfields == 0) return;
    pcg32 rng;
    pcg32_seed(&rng, code, 0x65646974);
    editable_fields(full, (int)pcg32_bounded(&rng, (uint32_t)nfields), &e->param, &e->field);
    const wh_param *par = &full->spec->params[e->param];
    draw_run(&rng, full->bufs[e->param].count, 32 * owner_elems(par), e);
    e->kind = (gen_edit_kind)(1 + pcg32_bounded(&rng, GEN_EDIT_KINDS - 1));
    if (e->kind == GEN_EDIT_SHAPE) e->shape = code;
}

void gen_shape_of(const gen_edit *e, gen_shape *out)
{
    memset(out, 0, sizeof *out);
    out->family = GEN_SHAPE_HEAVY_LANES;
    out->lanes = 1;
    if (e->shape == 0) return;
    pcg32 rng;
    pcg32_seed(&rng, e->shape, 0x73686170);
    out->family = (gen_shape_family)pcg32_bounded(&rng, GEN_SHAPE_FAMILIES);
    out->alpha = exp2(4.0 * pcg32_double(&rng));
    out->lanes = (int)log_uniform(&rng, 32);
    out->offset = (int)pcg32_bounded(&rng, 32);
    out->share = exp2(-12.0 * pcg32_double(&rng));
}

/* Extremes first: if the screen is cut short, every field keeps them. */
static const gen_edit_kind screen_order[GEN_EDIT_KINDS - 1] = {
    GEN_EDIT_FILL_HIGH, GEN_EDIT_FILL_LOW, GEN_EDIT_FILL_COPY, GEN_EDIT_SORT_DOWN, GEN_EDIT_SORT_UP,
    GEN_EDIT_RAMP_DOWN, GEN_EDIT_RAMP_UP, GEN_EDIT_REVERSE, GEN_EDIT_WARP_COPY, GEN_EDIT_SHAPE,
};

int gen_edit_screen(const wh_image *full, int *codes, int *groups, int max)
{
    int p, f, nfields = editable_fields(full, -1, &p, &f), n = 0;
    for (int k = 0; k < GEN_EDIT_KINDS - 1; k++)
        for (int i = 0; i < nfields && n < max; i++, n++) {
            codes[n] = (int)screen_code(i, screen_order[k]);
            groups[n] = i;
        }
    return n;
}

/* Reads and clamped writes of one field of one buffer; bounds are
 * evaluated once unless they vary with the element index. */
typedef struct {
    wh_image *img;
    int p, f;
    const wh_field *fd;
    bool by_index;
    wh_bounds b;
} field_access;

static bool access_open(field_access *a, wh_image *img, int p, int f, wh_error *err)
{
    a->img = img;
    a->p = p;
    a->f = f;
    a->fd = &img->spec->params[p].fields[f];
    a->by_index = wh_field_varies_by_index(a->fd);
    return wh_image_bounds(img, p, f, 0, &a->b, err);
}

static void *field_at(const field_access *a, uint64_t e)
{
    return a->img->bufs[a->p].data + e * a->img->spec->params[a->p].elem_size + a->fd->offset;
}

static bool bounds_of(field_access *a, uint64_t e, wh_error *err)
{
    return !a->by_index || wh_image_bounds(a->img, a->p, a->f, e, &a->b, err);
}

/* Writes v clamped into the bounds last evaluated. */
static void store_int(field_access *a, uint64_t e, int64_t v)
{
    wh_value_set_int(a->fd->type, field_at(a, e), v < a->b.lo ? a->b.lo : v > a->b.hi ? a->b.hi : v);
}

/* Integer values travel as int64 (a double loses bits above 2^53). */
static bool put_int(field_access *a, uint64_t e, int64_t v, wh_error *err)
{
    if (!bounds_of(a, e, err)) return false;
    store_int(a, e, v);
    return true;
}

static void store_float(field_access *a, uint64_t e, double v)
{
    v = v < a->b.flo ? a->b.flo : v > a->b.fhi ? a->b.fhi : v;
    if (a->fd->type == WH_F32 && (float)v > (float)a->b.fhi) v = a->b.fhi;
    wh_value_set_float(a->fd->type, field_at(a, e), v);
}

static bool put_float(field_access *a, uint64_t e, double v, wh_error *err)
{
    if (!bounds_of(a, e, err)) return false;
    store_float(a, e, v);
    return true;
}

/* Element e takes the value element `from` holds (clamped into e's domain). */
static bool copy_elem(field_access *a, uint64_t from, uint64_t e, wh_error *err)
{
    if (a->b.is_float) return put_float(a, e, wh_value_get_float(a->fd->type, field_at(a, from)), err);
    return put_int(a, e, wh_value_get_int(a->fd->type, field_at(a, from)), err);
}

static bool fill_extreme(field_access *a, const gen_edit *e, bool high, wh_error *err)
{
    for (uint64_t k = e->first; k < e->first + e->count; k++) {
        if (!bounds_of(a, k, err)) return false;
        if (a->b.is_float) store_float(a, k, high ? a->b.fhi : a->b.flo);
        else store_int(a, k, high ? a->b.hi : a->b.lo);
    }
    return true;
}

/* k steps in from one end of domain b, saturating at the other end. */
static int64_t step_in(const wh_bounds *b, uint64_t k, bool up)
{
    uint64_t width = (uint64_t)b->hi - (uint64_t)b->lo;
    if (k > width) return up ? b->hi : b->lo;
    return up ? (int64_t)((uint64_t)b->lo + k) : (int64_t)((uint64_t)b->hi - k);
}

/* Distinct consecutive values from one end of the domain of the run's
 * first element: lo, lo+1, ... (floats: evenly spaced across it). */
static bool ramp(field_access *a, const gen_edit *e, bool up, wh_error *err)
{
    if (!bounds_of(a, e->first, err)) return false;
    wh_bounds b0 = a->b;
    for (uint64_t k = 0; k < e->count; k++) {
        if (!b0.is_float) {
            if (!put_int(a, e->first + k, step_in(&b0, k, up), err)) return false;
        } else {
            double s = e->count > 1 ? (double)k / (double)(e->count - 1) : 0;
            if (!put_float(a, e->first + k, wh_bounds_lerp(&b0, up ? s : 1.0 - s), err)) return false;
        }
    }
    return true;
}

static int cmp_up(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int cmp_up_f(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Sorting or reversing the run: its values gathered, rearranged, put back. */
static bool rearrange(field_access *a, const gen_edit *e, wh_error *err)
{
    size_t n = (size_t)e->count;
    void *vals = malloc(n * 8);
    if (!vals) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for an edit of %zu values", n);
        return false;
    }
    int64_t *iv = vals;
    double *fv = vals;
    for (size_t k = 0; k < n; k++) {
        if (a->b.is_float) fv[k] = wh_value_get_float(a->fd->type, field_at(a, e->first + k));
        else iv[k] = wh_value_get_int(a->fd->type, field_at(a, e->first + k));
    }
    if (e->kind == GEN_EDIT_SORT_UP || e->kind == GEN_EDIT_SORT_DOWN)
        qsort(vals, n, 8, a->b.is_float ? cmp_up_f : cmp_up);
    bool flip = e->kind != GEN_EDIT_SORT_UP;
    bool ok = true;
    for (size_t k = 0; k < n && ok; k++) {
        size_t from = flip ? n - 1 - k : k;
        if (a->b.is_float) ok = put_float(a, e->first + k, fv[from], err);
        else ok = put_int(a, e->first + k, iv[from], err);
    }
    free(vals);
    return ok;
}

/* In every warp that owns an element of the run, the first lane's
 * elements are copied to the other 31 lanes' (a shared input: every 32
 * elements take the first one's). */
static bool warp_copy(field_access *a, const gen_edit *e, wh_error *err)
{
    const wh_param *par = &a->img->spec->params[a->p];
    const wh_launch *l = &a->img->launch;
    uint64_t own = owner_elems(par), count = a->img->bufs[a->p].count, end = e->first + e->count;
    uint64_t threads = par->per_thread ? wh_launch_threads_total(l) : (count + own - 1) / own;
    uint8_t *touched = calloc(threads / 32 + 1, 1);
    if (!touched) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for a warp-copy edit");
        return false;
    }
    uint64_t j;
    for (uint64_t k = e->first; k < end && k < count; k++)
        touched[(par->per_thread ? wh_elem_owner(par, l, k, &j) : k) / 32] = 1;
    bool ok = true;
    for (uint64_t w = 0; ok && w <= threads / 32; w++) {
        for (uint64_t lane = 1; touched[w] && ok && lane < 32 && w * 32 + lane < threads; lane++)
            for (j = 0; ok && j < own; j++) {
                uint64_t from = par->per_thread ? wh_owned_elem(par, l, w * 32, j) : w * 32;
                uint64_t to = par->per_thread ? wh_owned_elem(par, l, w * 32 + lane, j) : w * 32 + lane;
                if (from < count && to < count) ok = copy_elem(a, from, to, err);
            }
    }
    free(touched);
    return ok;
}

/* The lane of the thread owning element k (shared inputs: k's lane). */
static uint64_t lane_of(const field_access *a, uint64_t k)
{
    const wh_param *par = &a->img->spec->params[a->p];
    uint64_t j;
    return (par->per_thread ? wh_elem_owner(par, &a->img->launch, k, &j) : k) % 32;
}

/* Element k's value as a fraction of its domain. */
static double shape_at(const gen_shape *s, const field_access *a, uint64_t k, pcg32 *rng)
{
    switch (s->family) {
    case GEN_SHAPE_SKEW: return pow(pcg32_double(rng), s->alpha);
    case GEN_SHAPE_HEAVY_LANES: {
        uint64_t spacing = 32 / (uint64_t)s->lanes;
        return (lane_of(a, k) + 32 - (uint64_t)s->offset) % 32 % spacing == 0 ? 1.0 : 0.0;
    }
    default: return pcg32_double(rng) < s->share ? 1.0 : 0.0;
    }
}

static bool shape(field_access *a, const gen_edit *e, wh_error *err)
{
    gen_shape s;
    gen_shape_of(e, &s);
    pcg32 rng;
    pcg32_seed(&rng, e->shape, 0x76616c73);
    for (uint64_t k = e->first; k < e->first + e->count; k++) {
        double t = shape_at(&s, a, k, &rng);
        if (!bounds_of(a, k, err)) return false;
        if (a->b.is_float) {
            store_float(a, k, wh_bounds_lerp(&a->b, t));
        } else {
            /* a 64-bit domain's width is no exact double: cast only below 2^64 */
            uint64_t width = (uint64_t)a->b.hi - (uint64_t)a->b.lo;
            double x = t * (double)width + 0.5;
            uint64_t off = x >= 0x1p64 ? width : (uint64_t)x;
            store_int(a, k, (int64_t)((uint64_t)a->b.lo + (off < width ? off : width)));
        }
    }
    return true;
}

bool gen_edit_apply(const gen_edit *e, wh_image *full, wh_error *err)
{
    if (e->kind == GEN_EDIT_NONE) return true;
    field_access a;
    if (!access_open(&a, full, e->param, e->field, err)) return false;
    switch (e->kind) {
    case GEN_EDIT_FILL_COPY:
        for (uint64_t k = e->first + 1; k < e->first + e->count; k++)
            if (!copy_elem(&a, e->first, k, err)) return false;
        return true;
    case GEN_EDIT_FILL_LOW: return fill_extreme(&a, e, false, err);
    case GEN_EDIT_FILL_HIGH: return fill_extreme(&a, e, true, err);
    case GEN_EDIT_RAMP_UP: return ramp(&a, e, true, err);
    case GEN_EDIT_RAMP_DOWN: return ramp(&a, e, false, err);
    case GEN_EDIT_SORT_UP:
    case GEN_EDIT_SORT_DOWN:
    case GEN_EDIT_REVERSE: return rearrange(&a, e, err);
    case GEN_EDIT_WARP_COPY: return warp_copy(&a, e, err);
    case GEN_EDIT_SHAPE: return shape(&a, e, err);
    default: return true;
    }
}

bool gen_edits_apply(const int *codes, int n, wh_image *full, wh_error *err)
{
    bool edited = false;
    for (int i = 0; i < n; i++) {
        gen_edit e;
        gen_edit_decode(full, (uint32_t)codes[i], &e);
        if (!gen_edit_apply(&e, full, err)) return false;
        edited |= e.kind != GEN_EDIT_NONE;
    }
    /* a ramp or a filled slice can break a sorted buffer or a permutation */
    return !edited || wh_image_restructure(full, err);
}

void gen_edit_describe(const gen_edit *e, const wh_image *full, char *buf, size_t size)
{
    if (e->kind == GEN_EDIT_NONE) {
        snprintf(buf, size, "none");
        return;
    }
    const wh_param *par = &full->spec->params[e->param];
    const char *fname = par->fields[e->field].name;
    char kind[80];
    gen_shape s;
    gen_shape_of(e, &s);
    if (e->kind != GEN_EDIT_SHAPE)
        snprintf(kind, sizeof kind, "%s", gen_edit_kind_name(e->kind));
    else if (s.family == GEN_SHAPE_SKEW)
        snprintf(kind, sizeof kind, "shape(%s, alpha %.2f)", shape_names[s.family], s.alpha);
    else if (s.family == GEN_SHAPE_HEAVY_LANES)
        snprintf(kind, sizeof kind, "shape(%s, %d per warp from lane %d)", shape_names[s.family], s.lanes, s.offset);
    else
        snprintf(kind, sizeof kind, "shape(%s, share %.2g)", shape_names[s.family], s.share);
    snprintf(buf, size, "%s %s%s%s[%llu..%llu)", kind, par->name, fname[0] ? "." : "", fname,
             (unsigned long long)e->first, (unsigned long long)(e->first + e->count));
}
