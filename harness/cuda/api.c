/*
 * api.c — dlopen the CUDA driver and resolve its entry points.
 */
#include "harness/cuda/api.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One entry point: the symbol resolved (the versioned one the header maps
 * the plain name to), an older name to fall back on, its slot, and whether
 * the library may lack it. */
typedef struct {
    const char *sym;
    const char *fallback;       /* NULL: none */
    size_t offset;
    bool optional;
} api_entry;

#define ENTRY(member, sym, fallback) { sym, fallback, offsetof(wh_cuda_api, member), false }
#define OPTIONAL(member, sym, fallback) { sym, fallback, offsetof(wh_cuda_api, member), true }

static const api_entry entries[] = {
    ENTRY(Init, "cuInit", NULL),
    ENTRY(DriverGetVersion, "cuDriverGetVersion", NULL),
    ENTRY(DeviceGetCount, "cuDeviceGetCount", NULL),
    ENTRY(DeviceGet, "cuDeviceGet", NULL),
    ENTRY(DeviceGetName, "cuDeviceGetName", NULL),
    ENTRY(DeviceGetAttribute, "cuDeviceGetAttribute", NULL),
    ENTRY(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL),
    ENTRY(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL),
    ENTRY(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
    ENTRY(CtxSetCurrent, "cuCtxSetCurrent", NULL),
    ENTRY(CtxSynchronize, "cuCtxSynchronize", NULL),
    ENTRY(ModuleLoadDataEx, "cuModuleLoadDataEx", NULL),
    ENTRY(ModuleUnload, "cuModuleUnload", NULL),
    ENTRY(ModuleGetFunction, "cuModuleGetFunction", NULL),
    ENTRY(ModuleGetGlobal, "cuModuleGetGlobal_v2", NULL),
    ENTRY(FuncGetAttribute, "cuFuncGetAttribute", NULL),
    ENTRY(FuncSetAttribute, "cuFuncSetAttribute", NULL),
    ENTRY(MemAlloc, "cuMemAlloc_v2", NULL),
    ENTRY(MemFree, "cuMemFree_v2", NULL),
    ENTRY(MemcpyHtoD, "cuMemcpyHtoD_v2", NULL),
    ENTRY(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL),
    ENTRY(MemcpyDtoD, "cuMemcpyDtoD_v2", NULL),
    ENTRY(MemsetD8, "cuMemsetD8_v2", NULL),
    ENTRY(EventCreate, "cuEventCreate", NULL),
    ENTRY(EventRecord, "cuEventRecord", NULL),
    ENTRY(EventSynchronize, "cuEventSynchronize", NULL),
    /* _v2 appeared in CUDA 12.8; older drivers have only the plain one,
     * with the same signature. */
    ENTRY(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    ENTRY(EventDestroy, "cuEventDestroy_v2", NULL),
    ENTRY(LaunchKernel, "cuLaunchKernel", NULL),
    ENTRY(GetErrorName, "cuGetErrorName", NULL),
    ENTRY(GetErrorString, "cuGetErrorString", NULL),
    OPTIONAL(MemHostAlloc, "cuMemHostAlloc", NULL),
    OPTIONAL(MemFreeHost, "cuMemFreeHost", NULL),
    OPTIONAL(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", NULL),
    /* The plain name is the CUDA 8-11 one, usable only where the driver
     * enabled stream memory operations; a call then says so. */
    OPTIONAL(StreamWaitValue32, "cuStreamWaitValue32_v2", "cuStreamWaitValue32"),
#ifdef WH_HAVE_CUDA_H
    OPTIONAL(TexObjectCreate, "cuTexObjectCreate", NULL),
    OPTIONAL(TexObjectDestroy, "cuTexObjectDestroy", NULL),
    OPTIONAL(TensorMapEncodeTiled, "cuTensorMapEncodeTiled", NULL),
    OPTIONAL(Array3DCreate, "cuArray3DCreate_v2", NULL),
    OPTIONAL(ArrayDestroy, "cuArrayDestroy", NULL),
    OPTIONAL(Memcpy3D, "cuMemcpy3D_v2", NULL),
    OPTIONAL(SurfObjectCreate, "cuSurfObjectCreate", NULL),
    OPTIONAL(SurfObjectDestroy, "cuSurfObjectDestroy", NULL),
    OPTIONAL(MipmappedArrayCreate, "cuMipmappedArrayCreate", NULL),
    OPTIONAL(MipmappedArrayGetLevel, "cuMipmappedArrayGetLevel", NULL),
    OPTIONAL(MipmappedArrayDestroy, "cuMipmappedArrayDestroy", NULL),
#endif
};

#ifdef WH_HAVE_CUDA_H
/* Each slot has exactly the type cuda.h declares for the symbol resolved
 * into it (the operand of _Generic is not evaluated: nothing is linked). */
#define SAME_TYPE(member, fn) \
    _Static_assert(_Generic(&fn, __typeof__(((wh_cuda_api *)0)->member): 1, default: 0), \
                   "wh_cuda_api." #member " does not match cuda.h's " #fn)
SAME_TYPE(Init, cuInit);
SAME_TYPE(DriverGetVersion, cuDriverGetVersion);
SAME_TYPE(DeviceGetCount, cuDeviceGetCount);
SAME_TYPE(DeviceGet, cuDeviceGet);
SAME_TYPE(DeviceGetName, cuDeviceGetName);
SAME_TYPE(DeviceGetAttribute, cuDeviceGetAttribute);
SAME_TYPE(DeviceTotalMem, cuDeviceTotalMem_v2);
SAME_TYPE(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
SAME_TYPE(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2);
SAME_TYPE(CtxSetCurrent, cuCtxSetCurrent);
SAME_TYPE(CtxSynchronize, cuCtxSynchronize);
SAME_TYPE(ModuleLoadDataEx, cuModuleLoadDataEx);
SAME_TYPE(ModuleUnload, cuModuleUnload);
SAME_TYPE(ModuleGetFunction, cuModuleGetFunction);
SAME_TYPE(ModuleGetGlobal, cuModuleGetGlobal_v2);
SAME_TYPE(FuncGetAttribute, cuFuncGetAttribute);
SAME_TYPE(FuncSetAttribute, cuFuncSetAttribute);
SAME_TYPE(MemAlloc, cuMemAlloc_v2);
SAME_TYPE(MemFree, cuMemFree_v2);
SAME_TYPE(MemcpyHtoD, cuMemcpyHtoD_v2);
SAME_TYPE(MemcpyDtoH, cuMemcpyDtoH_v2);
SAME_TYPE(MemcpyDtoD, cuMemcpyDtoD_v2);
SAME_TYPE(MemsetD8, cuMemsetD8_v2);
SAME_TYPE(EventCreate, cuEventCreate);
SAME_TYPE(EventRecord, cuEventRecord);
SAME_TYPE(EventSynchronize, cuEventSynchronize);
SAME_TYPE(EventElapsedTime, cuEventElapsedTime);
SAME_TYPE(EventDestroy, cuEventDestroy_v2);
SAME_TYPE(LaunchKernel, cuLaunchKernel);
SAME_TYPE(GetErrorName, cuGetErrorName);
SAME_TYPE(GetErrorString, cuGetErrorString);
SAME_TYPE(MemHostAlloc, cuMemHostAlloc);
SAME_TYPE(MemFreeHost, cuMemFreeHost);
SAME_TYPE(MemHostGetDevicePointer, cuMemHostGetDevicePointer_v2);
SAME_TYPE(StreamWaitValue32, cuStreamWaitValue32_v2);
SAME_TYPE(TexObjectCreate, cuTexObjectCreate);
SAME_TYPE(TexObjectDestroy, cuTexObjectDestroy);
SAME_TYPE(TensorMapEncodeTiled, cuTensorMapEncodeTiled);
SAME_TYPE(Array3DCreate, cuArray3DCreate_v2);
SAME_TYPE(ArrayDestroy, cuArrayDestroy);
SAME_TYPE(Memcpy3D, cuMemcpy3D_v2);
SAME_TYPE(SurfObjectCreate, cuSurfObjectCreate);
SAME_TYPE(SurfObjectDestroy, cuSurfObjectDestroy);
SAME_TYPE(MipmappedArrayCreate, cuMipmappedArrayCreate);
SAME_TYPE(MipmappedArrayGetLevel, cuMipmappedArrayGetLevel);
SAME_TYPE(MipmappedArrayDestroy, cuMipmappedArrayDestroy);

#define SAME_VALUE(ours, theirs) _Static_assert((int)(ours) == (int)(theirs), #ours " != " #theirs)
SAME_VALUE(WH_CU_SUCCESS, CUDA_SUCCESS);
SAME_VALUE(WH_CU_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE);
SAME_VALUE(WH_CU_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
SAME_VALUE(WH_CU_ERROR_STUB_LIBRARY, CUDA_ERROR_STUB_LIBRARY);
SAME_VALUE(WH_CU_ERROR_DEVICE_UNAVAILABLE, CUDA_ERROR_DEVICE_UNAVAILABLE);
SAME_VALUE(WH_CU_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_DEVICE);
SAME_VALUE(WH_CU_ERROR_SYSTEM_DRIVER_MISMATCH, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH);
SAME_VALUE(WH_CU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE);
SAME_VALUE(WH_CU_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
SAME_VALUE(WH_CU_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU);
SAME_VALUE(WH_CU_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_PTX);
SAME_VALUE(WH_CU_ERROR_UNSUPPORTED_PTX_VERSION, CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
SAME_VALUE(WH_CU_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_ILLEGAL_ADDRESS);
SAME_VALUE(WH_CU_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
SAME_VALUE(WH_CU_ERROR_LAUNCH_TIMEOUT, CUDA_ERROR_LAUNCH_TIMEOUT);
SAME_VALUE(WH_CU_ERROR_ASSERT, CUDA_ERROR_ASSERT);
SAME_VALUE(WH_CU_ERROR_HARDWARE_STACK_ERROR, CUDA_ERROR_HARDWARE_STACK_ERROR);
SAME_VALUE(WH_CU_ERROR_ILLEGAL_INSTRUCTION, CUDA_ERROR_ILLEGAL_INSTRUCTION);
SAME_VALUE(WH_CU_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS);
SAME_VALUE(WH_CU_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_INVALID_ADDRESS_SPACE);
SAME_VALUE(WH_CU_ERROR_INVALID_PC, CUDA_ERROR_INVALID_PC);
SAME_VALUE(WH_CU_ERROR_LAUNCH_FAILED, CUDA_ERROR_LAUNCH_FAILED);
SAME_VALUE(WH_CU_ERROR_TENSOR_MEMORY_LEAK, CUDA_ERROR_TENSOR_MEMORY_LEAK);
SAME_VALUE(WH_CU_ATTR_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
SAME_VALUE(WH_CU_ATTR_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
SAME_VALUE(WH_CU_ATTR_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME_VALUE(WH_CU_ATTR_MEMORY_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
SAME_VALUE(WH_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
SAME_VALUE(WH_CU_ATTR_L2_CACHE_SIZE, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
SAME_VALUE(WH_CU_ATTR_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME_VALUE(WH_CU_ATTR_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME_VALUE(WH_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
SAME_VALUE(WH_CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_DEVICEMAP);
SAME_VALUE(WH_CU_STREAM_WAIT_VALUE_GEQ, CU_STREAM_WAIT_VALUE_GEQ);
SAME_VALUE(WH_CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER);
SAME_VALUE(WH_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(WH_CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER);
SAME_VALUE(WH_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(WH_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
SAME_VALUE(WH_CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_NUM_REGS);
SAME_VALUE(WH_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
_Static_assert(sizeof(CUdeviceptr) == 8, "CUdeviceptr is 64-bit");
#endif

const char *wh_cuda_lib_path(char *buf, size_t size)
{
    const char *env = getenv(WH_CUDA_LIB_ENV);
    snprintf(buf, size, "%s", env && *env ? env : WH_CUDA_DEFAULT_LIB);
    return buf;
}

bool wh_cuda_api_load(wh_cuda_api *api, const char *path, char *why, size_t n)
{
    memset(api, 0, sizeof *api);
    if (path && *path)
        snprintf(api->path, sizeof api->path, "%s", path);
    else
        wh_cuda_lib_path(api->path, sizeof api->path);

    dlerror();
    api->lib = dlopen(api->path, RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        const char *e = dlerror();
        snprintf(why, n,
                 "cannot load the CUDA driver library '%s': %s (is the NVIDIA driver installed? "
                 "%s=PATH names another library)",
                 api->path, e ? e : "unknown dlopen error", WH_CUDA_LIB_ENV);
        return false;
    }
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const api_entry *en = &entries[i];
        void *sym = dlsym(api->lib, en->sym);
        if (!sym && en->fallback)
            sym = dlsym(api->lib, en->fallback);
        if (!sym && en->optional)
            continue;
        if (!sym) {
            snprintf(why, n,
                     "the CUDA driver library '%s' has no entry point %s (driver too old, or not "
                     "libcuda?)",
                     api->path, en->sym);
            wh_cuda_api_unload(api);
            return false;
        }
        /* POSIX guarantees a data pointer from dlsym converts to a function
         * pointer; copy the bits into the slot. */
        memcpy((char *)api + en->offset, &sym, sizeof sym);
    }
    return true;
}

void wh_cuda_api_unload(wh_cuda_api *api)
{
    if (api->lib)
        dlclose(api->lib);
    char path[sizeof api->path];
    memcpy(path, api->path, sizeof path);
    memset(api, 0, sizeof *api);
    memcpy(api->path, path, sizeof path);
}

void wh_cuda_describe(const wh_cuda_api *api, CUresult r, char *buf, size_t size)
{
    const char *name = NULL, *text = NULL;
    if (api && api->GetErrorName && (int)api->GetErrorName(r, &name) != WH_CU_SUCCESS)
        name = NULL;
    if (api && api->GetErrorString && (int)api->GetErrorString(r, &text) != WH_CU_SUCCESS)
        text = NULL;
    if (name && text)
        snprintf(buf, size, "%s (%d): %s", name, (int)r, text);
    else if (name)
        snprintf(buf, size, "%s (%d)", name, (int)r);
    else
        snprintf(buf, size, "CUDA error %d", (int)r);
}

void wh_cuda_init_failure(const wh_cuda_api *api, CUresult r, char *buf, size_t size)
{
    char d[300];
    wh_cuda_describe(api, r, d, sizeof d);
    const char *lib = api ? api->path : "libcuda";
    switch ((int)r) {
    case WH_CU_ERROR_STUB_LIBRARY:
        snprintf(buf, size,
                 "'%s' is the CUDA toolkit's stub library, not a driver: no NVIDIA driver is "
                 "installed here (cuInit: %s)", lib, d);
        break;
    case WH_CU_ERROR_NO_DEVICE:
        snprintf(buf, size, "the NVIDIA driver found no CUDA device (cuInit: %s)", d);
        break;
    case WH_CU_ERROR_OUT_OF_MEMORY:
        snprintf(buf, size, "cuInit ran out of memory in '%s' (under AddressSanitizer, set "
                 "ASAN_OPTIONS=protect_shadow_gap=0): %s", lib, d);
        break;
    case WH_CU_ERROR_DEVICE_UNAVAILABLE:
        snprintf(buf, size, "the CUDA device is unavailable (busy in an exclusive compute mode?) "
                 "(cuInit: %s)", d);
        break;
    case WH_CU_ERROR_SYSTEM_DRIVER_MISMATCH:
    case WH_CU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        snprintf(buf, size, "the driver library '%s' does not match the kernel driver (cuInit: %s)",
                 lib, d);
        break;
    default:
        snprintf(buf, size, "cuInit failed in '%s': %s", lib, d);
        break;
    }
}
