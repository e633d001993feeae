/*
 * nvml.h — the GPU's clocks and throttle reasons through NVML, loaded at
 * run time (internal to harness/cuda).
 *
 * Like libcuda, libnvidia-ml is dlopen()ed ($WARPHUNT_LIBNVML, else
 * libnvidia-ml.so.1) so the binary runs where it is missing; the campaign
 * then records its samples without clocks and says why.  Only the few
 * read-only queries below are used: warphunt never changes a clock.
 */
#ifndef WH_HARNESS_CUDA_NVML_H
#define WH_HARNESS_CUDA_NVML_H

#include "harness/harness.h"

#include <stddef.h>

#define WH_NVML_LIB_ENV "WARPHUNT_LIBNVML"

typedef struct wh_nvml wh_nvml;

/* Load NVML and find the device at PCI domain:bus:device (as the CUDA
 * driver reports them).  NULL with `why` filled when it cannot. */
wh_nvml *wh_nvml_open(int pci_domain, int pci_bus, int pci_device, char *why, size_t n);
/* The current SM clock, the default (applications) SM clock, the clocks
 * event reasons and the temperature, with harness_clocks' verdict. */
void wh_nvml_read(wh_nvml *nv, harness_clocks *out);
void wh_nvml_close(wh_nvml *nv);

#endif
