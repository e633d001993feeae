/*
 * simt.c — the one SIMT reconvergence model: how a warp's threads split at
 * a divergent branch and where they come together again.  The emulator
 * (harness/sim/simt.c) runs warps with it; the symbolic executor
 * (symexec/metrics.c) replays a path's per-thread block visits through it
 * to count the instructions its warps issue.  tests/test_symexec_sound.c
 * holds the two counts equal.
 *
 * The model (immediate post-dominator reconvergence): the warp runs the
 * top entry {pc, rpc, mask} of a stack.  A branch whose threads go to
 * several places splits the top entry into one entry per place, all
 * reconverging at the branch's rpc (ptx_reconverge_instr); the top entry
 * itself waits at rpc for them, unless it already reconverges there, in
 * which case it becomes one of the groups (so loops with divergent exits
 * do not grow the stack).  Group 0 runs first (the fall-through side of a
 * `bra`).  An entry whose threads reach its rpc, or that has no threads
 * left, is done and popped by the engine, which knows what "reaching"
 * means for its positions.
 *
 * `pc` and `rpc` are whatever positions the engine uses (the sim:
 * instruction indices; symexec: numbered block visits); the model only
 * compares them.  The optional merge policy (profile control.reconvergence
 * "ipdom+merge") orders the siblings of a split lowest pc first and merges
 * siblings that arrive at the same pc, which with nvcc's block layout
 * reconverges a branch inside a loop at the latch every iteration, as the
 * convergence barriers nvcc places on Volta and later do.
 */
#include "ptx/internal.h"

#include <stdlib.h>

void ptx_simt_push(ptx_simt_stack *s, int pc, int rpc, uint32_t mask)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        s->e = wh_xrealloc(s->e, (size_t)cap * sizeof *s->e);
        s->cap = cap;
    }
    s->e[s->n++] = (ptx_simt_entry){ .pc = pc, .rpc = rpc, .mask = mask };
}

void ptx_simt_free(ptx_simt_stack *s)
{
    free(s->e);
    *s = (ptx_simt_stack){ 0 };
}

void ptx_simt_split(ptx_simt_stack *s, int rpc, const int *pcs, const uint32_t *masks, int ngroups)
{
    ptx_simt_entry *top = &s->e[s->n - 1];
    int last = ngroups - 1;
    if (top->rpc == rpc) {
        /* already waiting there: the top entry is the group that runs last */
        top->pc = pcs[last];
        top->mask = masks[last];
        last--;
    } else {
        top->pc = rpc;
    }
    for (int g = last; g >= 0; g--)
        ptx_simt_push(s, pcs[g], rpc, masks[g]);
}

/* Invariant under the merge policy: within a group of siblings (entries
 * above `base` with the same rpc) the pcs decrease towards the top.  After
 * a step only the top entry's pc changes, so this moves it down to its
 * place (or merges it), O(1) in the common case. */
void ptx_simt_sift_top(ptx_simt_stack *s, int base)
{
    ptx_simt_entry *e = s->e;
    int i = s->n - 1;
    while (i - 1 > base && e[i - 1].rpc == e[i].rpc && e[i - 1].pc <= e[i].pc) {
        if (e[i - 1].pc == e[i].pc) {
            e[i - 1].mask |= e[i].mask;
            for (int k = i; k < s->n - 1; k++)
                e[k] = e[k + 1];
            s->n--;
            return;
        }
        ptx_simt_entry tmp = e[i - 1];
        e[i - 1] = e[i];
        e[i] = tmp;
        i--;
    }
}

/* After a split: restore the invariant for the top sibling group. */
void ptx_simt_merge_siblings(ptx_simt_stack *s, int base)
{
    ptx_simt_entry *e = s->e;
    int top = s->n - 1;
    int rpc = e[top].rpc;
    int first = top;
    while (first - 1 > base && e[first - 1].rpc == rpc)
        first--;
    for (int i = first + 1; i <= top; i++) {   /* insertion sort, pc descending */
        ptx_simt_entry x = e[i];
        int j = i - 1;
        while (j >= first && e[j].pc < x.pc) {
            e[j + 1] = e[j];
            j--;
        }
        e[j + 1] = x;
    }
    int k = first;
    for (int i = first + 1; i <= top; i++) {   /* merge equal pcs */
        if (e[i].pc == e[k].pc)
            e[k].mask |= e[i].mask;
        else
            e[++k] = e[i];
    }
    s->n = k + 1;
}
