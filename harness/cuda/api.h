/*
 * api.h — the CUDA driver API, loaded at run time (internal to harness/).
 *
 * warphunt never links libcuda: the worker process dlopen()s the driver
 * library and resolves every entry point it needs with dlsym into a
 * wh_cuda_api table (no global state: the table lives in whoever loaded it).
 * The library is $WARPHUNT_LIBCUDA when set, else "libcuda.so.1".
 *
 * With cuda.h at build time (WH_HAVE_CUDA_H, set by the Makefile) its types
 * are used and the type of every table entry is checked at compile time
 * against the header's declaration of the versioned symbol that is
 * resolved (cuMemAlloc_v2, ...).  Without cuda.h the few types needed are
 * declared here, so the backend still builds (and reports at run time what
 * the driver says, or that it is missing).
 *
 * The context is the device's primary context (cuDevicePrimaryCtxRetain),
 * which avoids cuCtxCreate's changing signature (_v2 / _v3 / _v4).
 */
#ifndef WH_HARNESS_CUDA_API_H
#define WH_HARNESS_CUDA_API_H

#include <stdbool.h>
#include <stddef.h>

#ifdef WH_HAVE_CUDA_H
#include <cuda.h>
#else
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef int CUjit_option;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef unsigned int cuuint32_t;
#endif

/* The constants used, under our own names (plain ints: comparing a CUresult
 * with a constant of another enum would warn), checked against cuda.h when
 * it is there (api.c). */
#define WH_CU_SUCCESS 0
#define WH_CU_ERROR_INVALID_VALUE 1
#define WH_CU_ERROR_OUT_OF_MEMORY 2
#define WH_CU_ERROR_STUB_LIBRARY 34
#define WH_CU_ERROR_DEVICE_UNAVAILABLE 46
#define WH_CU_ERROR_NO_DEVICE 100
#define WH_CU_ERROR_INVALID_DEVICE 101
#define WH_CU_ERROR_NO_BINARY_FOR_GPU 209
#define WH_CU_ERROR_INVALID_PTX 218
#define WH_CU_ERROR_UNSUPPORTED_PTX_VERSION 222
#define WH_CU_ERROR_ILLEGAL_ADDRESS 700
#define WH_CU_ERROR_LAUNCH_OUT_OF_RESOURCES 701
#define WH_CU_ERROR_LAUNCH_TIMEOUT 702
#define WH_CU_ERROR_ASSERT 710
#define WH_CU_ERROR_HARDWARE_STACK_ERROR 714
#define WH_CU_ERROR_ILLEGAL_INSTRUCTION 715
#define WH_CU_ERROR_MISALIGNED_ADDRESS 716
#define WH_CU_ERROR_INVALID_ADDRESS_SPACE 717
#define WH_CU_ERROR_INVALID_PC 718
#define WH_CU_ERROR_LAUNCH_FAILED 719
#define WH_CU_ERROR_TENSOR_MEMORY_LEAK 721
#define WH_CU_ERROR_SYSTEM_DRIVER_MISMATCH 803
#define WH_CU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804

#define WH_CU_ATTR_MAX_THREADS_PER_BLOCK 1
#define WH_CU_ATTR_CLOCK_RATE 13                /* kHz */
#define WH_CU_ATTR_MULTIPROCESSOR_COUNT 16
#define WH_CU_ATTR_MEMORY_CLOCK_RATE 36         /* kHz */
#define WH_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH 37   /* bits */
#define WH_CU_ATTR_L2_CACHE_SIZE 38             /* bytes */
#define WH_CU_ATTR_COMPUTE_CAPABILITY_MAJOR 75
#define WH_CU_ATTR_COMPUTE_CAPABILITY_MINOR 76
#define WH_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
#define WH_CU_ATTR_PCI_BUS_ID 33
#define WH_CU_ATTR_PCI_DEVICE_ID 34
#define WH_CU_ATTR_PCI_DOMAIN_ID 50

#define WH_CU_JIT_INFO_LOG_BUFFER 3
#define WH_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define WH_CU_JIT_ERROR_LOG_BUFFER 5
#define WH_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

#define WH_CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define WH_CU_STREAM_WAIT_VALUE_GEQ 0x0     /* (int32_t)(*addr - value) >= 0 */

/* Linear memory under a texture object starts at a multiple of this
 * (CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT is 512 on every GPU since Fermi). */
#define WH_CU_TEXTURE_ALIGNMENT 512

#define WH_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES 1   /* static shared memory */
#define WH_CU_FUNC_ATTRIBUTE_NUM_REGS 4
#define WH_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8

/* Shared memory (static and dynamic together) a block may use without
 * opting in. */
#define WH_CU_SHARED_DEFAULT_LIMIT (48u * 1024u)

/* The library dlopen()ed when WARPHUNT_LIBCUDA is not set. */
#define WH_CUDA_DEFAULT_LIB "libcuda.so.1"
#define WH_CUDA_LIB_ENV "WARPHUNT_LIBCUDA"

typedef struct {
    void *lib;                  /* dlopen handle */
    char path[512];             /* what was given to dlopen */

    CUresult (*Init)(unsigned int flags);
    CUresult (*DriverGetVersion)(int *version);
    CUresult (*DeviceGetCount)(int *count);
    CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
    CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
    CUresult (*DeviceGetAttribute)(int *value, CUdevice_attribute attr, CUdevice dev);
    CUresult (*DeviceTotalMem)(size_t *bytes, CUdevice dev);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
    CUresult (*CtxSetCurrent)(CUcontext ctx);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadDataEx)(CUmodule *mod, const void *image, unsigned int nopts,
                                 CUjit_option *opts, void **values);
    CUresult (*ModuleUnload)(CUmodule mod);
    CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
    CUresult (*ModuleGetGlobal)(CUdeviceptr *ptr, size_t *bytes, CUmodule mod, const char *name);
    CUresult (*FuncGetAttribute)(int *value, CUfunction_attribute attr, CUfunction fn);
    CUresult (*FuncSetAttribute)(CUfunction fn, CUfunction_attribute attr, int value);
    CUresult (*MemAlloc)(CUdeviceptr *ptr, size_t bytes);
    CUresult (*MemFree)(CUdeviceptr ptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
    CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
    CUresult (*MemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
    CUresult (*MemsetD8)(CUdeviceptr dst, unsigned char value, size_t bytes);
    CUresult (*EventCreate)(CUevent *ev, unsigned int flags);
    CUresult (*EventRecord)(CUevent ev, CUstream stream);
    CUresult (*EventSynchronize)(CUevent ev);
    CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
    CUresult (*EventDestroy)(CUevent ev);
    CUresult (*LaunchKernel)(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
                             unsigned int bx, unsigned int by, unsigned int bz,
                             unsigned int shared_bytes, CUstream stream, void **params,
                             void **extra);
    CUresult (*GetErrorName)(CUresult r, const char **name);
    CUresult (*GetErrorString)(CUresult r, const char **text);

    /* Optional (NULL when the driver lacks them): a pinned host word the
     * stream waits on, so that a timed launch is queued whole before the
     * GPU starts it (engine.c, "gated" timing). */
    CUresult (*MemHostAlloc)(void **p, size_t bytes, unsigned int flags);
    CUresult (*MemFreeHost)(void *p);
    CUresult (*MemHostGetDevicePointer)(CUdeviceptr *dptr, void *p, unsigned int flags);
    CUresult (*StreamWaitValue32)(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                  unsigned int flags);
#ifdef WH_HAVE_CUDA_H
    /* Texture and surface objects (engine.c, for "kind": "texture" and
     * "surface" parameters); only with cuda.h, whose structures they take. */
    CUresult (*TexObjectCreate)(CUtexObject *obj, const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *tex,
                                const CUDA_RESOURCE_VIEW_DESC *view);
    CUresult (*TexObjectDestroy)(CUtexObject obj);
    /* Tensor maps ("kind": "tensor_map", cp.async.bulk.tensor; CUDA 12). */
    CUresult (*TensorMapEncodeTiled)(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
                                     const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                     const cuuint32_t *element_strides, CUtensorMapInterleave interleave,
                                     CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                                     CUtensorMapFloatOOBfill fill);
    CUresult (*Array3DCreate)(CUarray *array, const CUDA_ARRAY3D_DESCRIPTOR *desc);
    CUresult (*ArrayDestroy)(CUarray array);
    CUresult (*Memcpy3D)(const CUDA_MEMCPY3D *copy);
    CUresult (*SurfObjectCreate)(CUsurfObject *obj, const CUDA_RESOURCE_DESC *res);
    CUresult (*SurfObjectDestroy)(CUsurfObject obj);
    CUresult (*MipmappedArrayCreate)(CUmipmappedArray *array, const CUDA_ARRAY3D_DESCRIPTOR *desc,
                                     unsigned int levels);
    CUresult (*MipmappedArrayGetLevel)(CUarray *level, CUmipmappedArray array, unsigned int k);
    CUresult (*MipmappedArrayDestroy)(CUmipmappedArray array);
#endif
} wh_cuda_api;

/* The library path to load: $WARPHUNT_LIBCUDA when set and not empty, else
 * WH_CUDA_DEFAULT_LIB.  Returns buf. */
const char *wh_cuda_lib_path(char *buf, size_t size);

/* dlopen `path` (NULL: wh_cuda_lib_path) and resolve every entry point.
 * false with `why` naming the library and the cause (dlerror, or the
 * missing symbol) — api is then left unloaded.  A missing optional entry
 * point only leaves its slot NULL. */
bool wh_cuda_api_load(wh_cuda_api *api, const char *path, char *why, size_t n);
void wh_cuda_api_unload(wh_cuda_api *api);

/* "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was
 * encountered"; works with api == NULL or a driver that cannot name r. */
void wh_cuda_describe(const wh_cuda_api *api, CUresult r, char *buf, size_t size);

/* After cuInit failed: a sentence saying what it means for the user
 * (stub library, no device, driver too old), including the description. */
void wh_cuda_init_failure(const wh_cuda_api *api, CUresult r, char *buf, size_t size);

#endif
