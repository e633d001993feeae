/*
 * engine.c — the GPU part of the worker: libcuda through the
 * dlopen()ed table, the primary context of the chosen device, the PTX
 * JIT-loaded with its logs captured, device buffers with pristine copies
 * of the inputs, and the launch timed alone with events.
 *
 * Events time the GPU's timeline, which includes any gap while the host is
 * still submitting: recorded as start-event, launch, stop-event from the
 * host, a 5 us kernel measured 5-6 us on an H100 whatever it did (the
 * empty kernel too), with outliers up to 50 us when the worker was
 * descheduled between the calls.  So a timed launch is *gated*: the
 * stream first waits (cuStreamWaitValue32) on a word of pinned host
 * memory, the events and the launch queue up behind it, and only then
 * does the host write the word; the GPU runs the three back to back.
 * Where the driver cannot (no stream memory operations), launches are
 * timed ungated and run.json's "timing" says so.
 *
 * Runs only inside the worker process (worker.c).
 */
#include "harness/cuda/api.h"
#include "harness/cuda/texobj.h"
#include "harness/cuda/worker.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JIT_LOG_BYTES (64 * 1024)

typedef struct {
    wh_cuda_param p;            /* name not kept (it points into the SETUP payload) */
    char name[128];
    CUdeviceptr dev;            /* what the kernel sees */
    CUdeviceptr pristine;       /* inputs and fixed: the uploaded content */
    uint64_t bytes;             /* current size of dev / pristine (a global: of the image's part) */
    CUdeviceptr initial;        /* a global: its content before any launch (dev is the module's
                                   variable; pristine is initial with the image's bytes over it) */
    uint64_t var_bytes;         /* a global: the whole variable */
    bool allocated, loaded;
    unsigned char *scalar;      /* scalars: the value bytes (p.size) */
    wh_cuda_texobj tobj;        /* a texture or surface parameter's object (texobj.c) */
    void *tmap;                 /* a tensor map parameter's CUtensorMap (PTX_TMAP_BYTES, aligned) */
    CUdeviceptr tmap_of;        /* the tensor it was encoded for */
} drv_param;

typedef struct {
    wh_cuda_api api;
    CUdevice dev;
    CUcontext ctx;
    bool ctx_retained;
    CUmodule mod;
    CUfunction fn;
    CUevent ev0, ev1;
    bool have_events;
    volatile uint32_t *gate_host;   /* pinned word the stream waits on (NULL: ungated) */
    CUdeviceptr gate_dev;
    uint32_t gate_seq;              /* the value the next gated launch waits for */
    int np;
    drv_param *params;
    void **kparams;
    bool cold_l2;
    CUdeviceptr flush;
    size_t flush_bytes;
    unsigned flush_round;
    int static_shared;          /* the kernel's own .shared bytes */
    uint64_t dynamic_limit;     /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES now */
    harness_cuda_info info;
} drv;

typedef enum { STEP_GO, STEP_FINDING, STEP_TOOL } step;

static void drv_close(void *state);

static void fmt(char *buf, size_t n, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, n, f, ap);
    va_end(ap);
}

static int attr(drv *d, int which)
{
    int v = 0;
    if ((int)d->api.DeviceGetAttribute(&v, which, d->dev) != WH_CU_SUCCESS)
        return 0;
    return v;
}

/* Trim trailing blank lines / spaces of a JIT log in place. */
static char *trim(char *s)
{
    size_t l = strlen(s);
    while (l > 0 && (s[l - 1] == '\n' || s[l - 1] == ' ' || s[l - 1] == '\r'))
        s[--l] = 0;
    return s;
}

/* What to do about a JIT failure whose cause the log names but does not
 * resolve: PTX of a newer ISA than the driver reads (nvcc newer than the
 * driver), or a .target above the device (make ptx's NVCC_ARCH).  "" when
 * neither applies. */
static void jit_hint(const drv *d, const wh_cuda_setup *s, CUresult r, char *buf, size_t n)
{
    buf[0] = 0;
    const char *v = strstr(s->ptx, ".version"), *t = strstr(s->ptx, ".target");
    int vmaj = 0, vmin = 0, sm = 0;
    int dev_sm = d->info.cc_major * 10 + d->info.cc_minor;
    if ((int)r == WH_CU_ERROR_UNSUPPORTED_PTX_VERSION && v && sscanf(v, ".version %d.%d", &vmaj, &vmin) == 2)
        fmt(buf, n, "\nThe PTX is ISA version %d.%d, newer than driver %d.%d reads (a driver JITs the "
            "PTX of CUDA releases up to its own): rebuild the PTX with an nvcc no newer than the driver "
            "(make ptx CUDA_HOME=DIR of an older toolkit, after removing build/ptx), or update the driver",
            vmaj, vmin, d->info.driver_version / 1000, (d->info.driver_version % 1000) / 10);
    else if (((int)r == WH_CU_ERROR_INVALID_PTX || (int)r == WH_CU_ERROR_NO_BINARY_FOR_GPU) && t &&
             sscanf(t, ".target sm_%d", &sm) == 1 && dev_sm > 0 && sm > dev_sm)
        fmt(buf, n, "\nThe PTX targets sm_%d, above this device's sm_%d: rebuild it for the device "
            "(remove build/ptx, then make ptx NVCC_ARCH=sm_%d)", sm, dev_sm, dev_sm);
}

/* The word timed launches wait on, if this driver and device can: a
 * satisfied wait is tried once, so an unusable one is found here and not
 * in the middle of a measurement.  info.timing says which it is, and why
 * not. */
static void open_gate(drv *d)
{
    const char *what = NULL;
    char desc[300] = "";
    CUresult r = WH_CU_SUCCESS;
    void *host = NULL;
    if (!d->api.StreamWaitValue32 || !d->api.MemHostAlloc || !d->api.MemFreeHost ||
        !d->api.MemHostGetDevicePointer) {
        fmt(d->info.timing, sizeof d->info.timing,
            "events, not gated: the driver has no cuStreamWaitValue32 (host submission time is "
            "included, a few microseconds)");
        return;
    }
    if ((int)(r = d->api.MemHostAlloc(&host, sizeof(uint32_t), WH_CU_MEMHOSTALLOC_DEVICEMAP)) !=
        WH_CU_SUCCESS) {
        what = "cuMemHostAlloc";
        host = NULL;
    } else if ((int)(r = d->api.MemHostGetDevicePointer(&d->gate_dev, host, 0)) != WH_CU_SUCCESS) {
        what = "cuMemHostGetDevicePointer";
    } else {
        *(volatile uint32_t *)host = 0;
        if ((int)(r = d->api.StreamWaitValue32(NULL, d->gate_dev, 0, WH_CU_STREAM_WAIT_VALUE_GEQ)) !=
            WH_CU_SUCCESS)
            what = "cuStreamWaitValue32";
        else if ((int)(r = d->api.CtxSynchronize()) != WH_CU_SUCCESS)
            what = "cuCtxSynchronize after cuStreamWaitValue32";
    }
    if (what) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(d->info.timing, sizeof d->info.timing,
            "events, not gated: %s: %s (host submission time is included, a few microseconds)",
            what, desc);
        if (host)
            d->api.MemFreeHost(host);
        d->gate_dev = 0;
        return;
    }
    d->gate_host = host;
    d->info.gated = true;
    fmt(d->info.timing, sizeof d->info.timing,
        "events, gated: the stream waits on a host word until the launch and both events are "
        "queued (cuStreamWaitValue32)");
}

static void close_gate(drv *d)
{
    if (d->gate_host)
        d->api.MemFreeHost((void *)d->gate_host);
    d->gate_host = NULL;
}

static void *drv_open(const wh_cuda_setup *s, harness_cuda_info *info, char *msg, size_t n)
{
    drv *d = calloc(1, sizeof *d);
    if (!d) {
        fmt(msg, n, "out of memory");
        return NULL;
    }
    char desc[300];
    if (!wh_cuda_api_load(&d->api, s->libcuda && *s->libcuda ? s->libcuda : NULL, msg, n)) {
        free(d);
        return NULL;
    }
    snprintf(d->info.libcuda, sizeof d->info.libcuda, "%s", d->api.path);
    d->info.ordinal = s->device;

    CUresult r = d->api.Init(0);
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_init_failure(&d->api, r, msg, n);
        goto fail;
    }
    int count = 0;
    r = d->api.DeviceGetCount(&count);
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(msg, n, "cuDeviceGetCount: %s", desc);
        goto fail;
    }
    if (count < 1) {
        fmt(msg, n, "the NVIDIA driver reports no CUDA device");
        goto fail;
    }
    if (s->device < 0 || s->device >= count) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        fmt(msg, n, "CUDA device %d does not exist: %d device%s visible (0..%d)%s%s", s->device, count,
            count == 1 ? "" : "s", count - 1, vis ? ", CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "");
        goto fail;
    }
    /* islands: the ranks of a node take its devices in turn */
    int ordinal = s->device_rotate > 0 ? (int)(((long)s->device + s->device_rotate) % count) : s->device;
    d->info.ordinal = ordinal;
    r = d->api.DeviceGet(&d->dev, ordinal);
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(msg, n, "cuDeviceGet(%d): %s", ordinal, desc);
        goto fail;
    }
    if ((int)d->api.DeviceGetName(d->info.name, (int)sizeof d->info.name - 1, d->dev) != WH_CU_SUCCESS)
        snprintf(d->info.name, sizeof d->info.name, "CUDA device %d", ordinal);
    d->info.cc_major = attr(d, WH_CU_ATTR_COMPUTE_CAPABILITY_MAJOR);
    d->info.cc_minor = attr(d, WH_CU_ATTR_COMPUTE_CAPABILITY_MINOR);
    d->info.sm_count = attr(d, WH_CU_ATTR_MULTIPROCESSOR_COUNT);
    d->info.clock_khz = attr(d, WH_CU_ATTR_CLOCK_RATE);
    d->info.mem_clock_khz = attr(d, WH_CU_ATTR_MEMORY_CLOCK_RATE);
    d->info.mem_bus_bits = attr(d, WH_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH);
    d->info.l2_bytes = attr(d, WH_CU_ATTR_L2_CACHE_SIZE);
    d->info.max_threads_per_block = attr(d, WH_CU_ATTR_MAX_THREADS_PER_BLOCK);
    d->info.max_shared_optin = attr(d, WH_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    d->info.pci_domain = attr(d, WH_CU_ATTR_PCI_DOMAIN_ID);
    d->info.pci_bus = attr(d, WH_CU_ATTR_PCI_BUS_ID);
    d->info.pci_device = attr(d, WH_CU_ATTR_PCI_DEVICE_ID);
    size_t total = 0;
    if ((int)d->api.DeviceTotalMem(&total, d->dev) == WH_CU_SUCCESS)
        d->info.total_mem = total;
    int dv = 0;
    if ((int)d->api.DriverGetVersion(&dv) == WH_CU_SUCCESS)
        d->info.driver_version = dv;

    r = d->api.DevicePrimaryCtxRetain(&d->ctx, d->dev);
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(msg, n, "cannot create a context on %s: %s", d->info.name, desc);
        goto fail;
    }
    d->ctx_retained = true;
    r = d->api.CtxSetCurrent(d->ctx);
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(msg, n, "cuCtxSetCurrent: %s", desc);
        goto fail;
    }

    /* JIT the PTX, keeping both logs. */
    char *info_log = calloc(1, JIT_LOG_BYTES), *error_log = calloc(1, JIT_LOG_BYTES);
    if (!info_log || !error_log) {
        free(info_log);
        free(error_log);
        fmt(msg, n, "out of memory");
        goto fail;
    }
    CUjit_option opts[4] = { WH_CU_JIT_INFO_LOG_BUFFER, WH_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                             WH_CU_JIT_ERROR_LOG_BUFFER, WH_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[4] = { info_log, (void *)(uintptr_t)(JIT_LOG_BYTES - 1), error_log,
                      (void *)(uintptr_t)(JIT_LOG_BYTES - 1) };
    r = d->api.ModuleLoadDataEx(&d->mod, s->ptx, 4, opts, vals);
    if ((int)r != WH_CU_SUCCESS) {
        d->mod = NULL;
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        char hint[400];
        jit_hint(d, s, r, hint, sizeof hint);
        trim(error_log);
        trim(info_log);
        fmt(msg, n, "the driver's JIT could not load the PTX of '%s' for %s (sm_%d%d): %s%s%s%s%s%s",
            s->entry, d->info.name, d->info.cc_major, d->info.cc_minor, desc,
            *error_log ? "\nJIT error log:\n" : "", error_log, *info_log ? "\nJIT info log:\n" : "",
            info_log, hint);
        free(info_log);
        free(error_log);
        goto fail;
    }
    free(info_log);
    free(error_log);
    r = d->api.ModuleGetFunction(&d->fn, d->mod, s->entry);
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(msg, n, "the JIT-loaded module has no kernel '%s': %s", s->entry, desc);
        goto fail;
    }
    int regs = 0;
    if ((int)d->api.FuncGetAttribute(&regs, WH_CU_FUNC_ATTRIBUTE_NUM_REGS, d->fn) == WH_CU_SUCCESS)
        d->info.num_regs = regs;
    /* Static and dynamic shared memory share the 48 KiB a block gets
     * without opting in: the driver's initial dynamic limit is what the
     * kernel's own .shared variables leave. */
    int sh = 0;
    if ((int)d->api.FuncGetAttribute(&sh, WH_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, d->fn) == WH_CU_SUCCESS &&
        sh > 0)
        d->static_shared = sh;
    sh = 0;
    if ((int)d->api.FuncGetAttribute(&sh, WH_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, d->fn) ==
        WH_CU_SUCCESS && sh >= 0)
        d->dynamic_limit = (uint64_t)sh;
    else
        d->dynamic_limit = d->static_shared < (int)WH_CU_SHARED_DEFAULT_LIMIT
                               ? WH_CU_SHARED_DEFAULT_LIMIT - (uint64_t)d->static_shared : 0;

    r = d->api.EventCreate(&d->ev0, 0);
    if ((int)r == WH_CU_SUCCESS) {
        r = d->api.EventCreate(&d->ev1, 0);
        if ((int)r != WH_CU_SUCCESS)
            d->api.EventDestroy(d->ev0);
    }
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(msg, n, "cuEventCreate: %s", desc);
        goto fail;
    }
    d->have_events = true;
    open_gate(d);

    d->np = s->nparams;
    d->params = calloc(d->np ? (size_t)d->np : 1, sizeof *d->params);
    d->kparams = calloc(d->np ? (size_t)d->np : 1, sizeof *d->kparams);
    if (!d->params || !d->kparams) {
        fmt(msg, n, "out of memory");
        goto fail;
    }
    for (int i = 0; i < d->np; i++) {
        d->params[i].p = s->params[i];
        d->params[i].p.name = NULL;
        snprintf(d->params[i].name, sizeof d->params[i].name, "%s", s->params[i].name);
        if (s->params[i].kind == WH_SCALAR && !(d->params[i].scalar = calloc(1, s->params[i].size))) {
            fmt(msg, n, "out of memory");
            goto fail;
        }
    }

    d->cold_l2 = s->cold_l2;
    if (d->cold_l2) {
        /* Twice the L2 (at least 8 MiB when the size is unknown). */
        size_t l2 = d->info.l2_bytes > 0 ? (size_t)d->info.l2_bytes : 4u << 20;
        d->flush_bytes = 2 * l2;
        r = d->api.MemAlloc(&d->flush, d->flush_bytes);
        if ((int)r != WH_CU_SUCCESS) {
            d->flush = 0;
            wh_cuda_describe(&d->api, r, desc, sizeof desc);
            fmt(msg, n, "cuMemAlloc of the %zu-byte L2 flush buffer: %s", d->flush_bytes, desc);
            goto fail;
        }
    }
    *info = d->info;
    return d;

fail:
    drv_close(d);
    return NULL;
}

static void free_buffer(drv *d, drv_param *p)
{
    wh_cuda_texobj_free(&d->api, &p->tobj);
    if (p->dev && !p->p.global)
        d->api.MemFree(p->dev);
    if (p->pristine)
        d->api.MemFree(p->pristine);
    if (p->initial)
        d->api.MemFree(p->initial);
    p->dev = p->pristine = p->initial = 0;
    p->allocated = p->loaded = false;
    p->bytes = 0;
}

static void drv_close(void *state)
{
    drv *d = state;
    if (!d)
        return;
    for (int i = 0; d->params && i < d->np; i++)
        free(d->params[i].tmap);
    if (d->api.lib) {
        for (int i = 0; d->params && i < d->np; i++)
            free_buffer(d, &d->params[i]);
        if (d->flush)
            d->api.MemFree(d->flush);
        close_gate(d);
        if (d->have_events) {
            d->api.EventDestroy(d->ev0);
            d->api.EventDestroy(d->ev1);
        }
        if (d->mod)
            d->api.ModuleUnload(d->mod);
        if (d->ctx_retained)
            d->api.DevicePrimaryCtxRelease(d->dev);
        wh_cuda_api_unload(&d->api);
    }
    for (int i = 0; d->params && i < d->np; i++)
        free(d->params[i].scalar);
    free(d->params);
    free(d->kparams);
    free(d);
}

static bool is_kernel_fault(int r)
{
    switch (r) {
    case WH_CU_ERROR_ILLEGAL_ADDRESS:
    case WH_CU_ERROR_ASSERT:
    case WH_CU_ERROR_HARDWARE_STACK_ERROR:
    case WH_CU_ERROR_ILLEGAL_INSTRUCTION:
    case WH_CU_ERROR_MISALIGNED_ADDRESS:
    case WH_CU_ERROR_INVALID_ADDRESS_SPACE:
    case WH_CU_ERROR_INVALID_PC:
    case WH_CU_ERROR_LAUNCH_FAILED:
    case WH_CU_ERROR_TENSOR_MEMORY_LEAK:
        return true;
    default:
        return false;
    }
}

static void shape(const wh_cuda_request *rq, char *buf, size_t n)
{
    fmt(buf, n, "grid [%u,%u,%u], block [%u,%u,%u], %llu bytes of dynamic shared memory", rq->grid[0],
        rq->grid[1], rq->grid[2], rq->block[0], rq->block[1], rq->block[2],
        (unsigned long long)rq->shared_bytes);
}

/* Map a driver result to what it means for this run. */
static step check(drv *d, CUresult r, const char *what, const wh_cuda_request *rq,
                  wh_cuda_result *res, char *msg, size_t n)
{
    if ((int)r == WH_CU_SUCCESS)
        return STEP_GO;
    char desc[300], sh[160];
    wh_cuda_describe(&d->api, r, desc, sizeof desc);
    shape(rq, sh, sizeof sh);
    if (is_kernel_fault((int)r)) {
        res->status = HARNESS_FAULT;
        res->restart = true;
        fmt(res->message, sizeof res->message,
            "the kernel faulted on the GPU: %s (reported by %s; %s). The driver does not say which "
            "thread or address: replay this input on the sim backend, or under compute-sanitizer, "
            "to locate it", desc, what, sh);
        return STEP_FINDING;
    }
    if ((int)r == WH_CU_ERROR_LAUNCH_TIMEOUT) {
        res->status = HARNESS_TIMEOUT;
        res->restart = true;
        fmt(res->message, sizeof res->message,
            "the driver's own watchdog stopped the kernel: %s (reported by %s; %s)", desc, what, sh);
        return STEP_FINDING;
    }
    if ((int)r == WH_CU_ERROR_LAUNCH_OUT_OF_RESOURCES)
        fmt(msg, n, "%s failed: %s (%s; the kernel uses %d registers per thread, the device allows "
            "%d threads per block)", what, desc, sh, d->info.num_regs, d->info.max_threads_per_block);
    else
        fmt(msg, n, "%s failed: %s (%s)", what, desc, sh);
    return STEP_TOOL;
}

/* Outside the timed region: restore inputs, zero outputs, flush L2. */
static step prepare(drv *d, const wh_cuda_request *rq, wh_cuda_result *res, char *msg, size_t n)
{
    for (int i = 0; i < d->np; i++) {
        drv_param *p = &d->params[i];
        if (p->p.kind != WH_BUFFER || p->bytes == 0 || (p->p.tex.ndims && !p->p.tex.surface))
            continue;   /* a texture is read-only */
        CUresult r;
        const char *what;
        if (p->p.tex.surface) {
            step s = check(d, wh_cuda_texobj_restore(&d->api, &p->tobj, &p->p.tex),
                           "cuMemcpy3D (restoring a surface)", rq, res, msg, n);
            if (s != STEP_GO)
                return s;
            continue;
        }
        if (p->p.global) {
            r = d->api.MemcpyDtoD(p->dev, p->pristine, (size_t)p->var_bytes);
            what = "cuMemcpyDtoD (restoring a module variable)";
        } else if (p->p.role == WH_ROLE_INPUT || p->p.role == WH_ROLE_FIXED) {
            r = d->api.MemcpyDtoD(p->dev, p->pristine, (size_t)p->bytes);
            what = "cuMemcpyDtoD (restoring an input)";
        } else {
            r = d->api.MemsetD8(p->dev, 0, (size_t)p->bytes);
            what = "cuMemsetD8 (zeroing an output)";
        }
        step s = check(d, r, what, rq, res, msg, n);
        if (s != STEP_GO)
            return s;
    }
    if (d->cold_l2 && d->flush) {
        d->flush_round++;
        CUresult r = d->api.MemsetD8(d->flush, (unsigned char)(d->flush_round & 0xff), d->flush_bytes);
        step s = check(d, r, "cuMemsetD8 (flushing L2)", rq, res, msg, n);
        if (s != STEP_GO)
            return s;
    }
    return STEP_GO;
}

static CUresult launch_kernel(drv *d, const wh_cuda_request *rq)
{
    return d->api.LaunchKernel(d->fn, rq->grid[0], rq->grid[1], rq->grid[2], rq->block[0], rq->block[1],
                               rq->block[2], (unsigned)rq->shared_bytes, NULL, d->kparams, NULL);
}

/* Queue the timed launch between its events; with the gate, behind a
 * wait that is released only once all three are queued.  The gate is
 * released whatever failed, or the stream would stay blocked. */
static step queue_timed(drv *d, const wh_cuda_request *rq, wh_cuda_result *res, char *msg, size_t n)
{
    step s = STEP_GO;
    bool waiting = false;
    if (d->gate_host) {
        d->gate_seq++;
        s = check(d, d->api.StreamWaitValue32(NULL, d->gate_dev, d->gate_seq, WH_CU_STREAM_WAIT_VALUE_GEQ),
                  "cuStreamWaitValue32 (the gate of a timed launch)", rq, res, msg, n);
        waiting = s == STEP_GO;
    }
    if (s == STEP_GO)
        s = check(d, d->api.EventRecord(d->ev0, NULL), "cuEventRecord", rq, res, msg, n);
    if (s == STEP_GO)
        s = check(d, launch_kernel(d, rq), "cuLaunchKernel", rq, res, msg, n);
    if (s == STEP_GO)
        s = check(d, d->api.EventRecord(d->ev1, NULL), "cuEventRecord", rq, res, msg, n);
    if (waiting)
        __atomic_store_n(d->gate_host, d->gate_seq, __ATOMIC_SEQ_CST);
    return s;
}

static step launch(drv *d, const wh_cuda_request *rq, bool timed, double *us, wh_cuda_result *res,
                   char *msg, size_t n)
{
    step s = prepare(d, rq, res, msg, n);
    if (s != STEP_GO)
        return s;
    if (!timed) {
        if ((s = check(d, launch_kernel(d, rq), "cuLaunchKernel", rq, res, msg, n)) != STEP_GO)
            return s;
        return check(d, d->api.CtxSynchronize(), "cuCtxSynchronize (after a warm-up launch)", rq, res,
                     msg, n);
    }
    if ((s = queue_timed(d, rq, res, msg, n)) != STEP_GO)
        return s;
    if ((s = check(d, d->api.EventSynchronize(d->ev1), "cuEventSynchronize (end of the kernel)", rq,
                   res, msg, n)) != STEP_GO)
        return s;
    float ms = 0;
    if ((s = check(d, d->api.EventElapsedTime(&ms, d->ev0, d->ev1), "cuEventElapsedTime", rq, res,
                   msg, n)) != STEP_GO)
        return s;
    *us = (double)ms * 1000.0;
    return STEP_GO;
}

/* A spec global, once: the module's variable, a copy of it made before
 * any launch (its initializer), and the pristine copy every launch starts
 * from, as a freshly loaded module would (the image's bytes go over it). */
static bool bind_global(drv *d, drv_param *p, char *msg, size_t n)
{
    char desc[300];
    size_t have = 0;
    CUresult r = d->api.ModuleGetGlobal(&p->dev, &have, d->mod, p->name);
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(msg, n, "cuModuleGetGlobal of module variable '%s': %s", p->name, desc);
        p->dev = 0;
        return false;
    }
    size_t alloc = have ? have : 1;
    r = d->api.MemAlloc(&p->initial, alloc);
    if ((int)r == WH_CU_SUCCESS)
        r = d->api.MemAlloc(&p->pristine, alloc);
    if ((int)r == WH_CU_SUCCESS && have)
        r = d->api.MemcpyDtoD(p->initial, p->dev, have);
    if ((int)r == WH_CU_SUCCESS && have)
        r = d->api.MemcpyDtoD(p->pristine, p->dev, have);
    if ((int)r != WH_CU_SUCCESS) {
        wh_cuda_describe(&d->api, r, desc, sizeof desc);
        fmt(msg, n, "copying module variable '%s' (%zu bytes): %s", p->name, have, desc);
        free_buffer(d, p);
        return false;
    }
    p->var_bytes = have;
    p->allocated = true;
    return true;
}

/* A texture or surface parameter: its object made once, each image's
 * texels uploaded (an output surface starts from zeros). */
static bool load_texture(drv *d, drv_param *p, const wh_cuda_arg *a, char *msg, size_t n)
{
    char desc[300];
    const ptx_texture *t = &p->p.tex;
    const char *what = t->surface ? "surface" : "texture";
    uint64_t want = (uint64_t)ptx_tex_texels(t) * (uint64_t)t->texel_bytes;
    if (a->bytes != want) {
        fmt(msg, n, "%s '%s': %llu bytes sent, its dimensions take %llu", what, p->name,
            (unsigned long long)a->bytes, (unsigned long long)want);
        return false;
    }
    if (!p->allocated) {
        if (!wh_cuda_texobj_make(&d->api, &p->tobj, t, p->name, want, msg, n))
            return false;
        p->allocated = true;
        p->bytes = want;
    }
    bool keeps = p->p.role == WH_ROLE_INPUT || p->p.role == WH_ROLE_FIXED;
    if (a->data || (!keeps && !p->loaded)) {
        CUresult r = wh_cuda_texobj_upload(&d->api, &p->tobj, t, keeps ? a->data : NULL);
        if ((int)r != WH_CU_SUCCESS) {
            wh_cuda_describe(&d->api, r, desc, sizeof desc);
            fmt(msg, n, "uploading %s '%s' (%llu bytes): %s", what, p->name, (unsigned long long)want, desc);
            return false;
        }
        p->loaded = true;
    } else if (!p->loaded) {
        fmt(msg, n, "%s '%s' was never sent", what, p->name);
        return false;
    }
    return true;
}

/* A tensor map parameter: its CUtensorMap, encoded again whenever its
 * tensor moved; the kernel gets the map by value. */
static bool tensor_map_of(drv *d, drv_param *p, char *msg, size_t n)
{
    if (p->tmap && p->tmap_of == p->dev)
        return true;
    if (!p->tmap && !(p->tmap = aligned_alloc(128, PTX_TMAP_BYTES))) {
        fmt(msg, n, "out of memory for tensor map '%s'", p->name);
        return false;
    }
    memset(p->tmap, 0, PTX_TMAP_BYTES);
    if (!wh_cuda_tensor_map_encode(&d->api, &p->p.tmap, p->dev, p->tmap, p->name, msg, n))
        return false;
    p->tmap_of = p->dev;
    return true;
}

/* Make the device buffers match the request; upload what was sent. */
static bool load_params(drv *d, const wh_cuda_request *rq, char *msg, size_t n)
{
    char desc[300];
    for (int i = 0; i < d->np; i++) {
        drv_param *p = &d->params[i];
        const wh_cuda_arg *a = &rq->args[i];
        if (p->p.kind == WH_SCALAR) {
            if (a->data) {
                if (a->bytes != p->p.size) {
                    fmt(msg, n, "scalar '%s': %llu bytes sent, %u expected", p->name,
                        (unsigned long long)a->bytes, p->p.size);
                    return false;
                }
                memcpy(p->scalar, a->data, p->p.size);
                p->loaded = true;
            } else if (!p->loaded) {
                fmt(msg, n, "scalar '%s' was never sent", p->name);
                return false;
            }
            d->kparams[i] = p->scalar;
            continue;
        }
        if (p->p.tex.ndims) {
            if (!load_texture(d, p, a, msg, n))
                return false;
            d->kparams[i] = &p->tobj.handle;
            continue;
        }
        bool keeps = p->p.role == WH_ROLE_INPUT || p->p.role == WH_ROLE_FIXED;
        if (p->p.global) {
            if (!p->allocated && !bind_global(d, p, msg, n))
                return false;
            if (a->bytes > p->var_bytes) {
                fmt(msg, n, "module variable '%s' is %llu bytes on the device; the image has %llu", p->name,
                    (unsigned long long)p->var_bytes, (unsigned long long)a->bytes);
                return false;
            }
            p->bytes = a->bytes;
        } else if (!p->allocated || p->bytes != a->bytes) {
            free_buffer(d, p);
            /* Never 0 bytes (cuMemAlloc refuses it): the kernel gets a valid
             * pointer even to an empty buffer. */
            size_t alloc = a->bytes ? (size_t)a->bytes : 1;
            CUresult r = d->api.MemAlloc(&p->dev, alloc);
            if ((int)r == WH_CU_SUCCESS && keeps)
                r = d->api.MemAlloc(&p->pristine, alloc);
            if ((int)r != WH_CU_SUCCESS) {
                wh_cuda_describe(&d->api, r, desc, sizeof desc);
                fmt(msg, n, "cuMemAlloc of %zu bytes for buffer '%s'%s: %s", alloc, p->name,
                    keeps ? " (and its pristine copy)" : "", desc);
                free_buffer(d, p);
                return false;
            }
            p->allocated = true;
            p->bytes = a->bytes;
        }
        if (keeps) {
            if (a->data) {
                CUresult r = WH_CU_SUCCESS;
                if (p->p.global && p->var_bytes)   /* what the last image wrote goes */
                    r = d->api.MemcpyDtoD(p->pristine, p->initial, (size_t)p->var_bytes);
                if ((int)r == WH_CU_SUCCESS && a->bytes)
                    r = d->api.MemcpyHtoD(p->pristine, a->data, (size_t)a->bytes);
                if ((int)r != WH_CU_SUCCESS) {
                    wh_cuda_describe(&d->api, r, desc, sizeof desc);
                    fmt(msg, n, "uploading buffer '%s' (%llu bytes): %s", p->name, (unsigned long long)a->bytes,
                        desc);
                    return false;
                }
                p->loaded = true;
            } else if (!p->loaded) {
                fmt(msg, n, "input buffer '%s' was never sent", p->name);
                return false;
            }
        }
        d->kparams[i] = p->p.global ? NULL : &p->dev;   /* globals follow the kernel's parameters */
        if (p->p.tmap.rank && !tensor_map_of(d, p, msg, n))
            return false;
        if (p->p.tmap.rank)
            d->kparams[i] = p->tmap;
    }
    return true;
}

static bool drv_run(void *state, const wh_cuda_request *rq, unsigned char *const *outputs,
                    wh_cuda_result *res, char *msg, size_t n)
{
    drv *d = state;
    char desc[300];
    if (rq->nparams != d->np) {
        fmt(msg, n, "request with %d parameters, the kernel has %d", rq->nparams, d->np);
        return false;
    }
    if (!load_params(d, rq, msg, n))
        return false;

    /* Static + dynamic shared memory may reach the device's opt-in limit;
     * above what the kernel may use now, opt in first. */
    uint64_t optin = d->info.max_shared_optin > 0 ? (uint64_t)d->info.max_shared_optin : 0;
    if (rq->shared_bytes > UINT_MAX ||
        (optin > 0 && rq->shared_bytes + (uint64_t)d->static_shared > optin)) {
        char st[96] = "";
        if (d->static_shared > 0)
            fmt(st, sizeof st, ", besides the kernel's %d bytes of static shared memory",
                d->static_shared);
        fmt(msg, n, "the launch asks for %llu bytes of dynamic shared memory per block%s; %s allows "
            "at most %llu in all", (unsigned long long)rq->shared_bytes, st, d->info.name,
            (unsigned long long)optin);
        return false;
    }
    if (rq->shared_bytes > d->dynamic_limit) {
        CUresult r = d->api.FuncSetAttribute(d->fn, WH_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             (int)rq->shared_bytes);
        if ((int)r != WH_CU_SUCCESS) {
            wh_cuda_describe(&d->api, r, desc, sizeof desc);
            fmt(msg, n, "opting into %llu bytes of dynamic shared memory (besides %d of static): %s",
                (unsigned long long)rq->shared_bytes, d->static_shared, desc);
            return false;
        }
        d->dynamic_limit = rq->shared_bytes;
    }

    /* Warm-ups, then the timed launches, each reported to the watchdog
     * but the last (the result follows it). */
    double us = 0;
    step s = STEP_GO;
    int reps = rq->reps < 1 ? 1 : rq->reps > WH_CUDA_MAX_BATCH ? WH_CUDA_MAX_BATCH : rq->reps;
    int launches = rq->warmup + reps;
    for (int k = 0; k < launches && s == STEP_GO; k++) {
        bool timed = k >= rq->warmup;
        s = launch(d, rq, timed, &us, res, msg, n);
        if (s == STEP_GO && timed)
            res->times[res->ntimes++] = us;
        if (s == STEP_GO && k + 1 < launches && rq->progress)
            rq->progress(rq->progress_ctx);
    }
    if (s == STEP_TOOL)
        return false;
    if (s == STEP_FINDING)
        return true;

    res->status = HARNESS_OK;
    res->time_us = us;
    if (rq->want_outputs && outputs) {
        for (int i = 0; i < d->np; i++) {
            drv_param *p = &d->params[i];
            if (!outputs[i] || p->p.kind != WH_BUFFER || p->bytes == 0 || (p->p.tex.ndims && !p->p.tex.surface))
                continue;
            CUresult r = p->p.tex.surface ? wh_cuda_texobj_read(&d->api, &p->tobj, &p->p.tex, outputs[i])
                                          : d->api.MemcpyDtoH(outputs[i], p->dev, (size_t)p->bytes);
            step c = check(d, r, "cuMemcpyDtoH (reading an output back)", rq, res, msg, n);
            if (c == STEP_TOOL)
                return false;
            if (c == STEP_FINDING) {
                res->time_us = 0;
                res->ntimes = 0;
                return true;
            }
        }
    }
    return true;
}

const wh_cuda_engine wh_cuda_driver_engine = {
    .name = "libcuda",
    .open = drv_open,
    .run = drv_run,
    .close = drv_close,
};
