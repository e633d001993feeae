/*
 * fakecuda.h — what the fake CUDA driver (tests/fakecuda/fakecuda.c, built
 * into $(BUILD)/libfakecuda.so) and the tests that load it through
 * $WARPHUNT_LIBCUDA (tests/test_cuda_fake.c) agree on: the environment
 * variables that steer it, the device it describes, the kernels it can
 * run, and its virtual clock.  Plain C; FAKECUDA_DRIVER_VERSION only
 * exists when cuda.h was included first.
 *
 * The fake is NOT a GPU.  It exports the driver entry points warphunt
 * resolves (harness/cuda/api.c), with their cuda.h signatures and error
 * codes; device memory is host memory behind synthetic, non-canonical
 * addresses (a host dereference of a device pointer crashes); kernels are
 * looked up by name in a table of C implementations (fake_inc and
 * fake_inc_smem below; any other entry loads but its launch fails with
 * CUDA_ERROR_NOT_SUPPORTED);
 * work on the (single, legacy default) stream executes at once, errors of a
 * kernel surface at the next synchronising call and then stick to the
 * context, as the real driver's do.
 */
#ifndef WH_TESTS_FAKECUDA_H
#define WH_TESTS_FAKECUDA_H

/* --- environment (read by cuInit in the process that calls it) ---------- */

/* A file the fake appends one line per driver call to (O_APPEND, one
 * write each, so a killed worker loses nothing): "PID OP ARGS...", e.g.
 *   4242 init
 *   4242 alloc 0xd00000000000 1024
 *   4242 htod 0xd00000000000 1024
 *   4242 dtod 0xd00000100000 0xd00000000000 1024
 *   4242 memset8 0xd00000200000 0 1024
 *   4242 record 1 t=123456
 *   4242 launch fake_inc 4 1 1 64 1 1 0 params 0xd00000100000 0xd00000200000 256
 *   4242 fault 700
 *   4242 ctx_release allocs=0 events=0 modules=0
 * (see fakecuda.c for every op). */
#define FAKECUDA_LOG_ENV "WH_FAKECUDA_LOG"
/* cuInit returns this CUresult (e.g. 34 = CUDA_ERROR_STUB_LIBRARY). */
#define FAKECUDA_INIT_ERROR_ENV "WH_FAKECUDA_INIT_ERROR"
/* Number of devices (default 1; 0: cuInit says CUDA_ERROR_NO_DEVICE). */
#define FAKECUDA_DEVICES_ENV "WH_FAKECUDA_DEVICES"
/* Any value: cuModuleLoadDataEx fails (CUDA_ERROR_INVALID_PTX) with
 * FAKECUDA_JIT_FORCED_ERROR in the error log, whatever the PTX. */
#define FAKECUDA_JIT_FAIL_ENV "WH_FAKECUDA_JIT_FAIL"
/* Any value: fake_inc computes out[i] += v + 2 (a GPU that disagrees with
 * the sim, for --check). */
#define FAKECUDA_WRONG_ENV "WH_FAKECUDA_WRONG"
/* Set: a kernel the fake does not implement runs as an empty kernel (no
 * output written) instead of failing with CUDA_ERROR_NOT_SUPPORTED, so
 * that bench/gpu.sh can be dry-run without a GPU. */
#define FAKECUDA_ANY_KERNEL_ENV "WH_FAKECUDA_ANY_KERNEL"
/* Set: the device is an sm_90 (compute capability 9.0, Hopper's) instead
 * of sm_86, so that PTX for sm_90 loads and cuTensorMapEncodeTiled (which
 * refuses a device below 9.0) makes tensor maps. */
#define FAKECUDA_SM90_ENV "WH_FAKECUDA_SM90"
/* Any value: cuStreamWaitValue32 fails with CUDA_ERROR_NOT_SUPPORTED (a
 * driver or device without stream memory operations). */
#define FAKECUDA_NO_STREAM_WAIT_ENV "WH_FAKECUDA_NO_STREAM_WAIT"
/* Any value: cuMemHostAlloc fails with CUDA_ERROR_OUT_OF_MEMORY (no pinned
 * memory to be had). */
#define FAKECUDA_NO_PINNED_ENV "WH_FAKECUDA_NO_PINNED"
/* A number of nanoseconds J: every kernel launch lasts up to J ns longer,
 * uniformly (a fixed-seed xorshift stream per process), so that repeated
 * measurements vary as a GPU's do (campaigns, pWCET, noise criteria). */
#define FAKECUDA_JITTER_ENV "WH_FAKECUDA_JITTER_NS"

/* --- the device ------------------------------------------------------------ */

#define FAKECUDA_NAME "warphunt fake CUDA driver (not a GPU)"
#define FAKECUDA_CC_MAJOR 8
#define FAKECUDA_CC_MINOR 6
#define FAKECUDA_SM_COUNT 7
#define FAKECUDA_PCI_BUS 0x42        /* device d sits on bus 0x42 + d (fakenvml finds it there) */
#define FAKECUDA_CLOCK_KHZ 1234000
#define FAKECUDA_MEM_CLOCK_KHZ 5001000
#define FAKECUDA_BUS_BITS 384
#define FAKECUDA_L2_BYTES (3 * 1024 * 1024)
#define FAKECUDA_TOTAL_MEM (1ull << 30)
#define FAKECUDA_MAX_THREADS_PER_BLOCK 1024
#define FAKECUDA_SHARED_DEFAULT (48 * 1024)
#define FAKECUDA_SHARED_OPTIN (99 * 1024)
/* cuDriverGetVersion: libfakecuda.so reports CUDA_VERSION of the cuda.h it
 * is built with (a driver as new as the toolkit whose nvcc writes the
 * PTX); libfakecuda_old.so (built with FAKECUDA_OLD_DRIVER) a 12.4 driver
 * with only the unversioned cuEventElapsedTime, cuDevicePrimaryCtxRelease
 * and cuStreamWaitValue32 (which refuses, as CUDA 8-11's did by default).
 * As a real driver, the JIT refuses PTX of a newer ISA than its CUDA
 * release reads (CUDA_ERROR_UNSUPPORTED_PTX_VERSION: 12.4 reads up to 8.4,
 * 13.0 up to 9.0) and a .target above the device's sm_86. */
#ifdef CUDA_VERSION
#define FAKECUDA_DRIVER_VERSION CUDA_VERSION
#endif
#define FAKECUDA_OLD_DRIVER_VERSION 12040
#define FAKECUDA_OLD_DRIVER_MAX_PTX "8.4"

/* Where device addresses start: above the 47-bit user half of x86-64, so
 * a host dereference of one faults at once. */
#define FAKECUDA_DEVICE_BASE 0xd00000000000ull

/* --- the kernels (tests/ptx/fake_inc.cu) ---------------------------------- */

/* fake_inc(unsigned *data, unsigned *out, int n), i = ctaid.x * ntid.x +
 * tid.x < n: v = data[i]; v == FAKECUDA_FAULT stores through a null
 * pointer (CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronisation),
 * FAKECUDA_HANG never finishes, FAKECUDA_TRAP traps (CUDA_ERROR_LAUNCH_FAILED);
 * otherwise data[i] = v + 1 and out[i] += v + 1. */
#define FAKECUDA_FAULT 1000001u
#define FAKECUDA_HANG 1000002u
#define FAKECUDA_TRAP 1000003u
#define FAKECUDA_INC_REGS 18          /* CU_FUNC_ATTRIBUTE_NUM_REGS of fake_inc */
/* fake_inc_smem: fake_inc (without the special values) through a 40 KiB
 * static __shared__ array: CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES.  Its
 * launches with more than 48 KiB - this of dynamic shared memory need
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES raised first. */
#define FAKECUDA_SMEM_STATIC 40960

/* The JIT: a line whose first word is this is "not a name of any known
 * instruction" (CUDA_ERROR_INVALID_PTX, with ptxas's message and line). */
#define FAKECUDA_BAD_OPCODE "frobnicate"
#define FAKECUDA_JIT_FORCED_ERROR "ptxas fatal   : fake JIT failure requested by " FAKECUDA_JIT_FAIL_ENV

/* --- the virtual clock ------------------------------------------------------ */

/* Events record a virtual GPU clock (ns) that every operation on the
 * stream advances by its cost; the host's own time does not count, so an
 * event pair around a launch measures exactly that launch.  Copies and
 * sets cost FAKECUDA_OP_NS plus their bytes at the rates below; fake_inc
 * costs FAKECUDA_KERNEL_NS + FAKECUDA_THREAD_NS per thread with i < n. */
#define FAKECUDA_OP_NS 1000.0
#define FAKECUDA_DEVICE_BYTES_PER_NS 1000.0   /* memset, dtod (read + write) */
#define FAKECUDA_HOST_BYTES_PER_NS 25.0       /* htod, dtoh */
#define FAKECUDA_KERNEL_NS 20000.0
#define FAKECUDA_THREAD_NS 10.0

#endif
