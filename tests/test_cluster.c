/*
 * test_cluster.c — thread block clusters of one block, what warphunt's
 * engines run: tests/ptx_sym/cluster_one.cu (cooperative groups' cluster
 * API: barrier.cluster.arrive/wait, mapa, the cluster registers) on the sim
 * against the same computation in C and through the symbolic stage;
 * hand-written PTX for the edges: a warp that exits has arrived, mapa to
 * any rank but 0 faults in both engines, a diverged warp at the barrier is
 * not modelled, the forms the ISA does not have are refused, st.async is
 * named unsupported.  Clusters of
 * several blocks are refused at open (tests/test_sim_errors.c).
 */
#include <criterion/criterion.h>

#include "tests/sim_support.h"
#include "tests/support.h"

#include <stdio.h>
#include <string.h>

#define SPEC "tests/specs/cluster_one.json"

Test(cluster, the_cluster_api_runs_in_clusters_of_one_block)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SPEC, 3, false)) {
        sc_run(&c);
        const int32_t *in = sc_buf(&c, "in"), *out = sc_buf(&c, "out");
        for (int b = 0; b < 4; b++) {
            int sum = 0;
            for (int t = 0; t < 64; t++) sum += in[b * 64 + t];
            for (int t = 0; t < 64; t++) {
                int i = b * 64 + t, acc = 0;
                for (int k = 0; k < (in[i] & 7); k++) acc += k;
                cr_expect_eq(out[i], sum + 1000 + acc, "seed %llu out[%d]", (unsigned long long)c.seed, i);
            }
        }
    }
}

/* One path per pair of trip counts of the 2 symbolic threads, through 3
 * cluster barriers (4 intervals), none an error, every atom replaying. */
Test(cluster, the_symbolic_stage_runs_cluster_barriers, .timeout = 120)
{
    json_t *doc = ts_explore_json(SPEC, "20");
    cr_expect_eq(json_integer_value(json_object_get(doc, "paths")), 64, "8 trip counts for each of 2 threads");
    cr_expect_eq(json_integer_value(json_object_get(doc, "errors")), 0);
    cr_expect_gt(json_integer_value(json_object_get(doc, "atoms_valid")), 0);
    cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_invalid")), 0, "every atom replays on the sim");
    json_decref(doc);
}

static const char *HEAD =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry k(.param .u64 k_out)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.shared .align 4 .b32 x;\n"
    "\tld.param.u64 %rd1, [k_out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n";

static const char *SPEC_TEXT =
    "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"k\", \"grid\": [1], \"block\": [64], "
    "\"symbolic\": { \"threads\": [2] }, \"params\": [ { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"i32\", "
    "\"count\": 64, \"role\": \"output\" } ] }\n";

static harness_status run_body(const char *body, int32_t *out, char *msg, size_t n)
{
    char ptx[4096];
    snprintf(ptx, sizeof ptx, "%s%s\tret;\n}\n", HEAD, body);
    return tsim_run_once(ptx, SPEC_TEXT, "out", out, 64 * sizeof *out, msg, n);
}

/* The second warp exits without arriving; the first one's wait passes
 * (non-exited threads only), after thread 0's store before the barrier. */
Test(cluster, a_warp_that_exits_has_arrived)
{
    int32_t out[64];
    char msg[1024];
    harness_status st = run_body(
        "\tsetp.ge.u32 %p1, %r1, 32;\n\t@%p1 bra DONE;\n"
        "\tsetp.eq.u32 %p2, %r1, 0;\n\t@%p2 st.shared.u32 [x], 7;\n"
        "\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n"
        "\tld.shared.u32 %r2, [x];\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n"
        "\tst.global.u32 [%rd4], %r2;\nDONE:\n",
        out, msg, sizeof msg);
    cr_assert_eq(st, HARNESS_OK, "%s", msg);
    for (int t = 0; t < 32; t++) cr_expect_eq(out[t], 7, "out[%d]", t);
}

/* A warp waits until every live warp has arrived: the second warp arrives
 * late (after a loop), the first waits for it and then reads its store. */
Test(cluster, a_wait_holds_until_every_warp_arrived)
{
    int32_t out[64];
    char msg[1024];
    harness_status st = run_body(
        "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra EARLY;\n"
        "\tmov.u32 %r3, 0;\nSPIN:\n\tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p2, %r3, 200;\n\t@%p2 bra SPIN;\n"
        "\tsetp.eq.u32 %p3, %r1, 32;\n\t@%p3 st.shared.u32 [x], 9;\n"
        "EARLY:\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n"
        "\tld.shared.u32 %r2, [x];\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n"
        "\tst.global.u32 [%rd4], %r2;\n",
        out, msg, sizeof msg);
    cr_assert_eq(st, HARNESS_OK, "%s", msg);
    for (int t = 0; t < 64; t++) cr_expect_eq(out[t], 9, "out[%d]", t);
}

Test(cluster, mapa_to_another_rank_faults)
{
    int32_t out[64];
    char msg[1024];
    harness_status st = run_body("\tmov.u32 %r2, x;\n\tmapa.shared::cluster.u32 %r3, %r2, 1;\n", out, msg, sizeof msg);
    cr_expect_eq(st, HARNESS_FAULT, "%s", msg);
    cr_expect(strstr(msg, "mapa to block rank 1") && strstr(msg, "the cluster has one block"), "%s", msg);
    st = run_body("\tmov.u32 %r2, x;\n\tmapa.shared::cluster.u32 %r3, %r2, 0;\n\tld.shared::cluster.u32 %r4, [%r3];\n",
                  out, msg, sizeof msg);
    cr_expect_eq(st, HARNESS_OK, "rank 0 is the block's own memory: %s", msg);
}

/* The symbolic stage ends the path where the sim faults. */
Test(cluster, the_symbolic_stage_faults_where_the_sim_does)
{
    char dir[] = "/tmp/wh_clusterXXXXXX", ptx[2048], path[128];
    tsim_mkdtemp(dir);
    snprintf(ptx, sizeof ptx, "%s\tmov.u32 %%r2, x;\n\tmapa.shared::cluster.u32 %%r3, %%r2, 1;\n\tret;\n}\n", HEAD);
    tsim_write(dir, "k.ptx", ptx);
    tsim_write(dir, "k.json", SPEC_TEXT);
    snprintf(path, sizeof path, "%s/k.json", dir);
    json_t *doc = ts_explore_json(path, "10");
    cr_expect_gt(json_integer_value(json_object_get(doc, "errors")), 0, "the path ends as an error");
    json_decref(doc);
    ts_rmtree(dir);
}

Test(cluster, a_diverged_warp_at_the_barrier_is_not_modelled)
{
    int32_t out[64];
    char msg[1024];
    harness_status st = run_body("\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra SKIP;\n\tbarrier.cluster.arrive;\nSKIP:\n", out,
                                 msg, sizeof msg);
    cr_expect_eq(st, HARNESS_UNSUPPORTED, "%s", msg);
    cr_expect(strstr(msg, "barrier.cluster under divergence"), "%s", msg);
}

Test(cluster, forms_the_isa_lacks_are_refused)
{
    int32_t out[64];
    char msg[1024];
    cr_expect_eq(run_body("\tbarrier.cluster.arrive.acquire;\n", out, msg, sizeof msg), HARNESS_UNSUPPORTED, "%s", msg);
    /* a store that completes an mbarrier's bytes: not a plain store */
    cr_expect_eq(run_body("\tst.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [x], %r1, [x];\n", out, msg,
                          sizeof msg), HARNESS_UNSUPPORTED, "%s", msg);
    cr_expect(strstr(msg, "st.async"), "%s", msg);
    char ptx[2048];
    snprintf(ptx, sizeof ptx, "%s\tbarrier.cluster.wait 0;\n\tret;\n}\n", HEAD);
    wh_error err;
    ptx_module *m = ptx_parse_string(ptx, "k.ptx", &err);
    cr_expect(!m && strstr(err.msg, "'barrier.cluster' takes no operands"), "%s", m ? "accepted" : err.msg);
    ptx_module_free(m);
}
