/*
 * cfg.c — basic blocks and control-flow edges of a function body.
 *
 * Leaders: the first instruction, every labelled instruction, and the
 * instruction after each bra / brx.idx / ret / exit (guarded or not).
 * Edges: a branch goes to its target (and falls through when guarded),
 * brx.idx to every label of its .branchtargets, ret / exit to the virtual
 * exit (and fall through when guarded), anything else falls through; the
 * last block falls off the end into the virtual exit.  A block ending in a
 * guarded `bra` is a conditional branch with two legs (taken, fallthrough).
 */
#include "ptx/internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_terminator(ptx_opcode op)
{
    return op == PTX_OP_BRA || op == PTX_OP_BRX || op == PTX_OP_RET || op == PTX_OP_EXIT;
}

static int block_of_instr(const ptx_function *f, int instr)
{
    if (instr < 0 || instr >= f->ninstrs) return PTX_BLOCK_EXIT;
    return f->instrs[instr].block;
}

static void add_succ(int *succ, int *n, int b)
{
    for (int i = 0; i < *n; i++)
        if (succ[i] == b) return;
    succ[(*n)++] = b;
}

static void set_label_blocks(ptx_function *f, ptx_operand *o)
{
    if (o->kind == PTX_OPD_LABEL && o->label_instr >= 0) {
        int b = block_of_instr(f, o->label_instr);
        o->label_block = b == PTX_BLOCK_EXIT ? -1 : b;
    }
    for (int k = 0; k < o->nelems; k++) set_label_blocks(f, (ptx_operand *)&o->elems[k]);
}

bool ptx_build_cfg(ptx_module *m, ptx_function *f, const char *file, wh_error *err)
{
    ptx_arena *A = m->arena;
    int n = f->ninstrs;
    f->nblocks = 0;
    f->nbranches = 0;
    for (int i = 0; i < f->nlabels; i++) f->labels[i].block = -1;
    if (n == 0) return true;

    bool *leader = calloc((size_t)n + 1, sizeof *leader);
    if (!leader) {
        wh_error_set(err, WH_ERR_INTERNAL, file, 0, 0, "out of memory");
        return false;
    }
    leader[0] = true;
    for (int i = 0; i < f->nlabels; i++) leader[f->labels[i].instr] = true;
    for (int i = 0; i < n; i++)
        if (is_terminator(f->instrs[i].op)) leader[i + 1] = true;
    int nb = 0;
    for (int i = 0; i < n; i++) nb += leader[i];

    f->blocks = ptx_arena_alloc(A, sizeof(ptx_block) * (size_t)nb);
    f->nblocks = nb;
    int b = -1;
    for (int i = 0; i < n; i++) {
        if (leader[i]) {
            b++;
            f->blocks[b].first = i;
        }
        f->blocks[b].count++;
        f->instrs[i].block = b;
    }
    free(leader);

    for (int i = 0; i < f->nlabels; i++) {
        int lb = block_of_instr(f, f->labels[i].instr);
        f->labels[i].block = lb == PTX_BLOCK_EXIT ? -1 : lb;
    }
    for (int i = 0; i < n; i++) {
        ptx_instr *ins = &f->instrs[i];
        for (int k = 0; k < ins->nops; k++) set_label_blocks(f, (ptx_operand *)&ins->ops[k]);
    }

    /* successors */
    int *tmp = NULL;
    int tmpcap = 0;
    for (b = 0; b < nb; b++) {
        ptx_block *bl = &f->blocks[b];
        const ptx_instr *last = &f->instrs[bl->first + bl->count - 1];
        int next = b + 1 < nb ? b + 1 : PTX_BLOCK_EXIT;
        bool guarded = last->guard >= 0;
        int need = 2;
        const ptx_btargets *bt = NULL;
        if (last->op == PTX_OP_BRX) {
            bt = &f->btargets[last->ops[1].sym.index];
            need = bt->nlabels + 1;
        }
        if (need > tmpcap) {
            tmpcap = need;
            tmp = wh_xrealloc(tmp, sizeof(int) * (size_t)tmpcap);
        }
        int ns = 0;
        bl->taken = -1;
        bl->fallthrough = -1;
        bool exits = false;
        switch (last->op) {
        case PTX_OP_BRA: {
            int t = block_of_instr(f, last->target_instr);
            bl->taken = t;
            if (t == PTX_BLOCK_EXIT) exits = true;
            else add_succ(tmp, &ns, t);
            if (guarded) {
                bl->cond_branch = true;
                bl->fallthrough = next;
                if (next == PTX_BLOCK_EXIT) exits = true;
                else add_succ(tmp, &ns, next);
            }
            break;
        }
        case PTX_OP_BRX:
            for (int k = 0; k < bt->nlabels; k++) {
                int t = block_of_instr(f, f->labels[bt->labels[k]].instr);
                if (t == PTX_BLOCK_EXIT) exits = true;
                else add_succ(tmp, &ns, t);
            }
            if (guarded) {
                bl->fallthrough = next;
                if (next == PTX_BLOCK_EXIT) exits = true;
                else add_succ(tmp, &ns, next);
            }
            break;
        case PTX_OP_RET:
        case PTX_OP_EXIT:
            exits = true;
            if (guarded) {
                bl->fallthrough = next;
                if (next != PTX_BLOCK_EXIT) add_succ(tmp, &ns, next);
            }
            break;
        default:
            bl->fallthrough = next;
            if (next == PTX_BLOCK_EXIT) exits = true;
            else add_succ(tmp, &ns, next);
            break;
        }
        bl->exits = exits;
        bl->nsucc = ns;
        bl->succ = ns ? ptx_arena_dup(A, tmp, sizeof(int) * (size_t)ns) : NULL;
        bl->line_first = f->instrs[bl->first].line;
        bl->line_last = last->line;
        if (bl->cond_branch) f->nbranches++;
    }
    free(tmp);

    /* predecessors */
    int *npred = calloc((size_t)nb, sizeof *npred);
    if (!npred) {
        wh_error_set(err, WH_ERR_INTERNAL, file, 0, 0, "out of memory");
        return false;
    }
    for (b = 0; b < nb; b++)
        for (int k = 0; k < f->blocks[b].nsucc; k++) npred[f->blocks[b].succ[k]]++;
    for (b = 0; b < nb; b++) {
        f->blocks[b].pred = npred[b] ? ptx_arena_alloc(A, sizeof(int) * (size_t)npred[b]) : NULL;
        f->blocks[b].npred = 0;
    }
    for (b = 0; b < nb; b++)
        for (int k = 0; k < f->blocks[b].nsucc; k++) {
            ptx_block *s = &f->blocks[f->blocks[b].succ[k]];
            s->pred[s->npred++] = b;
        }
    free(npred);

    /* reachability from the entry */
    int *stack = malloc(sizeof(int) * (size_t)nb);
    if (!stack) {
        wh_error_set(err, WH_ERR_INTERNAL, file, 0, 0, "out of memory");
        return false;
    }
    int sp = 0;
    f->blocks[0].reachable = true;
    stack[sp++] = 0;
    while (sp) {
        int x = stack[--sp];
        for (int k = 0; k < f->blocks[x].nsucc; k++) {
            int s = f->blocks[x].succ[k];
            if (!f->blocks[s].reachable) {
                f->blocks[s].reachable = true;
                stack[sp++] = s;
            }
        }
    }
    free(stack);
    return true;
}

int ptx_reconverge_instr(const ptx_function *f, int b)
{
    if (b < 0 || b >= f->nblocks) return f->ninstrs;
    int p = f->blocks[b].ipdom;
    if (p < 0) return f->ninstrs;
    return f->blocks[p].first;
}
