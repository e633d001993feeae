/*
 * arrange.c — arrangements of path atoms for the first population: the
 * paper's special individuals, families of siblings, two warp-aware
 * variants and stride tilings.
 */
#include "gen/internal.h"

#include <stdlib.h>

/* The first valid atom of path i, or -1. */
static int valid_atom_of(const gen_result *r, int i)
{
    const gen_path *p = &r->paths[i];
    for (int k = 0; k < p->natoms; k++)
        if (r->pool.atoms[p->first_atom + k].valid) return p->first_atom + k;
    return -1;
}

static int best_path(const gen_result *r, bool by_warp)
{
    int best = -1;
    for (int i = 0; i < r->npaths; i++) {
        if (valid_atom_of(r, i) < 0) continue;
        const gen_path *p = &r->paths[i], *b = best >= 0 ? &r->paths[best] : NULL;
        bool better;
        if (!b) better = true;
        else if (by_warp) better = p->warp_instr > b->warp_instr || (p->warp_instr == b->warp_instr && p->brdiv > b->brdiv);
        else better = p->instr > b->instr || (p->instr == b->instr && p->brdiv > b->brdiv);
        if (better) best = i;
    }
    return best;
}

/* Every atom gene set to `atom`, plain tiling. */
static int *uniform_genes(const gen_layout *lay, int atom)
{
    int *g = malloc((size_t)lay->ngenes * sizeof *g);
    for (int k = 0; g && k < lay->ngenes; k++) g[k] = k == lay->tiling_gene ? 0 : atom;
    return g;
}

static int *with_tiling(const gen_layout *lay, const int *base, int tiling)
{
    int *g = malloc((size_t)lay->ngenes * sizeof *g);
    for (int k = 0; g && k < lay->ngenes; k++) g[k] = k == lay->tiling_gene ? tiling : base[k];
    return g;
}

static int by_warp_desc(const void *a, const void *b, void *ctx)
{
    const gen_result *r = ctx;
    const gen_path *x = &r->paths[*(const int *)a], *y = &r->paths[*(const int *)b];
    if (x->warp_instr != y->warp_instr) return x->warp_instr < y->warp_instr ? 1 : -1;
    return *(const int *)a - *(const int *)b;
}

/* Sorting with a context: insertion sort (few paths), keeps this portable. */
static void sort_paths(int *idx, int n, const gen_result *r)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && by_warp_desc(&idx[j - 1], &idx[j], (void *)r) > 0; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
}

static int *mixing_genes(const gen_result *r, const gen_layout *lay)
{
    int *idx = malloc((size_t)(r->npaths ? r->npaths : 1) * sizeof *idx), n = 0;
    if (!idx) return NULL;
    for (int i = 0; i < r->npaths; i++)
        if (valid_atom_of(r, i) >= 0) idx[n++] = i;
    if (n < 2) {
        free(idx);
        return NULL;
    }
    sort_paths(idx, n, r);
    int *g = malloc((size_t)lay->ngenes * sizeof *g);
    for (int k = 0; g && k < lay->ngenes; k++) g[k] = k == lay->tiling_gene ? 0 : valid_atom_of(r, idx[k % n]);
    free(idx);
    return g;
}

/* Then, alternately, one uniform arrangement per other path (most
 * warp-issued first) and one stride tiling of `strided` (smallest stride
 * first).  Instruction counts are not time (an atomic on one address is a
 * single instruction), so the first generation measures every path's
 * uniform input instead of trusting the counts; and the strides try the
 * relations between threads that plain tiling cannot express. */
static int add_uniform_and_strides(const gen_result *r, const gen_layout *lay, int **list, int n, int cap,
                                   int skip_a, int skip_b, const int *strided)
{
    int *idx = malloc((size_t)(r->npaths ? r->npaths : 1) * sizeof *idx), m = 0;
    if (!idx) return -1;
    for (int i = 0; i < r->npaths; i++)
        if (i != skip_a && i != skip_b && valid_atom_of(r, i) >= 0) idx[m++] = i;
    sort_paths(idx, m, r);
    if (m > GEN_MAX_UNIFORM_PATHS) m = GEN_MAX_UNIFORM_PATHS;
    int nstrides = strided && lay->tiling_gene >= 0 ? lay->ntilings - 1 : 0;
    for (int k = 0, t = 1; (k < m || t <= nstrides) && n < cap;) {
        bool stride_turn = t <= nstrides && (k >= m || (k + t) % 2 == 0);
        int *g = stride_turn ? with_tiling(lay, strided, t++) : uniform_genes(lay, valid_atom_of(r, idx[k++]));
        if (!g) {
            free(idx);
            return -1;
        }
        list[n++] = g;
    }
    free(idx);
    return n;
}

/* Family f laid out one valid sibling per gene in turn, plain tiling;
 * NULL (and *none set) when the family has no valid sibling. */
static int *family_genes(const gen_result *r, const gen_layout *lay, int f, bool *none)
{
    int *ids, n = gen_family_atoms(r, f, &ids);
    *none = n == 0;
    int *g = n > 0 ? malloc((size_t)lay->ngenes * sizeof *g) : NULL;
    for (int k = 0; g && k < lay->ngenes; k++) g[k] = k == lay->tiling_gene ? 0 : ids[k % n];
    free(ids);
    return g;
}

int gen_arrangements(const gen_result *r, const gen_layout *lay, int ***out, wh_error *err)
{
    int cap = 3 + r->families + GEN_MAX_UNIFORM_PATHS + (lay->ntilings - 1);
    int **list = calloc((size_t)cap, sizeof *list), n = 0;
    if (!list) goto oom;
    int a = best_path(r, false), b = best_path(r, true);
    if (a >= 0 && !(list[n++] = uniform_genes(lay, valid_atom_of(r, a)))) goto oom;
    if (b >= 0 && b != a && !(list[n++] = uniform_genes(lay, valid_atom_of(r, b)))) goto oom;
    const int *strided = n > 0 ? list[n - 1] : NULL; /* the warp-richest path */
    for (int f = 0; f < r->families; f++) {
        bool none;
        if ((list[n] = family_genes(r, lay, f, &none))) n++;
        else if (!none) goto oom;
    }
    int *mix = mixing_genes(r, lay);
    if (mix) list[n++] = mix;
    n = add_uniform_and_strides(r, lay, list, n, cap, a, b, strided);
    if (n < 0) goto oom;
    *out = list;
    return n;
oom:
    for (int i = 0; list && i < cap; i++) free(list[i]);
    free(list);
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
    return -1;
}
