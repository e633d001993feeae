/*
 * family.c — atom families: siblings of the warp-richest paths' atoms that
 * vary one thread's inputs and keep everything else.
 *
 * A path of X threads often holds its cost in a relation between threads:
 * thread 1's key hashes to the slot thread 0 took, thread 1's edge points
 * at thread 0's node.  One atom states that relation for one pair; tiling
 * repeats the pair (equal keys: the cheap case) and stride tiling shifts
 * values (the relation breaks).  A family keeps thread 0..X-2 as in the
 * atom and asks the solver for many distinct values of thread X-1 on the
 * same path (sx_path_siblings): distinct keys that all collide with one
 * home, distinct edges into one node.  Laid out one sibling per gene
 * (gen_arrangements), the family is a launch-wide relation the atoms
 * alone cannot build.  Siblings are replayed like atoms; only the valid
 * ones become alleles.
 */
#include "gen/internal.h"

#include "core/clock.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    gen_result *r;
    const ptx_module *mod;
    const sx_path *path;
    int index;
    gen_validator *v;       /* NULL: siblings are not replayed */
} family_maker;

static bool take_sibling(void *ctx, wh_image *img, wh_error *err)
{
    family_maker *f = ctx;
    bool valid = true, hung = false;
    if (f->v && !gen_validate_atom(f->v, f->mod, f->path, img, &valid, &hung, err)) return false;
    return gen_pool_add(&f->r->pool, img, GEN_ATOM_FAMILY, f->index, valid, err) >= 0;
}

/* The first valid atom of path i, or -1. */
static int valid_atom(const gen_result *r, int i)
{
    const gen_path *p = &r->paths[i];
    for (int k = 0; k < p->natoms; k++)
        if (r->pool.atoms[p->first_atom + k].valid) return p->first_atom + k;
    return -1;
}

/* Up to n paths with a valid atom, most warp-issued instructions first. */
static int top_paths(const gen_result *r, int *idx, int n)
{
    int m = 0;
    for (; m < n; m++) {
        int best = -1;
        for (int i = 0; i < r->npaths; i++) {
            bool taken = false;
            for (int k = 0; k < m; k++) taken |= idx[k] == i;
            if (taken || valid_atom(r, i) < 0) continue;
            if (best < 0 || r->paths[i].warp_instr > r->paths[best].warp_instr) best = i;
        }
        if (best < 0) break;
        idx[m] = best;
    }
    return m;
}

bool gen_make_families(gen_result *r, sx_result *sx, const ptx_module *mod, gen_validator *v, int npaths,
                       double deadline, bool quiet, wh_error *err)
{
    if (r->x < 2 || npaths <= 0) return true;
    int *idx = malloc((size_t)npaths * sizeof *idx);
    if (!idx) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    int n = top_paths(r, idx, npaths);
    sx_model_limits(sx, GEN_MODEL_QUERY_MS, deadline);
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *base = wh_image_new(r->spec, &l, err), *scratch = wh_image_new(r->spec, &l, err);
    bool ok = base && scratch;
    for (int k = 0; ok && k < n && wh_clock_s() < deadline; k++) {
        family_maker f = { r, mod, &sx->paths[idx[k]], idx[k], v };
        gen_pool_atom_to_image(&r->pool, valid_atom(r, idx[k]), base);
        ok = sx_path_siblings(sx, idx[k], base, r->x - 1, GEN_FAMILY_ATOMS, take_sibling, &f, scratch, err) >= 0;
    }
    wh_image_free(base);
    wh_image_free(scratch);
    free(idx);
    gen_count_families(r);
    if (ok && r->family_atoms && !quiet)
        /* the family's own atoms: a user read "2 atoms" as the stage's total */
        fprintf(stderr, "explore: %d %s of siblings (thread %d varied): %d more atoms beside the paths' own, %d of "
                "them valid\n", r->families, r->families == 1 ? "family" : "families", r->x - 1, r->family_atoms,
                r->family_valid);
    return ok;
}

/* Does atom a begin a family (a run of family atoms of one path)? */
static bool starts_family(const gen_result *r, int a)
{
    const gen_atom *at = &r->pool.atoms[a], *prev = a > 0 ? &r->pool.atoms[a - 1] : NULL;
    return at->origin == GEN_ATOM_FAMILY && (!prev || prev->origin != GEN_ATOM_FAMILY || prev->path != at->path);
}

void gen_count_families(gen_result *r)
{
    r->families = r->family_atoms = r->family_valid = 0;
    for (int a = 0; a < r->pool.natoms; a++) {
        if (r->pool.atoms[a].origin != GEN_ATOM_FAMILY) continue;
        r->families += starts_family(r, a);
        r->family_atoms++;
        r->family_valid += r->pool.atoms[a].valid;
    }
}

int gen_family_atoms(const gen_result *r, int family, int **out)
{
    int f = -1, n = 0;
    *out = malloc((size_t)(r->pool.natoms ? r->pool.natoms : 1) * sizeof **out);
    if (!*out) return -1;
    for (int a = 0; a < r->pool.natoms; a++) {
        if (r->pool.atoms[a].origin != GEN_ATOM_FAMILY) continue;
        f += starts_family(r, a);
        if (f == family && r->pool.atoms[a].valid) (*out)[n++] = a;
    }
    return n;
}
