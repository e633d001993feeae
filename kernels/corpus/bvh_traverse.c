/*
 * bvh_traverse.c — hand-built inputs of kernels/corpus/bvh_traverse.cu
 * (its header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* Every node and item bound [0, 1000] (every query overlaps everything),
 * every leaf full. */
static bool all_overlap(wh_image *img, wh_error *err)
{
    return corpus_fill_float(img, "nodes", "lo", 0.0, err) && corpus_fill_float(img, "nodes", "hi", 1000.0, err) &&
           corpus_fill_float(img, "items", "lo", 0.0, err) && corpus_fill_float(img, "items", "hi", 1000.0, err);
}

static bool set_node(wh_image *img, int64_t i, int64_t left, int64_t right, int64_t nitems, wh_error *err)
{
    return corpus_set_int(img, "nodes", "left", (uint64_t)i, left, err) &&
           corpus_set_int(img, "nodes", "right", (uint64_t)i, right, err) &&
           corpus_set_int(img, "nodes", "nitems", (uint64_t)i, nitems, err);
}

/* A chain: internal node 2m has the leaf 2m + 1 on its left and the
 * internal node 2m + 2 on its right; the last internal node (NN - 3) has
 * two leaves.  A leaf's child fields point at the next node (unused). */
static bool chain_tree(wh_image *img, wh_error *err)
{
    int64_t nn = corpus_var(img, "NN"), leaf = corpus_var(img, "LEAF");
    for (int64_t i = 0; i < nn; i++) {
        int64_t next = i + 1 < nn ? i + 1 : nn - 1;
        bool internal = i % 2 == 0 && i < nn - 1;
        if (!set_node(img, i, internal ? i + 1 : next, internal ? i + 2 : next, internal ? 0 : leaf, err))
            return false;
    }
    return true;
}

/* A complete tree in heap order: node i's children are 2i + 1, 2i + 2. */
static bool balanced_tree(wh_image *img, wh_error *err)
{
    int64_t nn = corpus_var(img, "NN"), leaf = corpus_var(img, "LEAF");
    for (int64_t i = 0; i < nn; i++) {
        int64_t next = i + 1 < nn ? i + 1 : nn - 1;
        bool internal = 2 * i + 2 < nn;
        if (!set_node(img, i, internal ? 2 * i + 1 : next, internal ? 2 * i + 2 : next, internal ? 0 : leaf, err))
            return false;
    }
    return true;
}

/* Queries 0 and 1000 alternating by lane: half the lanes go left first,
 * half right first. */
static bool alternating_queries(wh_image *img, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    for (int64_t t = 0; t < n; t++)
        if (!corpus_set_float(img, "queries", NULL, (uint64_t)t, t % 2 ? 1000.0 : 0.0, err))
            return false;
    return true;
}

static bool chain_alternating(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return all_overlap(img, err) && chain_tree(img, err) && alternating_queries(img, err);
}

static bool balanced_alternating(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return all_overlap(img, err) && balanced_tree(img, err) && alternating_queries(img, err);
}

/* Every query 0: all lanes walk the same order (no divergence). */
static bool chain_uniform(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return all_overlap(img, err) && chain_tree(img, err) && corpus_fill_float(img, "queries", NULL, 0.0, err);
}

static bool chain_random_queries(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    if (!all_overlap(img, err) || !chain_tree(img, err))
        return false;
    for (int64_t t = 0; t < n; t++)
        if (!corpus_set_float(img, "queries", NULL, (uint64_t)t, (double)pcg32_bounded(rng, 1001), err))
            return false;
    return true;
}

/* The root's bounds [1000, 1000] miss every query 0: one pop. */
static bool root_misses(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_set_float(img, "nodes", "lo", 0, 1000.0, err) && corpus_set_float(img, "nodes", "hi", 0, 1000.0, err) &&
           corpus_fill_float(img, "queries", NULL, 0.0, err);
}

const corpus_kernel corpus_bvh_traverse = {
    .name = "bvh_traverse",
    .family = "tree",
    .worst = { { "chain-alternating", chain_alternating }, { "balanced-alternating", balanced_alternating },
               { "chain-uniform", chain_uniform }, { "chain-random-queries", chain_random_queries } },
    .best = { "root-misses", root_misses },
    .quick = false,
};
