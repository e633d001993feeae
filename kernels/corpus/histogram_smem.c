/*
 * histogram_smem.c — hand-built inputs of kernels/corpus/histogram_smem.cu
 * (its header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* Word w of the data is read by thread w % threads; its lane is w % 32
 * (the block size is a multiple of 32), its warp (w % threads) / 32. */
static bool all_one_bin(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return corpus_fill_int(img, "data", NULL, 0x07070707, err);
}

static bool bin_per_warp(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "n"), threads = corpus_var(img, "threads");
    for (int64_t w = 0; w < n; w++) {
        int64_t b = ((w % threads) / 32) & 0xFF;
        if (!corpus_set_int(img, "data", NULL, (uint64_t)w, b * 0x01010101LL, err))
            return false;
    }
    return true;
}

/* Lanes 0-15 on bin 0, lanes 16-31 on bins 32, 64, ..., 224 and beyond
 * wrapping: bins 32 (l - 15) mod 256 are all in bank 0 with bin 0. */
static bool half_bank_conflict(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "n");
    for (int64_t w = 0; w < n; w++) {
        int64_t l = w % 32, word = 0;
        for (int k = 0; k < 4; k++) {
            int64_t b = l < 16 ? 0 : (32 * (l - 15 + k)) % 256;
            word |= b << (8 * k);
        }
        if (!corpus_set_int(img, "data", NULL, (uint64_t)w, word, err))
            return false;
    }
    return true;
}

/* Byte k of lane l: bin l + 32 k (+ 128 on odd rounds): 32 distinct bins
 * in 32 distinct banks. */
static bool distinct_banks(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "n"), threads = corpus_var(img, "threads");
    for (int64_t w = 0; w < n; w++) {
        int64_t l = w % 32, round = w / threads, word = 0;
        for (int k = 0; k < 4; k++)
            word |= ((l + 32 * k + 128 * (round & 1)) & 0xFF) << (8 * k);
        if (!corpus_set_int(img, "data", NULL, (uint64_t)w, word, err))
            return false;
    }
    return true;
}

const corpus_kernel corpus_histogram_smem = {
    .name = "histogram_smem",
    .family = "atomics",
    .worst = { { "all-one-bin", all_one_bin }, { "bin-per-warp", bin_per_warp },
               { "half-bank-conflict", half_bank_conflict } },
    .best = { "distinct-banks", distinct_banks },
    .quick = false,
};
