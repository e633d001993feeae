/*
 * binary_search.c — hand-built inputs of kernels/corpus/binary_search.cu
 * (its header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* The key of the node at depth d (1 = the root) reached by the d - 1 path
 * bits of `path` (most significant first; 1 = right). */
static int64_t node_at(int64_t nkeys, int depth, uint32_t path)
{
    int64_t lo = 0, hi = nkeys - 1;
    for (int s = 1; s < depth; s++) {
        int64_t mid = (lo + hi) / 2;
        if ((path >> (depth - 1 - s)) & 1u)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return (lo + hi) / 2;
}

static uint32_t bitrev(uint32_t x, int bits)
{
    uint32_t r = 0;
    for (int i = 0; i < bits; i++)
        r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
}

/* keys[i] = i: the perfect search tree the queries below are placed in. */
static bool iota_keys(wh_image *img, wh_error *err)
{
    int64_t keys = corpus_var(img, "N");
    for (int64_t i = 0; i < keys; i++)
        if (!corpus_set_int(img, "keys", NULL, (uint64_t)i, i, err)) return false;
    return true;
}

/* Query of thread t at depth depth(t), path(t), over iota keys. */
static bool by_node(wh_image *img, int (*depth)(int64_t t), uint32_t (*path)(int64_t t, pcg32 *rng), pcg32 *rng,
                    wh_error *err)
{
    int64_t n = corpus_var(img, "threads"), keys = corpus_var(img, "N");
    if (!iota_keys(img, err)) return false;
    for (int64_t t = 0; t < n; t++) {
        int d = depth(t);
        uint32_t p = path(t, rng) & ((1u << (d - 1)) - 1u);
        if (!corpus_set_int(img, "queries", NULL, (uint64_t)t, node_at(keys, d, p), err))
            return false;
    }
    return true;
}

static int depth_leaf(int64_t t)
{
    (void)t;
    return 16;
}

/* Lane l: depth 16 - l mod 16: lanes leave the loop at 16 iterations. */
static int depth_staircase(int64_t t)
{
    return 16 - (int)(t % 16);
}

static uint32_t path_random(int64_t t, pcg32 *rng)
{
    (void)t;
    return pcg32_next(rng);
}

/* Lane l in subtree l of level 6 (top 5 path bits), the warp's number
 * bit-reversed below them: neighbouring warps far apart. */
static uint32_t path_spread(int64_t t, pcg32 *rng)
{
    (void)rng;
    return (uint32_t)(t % 32) << 10 | bitrev((uint32_t)(t / 32) % 1024, 10);
}

static bool leaves_spread(wh_image *img, pcg32 *rng, wh_error *err)
{
    return by_node(img, depth_leaf, path_spread, rng, err);
}

static bool random_leaves(wh_image *img, pcg32 *rng, wh_error *err)
{
    return by_node(img, depth_leaf, path_random, rng, err);
}

static bool staircase_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    return by_node(img, depth_staircase, path_random, rng, err);
}

static bool staircase_spread(wh_image *img, pcg32 *rng, wh_error *err)
{
    return by_node(img, depth_staircase, path_spread, rng, err);
}

/* Every query the leftmost leaf's key: every lane of every warp walks the
 * same 16 nodes. */
static bool one_path(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return iota_keys(img, err) && corpus_fill_int(img, "queries", NULL, 0, err);
}

/* Every query the root's key. */
static bool root_key(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return iota_keys(img, err) && corpus_fill_int(img, "queries", NULL, (corpus_var(img, "N") - 1) / 2, err);
}

const corpus_kernel corpus_binary_search = {
    .name = "binary_search",
    .family = "searching",
    .worst = { { "leaves-spread", leaves_spread }, { "random-leaves", random_leaves },
               { "staircase-random", staircase_random }, { "staircase-spread", staircase_spread },
               { "one-path", one_path } },
    .best = { "root-key", root_key },
    .quick = false,
};
