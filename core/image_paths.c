/*
 * image_paths.c — distances that are a state of shortest-path relaxation
 * on a CSR graph ("shortest_paths", core/spec.h): what Bellman-Ford, or a
 * BFS with unit weights, from one source has computed after some
 * relaxations in some order, with the frontier (the worklist) of nodes
 * lowered since they last relaxed their out-edges.
 *
 * With lo and hi the distances' range (hi: not reached yet), every state
 * a run passes through has these, and they are what the check asks:
 *   - a source at lo, from which every reached node (below hi) is reached
 *     along edges (u, v, w) with dist[u] + w <= dist[v] (each distance was
 *     set through such an edge, and distances only fall);
 *   - a reached node outside the frontier has relaxed each out-edge:
 *     dist[v] <= dist[u] + w (or v is at hi and dist[u] + w is not below);
 *   - the frontier holds reached nodes only.
 * tests/test_paths.c runs worklist relaxations in random orders and checks
 * every state they pass through.  They are necessary, not sufficient: a
 * run's distances are also lengths of walks from the source, which is not
 * asked (a node above its in-edges' offers keeps its own value).
 *
 * The projection keeps what it can of the image's distances and frontier.
 * The source is a node at the least distance (one from which the others
 * there are reached: an image in a state keeps its source); then, in
 * Dijkstra's order from it, each node reached takes its own distance,
 * raised to the least dist[u] + w over its in-edges from nodes already
 * placed and lowered to the least over those outside the frontier.  A node
 * none reaches is unreached (hi) and leaves the frontier.  An image in a
 * state is left as it is.
 */
#include "core/image.h"
#include "core/image_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const wh_image *img;
    int dist_p, rows_p, edges_p, weights_p, frontier_p;   /* weights, frontier: -1 when none */
    uint64_t nodes;         /* the distances' elements */
    uint64_t nrows;         /* nodes with out-edges (the row pointer's rows, at most nodes) */
    uint64_t nedges;        /* the targets' elements */
    int64_t lo, hi;         /* the source's distance; an unreached node's */
} graph;

#define NOT_QUEUED UINT64_MAX
#define NO_NODE UINT64_MAX      /* an edge's target that names no node */

/* What the projection and the check keep per node, in one record: an
 * edge's target then costs one cache line (at a large launch the targets
 * spread over millions of nodes; separate arrays measured 8 % slower). */
typedef struct {
    int64_t d;              /* the distance (the image's, then the projection's) */
    int64_t support;        /* the least dist[u] + w over in-edges from placed nodes */
    int64_t cap;            /* ... from placed nodes outside the frontier */
    int64_t key;            /* the queue's key */
    uint64_t at;            /* the node's place in the queue's heap, or NOT_QUEUED */
    unsigned char placed;   /* 1 once popped (or reached, in the check); find_source's "seen" */
} node_state;

typedef struct {
    int64_t key;
    uint64_t node;
} queue_entry;

/* An indexed binary min-heap of nodes by (key, node): Dijkstra's order.
 * Each entry keeps its key beside its node, so that sifting compares
 * within the heap (looking keys up in the nodes' records measured 1.4x
 * slower at 2 M nodes). */
typedef struct {
    queue_entry *heap;      /* heap-ordered by (key, node) */
    node_state *ns;         /* each node's key and place */
    uint64_t size;
} queue;

static bool paths_error(const graph *g, wh_error *err, const char *msg)
{
    char path[96];
    wh_error_set(err, WH_ERR_USER, g->img->spec->path, 0, 0, "input \"%s\" (\"shortest_paths\"): %s",
                 g->img->bufs[g->dist_p].param->name, msg);
    wh_param_jpath(g->img->spec, g->dist_p, ".shortest_paths", path, sizeof path);
    wh_error_set_path(err, path);
    return false;
}

static const char *name_of(const graph *g, int p)
{
    return g->img->bufs[p].param->name;
}

/* The graph's buffers, and their sizes and ranges checked against what a
 * relaxation needs. */
static bool graph_open(const wh_image *img, int p, graph *g, wh_error *err)
{
    const wh_paths *w = &img->bufs[p].param->paths;
    *g = (graph){ .img = img, .dist_p = p, .rows_p = w->rows - 1, .edges_p = w->edges - 1,
                  .weights_p = w->weights - 1, .frontier_p = w->frontier - 1, .nodes = img->bufs[p].count };
    g->nedges = img->bufs[g->edges_p].count;
    g->nrows = wh_csr_nrows(img, g->rows_p);
    if (g->nrows > g->nodes) g->nrows = g->nodes;
    wh_bounds bd;
    char msg[240];
    if (!wh_image_bounds(img, p, 0, 0, &bd, err)) return false;
    g->lo = bd.lo;
    g->hi = bd.hi;
    if (g->lo >= g->hi) {
        snprintf(msg, sizeof msg, "the range [%lld, %lld] needs room: its low end is the source's distance, its "
                 "high end an unreached node's", (long long)g->lo, (long long)g->hi);
        return paths_error(g, err, msg);
    }
    if (g->weights_p >= 0) {
        if (!wh_image_bounds(img, g->weights_p, 0, 0, &bd, err)) return false;
        if (bd.lo < 0 || img->bufs[g->weights_p].count < g->nedges) {
            snprintf(msg, sizeof msg, "the weights \"%s\" need a range without negative values and an element "
                     "per edge (%llu)", name_of(g, g->weights_p), (unsigned long long)g->nedges);
            return paths_error(g, err, msg);
        }
    }
    if (g->frontier_p >= 0) {
        if (!wh_image_bounds(img, g->frontier_p, 0, 0, &bd, err)) return false;
        if (bd.lo > 0 || bd.hi < 0 || img->bufs[g->frontier_p].count < g->nodes) {
            snprintf(msg, sizeof msg, "the frontier \"%s\" needs 0 in its range (a node outside it) and an "
                     "element per node (%llu)", name_of(g, g->frontier_p), (unsigned long long)g->nodes);
            return paths_error(g, err, msg);
        }
    }
    return true;
}

/* Element e of buffer p; the common types read in place (the projection
 * reads every edge once or more: at a large launch, 10^8 of them). */
static int64_t int_at(const graph *g, int p, uint64_t e)
{
    const wh_buffer *b = &g->img->bufs[p];
    if (b->param->type == WH_I32) {
        int32_t v;
        memcpy(&v, b->data + 4 * e, 4);
        return v;
    }
    return b->param->type == WH_U8 ? b->data[e] : wh_image_int(g->img, p, e);
}

static bool in_frontier(const graph *g, uint64_t u)
{
    return g->frontier_p >= 0 && int_at(g, g->frontier_p, u) != 0;
}

/* Node u's out-edges are the targets [*b, *e) (none past the rows). */
static void out_edges(const graph *g, uint64_t u, uint64_t *b, uint64_t *e)
{
    if (u < g->nrows) wh_csr_row(g->img, g->rows_p, u, g->nedges, b, e);
    else *b = *e = 0;
}

/* Edge i's target, or NO_NODE. */
static uint64_t target(const graph *g, uint64_t i)
{
    int64_t t = int_at(g, g->edges_p, i);
    return t >= 0 && (uint64_t)t < g->nodes ? (uint64_t)t : NO_NODE;
}

static int64_t weight(const graph *g, uint64_t i)
{
    int64_t w = g->weights_p >= 0 ? int_at(g, g->weights_p, i) : 1;
    return w < 0 ? 0 : w;
}

/* d + w, no further than hi (past it a relaxation lowers nothing). */
static int64_t relaxed(const graph *g, int64_t d, int64_t w)
{
    return w >= g->hi - d ? g->hi : d + w;
}

/* The source: a node at the least distance from which every other node
 * there is reached through edges of weight 0 (the last root of a search
 * over those edges: if any node reaches them all, the root of the search
 * that found it does).  stack holds a place per node; every node's
 * `placed` is left 0. */
static uint64_t find_source(const graph *g, node_state *ns, uint64_t *stack)
{
    int64_t least = ns[0].d;
    uint64_t source = 0;
    for (uint64_t v = 0; v < g->nodes; v++) {
        if (ns[v].d < least) least = ns[v].d;
        ns[v].placed = 0;
    }
    for (uint64_t z = g->nodes; z-- > 0;) {
        if (ns[z].d != least || ns[z].placed) continue;
        uint64_t top = 0;
        source = stack[top++] = z;
        ns[z].placed = 1;
        while (top > 0) {
            uint64_t u = stack[--top], b, e;
            out_edges(g, u, &b, &e);
            for (uint64_t i = b; i < e; i++) {
                uint64_t t = target(g, i);
                if (t != NO_NODE && !ns[t].placed && ns[t].d == least && weight(g, i) == 0) {
                    ns[t].placed = 1;
                    stack[top++] = t;
                }
            }
        }
    }
    for (uint64_t v = 0; v < g->nodes; v++) ns[v].placed = 0;
    return source;
}

static bool queue_before(const queue_entry *a, const queue_entry *b)
{
    return a->key < b->key || (a->key == b->key && a->node < b->node);
}

static void queue_place(queue *q, uint64_t i, queue_entry x)
{
    q->heap[i] = x;
    q->ns[x.node].at = i;
}

/* Node v (queued or not) takes key k, below any it had. */
static void queue_lower(queue *q, uint64_t v, int64_t k)
{
    queue_entry x = { k, v };
    q->ns[v].key = k;
    uint64_t i = q->ns[v].at == NOT_QUEUED ? q->size++ : q->ns[v].at;
    while (i > 0 && queue_before(&x, &q->heap[(i - 1) / 2])) {
        queue_place(q, i, q->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    queue_place(q, i, x);
}

static uint64_t queue_pop(queue *q)
{
    queue_entry top = q->heap[0], last = q->heap[--q->size];
    uint64_t i = 0;
    q->ns[top.node].at = NOT_QUEUED;
    for (;;) {
        uint64_t c = 2 * i + 1;
        if (c >= q->size) break;
        if (c + 1 < q->size && queue_before(&q->heap[c + 1], &q->heap[c])) c++;
        if (!queue_before(&q->heap[c], &last)) break;
        queue_place(q, i, q->heap[c]);
        i = c;
    }
    if (q->size > 0) queue_place(q, i, last);
    return top.node;
}

/* Working memory of the projection and the check. */
typedef struct {
    node_state *ns;
    uint64_t *stack;
    queue q;
} work;

static void work_free(work *w)
{
    free(w->ns);
    free(w->stack);
    free(w->q.heap);
}

/* The image's distances into the nodes' records (clamped into the range). */
static bool work_open(const graph *g, work *w, wh_error *err)
{
    uint64_t n = g->nodes;
    *w = (work){ .ns = malloc(n * sizeof *w->ns), .stack = malloc(n * sizeof *w->stack),
                 .q = { .heap = malloc(n * sizeof(queue_entry)) } };
    w->q.ns = w->ns;
    if (!w->ns || !w->stack || !w->q.heap) {
        work_free(w);
        return wh_image_oom(err);
    }
    for (uint64_t v = 0; v < n; v++) {
        int64_t x = int_at(g, g->dist_p, v);
        w->ns[v] = (node_state){ .d = x < g->lo ? g->lo : x > g->hi ? g->hi : x, .support = INT64_MAX,
                                 .cap = INT64_MAX, .at = NOT_QUEUED };
    }
    return true;
}

/* A placed node u's out-edges offer their targets dist[u] + w. */
static void offer(const graph *g, work *w, uint64_t u, int64_t du)
{
    uint64_t b, e;
    bool relaxes = !in_frontier(g, u);
    out_edges(g, u, &b, &e);
    for (uint64_t i = b; i < e; i++) {
        uint64_t t = target(g, i);
        if (t == NO_NODE || w->ns[t].placed) continue;
        node_state *x = &w->ns[t];
        int64_t c = relaxed(g, du, weight(g, i));
        if (c < x->support) x->support = c;
        if (relaxes && c < x->cap) x->cap = c;
        int64_t own = x->d > x->support ? x->d : x->support;
        int64_t k = own < x->cap ? own : x->cap;
        if (x->at == NOT_QUEUED || k < x->key) queue_lower(&w->q, t, k);
    }
}

bool wh_image_restructure_paths(wh_image *img, int p, wh_error *err)
{
    graph g;
    work w;
    if (!img->bufs[p].param->paths.rows || img->bufs[p].count == 0) return true;
    if (!graph_open(img, p, &g, err) || !work_open(&g, &w, err)) return false;
    queue_lower(&w.q, find_source(&g, w.ns, w.stack), g.lo);
    while (w.q.size > 0) {
        uint64_t u = queue_pop(&w.q);
        if (w.ns[u].key >= g.hi) break;   /* it and every node after it: unreached */
        w.ns[u].placed = 1;
        w.ns[u].d = w.ns[u].key;
        offer(&g, &w, u, w.ns[u].d);
    }
    for (uint64_t v = 0; v < g.nodes; v++) {
        wh_image_set_int(img, p, v, w.ns[v].placed ? w.ns[v].d : g.hi);
        if (!w.ns[v].placed && g.frontier_p >= 0) wh_image_set_int(img, g.frontier_p, v, 0);
    }
    work_free(&w);
    return true;
}

/* Every reached node reached from the source through edges (u, v, w) with
 * dist[u] + w <= dist[v]: a search from it over such edges. */
static bool check_reached(const graph *g, work *w, wh_error *err)
{
    node_state *ns = w->ns;
    uint64_t s = find_source(g, ns, w->stack), top = 0;
    char msg[320];
    if (ns[s].d != g->lo) {
        snprintf(msg, sizeof msg, "no node is at %lld, the range's low end (the source's distance)", (long long)g->lo);
        return paths_error(g, err, msg);
    }
    ns[s].placed = 1;
    w->stack[top++] = s;
    while (top > 0) {
        uint64_t u = w->stack[--top], b, e;
        out_edges(g, u, &b, &e);
        for (uint64_t i = b; i < e; i++) {
            uint64_t t = target(g, i);
            if (t != NO_NODE && !ns[t].placed && ns[t].d < g->hi && relaxed(g, ns[u].d, weight(g, i)) <= ns[t].d) {
                ns[t].placed = 1;
                w->stack[top++] = t;
            }
        }
    }
    for (uint64_t v = 0; v < g->nodes; v++)
        if (ns[v].d < g->hi && !ns[v].placed) {
            snprintf(msg, sizeof msg, "node %llu's distance %lld is reached from the source (node %llu) through no "
                     "edges (u, v, w) with dist[u] + w <= dist[v]: no relaxation could have set it",
                     (unsigned long long)v, (long long)ns[v].d, (unsigned long long)s);
            return paths_error(g, err, msg);
        }
    return true;
}

/* Every reached node outside the frontier has relaxed its out-edges. */
static bool check_relaxed(const graph *g, const work *w, wh_error *err)
{
    for (uint64_t u = 0; u < g->nodes; u++) {
        uint64_t b, e;
        if (w->ns[u].d >= g->hi || in_frontier(g, u)) continue;
        out_edges(g, u, &b, &e);
        for (uint64_t i = b; i < e; i++) {
            uint64_t t = target(g, i);
            int64_t c = relaxed(g, w->ns[u].d, weight(g, i));
            if (t == NO_NODE || w->ns[t].d <= c) continue;
            char msg[320];
            snprintf(msg, sizeof msg, "node %llu (distance %lld) is outside the frontier, yet its edge %llu to node "
                     "%llu would lower that node's %lld to %lld: a node leaves the frontier only once it has "
                     "relaxed its edges", (unsigned long long)u, (long long)w->ns[u].d, (unsigned long long)i,
                     (unsigned long long)t, (long long)w->ns[t].d, (long long)c);
            return paths_error(g, err, msg);
        }
    }
    return true;
}

bool wh_image_check_paths(const wh_image *img, int p, wh_error *err)
{
    graph g;
    work w;
    if (!img->bufs[p].param->paths.rows || img->bufs[p].count == 0) return true;
    if (!graph_open(img, p, &g, err)) return false;
    for (uint64_t v = 0; v < g.nodes; v++)
        if (in_frontier(&g, v) && wh_image_int(img, p, v) >= g.hi) {
            char msg[240];
            snprintf(msg, sizeof msg, "node %llu is in the frontier but not reached (its distance is the range's "
                     "high end, %lld)", (unsigned long long)v, (long long)g.hi);
            return paths_error(&g, err, msg);
        }
    if (!work_open(&g, &w, err)) return false;
    bool ok = check_reached(&g, &w, err) && check_relaxed(&g, &w, err);
    work_free(&w);
    return ok;
}

void wh_paths_stats(const wh_image *img, int p, wh_paths_summary *out)
{
    graph g;
    wh_error err;
    *out = (wh_paths_summary){ .source = -1 };
    if (!img->bufs[p].param->paths.rows || img->bufs[p].count == 0 || !graph_open(img, p, &g, &err)) return;
    for (uint64_t v = 0; v < g.nodes; v++) {
        int64_t d = wh_image_int(img, p, v);
        out->reached += d < g.hi;
        out->frontier += d < g.hi && in_frontier(&g, v);
        if (d == g.lo && out->source < 0) out->source = (int64_t)v;
    }
}

