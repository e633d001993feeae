/*
 * coverage.c — the branch legs of the entry and of every function it calls
 * (directly or not): two per block ending in a guarded bra (taken and
 * fall-through), with their PTX lines; which ones a state and the search
 * as a whole covered.
 */
#include "symexec/internal.h"

#include <stdlib.h>

static void mark_used(sx_engine *e, int fi)
{
    if (fi < 0 || fi >= e->mod->nfuncs || e->func_used[fi])
        return;
    e->func_used[fi] = true;
    const ptx_function *f = &e->mod->funcs[fi];
    for (int i = 0; i < f->ninstrs; i++)
        if (f->instrs[i].op == PTX_OP_CALL)
            mark_used(e, f->instrs[i].callee);
}

static int leg_target_line(const ptx_function *f, const ptx_block *b, bool taken)
{
    int tb = taken ? b->taken : b->fallthrough;
    return tb >= 0 && tb < f->nblocks ? f->blocks[tb].line_first : 0;
}

bool sx_coverage_build(sx_engine *e, wh_error *err)
{
    const ptx_module *m = e->mod;
    e->func_used = calloc((size_t)(m->nfuncs + 1), sizeof *e->func_used);
    e->leg_of = calloc((size_t)(m->nfuncs + 1), sizeof *e->leg_of);
    if (!e->func_used || !e->leg_of)
        goto oom;
    mark_used(e, e->entry_idx);
    int n = 0;
    for (int fi = 0; fi < m->nfuncs; fi++) {
        if (!e->func_used[fi])
            continue;
        const ptx_function *f = &m->funcs[fi];
        e->leg_of[fi] = malloc((size_t)(f->nblocks + 1) * sizeof *e->leg_of[fi]);
        if (!e->leg_of[fi])
            goto oom;
        for (int b = 0; b < f->nblocks; b++) {
            const ptx_block *bl = &f->blocks[b];
            e->leg_of[fi][b] = bl->cond_branch ? n : -1;
            if (bl->cond_branch)
                n += 2;
        }
    }
    e->nlegs = n;
    e->legs = calloc((size_t)(n + 1), sizeof *e->legs);
    e->covered = calloc((size_t)(n + 1), sizeof *e->covered);
    if (!e->legs || !e->covered)
        goto oom;
    for (int fi = 0; fi < m->nfuncs; fi++) {
        if (!e->func_used[fi])
            continue;
        const ptx_function *f = &m->funcs[fi];
        for (int b = 0; b < f->nblocks; b++) {
            int k = e->leg_of[fi][b];
            if (k < 0)
                continue;
            const ptx_block *bl = &f->blocks[b];
            for (int side = 0; side < 2; side++) {
                sx_leg *l = &e->legs[k + side];
                l->func = fi;
                l->block = b;
                l->taken = side == 0;
                l->line = bl->line_last;
                l->target_line = leg_target_line(f, bl, side == 0);
            }
        }
    }
    return true;
oom:
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory building the branch legs");
    return false;
}

void sx_coverage_free(sx_engine *e)
{
    if (e->leg_of)
        for (int fi = 0; fi < e->mod->nfuncs; fi++)
            free(e->leg_of[fi]);
    free(e->leg_of);
    free(e->func_used);
    free(e->legs);
    free(e->covered);
}

/* Leg index: the taken leg is first, the fall-through second. */
int sx_leg_index(const sx_engine *e, int func, int block, bool taken)
{
    if (!e->leg_of || !e->leg_of[func] || block < 0)
        return -1;
    int k = e->leg_of[func][block];
    return k < 0 ? -1 : k + (taken ? 0 : 1);
}

void sx_leg_mark(sx_engine *e, sx_state *s, int leg)
{
    (void)e;
    if (leg >= 0)
        s->legs[leg / 8] |= (uint8_t)(1u << (leg % 8));
}
