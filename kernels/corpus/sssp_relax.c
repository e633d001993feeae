/*
 * sssp_relax.c — hand-built inputs of kernels/corpus/sssp_relax.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* A relaxation state (the spec's "shortest_paths") built for contention:
 * nodes first .. S reached and in the frontier, node S the source,
 * dist[u] = (S - u) * step; each reached node u > 0's last edge (slot
 * D - 1) into node u - 1 with weight 0, in the chain of edges that set the
 * reached nodes from the source (relaxing it again lowers node u - 1 by
 * step: one more atomic, on a word of its own); every other edge (slot k)
 * into the node target_of picks, weight (D - 1 - k) * wscale, so that
 * dist[u] + w falls with (k, u) as the slots run; the other nodes
 * unreached (DMAX) and outside the frontier; every degree D.  Measured
 * for one-target (bench_corpus --inputs-only): 74361 cycles; the chain's
 * weight step (relaxing it lowers nothing) 73693; the target node N - 1
 * and the source N - 2, 74330 (73662 with weight step); the chain in slot
 * 0 instead of the last, 50983 (weight step, target N - 1): the first
 * iteration's relaxations, the highest values, are the ones later warps
 * can still beat. */
typedef int64_t (*target_fn)(int64_t u, int64_t k, int64_t n, int64_t d);

/* The weight step of the shapes below: N, so that slot k's term outweighs
 * the node's, but within the spec's WMAX (2^18 up to 16384 nodes, then 16
 * N up to 2^20 nodes, 2^24 past that: dist + weight must fit an i32) at
 * every launch size. */
static int64_t weight_step(const wh_image *img)
{
    int64_t n = corpus_var(img, "N"), d = corpus_var(img, "D"), wmax = corpus_var(img, "WMAX");
    return d > 1 && n * (d - 1) > wmax ? wmax / (d - 1) : n;
}

typedef struct {
    int64_t first, source;  /* the reached nodes: first .. source */
    int64_t step;           /* dist[u] = (source - u) * step */
    int64_t wscale;         /* slot k's weight: (D - 1 - k) * wscale */
} chain_shape;

static bool chain_state(wh_image *img, const chain_shape *c, target_fn target_of, wh_error *err)
{
    int64_t d = corpus_var(img, "D"), n = corpus_var(img, "N"), dmax = corpus_var(img, "DMAX");
    if (!corpus_fill_int(img, "degree", NULL, d, err))
        return false;
    for (int64_t u = 0; u < n; u++) {
        bool reached = u >= c->first && u <= c->source;
        if (!corpus_set_int(img, "frontier", NULL, (uint64_t)u, reached, err) ||
            !corpus_set_int(img, "dist", NULL, (uint64_t)u, reached ? (c->source - u) * c->step : dmax, err))
            return false;
        for (int64_t k = 0; k < d; k++) {
            bool chain = k == d - 1 && u > 0 && reached;
            uint64_t e = (uint64_t)(u * d + k);
            if (!corpus_set_int(img, "edges", NULL, e, chain ? u - 1 : target_of(u, k, n, d), err) ||
                !corpus_set_int(img, "weights", NULL, e, chain ? 0 : (d - 1 - k) * c->wscale, err))
                return false;
        }
    }
    return true;
}

static int64_t into_first(int64_t u, int64_t k, int64_t n, int64_t d)
{
    (void)u, (void)k, (void)n, (void)d;
    return 0;
}

/* Every edge but the chain's into node 0 (unreached; the chain from the
 * source, node N - 1, ends at node 1, whose last edge is one more into
 * node 0): up to 15/16 of the N * D relaxations succeed, atomics on one
 * word; node-major below. */
static bool one_target(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "N");
    return chain_state(img, &(chain_shape){ .first = 1, .source = n - 1, .step = 1, .wscale = weight_step(img) }, into_first, err);
}

/* The same, the distances falling with the node first (dist[u] = (S - u)
 * * D, weight of slot k = D - 1 - k). */
static bool one_target_node_major(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "N"), d = corpus_var(img, "D");
    return chain_state(img, &(chain_shape){ .first = 1, .source = n - 1, .step = d, .wscale = 1 }, into_first, err);
}

/* Lane l of every warp relaxes into node N - 32 + l (unreached): 32 words
 * (one 128-byte line), each taking a 32nd of the atomics. */
static int64_t into_lane(int64_t u, int64_t k, int64_t n, int64_t d)
{
    (void)k, (void)d;
    return n - 32 + u % 32;
}

static bool lane_targets(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "N");
    return chain_state(img, &(chain_shape){ .source = n - 33, .step = 1, .wscale = weight_step(img) }, into_lane, err);
}

/* Targets in the upper half (unreached, outside the frontier: its threads
 * exit at once), each edge of a warp's iteration in a sector of its own
 * (lane l of warp w, slot k: node N/2 + 8 * ((w*D + k)*32 + l) mod N/2,
 * shifted by the round). */
static int64_t into_half(int64_t u, int64_t k, int64_t n, int64_t d)
{
    int64_t h = n / 2, s = ((u / 32) * d + k) * 32 + u % 32; /* gather number */
    return h + ((s * 8) + (s * 8) / h) % h;
}

static bool scattered_half(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "N");
    return chain_state(img, &(chain_shape){ .source = n / 2 - 1, .step = 1, .wscale = weight_step(img) }, into_half, err);
}

static bool empty_frontier(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_int(img, "frontier", NULL, 0, err);
}

const corpus_kernel corpus_sssp_relax = {
    .name = "sssp_relax",
    .family = "graph",
    .worst = { { "one-target", one_target }, { "one-target-node-major", one_target_node_major }, { "lane-targets", lane_targets },
               { "scattered-half", scattered_half } },
    .best = { "empty-frontier", empty_frontier },
    .quick = false,
};
