/*
 * spmv_vector.c — hand-built inputs of kernels/corpus/spmv_vector.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

static bool rows_len(wh_image *img, int64_t len, wh_error *err)
{
    return corpus_fill_int(img, "row_len", NULL, len, err);
}

/* Element e of the matrix (row e / K, slot e % K) gathers from sector
 * e mod (ncols / 8): the K gathers of a row (its warp's 32 lanes over
 * K / 32 iterations) all land in different sectors, and successive rows
 * move on to sectors the previous ones did not touch. */
static bool scatter_cols(wh_image *img, wh_error *err)
{
    int64_t k = corpus_var(img, "K"), ncols = corpus_var(img, "ncols"), rows = corpus_var(img, "rows");
    int64_t sectors = ncols / 8;
    for (int64_t e = 0; e < rows * k; e++)
        if (!corpus_set_int(img, "cols", NULL, (uint64_t)e, (e % sectors) * 8 + (e / sectors) % 8, err))
            return false;
    return true;
}

static bool random_cols(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t k = corpus_var(img, "K"), ncols = corpus_var(img, "ncols"), rows = corpus_var(img, "rows");
    for (int64_t e = 0; e < rows * k; e++)
        if (!corpus_set_int(img, "cols", NULL, (uint64_t)e, pcg32_bounded(rng, (uint32_t)ncols), err))
            return false;
    return true;
}

static bool full_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return rows_len(img, corpus_var(img, "K"), err) && scatter_cols(img, err);
}

/* nvcc runs a remainder loop of (trip % 4) iterations, then the loop
 * unrolled by 4: with row_len = K - 1, lanes 0..30 run 4 iterations (the
 * unrolled loop) and lane 31 runs 3 (the remainder loop), so the warp
 * issues 7 iteration bodies instead of 4. */
static bool split_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return rows_len(img, corpus_var(img, "K") - 1, err) && scatter_cols(img, err);
}

/* The same split with the lanes half and half (row_len = K - 16). */
static bool half_split_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return rows_len(img, corpus_var(img, "K") - 16, err) && scatter_cols(img, err);
}

static bool split_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    return rows_len(img, corpus_var(img, "K") - 1, err) && random_cols(img, rng, err);
}

static bool empty_rows(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return rows_len(img, 0, err);
}

const corpus_kernel corpus_spmv_vector = {
    .name = "spmv_vector",
    .family = "sparse",
    .worst = { { "full-scattered", full_scattered }, { "split-scattered", split_scattered },
               { "half-split-scattered", half_split_scattered }, { "split-random", split_random } },
    .best = { "empty-rows", empty_rows },
    .quick = false,
};
