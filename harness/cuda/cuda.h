/*
 * cuda.h — the cuda backend: measuring on an NVIDIA GPU through the
 * driver API (harness/cuda*.c).
 *
 * harness.c reaches the backend through harness_cuda_ops (backend.h); the
 * rest of this header is for the command line and the benchmarks: a cheap
 * probe for `--backend auto`, the device description for run.json, the
 * backend's settings, and the sim-vs-GPU output comparison of `--check`.
 *
 * How a run works
 *   - libcuda is dlopen()ed at run time ($WARPHUNT_LIBCUDA or libcuda.so.1);
 *     the binary never links it, and runs on machines without a driver.
 *   - All GPU work happens in a worker process, forked before the parent
 *     makes any CUDA call (contexts do not survive fork).  The parent sends
 *     the image, the worker answers with the time, status and outputs.
 *   - The worker JIT-loads the PTX (cuModuleLoadDataEx; the JIT's error and
 *     info logs are shown on failure), keeps a device buffer per buffer
 *     parameter and a pristine device copy of every input and fixed buffer.
 *     Inputs travel (and are uploaded) only when they changed.
 *   - Before every launch, outside the timed region: inputs restored from
 *     the pristine copies (cuMemcpyDtoD), outputs zeroed (cuMemsetD8), and
 *     with cold_l2 a buffer twice the L2 size written to evict it.  The
 *     launch alone is timed with events (microseconds).  `warmup` untimed
 *     launches come first whenever the worker is new, the inputs changed or
 *     the launch shape changed.
 *   - A kernel fault (illegal address, misaligned access, trap, illegal
 *     instruction, ...) poisons the CUDA context: the run is a finding with
 *     status fault and the driver's message, and the worker exits; a kernel
 *     that runs past kernel_timeout_s is killed by the parent's watchdog
 *     (status timeout).  Either way the next run starts a fresh worker.
 */
#ifndef WH_HARNESS_CUDA_BACKEND_H
#define WH_HARNESS_CUDA_BACKEND_H

#include "core/error.h"
#include "core/image.h"
#include "core/spec.h"
#include "harness/backend.h"
#include "harness/harness.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern const harness_backend_ops harness_cuda_ops;

#define HARNESS_CUDA_DEFAULT_TIMEOUT_S HARNESS_DEFAULT_KERNEL_TIMEOUT_S   /* watchdog per launch */
#define HARNESS_CUDA_DEFAULT_WARMUP HARNESS_DEFAULT_WARMUP
#define HARNESS_CUDA_DEFAULT_START_TIMEOUT_S 120.0   /* driver init + PTX JIT */

typedef struct {
    int device;                 /* ordinal */
    int device_rotate;          /* harness_options.device_rotate */
    double kernel_timeout_s;    /* watchdog per launch; <= 0: none */
    int warmup;                 /* untimed launches (see above); >= 0 */
    bool cold_l2;               /* flush L2 before every launch */
    double start_timeout_s;     /* worker start: driver init + JIT */
    const char *libcuda;        /* NULL: $WARPHUNT_LIBCUDA or libcuda.so.1 */
    bool all_buffers;           /* run(want_outputs) copies back every buffer, not only outputs */
} harness_cuda_config;

void harness_cuda_config_init(harness_cuda_config *c);
/* The defaults, then what harness_options says (device, want_all_buffers;
 * and timeout, warm-up and cold L2 once harness.h carries them). */
void harness_cuda_config_from_options(const harness_options *o, harness_cuda_config *c);

/* What the worker found about the device and the kernel (for run.json). */
typedef struct harness_cuda_info {
    int ordinal;                /* device index */
    char name[256];
    int cc_major, cc_minor;     /* compute capability */
    int sm_count;
    int clock_khz;              /* CU_DEVICE_ATTRIBUTE_CLOCK_RATE (0 if the driver has none) */
    int mem_clock_khz;          /* CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE */
    int mem_bus_bits;
    int l2_bytes;
    uint64_t total_mem;         /* bytes */
    int driver_version;         /* 12040 = 12.4 */
    int pci_domain, pci_bus, pci_device;   /* where NVML finds the same device */
    int max_threads_per_block;
    int max_shared_optin;       /* bytes of shared memory a block may opt into */
    int num_regs;               /* registers per thread of the entry (JIT result) */
    char libcuda[512];          /* the library loaded */
    bool gated;                 /* timed launches gated (see timing) */
    char timing[256];           /* how a launch is timed, in words (run.json "timing") */
} harness_cuda_info;

/* Cheap probe for `--backend auto`: in a short-lived child process (so
 * that this process never initialises CUDA), dlopen libcuda, cuInit and
 * cuDeviceGetCount >= 1.  true with `why` = "1 CUDA device: NAME"; false
 * with `why` = the reason (library missing and its path, stub library, no
 * device, ...). */
bool harness_cuda_available(char *why, size_t n);

/* The backend instance's device description (impl from harness_cuda_ops.open). */
const harness_cuda_info *harness_cuda_impl_info(const void *impl);
/* {"name", "ordinal", "compute_capability": "9.0", "sm_count", "clock_mhz",
 *  "memory_clock_mhz", "memory_bus_bits", "l2_bytes", "total_memory_bytes",
 *  "driver_version": "12.4", "registers_per_thread", "libcuda"} — new reference. */
json_t *harness_cuda_info_json(const harness_cuda_info *info);

/* The backend with an explicit configuration and the PTX text in memory
 * (harness_cuda_ops.open reads the PTX file and calls this). */
void *harness_cuda_open_config(const wh_spec *spec, const char *ptx, size_t ptx_len,
                               const char *entry, const harness_cuda_config *cfg, wh_error *err);


#endif
