/*
 * spmv_scalar.c — hand-built inputs of kernels/corpus/spmv_scalar.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

static bool rows_full(wh_image *img, wh_error *err)
{
    return corpus_fill_int(img, "row_len", NULL, corpus_var(img, "K"), err);
}

/* Lane l of warp w, iteration j, reads a sector of its own: consecutive
 * gathers step by 8 floats (one sector) through the whole of x.  Row r's
 * entries start at row_start[r], the running sum of the lengths already
 * set (the spec's prefix_sum_of). */
static bool scatter_cols(wh_image *img, wh_error *err)
{
    int64_t k = corpus_var(img, "K"), ncols = corpus_var(img, "ncols"), rows = corpus_var(img, "threads");
    if (!wh_image_restructure(img, err))
        return false;
    for (int64_t r = 0; r < rows; r++) {
        int64_t start, len;
        if (!corpus_get_int(img, "row_start", NULL, (uint64_t)r, &start, err) ||
            !corpus_get_int(img, "row_len", NULL, (uint64_t)r, &len, err))
            return false;
        for (int64_t j = 0; j < len && j < k; j++)
            if (!corpus_set_int(img, "cols", NULL, (uint64_t)(start + j), ((j * 32 + r % 32) * 8 + r / 32) % ncols,
                                err))
                return false;
    }
    return true;
}

static bool full_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return rows_full(img, err) && scatter_cols(img, err);
}

/* nvcc unrolls the row loop by 4 after a remainder loop of len % 4
 * iterations: odd lanes of length K - 1 run the remainder loop (3
 * iterations) while even lanes of length K run the unrolled one, so the
 * warp issues both. */
static bool mixed_remainder_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t k = corpus_var(img, "K"), rows = corpus_var(img, "threads");
    for (int64_t r = 0; r < rows; r++)
        if (!corpus_set_int(img, "row_len", NULL, (uint64_t)r, r % 2 ? k - 1 : k, err))
            return false;
    return scatter_cols(img, err);
}

/* Every lane of a warp leaves the row loop at another iteration. */
static bool staircase(wh_image *img, wh_error *err)
{
    int64_t k = corpus_var(img, "K"), rows = corpus_var(img, "threads");
    for (int64_t r = 0; r < rows; r++)
        if (!corpus_set_int(img, "row_len", NULL, (uint64_t)r, k - (r % 32) % (k + 1), err))
            return false;
    return true;
}

static bool random_cols(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t k = corpus_var(img, "K"), ncols = corpus_var(img, "ncols"), rows = corpus_var(img, "threads");
    for (int64_t e = 0; e < rows * k; e++)
        if (!corpus_set_int(img, "cols", NULL, (uint64_t)e, pcg32_bounded(rng, (uint32_t)ncols), err))
            return false;
    return true;
}

static bool staircase_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return staircase(img, err) && scatter_cols(img, err);
}

static bool staircase_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    return staircase(img, err) && random_cols(img, rng, err);
}

static bool empty_rows(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_int(img, "row_len", NULL, 0, err);
}

const corpus_kernel corpus_spmv_scalar = {
    .name = "spmv_scalar",
    .family = "sparse",
    .worst = { { "staircase-scattered", staircase_scattered }, { "staircase-random", staircase_random },
               { "mixed-remainder-scattered", mixed_remainder_scattered }, { "full-scattered", full_scattered } },
    .best = { "empty-rows", empty_rows },
    .quick = true,
};
