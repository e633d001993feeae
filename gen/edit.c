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
 *
 * A contention worst case needs several buffers to agree at once:
 * sssp_relax's relaxations all succeed, serialised on one node, only if
 * every edge goes into that node, its distance starts far above the rest,
 * the distances fall with the node and the weights fall with the slot a
 * thread's loop reads them in, by more than the distances' span.  Fewer
 * parts make the kernel faster (measured: 19799 cycles for a
 * random input with a full frontier and full rows, 13891-16021 for five
 * combinations of one to three of the parts, 84677 with all four), so a
 * screen of one edit at a time
 * never assembles it: contend-min is the four parts as one edit.  Since
 * sssp_relax's distances must be a relaxation state ("shortest_paths",
 * session 36), a node that no edge reaches leaves the frontier: edges all
 * into one node would leave only the source running, so on such distances
 * the edit also lays a chain (each row's last edge into the previous
 * node) and fills the frontier (74361 cycles, the header's state).
 *
 * A tree's shape is another such relation ("tree" buffers, core/spec.h):
 * bvh_traverse's worst is a chain every query descends, which needs each
 * internal node's children, its leaves and the next internal node to agree
 * at once.  tree-chain makes the whole buffer a chain (each internal node's
 * children its next nodes, one of them, the screen's choice of child
 * field, the next internal node), tree-complete a complete tree in heap
 * order; leaves as full as their leaf field allows.
 *
 * A walk's worst case can need the buffer one step in from its extreme and
 * a single thread apart from the rest (union_find_roots: parent[v] in
 * [0, v] at its top makes every node a root, the fastest input; one below
 * it, v - 1, is one chain of all the nodes; and one walker on it, the
 * other queries at the root, runs 11x every thread walking it, since
 * walkers halve the path for each other).  The ends edit says each: every
 * element one step below its top (above its bottom), or the first element
 * at its top (bottom) and the rest at the other end.  The screen has it
 * only when asked (hunt --end-edits): off, the search is the one the
 * corpus table measured.
 */
#include "gen/gen.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[GEN_EDIT_KINDS] = {
    "none", "fill-copy", "fill-low", "fill-high", "sort-up", "sort-down",
    "ramp-up", "ramp-down", "reverse", "warp-copy", "shape", "contend-min", "contend-max", "tree-chain",
    "tree-complete", "ends",
};

static const char *const ends_names[GEN_ENDS_VARIANTS] = { "below-high", "above-low", "one-high", "one-low" };

static const char *const shape_names[GEN_SHAPE_FAMILIES] = { "skew", "heavy-lanes", "hubs" };

const char *gen_edit_kind_name(gen_edit_kind k)
{
    return k >= 0 && k < GEN_EDIT_KINDS ? kind_names[k] : "?";
}

/* Whether element e's domain holds more than one value. */
static bool free_at(const wh_image *img, int p, int f, uint64_t e)
{
    wh_bounds b;
    wh_error err;
    wh_error_clear(&err);
    if (!wh_image_bounds(img, p, f, e, &b, &err)) return false;
    return b.is_float ? b.fhi > b.flo : b.hi > b.lo;
}

/* A field worth editing: an input buffer's field, or a searched scalar
 * (a knob: a threshold, a band, a length), whose domain is not a single
 * value (judged at the first and the last element: "i*8" in ["i*8",
 * "i*8"] is pinned, union_find_roots's parent[v] in [0, v] is not, though
 * its element 0 is), and that is no running sum (the projection
 * recomputes it from its summands: an edit of it would be undone). */
static bool editable(const wh_image *img, int p, int f)
{
    const wh_param *par = &img->spec->params[p];
    uint64_t count = img->bufs[p].count;
    if (par->role != WH_ROLE_INPUT || count == 0) return false;
    if (par->prefix_of || par->fields[f].prefix_of) return false;
    return free_at(img, p, f, 0) || (wh_field_varies_by_index(&par->fields[f]) && free_at(img, p, f, count - 1));
}

/* Whether field f of buffer p holds the summands of a running sum (a
 * CSR matrix's row lengths, a graph's degrees): an input buffer, or a
 * sibling field, is stated as their prefix sum. */
static bool summands(const wh_image *img, int p, int f)
{
    const wh_param *par = &img->spec->params[p];
    for (int r = 0; r < img->nbufs; r++)
        if (img->spec->params[r].role == WH_ROLE_INPUT && img->spec->params[r].prefix_of == p + 1 && par->nfields == 1)
            return true;
    for (int g = 0; g < par->nfields; g++)
        if (par->fields[g].prefix_of == f + 1) return true;
    return false;
}

static bool is_contend(gen_edit_kind k)
{
    return k == GEN_EDIT_CONTEND_MIN || k == GEN_EDIT_CONTEND_MAX;
}

static bool is_tree_kind(gen_edit_kind k)
{
    return k == GEN_EDIT_TREE_CHAIN || k == GEN_EDIT_TREE_COMPLETE;
}

/* Field f of buffer p is where a tree's edits are named: the first child
 * field of a "tree" buffer. */
static bool tree_field(const wh_image *full, int p, int f)
{
    const wh_tree *t = full->spec->params[p].tree;
    return t && t->children[0] == f;
}

/* Whether field (ip, ifield) indexes buffer p's elements: an integer field
 * of another input buffer whose range is exactly [0, count - 1] of p's
 * (the same at every element).  A range that only fits inside p's (flags
 * in [0, 1], degrees in [0, 16]) is no index buffer: its contend edits
 * would be noise in the screen. */
static bool indexes(const wh_image *full, int ip, int ifield, int p)
{
    const wh_param *par = &full->spec->params[ip];
    if (ip == p || par->role != WH_ROLE_INPUT || par->kind != WH_BUFFER || full->bufs[ip].count == 0) return false;
    if (wh_field_varies_by_index(&par->fields[ifield])) return false;
    wh_bounds b;
    wh_error err;
    wh_error_clear(&err);
    if (!wh_image_bounds(full, ip, ifield, 0, &b, &err) || b.is_float) return false;
    return b.lo == 0 && b.hi >= 0 && (uint64_t)b.hi == full->bufs[p].count - 1;
}

/* The index fields into buffer p in buffer order: how many there are, and
 * the ordinal-th one's buffer and field (left alone when out of range). */
static int index_fields(const wh_image *full, int p, int ordinal, int *ip, int *ifield)
{
    int n = 0;
    for (int q = 0; q < full->nbufs; q++)
        for (int f = 0; f < full->spec->params[q].nfields; f++)
            if (indexes(full, q, f, p) && n++ == ordinal) {
                *ip = q;
                *ifield = f;
            }
    return n;
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
 * which random codes never have); contend kinds name their index field by
 * its ordinal among the field's (bits 16-30). */
static uint32_t screen_code(int ordinal, gen_edit_kind kind, int index_ordinal)
{
    return GEN_EDIT_SCREEN_BIT | (uint32_t)index_ordinal << 16 | ((uint32_t)ordinal & 0xfff) << 4 | (uint32_t)kind;
}

/* A contend edit's index field, the index_ordinal-th of its buffer's.
 * False when there is none. */
static bool point_from(const wh_image *full, gen_edit *e, int index_ordinal)
{
    int n = index_fields(full, e->param, index_ordinal, &e->index_param, &e->index_field);
    return index_ordinal >= 0 && index_ordinal < n;
}

/* The screen's shapes: one heavy lane per warp (shape 0) on every field;
 * on the summands of a running sum also the skew at its high end (most
 * rows long but no two warps' rows alike: sptrsv_level's worst inputs,
 * bench/shape_skew_session53.md), named by a shape no random code has
 * (random codes leave the screen bit clear). */
#define SHAPE_SCREEN_HIGH_SKEW (GEN_EDIT_SCREEN_BIT | 1u)

static int shape_screen_variants(const wh_image *full, int p, int f)
{
    return summands(full, p, f) ? 2 : 1;
}

void gen_edit_decode(const wh_image *full, uint32_t code, gen_edit *e)
{
    memset(e, 0, sizeof *e);
    e->kind = GEN_EDIT_NONE;
    if (code == 0) return;
    if (code & GEN_EDIT_SCREEN_BIT) {
        uint32_t ordinal = code >> 4 & 0xfff, kind = code & 15, index_ordinal = (code & ~GEN_EDIT_SCREEN_BIT) >> 16;
        if (kind == GEN_EDIT_NONE || kind >= GEN_EDIT_KINDS) return;
        if ((int)ordinal >= editable_fields(full, (int)ordinal, &e->param, &e->field)) return;
        if (is_contend((gen_edit_kind)kind) && !point_from(full, e, (int)index_ordinal)) return;
        if (is_tree_kind((gen_edit_kind)kind) &&
            (!tree_field(full, e->param, e->field) ||
             (int)index_ordinal >= full->spec->params[e->param].tree->nchildren))
            return;
        if (kind == GEN_EDIT_ENDS && index_ordinal >= GEN_ENDS_VARIANTS) return;
        if (kind == GEN_EDIT_SHAPE && (int)index_ordinal >= shape_screen_variants(full, e->param, e->field)) return;
        if (kind == GEN_EDIT_SHAPE && index_ordinal == 1) e->shape = SHAPE_SCREEN_HIGH_SKEW;
        e->slot = (int)index_ordinal;
        e->count = full->bufs[is_contend((gen_edit_kind)kind) ? e->index_param : e->param].count;
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
    e->kind = (gen_edit_kind)(1 + pcg32_bounded(&rng, GEN_EDIT_RUN_KINDS - 1));
    if (e->kind == GEN_EDIT_SHAPE) e->shape = code;
}

void gen_shape_of(const gen_edit *e, gen_shape *out)
{
    memset(out, 0, sizeof *out);
    out->family = GEN_SHAPE_HEAVY_LANES;
    out->lanes = 1;
    if (e->shape == 0) return;
    if (e->shape == SHAPE_SCREEN_HIGH_SKEW) {
        out->family = GEN_SHAPE_SKEW;
        out->alpha = 1.0 / 16;
        return;
    }
    pcg32 rng;
    pcg32_seed(&rng, e->shape, 0x73686170);
    out->family = (gen_shape_family)pcg32_bounded(&rng, GEN_SHAPE_FAMILIES);
    out->alpha = exp2(8.0 * pcg32_double(&rng) - 4.0);
    out->lanes = (int)log_uniform(&rng, 32);
    out->offset = (int)pcg32_bounded(&rng, 32);
    out->share = exp2(-12.0 * pcg32_double(&rng));
}

/* Extremes first: if the screen is cut short, every field keeps them (and
 * the few contend codes, which no sequence of other edits reaches); the
 * optional ends last, so that the screen without them is a prefix. */
static const gen_edit_kind screen_order[GEN_EDIT_KINDS - 1] = {
    GEN_EDIT_FILL_HIGH, GEN_EDIT_FILL_LOW, GEN_EDIT_CONTEND_MIN, GEN_EDIT_CONTEND_MAX, GEN_EDIT_TREE_CHAIN,
    GEN_EDIT_TREE_COMPLETE, GEN_EDIT_FILL_COPY, GEN_EDIT_SORT_DOWN, GEN_EDIT_SORT_UP, GEN_EDIT_RAMP_DOWN,
    GEN_EDIT_RAMP_UP, GEN_EDIT_REVERSE, GEN_EDIT_WARP_COPY, GEN_EDIT_SHAPE, GEN_EDIT_ENDS,
};

/* How many screen codes kind k has on field f of buffer p: contend kinds
 * one per index field into it; tree kinds none but on a tree's first child
 * field, where a chain has one per child field that can link it; ends one
 * per variant; shapes two on the summands of a running sum; a searched
 * scalar only its two ends. */
static int screen_variants(const wh_image *full, gen_edit_kind k, int p, int f)
{
    int ip, ifield;
    /* a scalar has one value: its domain's ends are all a screen can try */
    if (full->spec->params[p].kind == WH_SCALAR) return k == GEN_EDIT_FILL_HIGH || k == GEN_EDIT_FILL_LOW;
    if (k == GEN_EDIT_ENDS) return GEN_ENDS_VARIANTS;
    if (k == GEN_EDIT_SHAPE) return shape_screen_variants(full, p, f);
    if (is_tree_kind(k))
        return !tree_field(full, p, f) ? 0 : k == GEN_EDIT_TREE_CHAIN ? full->spec->params[p].tree->nchildren : 1;
    return is_contend(k) ? index_fields(full, p, -1, &ip, &ifield) : 1;
}

/* The codes of the first nkinds kinds of screen_order, up to max (codes
 * NULL: only how many there are). */
static int screen_codes(const wh_image *full, int nkinds, int *codes, int *groups, int max)
{
    int p, f, nfields = editable_fields(full, -1, &p, &f), n = 0;
    for (int k = 0; k < nkinds; k++)
        for (int i = 0; i < nfields; i++) {
            editable_fields(full, i, &p, &f);
            int variants = screen_variants(full, screen_order[k], p, f);
            for (int v = 0; v < variants && n < max; v++, n++) {
                if (!codes) continue;
                codes[n] = (int)screen_code(i, screen_order[k], v);
                groups[n] = is_contend(screen_order[k]) ? nfields + i : i;
            }
        }
    return n;
}

/* The ends codes join only when all of them fit: cut short they would be
 * the first fields' only, and they would take every place a round leaves
 * the search (bvh_traverse's 83 codes and 32 ends at a round of 100: 0.924
 * of the known worst against 0.989, bench/corpus_session48_ends.md). */
int gen_edit_screen(const wh_image *full, bool ends, int *codes, int *groups, int max)
{
    int all = GEN_EDIT_KINDS - 1;   /* screen_order's last kind is the ends' */
    if (ends && screen_codes(full, all, NULL, NULL, INT_MAX) <= max)
        return screen_codes(full, all, codes, groups, max);
    return screen_codes(full, all - 1, codes, groups, max);
}

/* Reads and clamped writes of one field of one buffer; bounds are
 * evaluated once unless they vary with the element index. */
typedef struct {
    wh_image *img;
    int p, f;
    const wh_field *fd;
    bool by_index;
    wh_bounds b;
    uint64_t *slots;    /* an owner through an index: its inverse for a whole run (with_slots), or NULL */
} field_access;

static bool access_open(field_access *a, wh_image *img, int p, int f, wh_error *err)
{
    a->img = img;
    a->p = p;
    a->f = f;
    a->fd = &img->spec->params[p].fields[f];
    a->by_index = wh_field_varies_by_index(a->fd);
    a->slots = NULL;
    return wh_image_bounds(img, p, f, 0, &a->b, err);
}

/* The owner of element k (UINT64_MAX: none) and which of its elements k
 * is (*j); for a shared input, k itself (*j 0).  Under an owner through an
 * index its inverse is built on the first lookup, for the whole edit
 * (which changes no index; access_close frees it); out of memory, each
 * lookup scans the index. */
static uint64_t elem_owner(field_access *a, uint64_t k, uint64_t *j)
{
    *j = 0;
    if (!a->img->spec->params[a->p].per_thread) return k;
    if (a->img->spec->params[a->p].owner_index && !a->slots) a->slots = wh_image_index_slots(a->img, a->p);
    return wh_image_elem_owner_in(a->img, a->p, k, j, a->slots);
}

static void access_close(field_access *a)
{
    free(a->slots);
    a->slots = NULL;
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

/* The ends edit (gen_ends_variant): the run's first element at one end
 * of its domain and the others at the other, or each element one step in
 * from an end of its own domain (floats: the next value in). */
static bool ends(field_access *a, const gen_edit *e, wh_error *err)
{
    bool high = e->slot == GEN_ENDS_BELOW_HIGH || e->slot == GEN_ENDS_ONE_HIGH;
    if (e->slot >= GEN_ENDS_ONE_HIGH) {
        gen_edit head = { .first = e->first, .count = 1 }, rest = { .first = e->first + 1, .count = e->count - 1 };
        return fill_extreme(a, &head, high, err) && fill_extreme(a, &rest, !high, err);
    }
    for (uint64_t k = e->first; k < e->first + e->count; k++) {
        if (!bounds_of(a, k, err)) return false;
        double from = high ? a->b.fhi : a->b.flo, toward = high ? -INFINITY : INFINITY;
        if (!a->b.is_float) store_int(a, k, step_in(&a->b, 1, !high));
        else if (a->fd->type == WH_F32) store_float(a, k, nextafterf((float)from, (float)toward));
        else store_float(a, k, nextafter(from, toward));
    }
    return true;
}

/* Distinct consecutive values from one end of the domain of the run's
 * first element: lo, lo+1, ... (floats: evenly spaced across it); with
 * `reversed`, the run's last element takes the first value (ramp-to-low:
 * ..., lo+1, lo). */
static bool ramp(field_access *a, const gen_edit *e, bool up, bool reversed, wh_error *err)
{
    if (!bounds_of(a, e->first, err)) return false;
    wh_bounds b0 = a->b;
    for (uint64_t k = 0; k < e->count; k++) {
        uint64_t step = reversed ? e->count - 1 - k : k;
        if (!b0.is_float) {
            if (!put_int(a, e->first + k, step_in(&b0, step, up), err)) return false;
        } else {
            double s = e->count > 1 ? (double)step / (double)(e->count - 1) : 0;
            if (!put_float(a, e->first + k, wh_bounds_lerp(&b0, up ? s : 1.0 - s), err)) return false;
        }
    }
    return true;
}

/* A running sum that cuts buffer q into rows: an input buffer's running
 * sum whose range is [0, count(q)] (sssp_relax's row_start over its edges
 * and weights); -1: none. */
static int row_starts_of(const wh_image *img, int q)
{
    for (int r = 0; r < img->nbufs; r++) {
        const wh_param *par = &img->spec->params[r];
        if (!par->prefix_of || par->role != WH_ROLE_INPUT || par->nfields != 1 || img->bufs[r].count == 0) continue;
        wh_bounds b;
        wh_error err;
        wh_error_clear(&err);
        if (wh_image_bounds(img, r, 0, 0, &b, &err) && !b.is_float && b.lo == 0 && b.hi >= 0 &&
            (uint64_t)b.hi == img->bufs[q].count)
            return r;
    }
    return -1;
}

/* Element k's place in its row: k less the last row start at or below it
 * (the starts rise: a running sum of counts). */
static uint64_t place_in_row(const wh_image *img, int r, uint64_t k)
{
    const wh_param *par = &img->spec->params[r];
    uint64_t lo = 0, hi = img->bufs[r].count;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)wh_value_get_int(par->fields[0].type, img->bufs[r].data + mid * par->elem_size) <= k) lo = mid;
        else hi = mid;
    }
    int64_t start = wh_value_get_int(par->fields[0].type, img->bufs[r].data + lo * par->elem_size);
    return start >= 0 && (uint64_t)start <= k ? k - (uint64_t)start : k;
}

/* Each element's value by the iteration of its thread's loop that reads
 * it, j (its place in its row when a running sum cuts the buffer into
 * rows, else its owned index), at most per_thread - 1: j/per_thread of the
 * way from one end of its domain (integers: j steps of width/per_thread),
 * so every thread reads values falling (or rising) by a fixed amount per
 * iteration. */
static bool slot_ramp(field_access *a, const gen_edit *e, bool up, wh_error *err)
{
    const wh_param *par = &a->img->spec->params[a->p];
    uint64_t own = owner_elems(par);
    int rows = row_starts_of(a->img, a->p);
    for (uint64_t k = e->first; k < e->first + e->count; k++) {
        uint64_t j = 0;
        if (rows >= 0) j = place_in_row(a->img, rows, k);
        else if (elem_owner(a, k, &j) == UINT64_MAX) j = 0;
        if (j >= own) j = own - 1;
        if (!bounds_of(a, k, err)) return false;
        if (a->b.is_float) {
            double s = (double)j / (double)own;
            store_float(a, k, wh_bounds_lerp(&a->b, up ? s : 1.0 - s));
        } else {
            uint64_t width = (uint64_t)a->b.hi - (uint64_t)a->b.lo, off = j * (width / own);
            store_int(a, k, up ? (int64_t)((uint64_t)a->b.lo + off) : (int64_t)((uint64_t)a->b.hi - off));
        }
    }
    return true;
}

/* The elements the index buffer's run points at take their domain's end
 * (indices outside the buffer point at nothing). */
static bool pointed(field_access *a, field_access *idx, const gen_edit *e, bool high, wh_error *err)
{
    uint64_t count = a->img->bufs[a->p].count;
    for (uint64_t k = e->first; k < e->first + e->count; k++) {
        int64_t v = wh_value_get_int(idx->fd->type, field_at(idx, k));
        if (v < 0 || (uint64_t)v >= count) continue;
        if (!bounds_of(a, (uint64_t)v, err)) return false;
        if (a->b.is_float) store_float(a, (uint64_t)v, high ? a->b.fhi : a->b.flo);
        else store_int(a, (uint64_t)v, high ? a->b.hi : a->b.lo);
    }
    return true;
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
        qsort(vals, n, 8, a->b.is_float ? cmp_up_f : wh_cmp_i64);
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
    for (uint64_t k = e->first; k < end && k < count; k++) {
        uint64_t owner = elem_owner(a, k, &j);
        if (owner < threads) touched[owner / 32] = 1;
    }
    bool ok = true;
    for (uint64_t w = 0; ok && w <= threads / 32; w++) {
        for (uint64_t lane = 1; touched[w] && ok && lane < 32 && w * 32 + lane < threads; lane++)
            for (j = 0; ok && j < own; j++) {
                uint64_t from = par->per_thread ? wh_image_owned_elem(a->img, a->p, w * 32, j) : w * 32;
                uint64_t to = par->per_thread ? wh_image_owned_elem(a->img, a->p, w * 32 + lane, j) : w * 32 + lane;
                if (from < count && to < count) ok = copy_elem(a, from, to, err);
            }
    }
    free(touched);
    return ok;
}

/* The lane of the thread owning element k (shared inputs: k's lane). */
static uint64_t lane_of(field_access *a, uint64_t k)
{
    uint64_t j, owner = elem_owner(a, k, &j);
    return (owner == UINT64_MAX ? k : owner) % 32;
}

/* Element k's value as a fraction of its domain. */
static double shape_at(const gen_shape *s, field_access *a, uint64_t k, pcg32 *rng)
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

/* Whether buffer q runs beside buffer p: another input buffer with as
 * many elements and the same ownership (sssp_relax's weights beside its
 * edges: element e of both is one edge). */
static bool parallel(const wh_image *img, int q, int p)
{
    const wh_param *a = &img->spec->params[q], *b = &img->spec->params[p];
    return q != p && a->role == WH_ROLE_INPUT && a->kind == WH_BUFFER && img->bufs[q].count == img->bufs[p].count &&
           a->per_thread == b->per_thread && a->owner == b->owner && a->owner_rows == b->owner_rows &&
           a->rows_by_warp == b->rows_by_warp && a->owner_index == b->owner_index;
}

/* op(run, flag) on every editable field beside the index buffer (parallel
 * to it), buffer `skip` aside: the weights of sssp_relax's edges. */
typedef bool (*run_op)(field_access *a, const gen_edit *run, bool flag, wh_error *err);

static bool beside_index(wh_image *img, int index_param, int skip, run_op op, const gen_edit *run, bool flag,
                         wh_error *err)
{
    for (int q = 0; q < img->nbufs; q++)
        for (int f = 0; q != skip && parallel(img, q, index_param) && f < img->spec->params[q].nfields; f++) {
            field_access side;
            if (!editable(img, q, f)) continue;
            bool ok = access_open(&side, img, q, f, err) && op(&side, run, flag, err);
            access_close(&side);
            if (!ok) return false;
        }
    return true;
}

/* When a running sum cuts the index buffer into rows, every row at its
 * longest: the summands at their high end, the row starts recomputed. */
static bool rows_full(wh_image *img, int index_param, wh_error *err)
{
    int rows = row_starts_of(img, index_param);
    if (rows < 0) return true;
    int lengths = img->spec->params[rows].prefix_of - 1;
    field_access len;
    gen_edit all = { .first = 0, .count = img->bufs[lengths].count };
    if (img->spec->params[lengths].nfields != 1 || !editable(img, lengths, 0)) return true;
    return access_open(&len, img, lengths, 0, err) && fill_extreme(&len, &all, true, err) &&
           wh_image_restructure(img, err);
}

/* Distances that must be a relaxation state ("shortest_paths") over the
 * index buffer as their edges: a node nothing reaches leaves the frontier
 * and runs nothing, so the edges into one node alone would leave only the
 * source running.  Each row's last entry in the run becomes the edge into
 * the previous row's node: a chain down from the source (the last node,
 * which b's ramp puts at its low end) that reaches every node, the fields
 * beside it at their low (high) end, so that dist[u] + w <= dist[u - 1]
 * as the ramp has them (sssp_relax: weight 0, and relaxing it again
 * lowers node u - 1 by the ramp's step of 1); the frontier full.  The
 * other entries keep the contended node. */
static bool chain_rows(field_access *b, const gen_edit *e, bool min, wh_error *err)
{
    wh_image *img = b->img;
    const wh_paths *paths = &img->spec->params[b->p].paths;
    if (!paths->rows || paths->edges - 1 != e->index_param || img->spec->params[e->index_param].nfields != 1)
        return true;
    uint64_t nrows = wh_csr_nrows(img, paths->rows - 1), end = e->first + e->count;
    for (uint64_t k = 1; k < nrows; k++) {
        uint64_t first, last;
        wh_csr_row(img, paths->rows - 1, k, img->bufs[e->index_param].count, &first, &last);
        if (first >= last || last - 1 < e->first || last - 1 >= end) continue;
        gen_edit one = { .first = last - 1, .count = 1 };
        wh_image_set_int(img, e->index_param, last - 1, (int64_t)k - 1);
        if (!beside_index(img, e->index_param, b->p, fill_extreme, &one, !min, err)) return false;
    }
    field_access flags;
    gen_edit all = { .first = 0, .count = paths->frontier ? img->bufs[paths->frontier - 1].count : 0 };
    return !paths->frontier ||
           (access_open(&flags, img, paths->frontier - 1, 0, err) && fill_extreme(&flags, &all, true, err));
}

/* contend-min (min) or contend-max on buffer b through the edit's index
 * field: the index run at 0 (and its rows, if a running sum cuts it into
 * rows, at their longest), b ramped to its low (high) end, every editable
 * field beside the index buffer falling (rising) with the iteration that
 * reads it, and the element the indices point at at b's high (low) end;
 * for distances that must be a relaxation state, a chain (chain_rows). */
static bool contend(field_access *b, const gen_edit *e, bool min, wh_error *err)
{
    wh_image *img = b->img;
    field_access idx;
    if (!access_open(&idx, img, e->index_param, e->index_field, err) || !fill_extreme(&idx, e, false, err) ||
        !rows_full(img, e->index_param, err))
        return false;
    gen_edit whole = { .first = 0, .count = img->bufs[b->p].count };
    gen_edit beside = { .first = 0, .count = img->bufs[e->index_param].count };
    return ramp(b, &whole, min, true, err) && beside_index(img, e->index_param, b->p, slot_ramp, &beside, !min, err) &&
           pointed(b, &idx, e, min, err) && chain_rows(b, e, min, err);
}

/* Node i of a tree buffer a leaf (its leaf field at the top of its range,
 * as full as it may be) or, when its range allows one at or below 0, an
 * internal node whose children fields name child[0..k). */
static bool set_tree_node(wh_image *img, int p, uint64_t i, const int64_t *child, bool leaf, wh_error *err)
{
    const wh_tree *t = img->spec->params[p].tree;
    field_access lf;
    if (!access_open(&lf, img, p, t->leaf, err) || !bounds_of(&lf, i, err)) return false;
    bool internal = !leaf && lf.b.lo <= 0;
    store_int(&lf, i, internal ? 0 : lf.b.hi);
    for (int c = 0; internal && c < t->nchildren; c++) {
        field_access cf;
        if (!access_open(&cf, img, p, t->children[c], err) || !put_int(&cf, i, child[c], err)) return false;
    }
    return true;
}

/* tree-chain and tree-complete over the whole tree buffer (the projection
 * then mends whatever the fields' ranges did not allow). */
static bool tree_shape(wh_image *img, const gen_edit *e, wh_error *err)
{
    const wh_tree *t = img->spec->params[e->param].tree;
    int k = t->nchildren;
    uint64_t n = img->bufs[e->param].count, next = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t child[WH_TREE_MAX_CHILDREN];
        bool leaf;
        if (e->kind == GEN_EDIT_TREE_COMPLETE) {
            leaf = (uint64_t)k * i + (uint64_t)k >= n;
            for (int c = 0; c < k; c++) child[c] = (int64_t)((uint64_t)k * i + 1 + (uint64_t)c);
        } else {
            /* internal nodes 0, k, 2k, ...: children i+1 .. i+k, the
             * next internal one (i+k) in field e->slot */
            leaf = i != next || i + (uint64_t)k >= n;
            for (int c = 0, other = 1; c < k; c++)
                child[c] = (int64_t)i + (c == e->slot ? k : other++);
            if (!leaf) next = i + (uint64_t)k;
        }
        if (!set_tree_node(img, e->param, i, child, leaf, err)) return false;
    }
    return true;
}

static bool apply_access(field_access *a, const gen_edit *e, wh_image *full, wh_error *err)
{
    switch (e->kind) {
    case GEN_EDIT_FILL_COPY:
        for (uint64_t k = e->first + 1; k < e->first + e->count; k++)
            if (!copy_elem(a, e->first, k, err)) return false;
        return true;
    case GEN_EDIT_FILL_LOW: return fill_extreme(a, e, false, err);
    case GEN_EDIT_FILL_HIGH: return fill_extreme(a, e, true, err);
    case GEN_EDIT_RAMP_UP: return ramp(a, e, true, false, err);
    case GEN_EDIT_RAMP_DOWN: return ramp(a, e, false, false, err);
    case GEN_EDIT_CONTEND_MIN: return contend(a, e, true, err);
    case GEN_EDIT_CONTEND_MAX: return contend(a, e, false, err);
    case GEN_EDIT_SORT_UP:
    case GEN_EDIT_SORT_DOWN:
    case GEN_EDIT_REVERSE: return rearrange(a, e, err);
    case GEN_EDIT_WARP_COPY: return warp_copy(a, e, err);
    case GEN_EDIT_SHAPE: return shape(a, e, err);
    case GEN_EDIT_TREE_CHAIN:
    case GEN_EDIT_TREE_COMPLETE: return tree_shape(full, e, err);
    case GEN_EDIT_ENDS: return ends(a, e, err);
    default: return true;
    }
}

bool gen_edit_apply(const gen_edit *e, wh_image *full, wh_error *err)
{
    if (e->kind == GEN_EDIT_NONE) return true;
    field_access a;
    if (!access_open(&a, full, e->param, e->field, err)) return false;
    bool ok = apply_access(&a, e, full, err);
    access_close(&a);
    return ok;
}

bool gen_edits_apply(const int *codes, int n, wh_image *full, wh_error *err)
{
    bool edited = false, synced = false;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            gen_edit e;
            gen_edit_decode(full, (uint32_t)codes[i], &e);
            if (is_contend(e.kind) != (pass == 1)) continue;
            /* a contend edit reads the row starts: brought up to date first */
            if (pass == 1 && edited && !synced && !wh_image_restructure(full, err)) return false;
            synced = pass == 1;
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
    if (e->kind == GEN_EDIT_ENDS)
        snprintf(kind, sizeof kind, "%s", ends_names[e->slot]);
    else if (e->kind != GEN_EDIT_SHAPE)
        snprintf(kind, sizeof kind, "%s", gen_edit_kind_name(e->kind));
    else if (s.family == GEN_SHAPE_SKEW)
        snprintf(kind, sizeof kind, "shape(%s, alpha %.2f)", shape_names[s.family], s.alpha);
    else if (s.family == GEN_SHAPE_HEAVY_LANES)
        snprintf(kind, sizeof kind, "shape(%s, %d per warp from lane %d)", shape_names[s.family], s.lanes, s.offset);
    else
        snprintf(kind, sizeof kind, "shape(%s, share %.2g)", shape_names[s.family], s.share);
    if (is_contend(e->kind)) {
        const wh_param *ipar = &full->spec->params[e->index_param];
        const char *iname = ipar->fields[e->index_field].name;
        snprintf(buf, size, "%s %s%s%s[%s%s%s[%llu..%llu)]", kind, par->name, fname[0] ? "." : "", fname,
                 ipar->name, iname[0] ? "." : "", iname, (unsigned long long)e->first,
                 (unsigned long long)(e->first + e->count));
        return;
    }
    snprintf(buf, size, "%s %s%s%s[%llu..%llu)", kind, par->name, fname[0] ? "." : "", fname,
             (unsigned long long)e->first, (unsigned long long)(e->first + e->count));
}
