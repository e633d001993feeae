/*
 * fakecuda.c — a fake CUDA driver library for the tests of the cuda
 * backend on machines without a GPU (see fakecuda.h for what it is and
 * is not).  Built by the Makefile into $(BUILD)/libfakecuda.so, and with
 * -DFAKECUDA_OLD_DRIVER into $(BUILD)/libfakecuda_old.so; the tests point
 * $WARPHUNT_LIBCUDA at it.
 *
 * Signatures, enum values and error codes come from cuda.h itself: every
 * exported function below is checked by the compiler against the
 * header's prototype of the same name.  Semantics follow the driver API
 * reference for what warphunt uses:
 *   - nothing works before cuInit (CUDA_ERROR_NOT_INITIALIZED), nor in a
 *     process forked after cuInit;
 *   - a primary context per device, reference counted; calls that need a
 *     context fail with CUDA_ERROR_INVALID_CONTEXT when none is current;
 *   - cuMemAlloc refuses 0 bytes; copies and sets must lie inside one live
 *     allocation (CUDA_ERROR_INVALID_VALUE); new memory is not zeroed;
 *   - JIT options: log buffers capped at their sizes (including the NUL),
 *     the *_SIZE_BYTES values overwritten with what was filled;
 *   - the JIT refuses PTX of a newer ISA than the driver's CUDA release
 *     reads, a .target above the device, and an unknown instruction
 *     (FAKECUDA_BAD_OPCODE), with ptxas's messages in the error log;
 *   - launches are checked (dimensions, dynamic shared memory against
 *     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, which starts at
 *     48 KiB minus the kernel's static shared memory and may be raised up
 *     to the opt-in limit minus it, parameters); a
 *     kernel's fault is reported by the next synchronising call
 *     (cuCtxSynchronize, cuEventSynchronize, cuMemcpyHtoD/DtoH) and then
 *     by every call on the context (sticky); a hung kernel blocks every
 *     synchronising call forever;
 *   - events: timing needs both recorded and completed (INVALID_HANDLE /
 *     NOT_READY otherwise), CU_EVENT_DISABLE_TIMING refuses timing;
 *   - pinned host memory (cuMemHostAlloc) maps into the device's address
 *     space with CU_MEMHOSTALLOC_DEVICEMAP only; cuStreamWaitValue32 (GEQ
 *     only) on such a word: the work behind an unsatisfied wait runs at
 *     once here, but a synchronising call made before the host satisfied
 *     it blocks forever, as the stream would (FAKECUDA_NO_STREAM_WAIT: the
 *     driver refuses stream memory operations; the old driver has only
 *     the CUDA 8-11 name, which refuses them too).
 */
#include <cuda.h>

#include "tests/fakecuda/fakecuda.h"

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The unversioned names some drivers export besides (or, for an old
 * driver, instead of) the _v2 ones; cuda.h maps them to _v2 by macro. */
#undef cuEventElapsedTime
#undef cuDevicePrimaryCtxRelease
#undef cuStreamWaitValue32
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                     unsigned int flags);

#ifdef FAKECUDA_OLD_DRIVER
#define DRIVER_VERSION FAKECUDA_OLD_DRIVER_VERSION
#else
#define DRIVER_VERSION FAKECUDA_DRIVER_VERSION
#endif

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 8

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

struct CUctx_st {
    int dev;
    int refs;                   /* primary context retains */
    bool alive;
    CUresult sticky;            /* a kernel's error, once reported */
    CUresult pending;           /* a kernel's error, not yet reported */
    bool hung;                  /* a kernel that never finishes is on the stream */
    bool gated;                 /* the stream waits on gate_addr >= gate_value */
    CUdeviceptr gate_addr;
    uint32_t gate_value;
    double now_ns;              /* virtual GPU clock: end of the last operation */
};

typedef struct {
    CUdeviceptr addr;
    size_t bytes;
    unsigned char *host;
    CUcontext ctx;
    bool pinned;                /* cuMemHostAlloc'd: host is the user's memory */
} alloc_t;

struct CUevent_st {
    CUcontext ctx;
    unsigned flags;
    bool recorded, completed;
    double t_ns;
    int id;
};

/* A CUDA array: host memory of Width x Height x Depth elements. */
struct CUarray_st {
    CUcontext ctx;
    CUDA_ARRAY3D_DESCRIPTOR desc;
    size_t elem_bytes, bytes;
    unsigned char *host;
};

/* A mipmapped array: its levels, CUDA arrays of halved sizes. */
#define FAKECUDA_MAX_LEVELS 16
struct CUmipmappedArray_st {
    CUcontext ctx;
    unsigned levels;
    struct CUarray_st *level[FAKECUDA_MAX_LEVELS];
};

/* A texture object: what cuTexObjectCreate was given. */
typedef struct {
    bool live;
    bool surface;               /* made by cuSurfObjectCreate (no td) */
    CUcontext ctx;
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC td;
} fake_texture;
#define FAKECUDA_MAX_TEXTURES 64

typedef struct fake_kernel fake_kernel;

struct CUfunc_st {
    struct CUmod_st *mod;
    char name[128];
    const fake_kernel *impl;    /* NULL: the fake cannot run it */
    bool attrs_set;
    int max_dynamic_shared;     /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
};

/* A module-scope .global or .const variable: device memory the module
 * owns, found by cuModuleGetGlobal. */
typedef struct {
    char name[128];
    CUdeviceptr addr;
    size_t bytes;
} module_var;

struct CUmod_st {
    CUcontext ctx;
    int nfuncs;
    struct CUfunc_st *funcs;
    module_var *vars;
    int nvars;
};

static struct {
    bool inited;
    pid_t init_pid;
    int ndev;
    int logfd;
    bool wrong;
    bool jit_fail;
    struct CUctx_st ctx[MAX_DEVICES];
    alloc_t *allocs;
    int nallocs, cap_allocs;
    CUdeviceptr next_addr;
    size_t used_bytes;
    int live_events, live_modules, event_ids;
    double jitter_ns;               /* FAKECUDA_JITTER_ENV */
    uint64_t jitter_state;
    fake_texture tex[FAKECUDA_MAX_TEXTURES];  /* texture object k + 1 is tex[k] */
} g = { .logfd = -1 };

static __thread CUcontext current;

static void flog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void flog(const char *fmt, ...)
{
    if (g.logfd < 0)
        return;
    char line[1024];
    int k = snprintf(line, sizeof line, "%ld ", (long)getpid());
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + k, sizeof line - (size_t)k - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)k + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(g.logfd, line, len);
    (void)w;
}

/* Initialised in this very process (not inherited through fork). */
static CUresult live(void)
{
    if (!g.inited || g.init_pid != getpid())
        return CUDA_ERROR_NOT_INITIALIZED;
    return CUDA_SUCCESS;
}

/* The current context, usable. */
static CUresult need_ctx(CUcontext *out)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    if (!current || !current->alive)
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = current;
    return current->sticky;
}

static unsigned char *device_bytes(CUcontext c, CUdeviceptr p, size_t n);

/* The device's compute capability as 10 x major + minor. */
static int device_sm(void)
{
    return getenv(FAKECUDA_SM90_ENV) ? 90 : FAKECUDA_CC_MAJOR * 10 + FAKECUDA_CC_MINOR;
}

/* Whether the host has satisfied the stream's wait by now (a wait on
 * memory since freed is never satisfied). */
static bool gate_open(CUcontext c)
{
    if (!c->gated)
        return true;
    uint32_t v;
    const unsigned char *p = device_bytes(c, c->gate_addr, sizeof v);
    if (!p)
        return false;
    memcpy(&v, p, sizeof v);
    if ((int32_t)(v - c->gate_value) < 0)
        return false;
    c->gated = false;
    flog("wait_released 0x%llx %u", (unsigned long long)c->gate_addr, c->gate_value);
    return true;
}

/* A synchronising call: report a pending kernel error (it sticks), or
 * block forever behind a hung kernel or an unsatisfied wait. */
static CUresult synchronize(CUcontext c, const char *what)
{
    if (c->sticky != CUDA_SUCCESS)
        return c->sticky;
    if (!gate_open(c)) {
        flog("blocked %s behind an unsatisfied wait", what);
        for (;;)
            pause();
    }
    if (c->hung) {
        flog("blocked %s", what);
        for (;;)
            pause();
    }
    if (c->pending != CUDA_SUCCESS) {
        c->sticky = c->pending;
        c->pending = CUDA_SUCCESS;
        flog("reported %d by %s", (int)c->sticky, what);
        return c->sticky;
    }
    return CUDA_SUCCESS;
}

/* Up to g.jitter_ns more for one launch (xorshift64). */
static double jitter(void)
{
    if (g.jitter_ns <= 0)
        return 0;
    g.jitter_state ^= g.jitter_state << 13;
    g.jitter_state ^= g.jitter_state >> 7;
    g.jitter_state ^= g.jitter_state << 17;
    return g.jitter_ns * (double)(g.jitter_state >> 11) / 9007199254740992.0;
}

static void advance(CUcontext c, double ns)
{
    if (!c->hung)
        c->now_ns += ns;
}

/* The host bytes behind [p, p + n) of one live allocation of ctx. */
static unsigned char *device_bytes(CUcontext c, CUdeviceptr p, size_t n)
{
    for (int i = 0; i < g.nallocs; i++) {
        alloc_t *a = &g.allocs[i];
        if (a->ctx == c && a->addr != 0 && p >= a->addr && p < a->addr + a->bytes) {
            if (n > a->bytes - (size_t)(p - a->addr))
                return NULL;
            return a->host + (p - a->addr);
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

static const struct {
    CUresult r;
    const char *name, *text;
} errors[] = {
    { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
    { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
    { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
    { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
    { CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library" },
    { CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
      "CUDA-capable device(s) is/are busy or unavailable" },
    { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
    { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
    { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
    { CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed" },
    { CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
      "the provided PTX was compiled with an unsupported toolchain." },
    { CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device" },
    { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
    { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
    { CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
    { CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
    { CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
      "too many resources requested for launch" },
    { CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated" },
    { CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure" },
    { CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
    { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

EXPORT CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].r == error) {
            *pStr = errors[i].name;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].r == error) {
            *pStr = errors[i].text;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

/* ------------------------------------------------------------------------ */
/* Initialisation, devices                                                  */
/* ------------------------------------------------------------------------ */

EXPORT CUresult CUDAAPI cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (g.inited && g.init_pid == getpid())
        return CUDA_SUCCESS;
    if (g.inited)               /* initialised by the parent before fork */
        return CUDA_ERROR_NOT_INITIALIZED;
    const char *logp = getenv(FAKECUDA_LOG_ENV);
    if (logp && *logp)
        g.logfd = open(logp, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    flog("init");
    const char *e = getenv(FAKECUDA_INIT_ERROR_ENV);
    if (e && *e) {
        CUresult r = (CUresult)atoi(e);
        flog("init_error %d", (int)r);
        return r;
    }
    const char *nd = getenv(FAKECUDA_DEVICES_ENV);
    g.ndev = nd && *nd ? atoi(nd) : 1;
    if (g.ndev < 0)
        g.ndev = 0;
    if (g.ndev > MAX_DEVICES)
        g.ndev = MAX_DEVICES;
    if (g.ndev == 0)
        return CUDA_ERROR_NO_DEVICE;
    g.wrong = getenv(FAKECUDA_WRONG_ENV) != NULL;
    const char *jit = getenv(FAKECUDA_JITTER_ENV);
    g.jitter_ns = jit ? atof(jit) : 0;
    g.jitter_state = 0x9e3779b97f4a7c15ULL;
    g.jit_fail = getenv(FAKECUDA_JIT_FAIL_ENV) != NULL;
    g.next_addr = FAKECUDA_DEVICE_BASE;
    for (int i = 0; i < MAX_DEVICES; i++)
        g.ctx[i].dev = i;
    g.inited = true;
    g.init_pid = getpid();
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = DRIVER_VERSION;
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    *count = g.ndev;
    return CUDA_SUCCESS;
}

static CUresult valid_device(CUdevice dev)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    return dev >= 0 && dev < g.ndev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = valid_device(ordinal);
    if (r != CUDA_SUCCESS)
        return r;
    *device = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult r = valid_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", FAKECUDA_NAME);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult r = valid_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pi || (int)attrib <= 0 || (int)attrib >= (int)CU_DEVICE_ATTRIBUTE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    int v = 0;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = FAKECUDA_MAX_THREADS_PER_BLOCK; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = FAKECUDA_SHARED_DEFAULT; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = FAKECUDA_CLOCK_KHZ; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = FAKECUDA_SM_COUNT; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = FAKECUDA_MEM_CLOCK_KHZ; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = FAKECUDA_BUS_BITS; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = FAKECUDA_L2_BYTES; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = device_sm() / 10; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = device_sm() % 10; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = FAKECUDA_SHARED_OPTIN; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = FAKECUDA_PCI_BUS + (int)dev; break;
    default: v = 0; break;
    }
    *pi = v;
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult r = valid_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = (size_t)FAKECUDA_TOTAL_MEM;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                 */
/* ------------------------------------------------------------------------ */

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult r = valid_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c = &g.ctx[dev];
    if (c->refs++ == 0) {
        c->alive = true;
        c->sticky = c->pending = CUDA_SUCCESS;
        c->hung = false;
        c->now_ns = 0;
    }
    flog("ctx_retain %d refs=%d", dev, c->refs);
    *pctx = c;
    return CUDA_SUCCESS;
}

static void destroy_context(struct CUctx_st *c);

static CUresult primary_release(CUdevice dev)
{
    CUresult r = valid_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    struct CUctx_st *c = &g.ctx[dev];
    if (c->refs <= 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (--c->refs == 0)
        destroy_context(c);
    return CUDA_SUCCESS;
}

#ifndef FAKECUDA_OLD_DRIVER
EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    return primary_release(dev);
}
#endif

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return primary_release(dev);
}

EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    if (ctx && (ctx < &g.ctx[0] || ctx >= &g.ctx[MAX_DEVICES] || !ctx->alive))
        return CUDA_ERROR_INVALID_CONTEXT;
    current = ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxSynchronize(void)
{
    CUcontext c;
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    if (!current || !current->alive)
        return CUDA_ERROR_INVALID_CONTEXT;
    c = current;
    flog("ctx_sync");
    return synchronize(c, "cuCtxSynchronize");
}

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */
/* ------------------------------------------------------------------------ */

/* A new entry in the allocation table, at a fresh device address. */
static alloc_t *new_alloc(CUcontext c, unsigned char *host, size_t bytes, bool pinned)
{
    if (g.nallocs == g.cap_allocs) {
        int cap = g.cap_allocs ? 2 * g.cap_allocs : 16;
        alloc_t *na = realloc(g.allocs, (size_t)cap * sizeof *na);
        if (!na)
            return NULL;
        g.allocs = na;
        g.cap_allocs = cap;
    }
    alloc_t *a = &g.allocs[g.nallocs++];
    a->addr = g.next_addr;
    a->bytes = bytes;
    a->host = host;
    a->ctx = c;
    a->pinned = pinned;
    /* 1 MiB aligned (the driver promises 256 bytes), never reused, with an
     * unmapped gap after each: an overrun or a stale pointer is refused. */
    g.next_addr += ((bytes + 0xfffff) & ~(CUdeviceptr)0xfffff) + 0x100000;
    g.used_bytes += bytes;
    return a;
}

EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (bytesize > FAKECUDA_TOTAL_MEM - g.used_bytes)
        return CUDA_ERROR_OUT_OF_MEMORY;
    unsigned char *host = malloc(bytesize);
    if (!host)
        return CUDA_ERROR_OUT_OF_MEMORY;
    /* Device memory is not cleared: what a previous owner left. */
    for (size_t i = 0; i < bytesize; i++)
        host[i] = (unsigned char)(0xA5 ^ (i * 131));
    alloc_t *a = new_alloc(c, host, bytesize, false);
    if (!a) {
        free(host);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *dptr = a->addr;
    flog("alloc 0x%llx %zu", (unsigned long long)a->addr, bytesize);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (dptr == 0)
        return CUDA_SUCCESS;
    for (int i = 0; i < g.nallocs; i++) {
        if (g.allocs[i].addr == dptr && g.allocs[i].ctx == c && !g.allocs[i].pinned) {
            flog("free 0x%llx %zu", (unsigned long long)dptr, g.allocs[i].bytes);
            g.used_bytes -= g.allocs[i].bytes;
            free(g.allocs[i].host);
            g.allocs[i] = g.allocs[--g.nallocs];
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    /* From pageable memory: the stream is synchronised first. */
    if ((r = synchronize(c, "cuMemcpyHtoD")) != CUDA_SUCCESS)
        return r;
    unsigned char *d = device_bytes(c, dstDevice, ByteCount);
    if (!d || (!srcHost && ByteCount))
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memcpy(d, srcHost, ByteCount);
    advance(c, FAKECUDA_OP_NS + (double)ByteCount / FAKECUDA_HOST_BYTES_PER_NS);
    flog("htod 0x%llx %zu", (unsigned long long)dstDevice, ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = synchronize(c, "cuMemcpyDtoH")) != CUDA_SUCCESS)
        return r;
    const unsigned char *s = device_bytes(c, srcDevice, ByteCount);
    if (!s || (!dstHost && ByteCount))
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memcpy(dstHost, s, ByteCount);
    advance(c, FAKECUDA_OP_NS + (double)ByteCount / FAKECUDA_HOST_BYTES_PER_NS);
    flog("dtoh 0x%llx %zu", (unsigned long long)srcDevice, ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    unsigned char *d = device_bytes(c, dstDevice, ByteCount);
    const unsigned char *s = device_bytes(c, srcDevice, ByteCount);
    if (!d || !s)
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memmove(d, s, ByteCount);
    advance(c, FAKECUDA_OP_NS + 2.0 * (double)ByteCount / FAKECUDA_DEVICE_BYTES_PER_NS);
    flog("dtod 0x%llx 0x%llx %zu", (unsigned long long)dstDevice, (unsigned long long)srcDevice,
         ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    unsigned char *d = device_bytes(c, dstDevice, N);
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    if (N)
        memset(d, uc, N);
    advance(c, FAKECUDA_OP_NS + (double)N / FAKECUDA_DEVICE_BYTES_PER_NS);
    flog("memset8 0x%llx %u %zu", (unsigned long long)dstDevice, (unsigned)uc, N);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Modules: the "JIT"                                                       */
/* ------------------------------------------------------------------------ */

/* Copy text into a log buffer of `size` bytes (including the NUL);
 * returns the bytes filled, NUL included (0 when size is 0). */
static unsigned put_log(char *buf, unsigned size, const char *text)
{
    if (!buf || size == 0)
        return 0;
    size_t n = strlen(text);
    if (n > size - 1)
        n = size - 1;
    memcpy(buf, text, n);
    buf[n] = 0;
    return (unsigned)n + 1;
}

/* The names after every ".entry" of the PTX text. */
static int entries_of(const char *ptx, struct CUfunc_st **out)
{
    int n = 0, cap = 0;
    struct CUfunc_st *f = NULL;
    for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p + 6, ".entry")) {
        const char *q = p + 6;
        if (*q != ' ' && *q != '\t')
            continue;
        while (*q == ' ' || *q == '\t')
            q++;
        size_t len = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$");
        if (len == 0 || len >= sizeof f[0].name)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            struct CUfunc_st *nf = realloc(f, (size_t)cap * sizeof *nf);
            if (!nf) {
                free(f);
                return -1;
            }
            f = nf;
        }
        memset(&f[n], 0, sizeof f[n]);
        memcpy(f[n].name, q, len);
        f[n].name[len] = 0;
        n++;
    }
    *out = f;
    return n;
}

/* Bytes of a PTX type word such as ".b8", ".u32", ".f64" (0: not one). */
static size_t type_bytes(const char *t, size_t len)
{
    if (len < 3 || t[0] != '.' || !strchr("busf", t[1]))
        return 0;
    int bits = atoi(t + 2);
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? (size_t)bits / 8 : 0;
}

/* Little-endian words of an initializer "= 7;" or "= {1, 2, 3};" (decimal
 * or 0x integers, 0f/0d float bits) into the first words of var. */
static void parse_init(const char *q, const char *end, size_t word, unsigned char *var, size_t bytes)
{
    while (q < end && *q != '=')
        q++;
    size_t at = 0;
    for (q++; q < end && at + word <= bytes;) {
        while (q < end && (*q == ' ' || *q == '\t' || *q == '{' || *q == ','))
            q++;
        if (q >= end || *q == '}' || *q == ';')
            break;
        char *stop;
        unsigned long long v = (q[0] == '0' && (q[1] == 'f' || q[1] == 'd')) ? strtoull(q + 2, &stop, 16)
                                                                          : (unsigned long long)strtoll(q, &stop, 0);
        if (stop == q)
            break;
        for (size_t k = 0; k < word; k++)
            var[at + k] = (unsigned char)(v >> (8 * k));
        at += word;
        q = stop;
    }
}

/* The first `word` in [line, end), or NULL. */
static const char *find_in(const char *line, const char *end, const char *word)
{
    size_t n = strlen(word);
    for (const char *q = line; q + n <= end; q++)
        if (!memcmp(q, word, n))
            return q;
    return NULL;
}

/* The module-scope (outside any braces) .global and .const variables of
 * the PTX, allocated zeroed and initialised; .extern ones are not ours. */
static int globals_of(CUcontext c, const char *ptx, module_var **out)
{
    int n = 0, depth = 0;
    module_var *v = NULL;
    for (const char *line = ptx; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        const char *sp = NULL;
        bool outside = depth == 0;
        for (const char *q = line; q < end; q++)
            depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
        if (outside && !find_in(line, end, ".extern") && !find_in(line, end, ".entry") &&
            !find_in(line, end, ".func") &&
            ((sp = find_in(line, end, ".global ")) || (sp = find_in(line, end, ".const ")))) {
            size_t word = 0, count = 1;
            char name[128] = "";
            for (const char *q = sp; q < end && *q != '=' && *q != ';';) {
                size_t len = strcspn(q, " \t;=[\n");
                if (type_bytes(q, len))
                    word = type_bytes(q, len);
                else if (word && !name[0] && len && len < sizeof name && *q != '.')
                    memcpy(name, q, len);
                q += len;
                if (*q == '[') {
                    count = strtoull(q + 1, (char **)&q, 10);
                    q++;
                }
                while (q < end && (*q == ' ' || *q == '\t'))
                    q++;
            }
            module_var *nv = word && name[0] ? realloc(v, (size_t)(n + 1) * sizeof *v) : NULL;
            if (nv) {
                v = nv;
                memset(&v[n], 0, sizeof v[n]);
                memcpy(v[n].name, name, sizeof v[n].name);
                v[n].bytes = word * count;
                unsigned char *host = calloc(v[n].bytes ? v[n].bytes : 1, 1);
                alloc_t *a = host ? new_alloc(c, host, v[n].bytes ? v[n].bytes : 1, false) : NULL;
                if (!a) {
                    free(host);
                    free(v);
                    return -1;
                }
                parse_init(sp, end, word, host, v[n].bytes);
                v[n].addr = a->addr;
                n++;
            }
        }
        line = *end ? end + 1 : end;
    }
    *out = v;
    return n;
}

/* The newest PTX ISA (major * 10 + minor) a driver of CUDA `v` reads:
 * NVIDIA's PTX release history (ISA 7.x from CUDA 11.x, 8.0-8.5 from
 * 12.0-12.5, 8.6 from 12.7, 8.7 from 12.8, 8.8 from 12.9, 9.x from 13.x). */
static int max_ptx_isa(int v)
{
    static const int table[][2] = {
        { 13000, 90 }, { 12090, 88 }, { 12080, 87 }, { 12070, 86 }, { 12050, 85 }, { 12040, 84 },
        { 12030, 83 }, { 12020, 82 }, { 12010, 81 }, { 12000, 80 }, { 11000, 70 },
    };
    if (v >= 13000)
        return 90 + (v % 1000) / 10;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (v >= table[i][0])
            return table[i][0] >= 12000 ? table[i][1] : 70 + (v % 1000) / 10;
    return 0;
}

/* 1-based line of position p in text. */
static int line_of(const char *text, const char *p)
{
    int line = 1;
    for (const char *s = text; s < p; s++)
        line += *s == '\n';
    return line;
}

/* ptxas on the text: CUDA_SUCCESS when it assembles, else the error and
 * its log (ptxas's own wording). */
static CUresult assemble(const char *ptx, char *log, size_t n)
{
    static const char abort_line[] = "ptxas fatal   : Ptx assembly aborted due to errors\n";
    log[0] = 0;
    const char *p = ptx;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    const char *v = strstr(ptx, ".version");
    int vmaj = 0, vmin = 0;
    if ((strncmp(p, "//", 2) != 0 && strncmp(p, ".version", 8) != 0) || !v ||
        sscanf(v, ".version %d.%d", &vmaj, &vmin) != 2) {
        snprintf(log, n, "ptxas application ptx input, line 1; fatal   : Missing .version directive "
                 "at start of file\n%s", abort_line);
        return CUDA_ERROR_INVALID_PTX;
    }
    int have = max_ptx_isa(DRIVER_VERSION);
    if (vmaj * 10 + vmin > have) {
        snprintf(log, n, "ptxas application ptx input, line %d; fatal   : Unsupported .version %d.%d; "
                 "current version is '%d.%d'\n%s", line_of(ptx, v), vmaj, vmin, have / 10, have % 10,
                 abort_line);
        return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    }
    const char *t = strstr(ptx, ".target");
    int sm = 0;
    if (t && sscanf(t, ".target sm_%d", &sm) == 1 && sm > device_sm()) {
        snprintf(log, n, "ptxas application ptx input, line %d; error   : SM version specified by "
                 ".target is higher than default SM version assumed\n%s", line_of(ptx, t), abort_line);
        return CUDA_ERROR_INVALID_PTX;
    }
    size_t bl = strlen(FAKECUDA_BAD_OPCODE);
    for (const char *s = ptx; *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        const char *w = s;
        while (w < s + len && (*w == ' ' || *w == '\t'))
            w++;
        if ((size_t)(s + len - w) >= bl && strncmp(w, FAKECUDA_BAD_OPCODE, bl) == 0 &&
            (w + bl == s + len || w[bl] == ' ' || w[bl] == '\t' || w[bl] == '.' || w[bl] == ';')) {
            snprintf(log, n, "ptxas application ptx input, line %d; error   : Not a name of any known "
                     "instruction: '%s'\n%s", line_of(ptx, s), FAKECUDA_BAD_OPCODE, abort_line);
            return CUDA_ERROR_INVALID_PTX;
        }
        if (!e)
            break;
        s = e + 1;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                           CUjit_option *options, void **optionValues)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!module || !image || (numOptions && (!options || !optionValues)))
        return CUDA_ERROR_INVALID_VALUE;
    char *info = NULL, *error = NULL;
    unsigned info_size = 0, error_size = 0;
    int info_size_at = -1, error_size_at = -1;
    bool verbose = false;
    for (unsigned i = 0; i < numOptions; i++) {
        switch (options[i]) {
        case CU_JIT_INFO_LOG_BUFFER: info = optionValues[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER: error = optionValues[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            info_size = (unsigned)(uintptr_t)optionValues[i];
            info_size_at = (int)i;
            break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            error_size = (unsigned)(uintptr_t)optionValues[i];
            error_size_at = (int)i;
            break;
        case CU_JIT_LOG_VERBOSE: verbose = (int)(uintptr_t)optionValues[i] != 0; break;
        default:
            if ((int)options[i] < 0 || (int)options[i] >= (int)CU_JIT_NUM_OPTIONS)
                return CUDA_ERROR_INVALID_VALUE;
            break;              /* accepted, no effect here */
        }
    }
    char errlog[512], infolog[512] = "";
    CUresult jr = CUDA_ERROR_INVALID_PTX;
    if (g.jit_fail)
        snprintf(errlog, sizeof errlog, "%s\n", FAKECUDA_JIT_FORCED_ERROR);
    else
        jr = assemble(image, errlog, sizeof errlog);
    bool failed = errlog[0] != 0;
    struct CUfunc_st *funcs = NULL;
    int nf = 0;
    if (!failed) {
        nf = entries_of(image, &funcs);
        if (nf < 0)
            return CUDA_ERROR_OUT_OF_MEMORY;
        if (verbose) {
            size_t k = (size_t)snprintf(infolog, sizeof infolog, "ptxas info    : 0 bytes gmem\n");
            for (int i = 0; i < nf && k < sizeof infolog; i++)
                k += (size_t)snprintf(infolog + k, sizeof infolog - k,
                                      "ptxas info    : Compiling entry function '%s' for 'sm_%d%d'\n",
                                      funcs[i].name, device_sm() / 10, device_sm() % 10);
        }
    } else {
        snprintf(infolog, sizeof infolog, "ptxas info    : 0 bytes gmem\n");
    }
    /* Both logs are always written (an empty string when there is nothing
     * to say), and the sizes become what was filled. */
    unsigned fi = put_log(info, info_size, infolog);
    unsigned fe = put_log(error, error_size, errlog);
    if (info_size_at >= 0)
        optionValues[info_size_at] = (void *)(uintptr_t)fi;
    if (error_size_at >= 0)
        optionValues[error_size_at] = (void *)(uintptr_t)fe;
    if (failed) {
        flog("jit fail %d", (int)jr);
        return jr;
    }
    struct CUmod_st *m = calloc(1, sizeof *m);
    if (!m) {
        free(funcs);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->ctx = c;
    m->nfuncs = nf;
    m->funcs = funcs;
    m->nvars = globals_of(c, image, &m->vars);
    if (m->nvars < 0) {
        free(funcs);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    g.live_modules++;
    *module = m;
    flog("jit ok %d entries", nf);
    return CUDA_SUCCESS;
}

static void free_module_var(CUdeviceptr addr)
{
    for (int i = 0; i < g.nallocs; i++)
        if (g.allocs[i].addr == addr) {
            g.used_bytes -= g.allocs[i].bytes;
            free(g.allocs[i].host);
            g.allocs[i] = g.allocs[--g.nallocs];
            return;
        }
}

EXPORT CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!hmod || hmod->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    for (int v = 0; v < hmod->nvars; v++)
        if (!strcmp(hmod->vars[v].name, name)) {
            if (dptr)
                *dptr = hmod->vars[v].addr;
            if (bytes)
                *bytes = hmod->vars[v].bytes;
            flog("module_global %s 0x%llx %zu", name, (unsigned long long)hmod->vars[v].addr,
                 hmod->vars[v].bytes);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!hmod || hmod->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    for (int v = 0; v < hmod->nvars; v++)
        free_module_var(hmod->vars[v].addr);
    free(hmod->vars);
    free(hmod->funcs);
    free(hmod);
    g.live_modules--;
    flog("module_unload");
    return CUDA_SUCCESS;
}

/* --- CUDA arrays and texture objects --------------------------------------- */

static size_t format_bytes(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0;
    }
}

EXPORT CUresult CUDAAPI cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    size_t eb = d ? format_bytes(d->Format) * d->NumChannels : 0;
    bool layered = d && (d->Flags & CUDA_ARRAY3D_LAYERED), cube = d && (d->Flags & CUDA_ARRAY3D_CUBEMAP);
    if (!pHandle || !d || !eb || d->Width == 0 || (d->Depth && !d->Height && !layered) ||
        (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4) ||
        (cube && (d->Width != d->Height || d->Depth % 6 || (!layered && d->Depth != 6))) || (layered && !d->Depth))
        return CUDA_ERROR_INVALID_VALUE;
    struct CUarray_st *a = calloc(1, sizeof *a);
    size_t n = d->Width * (d->Height ? d->Height : 1) * (d->Depth ? d->Depth : 1);
    if (!a || !(a->host = calloc(n, eb))) {
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->ctx = c;
    a->desc = *d;
    a->elem_bytes = eb;
    a->bytes = n * eb;
    *pHandle = a;
    flog("array_create %zu %zu %zu fmt %d ch %u flags %u", d->Width, d->Height, d->Depth, (int)d->Format,
         d->NumChannels, d->Flags);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuArrayDestroy(CUarray hArray)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!hArray || hArray->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    free(hArray->host);
    free(hArray);
    flog("array_destroy");
    return CUDA_SUCCESS;
}

/* Level k's size of a dimension of n elements (0: the array lacks it). */
static size_t level_size(size_t n, unsigned k)
{
    return n == 0 ? 0 : n >> k > 1 ? n >> k : 1;
}

EXPORT CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray h)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!h || h->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    for (unsigned k = 0; k < h->levels; k++)
        if (h->level[k]) {
            free(h->level[k]->host);
            free(h->level[k]);
        }
    free(h);
    flog("mipmap_destroy");
    return CUDA_SUCCESS;
}

/* As many levels as the largest dimension halves through, each an array
 * of the descriptor's format (no flags: the mipmapped arrays warphunt
 * makes). */
EXPORT CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d,
                                               unsigned int levels)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    size_t largest = d ? d->Width : 0;
    largest = d && d->Height > largest ? d->Height : largest;
    largest = d && d->Depth > largest ? d->Depth : largest;
    if (!pHandle || !d || d->Flags || levels < 1 || levels > FAKECUDA_MAX_LEVELS || !largest ||
        largest >> (levels - 1) < 1)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUmipmappedArray_st *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->ctx = c;
    for (unsigned k = 0; k < levels; k++) {
        CUDA_ARRAY3D_DESCRIPTOR lk = *d;
        lk.Width = level_size(d->Width, k);
        lk.Height = level_size(d->Height, k);
        lk.Depth = level_size(d->Depth, k);
        r = cuArray3DCreate_v2(&m->level[k], &lk);
        m->levels = k + (r == CUDA_SUCCESS);
        if (r != CUDA_SUCCESS) {
            cuMipmappedArrayDestroy(m);
            return r;
        }
    }
    *pHandle = m;
    flog("mipmap_create %zu %zu %zu levels %u", d->Width, d->Height, d->Depth, levels);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMipmappedArrayGetLevel(CUarray *pLevelArray, CUmipmappedArray h, unsigned int level)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!h || h->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pLevelArray || level >= h->levels)
        return CUDA_ERROR_INVALID_VALUE;
    *pLevelArray = h->level[level];
    return CUDA_SUCCESS;
}

/* Packed rows of linear memory (host or device) into or out of an array:
 * what warphunt copies. */
static unsigned char *linear_side(CUcontext c, CUmemorytype type, const void *host, CUdeviceptr dev, size_t bytes)
{
    if (type == CU_MEMORYTYPE_HOST)
        return (unsigned char *)host;
    return type == CU_MEMORYTYPE_DEVICE ? device_bytes(c, dev, bytes) : NULL;
}

EXPORT CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D *p)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p || (p->srcMemoryType == CU_MEMORYTYPE_ARRAY) == (p->dstMemoryType == CU_MEMORYTYPE_ARRAY) ||
        p->srcXInBytes || p->srcY || p->srcZ || p->dstXInBytes || p->dstY || p->dstZ)
        return CUDA_ERROR_NOT_SUPPORTED;
    bool into = p->dstMemoryType == CU_MEMORYTYPE_ARRAY;
    const struct CUarray_st *a = into ? p->dstArray : p->srcArray;
    size_t pitch = into ? p->srcPitch : p->dstPitch;
    size_t h = p->Height ? p->Height : 1, dep = p->Depth ? p->Depth : 1;
    if (!a || a->ctx != c || p->WidthInBytes != a->desc.Width * a->elem_bytes || pitch != p->WidthInBytes ||
        h != (a->desc.Height ? a->desc.Height : 1) || dep != (a->desc.Depth ? a->desc.Depth : 1))
        return CUDA_ERROR_INVALID_VALUE;
    unsigned char *lin = into ? linear_side(c, p->srcMemoryType, p->srcHost, p->srcDevice, a->bytes)
                              : linear_side(c, p->dstMemoryType, p->dstHost, p->dstDevice, a->bytes);
    if (!lin)
        return CUDA_ERROR_INVALID_VALUE;
    if (into)
        memcpy(a->host, lin, a->bytes);
    else
        memcpy(lin, a->host, a->bytes);
    flog("memcpy3d_%s %zu %zu %zu", into ? (p->srcMemoryType == CU_MEMORYTYPE_HOST ? "htoa" : "dtoa")
                                          : (p->dstMemoryType == CU_MEMORYTYPE_HOST ? "atoh" : "atod"),
         p->WidthInBytes, h, dep);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject *obj, const CUDA_RESOURCE_DESC *res)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!obj || !res || res->flags || res->resType != CU_RESOURCE_TYPE_ARRAY || !res->res.array.hArray ||
        res->res.array.hArray->ctx != c || !(res->res.array.hArray->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST))
        return CUDA_ERROR_INVALID_VALUE;
    for (int k = 0; k < FAKECUDA_MAX_TEXTURES; k++)
        if (!g.tex[k].live) {
            g.tex[k] = (fake_texture){ .live = true, .surface = true, .ctx = c, .res = *res };
            *obj = (CUsurfObject)(k + 1);
            flog("surf_create %d", k + 1);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject obj)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (obj < 1 || obj > FAKECUDA_MAX_TEXTURES || !g.tex[obj - 1].live || !g.tex[obj - 1].surface ||
        g.tex[obj - 1].ctx != c)
        return CUDA_ERROR_INVALID_VALUE;
    g.tex[obj - 1].live = false;
    flog("surf_destroy %llu", (unsigned long long)obj);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuTexObjectCreate(CUtexObject *obj, const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *td,
                                          const CUDA_RESOURCE_VIEW_DESC *view)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!obj || !res || !td || view || res->flags)
        return CUDA_ERROR_INVALID_VALUE;
    if (res->resType == CU_RESOURCE_TYPE_LINEAR) {
        const unsigned ch = res->res.linear.numChannels;
        size_t eb = format_bytes(res->res.linear.format) * ch;
        if (!eb || (ch != 1 && ch != 2 && ch != 4) || res->res.linear.devPtr % 512 ||
            res->res.linear.sizeInBytes % eb ||
            !device_bytes(c, res->res.linear.devPtr, res->res.linear.sizeInBytes))
            return CUDA_ERROR_INVALID_VALUE;
    } else if (res->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
        const struct CUmipmappedArray_st *m = res->res.mipmap.hMipmappedArray;
        if (!m || m->ctx != c || td->maxMipmapLevelClamp > (float)(m->levels - 1))
            return CUDA_ERROR_INVALID_VALUE;
    } else if (res->resType != CU_RESOURCE_TYPE_ARRAY || !res->res.array.hArray || res->res.array.hArray->ctx != c) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (int k = 0; k < FAKECUDA_MAX_TEXTURES; k++)
        if (!g.tex[k].live) {
            g.tex[k] = (fake_texture){ .live = true, .ctx = c, .res = *res, .td = *td };
            *obj = (CUtexObject)(k + 1);
            flog("tex_create %d %s flags %u filter %d address %d %d %d", k + 1,
                 res->resType == CU_RESOURCE_TYPE_LINEAR            ? "linear"
                 : res->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY ? "mipmap"
                                                                    : "array",
                 td->flags, (int)td->filterMode,
                 (int)td->addressMode[0], (int)td->addressMode[1], (int)td->addressMode[2]);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuTexObjectDestroy(CUtexObject obj)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (obj < 1 || obj > FAKECUDA_MAX_TEXTURES || !g.tex[obj - 1].live || g.tex[obj - 1].surface ||
        g.tex[obj - 1].ctx != c)
        return CUDA_ERROR_INVALID_VALUE;
    g.tex[obj - 1].live = false;
    flog("tex_destroy %llu", (unsigned long long)obj);
    return CUDA_SUCCESS;
}

/* --- the kernels the fake can run ----------------------------------------- */

typedef enum { RUN_OK, RUN_FAULT, RUN_HANG } run_outcome;

struct fake_kernel {
    const char *name;
    int nparams;
    int regs;
    int static_shared;          /* bytes of .shared the kernel declares */
    /* Runs the whole grid; *code receives the error of a fault; *ns the
     * kernel's cost on the virtual clock. */
    run_outcome (*run)(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                       void **params, CUresult *code, double *ns);
};

static run_outcome inc(CUcontext c, const unsigned grid[3], const unsigned block[3], void **params,
                       bool modes, CUresult *code, double *ns)
{
    CUdeviceptr data, out;
    int n;
    memcpy(&data, params[0], sizeof data);
    memcpy(&out, params[1], sizeof out);
    memcpy(&n, params[2], sizeof n);
    double cost = FAKECUDA_KERNEL_NS;
    for (unsigned bz = 0; bz < grid[2]; bz++)
        for (unsigned by = 0; by < grid[1]; by++)
            for (unsigned bx = 0; bx < grid[0]; bx++)
                for (unsigned tz = 0; tz < block[2]; tz++)
                    for (unsigned ty = 0; ty < block[1]; ty++)
                        for (unsigned tx = 0; tx < block[0]; tx++) {
                            int i = (int)(bx * block[0] + tx);
                            if (i >= n)
                                continue;
                            cost += FAKECUDA_THREAD_NS;
                            unsigned char *pd = device_bytes(c, data + 4 * (CUdeviceptr)(int64_t)i, 4);
                            if (!pd) {
                                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                                return RUN_FAULT;
                            }
                            uint32_t v;
                            memcpy(&v, pd, 4);
                            if (modes && v == FAKECUDA_FAULT) {     /* the store through NULL */
                                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                                return RUN_FAULT;
                            }
                            if (modes && v == FAKECUDA_HANG)
                                return RUN_HANG;
                            if (modes && v == FAKECUDA_TRAP) {
                                *code = CUDA_ERROR_LAUNCH_FAILED;
                                return RUN_FAULT;
                            }
                            uint32_t w = v + 1;
                            memcpy(pd, &w, 4);
                            unsigned char *po = device_bytes(c, out + 4 * (CUdeviceptr)(int64_t)i, 4);
                            if (!po) {
                                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                                return RUN_FAULT;
                            }
                            uint32_t o;
                            memcpy(&o, po, 4);
                            o += g.wrong ? v + 2 : v + 1;
                            memcpy(po, &o, 4);
                        }
    *ns = cost;
    return RUN_OK;
}

static run_outcome run_fake_inc(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                void **params, CUresult *code, double *ns)
{
    return inc(c, grid, block, params, true, code, ns);
}

static run_outcome run_fake_inc_smem(CUcontext c, CUmodule mod, const unsigned grid[3],
                                     const unsigned block[3], void **params, CUresult *code, double *ns)
{
    return inc(c, grid, block, params, false, code, ns);
}

/* tests/ptx/struct_byval.cu in C: its fourth parameter is a 32-byte
 * struct passed by value, which the engine must hand over whole. */
static run_outcome run_struct_byval(CUcontext c, CUmodule mod, const unsigned grid[3],
                                    const unsigned block[3], void **params, CUresult *code, double *ns)
{
    CUdeviceptr in, out, flags;
    struct {
        float scale, offset;
        int lo, hi;
        double unused_pad;
        char tag;
    } cfg;
    int n;
    memcpy(&in, params[0], sizeof in);
    memcpy(&out, params[1], sizeof out);
    memcpy(&flags, params[2], sizeof flags);
    memcpy(&cfg, params[3], sizeof cfg);
    memcpy(&n, params[4], sizeof n);
    double cost = FAKECUDA_KERNEL_NS;
    for (unsigned bx = 0; bx < grid[0]; bx++)
        for (unsigned tx = 0; tx < block[0]; tx++) {
            int i = (int)(bx * block[0] + tx);
            if (i >= n)
                continue;
            cost += FAKECUDA_THREAD_NS;
            unsigned char *pi = device_bytes(c, in + 4 * (CUdeviceptr)i, 4);
            unsigned char *po = device_bytes(c, out + 4 * (CUdeviceptr)i, 4);
            unsigned char *pf = device_bytes(c, flags + (CUdeviceptr)i, 1);
            if (!pi || !po || !pf) {
                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                return RUN_FAULT;
            }
            int x;
            memcpy(&x, pi, 4);
            int v = (int)(cfg.scale * (float)x + cfg.offset);
            v = v < cfg.lo ? cfg.lo : v > cfg.hi ? cfg.hi : v;
            memcpy(po, &v, 4);
            *pf = (unsigned char)(cfg.tag + (v == cfg.hi));
        }
    *ns = cost;
    return RUN_OK;
}

/* The device bytes of module variable `name` (n of them), or NULL. */
static unsigned char *var_bytes(CUcontext c, CUmodule mod, const char *name, size_t at, size_t n)
{
    for (int v = 0; v < mod->nvars; v++)
        if (!strcmp(mod->vars[v].name, name))
            return at + n <= mod->vars[v].bytes ? device_bytes(c, mod->vars[v].addr + at, n) : NULL;
    return NULL;
}

/* tests/ptx/module_inputs.cu in C: trip counts in the __constant__ array
 * trips, terms in weights, sums into total, thread 0 counts in hits; a
 * thread costs FAKECUDA_THREAD_NS per term. */
static run_outcome run_module_inputs(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                     void **params, CUresult *code, double *ns)
{
    CUdeviceptr out;
    int n;
    memcpy(&out, params[0], sizeof out);
    memcpy(&n, params[1], sizeof n);
    unsigned char *total = var_bytes(c, mod, "total", 0, 8), *hits = var_bytes(c, mod, "hits", 0, 4);
    double cost = FAKECUDA_KERNEL_NS;
    for (unsigned bx = 0; bx < grid[0]; bx++)
        for (unsigned tx = 0; tx < block[0]; tx++) {
            int i = (int)(bx * block[0] + tx), t, acc = 0;
            if (i >= n)
                continue;
            unsigned char *pt = var_bytes(c, mod, "trips", 4 * (tx & 31), 4);
            unsigned char *po = device_bytes(c, out + 4 * (CUdeviceptr)i, 4);
            if (!pt || !po || !total || !hits) {
                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                return RUN_FAULT;
            }
            memcpy(&t, pt, 4);
            for (int k = 0; k < t; k++) {
                const unsigned char *pw = var_bytes(c, mod, "weights", 4 * (size_t)((i + k) & 63), 4);
                int w;
                if (!pw) {
                    *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                    return RUN_FAULT;
                }
                memcpy(&w, pw, 4);
                acc += w;
            }
            cost += FAKECUDA_THREAD_NS * (1 + (t > 0 ? t : 0));
            memcpy(po, &acc, 4);
            uint64_t sum;
            memcpy(&sum, total, 8);
            sum += (uint32_t)acc;
            memcpy(total, &sum, 8);
            if (i == 0) {
                int h;
                memcpy(&h, hits, 4);
                h++;
                memcpy(hits, &h, 4);
            }
        }
    *ns = cost;
    return RUN_OK;
}

/* tests/ptx/textures.cu's tex_gather in C: tex1Dfetch of a 1-channel s32
 * texture over linear memory read as integers (0 past its end); a thread
 * costs FAKECUDA_THREAD_NS per loop iteration. */
static run_outcome run_tex_gather(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                  void **params, CUresult *code, double *ns)
{
    CUtexObject t;
    CUdeviceptr idx, out;
    int n;
    memcpy(&t, params[0], sizeof t);
    memcpy(&idx, params[1], sizeof idx);
    memcpy(&out, params[2], sizeof out);
    memcpy(&n, params[3], sizeof n);
    const fake_texture *tx = t >= 1 && t <= FAKECUDA_MAX_TEXTURES ? &g.tex[t - 1] : NULL;
    if (!tx || !tx->live || tx->ctx != c || tx->res.resType != CU_RESOURCE_TYPE_LINEAR ||
        tx->res.res.linear.format != CU_AD_FORMAT_SIGNED_INT32 || tx->res.res.linear.numChannels != 1 ||
        !(tx->td.flags & CU_TRSF_READ_AS_INTEGER)) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    int64_t texels = (int64_t)(tx->res.res.linear.sizeInBytes / 4);
    double cost = FAKECUDA_KERNEL_NS;
    for (unsigned bx = 0; bx < grid[0]; bx++)
        for (unsigned tx_ = 0; tx_ < block[0]; tx_++) {
            int i = (int)(bx * block[0] + tx_), j, v = 0, acc = 0;
            if (i >= n)
                continue;
            unsigned char *pi = device_bytes(c, idx + 4 * (CUdeviceptr)i, 4);
            unsigned char *po = device_bytes(c, out + 4 * (CUdeviceptr)i, 4);
            if (!pi || !po) {
                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                return RUN_FAULT;
            }
            memcpy(&j, pi, 4);
            if (j >= 0 && j < texels)
                memcpy(&v, device_bytes(c, tx->res.res.linear.devPtr + 4 * (CUdeviceptr)j, 4), 4);
            for (int k = 0; k < (v & 15); k++)
                acc += k ^ j;
            acc += v;
            cost += FAKECUDA_THREAD_NS * (1 + (v & 15));
            memcpy(po, &acc, 4);
        }
    *ns = cost;
    return RUN_OK;
}

/* The CUDA array behind surface object parameter `param` when it is a live
 * surface of `channels` elements of `format` in context c, else NULL. */
static struct CUarray_st *surface_array(CUcontext c, const void *param, CUarray_format format, unsigned channels)
{
    CUsurfObject so;
    memcpy(&so, param, sizeof so);
    const fake_texture *s = so >= 1 && so <= FAKECUDA_MAX_TEXTURES ? &g.tex[so - 1] : NULL;
    struct CUarray_st *a = s && s->live && s->surface && s->ctx == c ? s->res.res.array.hArray : NULL;
    return a && a->desc.Format == format && a->desc.NumChannels == channels ? a : NULL;
}

/* ... of 1-channel s32 elements. */
static struct CUarray_st *int_surface(CUcontext c, const void *param)
{
    return surface_array(c, param, CU_AD_FORMAT_SIGNED_INT32, 1);
}

/* tests/ptx/textures.cu's surf_walk in C over a 2-D s32 surface object:
 * each column walked from row 0, its step count written into row 0 and
 * out; a cell out of bounds (a walk never leaves) faults as .trap would. */
static run_outcome run_surf_walk(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                 void **params, CUresult *code, double *ns)
{
    CUdeviceptr out;
    int w, h;
    memcpy(&out, params[1], sizeof out);
    memcpy(&w, params[2], sizeof w);
    memcpy(&h, params[3], sizeof h);
    const struct CUarray_st *a = int_surface(c, params[0]);
    if (!a || (int)a->desc.Width < w || (int)a->desc.Height < h) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    int *cells = (int *)(void *)a->host;
    double cost = FAKECUDA_KERNEL_NS;
    for (unsigned bx = 0; bx < grid[0]; bx++)
        for (unsigned tx = 0; tx < block[0]; tx++) {
            int x = (int)(bx * block[0] + tx), y = 0, steps = 0;
            if (x >= w)
                continue;
            int v = cells[x];
            while (v > 0 && steps < 16) {
                y = (y + (v & 3) + 1) % h;
                v = cells[y * (int)a->desc.Width + x];
                steps++;
            }
            cells[x] = steps;
            unsigned char *po = device_bytes(c, out + 4 * (CUdeviceptr)x, 4);
            if (!po) {
                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                return RUN_FAULT;
            }
            memcpy(po, &steps, 4);
            cost += FAKECUDA_THREAD_NS * (1 + steps);
        }
    *ns = cost;
    return RUN_OK;
}

/* tests/ptx/textures.cu's surf_gather in C for one warp: every thread's
 * .zero load, then thread 0's .clamp store of 1 + what it read. */
static run_outcome run_surf_gather(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                   void **params, CUresult *code, double *ns)
{
    CUdeviceptr idx, out;
    int n;
    memcpy(&idx, params[1], sizeof idx);
    memcpy(&out, params[2], sizeof out);
    memcpy(&n, params[3], sizeof n);
    const struct CUarray_st *a = int_surface(c, params[0]);
    if (!a || grid[0] * block[0] > 32) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    int *cells = (int *)(void *)a->host, w = (int)a->desc.Width, first = 0, v0 = 0;
    for (int i = 0; i < n && i < (int)block[0]; i++) {
        int j, v = 0;
        unsigned char *pi = device_bytes(c, idx + 4 * (CUdeviceptr)i, 4), *po = device_bytes(c, out + 4 * (CUdeviceptr)i, 4);
        if (!pi || !po) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        memcpy(&j, pi, 4);
        if (j >= 0 && j < w)
            v = cells[j];
        memcpy(po, &v, 4);
        if (i == 0)
            first = j, v0 = v;
    }
    if (n > 0)
        cells[first < 0 ? 0 : first >= w ? w - 1 : first] = v0 + 1;
    *ns = FAKECUDA_KERNEL_NS + FAKECUDA_THREAD_NS * n;
    return RUN_OK;
}

/* A device int at p + 4 i, read (out NULL: written from *v); false when
 * outside every allocation. */
static bool device_int(CUcontext c, CUdeviceptr p, int i, int *v, bool write)
{
    unsigned char *b = device_bytes(c, p + 4 * (CUdeviceptr)i, 4);
    if (!b)
        return false;
    if (write)
        memcpy(b, v, 4);
    else
        memcpy(v, b, 4);
    return true;
}

/* tests/ptx/textures.cu's surf_reduce in C for one warp: every lane's
 * sured.add (dropped past the end, .zero) and sured.min, then every
 * lane's reads of its column and its loop. */
static run_outcome run_surf_reduce(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                   void **params, CUresult *code, double *ns)
{
    CUdeviceptr bins, vals, count, least;
    int n, w;
    memcpy(&bins, params[1], sizeof bins);
    memcpy(&vals, params[2], sizeof vals);
    memcpy(&count, params[3], sizeof count);
    memcpy(&least, params[4], sizeof least);
    memcpy(&n, params[5], sizeof n);
    memcpy(&w, params[6], sizeof w);
    const struct CUarray_st *a = int_surface(c, params[0]);
    if (!a || grid[0] * block[0] > 32 || (int)a->desc.Width < w || a->desc.Height < 2 || n > 32 || w < 1) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    int *cells = (int *)(void *)a->host, stride = (int)a->desc.Width, b[32], v[32];
    double cost = FAKECUDA_KERNEL_NS;
    for (int i = 0; i < n; i++) {
        if (!device_int(c, bins, i, &b[i], false) || !device_int(c, vals, i, &v[i], false)) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        int col = b[i] < w ? b[i] : w - 1;
        if (b[i] >= 0 && b[i] < w)
            cells[b[i]]++;
        if (v[i] < cells[stride + col])
            cells[stride + col] = v[i];
    }
    for (int i = 0; i < n; i++) {
        int col = b[i] < w ? b[i] : w - 1, k = cells[col], m = cells[stride + col], acc = 0;
        for (int j = 0; j < (m & 7); j++)
            acc += j ^ k;
        int l = m + acc * 256;   /* acc may be negative: the kernel's shift, without C's undefined one */
        if (!device_int(c, count, i, &k, true) || !device_int(c, least, i, &l, true)) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        cost += FAKECUDA_THREAD_NS * (1 + (m & 7));
    }
    *ns = cost;
    return RUN_OK;
}

/* tests/ptx/textures.cu's surf_formatted in C for one warp, written from
 * the ISA's words on sust.p and sured.p (x counts texels; a uchar4 sample
 * takes each value as a u32, saturated here as the sim decides; an int
 * sample's reductions are signed): every lane's store and reductions, then
 * every lane's reads and its loop. */
static run_outcome run_surf_formatted(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                      void **params, CUresult *code, double *ns)
{
    CUdeviceptr vals, bins, packed, count, least;
    int n, w;
    memcpy(&vals, params[3], sizeof vals);
    memcpy(&bins, params[4], sizeof bins);
    memcpy(&packed, params[5], sizeof packed);
    memcpy(&count, params[6], sizeof count);
    memcpy(&least, params[7], sizeof least);
    memcpy(&n, params[8], sizeof n);
    memcpy(&w, params[9], sizeof w);
    const struct CUarray_st *px = surface_array(c, params[0], CU_AD_FORMAT_UNSIGNED_INT8, 4);
    const struct CUarray_st *cnt = int_surface(c, params[1]), *low = int_surface(c, params[2]);
    if (!px || !cnt || !low || grid[0] * block[0] > 32 || n > 32 || w < 1 || (int)px->desc.Width < n ||
        (int)cnt->desc.Width < w || (int)low->desc.Width < w) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    unsigned char *pix = px->host;
    int *cn = (int *)(void *)cnt->host, *lo = (int *)(void *)low->host, b[32], v[32];
    double cost = FAKECUDA_KERNEL_NS;
    for (int i = 0; i < n; i++) {
        if (!device_int(c, vals, i, &v[i], false) || !device_int(c, bins, i, &b[i], false)) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        unsigned rgba[4] = { (unsigned)v[i], 0u - (unsigned)v[i], (unsigned)i, 300u };
        for (int ch = 0; ch < 4; ch++)
            pix[4 * i + ch] = (unsigned char)(rgba[ch] > 255u ? 255u : rgba[ch]);
        int col = b[i] < w ? b[i] : w - 1;
        if (b[i] >= 0 && b[i] < w)
            cn[b[i]]++;
        if (v[i] < lo[col])
            lo[col] = v[i];
    }
    for (int i = 0; i < n; i++) {
        int col = b[i] < w ? b[i] : w - 1, k = cn[col], m = lo[col], acc = 0;
        unsigned word = (unsigned)pix[4 * i] | (unsigned)pix[4 * i + 1] << 8 | (unsigned)pix[4 * i + 2] << 16 |
                        (unsigned)pix[4 * i + 3] << 24;
        int trips = (int)(word & 7) + (m & 7);
        for (int j = 0; j < trips; j++)
            acc += j ^ k;
        int l = m + acc * 256, pw = (int)word;
        if (!device_int(c, packed, i, &pw, true) || !device_int(c, count, i, &k, true) ||
            !device_int(c, least, i, &l, true)) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        cost += FAKECUDA_THREAD_NS * (1 + trips);
    }
    *ns = cost;
    return RUN_OK;
}

/* tests/ptx/textures.cu's surf_layered in C: thread i reads row 0 of
 * column i in layer ls[i] (0 past the last layer), loops (v & 15) times,
 * and writes v + 1 into row 1 of column i in the last layer; a layered
 * array's or a cubemap's (whose faces are the layers). */
static run_outcome run_surf_layered(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                    void **params, CUresult *code, double *ns)
{
    CUdeviceptr ls, out;
    int w;
    memcpy(&ls, params[1], sizeof ls);
    memcpy(&out, params[2], sizeof out);
    memcpy(&w, params[3], sizeof w);
    const struct CUarray_st *a = int_surface(c, params[0]);
    if (!a || !(a->desc.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) || a->desc.Height < 2 ||
        (int)a->desc.Width < w || grid[0] * block[0] < (unsigned)w) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    int *cells = (int *)(void *)a->host, width = (int)a->desc.Width, h = (int)a->desc.Height;
    int layers = (int)a->desc.Depth;
    double cost = FAKECUDA_KERNEL_NS;
    for (int i = 0; i < w; i++) {
        unsigned char *pl = device_bytes(c, ls + 4 * (CUdeviceptr)i, 4), *po = device_bytes(c, out + 4 * (CUdeviceptr)i, 4);
        if (!pl || !po) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        int l, v, acc = 0;
        memcpy(&l, pl, 4);
        v = (unsigned)l < (unsigned)layers ? cells[l * h * width + i] : 0;
        for (int k = 0; k < (v & 15); k++)
            acc += k ^ v;
        acc += v;
        memcpy(po, &acc, 4);
        cells[((layers - 1) * h + 1) * width + i] = v + 1;
        cost += FAKECUDA_THREAD_NS * (1 + (v & 15));
    }
    *ns = cost;
    return RUN_OK;
}

/* One dimension of tld4's footprint: floor(x - 0.5) and the next texel,
 * clamped to [0, n). */
static void footprint(float x, int n, int at[2])
{
    float b = floorf(x - 0.5f);
    long i = b < -1e9f ? -1000000000L : b > 1e9f ? 1000000000L : (long)b;
    for (int k = 0; k < 2; k++) {
        long v = i + k;
        at[k] = v < 0 ? 0 : v >= n ? n - 1 : (int)v;
    }
}

/* tests/ptx/textures.cu's tex_gather4 in C: tex2Dgather of channel 0 from
 * a 1-channel s32 texture over a CUDA array made for gathers (without
 * CUDA_ARRAY3D_TEXTURE_GATHER it faults), clamped, unnormalized; the four
 * texels from the lower left, counter-clockwise; a thread costs
 * FAKECUDA_THREAD_NS per loop iteration. */
static run_outcome run_tex_gather4(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                   void **params, CUresult *code, double *ns)
{
    CUtexObject t;
    CUdeviceptr xs, ys, out;
    int n;
    memcpy(&t, params[0], sizeof t);
    memcpy(&xs, params[1], sizeof xs);
    memcpy(&ys, params[2], sizeof ys);
    memcpy(&out, params[3], sizeof out);
    memcpy(&n, params[4], sizeof n);
    const fake_texture *tx = t >= 1 && t <= FAKECUDA_MAX_TEXTURES ? &g.tex[t - 1] : NULL;
    const struct CUarray_st *a = tx && tx->live && !tx->surface && tx->ctx == c &&
                                         tx->res.resType == CU_RESOURCE_TYPE_ARRAY ? tx->res.res.array.hArray : NULL;
    if (!a || !(a->desc.Flags & CUDA_ARRAY3D_TEXTURE_GATHER) || a->desc.Format != CU_AD_FORMAT_SIGNED_INT32 ||
        a->desc.NumChannels != 1 || !a->desc.Height || a->desc.Depth || !(tx->td.flags & CU_TRSF_READ_AS_INTEGER)) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    const int *texels = (const int *)(const void *)a->host, w = (int)a->desc.Width, h = (int)a->desc.Height;
    double cost = FAKECUDA_KERNEL_NS;
    for (unsigned bx = 0; bx < grid[0]; bx++)
        for (unsigned tx_ = 0; tx_ < block[0]; tx_++) {
            int i = (int)(bx * block[0] + tx_);
            if (i >= n)
                continue;
            unsigned char *px = device_bytes(c, xs + 4 * (CUdeviceptr)i, 4), *py = device_bytes(c, ys + 4 * (CUdeviceptr)i, 4);
            unsigned char *po = device_bytes(c, out + 16 * (CUdeviceptr)i, 16);
            if (!px || !py || !po) {
                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                return RUN_FAULT;
            }
            float x, y;
            memcpy(&x, px, 4);
            memcpy(&y, py, 4);
            int ax[2], ay[2];
            footprint(x, w, ax);
            footprint(y, h, ay);
            int gv[4] = { texels[ay[1] * w + ax[0]], texels[ay[1] * w + ax[1]], texels[ay[0] * w + ax[1]],
                          texels[ay[0] * w + ax[0]] };
            int acc = 0, trips = (gv[0] & 7) + (gv[2] & 7);
            for (int k = 0; k < trips; k++)
                acc += k ^ gv[1];
            int o[4] = { gv[0], gv[1], gv[2], acc + gv[3] };
            memcpy(po, o, 16);
            cost += FAKECUDA_THREAD_NS * (1 + trips);
        }
    *ns = cost;
    return RUN_OK;
}

/* A 1-channel texture over a layered or cubemap CUDA array (its flags
 * checked), or NULL. */
static const struct CUarray_st *array_texture(CUcontext c, CUtexObject t, unsigned flags, CUarray_format fmt)
{
    const fake_texture *tx = t >= 1 && t <= FAKECUDA_MAX_TEXTURES ? &g.tex[t - 1] : NULL;
    const struct CUarray_st *a = tx && tx->live && !tx->surface && tx->ctx == c &&
                                         tx->res.resType == CU_RESOURCE_TYPE_ARRAY ? tx->res.res.array.hArray : NULL;
    return a && (a->desc.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) == flags && a->desc.Format == fmt &&
                   a->desc.NumChannels == 1 ? a : NULL;
}

/* floor(x) clamped to [0, n). */
static int clamped(float x, int n)
{
    float f = floorf(x);
    return f < 0 ? 0 : f >= (float)n ? n - 1 : (int)f;
}

/* The level nearest lod among a mipmapped array's (maxMipmapLevelClamp the
 * last), nearest-level filtering as warphunt's sim decides it. */
static unsigned nearest_level(float lod, float last)
{
    float k = floorf(lod + 0.5f);
    return !(k > 0.0f) ? 0u : k > last ? (unsigned)last : (unsigned)k;
}

/* Texel (x, y) of a 1-channel float array, point sampled at normalized
 * coordinates, clamped. */
static float float_texel(const struct CUarray_st *a, float x, float y)
{
    int w = (int)a->desc.Width, h = a->desc.Height ? (int)a->desc.Height : 1;
    float v;
    memcpy(&v, a->host + 4 * ((size_t)clamped(y * (float)h, h) * (size_t)w + (size_t)clamped(x * (float)w, w)), 4);
    return v;
}

/* tests/ptx/textures.cu's tex_mip in C: tex2DLod and tex2DGrad of a
 * 1-channel float mipmapped array at normalized coordinates, point sampled
 * and clamped, the nearest level to the level of detail (tex2DGrad's:
 * log2 of the longer gradient in level-0 texels; its gradients are (g, 0)
 * and (0, g)). */
static run_outcome run_tex_mip(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                               void **params, CUresult *code, double *ns)
{
    CUtexObject t;
    CUdeviceptr in[4], out, outg;
    int n;
    memcpy(&t, params[0], sizeof t);
    for (int k = 0; k < 4; k++)
        memcpy(&in[k], params[1 + k], sizeof in[k]);
    memcpy(&out, params[5], sizeof out);
    memcpy(&outg, params[6], sizeof outg);
    memcpy(&n, params[7], sizeof n);
    const fake_texture *tx = t >= 1 && t <= FAKECUDA_MAX_TEXTURES ? &g.tex[t - 1] : NULL;
    const struct CUmipmappedArray_st *m = tx && tx->live && !tx->surface && tx->ctx == c &&
                                                  tx->res.resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY
                                              ? tx->res.res.mipmap.hMipmappedArray : NULL;
    if (!m || m->level[0]->desc.Format != CU_AD_FORMAT_FLOAT || m->level[0]->desc.NumChannels != 1 ||
        !(tx->td.flags & CU_TRSF_NORMALIZED_COORDINATES) || tx->td.filterMode != CU_TR_FILTER_MODE_POINT ||
        tx->td.mipmapFilterMode != CU_TR_FILTER_MODE_POINT || grid[0] * block[0] > 1024) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    float w0 = (float)m->level[0]->desc.Width, h0 = (float)m->level[0]->desc.Height, last = tx->td.maxMipmapLevelClamp;
    double cost = FAKECUDA_KERNEL_NS;
    for (int i = 0; i < n && i < (int)(grid[0] * block[0]); i++) {
        float v[4];
        for (int k = 0; k < 4; k++) {
            unsigned char *p = device_bytes(c, in[k] + 4 * (CUdeviceptr)i, 4);
            if (!p) {
                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                return RUN_FAULT;
            }
            memcpy(&v[k], p, 4);
        }
        float gx = v[3] * w0, gy = v[3] * h0;
        float lod = fabsf(gx) > fabsf(gy) ? log2f(fabsf(gx)) : log2f(fabsf(gy));
        float a = float_texel(m->level[nearest_level(v[2], last)], v[0], v[1]);
        float b = float_texel(m->level[nearest_level(lod, last)], v[0], v[1]);
        int trips = ((int)a & 7) + ((int)b & 7);
        float o = a + 1000.0f * (float)trips;
        unsigned char *po = device_bytes(c, out + 4 * (CUdeviceptr)i, 4), *pg = device_bytes(c, outg + 4 * (CUdeviceptr)i, 4);
        if (!po || !pg) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        memcpy(po, &o, 4);
        memcpy(pg, &b, 4);
        cost += FAKECUDA_THREAD_NS * (1 + trips);
    }
    *ns = cost;
    return RUN_OK;
}

/* tests/ptx/textures.cu's tex_layered in C: tex2DLayered of a 1-channel
 * s32 layered array, point sampled, clamped, the layer clamped too. */
static run_outcome run_tex_layered(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                   void **params, CUresult *code, double *ns)
{
    CUtexObject t;
    CUdeviceptr xs, ys, ls, out;
    int n;
    memcpy(&t, params[0], sizeof t);
    memcpy(&xs, params[1], sizeof xs);
    memcpy(&ys, params[2], sizeof ys);
    memcpy(&ls, params[3], sizeof ls);
    memcpy(&out, params[4], sizeof out);
    memcpy(&n, params[5], sizeof n);
    const struct CUarray_st *a = array_texture(c, t, CUDA_ARRAY3D_LAYERED, CU_AD_FORMAT_SIGNED_INT32);
    if (!a || !a->desc.Height) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    const int *texels = (const int *)(const void *)a->host;
    int w = (int)a->desc.Width, h = (int)a->desc.Height, layers = (int)a->desc.Depth;
    double cost = FAKECUDA_KERNEL_NS;
    for (int i = 0; i < n && i < (int)(grid[0] * block[0]); i++) {
        float x, y;
        int l, acc = 0;
        unsigned char *px = device_bytes(c, xs + 4 * (CUdeviceptr)i, 4), *py = device_bytes(c, ys + 4 * (CUdeviceptr)i, 4);
        unsigned char *pl = device_bytes(c, ls + 4 * (CUdeviceptr)i, 4), *po = device_bytes(c, out + 4 * (CUdeviceptr)i, 4);
        if (!px || !py || !pl || !po) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        memcpy(&x, px, 4);
        memcpy(&y, py, 4);
        memcpy(&l, pl, 4);
        unsigned ul = (unsigned)l;
        int layer = ul >= (unsigned)layers ? layers - 1 : (int)ul;
        int v = texels[(layer * h + clamped(y, h)) * w + clamped(x, w)];
        for (int k = 0; k < (v & 7); k++)
            acc += k ^ v;
        int o = v + (acc << 8);
        memcpy(po, &o, 4);
        cost += FAKECUDA_THREAD_NS * (1 + (v & 7));
    }
    *ns = cost;
    return RUN_OK;
}

/* A cubemap's texel in direction (x, y, z): the face of the major axis
 * (+x -x +y -y +z -z), s and t as the CUDA guide's table says. */
static int cube_texel_index(int w, float x, float y, float z)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, sc, tc;
    int face;
    if (ax >= ay && ax >= az)
        face = x >= 0 ? 0 : 1, m = ax, sc = x >= 0 ? -z : z, tc = -y;
    else if (ay >= az)
        face = y >= 0 ? 2 : 3, m = ay, sc = x, tc = y >= 0 ? z : -z;
    else
        face = z >= 0 ? 4 : 5, m = az, sc = z >= 0 ? x : -x, tc = -y;
    float u = (sc / m + 1) / 2, v = (tc / m + 1) / 2;
    return (face * w + clamped(v * (float)w, w)) * w + clamped(u * (float)w, w);
}

/* tests/ptx/textures.cu's tex_cube in C: texCubemap and texCubemapLayered
 * of 1-channel f32 cubemap arrays, point sampled. */
static run_outcome run_tex_cube(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                void **params, CUresult *code, double *ns)
{
    CUtexObject t, ta;
    CUdeviceptr xs, ys, zs, ls, out;
    int n;
    memcpy(&t, params[0], sizeof t);
    memcpy(&ta, params[1], sizeof ta);
    memcpy(&xs, params[2], sizeof xs);
    memcpy(&ys, params[3], sizeof ys);
    memcpy(&zs, params[4], sizeof zs);
    memcpy(&ls, params[5], sizeof ls);
    memcpy(&out, params[6], sizeof out);
    memcpy(&n, params[7], sizeof n);
    const struct CUarray_st *a = array_texture(c, t, CUDA_ARRAY3D_CUBEMAP, CU_AD_FORMAT_FLOAT);
    const struct CUarray_st *al =
        array_texture(c, ta, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED, CU_AD_FORMAT_FLOAT);
    if (!a || !al) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    for (int i = 0; i < n && i < (int)(grid[0] * block[0]); i++) {
        float d[3], o[2];
        int l;
        CUdeviceptr at[3] = { xs, ys, zs };
        for (int k = 0; k < 3; k++) {
            unsigned char *pk = device_bytes(c, at[k] + 4 * (CUdeviceptr)i, 4);
            if (!pk) {
                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                return RUN_FAULT;
            }
            memcpy(&d[k], pk, 4);
        }
        unsigned char *pl = device_bytes(c, ls + 4 * (CUdeviceptr)i, 4), *po = device_bytes(c, out + 8 * (CUdeviceptr)i, 8);
        if (!pl || !po) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        memcpy(&l, pl, 4);
        unsigned layers = (unsigned)al->desc.Depth / 6, ul = (unsigned)l;
        int layer = ul >= layers ? (int)layers - 1 : (int)ul, wa = (int)al->desc.Width;
        o[0] = ((const float *)(const void *)a->host)[cube_texel_index((int)a->desc.Width, d[0], d[1], d[2])];
        o[1] = ((const float *)(const void *)al->host)[layer * 6 * wa * wa + cube_texel_index(wa, d[0], d[1], d[2])];
        memcpy(po, o, 8);
    }
    *ns = FAKECUDA_KERNEL_NS + FAKECUDA_THREAD_NS * n;
    return RUN_OK;
}

/* tests/ptx_sym/node_scan.cu in C: each thread folds its node's first
 * nkeys keys (struct node { int nkeys; int keys[4]; unsigned char leaf; },
 * 24 bytes), in 32-bit wrapping arithmetic as the PTX's mul.lo/add do. */
static run_outcome run_node_scan(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                 void **params, CUresult *code, double *ns)
{
    (void)mod;
    CUdeviceptr nodes, out;
    memcpy(&nodes, params[0], sizeof nodes);
    memcpy(&out, params[1], sizeof out);
    unsigned n = grid[0] * block[0];
    for (unsigned t = 0; t < n; t++) {
        CUdeviceptr node = nodes + 24 * (CUdeviceptr)t;
        unsigned char *pn = device_bytes(c, node, 4), *pl = device_bytes(c, node + 20, 1);
        unsigned char *po = device_bytes(c, out + 4 * (CUdeviceptr)t, 4);
        if (!pn || !pl || !po) {
            *code = CUDA_ERROR_ILLEGAL_ADDRESS;
            return RUN_FAULT;
        }
        int32_t nkeys;
        uint32_t acc = 0;
        memcpy(&nkeys, pn, 4);
        for (int32_t k = 0; k < nkeys; k++) {
            unsigned char *pk = device_bytes(c, node + 4 + 4 * (CUdeviceptr)k, 4);
            if (!pk) {
                *code = CUDA_ERROR_ILLEGAL_ADDRESS;
                return RUN_FAULT;
            }
            uint32_t key;
            memcpy(&key, pk, 4);
            acc = acc * 7u + key;
        }
        uint32_t v = *pl ? acc : 0u - acc;
        memcpy(po, &v, 4);
    }
    *ns = FAKECUDA_KERNEL_NS + FAKECUDA_THREAD_NS * n;
    return RUN_OK;
}

/* ------------------------------------------------------------------------ */
/* Tensor maps                                                              */
/* ------------------------------------------------------------------------ */

/* What the fake's cuTensorMapEncodeTiled writes into the opaque 128 bytes. */
typedef struct {
    uint32_t magic, rank;
    CUdeviceptr base;
    uint64_t dims[5], strides[5];   /* strides[k]: bytes between elements of dimension k */
    uint32_t box[5], elem_bytes, oob_nan;
} fake_tmap;
#define FAKECUDA_TMAP_MAGIC 0x544d4150u

static uint32_t tmap_elem_bytes(CUtensorMapDataType t)
{
    switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16: case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64: case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32: case CU_TENSOR_MAP_DATA_TYPE_INT32: case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ: case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
    default: return 0;   /* the packed sub-byte types: not modelled */
    }
}

/* The checks the driver API reference lists for the tiled form (without
 * interleave, which the fake does not model). */
static bool tmap_args_ok(const void *map, uint32_t es, cuuint32_t rank, const void *address, const cuuint64_t *dims,
                         const cuuint64_t *strides, const cuuint32_t *box, const cuuint32_t *estr,
                         CUtensorMapSwizzle swizzle, bool float_type, CUtensorMapFloatOOBfill fill)
{
    if (!map || (uintptr_t)map % 64 || !es || rank < 1 || rank > 5 || (uintptr_t)address % 16 || !dims || !box ||
        !estr || (rank > 1 && !strides) || swizzle > CU_TENSOR_MAP_SWIZZLE_128B ||
        (fill != CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE && !float_type))
        return false;
    for (cuuint32_t k = 0; k < rank; k++) {
        if (!dims[k] || dims[k] > (1ull << 32) || !box[k] || box[k] > 256 || !estr[k] || estr[k] > 8)
            return false;
        if (k + 1 < rank && (strides[k] % 16 || strides[k] >= (1ull << 40)))
            return false;
    }
    uint32_t inner = box[0] * es, span = swizzle ? 16u << swizzle : 0;
    return inner % 16 == 0 && (!span || inner <= span);
}

EXPORT CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                               cuuint32_t tensorRank, void *globalAddress,
                                               const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                               const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
                                               CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                               CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (device_sm() < 90)
        return CUDA_ERROR_NOT_SUPPORTED;
    (void)l2Promotion;
    uint32_t es = tmap_elem_bytes(tensorDataType);
    bool float_type = tensorDataType >= CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE ||
        !tmap_args_ok(tensorMap, es, tensorRank, globalAddress, globalDim, globalStrides, boxDim, elementStrides,
                      swizzle, float_type, oobFill))
        return CUDA_ERROR_INVALID_VALUE;
    for (cuuint32_t k = 0; k < tensorRank; k++)
        if (elementStrides[k] != 1)
            return CUDA_ERROR_NOT_SUPPORTED;   /* element strides: not modelled here */
    fake_tmap m = { FAKECUDA_TMAP_MAGIC, tensorRank, (CUdeviceptr)globalAddress, { 0 }, { 0 }, { 0 }, es,
                    oobFill != CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE };
    for (cuuint32_t k = 0; k < tensorRank; k++) {
        m.dims[k] = globalDim[k];
        m.box[k] = boxDim[k];
        m.strides[k] = k ? globalStrides[k - 1] : es;
    }
    memset(tensorMap, 0, sizeof *tensorMap);
    memcpy(tensorMap, &m, sizeof m);
    flog("tensor map rank %u dims %llu x %llu box %u x %u", tensorRank, (unsigned long long)m.dims[0],
         (unsigned long long)(tensorRank > 1 ? m.dims[1] : 1), m.box[0], tensorRank > 1 ? m.box[1] : 1);
    return CUDA_SUCCESS;
}

/* The i32 element of a 2-D fake map at (x, y), or NULL outside the tensor. */
static unsigned char *tmap_at(CUcontext c, const fake_tmap *m, int64_t x, int64_t y)
{
    if (x < 0 || y < 0 || (uint64_t)x >= m->dims[0] || (uint64_t)y >= m->dims[1])
        return NULL;
    return device_bytes(c, m->base + (CUdeviceptr)x * m->strides[0] + (CUdeviceptr)y * m->strides[1], 4);
}

/* tests/ptx_sym/tensor_tiles.cu in C, through the maps the fake encoded:
 * each block's 32 x 4 box of src at (32 (b % tiles_x) + 8, 4 (b / tiles_x)
 * + 1), zeros off the tensor; thread t loops (row 0, column t) & 7 times
 * summing box[k & 3][(t + k) & 31]; row 1 becomes the sums; the box goes
 * to dst where it lies inside the tensor.  A map that is not the fake's
 * 2-D i32 one faults. */
static run_outcome run_tensor_tiles(CUcontext c, CUmodule mod, const unsigned grid[3], const unsigned block[3],
                                    void **params, CUresult *code, double *ns)
{
    (void)mod;
    fake_tmap src, dst;
    int tiles_x;
    memcpy(&src, params[0], sizeof src);
    memcpy(&dst, params[1], sizeof dst);
    memcpy(&tiles_x, params[2], sizeof tiles_x);
    if (src.magic != FAKECUDA_TMAP_MAGIC || dst.magic != FAKECUDA_TMAP_MAGIC || src.rank != 2 || dst.rank != 2 ||
        src.elem_bytes != 4 || dst.elem_bytes != 4 || src.box[0] != 32 || src.box[1] != 4 || block[0] != 32 ||
        tiles_x < 1) {
        *code = CUDA_ERROR_ILLEGAL_ADDRESS;
        return RUN_FAULT;
    }
    double cost = FAKECUDA_KERNEL_NS;
    for (unsigned b = 0; b < grid[0]; b++) {
        int64_t x = (int64_t)(b % (unsigned)tiles_x) * 32 + 8, y = (int64_t)(b / (unsigned)tiles_x) * 4 + 1;
        int32_t box[4][32], acc[32] = { 0 };
        for (int r = 0; r < 4; r++)
            for (int t = 0; t < 32; t++) {
                unsigned char *p = tmap_at(c, &src, x + t, y + r);
                box[r][t] = 0;
                if (p)
                    memcpy(&box[r][t], p, 4);
            }
        for (int t = 0; t < 32; t++) {
            for (int k = 0; k < (box[0][t] & 7); k++)
                acc[t] += box[k & 3][(t + k) & 31];
            cost += FAKECUDA_THREAD_NS * (1 + (box[0][t] & 7));
        }
        memcpy(box[1], acc, sizeof acc);
        for (int r = 0; r < 4; r++)
            for (int t = 0; t < 32; t++) {
                unsigned char *p = tmap_at(c, &dst, x + t, y + r);
                if (p)
                    memcpy(p, &box[r][t], 4);
            }
    }
    *ns = cost;
    return RUN_OK;
}

static const fake_kernel kernels[] = {
    { "tensor_tiles", 3, FAKECUDA_INC_REGS, 0, run_tensor_tiles },
    { "tex_layered", 6, FAKECUDA_INC_REGS, 0, run_tex_layered },
    { "tex_cube", 8, FAKECUDA_INC_REGS, 0, run_tex_cube },
    { "tex_gather4", 5, FAKECUDA_INC_REGS, 0, run_tex_gather4 },
    { "surf_walk", 4, FAKECUDA_INC_REGS, 0, run_surf_walk },
    { "surf_gather", 4, FAKECUDA_INC_REGS, 0, run_surf_gather },
    { "surf_layered", 4, FAKECUDA_INC_REGS, 0, run_surf_layered },
    { "surf_reduce", 7, FAKECUDA_INC_REGS, 0, run_surf_reduce },
    { "surf_formatted", 10, FAKECUDA_INC_REGS, 0, run_surf_formatted },
    { "tex_mip", 8, FAKECUDA_INC_REGS, 0, run_tex_mip },
    { "tex_gather", 4, FAKECUDA_INC_REGS, 0, run_tex_gather },
    { "fake_inc", 3, FAKECUDA_INC_REGS, 0, run_fake_inc },
    { "fake_inc_smem", 3, FAKECUDA_INC_REGS, FAKECUDA_SMEM_STATIC, run_fake_inc_smem },
    { "struct_byval", 5, FAKECUDA_INC_REGS, 0, run_struct_byval },
    { "module_inputs", 2, FAKECUDA_INC_REGS, 0, run_module_inputs },
    { "node_scan", 2, FAKECUDA_INC_REGS, 0, run_node_scan },
};

static int static_shared_of(const struct CUfunc_st *f)
{
    return f->impl ? f->impl->static_shared : 0;
}

EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!hfunc || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!hmod || hmod->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    for (int i = 0; i < hmod->nfuncs; i++) {
        struct CUfunc_st *f = &hmod->funcs[i];
        if (strcmp(f->name, name) != 0)
            continue;
        f->mod = hmod;
        f->impl = NULL;
        for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
            if (!strcmp(kernels[k].name, name))
                f->impl = &kernels[k];
        /* Without opting in, static and dynamic shared memory share 48 KiB. */
        if (!f->attrs_set) {
            f->max_dynamic_shared = FAKECUDA_SHARED_DEFAULT - static_shared_of(f);
            f->attrs_set = true;
        }
        *hfunc = f;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    if (!hfunc)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pi || (int)attrib < 0 || (int)attrib >= (int)CU_FUNC_ATTRIBUTE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = FAKECUDA_MAX_THREADS_PER_BLOCK; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = hfunc->impl ? hfunc->impl->regs : 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = device_sm(); break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = static_shared_of(hfunc); break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = hfunc->max_dynamic_shared; break;
    default: *pi = 0; break;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    if (!hfunc)
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        /* "The sum of this value and CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
         * cannot exceed CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN". */
        if (value < 0 || value > FAKECUDA_SHARED_OPTIN - static_shared_of(hfunc))
            return CUDA_ERROR_INVALID_VALUE;
        hfunc->max_dynamic_shared = value;
        flog("func_set_attribute max_dynamic_shared %d", value);
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        return value >= -1 && value <= 100 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX,
                                       unsigned int blockDimY, unsigned int blockDimZ,
                                       unsigned int sharedMemBytes, CUstream hStream,
                                       void **kernelParams, void **extra)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!f || !f->mod || f->mod->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    if (hStream != NULL)
        return CUDA_ERROR_INVALID_HANDLE;       /* only the legacy default stream exists here */
    if (!gridDimX || !gridDimY || !gridDimZ || !blockDimX || !blockDimY || !blockDimZ ||
        gridDimY > 65535 || gridDimZ > 65535 || gridDimX > 2147483647u || blockDimX > 1024 ||
        blockDimY > 1024 || blockDimZ > 64 ||
        (uint64_t)blockDimX * blockDimY * blockDimZ > FAKECUDA_MAX_THREADS_PER_BLOCK)
        return CUDA_ERROR_INVALID_VALUE;
    if (sharedMemBytes > (unsigned)f->max_dynamic_shared)
        return CUDA_ERROR_INVALID_VALUE;
    if (extra)
        return CUDA_ERROR_NOT_SUPPORTED;        /* CU_LAUNCH_PARAM_BUFFER_*: not modelled */
    if (!f->impl) {
        /* bench/gpu.sh's dry run: any other kernel is an empty one */
        if (getenv(FAKECUDA_ANY_KERNEL_ENV)) {
            flog("launch %s no-op", f->name);
            if (!c->hung && c->pending == CUDA_SUCCESS)
                advance(c, FAKECUDA_KERNEL_NS);
            return CUDA_SUCCESS;
        }
        flog("launch %s unsupported", f->name);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (f->impl->nparams > 0 && !kernelParams)
        return CUDA_ERROR_INVALID_VALUE;
    char ps[256] = "";
    size_t k = 0;
    for (int i = 0; i < f->impl->nparams && k < sizeof ps; i++) {
        if (!kernelParams[i])
            return CUDA_ERROR_INVALID_VALUE;
        if (i < 2) {
            unsigned long long p;
            memcpy(&p, kernelParams[i], sizeof p);
            k += (size_t)snprintf(ps + k, sizeof ps - k, " 0x%llx", p);
        } else {
            int v;
            memcpy(&v, kernelParams[i], sizeof v);
            k += (size_t)snprintf(ps + k, sizeof ps - k, " %d", v);
        }
    }
    flog("launch %s %u %u %u %u %u %u %u params%s", f->name, gridDimX, gridDimY, gridDimZ, blockDimX,
         blockDimY, blockDimZ, sharedMemBytes, ps);
    if (c->hung || c->pending != CUDA_SUCCESS)
        return CUDA_SUCCESS;    /* queued behind a kernel that never finishes / already failed */
    const unsigned grid[3] = { gridDimX, gridDimY, gridDimZ };
    const unsigned block[3] = { blockDimX, blockDimY, blockDimZ };
    CUresult code = CUDA_SUCCESS;
    double ns = 0;
    switch (f->impl->run(c, f->mod, grid, block, kernelParams, &code, &ns)) {
    case RUN_OK:
        advance(c, ns + jitter());
        break;
    case RUN_FAULT:
        c->pending = code;
        flog("fault %d", (int)code);
        break;
    case RUN_HANG:
        c->hung = true;
        flog("hang");
        break;
    }
    return CUDA_SUCCESS;        /* launches are asynchronous */
}

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

EXPORT CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phEvent || (Flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
                                         CU_EVENT_INTERPROCESS)))
        return CUDA_ERROR_INVALID_VALUE;
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->ctx = c;
    e->flags = Flags;
    e->id = ++g.event_ids;
    g.live_events++;
    *phEvent = e;
    flog("event_create %d", e->id);
    return CUDA_SUCCESS;
}

static CUresult event_destroy(CUevent e)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    flog("event_destroy %d", e->id);
    free(e);
    g.live_events--;
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
    return event_destroy(hEvent);
}

EXPORT CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!hEvent || hEvent->ctx != c || hStream != NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    hEvent->recorded = true;
    hEvent->completed = !c->hung;
    hEvent->t_ns = c->now_ns;
    flog("record %d t=%.0f", hEvent->id, c->now_ns);
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    if (!hEvent)
        return CUDA_ERROR_INVALID_HANDLE;
    CUcontext c = hEvent->ctx;
    if (!c->alive)
        return CUDA_ERROR_INVALID_CONTEXT;
    flog("event_sync %d", hEvent->id);
    if (!hEvent->recorded)
        return CUDA_SUCCESS;
    if (!hEvent->completed || c->gated || c->pending != CUDA_SUCCESS || c->sticky != CUDA_SUCCESS)
        return synchronize(c, "cuEventSynchronize");
    return CUDA_SUCCESS;
}

static CUresult elapsed(float *ms, CUevent a, CUevent b)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ms)
        return CUDA_ERROR_INVALID_VALUE;
    if (!a || !b)
        return CUDA_ERROR_INVALID_HANDLE;
    if (a->ctx->sticky != CUDA_SUCCESS)
        return a->ctx->sticky;
    if (!a->recorded || !b->recorded || (a->flags & CU_EVENT_DISABLE_TIMING) ||
        (b->flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!a->completed || !b->completed)
        return CUDA_ERROR_NOT_READY;
    *ms = (float)((b->t_ns - a->t_ns) / 1e6);
    flog("elapsed %d %d %.6f ms", a->id, b->id, (double)*ms);
    return CUDA_SUCCESS;
}

#ifndef FAKECUDA_OLD_DRIVER
EXPORT CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}
#endif

EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}

/* ------------------------------------------------------------------------ */
/* Pinned host memory and stream waits                                      */
/* ------------------------------------------------------------------------ */

EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pp || bytesize == 0 ||
        (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                             CU_MEMHOSTALLOC_WRITECOMBINED)))
        return CUDA_ERROR_INVALID_VALUE;
    if (getenv(FAKECUDA_NO_PINNED_ENV))
        return CUDA_ERROR_OUT_OF_MEMORY;
    unsigned char *host = calloc(1, bytesize);
    if (!host)
        return CUDA_ERROR_OUT_OF_MEMORY;
    alloc_t *a = new_alloc(c, host, bytesize, true);
    if (!a) {
        free(host);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    /* Only a mapped allocation has a device address. */
    if (!(Flags & CU_MEMHOSTALLOC_DEVICEMAP))
        a->addr = 0;
    *pp = host;
    flog("host_alloc 0x%llx %zu", (unsigned long long)a->addr, bytesize);
    return CUDA_SUCCESS;
}

static alloc_t *pinned_alloc(const void *p)
{
    for (int i = 0; i < g.nallocs; i++)
        if (g.allocs[i].pinned && g.allocs[i].host == p)
            return &g.allocs[i];
    return NULL;
}

EXPORT CUresult CUDAAPI cuMemFreeHost(void *p)
{
    CUresult r = live();
    if (r != CUDA_SUCCESS)
        return r;
    alloc_t *a = pinned_alloc(p);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    flog("host_free 0x%llx %zu", (unsigned long long)a->addr, a->bytes);
    g.used_bytes -= a->bytes;
    free(a->host);
    *a = g.allocs[--g.nallocs];
    return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    alloc_t *a = pinned_alloc(p);
    if (!pdptr || Flags != 0 || !a || a->addr == 0 || a->ctx != c)
        return CUDA_ERROR_INVALID_VALUE;
    *pdptr = a->addr;
    return CUDA_SUCCESS;
}

#ifndef FAKECUDA_OLD_DRIVER
static CUresult stream_wait(CUstream s, CUdeviceptr addr, cuuint32_t value, unsigned int flags)
{
    CUcontext c;
    CUresult r = need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (getenv(FAKECUDA_NO_STREAM_WAIT_ENV))
        return CUDA_ERROR_NOT_SUPPORTED;
    if (s != NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags != CU_STREAM_WAIT_VALUE_GEQ)
        return CUDA_ERROR_NOT_SUPPORTED;        /* EQ, AND, NOR, FLUSH: not modelled */
    if ((addr & 3) || !device_bytes(c, addr, sizeof(uint32_t)))
        return CUDA_ERROR_INVALID_VALUE;
    if (c->gated)
        return CUDA_ERROR_NOT_SUPPORTED;        /* two waits queued: not modelled */
    c->gated = true;
    c->gate_addr = addr;
    c->gate_value = value;
    flog("wait 0x%llx %u", (unsigned long long)addr, value);
    gate_open(c);
    return CUDA_SUCCESS;
}


EXPORT CUresult CUDAAPI cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                               unsigned int flags)
{
    return stream_wait(stream, addr, value, flags);
}
#else
/* CUDA 8-11's entry point works only where the driver enabled stream
 * memory operations; this one never did. */
EXPORT CUresult CUDAAPI cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                            unsigned int flags)
{
    (void)stream;
    (void)addr;
    (void)value;
    (void)flags;
    return CUDA_ERROR_NOT_SUPPORTED;
}
#endif

/* ------------------------------------------------------------------------ */
/* Teardown                                                                 */
/* ------------------------------------------------------------------------ */

/* The last release of a primary context destroys it and whatever it still
 * holds; the log says how much that was (the tests expect nothing). */
static void destroy_context(struct CUctx_st *c)
{
    int allocs = 0;
    for (int i = 0; i < g.nallocs;) {
        if (g.allocs[i].ctx == c) {
            allocs++;
            g.used_bytes -= g.allocs[i].bytes;
            free(g.allocs[i].host);
            g.allocs[i] = g.allocs[--g.nallocs];
        } else {
            i++;
        }
    }
    flog("ctx_release allocs=%d events=%d modules=%d", allocs, g.live_events, g.live_modules);
    c->alive = false;
    if (current == c)
        current = NULL;
}
