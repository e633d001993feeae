/*
 * test_sim_errors.c — what the sim backend reports instead of crashing:
 * unsupported instructions, out-of-bounds and misaligned accesses (by
 * hand-written PTX and by a kernel given an input outside its spec),
 * runaway loops stopped by the step limit, barriers under divergence,
 * deadlocks and traps; spec/PTX mismatches and bad machine profiles at
 * open time.  Also recursive device functions, the branch trace hook and
 * the backend names.  Hand-written PTX goes to a temporary directory with
 * a spec naming it.
 */
#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "harness/harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

static void make_tmp(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/wh_sim_errXXXXXX");
    cr_assert(mkdtemp(tmpdir), "mkdtemp");
}

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static void rm_tmp(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        cr_log_warn("cannot remove %s", tmpdir);
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

typedef struct {
    wh_spec *spec;
    wh_image *img;
    harness *h;
    harness_result res;
    wh_error err;
} run_t;

/* Open k.json on the sim; false (err filled) when harness_open fails. */
static bool open_k(run_t *r, uint64_t step_limit, const char *profile)
{
    memset(r, 0, sizeof *r);
    char path[512];
    snprintf(path, sizeof path, "%s/k.json", tmpdir);
    r->spec = wh_spec_load(path, &r->err);
    cr_assert(r->spec, "%s", r->err.msg);
    wh_launch L = wh_spec_launch_full(r->spec);
    r->img = wh_image_new(r->spec, &L, &r->err);
    cr_assert(r->img, "%s", r->err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 1, 1);
    cr_assert(wh_image_fill_random(r->img, &rng, &r->err));
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_outputs = true;
    o.step_limit = step_limit;
    o.profile_path = profile;
    r->h = harness_open(r->spec, HARNESS_SIM, &o, &r->err);
    return r->h != NULL;
}

static void measure(run_t *r)
{
    cr_assert(harness_measure(r->h, r->img, 3, &r->res, &r->err), "%s", r->err.msg);
}

static void close_k(run_t *r)
{
    harness_result_free(&r->res);
    harness_close(r->h);
    wh_image_free(r->img);
    wh_spec_free(r->spec);
}

static void expect_in(const char *msg, const char *what)
{
    cr_assert(strstr(msg, what), "message lacks \"%s\": %s", what, msg);
}

/* ---- the three error paths of a run ---------------------------------------------- */

Test(sim_errors, unsupported_instruction_names_opcode_and_line)
{
    make_tmp();
    write_kernel(".global .texref mytex;\n\n",
                 "\t.reg .f32 %f<4>;\n"
                 "\tmov.f32 %f1, 0f00000000;\n"
                 "\ttex.2d.v4.s32.f32 {%r2, %r3, %r4, %r5}, [mytex, {%f1, %f1}];\n"
                 "\tst.global.u32 [%rd4], %r2;\n");
    write_spec(1, 32, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_UNSUPPORTED);
    cr_assert_eq(r.res.reps, 0);
    /* the tex line: header 4 + texref 2 + entry 15 + body 2 = line 22 */
    expect_in(r.res.message, "unsupported PTX instruction 'tex.2d.v4.s32.f32' at k.ptx:22");
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, unsupported_but_not_executed_is_fine)
{
    make_tmp();
    write_kernel(".global .texref mytex;\n\n",
                 "\t.reg .f32 %f<4>;\n"
                 "\tsetp.gt.u32 %p1, %r1, 1000;\n"
                 "\t@%p1 bra $L_tex;\n"
                 "\tbra.uni $L_end;\n"
                 "$L_tex:\n"
                 "\ttex.2d.v4.s32.f32 {%r2, %r3, %r4, %r5}, [mytex, {%f1, %f1}];\n"
                 "$L_end:\n");
    write_spec(1, 32, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_OK, "%s", r.res.message);
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, out_of_bounds_names_thread_block_address_buffer_line)
{
    make_tmp();
    /* out[tid] = in[tid + 40]: thread 24 reads in[64], just past the end */
    write_kernel("",
                 "\tadd.s32 %r2, %r1, 40;\n"
                 "\tmul.wide.u32 %rd5, %r2, 4;\n"
                 "\tadd.s64 %rd6, %rd2, %rd5;\n"
                 "\tld.global.u32 %r3, [%rd6];\n"
                 "\tmul.wide.u32 %rd7, %r1, 4;\n"
                 "\tadd.s64 %rd8, %rd4, %rd7;\n"
                 "\tst.global.u32 [%rd8], %r3;\n");
    write_spec(1, 64, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_FAULT);
    expect_in(r.res.message, "out-of-bounds global load of 4 bytes");
    expect_in(r.res.message, "tid=(24,0,0) ctaid=(0,0,0)");
    expect_in(r.res.message, "k.ptx:21");
    expect_in(r.res.message, "buffer 'in'");
    expect_in(r.res.message, "offset 256");
    expect_in(r.res.message, "just past its end");
    expect_in(r.res.message, "address 0x");
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, misaligned_access)
{
    make_tmp();
    write_kernel("",
                 "\tadd.s64 %rd5, %rd2, 2;\n"
                 "\tld.global.u32 %r3, [%rd5];\n");
    write_spec(1, 32, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_FAULT);
    expect_in(r.res.message, "misaligned global load");
    expect_in(r.res.message, "needs 4-byte alignment");
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, shared_out_of_bounds)
{
    make_tmp();
    write_kernel(".shared .align 4 .b8 sbuf[128];\n\n",
                 "\tmov.u32 %r2, sbuf;\n"
                 "\tshl.b32 %r3, %r1, 3;\n"
                 "\tadd.s32 %r4, %r2, %r3;\n"
                 "\tst.shared.u32 [%r4], %r1;\n");
    write_spec(1, 32, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_FAULT);
    expect_in(r.res.message, "out-of-bounds shared store");
    expect_in(r.res.message, "tid=(16,0,0)");
    expect_in(r.res.message, "shared memory is 128 bytes");
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, kernel_input_outside_its_spec_faults)
{
    /* gt_gather indexes data[] with its input: an index past the domain */
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = wh_spec_load("kernels/gt_gather.json", &err);
    cr_assert(spec, "%s", err.msg);
    char ptx[4096];
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err)) {
        wh_spec_free(spec);
        cr_skip_test("gt_gather PTX not built: run make ptx");
    }
    wh_launch L = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &L, &err);
    int *idx = (int *)img->bufs[0].data;
    idx[300] = (int)(8 * L.grid[0] * L.block[0]) + 5;   /* 5 elements past the end of data */
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    harness *h = harness_open(spec, HARNESS_SIM, &o, &err);
    cr_assert(h, "%s", err.msg);
    harness_result res;
    cr_assert(harness_measure(h, img, 1, &res, &err));
    cr_assert_eq(res.status, HARNESS_FAULT);
    expect_in(res.message, "out-of-bounds global load");
    expect_in(res.message, "tid=(44,0,0) ctaid=(1,0,0)");
    expect_in(res.message, "buffer 'data'");
    expect_in(res.message, "20 bytes past its end");
    expect_in(res.message, "gt_gather.ptx:");
    harness_result_free(&res);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(spec);
}

Test(sim_errors, runaway_loop_hits_the_step_limit)
{
    make_tmp();
    write_kernel("",
                 "$L_spin:\n"
                 "\tadd.s32 %r1, %r1, 1;\n"
                 "\tbra.uni $L_spin;\n");
    write_spec(2, 64, NULL);
    run_t r;
    cr_assert(open_k(&r, 5000, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_TIMEOUT);
    expect_in(r.res.message, "step limit of 5000 warp instructions");
    expect_in(r.res.message, "k.ptx:");
    cr_assert_eq(r.res.warp_instructions, 5001);
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, barrier_under_divergence)
{
    make_tmp();
    write_kernel("",
                 "\tsetp.lt.u32 %p1, %r1, 16;\n"
                 "\t@%p1 bra $L_skip;\n"
                 "\tbar.sync 0;\n"
                 "$L_skip:\n");
    write_spec(1, 32, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_FAULT);
    expect_in(r.res.message, "barrier under divergence");
    expect_in(r.res.message, "0xffff0000");
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, deadlock_is_reported)
{
    make_tmp();
    write_kernel("",
                 "\tsetp.lt.u32 %p1, %r1, 32;\n"
                 "\t@%p1 bra $L_a;\n"
                 "\tbar.sync 2;\n"
                 "\tbra.uni $L_end;\n"
                 "$L_a:\n"
                 "\tbar.sync 1;\n"
                 "$L_end:\n");
    write_spec(1, 64, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_FAULT);
    expect_in(r.res.message, "deadlock in block (0,0,0)");
    expect_in(r.res.message, "barrier 1: 1 of 2 warps arrived");
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, barrier_waits_only_for_live_warps)
{
    /* warp 1 exits early; warp 0's barrier still completes */
    make_tmp();
    write_kernel("",
                 "\tsetp.ge.u32 %p1, %r1, 32;\n"
                 "\t@%p1 bra $L_end;\n"
                 "\tbar.sync 0;\n"
                 "\tmul.wide.u32 %rd7, %r1, 4;\n"
                 "\tadd.s64 %rd8, %rd4, %rd7;\n"
                 "\tst.global.u32 [%rd8], 5;\n"
                 "$L_end:\n");
    write_spec(1, 64, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_OK, "%s", r.res.message);
    const int *out = (const int *)r.img->bufs[1].data;
    cr_assert_eq(out[0], 5);
    cr_assert_eq(out[40], 0);
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, trap)
{
    make_tmp();
    write_kernel("",
                 "\tsetp.eq.u32 %p1, %r1, 9;\n"
                 "\t@%p1 trap;\n");
    write_spec(1, 32, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_FAULT);
    expect_in(r.res.message, "trap executed by thread tid=(9,0,0)");
    close_k(&r);
    rm_tmp();
}

/* ---- calls ------------------------------------------------------------------------ */

Test(sim_errors, recursive_function_with_divergent_depths)
{
    make_tmp();
    write_file("k.ptx",
               ".version 7.0\n.target sm_80\n.address_size 64\n\n"
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
               "}\n");
    write_spec(1, 64, NULL);
    run_t r;
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_OK, "%s", r.res.message);
    const int *out = (const int *)r.img->bufs[1].data;
    for (int t = 0; t < 64; t++) {
        int n = t % 12 + 1, f = 1;
        for (int k = 2; k <= n; k++)
            f *= k;
        cr_assert_eq(out[t], f, "thread %d: fact(%d)", t, n);
    }
    close_k(&r);
    rm_tmp();
}

/* ---- open-time errors ------------------------------------------------------------- */

Test(sim_errors, params_must_match_the_ptx)
{
    make_tmp();
    write_kernel("", "");
    write_spec(1, 32, ",\n    { \"name\": \"n\", \"kind\": \"scalar\", \"type\": \"i32\", \"value\": 3 }");
    run_t r;
    cr_assert_not(open_k(&r, 0, NULL));
    expect_in(r.err.msg, "the spec lists 3 parameters but kernel 'k'");
    expect_in(r.err.msg, "has 2");
    close_k(&r);

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
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, missing_entry_lists_the_kernels)
{
    make_tmp();
    write_kernel("", "");
    write_file("k.json",
               "{ \"name\": \"k\", \"source\": \"k.cu\", \"ptx\": \"k.ptx\", \"entry\": \"nope\",\n"
               "  \"grid\": [1], \"block\": [32], \"params\": [] }\n");
    run_t r;
    cr_assert_not(open_k(&r, 0, NULL));
    expect_in(r.err.msg, "kernel 'nope' not found");
    expect_in(r.err.msg, "its kernels: k");
    close_k(&r);
    rm_tmp();
}

Test(sim_errors, profile_errors_and_overrides)
{
    make_tmp();
    write_kernel("",
                 "\tmul.wide.u32 %rd7, %r1, 4;\n"
                 "\tadd.s64 %rd8, %rd4, %rd7;\n"
                 "\tst.global.u32 [%rd8], %r1;\n");
    write_spec(8, 64, NULL);
    char prof[512];
    snprintf(prof, sizeof prof, "%s/p.json", tmpdir);
    write_file("p.json", "{ \"sm\": { \"count\": 1, \"warps\": 3 } }");
    run_t r;
    cr_assert_not(open_k(&r, 0, prof));
    expect_in(r.err.msg, "unknown key \"warps\"");
    cr_assert_str_eq(r.err.path, "$.sm.warps");
    close_k(&r);

    write_file("p.json", "{ \"costs\": { \"alu\": { \"issue\": -1 } } }");
    cr_assert_not(open_k(&r, 0, prof));
    expect_in(r.err.msg, "issue");
    close_k(&r);

    /* the default, then one SM with one block at a time: slower */
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    uint64_t many = r.res.cycles;
    close_k(&r);
    write_file("p.json", "{ \"name\": \"tiny\", \"sm\": { \"count\": 1, \"max_blocks\": 1 } }");
    cr_assert(open_k(&r, 0, prof), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_OK);
    cr_assert_gt(r.res.cycles, many);
    expect_in(harness_device(r.h), "tiny");
    close_k(&r);

    /* the shipped profile equals the built-in one */
    cr_assert(open_k(&r, 0, NULL));
    measure(&r);
    uint64_t builtin = r.res.cycles;
    close_k(&r);
    cr_assert(open_k(&r, 0, "harness/profiles/default.json"), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.cycles, builtin);
    close_k(&r);
    rm_tmp();
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
                 "\tmul.wide.u32 %rd7, %r1, 4;\n"
                 "\tadd.s64 %rd8, %rd4, %rd7;\n"
                 "\tst.global.u32 [%rd8], %r1;\n"
                 "$L_end:\n");
    write_spec(2, 64, NULL);
    run_t r;
    memset(&r, 0, sizeof r);
    char path[512];
    snprintf(path, sizeof path, "%s/k.json", tmpdir);
    r.spec = wh_spec_load(path, &r.err);
    wh_launch L = wh_spec_launch_full(r.spec);
    r.img = wh_image_new(r.spec, &L, &r.err);
    trace_t tr = { 0, 0, 0 };
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.on_branch = on_branch;
    o.branch_ctx = &tr;
    r.h = harness_open(r.spec, HARNESS_SIM, &o, &r.err);
    cr_assert(r.h, "%s", r.err.msg);
    measure(&r);
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
    const int *out = (const int *)r.img->bufs[1].data;
    cr_assert_eq(out[20], 0);
    close_k(&r);
    rm_tmp();
}

/* printf (vprintf) prints nothing and returns 0; assert (__assertfail) is a
 * fault; any other external function is unsupported when called. */
static void write_extern_kernel(const char *which)
{
    char text[4096];
    snprintf(text, sizeof text,
             "%s"
             ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
             ".extern .func __assertfail(.param .b64 a0, .param .b64 a1, .param .b32 a2, .param .b64 a3, .param .b64 a4);\n"
             ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
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
    run_t r;
    write_extern_kernel("");
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_OK, "%s", r.res.message);
    cr_assert_eq(((const int *)r.img->bufs[1].data)[5], 7, "printf returns 0");
    close_k(&r);

    write_extern_kernel("\t{\n\t.param .b64 q0;\n\tst.param.b64 [q0], 0;\n\t.param .b64 q1;\n\tst.param.b64 [q1], 0;\n"
                        "\t.param .b32 q2;\n\tst.param.b32 [q2], 0;\n\t.param .b64 q3;\n\tst.param.b64 [q3], 0;\n"
                        "\t.param .b64 q4;\n\tst.param.b64 [q4], 1;\n"
                        "\tcall.uni __assertfail, (q0, q1, q2, q3, q4);\n\t}\n");
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_FAULT);
    expect_in(r.res.message, "assertion failed (__assertfail) in thread tid=(13,0,0)");
    close_k(&r);

    write_extern_kernel("\t{\n\t.param .b64 m0;\n\tst.param.b64 [m0], 64;\n\t.param .b64 mr;\n"
                        "\tcall.uni (mr), malloc, (m0);\n\t}\n");
    cr_assert(open_k(&r, 0, NULL), "%s", r.err.msg);
    measure(&r);
    cr_assert_eq(r.res.status, HARNESS_UNSUPPORTED);
    expect_in(r.res.message, "a call to the external function 'malloc'");
    close_k(&r);
    rm_tmp();
}
