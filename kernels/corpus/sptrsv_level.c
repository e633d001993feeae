/*
 * sptrsv_level.c — hand-built inputs of kernels/corpus/sptrsv_level.cu
 * (its header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* Thread t's row: 8 rows apart (one sector of row_len, b, diag, x per
 * lane), wrapping round NR with a shift so that the rows are distinct. */
static int64_t scattered_row(int64_t t, int64_t nr)
{
    return (t * 8) % nr + (t * 8) / nr;
}

static bool set_rows(wh_image *img, bool scattered, wh_error *err)
{
    int64_t n = corpus_var(img, "threads"), nr = corpus_var(img, "NR");
    for (int64_t t = 0; t < n; t++)
        if (!corpus_set_int(img, "level_rows", NULL, (uint64_t)t, scattered ? scattered_row(t, nr) : t, err))
            return false;
    return true;
}

/* Lengths by the lane that reads the row: lane l gets K - (l mod (K+1))
 * (staircase) or K (full); the rows outside the level are full, so that
 * packing keeps the level's rows as far apart as their numbers are. */
static bool set_lens(wh_image *img, bool scattered, bool stair, wh_error *err)
{
    int64_t n = corpus_var(img, "threads"), nr = corpus_var(img, "NR"), k = corpus_var(img, "K");
    if (!corpus_fill_int(img, "row_len", NULL, k, err))
        return false;
    for (int64_t t = 0; t < n; t++) {
        int64_t r = scattered ? scattered_row(t, nr) : t;
        if (!corpus_set_int(img, "row_len", NULL, (uint64_t)r, stair ? k - (t % 32) % (k + 1) : k, err))
            return false;
    }
    return true;
}

/* Row r, slot j: gather number g (numbered by warp, slot, lane as the
 * warp issues them) at column 8 g mod r shifted by the round (the columns
 * below row r): the lanes of an iteration read different sectors, as far
 * as that allows; the spec's projection ("below_row") then moves a column
 * that is a row of the level to the nearest one below that is not.  Row
 * r's entries start at row_start[r], the running sum of the lengths set
 * (packed CSR). */
static bool set_cols(wh_image *img, bool scattered, pcg32 *rng, bool random, wh_error *err)
{
    int64_t n = corpus_var(img, "threads"), nr = corpus_var(img, "NR"), k = corpus_var(img, "K");
    if (!wh_image_restructure(img, err))
        return false;
    for (int64_t t = 0; t < n; t++) {
        int64_t r = scattered ? scattered_row(t, nr) : t, start, len;
        if (!corpus_get_int(img, "row_start", NULL, (uint64_t)r, &start, err) ||
            !corpus_get_int(img, "row_len", NULL, (uint64_t)r, &len, err))
            return false;
        for (int64_t j = 0; j < len; j++) {
            int64_t i = start + j, m = r > 1 ? r : 1;
            int64_t g = ((t / 32) * k + j) * 32 + t % 32;
            int64_t c = random ? (int64_t)pcg32_bounded(rng, (uint32_t)m) : (g * 8 + (g * 8) / m) % m;
            if (!corpus_set_int(img, "cols", NULL, (uint64_t)i, c, err))
                return false;
        }
    }
    return true;
}

static bool staircase_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    return set_rows(img, true, err) && set_lens(img, true, true, err) && set_cols(img, true, rng, false, err);
}

static bool full_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    return set_rows(img, true, err) && set_lens(img, true, false, err) && set_cols(img, true, rng, false, err);
}

static bool staircase_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    return set_rows(img, true, err) && set_lens(img, true, true, err) && set_cols(img, true, rng, true, err);
}

/* Every row's length uniform in [0, K], as random testing draws them,
 * with scattered level rows and random columns: under packed CSR the
 * longest input measured (the header says why the staircase is not). */
static bool random_lengths(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t nr = corpus_var(img, "NR"), k = corpus_var(img, "K");
    if (!set_rows(img, true, err))
        return false;
    for (int64_t r = 0; r < nr; r++)
        if (!corpus_set_int(img, "row_len", NULL, (uint64_t)r, (int64_t)pcg32_bounded(rng, (uint32_t)k + 1), err))
            return false;
    return set_cols(img, true, rng, true, err);
}

/* Contiguous level rows (coalesced row data), the rest as the first. */
static bool staircase_contiguous(wh_image *img, pcg32 *rng, wh_error *err)
{
    return set_rows(img, false, err) && set_lens(img, false, true, err) && set_cols(img, false, rng, false, err);
}

static bool empty_contiguous(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return set_rows(img, false, err) && corpus_fill_int(img, "row_len", NULL, 0, err);
}

const corpus_kernel corpus_sptrsv_level = {
    .name = "sptrsv_level",
    .family = "sparse",
    .worst = { { "staircase-scattered", staircase_scattered }, { "full-scattered", full_scattered },
               { "staircase-random", staircase_random }, { "staircase-contiguous", staircase_contiguous },
               { "random-lengths", random_lengths } },
    .best = { "empty-contiguous", empty_contiguous },
    .quick = false,
};
