/*
 * test_extend.c — concolic extension (symexec/extend.c): an input's
 * neighbour on the other side of one of its last branches.
 */
#include <criterion/criterion.h>

#include "gen/explore.h"
#include "symexec/symexec.h"
#include "support.h"

#include <stdlib.h>
#include <string.h>

#define GCD_SPEC "kernels/holdout/gcd_steps.json"
#define GCD_PTX "build/ptx/kernels/holdout/gcd_steps.ptx"

typedef struct {
    wh_spec *spec;
    ptx_module *mod;
} fixture;

static fixture open_gcd(void)
{
    ts_need_ptx(GCD_PTX);
    wh_error err;
    fixture f = { wh_spec_load(GCD_SPEC, &err), NULL };
    cr_assert(f.spec, "%s", err.msg);
    f.mod = ptx_parse_file(GCD_PTX, &err);
    cr_assert(f.mod, "%s", err.msg);
    return f;
}

static void close_fixture(fixture *f)
{
    ptx_module_free(f->mod);
    wh_spec_free(f->spec);
}

/* The quotients of Euclid's remainder loop on (a, b), at most max; their
 * count is the loop's steps. */
static int euclid_quotients(uint32_t a, uint32_t b, uint32_t *q, int max)
{
    int n = 0;
    while (b) {
        if (n < max) q[n] = a / b;
        uint32_t t = a % b;
        a = b;
        b = t;
        n++;
    }
    return n;
}

static uint32_t u32_at(const wh_image *img, const char *name, uint64_t i)
{
    int p = wh_image_find(img, name);
    cr_assert_geq(p, 0, "%s", name);
    return (uint32_t)wh_image_int(img, p, i);
}

/* An image of x threads of gcd_steps, thread t's pair (a[t], b[t]). */
static wh_image *gcd_pairs(const fixture *f, unsigned x, const uint32_t *a, const uint32_t *b)
{
    wh_error err;
    wh_launch l = wh_launch_threads(x);
    wh_image *img = wh_image_new(f->spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    int pa = wh_image_find(img, "a_in"), pb = wh_image_find(img, "b_in");
    for (unsigned t = 0; t < x; t++) {
        wh_image_set_int(img, pa, t, a[t]);
        wh_image_set_int(img, pb, t, b[t]);
    }
    return img;
}

/* One extension of img (generous limits: the test is of what it finds);
 * fails the test when it finds none. */
static wh_image *extend_once(const fixture *f, const wh_image *img, int *thread)
{
    sx_extend_options o;
    sx_extend_options_default(&o);
    o.flips = 1;                     /* the latest decision only: the loop's exit */
    o.time_s = 60;
    o.query_ms = 60000;
    wh_image *next = NULL;
    wh_error err;
    int r = sx_extend(f->spec, f->mod, img, &o, &next, thread, &err);
    cr_assert_eq(r, 1, "%s", r < 0 ? err.msg : "no extension");
    return next;
}

/* Each extension of one thread's Euclid pair takes more steps than the
 * pair before it, and keeps its quotients: the loop's exit flipped with
 * the path's quotients fixed, a linear formula.  (Without that rule the
 * solver may answer with any longer pair: the quotients tell.) */
Test(extend, each_extension_of_a_euclid_pair_keeps_its_quotients_and_takes_more_steps)
{
    fixture f = open_gcd();
    uint32_t a = 89u, b = 55u;           /* Fibonacci: 9 steps, room for many more below 2^32 */
    wh_image *img = gcd_pairs(&f, 1, &a, &b);
    uint32_t q[64], nq[64];
    int steps = euclid_quotients(a, b, q, 64);
    for (int round = 0; round < 4; round++) {
        int thread = -1;
        wh_image *next = extend_once(&f, img, &thread);
        cr_expect_eq(thread, 0);
        uint32_t na = u32_at(next, "a_in", 0), nb = u32_at(next, "b_in", 0);
        cr_assert(na >= 1 && nb >= 1, "the domains hold: (%u, %u)", na, nb);
        int ns = euclid_quotients(na, nb, nq, 64);
        cr_assert_gt(ns, steps, "round %d: (%u, %u) takes %d steps after %d", round, na, nb, ns, steps);
        for (int i = 0; i < steps && i < 64; i++)
            cr_assert_eq(nq[i], q[i], "round %d: (%u, %u)'s quotient %d is %u, the path's %u", round, na, nb, i, nq[i],
                         q[i]);
        steps = ns;
        memcpy(q, nq, sizeof q);
        wh_image_free(img);
        img = next;
    }
    wh_image_free(img);
    close_fixture(&f);
}

/* Only the deciding thread's input changes: the other threads' pairs
 * are pinned to their values. */
Test(extend, the_other_threads_keep_their_inputs)
{
    fixture f = open_gcd();
    uint32_t a[3] = { 832040u, 99u, 1234567u }, b[3] = { 514229u, 7u, 7654321u };
    wh_image *img = gcd_pairs(&f, 3, a, b);
    int thread = -1;
    wh_image *next = extend_once(&f, img, &thread);
    cr_assert(thread >= 0 && thread < 3);
    for (int t = 0; t < 3; t++) {
        uint32_t na = u32_at(next, "a_in", (uint64_t)t), nb = u32_at(next, "b_in", (uint64_t)t);
        if (t == thread)
            cr_expect(na != a[t] || nb != b[t], "thread %d, the one extended, changed", t);
        else
            cr_expect(na == a[t] && nb == b[t], "thread %d kept (%u, %u): (%u, %u)", t, a[t], b[t], na, nb);
    }
    wh_image_free(next);
    wh_image_free(img);
    close_fixture(&f);
}

/* A wrong image is an error, not a crash. */
Test(extend, an_image_of_another_spec_is_refused)
{
    fixture f = open_gcd();
    wh_error err;
    wh_spec *other = wh_spec_load("kernels/holdout/collatz_steps.json", &err);
    cr_assert(other, "%s", err.msg);
    wh_launch l = wh_launch_threads(1);
    wh_image *img = wh_image_new(other, &l, &err);
    cr_assert(img, "%s", err.msg);
    sx_extend_options o;
    sx_extend_options_default(&o);
    wh_image *next = NULL;
    int thread = -1;
    cr_expect_eq(sx_extend(f.spec, f.mod, img, &o, &next, &thread, &err), -1);
    cr_expect_null(next);
    wh_image_free(img);
    wh_spec_free(other);
    close_fixture(&f);
}

/* A budget spent before the path ends finds nothing, and says so without
 * an error: the search goes on without the extension. */
Test(extend, a_spent_budget_finds_nothing)
{
    fixture f = open_gcd();
    uint32_t a = 89u, b = 55u;
    wh_image *img = gcd_pairs(&f, 1, &a, &b);
    sx_extend_options o;
    sx_extend_options_default(&o);
    o.time_s = 1e-9;
    wh_image *next = NULL;
    int thread = -1;
    wh_error err;
    cr_expect_eq(sx_extend(f.spec, f.mod, img, &o, &next, &thread, &err), 0);
    cr_expect_null(next);
    wh_image_free(img);
    close_fixture(&f);
}

/* gen_extend_atom: a thread atom (one pair in every thread) extended
 * gives a new atom with the longer pair in every thread. */
Test(extend, an_extended_thread_atom_holds_the_longer_input_in_every_thread)
{
    fixture f = open_gcd();
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, f.spec, f.spec->sym_threads[0], &err), "%s", err.msg);
    uint32_t a[4] = { 89u, 89u, 89u, 89u }, b[4] = { 55u, 55u, 55u, 55u };
    cr_assert_leq(pool.x, 4);
    wh_image *img = gcd_pairs(&f, (unsigned)pool.x, a, b);
    int atom = gen_pool_add(&pool, img, GEN_ATOM_SEED, -1, true, &err);
    cr_assert_geq(atom, 0, "%s", err.msg);
    gen_extender *x = gen_extender_new(f.spec, &err);
    cr_assert(x, "%s", err.msg);
    int longer = gen_extend_atom(x, &pool, atom, 60, &err);
    cr_assert_geq(longer, 0, "%s", longer == -1 ? err.msg : "none found");
    cr_expect_neq(longer, atom);
    gen_pool_atom_to_image(&pool, longer, img);
    uint32_t a0 = u32_at(img, "a_in", 0), b0 = u32_at(img, "b_in", 0), q[64];
    cr_expect_gt(euclid_quotients(a0, b0, q, 64), euclid_quotients(89u, 55u, q, 64), "(%u, %u)", a0, b0);
    for (int t = 1; t < pool.x; t++)
        cr_expect(u32_at(img, "a_in", (uint64_t)t) == a0 && u32_at(img, "b_in", (uint64_t)t) == b0,
                  "thread %d holds thread 0's pair", t);
    gen_extender_free(x);
    wh_image_free(img);
    gen_pool_free(&pool);
    close_fixture(&f);
}

/* edit_distance's candidates are owned by rows (offsets, a running sum of
 * lengths): an extended thread atom gives every thread the extended
 * thread's row, placed where the atom's own lengths put it.  Thread 0's
 * candidate (1 2 3 1 ...) and thread 1's (all 0) differ, so a row left
 * where the solver's image had it would show. */
Test(extend, an_extended_thread_atom_of_candidates_owned_by_rows_holds_one_row_in_every_thread)
{
    ts_need_ptx("build/ptx/kernels/holdout/edit_distance.ptx");
    wh_error err;
    wh_spec *spec = wh_spec_load("kernels/holdout/edit_distance.json", &err);
    cr_assert(spec, "%s", err.msg);
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, spec, 2, &err), "%s", err.msg);
    wh_launch two = wh_launch_threads(2);
    wh_image *img = wh_image_new(spec, &two, &err);
    cr_assert(img, "%s", err.msg);
    int cands = wh_image_find(img, "cands"), offsets = wh_image_find(img, "offsets"),
        lengths = wh_image_find(img, "lengths");
    /* no query: the latest decision is the exit of the loop over the
     * candidate's length, which one more symbol flips */
    wh_image_set_int(img, wh_image_find(img, "qlen"), 0, 0);
    wh_image_set_int(img, wh_image_find(img, "band"), 0, 16);
    wh_image_set_int(img, wh_image_find(img, "threshold"), 0, 16);
    for (uint64_t t = 0; t < 2; t++) {
        wh_image_set_int(img, lengths, t, 6);
        wh_image_set_int(img, offsets, t, (int64_t)(6 * t));
        for (uint64_t j = 0; j < 6; j++) wh_image_set_int(img, cands, 6 * t + j, t ? 0 : (int64_t)(1 + j % 3));
    }
    int atom = gen_pool_add(&pool, img, GEN_ATOM_SEED, -1, true, &err);
    cr_assert_geq(atom, 0, "%s", err.msg);
    gen_extender *x = gen_extender_new(spec, &err);
    cr_assert(x, "%s", err.msg);
    int ext = gen_extend_atom(x, &pool, atom, 60, &err);
    cr_assert_geq(ext, 0, "%s", ext == -1 ? err.msg : "none found");
    gen_pool_atom_to_image(&pool, ext, img);
    int64_t len = wh_image_int(img, lengths, 0);
    cr_expect_eq(wh_image_int(img, lengths, 1), len, "both threads hold one length");
    for (int64_t j = 0; j < len; j++)
        cr_expect_eq(wh_image_int(img, cands, (uint64_t)(len + j)), wh_image_int(img, cands, (uint64_t)j),
                     "entry %lld of thread 1's row (at %lld) is thread 0's", (long long)j, (long long)len);
    gen_extender_free(x);
    wh_image_free(img);
    gen_pool_free(&pool);
    wh_spec_free(spec);
}
