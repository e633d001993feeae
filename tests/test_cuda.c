/*
 * test_cuda.c — the cuda backend.
 *
 * Without a GPU: the driver library missing (its path is named), the
 * toolkit's stub library (every entry point resolves, cuInit says "stub"),
 * the probe's answer, the backend over an engine double (only changed
 * inputs travel, outputs come back, faults and hangs are findings and the
 * next run recovers, a worker lost while idle is replaced), and the
 * device description for run.json.
 *
 * With a GPU (skipped, with the reason, when there is none; set
 * WARPHUNT_REQUIRE_GPU=1 to make a missing GPU a failure): a kernel timed
 * and its outputs read back, a fault, a trap and a hang as findings with
 * recovery, a JIT error with its log, a bad device index, cold L2, and
 * agreement with the sim on every bundled kernel.
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "core/pcg32.h"
#include "harness/cuda/api.h"
#include "harness/cuda/cuda.h"
#include "harness/cuda/worker.h"
#include "harness/harness.h"
#include "ptx/ptx.h"

#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* A small kernel with failure modes, written to a temporary directory      */
/* ------------------------------------------------------------------------ */

/* out[i] = in[i] + 1, except: in[i] == 1000001 stores through a null
 * pointer, 1000002 spins forever, 1000003 traps. */
static const char MODES_PTX[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry wh_modes(\n"
    "    .param .u64 p_in,\n"
    "    .param .u64 p_out,\n"
    "    .param .u32 p_n\n"
    ")\n"
    "{\n"
    "    .reg .pred %p<6>;\n"
    "    .reg .b32 %r<12>;\n"
    "    .reg .b64 %rd<12>;\n"
    "\n"
    "    ld.param.u64 %rd1, [p_in];\n"
    "    ld.param.u64 %rd2, [p_out];\n"
    "    ld.param.u32 %r1, [p_n];\n"
    "    cvta.to.global.u64 %rd3, %rd1;\n"
    "    cvta.to.global.u64 %rd4, %rd2;\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p1, %r5, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    mul.wide.u32 %rd5, %r5, 4;\n"
    "    add.s64 %rd6, %rd3, %rd5;\n"
    "    ld.global.u32 %r6, [%rd6];\n"
    "    setp.eq.u32 %p2, %r6, 1000001;\n"
    "    @%p2 bra FAULT;\n"
    "    setp.eq.u32 %p3, %r6, 1000002;\n"
    "    @%p3 bra HANG;\n"
    "    setp.eq.u32 %p4, %r6, 1000003;\n"
    "    @%p4 bra TRAP;\n"
    "    add.s32 %r7, %r6, 1;\n"
    "    add.s64 %rd7, %rd4, %rd5;\n"
    "    st.global.u32 [%rd7], %r7;\n"
    "DONE:\n"
    "    ret;\n"
    "FAULT:\n"
    "    mov.u64 %rd8, 0;\n"
    "    st.global.u32 [%rd8], %r6;\n"
    "    ret;\n"
    "HANG:\n"
    "    ld.volatile.global.u32 %r8, [%rd6];\n"
    "    setp.ne.u32 %p5, %r8, 7;\n"
    "    @%p5 bra HANG;\n"
    "    ret;\n"
    "TRAP:\n"
    "    trap;\n"
    "    ret;\n"
    "}\n";

static const char MODES_SPEC[] =
    "{\n"
    "  \"name\": \"wh_modes\",\n"
    "  \"source\": \"wh_modes.cu\",\n"
    "  \"ptx\": \"wh_modes.ptx\",\n"
    "  \"entry\": \"wh_modes\",\n"
    "  \"grid\": [4, 1, 1],\n"
    "  \"block\": [64, 1, 1],\n"
    "  \"shared_bytes\": 0,\n"
    "  \"symbolic\": { \"threads\": [2] },\n"
    "  \"params\": [\n"
    "    { \"name\": \"in\", \"kind\": \"buffer\", \"type\": \"u32\", \"count\": \"threads\",\n"
    "      \"role\": \"input\", \"per_thread\": 1, \"range\": [0, 2000000] },\n"
    "    { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"u32\", \"count\": \"threads\",\n"
    "      \"role\": \"output\" },\n"
    "    { \"name\": \"n\", \"kind\": \"scalar\", \"type\": \"u32\", \"value\": \"threads\" }\n"
    "  ]\n"
    "}\n";

enum { M_FAULT = 1000001, M_HANG = 1000002, M_TRAP = 1000003 };

typedef struct {
    char dir[64], spec_path[128], ptx_path[128];
    wh_spec *spec;
    wh_image *img;
} modes_kernel;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static void modes_open(modes_kernel *k)
{
    snprintf(k->dir, sizeof k->dir, "/tmp/wh_cuda_test_XXXXXX");
    cr_assert(mkdtemp(k->dir));
    snprintf(k->spec_path, sizeof k->spec_path, "%s/wh_modes.json", k->dir);
    snprintf(k->ptx_path, sizeof k->ptx_path, "%s/wh_modes.ptx", k->dir);
    write_file(k->spec_path, MODES_SPEC);
    write_file(k->ptx_path, MODES_PTX);
    wh_error err;
    k->spec = wh_spec_load(k->spec_path, &err);
    cr_assert(k->spec, "%s: %s", err.path, err.msg);
    wh_launch l = wh_spec_launch_full(k->spec);
    k->img = wh_image_new(k->spec, &l, &err);
    cr_assert(k->img, "%s", err.msg);
    uint32_t *in = (uint32_t *)k->img->bufs[0].data;
    for (uint64_t i = 0; i < k->img->bufs[0].count; i++)
        in[i] = (uint32_t)(3 * i);
}

static void modes_close(modes_kernel *k)
{
    wh_image_free(k->img);
    wh_spec_free(k->spec);
    unlink(k->spec_path);
    unlink(k->ptx_path);
    rmdir(k->dir);
}

static uint32_t *in_of(modes_kernel *k) { return (uint32_t *)k->img->bufs[0].data; }
static uint32_t *out_of(modes_kernel *k) { return (uint32_t *)k->img->bufs[1].data; }

/* ------------------------------------------------------------------------ */
/* Without a GPU                                                            */
/* ------------------------------------------------------------------------ */

Test(cuda, ops_table_describes_a_timing_backend)
{
    cr_expect_eq(harness_cuda_ops.kind, HARNESS_CUDA);
    cr_expect_str_eq(harness_cuda_ops.unit, "us");
    cr_expect(!harness_cuda_ops.deterministic, "harness.c must run it once per repetition");
    cr_expect(harness_cuda_ops.open && harness_cuda_ops.run && harness_cuda_ops.close &&
              harness_cuda_ops.device && harness_cuda_ops.clock_mhz);
}

Test(cuda, config_defaults_and_options)
{
    harness_options o;
    harness_options_init(&o);
    o.device = 2;
    harness_cuda_config c;
    harness_cuda_config_from_options(&o, &c);
    cr_expect_eq(c.device, 2);
    cr_expect_float_eq(c.kernel_timeout_s, HARNESS_CUDA_DEFAULT_TIMEOUT_S, 1e-9);
    cr_expect_eq(c.warmup, HARNESS_CUDA_DEFAULT_WARMUP);
    cr_expect(!c.cold_l2);
    cr_expect(c.start_timeout_s > 0);
    cr_expect_null(c.libcuda);
}

#ifdef HARNESS_HAVE_CUDA_OPTIONS
Test(cuda, options_reach_the_backend_config)
{
    harness_options o;
    harness_options_init(&o);
    harness_cuda_config c;
    harness_cuda_config_from_options(&o, &c);
    cr_expect_eq(c.warmup, HARNESS_CUDA_DEFAULT_WARMUP, "harness_options_init means the default");
    cr_expect_float_eq(c.kernel_timeout_s, HARNESS_CUDA_DEFAULT_TIMEOUT_S, 1e-9);
    o.kernel_timeout_s = 2.5;
    o.warmup = 0;
    o.cold_l2 = true;
    harness_cuda_config_from_options(&o, &c);
    cr_expect_float_eq(c.kernel_timeout_s, 2.5, 1e-12);
    cr_expect_eq(c.warmup, 0);
    cr_expect(c.cold_l2);
    o.kernel_timeout_s = -1;
    harness_cuda_config_from_options(&o, &c);
    cr_expect(c.kernel_timeout_s < 0, "negative: no watchdog");
}
#endif

Test(cuda, library_path_honours_the_environment)
{
    char buf[256];
    unsetenv(WH_CUDA_LIB_ENV);
    cr_expect_str_eq(wh_cuda_lib_path(buf, sizeof buf), "libcuda.so.1");
    setenv(WH_CUDA_LIB_ENV, "/opt/nv/libcuda.so.555", 1);
    cr_expect_str_eq(wh_cuda_lib_path(buf, sizeof buf), "/opt/nv/libcuda.so.555");
    setenv(WH_CUDA_LIB_ENV, "", 1);
    cr_expect_str_eq(wh_cuda_lib_path(buf, sizeof buf), "libcuda.so.1", "empty means unset");
}

Test(cuda, a_missing_driver_library_is_named)
{
    setenv(WH_CUDA_LIB_ENV, "/nonexistent/libcuda.so", 1);
    wh_cuda_api api;
    char why[1024];
    cr_expect(!wh_cuda_api_load(&api, NULL, why, sizeof why));
    cr_expect(strstr(why, "/nonexistent/libcuda.so"), "%s", why);
    cr_expect(strstr(why, WH_CUDA_LIB_ENV), "the message says how to point elsewhere: %s", why);
    cr_expect_null(api.lib);

    cr_expect(!harness_cuda_available(why, sizeof why), "the probe says no");
    cr_expect(strstr(why, "/nonexistent/libcuda.so"), "the probe says why: %s", why);
}

Test(cuda, opening_without_a_driver_is_a_device_error)
{
    setenv(WH_CUDA_LIB_ENV, "/nonexistent/libcuda.so", 1);
    modes_kernel k;
    modes_open(&k);
    harness_cuda_config cfg;
    harness_cuda_config_init(&cfg);
    wh_error err;
    wh_error_clear(&err);
    void *impl = harness_cuda_open_config(k.spec, MODES_PTX, sizeof MODES_PTX - 1, "wh_modes", &cfg, &err);
    cr_expect_null(impl);
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect_eq(wh_error_exit_status(&err), 2, "--backend cuda exits with status 2");
    cr_expect(strstr(err.msg, "/nonexistent/libcuda.so"), "%s", err.msg);

    /* Through the ops table, as harness.c calls it: the PTX is read from
     * the module's file. */
    ptx_module *m = ptx_parse_file(k.ptx_path, &err);
    cr_assert(m, "%s", err.msg);
    int entry = ptx_function_index(m, "wh_modes");
    cr_assert(entry >= 0);
    harness_options o;
    harness_options_init(&o);
    wh_error_clear(&err);
    impl = harness_cuda_ops.open(k.spec, m, entry, &o, &err);
    cr_expect_null(impl);
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect(strstr(err.msg, "/nonexistent/libcuda.so"), "%s", err.msg);
    ptx_module_free(m);
    modes_close(&k);
}

/* The toolkit ships a stub libcuda for linking: dlopen works, every entry
 * point we use resolves, and cuInit says it is a stub. */
static bool find_stub(char *buf, size_t n)
{
    const char *home = getenv("CUDA_HOME");
    const char *cands[] = { home, "/usr/local/cuda" };
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        if (!cands[i])
            continue;
        snprintf(buf, n, "%s/lib64/stubs/libcuda.so", cands[i]);
        if (access(buf, R_OK) == 0)
            return true;
        snprintf(buf, n, "%s/targets/x86_64-linux/lib/stubs/libcuda.so", cands[i]);
        if (access(buf, R_OK) == 0)
            return true;
    }
    return false;
}

Test(cuda, the_stub_library_resolves_everything_but_is_not_a_driver)
{
    char stub[512];
    if (!find_stub(stub, sizeof stub))
        cr_skip_test("no CUDA toolkit stub libcuda.so here");
    wh_cuda_api api;
    char why[1024];
    cr_assert(wh_cuda_api_load(&api, stub, why, sizeof why), "%s", why);
    cr_expect_not_null(api.LaunchKernel);
    cr_expect_not_null(api.EventElapsedTime);
    cr_expect_not_null(api.MemcpyDtoD);
    /* Do not call into it here: this is the test process, which must stay
     * free of CUDA; the probe does it in a child. */
    wh_cuda_api_unload(&api);
    cr_expect_null(api.lib);

    setenv(WH_CUDA_LIB_ENV, stub, 1);
    cr_expect(!harness_cuda_available(why, sizeof why));
    cr_expect(strstr(why, "stub"), "the probe names the stub: %s", why);
}

Test(cuda, describes_errors_without_a_driver)
{
    char buf[256];
    wh_cuda_describe(NULL, 700, buf, sizeof buf);
    cr_expect_str_eq(buf, "CUDA error 700");
    wh_cuda_init_failure(NULL, WH_CU_ERROR_NO_DEVICE, buf, sizeof buf);
    cr_expect(strstr(buf, "no CUDA device"), "%s", buf);
}

Test(cuda, info_json_has_the_device_fields)
{
    harness_cuda_info i;
    memset(&i, 0, sizeof i);
    snprintf(i.name, sizeof i.name, "NVIDIA Test");
    i.cc_major = 9;
    i.sm_count = 132;
    i.clock_khz = 1980000;
    i.mem_clock_khz = 2619000;
    i.l2_bytes = 50 << 20;
    i.total_mem = 80ull << 30;
    i.driver_version = 12040;
    i.num_regs = 18;
    json_t *o = harness_cuda_info_json(&i);
    cr_assert(o);
    cr_expect_str_eq(json_string_value(json_object_get(o, "name")), "NVIDIA Test");
    cr_expect_str_eq(json_string_value(json_object_get(o, "compute_capability")), "9.0");
    cr_expect_str_eq(json_string_value(json_object_get(o, "driver_version")), "12.4");
    cr_expect_eq(json_integer_value(json_object_get(o, "sm_count")), 132);
    cr_expect_float_eq(json_real_value(json_object_get(o, "clock_mhz")), 1980.0, 1e-9);
    cr_expect_float_eq(json_real_value(json_object_get(o, "memory_clock_mhz")), 2619.0, 1e-9);
    cr_expect_eq(json_integer_value(json_object_get(o, "l2_bytes")), 50 << 20);
    cr_expect_eq(json_integer_value(json_object_get(o, "total_memory_bytes")), (json_int_t)(80ull << 30));
    cr_expect_eq(json_integer_value(json_object_get(o, "registers_per_thread")), 18);
    json_decref(o);
}

/* --- the backend over an engine double -------------------------------------- */

/* Emulates wh_modes on the host, keeping inputs across requests as the
 * device does; M_FAULT faults (restart), M_HANG hangs. */
typedef struct {
    unsigned char *in;
    uint64_t in_bytes;
    bool loaded;
} echo_state;

static void *echo_open(const wh_cuda_setup *s, harness_cuda_info *info, char *msg, size_t n)
{
    echo_state *e = calloc(1, sizeof *e);
    snprintf(info->name, sizeof info->name, "Echo");
    info->sm_count = 2;
    info->clock_khz = 1500000;
    info->driver_version = 12080;
    info->cc_major = 8;
    return e;
}

static bool echo_run(void *state, const wh_cuda_request *rq, unsigned char *const *outputs,
                     wh_cuda_result *res, char *msg, size_t n)
{
    echo_state *e = state;
    int uploads = 0;
    if (rq->args[0].data) {
        free(e->in);
        e->in = malloc(rq->args[0].bytes);
        memcpy(e->in, rq->args[0].data, rq->args[0].bytes);
        e->in_bytes = rq->args[0].bytes;
        e->loaded = true;
        uploads++;
    } else if (!e->loaded) {
        snprintf(msg, n, "input 'in' was never sent");
        return false;
    }
    if (!rq->args[2].data || rq->args[2].bytes != 4) {
        snprintf(msg, n, "the scalar travels with every request");
        return false;
    }
    const uint32_t *in = (const uint32_t *)e->in;
    for (uint64_t i = 0; i < e->in_bytes / 4; i++) {
        if (in[i] == M_FAULT) {
            res->status = HARNESS_FAULT;
            res->restart = true;
            snprintf(res->message, sizeof res->message, "echo: illegal address");
            return true;
        }
        if (in[i] == M_HANG)
            for (;;)
                pause();
    }
    if (outputs && outputs[1])
        for (uint64_t i = 0; i < e->in_bytes / 4; i++) {
            uint32_t o = in[i] + 1;
            memcpy(outputs[1] + 4 * i, &o, 4);
        }
    if (outputs && outputs[0])     /* want_all: the kernel leaves 'in' as it was, but doubled */
        for (uint64_t i = 0; i < e->in_bytes / 4; i++) {
            uint32_t o = 2 * in[i];
            memcpy(outputs[0] + 4 * i, &o, 4);
        }
    res->status = HARNESS_OK;
    res->time_us = 1.0 + uploads;
    snprintf(res->message, sizeof res->message, "uploads=%d warmup=%d all=%d", uploads, rq->warmup,
             rq->want_all);
    return true;
}

static void echo_close(void *state)
{
    echo_state *e = state;
    free(e->in);
    free(e);
}

static const wh_cuda_engine echo_engine = { "echo", echo_open, echo_run, echo_close };

static void *echo_backend_cfg(modes_kernel *k, double timeout_s, bool all_buffers)
{
    harness_cuda_config cfg;
    harness_cuda_config_init(&cfg);
    cfg.all_buffers = all_buffers;
    cfg.kernel_timeout_s = timeout_s;
    cfg.libcuda = "/fake/libcuda.so.1";
    wh_error err;
    void *impl = wh_cuda_backend_open(k->spec, MODES_PTX, sizeof MODES_PTX - 1, "wh_modes", &cfg,
                                      &echo_engine, &err);
    cr_assert(impl, "%s", err.msg);
    return impl;
}

static void *echo_backend(modes_kernel *k, double timeout_s)
{
    return echo_backend_cfg(k, timeout_s, false);
}

static harness_run run_ok(void *impl, modes_kernel *k, bool want_outputs)
{
    harness_run r;
    wh_error err;
    cr_assert(harness_cuda_ops.run(impl, k->img, want_outputs, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    return r;
}

Test(cuda, backend_describes_the_device)
{
    modes_kernel k;
    modes_open(&k);
    void *impl = echo_backend(&k, 5);
    const char *dev = harness_cuda_ops.device(impl);
    cr_expect(strstr(dev, "cuda: Echo"), "%s", dev);
    cr_expect(strstr(dev, "1500 MHz"), "%s", dev);
    cr_expect(strstr(dev, "driver 12.8"), "%s", dev);
    cr_expect_float_eq(harness_cuda_ops.clock_mhz(impl), 1500.0, 1e-9);
    cr_expect_str_eq(harness_cuda_impl_info(impl)->name, "Echo");
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

/* An engine that runs every timed launch a request asks for and times
 * launch k of request r as 1000 r + k, so the times tell which request
 * carried them. */
typedef struct {
    int requests;
} batch_state;

static void *batch_open(const wh_cuda_setup *s, harness_cuda_info *info, char *msg, size_t n)
{
    snprintf(info->name, sizeof info->name, "Batch");
    return calloc(1, sizeof(batch_state));
}

static bool batch_run(void *state, const wh_cuda_request *rq, unsigned char *const *outputs,
                      wh_cuda_result *res, char *msg, size_t n)
{
    batch_state *b = state;
    b->requests++;
    for (int k = 0; k < rq->reps; k++)
        res->times[res->ntimes++] = 1000.0 * b->requests + k;
    res->time_us = res->times[res->ntimes - 1];
    res->status = HARNESS_OK;
    snprintf(res->message, sizeof res->message, "requests=%d reps=%d outputs=%d", b->requests, rq->reps,
             rq->want_outputs);
    return true;
}

static void batch_close(void *state)
{
    free(state);
}

static const wh_cuda_engine batch_engine = { "batch", batch_open, batch_run, batch_close };

Test(cuda, repetitions_share_a_request_up_to_the_batch_limit)
{
    modes_kernel k;
    modes_open(&k);
    harness_cuda_config cfg;
    harness_cuda_config_init(&cfg);
    cfg.libcuda = "/fake/libcuda.so.1";
    wh_error err;
    void *impl = wh_cuda_backend_open(k.spec, MODES_PTX, sizeof MODES_PTX - 1, "wh_modes", &cfg,
                                      &batch_engine, &err);
    cr_assert(impl, "%s", err.msg);
    int reps = WH_CUDA_MAX_BATCH + 44, done = 0;
    double *times = calloc((size_t)reps, sizeof *times);
    harness_run out;
    cr_assert(harness_cuda_ops.run_reps(impl, k.img, reps, true, &out, times, &done, &err), "%s", err.msg);
    cr_expect_eq(out.status, HARNESS_OK);
    cr_expect_eq(done, reps);
    for (int i = 0; i < reps; i++) {
        double want = i < WH_CUDA_MAX_BATCH ? 1000.0 + i : 2000.0 + (i - WH_CUDA_MAX_BATCH);
        cr_expect_float_eq(times[i], want, 1e-9, "repetition %d: %g", i, times[i]);
    }
    /* two requests; the outputs come back with the one that finishes */
    cr_expect_str_eq(out.message, "requests=2 reps=44 outputs=1");
    free(times);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

Test(cuda, an_engine_that_times_one_launch_is_asked_for_the_rest)
{
    modes_kernel k;
    modes_open(&k);
    void *impl = echo_backend(&k, 5);
    double times[5];
    int done = 0;
    harness_run out;
    wh_error err;
    cr_assert(harness_cuda_ops.run_reps(impl, k.img, 5, false, &out, times, &done, &err), "%s", err.msg);
    cr_expect_eq(out.status, HARNESS_OK, "%s", out.message);
    cr_expect_eq(done, 5);
    cr_expect_float_eq(times[0], 2.0, 1e-9, "the first request uploads the input");
    for (int i = 1; i < 5; i++)
        cr_expect_float_eq(times[i], 1.0, 1e-9, "repetition %d: %g", i, times[i]);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

Test(cuda, backend_sends_inputs_only_when_they_change)
{
    modes_kernel k;
    modes_open(&k);
    void *impl = echo_backend(&k, 5);
    harness_run r = run_ok(impl, &k, false);
    cr_expect(strstr(r.message, "uploads=1 warmup=2"), "first run: upload and warm up: %s", r.message);
    cr_expect_float_eq(r.time, 2.0, 1e-12);
    cr_expect_float_eq(r.us, 2.0, 1e-12);
    r = run_ok(impl, &k, false);
    cr_expect(strstr(r.message, "uploads=0 warmup=0"), "same image: nothing travels: %s", r.message);
    in_of(&k)[17] += 1;
    r = run_ok(impl, &k, false);
    cr_expect(strstr(r.message, "uploads=1 warmup=2"), "one element changed: %s", r.message);
    r = run_ok(impl, &k, false);
    cr_expect(strstr(r.message, "uploads=0 warmup=0"), "%s", r.message);
    k.img->launch.grid[0] = 2;   /* same data, another shape: warm up again */
    r = run_ok(impl, &k, false);
    cr_expect(strstr(r.message, "uploads=0 warmup=2"), "%s", r.message);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

Test(cuda, backend_reads_outputs_back_only_when_asked)
{
    modes_kernel k;
    modes_open(&k);
    void *impl = echo_backend(&k, 5);
    run_ok(impl, &k, false);
    cr_expect_eq(out_of(&k)[5], 0, "want_outputs = false leaves the image alone");
    run_ok(impl, &k, true);
    for (uint64_t i = 0; i < k.img->bufs[1].count; i++)
        cr_expect_eq(out_of(&k)[i], in_of(&k)[i] + 1, "out[%llu]", (unsigned long long)i);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

Test(cuda, backend_copies_every_buffer_back_with_want_all_buffers)
{
    modes_kernel k;
    modes_open(&k);
    harness_options o;
    harness_options_init(&o);
    o.want_all_buffers = true;
    harness_cuda_config cfg;
    harness_cuda_config_from_options(&o, &cfg);
    cr_expect(cfg.all_buffers);
    void *impl = echo_backend_cfg(&k, 5, true);
    harness_run r = run_ok(impl, &k, false);
    cr_expect(strstr(r.message, "all=0"), "nothing comes back unless asked: %s", r.message);
    cr_expect_eq(in_of(&k)[4], 12);
    r = run_ok(impl, &k, true);
    cr_expect(strstr(r.message, "all=1"), "%s", r.message);
    cr_expect_eq(out_of(&k)[4], 13);
    cr_expect_eq(in_of(&k)[4], 24, "the input buffer came back as the kernel left it");
    r = run_ok(impl, &k, false);
    cr_expect(strstr(r.message, "uploads=1"), "the image changed, so it travels again: %s", r.message);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

Test(cuda, backend_fault_and_hang_are_findings_and_the_search_goes_on)
{
    modes_kernel k;
    modes_open(&k);
    void *impl = echo_backend(&k, 0.3);
    run_ok(impl, &k, false);
    pid_t first = wh_cuda_backend_worker_pid(impl);

    in_of(&k)[9] = M_FAULT;
    harness_run r;
    wh_error err;
    cr_assert(harness_cuda_ops.run(impl, k.img, true, &r, &err), "%s", err.msg);
    cr_expect_eq(r.status, HARNESS_FAULT);
    cr_expect(strstr(r.message, "illegal address"), "%s", r.message);
    cr_expect_float_eq(r.time, 0, 0);

    in_of(&k)[9] = 27;
    r = run_ok(impl, &k, true);
    cr_expect(strstr(r.message, "uploads=1"), "a fresh worker gets every input again: %s", r.message);
    cr_expect_eq(out_of(&k)[9], 28);
    cr_expect_neq(wh_cuda_backend_worker_pid(impl), first);

    in_of(&k)[0] = M_HANG;
    cr_assert(harness_cuda_ops.run(impl, k.img, false, &r, &err), "%s", err.msg);
    cr_expect_eq(r.status, HARNESS_TIMEOUT);
    cr_expect(strstr(r.message, "watchdog"), "%s", r.message);

    in_of(&k)[0] = 0;
    run_ok(impl, &k, true);
    cr_expect_eq(out_of(&k)[0], 1);
    cr_expect_eq(wh_cuda_backend_restarts(impl), 2);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

Test(cuda, backend_replaces_a_worker_lost_while_idle)
{
    modes_kernel k;
    modes_open(&k);
    void *impl = echo_backend(&k, 5);
    run_ok(impl, &k, false);
    kill(wh_cuda_backend_worker_pid(impl), SIGKILL);
    usleep(50000);
    harness_run r = run_ok(impl, &k, true);
    cr_expect(strstr(r.message, "uploads=1"), "the replacement got the inputs: %s", r.message);
    cr_expect_eq(out_of(&k)[3], in_of(&k)[3] + 1);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

/* ------------------------------------------------------------------------ */
/* With a GPU                                                               */
/* ------------------------------------------------------------------------ */

#define NEED_GPU()                                                                    \
    do {                                                                              \
        char why_[1024];                                                              \
        if (!harness_cuda_available(why_, sizeof why_)) {                             \
            if (getenv("WARPHUNT_REQUIRE_GPU"))                                       \
                cr_assert_fail("WARPHUNT_REQUIRE_GPU is set but there is no CUDA device: %s", why_); \
            cr_skip_test("no CUDA device: %s", why_);                                 \
        }                                                                             \
    } while (0)

static void *gpu_backend(modes_kernel *k, double timeout_s, bool cold_l2)
{
    harness_cuda_config cfg;
    harness_cuda_config_init(&cfg);
    cfg.kernel_timeout_s = timeout_s;
    cfg.cold_l2 = cold_l2;
    wh_error err;
    void *impl = harness_cuda_open_config(k->spec, MODES_PTX, sizeof MODES_PTX - 1, "wh_modes", &cfg, &err);
    cr_assert(impl, "%s", err.msg);
    return impl;
}

Test(cuda, gpu_times_a_kernel_and_reads_its_outputs)
{
    NEED_GPU();
    modes_kernel k;
    modes_open(&k);
    void *impl = gpu_backend(&k, 10, false);
    const harness_cuda_info *info = harness_cuda_impl_info(impl);
    cr_log_info("device: %s", harness_cuda_ops.device(impl));
    cr_expect(info->sm_count > 0);
    cr_expect(info->name[0]);
    for (int rep = 0; rep < 5; rep++) {
        harness_run r = run_ok(impl, &k, rep == 4);
        cr_expect(r.time > 0 && r.time < 1e6, "%g us", r.time);
    }
    for (uint64_t i = 0; i < k.img->bufs[1].count; i++)
        cr_expect_eq(out_of(&k)[i], in_of(&k)[i] + 1, "out[%llu]", (unsigned long long)i);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

Test(cuda, gpu_cold_l2_runs)
{
    NEED_GPU();
    modes_kernel k;
    modes_open(&k);
    void *impl = gpu_backend(&k, 10, true);
    harness_run r = run_ok(impl, &k, true);
    cr_expect(r.time > 0);
    cr_expect_eq(out_of(&k)[10], in_of(&k)[10] + 1);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

static void expect_finding_then_recovery(modes_kernel *k, void *impl, uint32_t mode, harness_status want,
                                         const char *needle)
{
    in_of(k)[37] = mode;
    harness_run r;
    wh_error err;
    cr_assert(harness_cuda_ops.run(impl, k->img, false, &r, &err), "%s", err.msg);
    cr_expect_eq(r.status, want, "mode %u: %s %s", mode, harness_status_name(r.status), r.message);
    cr_expect(strstr(r.message, needle), "mode %u: %s", mode, r.message);
    in_of(k)[37] = 5;
    r = run_ok(impl, k, true);
    cr_expect_eq(out_of(k)[37], 6, "the next run works again");
}

Test(cuda, gpu_fault_trap_and_hang_are_findings)
{
    NEED_GPU();
    modes_kernel k;
    modes_open(&k);
    void *impl = gpu_backend(&k, 2, false);
    run_ok(impl, &k, false);
    expect_finding_then_recovery(&k, impl, M_FAULT, HARNESS_FAULT, "CUDA_ERROR");
    expect_finding_then_recovery(&k, impl, M_TRAP, HARNESS_FAULT, "CUDA_ERROR");
    expect_finding_then_recovery(&k, impl, M_HANG, HARNESS_TIMEOUT, "watchdog");
    cr_expect_eq(wh_cuda_backend_restarts(impl), 3);
    harness_cuda_ops.close(impl);
    modes_close(&k);
}

Test(cuda, gpu_jit_error_shows_the_log)
{
    NEED_GPU();
    modes_kernel k;
    modes_open(&k);
    static const char bad[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                              ".visible .entry wh_modes(.param .u64 a, .param .u64 b, .param .u32 n)\n"
                              "{\n    frobnicate.u32 %r1;\n    ret;\n}\n";
    harness_cuda_config cfg;
    harness_cuda_config_init(&cfg);
    wh_error err;
    wh_error_clear(&err);
    void *impl = harness_cuda_open_config(k.spec, bad, sizeof bad - 1, "wh_modes", &cfg, &err);
    cr_expect_null(impl);
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect(strstr(err.msg, "JIT"), "%s", err.msg);
    cr_expect(strstr(err.msg, "log"), "the JIT's log is shown: %s", err.msg);
    modes_close(&k);
}

Test(cuda, gpu_bad_device_index_is_named)
{
    NEED_GPU();
    modes_kernel k;
    modes_open(&k);
    harness_cuda_config cfg;
    harness_cuda_config_init(&cfg);
    cfg.device = 999;
    wh_error err;
    void *impl = harness_cuda_open_config(k.spec, MODES_PTX, sizeof MODES_PTX - 1, "wh_modes", &cfg, &err);
    cr_expect_null(impl);
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect(strstr(err.msg, "device 999 does not exist"), "%s", err.msg);
    modes_close(&k);
}

/* The sim is the reference: every bundled kernel whose PTX is built gives
 * the same outputs on the GPU for the same random input. */
/* One random input of the spec at `path` on the sim and on the GPU:
 * statuses and outputs agree.  False when the spec has no PTX or the sim
 * itself does not run the input (nothing compared). */
static bool gpu_agrees_with_the_sim(const char *path)
{
    wh_error err;
    wh_spec *spec = wh_spec_load(path, &err);
    cr_assert(spec, "%s: %s", path, err.msg);
    char ptx[1024];
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err)) {
        cr_log_warn("%s: no PTX (make ptx): skipped", path);
        wh_spec_free(spec);
        return false;
    }
    harness_options o;
    harness_options_init(&o);
    o.want_outputs = true;
    o.quiet = true;
    harness *sim = harness_open(spec, HARNESS_SIM, &o, &err);
    cr_assert(sim, "%s: %s", path, err.msg);
    wh_launch l = wh_spec_launch_full(spec);
    wh_image *a = wh_image_new(spec, &l, &err);
    cr_assert(a, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 12345, 1);
    cr_assert(wh_image_fill_random(a, &rng, &err), "%s", err.msg);
    wh_image *b = wh_image_clone(a, &err);
    cr_assert(b, "%s", err.msg);
    harness_result rs;
    cr_assert(harness_measure(sim, a, 1, &rs, &err), "%s", err.msg);

    ptx_module *m = ptx_parse_file(ptx, &err);
    cr_assert(m, "%s", err.msg);
    int entry = ptx_function_index(m, spec->entry);
    void *gpu = harness_cuda_ops.open(spec, m, entry, &o, &err);
    cr_assert(gpu, "%s: %s", path, err.msg);
    harness_run rg;
    cr_assert(harness_cuda_ops.run(gpu, b, true, &rg, &err), "%s", err.msg);
    bool compared = rs.status == HARNESS_OK;
    if (!compared) {
        cr_log_warn("%s: sim says %s (%s); GPU says %s", path, harness_status_name(rs.status), rs.message,
                    harness_status_name(rg.status));
    } else {
        cr_expect_eq(rg.status, HARNESS_OK, "%s: %s", path, rg.message);
        char report[2048];
        bool same = harness_compare_outputs(a, b, HARNESS_CHECK_FLOAT_ULPS, report, sizeof report);
        cr_expect(same, "%s: %s", path, report);
        cr_log_info("%s: %s; sim %g %s, GPU %g us", path, report, rs.mean, rs.unit, rg.time);
    }
    harness_cuda_ops.close(gpu);
    ptx_module_free(m);
    harness_result_free(&rs);
    wh_image_free(a);
    wh_image_free(b);
    harness_close(sim);
    wh_spec_free(spec);
    return compared;
}

Test(cuda, gpu_agrees_with_the_sim_on_bundled_kernels)
{
    NEED_GPU();
    glob_t g;
    if (glob("kernels/*.json", 0, NULL, &g) != 0)
        cr_skip_test("no kernels/*.json (run from the repository root)");
    int compared = 0;
    for (size_t i = 0; i < g.gl_pathc; i++)
        compared += gpu_agrees_with_the_sim(g.gl_pathv[i]);
    globfree(&g);
    cr_expect(compared > 0, "no bundled kernel was compared");
}

/* Module variables ("globals"): a __constant__ input, a fixed __device__
 * array and two output globals, one with an initializer, through
 * cuModuleGetGlobal on a real driver. */
Test(cuda, gpu_fills_module_variables)
{
    NEED_GPU();
    cr_expect(gpu_agrees_with_the_sim("tests/specs/module_inputs.json"), "nothing compared");
}

/* Calls through a table of function pointers, a warp's lanes calling
 * different functions: the GPU's outputs are the sim's. */
Test(cuda, gpu_agrees_on_indirect_calls)
{
    NEED_GPU();
    cr_expect(gpu_agrees_with_the_sim("tests/specs/sim_indirect_call.json"), "nothing compared");
}

/* `warphunt calibrate` on the GPU: every microbenchmark runs and measures
 * a value in the range any recent GPU has (the profile itself is committed
 * by the session that runs it, with the fidelity table). */
Test(cuda, gpu_calibrates_to_plausible_values, .timeout = 300)
{
    NEED_GPU();
    wh_spec *specs[HARNESS_CALIB_KERNELS];
    wh_error err;
    wh_error_clear(&err);
    for (int k = 0; k < HARNESS_CALIB_KERNELS; k++) {
        char path[256];
        snprintf(path, sizeof path, "kernels/calib/%s.json", harness_calib_kernels[k]);
        specs[k] = wh_spec_load(path, &err);
        cr_assert(specs[k], "%s: %s", path, err.msg);
    }
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    harness_calibration c;
    cr_assert(harness_calibrate((const wh_spec *const *)specs, HARNESS_CUDA, &o, 5, &c, &err), "%s", err.msg);
    /* a chain or a chase always resolves; a throughput may not (more of
     * it in the shadow of a latency), and then stays built in */
    unsigned must = 1u << HARNESS_CQ_LATENCY | 1u << HARNESS_CQ_GLOBAL | 1u << HARNESS_CQ_SHARED;
    cr_expect_eq(c.unresolved & must, 0u, "unresolved: %s", c.unresolved_why);
    if (c.unresolved)
        cr_log_info("unresolved on this GPU: %s", c.unresolved_why);
#define RESOLVED(q) (!(c.unresolved & (1u << (q))))
    for (int k = 0; k < HARNESS_CALIB_CLASSES; k++) {
        cr_expect(!RESOLVED(HARNESS_CQ_LATENCY + k) || (c.latency[k] >= 1 && c.latency[k] <= 1000),
                  "%s latency %g", harness_calib_classes[k], c.latency[k]);
        cr_expect(!RESOLVED(HARNESS_CQ_ISSUE + k) || (c.issue[k] >= 0.25 && c.issue[k] <= 500), "%s issue %g",
                  harness_calib_classes[k], c.issue[k]);
    }
    cr_expect(c.global_latency >= 50 && c.global_latency <= 3000, "global latency %g", c.global_latency);
    cr_expect(c.shared_latency >= 5 && c.shared_latency <= 300, "shared latency %g", c.shared_latency);
    cr_expect(!RESOLVED(HARNESS_CQ_WAVEFRONT) || (c.wavefront_cycles >= 0.2 && c.wavefront_cycles <= 16),
              "wavefront %g", c.wavefront_cycles);
    cr_expect(!RESOLVED(HARNESS_CQ_ATOMIC) || (c.atomic_cycles_per_op > 0 && c.atomic_cycles_per_op <= 200),
              "atomic %g", c.atomic_cycles_per_op);
    cr_expect(!RESOLVED(HARNESS_CQ_BAR) || (c.bar_latency >= 1 && c.bar_latency <= 1000), "bar %g", c.bar_latency);
    cr_expect(!RESOLVED(HARNESS_CQ_LSU) || (c.lsu_cycles_per_sector > 0 && c.lsu_cycles_per_sector <= 32), "lsu %g",
              c.lsu_cycles_per_sector);
    cr_expect(!RESOLVED(HARNESS_CQ_CONST) || (c.const_cycles_per_address > 0 && c.const_cycles_per_address <= 100),
              "const %g", c.const_cycles_per_address);
    cr_expect(!RESOLVED(HARNESS_CQ_SATOMIC) ||
              (c.shared_atomic_cycles_per_op > 0 && c.shared_atomic_cycles_per_op <= 100), "shared atomic %g",
              c.shared_atomic_cycles_per_op);
#undef RESOLVED
    cr_expect_gt(c.empty_kernel_cycles, 0);
    cr_expect_gt(c.sm_count, 0);
    for (int k = 0; k < HARNESS_CALIB_KERNELS; k++)
        wh_spec_free(specs[k]);
}
