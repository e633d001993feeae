/*
 * fakenvml.c — a stand-in libnvidia-ml for the tests: the few read-only
 * queries warphunt makes, answering for the fake CUDA driver's devices
 * (PCI bus FAKECUDA_PCI_BUS + ordinal), so that clock reading and
 * throttle flagging run without a GPU.
 *
 * $WH_FAKENVML_THROTTLE_EVERY=K makes every K-th SM clock read report a
 * hardware-thermal slowdown at 40 % of the default clock (the reasons read
 * next say the same); $WH_FAKENVML_INIT_ERROR=N makes nvmlInit fail with N.
 * Like a driver, the library keeps its state in one static record.
 */
#include "tests/fakecuda/fakecuda.h"

#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))
#define FAKENVML_DEFAULT_MHZ (FAKECUDA_CLOCK_KHZ / 1000)
#define FAKENVML_MAX_DEVICES 8
enum { OK = 0, ERROR_INVALID_ARGUMENT = 2, ERROR_NOT_FOUND = 6, ERROR_UNINITIALIZED = 1 };

typedef struct fake_device { int ordinal; } fake_device;

static struct {
    int initialised;
    unsigned long reads;
    int throttled;               /* the last clock read was throttled */
    fake_device dev[FAKENVML_MAX_DEVICES];
} g;

EXPORT int nvmlInit_v2(void);
EXPORT int nvmlShutdown(void);
EXPORT const char *nvmlErrorString(int r);
EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, fake_device **out);
EXPORT int nvmlDeviceGetClockInfo(fake_device *d, int type, unsigned *mhz);
EXPORT int nvmlDeviceGetDefaultApplicationsClock(fake_device *d, int type, unsigned *mhz);
EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(fake_device *d, unsigned long long *reasons);
EXPORT int nvmlDeviceGetTemperature(fake_device *d, int sensor, unsigned *celsius);

EXPORT int nvmlInit_v2(void)
{
    const char *e = getenv("WH_FAKENVML_INIT_ERROR");
    if (e && *e)
        return atoi(e);
    g.initialised++;
    for (int i = 0; i < FAKENVML_MAX_DEVICES; i++)
        g.dev[i].ordinal = i;
    return OK;
}

EXPORT int nvmlShutdown(void)
{
    if (g.initialised > 0)
        g.initialised--;
    return OK;
}

EXPORT const char *nvmlErrorString(int r)
{
    switch (r) {
    case OK: return "Success";
    case ERROR_UNINITIALIZED: return "Uninitialized";
    case ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case ERROR_NOT_FOUND: return "Not Found";
    default: return "Unknown Error";
    }
}

EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, fake_device **out)
{
    unsigned domain, bus, device, function;
    if (!g.initialised)
        return ERROR_UNINITIALIZED;
    if (!bus_id || !out || sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4)
        return ERROR_INVALID_ARGUMENT;
    if (domain != 0 || device != 0 || bus < FAKECUDA_PCI_BUS || bus >= FAKECUDA_PCI_BUS + FAKENVML_MAX_DEVICES)
        return ERROR_NOT_FOUND;
    *out = &g.dev[bus - FAKECUDA_PCI_BUS];
    return OK;
}

EXPORT int nvmlDeviceGetClockInfo(fake_device *d, int type, unsigned *mhz)
{
    if (!g.initialised)
        return ERROR_UNINITIALIZED;
    if (!d || !mhz || type != 1)
        return ERROR_INVALID_ARGUMENT;
    const char *every = getenv("WH_FAKENVML_THROTTLE_EVERY");
    long k = every ? atol(every) : 0;
    g.reads++;
    g.throttled = k > 0 && g.reads % (unsigned long)k == 0;
    *mhz = g.throttled ? FAKENVML_DEFAULT_MHZ * 2 / 5 : FAKENVML_DEFAULT_MHZ;
    return OK;
}

EXPORT int nvmlDeviceGetDefaultApplicationsClock(fake_device *d, int type, unsigned *mhz)
{
    if (!g.initialised)
        return ERROR_UNINITIALIZED;
    if (!d || !mhz || type != 1)
        return ERROR_INVALID_ARGUMENT;
    *mhz = FAKENVML_DEFAULT_MHZ;
    return OK;
}

EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(fake_device *d, unsigned long long *reasons)
{
    if (!g.initialised)
        return ERROR_UNINITIALIZED;
    if (!d || !reasons)
        return ERROR_INVALID_ARGUMENT;
    *reasons = g.throttled ? 0x40ULL : 0;   /* hardware thermal slowdown */
    return OK;
}

EXPORT int nvmlDeviceGetTemperature(fake_device *d, int sensor, unsigned *celsius)
{
    if (!g.initialised)
        return ERROR_UNINITIALIZED;
    if (!d || !celsius || sensor != 0)
        return ERROR_INVALID_ARGUMENT;
    *celsius = g.throttled ? 91 : 55;
    return OK;
}
