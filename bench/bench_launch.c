/*
 * bench_launch.c — what one measurement costs on the GPU.
 *
 *   bench_launch [--device N] [--n N] [--json] [--require-gpu]
 *   bench_launch --probe [--device N]     print the device name (exit 2 without one)
 *
 * Through the cuda backend (worker process, events), on an empty kernel:
 *   - a run on an unchanged image (restore inputs + launch + event wait +
 *     reply): the harness's fixed cost per repetition;
 *   - the time the harness reports for the empty kernel (mean, median,
 *     max): the floor under every figure it gives, and its noise, with the
 *     timing method it used (gated or not, harness/cuda/engine.c);
 *   - a run on an image that changed (upload too), without warm-ups;
 *   - a repetition when a measurement takes 10 (one request for all);
 * then directly on the driver, in this process (after the harness is
 * closed: this process must not fork workers once it has called cuInit):
 *   - asynchronous launches back to back (launch throughput);
 *   - launch + cuCtxSynchronize (a synchronous round trip);
 *   - the event-timed duration of the empty kernel (the floor of any time
 *     the harness reports).
 *
 * Without a GPU it says why and exits 0 (so `make bench` passes on any
 * machine), or 2 with --require-gpu (bench/gpu.sh).
 */
#include "core/clock.h"
#include "core/image.h"
#include "core/spec.h"
#include "harness/cuda/api.h"
#include "harness/cuda/cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char EMPTY_PTX[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry wh_empty(.param .u64 p_in)\n"
    "{\n"
    "    ret;\n"
    "}\n";

static const char EMPTY_SPEC[] =
    "{ \"name\": \"wh_empty\", \"source\": \"wh_empty.cu\", \"ptx\": \"wh_empty.ptx\",\n"
    "  \"entry\": \"wh_empty\", \"grid\": [1, 1, 1], \"block\": [32, 1, 1],\n"
    "  \"symbolic\": { \"threads\": [2] },\n"
    "  \"params\": [ { \"name\": \"in\", \"kind\": \"buffer\", \"type\": \"u32\", \"count\": \"threads\",\n"
    "                \"role\": \"input\", \"per_thread\": 1, \"range\": [0, 100] } ] }\n";

typedef struct {
    int device, n;
    bool json, require_gpu, probe;
} args_t;

typedef struct {
    char device[640];
    double run_same_us, run_changed_us;     /* harness, wall per run */
    double rep_batched_us;                  /* harness, wall per repetition, 10 per measurement */
    double async_launch_us, sync_launch_us; /* driver, wall per launch */
    double event_us;                        /* driver, event-timed empty kernel */
    double timed_mean_us, timed_median_us, timed_max_us; /* harness, the empty kernel's time */
    char timing[256];                       /* the harness's timing method */
} results_t;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean, median and maximum of n > 0 values (sorts them). */
static void summarize(double *v, int n, double *mean, double *median, double *max)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    *mean = sum / n;
    *median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    *max = v[n - 1];
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_launch [--device N] [--n N] [--json] [--require-gpu] [--probe]\n");
    return 1;
}

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* The harness part.  false with err on failure. */
static bool bench_harness(const args_t *a, results_t *r, wh_error *err)
{
    char dir[] = "/tmp/wh_bench_launch_XXXXXX";
    if (!mkdtemp(dir)) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "mkdtemp failed");
        return false;
    }
    char spec_path[128], ptx_path[128];
    snprintf(spec_path, sizeof spec_path, "%s/wh_empty.json", dir);
    snprintf(ptx_path, sizeof ptx_path, "%s/wh_empty.ptx", dir);
    bool ok = write_text(spec_path, EMPTY_SPEC) && write_text(ptx_path, EMPTY_PTX);
    wh_spec *spec = ok ? wh_spec_load(spec_path, err) : NULL;
    wh_image *img = NULL;
    void *impl = NULL;
    if (spec) {
        wh_launch l = wh_spec_launch_full(spec);
        img = wh_image_new(spec, &l, err);
    }
    if (img) {
        harness_cuda_config cfg;
        harness_cuda_config_init(&cfg);
        cfg.device = a->device;
        cfg.warmup = 0;
        impl = harness_cuda_open_config(spec, EMPTY_PTX, sizeof EMPTY_PTX - 1, "wh_empty", &cfg, err);
    }
    double *times = impl ? calloc((size_t)a->n, sizeof *times) : NULL;
    ok = times != NULL;
    if (ok) {
        snprintf(r->device, sizeof r->device, "%s", harness_cuda_impl_info(impl)->name);
        snprintf(r->timing, sizeof r->timing, "%s", harness_cuda_impl_info(impl)->timing);
        harness_run run;
        for (int i = 0; i < 50 && ok; i++)
            ok = harness_cuda_ops.run(impl, img, false, &run, err) && run.status == HARNESS_OK;
        double t0 = wh_clock_s();
        for (int i = 0; i < a->n && ok; i++) {
            ok = harness_cuda_ops.run(impl, img, false, &run, err) && run.status == HARNESS_OK;
            times[i] = run.us;
        }
        r->run_same_us = (wh_clock_s() - t0) / a->n * 1e6;
        if (ok)
            summarize(times, a->n, &r->timed_mean_us, &r->timed_median_us, &r->timed_max_us);
        uint32_t *in = (uint32_t *)img->bufs[0].data;
        t0 = wh_clock_s();
        for (int i = 0; i < a->n && ok; i++) {
            in[0] = (uint32_t)(i % 100);
            ok = harness_cuda_ops.run(impl, img, false, &run, err) && run.status == HARNESS_OK;
        }
        r->run_changed_us = (wh_clock_s() - t0) / a->n * 1e6;
        /* a measurement's repetitions share one request */
        double batch[10];
        int done = 0;
        t0 = wh_clock_s();
        for (int i = 0; i < a->n / 10 + 1 && ok; i++)
            ok = harness_cuda_ops.run_reps(impl, img, 10, false, &run, batch, &done, err) &&
                 run.status == HARNESS_OK && done == 10;
        r->rep_batched_us = (wh_clock_s() - t0) / ((a->n / 10 + 1) * 10.0) * 1e6;
        if (!ok && !wh_error_is_set(err))
            wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "the empty kernel did not run: %s", run.message);
    }
    if (impl)
        harness_cuda_ops.close(impl);
    free(times);
    wh_image_free(img);
    wh_spec_free(spec);
    unlink(spec_path);
    unlink(ptx_path);
    rmdir(dir);
    return ok;
}

#define CHECK(call)                                                                       \
    do {                                                                                  \
        CUresult r_ = (call);                                                             \
        if ((int)r_ != WH_CU_SUCCESS) {                                                   \
            char d_[300];                                                                 \
            wh_cuda_describe(&api, r_, d_, sizeof d_);                                    \
            wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "%s: %s", #call, d_);            \
            goto out;                                                                     \
        }                                                                                 \
    } while (0)

/* The driver part, in this process (the harness is closed by now). */
static bool bench_driver(const args_t *a, results_t *r, wh_error *err)
{
    wh_cuda_api api;
    char why[1024];
    if (!wh_cuda_api_load(&api, NULL, why, sizeof why)) {
        wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "%s", why);
        return false;
    }
    bool ok = false, retained = false;
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    CUevent e0 = NULL, e1 = NULL;
    CUdeviceptr buf = 0;
    void *params[1] = { &buf };
    CHECK(api.Init(0));
    CHECK(api.DeviceGet(&dev, a->device));
    CHECK(api.DevicePrimaryCtxRetain(&ctx, dev));
    retained = true;
    CHECK(api.CtxSetCurrent(ctx));
    CHECK(api.ModuleLoadDataEx(&mod, EMPTY_PTX, 0, NULL, NULL));
    CHECK(api.ModuleGetFunction(&fn, mod, "wh_empty"));
    CHECK(api.MemAlloc(&buf, 256));
    CHECK(api.EventCreate(&e0, 0));
    CHECK(api.EventCreate(&e1, 0));
    for (int i = 0; i < 100; i++)
        CHECK(api.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    CHECK(api.CtxSynchronize());

    double t0 = wh_clock_s();
    for (int i = 0; i < a->n * 4; i++)
        CHECK(api.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    CHECK(api.CtxSynchronize());
    r->async_launch_us = (wh_clock_s() - t0) / (a->n * 4) * 1e6;

    t0 = wh_clock_s();
    for (int i = 0; i < a->n; i++) {
        CHECK(api.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
        CHECK(api.CtxSynchronize());
    }
    r->sync_launch_us = (wh_clock_s() - t0) / a->n * 1e6;

    double sum = 0;
    for (int i = 0; i < a->n; i++) {
        float ms = 0;
        CHECK(api.EventRecord(e0, NULL));
        CHECK(api.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
        CHECK(api.EventRecord(e1, NULL));
        CHECK(api.EventSynchronize(e1));
        CHECK(api.EventElapsedTime(&ms, e0, e1));
        sum += ms * 1000.0;
    }
    r->event_us = sum / a->n;
    ok = true;
out:
    if (e0)
        api.EventDestroy(e0);
    if (e1)
        api.EventDestroy(e1);
    if (buf)
        api.MemFree(buf);
    if (mod)
        api.ModuleUnload(mod);
    if (retained)
        api.DevicePrimaryCtxRelease(dev);
    wh_cuda_api_unload(&api);
    return ok;
}

int main(int argc, char **argv)
{
    args_t a = { .device = 0, .n = 2000 };
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            a.json = true;
        else if (!strcmp(argv[i], "--require-gpu"))
            a.require_gpu = true;
        else if (!strcmp(argv[i], "--probe"))
            a.probe = true;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            a.device = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            a.n = atoi(argv[++i]);
        else
            return usage();
    }
    if (a.n < 1)
        return usage();

    char why[1024];
    if (!harness_cuda_available(why, sizeof why)) {
        fprintf(stderr, "bench_launch: %s: no CUDA device: %s\n",
                a.require_gpu || a.probe ? "error" : "skipped", why);
        return a.require_gpu || a.probe ? 2 : 0;
    }
    results_t r;
    memset(&r, 0, sizeof r);
    wh_error err;
    wh_error_clear(&err);
    if (a.probe) {
        a.n = 1;
        if (!bench_harness(&a, &r, &err)) {
            fprintf(stderr, "bench_launch: error: %s\n", err.msg);
            return 2;
        }
        printf("%s\n", r.device);
        return 0;
    }
    if (!bench_harness(&a, &r, &err) || !bench_driver(&a, &r, &err)) {
        fprintf(stderr, "bench_launch: error: %s\n", err.msg);
        return 2;
    }
    if (a.json) {
        json_t *o = json_object();
        json_object_set_new(o, "device", json_string(r.device));
        json_object_set_new(o, "iterations", json_integer(a.n));
        json_object_set_new(o, "harness_run_same_image_us", json_real(r.run_same_us));
        json_object_set_new(o, "harness_run_changed_image_us", json_real(r.run_changed_us));
        json_object_set_new(o, "harness_repetition_batched_us", json_real(r.rep_batched_us));
        json_object_set_new(o, "driver_async_launch_us", json_real(r.async_launch_us));
        json_object_set_new(o, "driver_launches_per_s", json_real(1e6 / r.async_launch_us));
        json_object_set_new(o, "driver_sync_launch_us", json_real(r.sync_launch_us));
        json_object_set_new(o, "empty_kernel_event_us", json_real(r.event_us));
        json_object_set_new(o, "harness_overhead_us", json_real(r.run_same_us - r.event_us));
        json_object_set_new(o, "harness_empty_kernel_mean_us", json_real(r.timed_mean_us));
        json_object_set_new(o, "harness_empty_kernel_median_us", json_real(r.timed_median_us));
        json_object_set_new(o, "harness_empty_kernel_max_us", json_real(r.timed_max_us));
        json_object_set_new(o, "harness_timing", json_string(r.timing));
        json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
        json_decref(o);
    } else {
        printf("device: %s (%d iterations)\n", r.device, a.n);
        printf("  driver: async launch            %9.2f us  (%.0f launches/s)\n", r.async_launch_us,
               1e6 / r.async_launch_us);
        printf("  driver: launch + synchronize    %9.2f us\n", r.sync_launch_us);
        printf("  driver: empty kernel (events)   %9.2f us\n", r.event_us);
        printf("  harness: run, same image        %9.2f us  (overhead over the event time: %.2f us)\n",
               r.run_same_us, r.run_same_us - r.event_us);
        printf("  harness: run, changed image     %9.2f us\n", r.run_changed_us);
        printf("  harness: repetition, 10 per run %9.2f us  (one request per measurement)\n",
               r.rep_batched_us);
        printf("  harness: empty kernel as timed  %9.2f us  (median %.2f, max %.2f; %s)\n",
               r.timed_mean_us, r.timed_median_us, r.timed_max_us, r.timing);
    }
    return 0;
}
