/*
 * test_sim_heap.c — device-side malloc and free on the sim: blocks of the
 * 8 MiB device heap that a kernel writes and reads back (every thread's
 * sum as the kernel computes it), NULL once the heap is spent (as many
 * 1 MiB blocks as fit, then NULL for every later thread), and free
 * accepted; the symbolic stage runs them too.
 */
#include <criterion/criterion.h>

#include "gen/explore.h"
#include "tests/sim_support.h"

#include <string.h>

#define SPEC SIM_CORPUS("heap_use")

Test(sim_heap, blocks_are_written_and_read_back)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SPEC, SIM_SEEDS, false)) {
        sc_run(&c);
        const int32_t *in = sc_buf(&c, "in"), *out = sc_buf(&c, "out");
        for (uint64_t t = 0; t < sc_threads(&c); t++) {
            int32_t n = in[t], want = (int32_t)t * (n * (n - 1) / 2);
            cr_expect_eq(out[t], want, "seed %llu thread %llu: n %d", (unsigned long long)c.seed,
                         (unsigned long long)t, n);
        }
    }
}

/* 64 threads each asking for 1 MiB and a few bytes: the first 7 get a
 * block of the 8 MiB heap (7 x (1 MiB + 64, rounded to 16) fits, 8 do
 * not), the others NULL (-1): 7 blocks, whichever threads ask first. */
Test(sim_heap, a_spent_heap_gives_null)
{
    simcase c = { 0 };
    sc_load(&c, SPEC, true);
    wh_error err;
    cr_assert(wh_spec_set_const(c.spec, "EXTRA", "1048576", &err), "%s", err.msg);
    sc_new_image(&c);
    int32_t *in = sc_buf(&c, "in");
    for (uint64_t t = 0; t < sc_threads(&c); t++) in[t] = 16;
    harness_options o = sc_options(true);
    cr_assert(sc_attach(&c, &o), "%s", c.err.msg);
    sc_run(&c);
    const int32_t *out = sc_buf(&c, "out");
    int got = 0, null = 0;
    for (uint64_t t = 0; t < sc_threads(&c); t++) {
        got += out[t] != -1;
        null += out[t] == -1;
    }
    cr_expect_eq(got, 7, "blocks of 1 MiB + 64 bytes in an 8 MiB heap");
    cr_expect_eq(null, 64 - 7);
    sc_close(&c);
}

/* The symbolic stage runs malloc as the sim does: the size (n ints) is not
 * pinned, so the loops over the block give one path per pair of counts
 * at X = 2 (17 x 17), and every atom replays its path on the sim. */
Test(sim_heap, the_symbolic_stage_runs_malloc)
{
    simcase c = { 0 };
    sc_load(&c, SPEC, true);
    char cache[64];
    gen_result *r = ts_explore(c.spec, 30, cache);
    cr_expect_eq(r->x, 2);
    cr_expect_eq(r->npaths, 17 * 17, "%d paths", r->npaths);
    cr_expect_eq(r->atoms_invalid, 0, "every atom follows its path on the sim");
    cr_expect_gt(r->atoms_valid, 0);
    gen_result_free(r);
    ts_rmtree(cache);
    sc_close(&c);
}
