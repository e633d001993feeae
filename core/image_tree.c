/*
 * image_tree.c — input buffers that hold a tree (core/spec.h, wh_tree): a
 * node per element, a leaf when its leaf field is above 0, else an
 * internal node whose child fields name its children.  Every node has at
 * most one parent, the root (element 0) none, and a child comes after its
 * parent, so the links make no cycle and no shared subtree.
 *
 * As with image_structure.c, the search builds inputs element by element
 * and every image it builds is brought to the structure here, by a
 * projection that keeps what it can: the nodes the root reaches are taken
 * first, in order (a parent comes before its children), then the others,
 * so nodes no traversal reaches never take a child from one it does.  An
 * internal node keeps each child it names that is after it, in the
 * field's range and no other node's child yet; another child becomes the
 * nearest free node above it (or, when there is none, the first free one
 * in the range), and a node left without a free node for every child
 * becomes a leaf (its leaf field the least value above 0 its range
 * allows).  A buffer that is already a tree is left as it is.
 */
#include "core/image.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int64_t node_field(const wh_buffer *b, int f, uint64_t e)
{
    return wh_value_get_int(b->param->fields[f].type, b->data + e * b->param->elem_size + b->param->fields[f].offset);
}

static void set_node_field(wh_buffer *b, int f, uint64_t e, int64_t v)
{
    wh_value_set_int(b->param->fields[f].type, b->data + e * b->param->elem_size + b->param->fields[f].offset, v);
}

/* The error names the buffer and the node, at the spec's "tree" key. */
static bool tree_error(const wh_image *img, int p, wh_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool tree_error(const wh_image *img, int p, wh_error *err, const char *fmt, ...)
{
    char msg[256], path[80];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "input \"%s\" (\"tree\"): %s", img->bufs[p].param->name,
                 msg);
    wh_param_jpath(img->spec, p, ".tree", path, sizeof path);
    wh_error_set_path(err, path);
    return false;
}

/* The first node at or above x that is no node's child yet (n: none).
 * next[] is a union-find of "the next free node", halved as it is walked;
 * next[n] = n. */
static uint64_t next_free(uint64_t *next, uint64_t x)
{
    while (next[x] != x) {
        next[x] = next[next[x]];
        x = next[x];
    }
    return x;
}

/* The first free node at or above x that is not among picked[0..k). */
static uint64_t free_not_picked(uint64_t *next, uint64_t x, uint64_t n, const uint64_t *picked, int k)
{
    for (uint64_t u = next_free(next, x < n ? x : n);; u = next_free(next, u + 1)) {
        int j = 0;
        while (j < k && picked[j] != u) j++;
        if (u >= n || j == k) return u;
    }
}

/* Node e's child through field f, none of picked[0..k): with keep, the
 * node the field names when that is after e, in the range and free; else
 * the nearest free node above it, or the first free one in the range; n
 * when there is none. */
static bool pick_child(const wh_image *img, int p, int f, uint64_t e, bool keep, uint64_t *next,
                       const uint64_t *picked, int k, uint64_t *out, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    uint64_t n = b->count;
    wh_bounds bd;
    if (!wh_image_bounds(img, p, f, e, &bd, err)) return false;
    int64_t lo = bd.lo > (int64_t)e ? bd.lo : (int64_t)e + 1, hi = bd.hi < (int64_t)n - 1 ? bd.hi : (int64_t)n - 1;
    int64_t v = node_field(b, f, e);
    *out = n;
    if (lo > hi) return true;
    uint64_t at = (uint64_t)(v < lo ? lo : v > hi ? hi : v), u = free_not_picked(next, at, n, picked, k);
    if (keep) {
        *out = v >= lo && v <= hi && u == (uint64_t)v ? u : n;
        return true;
    }
    if (u > (uint64_t)hi) u = free_not_picked(next, (uint64_t)lo, n, picked, k);
    if (u <= (uint64_t)hi) *out = u;
    return true;
}

/* Internal node e's children: first those it names that it may keep, then
 * the nearest free nodes for the others; false after an error, *full
 * false when no free node is left for one of them. */
static bool pick_children(const wh_image *img, int p, uint64_t e, uint64_t *next, uint64_t *child, bool *full,
                          wh_error *err)
{
    const wh_tree *t = img->bufs[p].param->tree;
    uint64_t n = img->bufs[p].count, taken[WH_TREE_MAX_CHILDREN];
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int c = 0; c < t->nchildren; c++) {
            if (pass == 1 && child[c] < n) continue;
            if (!pick_child(img, p, t->children[c], e, pass == 0, next, taken, k, &child[c], err)) return false;
            if (child[c] < n) taken[k++] = child[c];
        }
    *full = k == t->nchildren;
    return true;
}

/* Node e made a leaf: its leaf field the least value above 0 it allows. */
static bool make_leaf(wh_image *img, int p, uint64_t e, wh_error *err)
{
    const wh_tree *t = img->bufs[p].param->tree;
    wh_bounds bd;
    if (!wh_image_bounds(img, p, t->leaf, e, &bd, err)) return false;
    int64_t v = bd.lo > 1 ? bd.lo : 1;
    if (v > bd.hi)
        return tree_error(img, p, err, "node %llu has no free node left for a child, and its field \"%s\" cannot be "
                          "above 0 to make it a leaf (range [%lld, %lld])", (unsigned long long)e,
                          img->bufs[p].param->fields[t->leaf].name, (long long)bd.lo, (long long)bd.hi);
    set_node_field(&img->bufs[p], t->leaf, e, v);
    return true;
}

bool wh_image_restructure_tree(wh_image *img, int p, wh_error *err)
{
    wh_buffer *b = &img->bufs[p];
    const wh_tree *t = b->param->tree;
    uint64_t n = b->count;
    if (!t || n == 0) return true;
    uint64_t *next = malloc((n + 1) * sizeof *next);
    if (!next) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    char *reached = calloc(n, 1);
    if (!reached) {
        free(next);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    for (uint64_t x = 0; x <= n; x++) next[x] = x;
    next[0] = 1;   /* the root is no node's child */
    reached[0] = 1;
    bool ok = true;
    /* pass 0: the nodes the root reaches (a parent before its children, as
     * children come after parents); pass 1: the others */
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t e = 0; ok && e < n; e++) {
            if ((pass == 0) != (reached[e] != 0) || node_field(b, t->leaf, e) > 0) continue;
            uint64_t child[WH_TREE_MAX_CHILDREN];
            bool full;
            ok = pick_children(img, p, e, next, child, &full, err);
            if (ok && !full) ok = make_leaf(img, p, e, err);
            for (int c = 0; ok && full && c < t->nchildren; c++) {
                set_node_field(b, t->children[c], e, (int64_t)child[c]);
                next[child[c]] = child[c] + 1;
                reached[child[c]] = reached[e];
            }
        }
    free(reached);
    free(next);
    return ok;
}

bool wh_image_check_tree(const wh_image *img, int p, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    const wh_tree *t = b->param->tree;
    uint64_t n = b->count;
    if (!t || n == 0) return true;
    uint64_t *parent = calloc(n, sizeof *parent);   /* 1 + the parent, 0: none yet */
    if (!parent) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    bool ok = true;
    for (uint64_t e = 0; ok && e < n; e++) {
        if (node_field(b, t->leaf, e) > 0) continue;
        for (int k = 0; ok && k < t->nchildren; k++) {
            int64_t c = node_field(b, t->children[k], e);
            const char *field = b->param->fields[t->children[k]].name;
            if (c <= (int64_t)e || c >= (int64_t)n)
                ok = tree_error(img, p, err, "internal node %llu names node %lld as its child (field \"%s\"): a child "
                                "comes after its parent, within the buffer", (unsigned long long)e, (long long)c, field);
            else if (parent[c] == e + 1)
                ok = tree_error(img, p, err, "internal node %llu names node %lld twice (field \"%s\" too)",
                                (unsigned long long)e, (long long)c, field);
            else if (parent[c])
                ok = tree_error(img, p, err, "node %lld is a child of node %llu and of node %llu (field \"%s\")",
                                (long long)c, (unsigned long long)(parent[c] - 1), (unsigned long long)e, field);
            else
                parent[c] = e + 1;
        }
    }
    free(parent);
    return ok;
}
