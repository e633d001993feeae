/*
 * dom.c — dominators, immediate post-dominators and natural loops.
 *
 * Both dominator trees use the iterative algorithm of Cooper, Harvey and
 * Kennedy ("A Simple, Fast Dominance Algorithm") over a reverse postorder.
 * Post-dominators are dominators of the reversed CFG rooted at a virtual
 * exit node that every ret / exit block (and a block falling off the end)
 * flows into; ipdom(b) is where threads that diverged at b reconverge.
 * Blocks that cannot reach the exit (endless loops) get PTX_BLOCK_EXIT.
 * Natural loops come from back edges t -> h where h dominates t; loops with
 * the same header are merged; nesting follows body inclusion.
 */
#include "ptx/internal.h"

#include <stdlib.h>
#include <string.h>

/* Iterative DFS postorder from `root` over `next(node)` lists. */
typedef struct {
    const ptx_function *f;
    bool reverse;     /* walk predecessors (+ the exit node's entries) */
    int exit;         /* index of the virtual exit node (== nblocks) */
} walker;

static int w_count(const walker *w, int x)
{
    const ptx_function *f = w->f;
    if (!w->reverse) return x == w->exit ? 0 : f->blocks[x].nsucc;
    if (x == w->exit) {
        int c = 0;
        for (int b = 0; b < f->nblocks; b++) c += f->blocks[b].exits;
        return c;
    }
    return f->blocks[x].npred;
}

/* k-th neighbour; for the reverse exit node, k-th exiting block. */
static int w_get(const walker *w, int x, int k, int *cursor)
{
    const ptx_function *f = w->f;
    if (!w->reverse) return f->blocks[x].succ[k];
    if (x == w->exit) {
        while (*cursor < f->nblocks && !f->blocks[*cursor].exits) (*cursor)++;
        return (*cursor)++;
    }
    return f->blocks[x].pred[k];
}

/* Neighbours against the walk (the "predecessors" in CHK terms). */
static int w_in_count(const walker *w, int x)
{
    const ptx_function *f = w->f;
    if (!w->reverse) return x == w->exit ? 0 : f->blocks[x].npred;
    if (x == w->exit) return 0;
    return f->blocks[x].nsucc + (f->blocks[x].exits ? 1 : 0);
}

static int w_in_get(const walker *w, int x, int k)
{
    const ptx_function *f = w->f;
    if (!w->reverse) return f->blocks[x].pred[k];
    if (k < f->blocks[x].nsucc) return f->blocks[x].succ[k];
    return w->exit;
}

/* Fills order[] with the reverse postorder, rpo_num[node] (-1 unreached).
 * Returns the number of reached nodes. */
static int reverse_postorder(const walker *w, int root, int nnodes, int *order, int *rpo_num)
{
    int *stack = wh_xmalloc(sizeof(int) * (size_t)nnodes * 3);
    int *post = wh_xmalloc(sizeof(int) * (size_t)nnodes);
    char *seen = wh_xcalloc((size_t)nnodes, 1);
    int sp = 0, np = 0;
    /* stack frames: node, next child index, cursor */
    stack[sp++] = root;
    stack[sp++] = 0;
    stack[sp++] = 0;
    seen[root] = 1;
    while (sp) {
        int x = stack[sp - 3];
        int k = stack[sp - 2];
        if (k < w_count(w, x)) {
            int cursor = stack[sp - 1];
            int y = w_get(w, x, k, &cursor);
            stack[sp - 1] = cursor;
            stack[sp - 2] = k + 1;
            if (!seen[y]) {
                seen[y] = 1;
                stack[sp++] = y;
                stack[sp++] = 0;
                stack[sp++] = 0;
            }
        } else {
            post[np++] = x;
            sp -= 3;
        }
    }
    for (int i = 0; i < nnodes; i++) rpo_num[i] = -1;
    for (int i = 0; i < np; i++) {
        order[i] = post[np - 1 - i];
        rpo_num[order[i]] = i;
    }
    free(stack);
    free(post);
    free(seen);
    return np;
}

static int intersect(const int *idom, const int *rpo_num, int a, int b)
{
    while (a != b) {
        while (rpo_num[a] > rpo_num[b]) a = idom[a];
        while (rpo_num[b] > rpo_num[a]) b = idom[b];
    }
    return a;
}

/* Cooper-Harvey-Kennedy; idom[] of unreached nodes is -1, idom[root] = root. */
static void chk(const walker *w, int root, int nnodes, int *idom)
{
    int *order = wh_xmalloc(sizeof(int) * (size_t)nnodes);
    int *rpo_num = wh_xmalloc(sizeof(int) * (size_t)nnodes);
    int np = reverse_postorder(w, root, nnodes, order, rpo_num);
    for (int i = 0; i < nnodes; i++) idom[i] = -1;
    idom[root] = root;
    bool changed = true;
    while (changed) {
        changed = false;
        for (int i = 1; i < np; i++) {
            int b = order[i];
            int nd = -1;
            int cnt = w_in_count(w, b);
            for (int k = 0; k < cnt; k++) {
                int p = w_in_get(w, b, k);
                if (rpo_num[p] < 0 || idom[p] < 0) continue;
                nd = nd < 0 ? p : intersect(idom, rpo_num, p, nd);
            }
            if (nd >= 0 && idom[b] != nd) {
                idom[b] = nd;
                changed = true;
            }
        }
    }
    free(order);
    free(rpo_num);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void find_loops(ptx_module *m, ptx_function *f)
{
    int nb = f->nblocks;
    ptx_arena *A = m->arena;
    if (nb <= 0) return;
    /* headers with their latches */
    int *latch_count = wh_xcalloc((size_t)nb, sizeof(int));
    int nloops = 0;
    for (int t = 0; t < nb; t++) {
        if (!f->blocks[t].reachable) continue;
        for (int k = 0; k < f->blocks[t].nsucc; k++) {
            int h = f->blocks[t].succ[k];
            if (ptx_dominates(f, h, t)) {
                if (latch_count[h]++ == 0) nloops++;
            }
        }
    }
    f->nloops = nloops;
    f->loops = nloops ? ptx_arena_alloc(A, sizeof(ptx_loop) * (size_t)nloops) : NULL;
    if (!nloops) {
        free(latch_count);
        return;
    }
    char *in = wh_xmalloc((size_t)nb);
    int *work = wh_xmalloc(sizeof(int) * (size_t)nb);
    int *body = wh_xmalloc(sizeof(int) * (size_t)nb);
    int li = 0;
    for (int h = 0; h < nb; h++) {
        if (!latch_count[h]) continue;
        ptx_loop *L = &f->loops[li++];
        L->header = h;
        L->parent = -1;
        L->latches = ptx_arena_alloc(A, sizeof(int) * (size_t)latch_count[h]);
        memset(in, 0, (size_t)nb);
        in[h] = 1;
        int nbody = 0, nw = 0;
        body[nbody++] = h;
        for (int t = 0; t < nb; t++) {
            if (!f->blocks[t].reachable) continue;
            for (int k = 0; k < f->blocks[t].nsucc; k++) {
                if (f->blocks[t].succ[k] != h || !ptx_dominates(f, h, t)) continue;
                L->latches[L->nlatches++] = t;
                if (!in[t]) {
                    in[t] = 1;
                    body[nbody++] = t;
                    work[nw++] = t;
                }
            }
        }
        while (nw) {
            int x = work[--nw];
            for (int k = 0; k < f->blocks[x].npred; k++) {
                int p = f->blocks[x].pred[k];
                if (!in[p] && f->blocks[p].reachable) {
                    in[p] = 1;
                    body[nbody++] = p;
                    work[nw++] = p;
                }
            }
        }
        qsort(body, (size_t)nbody, sizeof(int), cmp_int);
        L->blocks = ptx_arena_dup(A, body, sizeof(int) * (size_t)nbody);
        L->nblocks = nbody;
    }
    free(in);
    free(work);
    free(body);
    free(latch_count);

    /* outer loops first: larger bodies first, then by header */
    for (int i = 1; i < nloops; i++) {
        ptx_loop x = f->loops[i];
        int j = i - 1;
        while (j >= 0 && (f->loops[j].nblocks < x.nblocks ||
                          (f->loops[j].nblocks == x.nblocks && f->loops[j].header > x.header))) {
            f->loops[j + 1] = f->loops[j];
            j--;
        }
        f->loops[j + 1] = x;
    }
    for (int i = 0; i < nloops; i++) {
        ptx_loop *L = &f->loops[i];
        L->parent = -1;
        for (int j = i - 1; j >= 0; j--) {
            if (ptx_loop_contains(f, j, L->header)) {
                L->parent = j; /* the latest earlier container is the smallest */
                break;
            }
        }
        L->depth = L->parent < 0 ? 1 : f->loops[L->parent].depth + 1;
        f->blocks[L->header].loop_header = true;
        for (int k = 0; k < L->nblocks; k++) f->blocks[L->blocks[k]].loop = i; /* inner ones overwrite */
    }
}

void ptx_build_dominators(ptx_module *m, ptx_function *f)
{
    int nb = f->nblocks;
    for (int b = 0; b < nb; b++) {
        f->blocks[b].idom = -1;
        f->blocks[b].ipdom = PTX_BLOCK_EXIT;
        f->blocks[b].loop = -1;
    }
    if (nb == 0) return;
    int *idom = wh_xmalloc(sizeof(int) * (size_t)(nb + 1));

    walker fw = { f, false, nb };
    chk(&fw, 0, nb, idom);
    for (int b = 0; b < nb; b++) f->blocks[b].idom = (b == 0 || idom[b] < 0) ? -1 : idom[b];

    walker rw = { f, true, nb };
    chk(&rw, nb, nb + 1, idom);
    for (int b = 0; b < nb; b++) f->blocks[b].ipdom = (idom[b] < 0 || idom[b] == nb) ? PTX_BLOCK_EXIT : idom[b];
    free(idom);

    find_loops(m, f);
}

bool ptx_dominates(const ptx_function *f, int a, int b)
{
    if (a < 0 || b < 0 || a >= f->nblocks || b >= f->nblocks) return false;
    if (!f->blocks[b].reachable || !f->blocks[a].reachable) return false;
    for (int x = b; x >= 0; x = f->blocks[x].idom)
        if (x == a) return true;
    return false;
}

bool ptx_postdominates(const ptx_function *f, int a, int b)
{
    if (b < 0 || b >= f->nblocks) return false;
    if (a == PTX_BLOCK_EXIT) return true;
    if (a < 0 || a >= f->nblocks) return false;
    for (int x = b, guard = 0; x >= 0 && guard <= f->nblocks; x = f->blocks[x].ipdom, guard++)
        if (x == a) return true;
    return false;
}

bool ptx_loop_contains(const ptx_function *f, int loop, int block)
{
    if (loop < 0 || loop >= f->nloops) return false;
    const ptx_loop *L = &f->loops[loop];
    int lo = 0, hi = L->nblocks - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (L->blocks[mid] == block) return true;
        if (L->blocks[mid] < block) lo = mid + 1;
        else hi = mid - 1;
    }
    return false;
}
