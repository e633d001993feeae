/*
 * test_ptx_cfg.c — basic blocks, edges, dominators, immediate
 * post-dominators and natural loops of the hand-written PTX in
 * tests/ptx_hand/, whose known answers are written at the top of each file.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

#define X PTX_BLOCK_EXIT

static ptx_module *load(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/ptx_hand/%s", name);
    wh_error e;
    wh_error_clear(&e);
    ptx_module *m = ptx_parse_file(path, &e);
    if (!m) {
        char buf[2048];
        wh_error_format(&e, buf, sizeof buf);
        cr_assert_fail("%s", buf);
    }
    return m;
}

static const ptx_function *kernel(const ptx_module *m, const char *name)
{
    const ptx_function *f = ptx_find_function(m, name);
    cr_assert_not_null(f, "no function %s", name);
    return f;
}

/* Expected shape of a function: -2 (X) marks the virtual exit; -1 none. */
static void expect_doms(const ptx_function *f, int n, const int *idom, const int *ipdom)
{
    cr_assert_eq(f->nblocks, n, "%s: %d blocks, expected %d", f->name, f->nblocks, n);
    for (int b = 0; b < n; b++) {
        cr_expect_eq(f->blocks[b].idom, idom[b], "%s: idom(B%d) = %d, expected %d", f->name, b,
                     f->blocks[b].idom, idom[b]);
        cr_expect_eq(f->blocks[b].ipdom, ipdom[b], "%s: ipdom(B%d) = %d, expected %d", f->name, b,
                     f->blocks[b].ipdom, ipdom[b]);
    }
}

static bool has_succ(const ptx_function *f, int b, int s)
{
    for (int k = 0; k < f->blocks[b].nsucc; k++)
        if (f->blocks[b].succ[k] == s) return true;
    return false;
}

static void expect_branch(const ptx_function *f, int b, int taken, int fall)
{
    const ptx_block *bl = &f->blocks[b];
    cr_expect(bl->cond_branch, "%s: B%d should end in a conditional branch", f->name, b);
    cr_expect_eq(bl->taken, taken, "%s: B%d taken", f->name, b);
    cr_expect_eq(bl->fallthrough, fall, "%s: B%d fallthrough", f->name, b);
}

Test(ptx_cfg, diamond)
{
    ptx_module *m = load("diamond.ptx");
    const ptx_function *f = kernel(m, "diamond");
    const int idom[] = { -1, 0, 0, 0 }, ipdom[] = { 3, 3, 3, X };
    expect_doms(f, 4, idom, ipdom);
    cr_expect_eq(f->nbranches, 1);
    expect_branch(f, 0, 2, 1);
    cr_expect(!f->blocks[1].cond_branch);
    cr_expect_eq(f->blocks[1].taken, 3); /* bra.uni JOIN */
    cr_expect(f->blocks[3].exits);
    cr_expect_eq(f->nloops, 0);
    cr_expect_eq(f->blocks[0].first, 0);
    cr_expect_eq(f->blocks[0].count, 5);
    cr_expect_eq(f->blocks[3].first, 8);
    cr_expect_eq(ptx_reconverge_instr(f, 0), 8);
    cr_expect_eq(ptx_reconverge_instr(f, 3), f->ninstrs);
    cr_expect(ptx_dominates(f, 0, 3));
    cr_expect(!ptx_dominates(f, 1, 3));
    cr_expect(ptx_postdominates(f, 3, 0));
    cr_expect(ptx_postdominates(f, X, 1));
    cr_expect(!ptx_postdominates(f, 1, 0));
    /* the predicate of the branch is a guard on the instruction */
    const ptx_instr *br = &f->instrs[f->blocks[0].first + f->blocks[0].count - 1];
    cr_expect_eq(br->op, PTX_OP_BRA);
    cr_expect(br->guard >= 0);
    ptx_module_free(m);
}

Test(ptx_cfg, if_without_else)
{
    ptx_module *m = load("if_no_else.ptx");
    const ptx_function *f = kernel(m, "if_no_else");
    const int idom[] = { -1, 0, 0 }, ipdom[] = { 2, 2, X };
    expect_doms(f, 3, idom, ipdom);
    expect_branch(f, 0, 2, 1);
    cr_expect_eq(f->blocks[2].npred, 2);
    ptx_module_free(m);
}

Test(ptx_cfg, nested_loops)
{
    ptx_module *m = load("nested_loops.ptx");
    const ptx_function *f = kernel(m, "nested_loops");
    const int idom[] = { -1, 0, 1, 2, 3, 3, 1 }, ipdom[] = { 1, 6, 3, 5, 3, 1, X };
    expect_doms(f, 7, idom, ipdom);
    cr_expect_eq(f->nbranches, 2);
    expect_branch(f, 1, 6, 2);
    expect_branch(f, 3, 5, 4);
    cr_assert_eq(f->nloops, 2);
    const ptx_loop *outer = &f->loops[0], *inner = &f->loops[1];
    cr_expect_eq(outer->header, 1);
    cr_expect_eq(outer->depth, 1);
    cr_expect_eq(outer->parent, -1);
    cr_expect_eq(outer->nblocks, 5);
    const int ob[] = { 1, 2, 3, 4, 5 };
    cr_expect_arr_eq(outer->blocks, ob, sizeof ob);
    cr_expect_eq(outer->nlatches, 1);
    cr_expect_eq(outer->latches[0], 5);
    cr_expect_eq(inner->header, 3);
    cr_expect_eq(inner->depth, 2);
    cr_expect_eq(inner->parent, 0);
    const int ib[] = { 3, 4 };
    cr_expect_eq(inner->nblocks, 2);
    cr_expect_arr_eq(inner->blocks, ib, sizeof ib);
    cr_expect_eq(inner->latches[0], 4);
    cr_expect(f->blocks[1].loop_header && f->blocks[3].loop_header);
    cr_expect_eq(f->blocks[4].loop, 1);
    cr_expect_eq(f->blocks[2].loop, 0);
    cr_expect_eq(f->blocks[0].loop, -1);
    cr_expect_eq(f->blocks[6].loop, -1);
    cr_expect(ptx_loop_contains(f, 0, 4));
    cr_expect(!ptx_loop_contains(f, 1, 5));
    ptx_module_free(m);
}

Test(ptx_cfg, loop_with_break_and_early_return)
{
    ptx_module *m = load("loop_break_return.ptx");
    const ptx_function *f = kernel(m, "loop_break_return");
    const int idom[] = { -1, 0, 1, 2, 1, 2 }, ipdom[] = { 1, X, X, X, X, X };
    expect_doms(f, 6, idom, ipdom);
    cr_expect_eq(f->nbranches, 3);
    expect_branch(f, 1, 4, 2);
    expect_branch(f, 2, 5, 3);
    expect_branch(f, 3, 1, 4);
    cr_assert_eq(f->nloops, 1);
    cr_expect_eq(f->loops[0].header, 1);
    cr_expect_eq(f->loops[0].nblocks, 3);
    cr_expect_eq(f->loops[0].latches[0], 3);
    cr_expect(f->blocks[4].exits && f->blocks[5].exits);
    ptx_module_free(m);
}

Test(ptx_cfg, switch_as_a_compare_chain)
{
    ptx_module *m = load("switch_chain.ptx");
    const ptx_function *f = kernel(m, "switch_chain");
    const int idom[] = { -1, 0, 1, 2, 0, 1, 2, 0 }, ipdom[] = { 7, 7, 7, 7, 7, 7, 7, X };
    expect_doms(f, 8, idom, ipdom);
    cr_expect_eq(f->nbranches, 3);
    expect_branch(f, 0, 4, 1);
    expect_branch(f, 1, 5, 2);
    expect_branch(f, 2, 6, 3);
    cr_expect_eq(f->blocks[7].npred, 4);
    cr_expect_eq(f->nloops, 0);
    ptx_module_free(m);
}

Test(ptx_cfg, switch_through_branch_targets)
{
    ptx_module *m = load("switch_brx.ptx");
    const ptx_function *f = kernel(m, "switch_brx");
    const int idom[] = { -1, 0, 0, 0, 0 }, ipdom[] = { 4, 4, 4, 4, X };
    expect_doms(f, 5, idom, ipdom);
    cr_expect_eq(f->nbranches, 0);
    cr_expect_eq(f->blocks[0].nsucc, 3);
    cr_expect(has_succ(f, 0, 1) && has_succ(f, 0, 2) && has_succ(f, 0, 3));
    cr_expect_eq(f->nbtargets, 1);
    cr_expect_eq(f->btargets[0].nlabels, 3);
    const ptx_instr *brx = &f->instrs[f->blocks[0].first + f->blocks[0].count - 1];
    cr_expect_eq(brx->op, PTX_OP_BRX);
    ptx_module_free(m);
}

Test(ptx_cfg, block_unreachable_from_entry)
{
    ptx_module *m = load("unreachable.ptx");
    const ptx_function *f = kernel(m, "unreachable");
    const int idom[] = { -1, -1, 0 }, ipdom[] = { 2, 2, X };
    expect_doms(f, 3, idom, ipdom);
    cr_expect(f->blocks[0].reachable);
    cr_expect(!f->blocks[1].reachable);
    cr_expect(f->blocks[2].reachable);
    cr_expect_eq(f->blocks[2].npred, 2);
    cr_expect_eq(f->nbranches, 0);
    ptx_module_free(m);
}

Test(ptx_cfg, several_returns_meet_at_the_exit)
{
    ptx_module *m = load("multi_ret.ptx");
    const ptx_function *f = kernel(m, "multi_ret");
    const int idom[] = { -1, 0, 0, 2, 2 }, ipdom[] = { X, X, X, X, X };
    expect_doms(f, 5, idom, ipdom);
    cr_expect_eq(f->nbranches, 2);
    expect_branch(f, 0, 2, 1);
    expect_branch(f, 2, 4, 3);
    cr_expect(f->blocks[1].exits && f->blocks[3].exits && f->blocks[4].exits);
    cr_expect_eq(f->blocks[1].nsucc, 0);
    ptx_module_free(m);
}

Test(ptx_cfg, guarded_exit_guarded_ret_and_endless_loop)
{
    ptx_module *m = load("guarded_exit_spin.ptx");
    const ptx_function *g = kernel(m, "guarded_exit");
    const int gi[] = { -1, 0 }, gp[] = { X, X };
    expect_doms(g, 2, gi, gp);
    cr_expect(g->blocks[0].exits);
    cr_expect(has_succ(g, 0, 1));
    cr_expect_eq(g->nbranches, 0);

    const ptx_function *c = kernel(m, "clampf");
    const int ci[] = { -1, 0 }, cp[] = { X, X };
    expect_doms(c, 2, ci, cp);
    cr_expect(!c->is_entry);
    cr_expect(c->blocks[0].exits);

    const ptx_function *s = kernel(m, "spin");
    const int si[] = { -1, 0, 0 }, sp[] = { 1, X, X };
    expect_doms(s, 3, si, sp);
    expect_branch(s, 0, 2, 1);
    cr_assert_eq(s->nloops, 1);
    cr_expect_eq(s->loops[0].header, 2);
    cr_expect_eq(s->loops[0].latches[0], 2);
    cr_expect(!s->blocks[2].exits);
    ptx_module_free(m);
}

/* Branch legs and reconvergence on nvcc output: every conditional branch has
 * two distinct legs and its ipdom post-dominates both. */
Test(ptx_cfg, nvcc_branches_reconverge_below_both_legs)
{
    const char *files[] = { "build/ptx/kernels/artificial.ptx", "build/ptx/tests/ptx/loop_nested.ptx",
                            "build/ptx/tests/ptx/switch_dense.ptx", "build/ptx/tests/ptx/early_return.ptx" };
    int seen = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        wh_error e;
        ptx_module *m = ptx_parse_file(files[i], &e);
        if (!m) continue; /* corpus not built, or another test reports it */
        seen++;
        for (int fi = 0; fi < m->nfuncs; fi++) {
            const ptx_function *f = &m->funcs[fi];
            int count = 0;
            for (int b = 0; b < f->nblocks; b++) {
                const ptx_block *bl = &f->blocks[b];
                if (!bl->cond_branch) continue;
                count++;
                int p = bl->ipdom;
                if (bl->taken >= 0)
                    cr_expect(p == X || ptx_postdominates(f, p, bl->taken), "%s B%d", files[i], b);
                if (bl->fallthrough >= 0)
                    cr_expect(p == X || ptx_postdominates(f, p, bl->fallthrough), "%s B%d", files[i], b);
            }
            cr_expect_eq(count, f->nbranches);
        }
        ptx_module_free(m);
    }
    if (!seen) cr_skip_test("PTX corpus not built: run `make ptx`");
}
