/*
 * test_indirect_call.c — calls through function pointers (PTX `call`
 * through a register, with a .callprototype): the sim calls what a
 * table of function pointers holds, one target group of a warp after
 * another, and faults on a target that is no function; the symbolic
 * stage forks over the functions whose address the module takes, each
 * path's atoms replaying on the sim.
 */
#include <criterion/criterion.h>

#include "gen/explore.h"
#include "tests/sim_support.h"

#include <stdio.h>
#include <string.h>

#define SPEC SIM_CORPUS("indirect_call")

static int op(int which, int a, int b)
{
    return which == 0 ? a + b : which == 1 ? a * b : a > b ? a : b;
}

Test(indirect_call, the_sim_calls_what_the_table_holds)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SPEC, SIM_SEEDS, false)) {
        sc_run(&c);
        const int *w = sc_buf(&c, "which"), *x = sc_buf(&c, "x"), *o = sc_buf(&c, "out");
        for (uint64_t i = 0; i < sc_threads(&c); i++)
            cr_assert_eq(o[i], op(w[i] % 3, x[i], (int)(i & 15)), "i=%llu which=%d", (unsigned long long)i, w[i]);
    }
}

/* A warp whose lanes call three functions runs them one after another:
 * longer than one calling only the slowest of them. */
static double time_with(int (*which)(uint64_t i))
{
    simcase c = { 0 };
    sc_open(&c, SPEC, 1, false);
    int *w = sc_buf(&c, "which");
    for (uint64_t i = 0; i < sc_threads(&c); i++) w[i] = which(i);
    sc_run(&c);
    double t = c.res.mean;
    sc_close(&c);
    return t;
}

static int all_mul(uint64_t i) { (void)i; return 1; }
static int mixed(uint64_t i) { return (int)(i % 3); }

Test(indirect_call, a_divergent_warp_calls_one_group_after_another)
{
    double one = time_with(all_mul), three = time_with(mixed);
    cr_expect_gt(three, one, "three targets %g cycles, one %g", three, one);
}

/* Hand-written PTX: the target is a function's address plus 16, the
 * address of nothing (the next slot): a fault, not a crash. */
Test(indirect_call, a_target_that_is_no_function_is_a_fault)
{
    static const char ptx[] =
        ".version 7.0\n.target sm_80\n.address_size 64\n"
        ".func (.param .b32 r) f(.param .b32 a)\n{\n.reg .b32 %r<2>;\nld.param.b32 %r1, [a];\n"
        "st.param.b32 [r], %r1;\nret;\n}\n"
        ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n.reg .b32 %r<3>;\n"
        "mov.u64 %rd1, f;\nadd.u64 %rd1, %rd1, 16;\nmov.u32 %r1, 5;\n"
        "{\n.param .b32 p0;\nst.param.b32 [p0], %r1;\n.param .b32 r0;\n"
        "proto : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
        "call (r0), %rd1, (p0), proto;\nld.param.b32 %r2, [r0];\n}\n"
        "ld.param.u64 %rd2, [out];\ncvta.to.global.u64 %rd3, %rd2;\nst.global.u32 [%rd3], %r2;\nret;\n}\n";
    static const char spec[] =
        "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[32],\"params\":["
        "{\"name\":\"out\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":1,\"role\":\"output\"}]}";
    char dir[] = "/tmp/wh_icall_XXXXXX";
    tsim_mkdtemp(dir);
    tsim_write(dir, "k.ptx", ptx);
    tsim_write(dir, "k.json", spec);
    char path[128];
    snprintf(path, sizeof path, "%s/k.json", dir);
    simcase c = { 0 };
    sc_load(&c, path, false);
    harness_options o = sc_options(false);
    cr_assert(sc_attach(&c, &o), "%s", c.err.msg);
    sc_measure(&c, 1);
    cr_expect_eq(c.res.status, HARNESS_FAULT, "%s", c.res.message);
    cr_expect(strstr(c.res.message, "indirect call to 0x400000000010, which is no function of the module"), "%s",
              c.res.message);
    sc_close(&c);
    ts_rmtree(dir);
}

/* X threads each call one of three functions: 3^X paths, each path's
 * atoms replaying its path (calls included) on the sim. */
Test(indirect_call, the_symbolic_stage_forks_over_the_targets)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    ts_need_ptx("build/ptx/tests/ptx/indirect_call.ptx");
    char cache[64];
    gen_result *r = ts_explore(s, 30, cache);
    int want = 1;
    for (int k = 0; k < r->x; k++) want *= 3;
    cr_expect_eq(r->npaths, want, "3^%d paths, one per choice of each thread's function (%d)", r->x, r->npaths);
    cr_expect_eq(r->atoms_invalid, 0, "every atom replays its path on the sim");
    cr_expect_gt(r->pool.natoms, 0);
    gen_result_free(r);
    wh_spec_free(s);
    ts_rmtree(cache);
}
