/*
 * test_sim_errors.c — what the sim backend reports instead of crashing:
 * unsupported instructions, out-of-bounds and misaligned accesses (by
 * hand-written PTX and by a kernel given an input outside its spec),
 * runaway loops stopped by the step limit, barriers under divergence,
 * deadlocks and traps; spec/PTX mismatches, clusters of several blocks
 * and bad machine profiles at open time.  Also recursive device functions, the branch trace hook and
 * the backend names.  Hand-written PTX goes to a temporary directory with
 * a spec naming it.
 */
#include "tests/sim_support.h"
#include "cli/cli.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char tmpdir[256];

static void make_tmp(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/wh_sim_errXXXXXX");
    tsim_mkdtemp(tmpdir);
}

static void write_file(const char *name, const char *text)
{
    tsim_write(tmpdir, name, text);
}

/* The PTX header and a kernel `k(.u64 in, .u64 out)` around `body`. */
static const char *HEAD =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n";

static void write_kernel(const char *decls, const char *body)
{
    char text[8192];
    snprintf(text, sizeof text,
             "%s%s"
             ".visible .entry k(\n"
             "\t.param .u64 k_param_0,\n"
             "\t.param .u64 k_param_1\n"
             ")\n"
             "{\n"
             "\t.reg .pred %%p<8>;\n"
             "\t.reg .b32 %%r<32>;\n"
             "\t.reg .b64 %%rd<32>;\n"
             "\tld.param.u64 %%rd1, [k_param_0];\n"
             "\tcvta.to.global.u64 %%rd2, %%rd1;\n"
             "\tld.param.u64 %%rd3, [k_param_1];\n"
             "\tcvta.to.global.u64 %%rd4, %%rd3;\n"
             "\tmov.u32 %%r1, %%tid.x;\n"
             "%s"
             "\tret;\n"
             "}\n",
             HEAD, decls, body);
    write_file("k.ptx", text);
}

/* write_kernel body lines: out[tid] = V. */
#define STORE_OUT_TID(v)              \
    "\tmul.wide.u32 %rd7, %r1, 4;\n"  \
    "\tadd.s64 %rd8, %rd4, %rd7;\n"   \
    "\tst.global.u32 [%rd8], " v ";\n"

/* Spec k.json: in (i32 x 64, input), out (i32 x 64, output), grid x block. */
static void write_spec(unsigned grid, unsigned block, const char *extra_params)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"k\",\n"
             "  \"grid\": [%u], \"block\": [%u],\n"
             "  \"params\": [\n"
             "    { \"name\": \"in\", \"kind\": \"buffer\", \"type\": \"i32\", \"count\": 64, \"role\": \"input\",\n"
             "      \"range\": [0, 1000] },\n"
             "    { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"i32\", \"count\": 64, \"role\": \"output\" }%s\n"
             "  ] }\n",
             grid, block, extra_params ? extra_params : "");
    write_file("k.json", text);
}

/* Load k.json with random inputs and open it on the sim; false (r->err
 * filled) when harness_open fails. */
static bool open_k(simcase *r, uint64_t step_limit, const char *profile)
{
    char path[512];
    snprintf(path, sizeof path, "%s/k.json", tmpdir);
    sc_load(r, path, false);
    sc_fill(r, 1, 1);
    harness_options o = sc_options(true);
    o.step_limit = step_limit;
    o.profile_path = profile;
    return sc_attach(r, &o);
}

static void expect_in(const char *msg, const char *what)
{
    cr_assert(strstr(msg, what), "message lacks \"%s\": %s", what, msg);
}

/* Open k.json (the default profile), measure it 3 times, check the status. */
static void measure_k(simcase *r, uint64_t step_limit, harness_status want)
{
    cr_assert(open_k(r, step_limit, NULL), "%s", r->err.msg);
    sc_measure(r, 3);
    cr_assert_eq(r->res.status, want, "status %s: %s", harness_status_name(r->res.status), r->res.message);
}

/* A hand-written kernel (write_kernel's decls and body, or the whole k.ptx)
 * run on a grid x block launch, with the status and message parts it must
 * give. */
typedef struct {
    const char *decls, *body;    /* decls: NULL for none */
    const char *ptx;             /* instead of decls and body */
    unsigned grid, block;
    uint64_t step_limit;
    harness_status status;
    const char *expect[8];       /* in the message, up to a NULL */
} kernel_case;

/* Write the case to a new temporary directory, measure it and check it; r
 * stays open for further checks until end_case. */
static void run_case(simcase *r, const kernel_case *kc)
{
    make_tmp();
    if (kc->ptx)
        write_file("k.ptx", kc->ptx);
    else
        write_kernel(kc->decls ? kc->decls : "", kc->body);
    write_spec(kc->grid, kc->block, NULL);
    measure_k(r, kc->step_limit, kc->status);
    for (int i = 0; i < 8 && kc->expect[i]; i++)
        expect_in(r->res.message, kc->expect[i]);
}

static void end_case(simcase *r)
{
    sc_close(r);
    ts_rmtree(tmpdir);
}

/* A case with nothing more to check. */
static void check_case(const kernel_case *kc)
{
    simcase r;
    run_case(&r, kc);
    end_case(&r);
}

/* ---- the three error paths of a run ---------------------------------------------- */

Test(sim_errors, unsupported_instruction_names_opcode_and_line)
{
    /* the tex line: header 4 + texref 2 + entry 15 + body 2 = line 22 */
    static const kernel_case kc = {
        .decls = ".global .texref mytex;\n\n",
        .body = "\t.reg .f32 %f<4>;\n"
                "\tmov.f32 %f1, 0f00000000;\n"
                "\ttex.2d.v4.s32.f32 {%r2, %r3, %r4, %r5}, [mytex, {%f1, %f1}];\n"
                "\tst.global.u32 [%rd4], %r2;\n",
        .grid = 1, .block = 32, .status = HARNESS_UNSUPPORTED,
        .expect = { "unsupported PTX instruction 'tex.2d.v4.s32.f32' at k.ptx:22" },
    };
    simcase r;
    run_case(&r, &kc);
    cr_assert_eq(r.res.reps, 0);
    end_case(&r);
}

Test(sim_errors, unsupported_but_not_executed_is_fine)
{
    static const kernel_case kc = {
        .decls = ".global .texref mytex;\n\n",
        .body = "\t.reg .f32 %f<4>;\n"
                "\tsetp.gt.u32 %p1, %r1, 1000;\n"
                "\t@%p1 bra $L_tex;\n"
                "\tbra.uni $L_end;\n"
                "$L_tex:\n"
                "\ttex.2d.v4.s32.f32 {%r2, %r3, %r4, %r5}, [mytex, {%f1, %f1}];\n"
                "$L_end:\n",
        .grid = 1, .block = 32, .status = HARNESS_OK,
    };
    check_case(&kc);
}

Test(sim_errors, out_of_bounds_names_thread_block_address_buffer_line)
{
    /* out[tid] = in[tid + 40]: thread 24 reads in[64], just past the end */
    static const kernel_case kc = {
        .body = "\tadd.s32 %r2, %r1, 40;\n"
                "\tmul.wide.u32 %rd5, %r2, 4;\n"
                "\tadd.s64 %rd6, %rd2, %rd5;\n"
                "\tld.global.u32 %r3, [%rd6];\n"
                STORE_OUT_TID("%r3"),
        .grid = 1, .block = 64, .status = HARNESS_FAULT,
        .expect = { "out-of-bounds global load of 4 bytes", "tid=(24,0,0) ctaid=(0,0,0)", "k.ptx:21",
                    "buffer 'in'", "offset 256", "just past its end", "address 0x" },
    };
    check_case(&kc);
}

/* With `.file`/`.loc` in the PTX (nvcc -lineinfo), a fault names the CUDA
 * source line too. */
Test(sim_errors, a_fault_names_the_cuda_source_line)
{
    static const kernel_case kc = {
        .decls = "\t.file\t1 \"/src/k.cu\"\n",
        .body = "\tadd.s32 %r2, %r1, 40;\n"
                "\tmul.wide.u32 %rd5, %r2, 4;\n"
                "\tadd.s64 %rd6, %rd2, %rd5;\n"
                "\t.loc\t1 17 5\n"
                "\tld.global.u32 %r3, [%rd6];\n"
                STORE_OUT_TID("%r3"),
        .grid = 1, .block = 64, .status = HARNESS_FAULT,
        .expect = { "out-of-bounds global load", "CUDA source /src/k.cu:17" },
    };
    check_case(&kc);
}

Test(sim_errors, misaligned_access)
{
    static const kernel_case kc = {
        .body = "\tadd.s64 %rd5, %rd2, 2;\n"
                "\tld.global.u32 %r3, [%rd5];\n",
        .grid = 1, .block = 32, .status = HARNESS_FAULT,
        .expect = { "misaligned global load", "needs 4-byte alignment" },
    };
    check_case(&kc);
}

Test(sim_errors, shared_out_of_bounds)
{
    static const kernel_case kc = {
        .decls = ".shared .align 4 .b8 sbuf[128];\n\n",
        .body = "\tmov.u32 %r2, sbuf;\n"
                "\tshl.b32 %r3, %r1, 3;\n"
                "\tadd.s32 %r4, %r2, %r3;\n"
                "\tst.shared.u32 [%r4], %r1;\n",
        .grid = 1, .block = 32, .status = HARNESS_FAULT,
        .expect = { "out-of-bounds shared store", "tid=(16,0,0)", "shared memory is 128 bytes" },
    };
    check_case(&kc);
}

Test(sim_errors, kernel_input_outside_its_spec_faults)
{
    /* gt_gather indexes data[] with its input: an index past the domain */
    simcase c;
    sc_load(&c, SIM_KERNEL("gt_gather"), true);
    const wh_launch *L = &c.img->launch;
    int *idx = sc_buf(&c, "idx");
    idx[300] = (int)(8 * L->grid[0] * L->block[0]) + 5;   /* 5 elements past the end of data */
    harness_options o = sc_options(false);
    cr_assert(sc_attach(&c, &o), "%s", c.err.msg);
    sc_measure(&c, 1);
    cr_assert_eq(c.res.status, HARNESS_FAULT);
    expect_in(c.res.message, "out-of-bounds global load");
    expect_in(c.res.message, "tid=(44,0,0) ctaid=(1,0,0)");
    expect_in(c.res.message, "buffer 'data'");
    expect_in(c.res.message, "20 bytes past its end");
    expect_in(c.res.message, "gt_gather.ptx:");
    sc_close(&c);
}

Test(sim_errors, runaway_loop_hits_the_step_limit)
{
    static const kernel_case kc = {
        .body = "$L_spin:\n"
                "\tadd.s32 %r1, %r1, 1;\n"
                "\tbra.uni $L_spin;\n",
        .grid = 2, .block = 64, .step_limit = 5000, .status = HARNESS_TIMEOUT,
        .expect = { "step limit of 5000 warp instructions", "k.ptx:" },
    };
    simcase r;
    run_case(&r, &kc);
    cr_assert_eq(r.res.warp_instructions, 5001);
    end_case(&r);
}

Test(sim_errors, barrier_under_divergence)
{
    static const kernel_case kc = {
        .body = "\tsetp.lt.u32 %p1, %r1, 16;\n"
                "\t@%p1 bra $L_skip;\n"
                "\tbar.sync 0;\n"
                "$L_skip:\n",
        .grid = 1, .block = 32, .status = HARNESS_FAULT,
        .expect = { "barrier under divergence", "0xffff0000" },
    };
    check_case(&kc);
}

Test(sim_errors, deadlock_is_reported)
{
    static const kernel_case kc = {
        .body = "\tsetp.lt.u32 %p1, %r1, 32;\n"
                "\t@%p1 bra $L_a;\n"
                "\tbar.sync 2;\n"
                "\tbra.uni $L_end;\n"
                "$L_a:\n"
                "\tbar.sync 1;\n"
                "$L_end:\n",
        .grid = 1, .block = 64, .status = HARNESS_FAULT,
        .expect = { "deadlock in block (0,0,0)", "barrier 1: 1 of 2 warps arrived" },
    };
    check_case(&kc);
}

Test(sim_errors, barrier_waits_only_for_live_warps)
{
    /* warp 1 exits early; warp 0's barrier still completes */
    static const kernel_case kc = {
        .body = "\tsetp.ge.u32 %p1, %r1, 32;\n"
                "\t@%p1 bra $L_end;\n"
                "\tbar.sync 0;\n"
                STORE_OUT_TID("5")
                "$L_end:\n",
        .grid = 1, .block = 64, .status = HARNESS_OK,
    };
    simcase r;
    run_case(&r, &kc);
    const int *out = sc_buf(&r, "out");
    cr_assert_eq(out[0], 5);
    cr_assert_eq(out[40], 0);
    end_case(&r);
}

Test(sim_errors, trap)
{
    static const kernel_case kc = {
        .body = "\tsetp.eq.u32 %p1, %r1, 9;\n"
                "\t@%p1 trap;\n",
        .grid = 1, .block = 32, .status = HARNESS_FAULT,
        .expect = { "trap executed by thread tid=(9,0,0)" },
    };
    check_case(&kc);
}

/* ---- local memory ----------------------------------------------------------------- */

/* 64 KiB of local memory per thread, written so that the frame is used. */
static const char *BIG_LOCAL_DECLS = "";
static const char *BIG_LOCAL_BODY =
    "\t.local .align 4 .b8 depot[65536];\n"
    "\tmov.u64 %rd5, depot;\n"
    "\tst.local.u32 [%rd5+65532], %r1;\n"
    "\tld.local.u32 %r2, [%rd5+65532];\n"
    STORE_OUT_TID("%r2");

/* A launch whose resident warps would hold 13.5 GiB of local memory at
 * once (864 resident blocks of 8 warps x 32 x 64 KiB) is refused before
 * it runs, saying how much and how to raise the cap; the same kernel on
 * one warp runs. */
Test(sim_errors, local_memory_past_the_cap_is_refused_before_the_run)
{
    static const kernel_case big = {
        .decls = NULL, .body = NULL, .grid = 2048, .block = 256, .status = HARNESS_UNSUPPORTED,
        .expect = { "13824 MiB of local memory", "65536 bytes per thread", "6912 resident warps",
                    "cap of 2048 MiB", "--sim-local-mb" },
    };
    kernel_case kc = big;
    kc.decls = BIG_LOCAL_DECLS;
    kc.body = BIG_LOCAL_BODY;
    simcase r;
    run_case(&r, &kc);
    cr_expect_eq(r.res.reps, 0, "nothing ran");
    end_case(&r);

    kernel_case small = kc;
    small.grid = 1;
    small.block = 32;
    small.status = HARNESS_OK;
    small.expect[0] = NULL;
    run_case(&r, &small);
    cr_expect_eq(((const int *)sc_buf(&r, "out"))[31], 31, "the frame was written and read back");
    end_case(&r);
}

/* --sim-local-mb: a cap of 1 MiB refuses two warps of 64 KiB per thread
 * (4 MiB), a cap of 8 MiB lets them run. */
Test(sim_errors, the_local_memory_cap_is_an_option)
{
    make_tmp();
    write_kernel(BIG_LOCAL_DECLS, BIG_LOCAL_BODY);
    write_spec(1, 64, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/k.json", tmpdir);
    const uint64_t caps[2] = { 1, 8 };
    const harness_status want[2] = { HARNESS_UNSUPPORTED, HARNESS_OK };
    for (int i = 0; i < 2; i++) {
        simcase r;
        sc_load(&r, path, false);
        sc_fill(&r, 1, 1);
        harness_options o = sc_options(true);
        o.sim_local_mb = caps[i];
        cr_assert(sc_attach(&r, &o), "%s", r.err.msg);
        sc_measure(&r, 1);
        cr_expect_eq(r.res.status, want[i], "cap %llu MiB: %s", (unsigned long long)caps[i], r.res.message);
        if (i == 0) expect_in(r.res.message, "cap of 1 MiB");
        sc_close(&r);
    }
    ts_rmtree(tmpdir);
}

/* ---- calls ------------------------------------------------------------------------ */

/* Unbounded recursion through a function without locals: each call takes
 * SIM_CALL_BYTES of the 1 KiB stack, so the run stops with a fault after 64
 * calls instead of growing frames until the host runs out of memory. */
Test(sim_errors, unbounded_recursion_overflows_the_stack)
{
    static const kernel_case kc = {
        .ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\n"
               ".func forever()\n"
               "{\n"
               "\tcall.uni forever;\n"
               "\tret;\n"
               "}\n\n"
               ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n)\n"
               "{\n"
               "\tcall.uni forever;\n"
               "\tret;\n"
               "}\n",
        .grid = 1, .block = 32, .status = HARNESS_FAULT,
        .expect = { "local stack overflow calling 'forever'", "each call takes 16" },
    };
    check_case(&kc);
}

Test(sim_errors, recursive_function_with_divergent_depths)
{
    static const kernel_case kc = {
        .ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\n"
               ".func (.param .b32 fact_ret) fact(.param .b32 fact_n)\n"
               "{\n"
               "\t.reg .pred %p<2>;\n"
               "\t.reg .b32 %r<6>;\n"
               "\tld.param.u32 %r1, [fact_n];\n"
               "\tsetp.gt.u32 %p1, %r1, 1;\n"
               "\t@%p1 bra $L_rec;\n"
               "\tst.param.b32 [fact_ret], 1;\n"
               "\tret;\n"
               "$L_rec:\n"
               "\tadd.s32 %r2, %r1, -1;\n"
               "\t{\n"
               "\t.param .b32 p0;\n"
               "\tst.param.b32 [p0], %r2;\n"
               "\t.param .b32 r0;\n"
               "\tcall.uni (r0), fact, (p0);\n"
               "\tld.param.b32 %r3, [r0];\n"
               "\t}\n"
               "\tmul.lo.s32 %r4, %r3, %r1;\n"
               "\tst.param.b32 [fact_ret], %r4;\n"
               "\tret;\n"
               "}\n\n"
               ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n)\n"
               "{\n"
               "\t.reg .b32 %r<8>;\n"
               "\t.reg .b64 %rd<8>;\n"
               "\tld.param.u64 %rd1, [k_param_1];\n"
               "\tcvta.to.global.u64 %rd2, %rd1;\n"
               "\tmov.u32 %r1, %tid.x;\n"
               "\trem.u32 %r2, %r1, 12;\n"
               "\tadd.s32 %r3, %r2, 1;\n"
               "\t{\n"
               "\t.param .b32 q0;\n"
               "\tst.param.b32 [q0], %r3;\n"
               "\t.param .b32 s0;\n"
               "\tcall.uni (s0), fact, (q0);\n"
               "\tld.param.b32 %r4, [s0];\n"
               "\t}\n"
               "\tmul.wide.u32 %rd3, %r1, 4;\n"
               "\tadd.s64 %rd4, %rd2, %rd3;\n"
               "\tst.global.u32 [%rd4], %r4;\n"
               "\tret;\n"
               "}\n",
        .grid = 1, .block = 64, .status = HARNESS_OK,
    };
    simcase r;
    run_case(&r, &kc);
    const int *out = sc_buf(&r, "out");
    for (int t = 0; t < 64; t++) {
        int n = t % 12 + 1, f = 1;
        for (int k = 2; k <= n; k++)
            f *= k;
        cr_assert_eq(out[t], f, "thread %d: fact(%d)", t, n);
    }
    end_case(&r);
}

/* ---- open-time errors ------------------------------------------------------------- */

Test(sim_errors, params_must_match_the_ptx)
{
    make_tmp();
    write_kernel("", "");
    write_spec(1, 32, ",\n    { \"name\": \"n\", \"kind\": \"scalar\", \"type\": \"i32\", \"value\": 3 }");
    simcase r;
    cr_assert_not(open_k(&r, 0, NULL));
    expect_in(r.err.msg, "the spec lists 3 parameters but kernel 'k'");
    expect_in(r.err.msg, "has 2");
    sc_close(&r);

    /* a scalar where the PTX has a pointer */
    write_file("k.json",
               "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"k\",\n"
               "  \"grid\": [1], \"block\": [32],\n"
               "  \"params\": [\n"
               "    { \"name\": \"in\", \"kind\": \"buffer\", \"type\": \"i32\", \"count\": 64, \"role\": \"input\" },\n"
               "    { \"name\": \"n\", \"kind\": \"scalar\", \"type\": \"i32\", \"value\": 3 } ] }\n");
    cr_assert_not(open_k(&r, 0, NULL));
    expect_in(r.err.msg, "parameter 1 'n' (scalar i32, 4 bytes) does not match PTX parameter 'k_param_1'");
    expect_in(r.err.msg, "8 bytes");
    cr_assert_str_eq(r.err.path, "$.params[1]");
    sc_close(&r);
    ts_rmtree(tmpdir);
}

/* k(in, out) with `directive` after its parameters, storing `value`
 * (a register or special register) into out[tid]. */
static void write_kernel_with(const char *directive, const char *value)
{
    char text[4096];
    snprintf(text, sizeof text,
             "%s.visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n)\n%s\n{\n"
             "\t.reg .b32 %%r<8>;\n\t.reg .b64 %%rd<16>;\n"
             "\tld.param.u64 %%rd3, [k_param_1];\n\tcvta.to.global.u64 %%rd4, %%rd3;\n"
             "\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %s;\n\tmul.wide.u32 %%rd7, %%r1, 4;\n"
             "\tadd.s64 %%rd8, %%rd4, %%rd7;\n\tst.global.u32 [%%rd8], %%r2;\n\tret;\n}\n",
             HEAD, directive, value);
    write_file("k.ptx", text);
}

/* An entry compiled for clusters of several blocks (__cluster_dims__) is
 * refused at open, naming the directive, by the sim and the symbolic
 * stage: they run clusters of one block, whose special registers say so. */
Test(sim_errors, clusters_of_several_blocks_are_refused_at_open)
{
    make_tmp();
    write_kernel_with(".reqnctapercluster 2, 1, 1", "%cluster_nctarank");
    write_spec(2, 32, NULL);
    simcase r;
    cr_assert_not(open_k(&r, 0, NULL));
    cr_expect_eq(r.err.kind, WH_ERR_UNSUPPORTED);
    expect_in(r.err.msg, "thread block clusters of 2 blocks (.reqnctapercluster 2, 1, 1)");
    cr_expect_eq(r.err.line, 5, "the entry's line: %d", r.err.line);
    sc_close(&r);
    char path[512], errp[512];
    snprintf(path, sizeof path, "%s/k.json", tmpdir);
    snprintf(errp, sizeof errp, "%s/explore.err", tmpdir);
    const char *args[] = { path, "--results", tmpdir, "--quiet" };
    cr_expect_neq(ts_run_cmd(cmd_explore, "explore", args, 4, NULL, errp), 0);
    expect_in(ts_read_text(errp), "clusters of 2 blocks");
    /* a cluster of one block: ranks and counts of one */
    write_kernel_with(".reqnctapercluster 1, 1, 1", "%cluster_nctarank");
    measure_k(&r, 0, HARNESS_OK);
    const int32_t *out = sc_buf(&r, "out");
    for (int t = 0; t < 32; t++) cr_expect_eq(out[t], 1, "out[%d]", t);
    sc_close(&r);
    ts_rmtree(tmpdir);
}

Test(sim_errors, missing_entry_lists_the_kernels)
{
    make_tmp();
    write_kernel("", "");
    write_file("k.json",
               "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"nope\",\n"
               "  \"grid\": [1], \"block\": [32], \"params\": [] }\n");
    simcase r;
    cr_assert_not(open_k(&r, 0, NULL));
    expect_in(r.err.msg, "kernel 'nope' not found");
    expect_in(r.err.msg, "its kernels: k");
    sc_close(&r);
    ts_rmtree(tmpdir);
}

Test(sim_errors, profile_errors_and_overrides)
{
    make_tmp();
    write_kernel("", STORE_OUT_TID("%r1"));
    write_spec(8, 64, NULL);
    char prof[512];
    snprintf(prof, sizeof prof, "%s/p.json", tmpdir);
    write_file("p.json", "{ \"sm\": { \"count\": 1, \"warps\": 3 } }");
    simcase r;
    cr_assert_not(open_k(&r, 0, prof));
    expect_in(r.err.msg, "unknown key \"warps\"");
    cr_assert_str_eq(r.err.path, "$.sm.warps");
    sc_close(&r);

    write_file("p.json", "{ \"costs\": { \"alu\": { \"issue\": -1 } } }");
    cr_assert_not(open_k(&r, 0, prof));
    expect_in(r.err.msg, "issue");
    sc_close(&r);

    /* the default, then one SM with one block at a time: slower */
    measure_k(&r, 0, HARNESS_OK);
    uint64_t many = r.res.cycles;
    sc_close(&r);
    write_file("p.json", "{ \"name\": \"tiny\", \"sm\": { \"count\": 1, \"max_blocks\": 1 } }");
    cr_assert(open_k(&r, 0, prof), "%s", r.err.msg);
    sc_measure(&r, 3);
    cr_assert_eq(r.res.status, HARNESS_OK);
    cr_assert_gt(r.res.cycles, many);
    expect_in(harness_device(r.h), "tiny");
    sc_close(&r);

    /* the shipped profile equals the built-in one */
    measure_k(&r, 0, HARNESS_OK);
    uint64_t builtin = r.res.cycles;
    sc_close(&r);
    cr_assert(open_k(&r, 0, "harness/profiles/default.json"), "%s", r.err.msg);
    sc_measure(&r, 3);
    cr_assert_eq(r.res.cycles, builtin);
    sc_close(&r);
    ts_rmtree(tmpdir);
}

/* ---- API ---------------------------------------------------------------------------- */

Test(sim_errors, backend_names)
{
    harness_backend b;
    wh_error err;
    wh_error_clear(&err);
    cr_assert(harness_backend_from_name("sim", &b, &err));
    cr_assert_eq(b, HARNESS_SIM);
    cr_assert(harness_backend_from_name("auto", &b, &err));
    cr_assert_eq(b, HARNESS_AUTO);
    cr_assert(harness_backend_from_name("cuda", &b, &err));
    cr_assert_eq(b, HARNESS_CUDA);
    cr_assert_not(harness_backend_from_name("gpu", &b, &err));
    expect_in(err.msg, "expected auto, sim or cuda");
    cr_assert_str_eq(harness_backend_name(HARNESS_SIM), "sim");
    cr_assert_str_eq(harness_status_name(HARNESS_TIMEOUT), "timeout");
}

typedef struct {
    uint64_t calls, taken;
    uint64_t last_thread;
} trace_t;

static void on_branch(void *ctx, uint64_t thread, int func, int block, bool taken)
{
    trace_t *t = ctx;
    t->calls++;
    t->taken += taken;
    t->last_thread = thread;
    (void)func;
    (void)block;
}

Test(sim_errors, branch_trace_and_statistics)
{
    make_tmp();
    /* every thread: one conditional branch, taken by tid < 10 */
    write_kernel("",
                 "\tsetp.lt.u32 %p1, %r1, 10;\n"
                 "\t@%p1 bra $L_end;\n"
                 STORE_OUT_TID("%r1")
                 "$L_end:\n");
    write_spec(2, 64, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/k.json", tmpdir);
    simcase r;
    sc_load(&r, path, false);
    trace_t tr = { 0, 0, 0 };
    harness_options o = sc_options(false);
    o.on_branch = on_branch;
    o.branch_ctx = &tr;
    cr_assert(sc_attach(&r, &o), "%s", r.err.msg);
    sc_measure(&r, 3);
    cr_assert_eq(r.res.status, HARNESS_OK);
    cr_assert_eq(tr.calls, 128);
    cr_assert_eq(tr.taken, 20);
    cr_assert_eq(r.res.reps, 3);
    cr_assert_str_eq(r.res.unit, "cycles");
    cr_assert_eq(r.res.mean, (double)r.res.cycles);
    cr_assert_eq(r.res.min, r.res.max);
    cr_assert_eq(r.res.stddev, 0);
    cr_assert_gt(r.res.us, 0);
    /* outputs were not asked for: the image's output stays zero */
    const int *out = sc_buf(&r, "out");
    cr_assert_eq(out[20], 0);
    sc_close(&r);
    ts_rmtree(tmpdir);
}

/* printf (vprintf) prints nothing and returns 0; assert (__assertfail) is a
 * fault; malloc gives a block; any other external function (a CUDA graph
 * call here) is unsupported when called. */
static void write_extern_kernel(const char *which)
{
    char text[4096];
    snprintf(text, sizeof text,
             "%s"
             ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
             ".extern .func __assertfail(.param .b64 a0, .param .b64 a1, .param .b32 a2, .param .b64 a3, .param .b64 a4);\n"
             ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
             ".extern .func (.param .b64 func_retval0) cudaGetParameterBufferV2(.param .b64 g0);\n"
             "\n"
             ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n)\n"
             "{\n"
             "\t.reg .pred %%p<4>;\n"
             "\t.reg .b32 %%r<8>;\n"
             "\t.reg .b64 %%rd<8>;\n"
             "\tld.param.u64 %%rd1, [k_param_1];\n"
             "\tcvta.to.global.u64 %%rd2, %%rd1;\n"
             "\tmov.u32 %%r1, %%tid.x;\n"
             "\tmov.u32 %%r5, 99;\n"
             "\t{\n"
             "\t.param .b64 p0;\n"
             "\tst.param.b64 [p0], 0;\n"
             "\t.param .b64 p1;\n"
             "\tst.param.b64 [p1], 0;\n"
             "\t.param .b32 r0;\n"
             "\tcall.uni (r0), vprintf, (p0, p1);\n"
             "\tld.param.b32 %%r5, [r0];\n"
             "\t}\n"
             "\tsetp.eq.u32 %%p1, %%r1, 13;\n"
             "\t@!%%p1 bra $L_skip;\n"
             "%s"
             "$L_skip:\n"
             "\tmul.wide.u32 %%rd3, %%r1, 4;\n"
             "\tadd.s64 %%rd4, %%rd2, %%rd3;\n"
             "\tadd.s32 %%r6, %%r5, 7;\n"
             "\tst.global.u32 [%%rd4], %%r6;\n"
             "\tret;\n"
             "}\n",
             HEAD, which);
    write_file("k.ptx", text);
}

Test(sim_errors, external_functions)
{
    make_tmp();
    write_spec(1, 32, NULL);
    simcase r;
    write_extern_kernel("");
    measure_k(&r, 0, HARNESS_OK);
    cr_assert_eq(((const int *)sc_buf(&r, "out"))[5], 7, "printf returns 0");
    sc_close(&r);

    write_extern_kernel("\t{\n\t.param .b64 q0;\n\tst.param.b64 [q0], 0;\n\t.param .b64 q1;\n\tst.param.b64 [q1], 0;\n"
                        "\t.param .b32 q2;\n\tst.param.b32 [q2], 0;\n\t.param .b64 q3;\n\tst.param.b64 [q3], 0;\n"
                        "\t.param .b64 q4;\n\tst.param.b64 [q4], 1;\n"
                        "\tcall.uni __assertfail, (q0, q1, q2, q3, q4);\n\t}\n");
    measure_k(&r, 0, HARNESS_FAULT);
    expect_in(r.res.message, "assertion failed (__assertfail) in thread tid=(13,0,0)");
    sc_close(&r);

    write_extern_kernel("\t{\n\t.param .b64 m0;\n\tst.param.b64 [m0], 64;\n\t.param .b64 mr;\n"
                        "\tcall.uni (mr), malloc, (m0);\n\t}\n");
    measure_k(&r, 0, HARNESS_OK);   /* malloc: a block of the device heap (test_sim_heap.c) */
    sc_close(&r);

    write_extern_kernel("\t{\n\t.param .b64 g0;\n\tst.param.b64 [g0], 64;\n\t.param .b64 gr;\n"
                        "\tcall.uni (gr), cudaGetParameterBufferV2, (g0);\n\t}\n");
    measure_k(&r, 0, HARNESS_UNSUPPORTED);
    expect_in(r.res.message, "a call to the external function 'cudaGetParameterBufferV2'");
    sc_close(&r);
    ts_rmtree(tmpdir);
}

/* ---- running out of memory (core/alloc.h's policy) -------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define TSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TSIM_ASAN 1
#endif
#endif

/* Local memory the input cannot have: each thread asks for 64 MiB, a warp
 * for 2 GiB, under an address-space limit of 1 GiB more than the test
 * process maps already.  The run must stop with a finding that says so
 * (it used to end "ok" with a made-up time). */
Test(sim_errors, local_memory_that_cannot_be_allocated_is_a_finding)
{
#ifdef TSIM_ASAN
    cr_skip_test("an address-space limit and AddressSanitizer's shadow memory do not mix");
#else
    static const kernel_case kc = {
        .decls = ".local .align 4 .b8 big[67108864];\n\n",
        .body = "\tst.local.u32 [big], %r1;\n",
        .grid = 1, .block = 32, .status = HARNESS_UNSUPPORTED,
        .expect = { "out of memory", "local memory", "warp 0 of block (0,0,0)", "67108864 bytes per thread" },
    };
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    cr_assert(f && fscanf(f, "%lu", &pages) == 1);
    fclose(f);
    struct rlimit lim = { .rlim_cur = pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)1 << 30) };
    lim.rlim_max = RLIM_INFINITY;
    cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
    check_case(&kc);
#endif
}
