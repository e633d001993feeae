/*
 * bitonic_sort.c — hand-built inputs of kernels/corpus/bitonic_sort.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* Key of element e (global index) from f(e within its tile, tile length). */
static bool fill_tiles(wh_image *img, uint32_t (*f)(uint32_t e, uint32_t len, pcg32 *rng), pcg32 *rng,
                       wh_error *err)
{
    int64_t n = 2 * corpus_var(img, "threads"), len = 2 * corpus_var(img, "block");
    for (int64_t e = 0; e < n; e++)
        if (!corpus_set_int(img, "src_key", NULL, (uint64_t)e, f((uint32_t)(e % len), (uint32_t)len, rng), err))
            return false;
    return true;
}

static uint32_t ascending(uint32_t e, uint32_t len, pcg32 *rng)
{
    (void)len, (void)rng;
    return e;
}

static uint32_t descending(uint32_t e, uint32_t len, pcg32 *rng)
{
    (void)rng;
    return len - e;
}

static uint32_t alternating(uint32_t e, uint32_t len, pcg32 *rng)
{
    (void)len, (void)rng;
    return e % 2 ? 0u : 0xffffffffu;
}

static uint32_t random_key(uint32_t e, uint32_t len, pcg32 *rng)
{
    (void)e, (void)len;
    return pcg32_next(rng);
}

static bool sorted(wh_image *img, pcg32 *rng, wh_error *err)
{
    return fill_tiles(img, ascending, rng, err);
}

static bool reversed(wh_image *img, pcg32 *rng, wh_error *err)
{
    return fill_tiles(img, descending, rng, err);
}

static bool alternate(wh_image *img, pcg32 *rng, wh_error *err)
{
    return fill_tiles(img, alternating, rng, err);
}

static bool random_keys(wh_image *img, pcg32 *rng, wh_error *err)
{
    return fill_tiles(img, random_key, rng, err);
}

/* The image starts at the low end of the domain: every key 0. */
static bool equal_keys(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_int(img, "src_key", NULL, 0, err);
}

const corpus_kernel corpus_bitonic_sort = {
    .name = "bitonic_sort",
    .family = "sorting",
    .worst = { { "random", random_keys }, { "reversed", reversed }, { "alternating", alternate },
               { "sorted", sorted } },
    .best = { "equal", equal_keys },
    .quick = false,
};
