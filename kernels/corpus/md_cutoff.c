/*
 * md_cutoff.c — hand-built inputs of kernels/corpus/md_cutoff.cu (its
 * header says why each should be slow or fast).
 */
#include "kernels/corpus/corpus.h"

/* Every atom at a random point of [0, 1.5]^3: every pair within the
 * cut-off (r^2 <= 6.75 < 16). */
static bool cluster(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    static const char *const axis[3] = { "x", "y", "z" };
    for (int64_t a = 0; a < n; a++)
        for (int k = 0; k < 3; k++)
            if (!corpus_set_float(img, "position", axis[k], (uint64_t)a, 1.5 * pcg32_double(rng), err))
                return false;
    return true;
}

/* mode 0: 2 (i + 97 j) mod n (32 sectors per gather); 1: random;
 * 2: i + j + 1 mod n (coalesced); an atom never its own neighbour (the
 * spec's "neighbors": i's own index becomes i + 1, or i - 1 for the last
 * atom, as the projection moves it). */
static bool neighbours(wh_image *img, pcg32 *rng, int mode, wh_error *err)
{
    int64_t n = corpus_var(img, "threads"), m = corpus_var(img, "MAXNEIGH");
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t v = mode == 0 ? (2 * (i + 97 * j)) % n
                        : mode == 1 ? (int64_t)pcg32_bounded(rng, (uint32_t)n)
                                    : (i + j + 1) % n;
            if (v == i)
                v = i + 1 < n ? i + 1 : i - 1;
            if (!corpus_set_int(img, "neighList", NULL, (uint64_t)(j * n + i), v, err))
                return false;
        }
    return true;
}

static bool cluster_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    return cluster(img, rng, err) && neighbours(img, rng, 0, err);
}

static bool cluster_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    return cluster(img, rng, err) && neighbours(img, rng, 1, err);
}

static bool cluster_coalesced(wh_image *img, pcg32 *rng, wh_error *err)
{
    return cluster(img, rng, err) && neighbours(img, rng, 2, err);
}

/* Atoms on a 16 x 16 x 16 lattice of spacing 4 (atom i at 4 (i % 16,
 * i / 16 % 16, i / 256 % 16)): no pair closer than r^2 = 16. */
static bool lattice_coalesced(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    for (int64_t a = 0; a < n; a++)
        if (!corpus_set_float(img, "position", "x", (uint64_t)a, 4.0 * (double)(a % 16), err) ||
            !corpus_set_float(img, "position", "y", (uint64_t)a, 4.0 * (double)(a / 16 % 16), err) ||
            !corpus_set_float(img, "position", "z", (uint64_t)a, 4.0 * (double)(a / 256 % 16), err))
            return false;
    return neighbours(img, rng, 2, err);
}

const corpus_kernel corpus_md_cutoff = {
    .name = "md_cutoff",
    .family = "physics",
    .worst = { { "cluster-scattered", cluster_scattered }, { "cluster-random", cluster_random },
               { "cluster-coalesced", cluster_coalesced } },
    .best = { "lattice-coalesced", lattice_coalesced },
    .quick = false,
};
