/*
 * sssp_relax.c — hand-built inputs of kernels/corpus/sssp_relax.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* Every node in the frontier with degree D. */
static bool all_active_full(wh_image *img, wh_error *err)
{
    return corpus_fill_int(img, "frontier", NULL, 1, err) &&
           corpus_fill_int(img, "degree", NULL, corpus_var(img, "D"), err);
}

/* Relaxations whose new distances fall in the order they run: dist[u] =
 * N - 1 - u, weight of slot k = (D - 1 - k) * 2^14 (N = 2^14), so
 * dist[u] + w falls with the slot first, then the node; `far` nodes
 * (the targets) start at DMAX, so the first relaxation into each
 * improves it and every later one improves it again. */
static bool falling_by(wh_image *img, bool (*far)(int64_t v, int64_t n), bool node_major, wh_error *err)
{
    int64_t d = corpus_var(img, "D"), n = corpus_var(img, "N"), dmax = corpus_var(img, "DMAX");
    for (int64_t u = 0; u < n; u++)
        if (!corpus_set_int(img, "dist", NULL, (uint64_t)u, far(u, n) ? dmax : (n - 1 - u) * (node_major ? d : 1),
                            err))
            return false;
    for (int64_t e = 0; e < n * d; e++)
        if (!corpus_set_int(img, "weights", NULL, (uint64_t)e, (d - 1 - e % d) * (node_major ? 1 : n), err))
            return false;
    return true;
}

static bool falling(wh_image *img, bool (*far)(int64_t v, int64_t n), wh_error *err)
{
    return falling_by(img, far, false, err);
}

static bool far_last(int64_t v, int64_t n)
{
    return v == n - 1;
}

static bool far_last32(int64_t v, int64_t n)
{
    return v >= n - 32;
}

static bool far_upper_half(int64_t v, int64_t n)
{
    return v >= n / 2;
}

/* Every edge into node N - 1: N * D atomics on one word. */
static bool one_target(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "N");
    return all_active_full(img, err) && corpus_fill_int(img, "edges", NULL, n - 1, err) &&
           falling(img, far_last, err);
}

/* The same, the distances falling with the node first (dist[u] =
 * (N - 1 - u) * D, weight of slot k = D - 1 - k). */
static bool one_target_node_major(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "N");
    return all_active_full(img, err) && corpus_fill_int(img, "edges", NULL, n - 1, err) &&
           falling_by(img, far_last, true, err);
}

/* Lane l of every warp relaxes into node N - 32 + l: 32 words (one
 * 128-byte line), each taking N * D / 32 atomics. */
static bool lane_targets(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "N"), d = corpus_var(img, "D");
    if (!all_active_full(img, err))
        return false;
    for (int64_t e = 0; e < n * d; e++)
        if (!corpus_set_int(img, "edges", NULL, (uint64_t)e, n - 32 + (e / d) % 32, err))
            return false;
    return falling(img, far_last32, err);
}

/* Targets in the upper half, each edge of a warp's iteration in a sector
 * of its own (lane l of warp w, slot k: node N/2 + 8 * ((w*D + k)*32 + l)
 * mod N/2, shifted by the round); lower-half nodes succeed, upper-half
 * nodes (DMAX) fail their checks. */
static bool scattered_half(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "N"), d = corpus_var(img, "D"), h = n / 2;
    if (!all_active_full(img, err))
        return false;
    for (int64_t u = 0; u < n; u++)
        for (int64_t k = 0; k < d; k++) {
            int64_t s = ((u / 32) * d + k) * 32 + u % 32; /* gather number */
            if (!corpus_set_int(img, "edges", NULL, (uint64_t)(u * d + k), h + ((s * 8) + (s * 8) / h) % h, err))
                return false;
        }
    return falling(img, far_upper_half, err);
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
