/*
 * nvml.c — read-only NVML queries (SM clocks, clocks event reasons,
 * temperature), dlopen()ed so warphunt needs no NVML at build or run time.
 *
 * The prototypes are NVML's own (nvml.h is not part of the CUDA toolkit
 * install on every machine, so the few used are declared here); the
 * values of the enums used are NVML's documented ones.
 */
#include "harness/cuda/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_return;                   /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;
enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_TEMPERATURE_GPU = 0 };

struct wh_nvml {
    void *lib;
    nvml_device dev;
    nvml_return (*shutdown)(void);
    nvml_return (*clock_info)(nvml_device, int, unsigned *);
    nvml_return (*default_clock)(nvml_device, int, unsigned *);
    nvml_return (*reasons)(nvml_device, unsigned long long *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    const char *(*error_string)(nvml_return);
};

/* dlsym into a function pointer without the object-pointer cast warning. */
static void *sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

#define LOAD(field, name) memcpy(&nv->field, &(void *){ sym(nv->lib, name) }, sizeof nv->field)

static const char *nvml_error(const wh_nvml *nv, nvml_return r, char *buf, size_t n)
{
    const char *s = nv->error_string ? nv->error_string(r) : NULL;
    snprintf(buf, n, "%s (NVML error %d)", s ? s : "unknown", r);
    return buf;
}

wh_nvml *wh_nvml_open(int pci_domain, int pci_bus, int pci_device, char *why, size_t n)
{
    const char *env = getenv(WH_NVML_LIB_ENV);
    const char *path = env && *env ? env : "libnvidia-ml.so.1";
    wh_nvml *nv = calloc(1, sizeof *nv);
    if (!nv) {
        snprintf(why, n, "out of memory");
        return NULL;
    }
    nv->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!nv->lib) {
        const char *e = dlerror();
        snprintf(why, n, "NVML not loaded (%s; set %s)", e ? e : path, WH_NVML_LIB_ENV);
        free(nv);
        return NULL;
    }
    nvml_return (*init)(void) = NULL;
    nvml_return (*by_bus)(const char *, nvml_device *) = NULL;
    memcpy(&init, &(void *){ sym(nv->lib, "nvmlInit_v2") }, sizeof init);
    memcpy(&by_bus, &(void *){ sym(nv->lib, "nvmlDeviceGetHandleByPciBusId_v2") }, sizeof by_bus);
    LOAD(shutdown, "nvmlShutdown");
    LOAD(clock_info, "nvmlDeviceGetClockInfo");
    LOAD(default_clock, "nvmlDeviceGetDefaultApplicationsClock");
    LOAD(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nv->reasons) LOAD(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    LOAD(temperature, "nvmlDeviceGetTemperature");
    LOAD(error_string, "nvmlErrorString");
    char buf[160];
    if (!init || !by_bus || !nv->shutdown || !nv->clock_info) {
        snprintf(why, n, "%s lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or nvmlDeviceGetClockInfo", path);
    } else {
        nvml_return r = init();
        if (r != NVML_OK) {
            snprintf(why, n, "nvmlInit: %s", nvml_error(nv, r, buf, sizeof buf));
        } else {
            char bus_id[32];
            snprintf(bus_id, sizeof bus_id, "%08x:%02x:%02x.0", (unsigned)pci_domain, (unsigned)pci_bus,
                     (unsigned)pci_device);
            r = by_bus(bus_id, &nv->dev);
            if (r == NVML_OK)
                return nv;
            snprintf(why, n, "NVML has no device at PCI %s: %s", bus_id, nvml_error(nv, r, buf, sizeof buf));
            nv->shutdown();
        }
    }
    dlclose(nv->lib);
    free(nv);
    return NULL;
}

void wh_nvml_read(wh_nvml *nv, harness_clocks *out)
{
    unsigned mhz = 0, def = 0, temp = 0;
    unsigned long long reasons = 0;
    nvml_return r = nv->clock_info(nv->dev, NVML_CLOCK_SM, &mhz);
    if (r != NVML_OK) {
        char buf[128];
        snprintf(out->why, sizeof out->why, "nvmlDeviceGetClockInfo: %s", nvml_error(nv, r, buf, sizeof buf));
        return;
    }
    out->known = true;
    out->sm_mhz = mhz;
    if (nv->default_clock && nv->default_clock(nv->dev, NVML_CLOCK_SM, &def) == NVML_OK)
        out->default_sm_mhz = def;
    if (nv->reasons && nv->reasons(nv->dev, &reasons) == NVML_OK)
        out->reasons = reasons;
    out->temperature_c = -1;
    if (nv->temperature && nv->temperature(nv->dev, NVML_TEMPERATURE_GPU, &temp) == NVML_OK)
        out->temperature_c = (int)temp;
}

void wh_nvml_close(wh_nvml *nv)
{
    if (!nv)
        return;
    nv->shutdown();
    dlclose(nv->lib);
    free(nv);
}
