/*
 * md_cutoff.c — hand-built inputs of kernels/corpus/md_cutoff.cu (its
 * header says why each should be slow or fast).  The neighbour list is
 * derived from the positions ("nearest_of"), so each input is a placement
 * of the atoms: which atoms are near one another decides both the cut-off
 * test and which position sectors a warp gathers.
 */
#include "kernels/corpus/corpus.h"

static bool place(wh_image *img, int64_t atom, double x, double y, double z, wh_error *err)
{
    return corpus_set_float(img, "position", "x", (uint64_t)atom, x, err) &&
           corpus_set_float(img, "position", "y", (uint64_t)atom, y, err) &&
           corpus_set_float(img, "position", "z", (uint64_t)atom, z, err);
}

/* Atoms on a lattice of `side` x `side` x ... sites `spacing` apart (x
 * fastest), site k holding atom (k * stride) mod n: stride 1 puts
 * consecutive atoms side by side (a warp's neighbours coalesced), an odd
 * stride scatters them (n is a power of two, so any odd stride is a
 * permutation). */
static bool lattice(wh_image *img, int64_t side, double spacing, int64_t stride, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    for (int64_t k = 0; k < n; k++)
        if (!place(img, k * stride % n, spacing * (double)(k % side), spacing * (double)(k / side % side),
                   spacing * (double)(k / side / side), err))
            return false;
    return true;
}

/* 32 x 32 x 16 sites in [0, 1.5]^3: every pair within the cut-off
 * (r^2 <= 6.75 < 16); an atom's nearest are the sites around its own,
 * atoms 195, 6240 and 195 x 1024 apart (mod n): a sector each. */
static bool cluster_scattered(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return lattice(img, 32, 1.5 / 32, 195, err);
}

/* The same lattice, site k atom k: lanes' neighbours side by side. */
static bool cluster_coalesced(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    return lattice(img, 32, 1.5 / 32, 1, err);
}

/* Every atom at a random point of [0, 1.5]^3: every pair within the
 * cut-off, the nearest ones of random indices. */
static bool cluster_random(wh_image *img, pcg32 *rng, wh_error *err)
{
    int64_t n = corpus_var(img, "threads");
    for (int64_t a = 0; a < n; a++)
        if (!place(img, a, 1.5 * pcg32_double(rng), 1.5 * pcg32_double(rng), 1.5 * pcg32_double(rng), err))
            return false;
    return true;
}

/* The sparsest lattice the box [0, 64]^3 holds, side^3 >= n sites (26 x
 * 26 x 25 sites 2.56 apart at the default 16384 atoms), atoms in site
 * order: the fewest neighbours within the cut-off (there, the 6 at 2.56
 * and 12 at 3.62 of an atom's 32 nearest) and coalesced gathers. */
static bool spread_coalesced(wh_image *img, pcg32 *rng, wh_error *err)
{
    (void)rng;
    int64_t n = corpus_var(img, "threads"), side = 2;
    while (side * side * side < n)
        side++;
    return lattice(img, side, 64.0 / (double)(side - 1), 1, err);
}

const corpus_kernel corpus_md_cutoff = {
    .name = "md_cutoff",
    .family = "physics",
    .worst = { { "cluster-scattered", cluster_scattered }, { "cluster-random", cluster_random },
               { "cluster-coalesced", cluster_coalesced } },
    .best = { "spread-coalesced", spread_coalesced },
    .quick = false,
};
