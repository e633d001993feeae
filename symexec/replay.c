/*
 * replay.c — does a concrete replay of an atom (its per-thread branch
 * sequences, from any backend that reports them) follow the path the atom
 * was solved from?
 */
#include "symexec/symexec.h"

#include <stdio.h>

bool sx_path_follows(const sx_result *r, const ptx_module *m, int path, const sx_branch *const *br,
                     const int *nbr, char *why, size_t whysize)
{
    char dummy[8];
    if (!why) {
        why = dummy;
        whysize = sizeof dummy;
    }
    if (!r || path < 0 || path >= r->npaths) {
        snprintf(why, whysize, "no path %d", path);
        return false;
    }
    const sx_path *p = &r->paths[path];
    bool prefix = p->kind == SX_PATH_CUT;
    for (int t = 0; t < p->nthreads; t++) {
        int want = p->ndecisions[t];
        if (nbr[t] < want || (!prefix && nbr[t] != want)) {
            snprintf(why, whysize, "thread %d made %d branch decisions, the path %d", t, nbr[t], want);
            return false;
        }
        for (int k = 0; k < want; k++) {
            const sx_decision *d = &p->decisions[t][k];
            int block = d->func < m->nfuncs && d->instr < m->funcs[d->func].ninstrs
                            ? m->funcs[d->func].instrs[d->instr].block : -1;
            const sx_branch *b = &br[t][k];
            if (b->func != d->func || b->block != block || b->taken != d->taken) {
                snprintf(why, whysize, "thread %d, decision %d (line %d): the replay %s, the path %s", t, k,
                         d->line, b->taken ? "jumped" : "fell through", d->taken ? "jumps" : "falls through");
                return false;
            }
        }
    }
    return true;
}
