/*
 * test_mbarrier.c — mbarrier objects on the sim: a cuda::barrier
 * (tests/ptx/mbarrier.cu) holds every thread of a block until all have
 * published their element, under the library's spin loop; hand-written
 * PTX walks the phases of one object (init, arrive and its token,
 * test_wait on a token and on a parity, pending_count, arrive_drop,
 * arrive.noComplete) and an arrival past the pending count faults;
 * transaction counts (arrive.expect_tx, expect_tx, complete_tx) hold a
 * phase until its bytes are in, and a count out of range faults; the
 * symbolic stage runs the barrier (a wait holds its thread until the phase
 * completes), counts transaction bytes, and ends a path whose phase no
 * thread can complete.  Bulk copies (cp.async.bulk, global to shared and
 * back) move a block's data and complete their bytes on the mbarrier, on
 * the sim and in the symbolic stage; a misaligned one faults, a tensor
 * copy through anything but a tensor map parameter is reported
 * unsupported by name (tensor maps: tests/test_tensor_map.c).
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "tests/sim_support.h"
#include "tests/support.h"

#include <stdio.h>
#include <string.h>

#define SPEC "tests/specs/mbarrier_publish.json"

/* Every thread loops over its neighbour's published element: right only
 * if the barrier held it until the neighbour had published. */
Test(mbarrier, a_block_barrier_publishes_to_the_neighbours)
{
    simcase c = { 0 };
    while (sc_seeds(&c, SPEC, 3, false)) {
        sc_run(&c);
        const int32_t *data = sc_buf(&c, "data"), *out = sc_buf(&c, "out");
        for (int i = 0; i < 512; i++) {
            int v = data[i / 128 * 128 + (i % 128 + 1) % 128], acc = 0;
            for (int k = 0; k < v % 8; k++) acc += k + v;
            cr_expect_eq(out[i], acc, "seed %llu out[%d]", (unsigned long long)c.seed, i);
        }
    }
}

static const char *PTX_HEAD =
    ".version 8.0\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry k(.param .u64 k_out)\n{\n"
    "\t.reg .pred %p<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n"
    "\t.shared .align 8 .b64 bar;\n\t.shared .align 16 .b8 buf[64];\n"
    "\tld.param.u64 %rd1, [k_out];\n\tcvta.to.global.u64 %rd2, %rd1;\n";

/* One thread's PTX `body` (after the head; it stores into %rd2), run once:
 * the status, and out's 16 words. */
static harness_status run_body(const char *body, int32_t *out, char *msg, size_t n)
{
    char ptx[4096];
    snprintf(ptx, sizeof ptx, "%s%s\tret;\n}\n", PTX_HEAD, body);
    return tsim_run_once(ptx,
                         "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"k\", "
                         "\"grid\": [1], \"block\": [1], \"params\": [ { \"name\": \"out\", \"kind\": \"buffer\", "
                         "\"type\": \"i32\", \"count\": 16, \"role\": \"output\" } ] }\n",
                         "out", out, 16 * sizeof *out, msg, n);
}

/* selp of predicate P into out[K] */
#define STORE_PRED(p, k) "\tselp.u32 %r9, 1, 0, " p ";\n\tst.global.u32 [%rd2+" #k "], %r9;\n"

Test(mbarrier, the_phases_of_one_object)
{
    int32_t out[16];
    char msg[1024];
    harness_status st = run_body(
        "\tmbarrier.init.shared.b64 [bar], 2;\n"
        "\tmbarrier.arrive.shared.b64 %rd3, [bar];\n"            /* phase 0: 2 -> 1 pending */
        "\tmbarrier.test_wait.shared.b64 %p1, [bar], %rd3;\n"    /* not complete */
        STORE_PRED("%p1", 0)
        "\tmbarrier.pending_count.b64 %r2, %rd3;\n"              /* the token: 2 were pending */
        "\tst.global.u32 [%rd2+4], %r2;\n"
        "\tmbarrier.arrive.shared.b64 %rd4, [bar];\n"            /* 1 -> 0: phase 0 completes */
        "\tmbarrier.test_wait.shared.b64 %p2, [bar], %rd3;\n"
        STORE_PRED("%p2", 8)
        "\tmbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;\n"  /* phase parity 0: complete */
        STORE_PRED("%p3", 12)
        "\tmbarrier.test_wait.parity.shared.b64 %p4, [bar], 1;\n"  /* phase 1: not yet */
        STORE_PRED("%p4", 16)
        "\tmbarrier.arrive_drop.shared.b64 %rd5, [bar];\n"       /* phase 1: 2 -> 1, expected 2 -> 1 */
        "\tmbarrier.try_wait.shared.b64 %p5, [bar], %rd5;\n"
        STORE_PRED("%p5", 20)
        "\tmbarrier.arrive.shared.b64 %rd6, [bar];\n"            /* 1 -> 0: phase 1 completes, 1 pending */
        "\tmbarrier.try_wait.parity.shared.b64 %p6, [bar], 1;\n"
        STORE_PRED("%p6", 24)
        "\tmbarrier.arrive.noComplete.shared.b64 %rd7, [bar], 1;\n" /* phase 2: 1 -> 0, not completed */
        "\tmbarrier.test_wait.parity.shared.b64 %p7, [bar], 0;\n"
        STORE_PRED("%p7", 28)
        "\tmbarrier.pending_count.b64 %r3, %rd6;\n"
        "\tst.global.u32 [%rd2+32], %r3;\n",
        out, msg, sizeof msg);
    cr_assert_eq(st, HARNESS_OK, "%s", msg);
    static const int32_t want[9] = { 0, 2, 1, 1, 0, 0, 1, 0, 1 };
    for (int k = 0; k < 9; k++) cr_expect_eq(out[k], want[k], "out[%d] = %d, expected %d", k, out[k], want[k]);
}

/* A phase with a transaction count completes only when its arrivals are
 * in and every expected byte has been completed, in either order. */
Test(mbarrier, a_phase_waits_for_its_transaction_bytes)
{
    int32_t out[16];
    char msg[1024];
    harness_status st = run_body(
        "\tmbarrier.init.shared.b64 [bar], 1;\n"
        "\tmbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 64;\n"  /* the arrival is in, 64 bytes expected */
        "\tmbarrier.test_wait.shared.b64 %p1, [bar], %rd3;\n"       /* not complete: the bytes */
        STORE_PRED("%p1", 0)
        "\tmbarrier.complete_tx.shared.b64 [bar], 48;\n"            /* 16 bytes still expected */
        "\tmbarrier.test_wait.shared.b64 %p2, [bar], %rd3;\n"
        STORE_PRED("%p2", 4)
        "\tmbarrier.complete_tx.shared.b64 [bar], 16;\n"            /* phase 0 completes */
        "\tmbarrier.test_wait.shared.b64 %p3, [bar], %rd3;\n"
        STORE_PRED("%p3", 8)
        "\tmbarrier.expect_tx.shared.b64 [bar], 32;\n"              /* phase 1: bytes first */
        "\tmbarrier.complete_tx.shared.b64 [bar], 32;\n"            /* no arrival yet: not complete */
        "\tmbarrier.test_wait.parity.shared.b64 %p4, [bar], 1;\n"
        STORE_PRED("%p4", 12)
        "\tmbarrier.arrive.shared.b64 %rd4, [bar];\n"               /* now it is */
        "\tmbarrier.test_wait.parity.shared.b64 %p5, [bar], 1;\n"
        STORE_PRED("%p5", 16)
        "\tmbarrier.pending_count.b64 %r2, %rd4;\n"                 /* the token: 1 was pending */
        "\tst.global.u32 [%rd2+20], %r2;\n",
        out, msg, sizeof msg);
    cr_assert_eq(st, HARNESS_OK, "%s", msg);
    static const int32_t want[6] = { 0, 0, 1, 0, 1, 1 };
    for (int k = 0; k < 6; k++) cr_expect_eq(out[k], want[k], "out[%d] = %d, expected %d", k, out[k], want[k]);
}

Test(mbarrier, a_transaction_count_out_of_range_faults)
{
    int32_t out[16];
    char msg[1024];
    harness_status st = run_body("\tmbarrier.init.shared.b64 [bar], 1;\n"
                                 "\tmbarrier.expect_tx.shared.b64 [bar], 1048575;\n"
                                 "\tmbarrier.expect_tx.shared.b64 [bar], 1;\n",
                                 out, msg, sizeof msg);
    cr_expect_eq(st, HARNESS_FAULT, "%s", msg);
    cr_expect(strstr(msg, "transaction count leaves its range"), "%s", msg);
}

Test(mbarrier, more_arrivals_than_pending_fault)
{
    int32_t out[16];
    char msg[1024];
    harness_status st = run_body("\tmbarrier.init.shared.b64 [bar], 1;\n"
                                 "\tmbarrier.arrive.shared.b64 %rd3, [bar], 2;\n",
                                 out, msg, sizeof msg);
    cr_expect_eq(st, HARNESS_FAULT, "%s", msg);
    cr_expect(strstr(msg, "more arrivals than the phase waits for"), "%s", msg);
}

/* The symbolic stage runs the cuda::barrier: a wait holds its thread until
 * the phase completes (the library's spin loop asks once more and leaves),
 * one path per pair of neighbour trip counts, every atom replaying its path
 * on the sim. */
Test(mbarrier, the_symbolic_stage_runs_the_barrier_and_its_atoms_replay, .timeout = 120)
{
    ts_need_ptx("build/ptx/tests/ptx/mbarrier.ptx");
    json_t *doc = ts_explore_json(SPEC, "20");
    cr_expect_geq(json_integer_value(json_object_get(doc, "paths")), 64, "8 trip counts for each of 2 threads");
    cr_expect_eq(json_integer_value(json_object_get(doc, "errors")), 0);
    cr_expect_eq(json_integer_value(json_object_get(doc, "cut")), 0);
    cr_expect_gt(json_integer_value(json_object_get(doc, "atoms_valid")), 0);
    cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_invalid")), 0, "every atom replays on the sim");
    json_decref(doc);
}

/* `explore` of a 2-thread kernel of PTX `body` (after the head; it ends
 * the function) at X = 2: its JSON (the caller decrefs it) and, in
 * said (size n), what it wrote on stderr. */
static json_t *explore_body(const char *body, bool validate, char *said, size_t n)
{
    char dir[] = "/tmp/wh_mbexXXXXXX", ptx[4096], spec[128], out[128], json[128], errp[128];
    tsim_mkdtemp(dir);
    snprintf(ptx, sizeof ptx, "%s%s", PTX_HEAD, body);
    tsim_write(dir, "k.ptx", ptx);
    tsim_write(dir, "k.json",
               "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"k\", \"grid\": [1], "
               "\"block\": [2], \"symbolic\": { \"threads\": [2] }, \"params\": [ { \"name\": \"out\", "
               "\"kind\": \"buffer\", \"type\": \"i32\", \"count\": 16, \"role\": \"output\" } ] }\n");
    snprintf(spec, sizeof spec, "%s/k.json", dir);
    snprintf(out, sizeof out, "%s/run", dir);
    snprintf(json, sizeof json, "%s/stdout", dir);
    snprintf(errp, sizeof errp, "%s/stderr", dir);
    const char *args[] = { spec, "--time", "10", "--results", dir, "-o", out, "--json", "--no-validate" };
    ts_run_cmd(cmd_explore, "explore", args, validate ? 8 : 9, json, errp);
    json_t *doc = ts_load_json(json);
    snprintf(said, n, "%s", ts_read_text(errp));
    ts_rmtree(dir);
    return doc;
}

/* A phase that expects more arrivals than there are threads never
 * completes: the symbolic stage ends the path as an error and names the
 * wait, where the GPU would spin forever. */
Test(mbarrier, a_phase_no_thread_can_complete_is_a_deadlock, .timeout = 120)
{
    char said[4096];
    json_t *doc = explore_body("\tmov.u32 %r1, %tid.x;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra SKIP;\n"
                               "\tmbarrier.init.shared.b64 [bar], 3;\n"
                               "SKIP:\n\tbar.sync 0;\n\tmbarrier.arrive.shared.b64 %rd3, [bar];\n"
                               "WAIT:\n\tmbarrier.test_wait.shared.b64 %p2, [bar], %rd3;\n\t@!%p2 bra WAIT;\n"
                               "\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n",
                               false, said, sizeof said);
    cr_expect_eq(json_integer_value(json_object_get(doc, "errors")), 1, "the one path ends in the deadlock");
    json_decref(doc);
    cr_expect(strstr(said, "mbarrier deadlock: thread 0 waits at line"), "%s", said);
}

/* Thread 0 arrives expecting 64 bytes, thread 1 completes `bytes` of
 * them: with 64 the symbolic stage runs both through the wait (no error,
 * the atoms replay on the sim); with 32 the phase never completes and the
 * path ends in the deadlock. */
Test(mbarrier, the_symbolic_stage_counts_transaction_bytes, .timeout = 120)
{
    for (int bytes = 64; bytes >= 32; bytes -= 32) {
        char body[1024], said[4096];
        snprintf(body, sizeof body,
                 "\tmov.u32 %%r1, %%tid.x;\n\tsetp.ne.u32 %%p1, %%r1, 0;\n\t@%%p1 bra SKIP;\n"
                 "\tmbarrier.init.shared.b64 [bar], 1;\n"
                 "SKIP:\n\tbar.sync 0;\n\t@%%p1 bra DONE;\n"
                 "\tmbarrier.arrive.expect_tx.shared.b64 %%rd3, [bar], 64;\n\tbra.uni WAIT;\n"
                 "DONE:\n\tmbarrier.complete_tx.shared.b64 [bar], %d;\n"
                 "WAIT:\n\tmbarrier.test_wait.parity.shared.b64 %%p2, [bar], 0;\n\t@!%%p2 bra WAIT;\n"
                 "\tst.global.u32 [%%rd2], %%r1;\n\tret;\n}\n",
                 bytes);
        json_t *doc = explore_body(body, bytes == 64, said, sizeof said);
        if (bytes == 64) {
            cr_expect_eq(json_integer_value(json_object_get(doc, "errors")), 0, "%s", said);
            cr_expect_gt(json_integer_value(json_object_get(doc, "atoms_valid")), 0);
            cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_invalid")), 0, "the atoms replay on the sim");
        } else {
            cr_expect_eq(json_integer_value(json_object_get(doc, "errors")), 1, "32 of 64 bytes: a deadlock");
            cr_expect(strstr(said, "mbarrier deadlock"), "%s", said);
        }
        json_decref(doc);
    }
}

/* gdivan, its symbolic stage included, finds inputs above the low end. */
Test(mbarrier, a_hunt_finds_slower_inputs, .timeout = 240)
{
    ts_need_ptx("build/ptx/tests/ptx/mbarrier.ptx");
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *low = wh_image_new(s, &l, &err);
    cr_assert(low, "%s", err.msg);
    wh_image *best = ts_hunt_best(s, "gdivan", "40");
    cr_expect_gt(ts_sim_time(s, best), ts_sim_time(s, low), "the best beats every element 0");
    wh_image_free(best);
    wh_image_free(low);
    wh_spec_free(s);
}

#define BULK_SPEC "tests/specs/bulk_copy.json"

/* Thread t of block b reads v, the first of its neighbour's four words
 * (brought in by one bulk copy), and writes {sum of k + v for k < v % 8,
 * v, t, b}, sent out by another bulk copy. */
Test(mbarrier, bulk_copies_carry_a_blocks_data_both_ways)
{
    simcase c = { 0 };
    while (sc_seeds(&c, BULK_SPEC, 3, false)) {
        sc_run(&c);
        cr_assert_eq(c.res.status, HARNESS_OK, "%s", c.res.message);
        const int32_t *in = sc_buf(&c, "in"), *out = sc_buf(&c, "out");
        for (int i = 0; i < 256; i++) {
            int b = i / 64, t = i % 64, v = in[(b * 64 + (t + 1) % 64) * 4], acc = 0;
            for (int k = 0; k < v % 8; k++) acc += k + v;
            const int32_t want[4] = { acc, v, t, b };
            for (int e = 0; e < 4; e++)
                cr_expect_eq(out[i * 4 + e], want[e], "seed %llu out[%d]: %d, expected %d", (unsigned long long)c.seed,
                             i * 4 + e, out[i * 4 + e], want[e]);
        }
    }
}

/* Two bulk copies of 16 bytes complete a phase expecting 32 (not the
 * first alone); the data lands in shared memory (either destination
 * space), and a bulk copy in an async-group takes it back to global. */
Test(mbarrier, a_bulk_copy_completes_its_bytes_on_the_mbarrier)
{
    int32_t out[16];
    char msg[1024];
    harness_status st = run_body(
        "\tst.global.u32 [%rd2+48], 7;\n\tst.global.u32 [%rd2+52], 9;\n"
        "\tmbarrier.init.shared.b64 [bar], 1;\n"
        "\tmbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 32;\n"
        "\tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf], [%rd2+48], 16, [bar];\n"
        "\tmbarrier.test_wait.shared.b64 %p1, [bar], %rd3;\n"
        STORE_PRED("%p1", 0)
        "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf+16], [%rd2+48], 16, [bar];\n"
        "\tmbarrier.test_wait.shared.b64 %p2, [bar], %rd3;\n"
        STORE_PRED("%p2", 4)
        "\tld.shared.u32 %r2, [buf+20];\n\tst.global.u32 [%rd2+8], %r2;\n"
        "\tcp.async.bulk.global.shared::cta.bulk_group [%rd2+32], [buf], 16;\n"
        "\tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;\n"
        "\tcp.async.bulk.prefetch.L2.global [%rd2], 16;\n",
        out, msg, sizeof msg);
    cr_assert_eq(st, HARNESS_OK, "%s", msg);
    cr_expect_eq(out[0], 0, "16 of 32 bytes: the phase is not complete");
    cr_expect_eq(out[1], 1, "32 of 32: complete");
    cr_expect_eq(out[2], 9, "the second copy's data in shared memory");
    cr_expect(out[8] == 7 && out[9] == 9 && out[10] == 0 && out[11] == 0, "back in global memory: %d %d %d %d",
              out[8], out[9], out[10], out[11]);
}

Test(mbarrier, a_misaligned_bulk_copy_faults)
{
    int32_t out[16];
    char msg[1024];
    harness_status st = run_body(
        "\tmbarrier.init.shared.b64 [bar], 1;\n"
        "\tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf], [%rd2], 8, [bar];\n",
        out, msg, sizeof msg);
    cr_expect_eq(st, HARNESS_FAULT, "%s", msg);
    cr_expect(strstr(msg, "a bulk copy moves a multiple of 16 bytes"), "%s", msg);
}

/* A tensor copy through a pointer to global memory (no tensor map
 * parameter of the spec: tests/test_tensor_map.c has those) is not run:
 * the sim says why, naming the instruction. */
Test(mbarrier, a_tensor_copy_without_a_tensor_map_is_unsupported_by_name)
{
    int32_t out[16];
    char msg[1024];
    harness_status st = run_body(
        "\tmov.u32 %r1, 0;\n"
        "\tcp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1, {%r1}], [bar];\n",
        out, msg, sizeof msg);
    cr_expect_eq(st, HARNESS_UNSUPPORTED, "%s", msg);
    cr_expect(strstr(msg, "cp.async.bulk.tensor"), "%s", msg);
    cr_expect(strstr(msg, "no tensor map parameter"), "%s", msg);
}

/* The symbolic stage runs both bulk copies and the wait: one path per pair
 * of trip counts, none an error, every atom replaying on the sim. */
Test(mbarrier, the_symbolic_stage_runs_bulk_copies, .timeout = 120)
{
    json_t *doc = ts_explore_json(BULK_SPEC, "20");
    cr_expect_geq(json_integer_value(json_object_get(doc, "paths")), 64, "8 trip counts for each of 2 threads");
    cr_expect_eq(json_integer_value(json_object_get(doc, "errors")), 0);
    cr_expect_gt(json_integer_value(json_object_get(doc, "atoms_valid")), 0);
    cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_invalid")), 0, "every atom replays on the sim");
    json_decref(doc);
}
