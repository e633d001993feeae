/*
 * backend.c — the cuda backend, parent side: harness_cuda_ops over a worker
 * process (worker.c) that runs the driver engine (engine.c);
 * the availability probe; the device description for run.json.
 *
 * This process never calls into libcuda: the worker does, and the probe's
 * short-lived child does.
 */
#include "harness/cuda/api.h"
#include "harness/cuda/cuda.h"
#include "harness/cuda/worker.h"
#include "harness/cuda/nvml.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void harness_cuda_config_init(harness_cuda_config *c)
{
    memset(c, 0, sizeof *c);
    c->device = 0;
    c->kernel_timeout_s = HARNESS_CUDA_DEFAULT_TIMEOUT_S;
    c->warmup = HARNESS_CUDA_DEFAULT_WARMUP;
    c->cold_l2 = false;
    c->start_timeout_s = HARNESS_CUDA_DEFAULT_START_TIMEOUT_S;
    c->libcuda = NULL;
}

void harness_cuda_config_from_options(const harness_options *o, harness_cuda_config *c)
{
    harness_cuda_config_init(c);
    if (!o)
        return;
    c->device = o->device;
    c->device_rotate = o->device_rotate;
    c->all_buffers = o->want_all_buffers;
#ifdef HARNESS_HAVE_CUDA_OPTIONS
    /* kernel_timeout_s: 0 = the default, < 0 = no watchdog;
     * warmup: < 0 = the default. */
    if (o->kernel_timeout_s != 0)
        c->kernel_timeout_s = o->kernel_timeout_s;
    if (o->warmup >= 0)
        c->warmup = o->warmup;
    c->cold_l2 = o->cold_l2;
#endif
}

/* ------------------------------------------------------------------------ */
/* The backend instance                                                     */
/* ------------------------------------------------------------------------ */

typedef struct {
    wh_cuda_worker w;
    harness_cuda_config cfg;
    int np;
    wh_cuda_param *params;
    /* What the current worker holds of each input/fixed buffer (to send
     * only what changed); valid for worker generation `sent_gen`. */
    unsigned char **sent;
    uint64_t *sent_bytes;
    bool *sent_valid;
    unsigned sent_gen;
    bool have_shape;
    wh_launch last_launch;
    uint64_t last_shared;
    /* scratch per run */
    wh_cuda_arg *args;
    unsigned char **dest;
    uint64_t *dest_bytes;
    char device[640];
    wh_nvml *nvml;              /* opened at the first clocks read */
    bool nvml_tried;
    char nvml_why[256];
} cuda_impl;

static void impl_free(cuda_impl *c)
{
    if (!c)
        return;
    wh_cuda_worker_fini(&c->w);
    wh_nvml_close(c->nvml);
    for (int i = 0; c->sent && i < c->np; i++)
        free(c->sent[i]);
    free(c->sent);
    free(c->sent_bytes);
    free(c->sent_valid);
    free(c->params);
    free(c->args);
    free(c->dest);
    free(c->dest_bytes);
    free(c);
}

static void describe_device(cuda_impl *c)
{
    const harness_cuda_info *i = &c->w.info;
    char l2[32] = "";
    if (i->l2_bytes >= (1 << 20))
        snprintf(l2, sizeof l2, ", L2 %g MiB", i->l2_bytes / 1048576.0);
    else if (i->l2_bytes > 0)
        snprintf(l2, sizeof l2, ", L2 %d KiB", i->l2_bytes / 1024);
    char clk[32] = "";
    if (i->clock_khz > 0)
        snprintf(clk, sizeof clk, ", %d MHz", i->clock_khz / 1000);
    snprintf(c->device, sizeof c->device, "cuda: %s (device %d, sm_%d%d, %d SMs%s%s, driver %d.%d%s)",
             i->name, i->ordinal, i->cc_major, i->cc_minor, i->sm_count, clk, l2,
             i->driver_version / 1000, (i->driver_version % 1000) / 10,
             i->gated ? "" : "; launches timed ungated");
}

/* Texture parameter p at the spec's full launch (what every request of
 * this backend runs). */
/* Texture (or tensor map) parameter p at the full launch. */
static bool object_at_launch(const wh_spec *spec, int p, wh_cuda_param *q, wh_error *err)
{
    wh_launch l = wh_spec_launch_full(spec);
    int64_t *vars = calloc((size_t)spec->nvars + 1, sizeof *vars);
    if (!vars) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    bool ok = wh_spec_vars(spec, &l, vars, err) &&
              (spec->params[p].tex ? ptx_texture_make(spec, p, vars, &q->tex, err)
                                   : ptx_tmap_make(spec, p, vars, &q->tmap, err));
    free(vars);
    return ok;
}

/* The backend with a chosen engine (tests pass doubles; see worker.h). */
void *wh_cuda_backend_open(const wh_spec *spec, const char *ptx, size_t ptx_len, const char *entry,
                           const harness_cuda_config *cfg, const wh_cuda_engine *engine,
                           wh_error *err)
{
    cuda_impl *c = calloc(1, sizeof *c);
    if (!c) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    c->w.fd = -1;
    c->cfg = *cfg;
    c->np = spec->nparams;
    size_t n = c->np ? (size_t)c->np : 1;
    c->params = calloc(n, sizeof *c->params);
    c->sent = calloc(n, sizeof *c->sent);
    c->sent_bytes = calloc(n, sizeof *c->sent_bytes);
    c->sent_valid = calloc(n, sizeof *c->sent_valid);
    c->args = calloc(n, sizeof *c->args);
    c->dest = calloc(n, sizeof *c->dest);
    c->dest_bytes = calloc(n, sizeof *c->dest_bytes);
    if (!c->params || !c->sent || !c->sent_bytes || !c->sent_valid || !c->args || !c->dest ||
        !c->dest_bytes) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        impl_free(c);
        return NULL;
    }
    for (int i = 0; i < c->np; i++) {
        const wh_param *p = &spec->params[i];
        wh_cuda_param *q = &c->params[i];
        q->name = p->name;
        q->kind = p->kind;
        q->role = p->kind == WH_BUFFER ? p->role : WH_ROLE_NONE;
        q->global = p->global;
        if (p->kind == WH_SCALAR) {
            size_t sz = p->type == WH_STRUCT ? p->elem_size : wh_type_size(p->type);
            if (sz == 0 || sz > WH_CUDA_SCALAR_MAX) {
                wh_error_set(err, WH_ERR_UNSUPPORTED, spec->path, 0, 0,
                             "scalar parameter '%s' has %zu bytes; the cuda backend passes scalars "
                             "of 1 to %u bytes", p->name, sz, WH_CUDA_SCALAR_MAX);
                impl_free(c);
                return NULL;
            }
            q->size = (uint32_t)sz;
        } else {
            q->size = (uint32_t)p->elem_size;
        }
        if ((p->tex || p->tmap) && !object_at_launch(spec, i, q, err)) {
            impl_free(c);
            return NULL;
        }
    }
    char lib[512];
    wh_cuda_setup setup = {
        .libcuda = cfg->libcuda ? cfg->libcuda : wh_cuda_lib_path(lib, sizeof lib),
        .device = cfg->device,
        .device_rotate = cfg->device_rotate,
        .cold_l2 = cfg->cold_l2,
        .entry = entry,
        .ptx = ptx,
        .ptx_len = ptx_len,
        .nparams = c->np,
        .params = c->params,
    };
    if (!wh_cuda_worker_init(&c->w, engine, &setup, cfg->start_timeout_s, err)) {
        impl_free(c);
        return NULL;
    }
    /* Start now, so that a missing driver, a bad device or a JIT error
     * shows at open (WH_ERR_DEVICE) rather than at the first run. */
    if (!wh_cuda_worker_start(&c->w, err)) {
        impl_free(c);
        return NULL;
    }
    describe_device(c);
    return c;
}

void *harness_cuda_open_config(const wh_spec *spec, const char *ptx, size_t ptx_len,
                               const char *entry, const harness_cuda_config *cfg, wh_error *err)
{
    return wh_cuda_backend_open(spec, ptx, ptx_len, entry, cfg, &wh_cuda_driver_engine, err);
}

static bool same_launch(const wh_launch *a, const wh_launch *b)
{
    for (int k = 0; k < 3; k++)
        if (a->grid[k] != b->grid[k] || a->block[k] != b->block[k])
            return false;
    return true;
}

/* Fill c->args from the image: scalars always, input/fixed buffers only
 * when the current worker does not already hold that content.  Returns
 * whether anything the kernel reads changed. */
static bool build_args(cuda_impl *c, const wh_image *img, bool *oom)
{
    bool fresh = c->sent_gen != c->w.generation;
    if (fresh) {
        for (int i = 0; i < c->np; i++)
            c->sent_valid[i] = false;
        c->sent_gen = c->w.generation;
        c->have_shape = false;
    }
    bool changed = fresh;
    for (int i = 0; i < c->np; i++) {
        const wh_buffer *b = &img->bufs[i];
        wh_cuda_arg *a = &c->args[i];
        a->bytes = b->bytes;
        a->data = NULL;
        if (c->params[i].kind == WH_SCALAR) {
            a->bytes = c->params[i].size;
            a->data = b->data;
            continue;
        }
        if (c->params[i].role != WH_ROLE_INPUT && c->params[i].role != WH_ROLE_FIXED)
            continue;
        if (c->sent_valid[i] && c->sent_bytes[i] == b->bytes &&
            (b->bytes == 0 || memcmp(c->sent[i], b->data, b->bytes) == 0))
            continue;
        /* Send it, and remember it. */
        a->data = b->data ? b->data : (const unsigned char *)"";
        changed = true;
        if (c->sent_bytes[i] != b->bytes || !c->sent[i]) {
            free(c->sent[i]);
            c->sent[i] = malloc(b->bytes ? b->bytes : 1);
            if (!c->sent[i]) {
                *oom = true;
                c->sent_valid[i] = false;
                c->sent_bytes[i] = 0;
                continue;
            }
        }
        if (b->bytes)
            memcpy(c->sent[i], b->data, b->bytes);
        c->sent_bytes[i] = b->bytes;
        c->sent_valid[i] = true;
    }
    if (!c->have_shape || !same_launch(&c->last_launch, &img->launch) ||
        c->last_shared != img->shared_bytes)
        changed = true;
    c->have_shape = true;
    c->last_launch = img->launch;
    c->last_shared = img->shared_bytes;
    return changed;
}

/* One RUN of `reps` timed launches (warm-ups first when the input or the
 * shape changed), with one retry when the worker was found dead. */
static bool cuda_request(cuda_impl *c, wh_image *img, int reps, bool want_outputs, wh_cuda_result *res,
                         wh_error *err)
{
    if (img->nbufs != c->np) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "image has %d buffers, the kernel %d parameters",
                     img->nbufs, c->np);
        return false;
    }
    for (int i = 0; i < c->np; i++) {
        if (c->params[i].kind == WH_SCALAR && img->bufs[i].bytes < c->params[i].size) {
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "scalar '%s' holds %zu bytes, needs %u",
                         c->params[i].name, img->bufs[i].bytes, c->params[i].size);
            return false;
        }
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        /* The worker must be running before we decide what it already holds. */
        if (!wh_cuda_worker_running(&c->w)) {
            if (!wh_cuda_worker_start(&c->w, err))
                return false;
            describe_device(c);
        }
        bool oom = false;
        bool changed = build_args(c, img, &oom);
        if (oom) {
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory (copy of the inputs)");
            return false;
        }
        bool in_place = false;   /* the worker sends back outputs, or every buffer */
        for (int i = 0; i < c->np; i++) {
            const wh_param *p = img->bufs[i].param;
            bool back = c->params[i].kind == WH_BUFFER && (c->cfg.all_buffers || (p && wh_param_returned(p)));
            in_place |= p && p->in_place;
            c->dest[i] = want_outputs && back ? img->bufs[i].data : NULL;
            c->dest_bytes[i] = img->bufs[i].bytes;
        }
        wh_cuda_request rq = {
            .grid = { img->launch.grid[0], img->launch.grid[1], img->launch.grid[2] },
            .block = { img->launch.block[0], img->launch.block[1], img->launch.block[2] },
            .shared_bytes = img->shared_bytes,
            .warmup = changed ? c->cfg.warmup : 0,
            .reps = reps,
            .want_outputs = want_outputs,
            .want_all = want_outputs && (c->cfg.all_buffers || in_place),
            .nparams = c->np,
            .args = c->args,
        };
        if (!wh_cuda_worker_run(&c->w, &rq, c->cfg.kernel_timeout_s, c->dest, c->dest_bytes, res, err))
            return false;
        if (!res->lost)
            return true;
        if (attempt == 1) {
            wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "%s, twice in a row", res->message);
            return false;
        }
    }
    return true;
}

static void to_run(const wh_cuda_result *res, harness_run *out)
{
    memset(out, 0, sizeof *out);
    out->status = res->status;
    snprintf(out->message, sizeof out->message, "%s", res->message);
    if (res->status == HARNESS_OK) {
        out->time = res->time_us;
        out->us = res->time_us;
    }
}

static bool cuda_run(void *impl, wh_image *img, bool want_outputs, harness_run *out, wh_error *err)
{
    wh_cuda_result res;
    memset(out, 0, sizeof *out);
    if (!cuda_request(impl, img, 1, want_outputs, &res, err))
        return false;
    to_run(&res, out);
    return true;
}

/* The repetitions in requests of up to WH_CUDA_MAX_BATCH timed launches;
 * the outputs come back with the request that finishes them.  (A worker
 * engine that times one launch per request is asked again for the rest.) */
static bool cuda_run_reps(void *impl, wh_image *img, int reps, bool want_outputs, harness_run *out,
                          double *times, int *done, wh_error *err)
{
    wh_cuda_result res;
    memset(out, 0, sizeof *out);
    *done = 0;
    while (*done < reps) {
        int ask = reps - *done > WH_CUDA_MAX_BATCH ? WH_CUDA_MAX_BATCH : reps - *done;
        if (!cuda_request(impl, img, ask, want_outputs && *done + ask == reps, &res, err))
            return false;
        to_run(&res, out);
        if (res.status != HARNESS_OK)
            return true;
        int got = res.ntimes > 0 ? (res.ntimes > ask ? ask : res.ntimes) : 1;
        for (int k = 0; k < got; k++)
            times[*done + k] = res.ntimes > 0 ? res.times[k] : res.time_us;
        *done += got;
    }
    return true;
}

static void cuda_close(void *impl)
{
    impl_free(impl);
}

static const char *cuda_device(const void *impl)
{
    return ((const cuda_impl *)impl)->device;
}

static double cuda_clock_mhz(const void *impl)
{
    return ((const cuda_impl *)impl)->w.info.clock_khz / 1000.0;
}

/* NVML is opened once, after the worker has said where the device sits. */
static void cuda_clocks(void *impl, harness_clocks *out)
{
    cuda_impl *c = impl;
    const harness_cuda_info *i = &c->w.info;
    if (!c->nvml && !c->nvml_tried && i->name[0]) {
        c->nvml_tried = true;
        c->nvml = wh_nvml_open(i->pci_domain, i->pci_bus, i->pci_device, c->nvml_why, sizeof c->nvml_why);
    }
    if (c->nvml)
        wh_nvml_read(c->nvml, out);
    else
        snprintf(out->why, sizeof out->why, "%s", c->nvml_tried ? c->nvml_why : "no launch yet: device unknown");
}

const harness_cuda_info *harness_cuda_impl_info(const void *impl)
{
    return &((const cuda_impl *)impl)->w.info;
}

/* How many workers this instance lost (faults, timeouts, crashes). */
unsigned wh_cuda_backend_restarts(const void *impl)
{
    return ((const cuda_impl *)impl)->w.restarts;
}

pid_t wh_cuda_backend_worker_pid(const void *impl)
{
    return ((const cuda_impl *)impl)->w.pid;
}

static bool read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (n + 1 < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool ok = buf && !ferror(f);
    fclose(f);
    if (!ok) {
        free(buf);
        return false;
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return true;
}

static void *cuda_open(const wh_spec *spec, const ptx_module *m, int entry_func,
                       const harness_options *opt, wh_error *err)
{
    if (entry_func < 0 || entry_func >= m->nfuncs) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "bad entry function index %d", entry_func);
        return NULL;
    }
    /* The PTX text itself: the module's file, else where the spec says. */
    char *ptx = NULL;
    size_t len = 0;
    if (!m->name || !read_file(m->name, &ptx, &len)) {
        char path[1024];
        if (!wh_spec_ptx_path(spec, path, sizeof path, err))
            return NULL;
        if (!read_file(path, &ptx, &len)) {
            wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot read the PTX: %s", strerror(errno));
            return NULL;
        }
    }
    harness_cuda_config cfg;
    harness_cuda_config_from_options(opt, &cfg);
    void *impl = harness_cuda_open_config(spec, ptx, len, m->funcs[entry_func].name, &cfg, err);
    free(ptx);
    return impl;
}

const harness_backend_ops harness_cuda_ops = {
    .kind = HARNESS_CUDA,
    .unit = "us",
    .deterministic = false,
    .open = cuda_open,
    .run = cuda_run,
    .run_reps = cuda_run_reps,
    .close = cuda_close,
    .device = cuda_device,
    .clock_mhz = cuda_clock_mhz,
    .clocks = cuda_clocks,
};

/* ------------------------------------------------------------------------ */
/* The probe                                                                */
/* ------------------------------------------------------------------------ */

/* In the child: load, init, count; write "1name" or "0reason" to fd. */
static void probe_child(int fd)
{
    int dn = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (dn >= 0) {
        dup2(dn, STDOUT_FILENO);
        close(dn);
    }
    char msg[1024];
    char out[1100];
    wh_cuda_api api;
    if (!wh_cuda_api_load(&api, NULL, msg, sizeof msg)) {
        snprintf(out, sizeof out, "0%s", msg);
    } else {
        CUresult r = api.Init(0);
        int count = 0;
        if ((int)r != WH_CU_SUCCESS) {
            wh_cuda_init_failure(&api, r, msg, sizeof msg);
            snprintf(out, sizeof out, "0%s", msg);
        } else if ((int)(r = api.DeviceGetCount(&count)) != WH_CU_SUCCESS) {
            wh_cuda_describe(&api, r, msg, sizeof msg);
            snprintf(out, sizeof out, "0cuDeviceGetCount: %s", msg);
        } else if (count < 1) {
            snprintf(out, sizeof out, "0the NVIDIA driver reports no CUDA device");
        } else {
            CUdevice dev;
            char name[256] = "?";
            int dv = 0;
            if ((int)api.DeviceGet(&dev, 0) == WH_CU_SUCCESS)
                api.DeviceGetName(name, (int)sizeof name - 1, dev);
            api.DriverGetVersion(&dv);
            snprintf(out, sizeof out, "1%d CUDA device%s (0: %s), driver %d.%d, via %s", count,
                     count == 1 ? "" : "s", name, dv / 1000, (dv % 1000) / 10, api.path);
        }
        wh_cuda_api_unload(&api);
    }
    wh_cuda_write_all(fd, out, strlen(out), wh_cuda_deadline(5));
    close(fd);
    _exit(0);
}

bool harness_cuda_available(char *why, size_t n)
{
    int fds[2];
    if (pipe(fds) < 0) {
        snprintf(why, n, "cannot probe for CUDA: pipe: %s", strerror(errno));
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        snprintf(why, n, "cannot probe for CUDA: fork: %s", strerror(e));
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        probe_child(fds[1]);
    }
    close(fds[1]);
    /* Read everything the child writes (it closes the pipe when done). */
    char buf[1200];
    size_t got = 0;
    int64_t deadline = wh_cuda_deadline(30);
    bool timed_out = false;
    while (got < sizeof buf - 1) {
        wh_cuda_io io = wh_cuda_read_all(fds[0], buf + got, 1, deadline);
        if (io == WH_IO_TIMEOUT)
            timed_out = true;
        if (io != WH_IO_OK)
            break;
        got++;
    }
    buf[got] = 0;
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) {
        snprintf(why, n, "the CUDA probe (dlopen + cuInit) did not answer within 30 s");
        return false;
    }
    if (got == 0) {
        char how[128];
        wh_cuda_describe_exit(st, how, sizeof how);
        snprintf(why, n, "the CUDA probe %s without an answer (driver crashed?)", how);
        return false;
    }
    snprintf(why, n, "%s", buf + 1);
    return buf[0] == '1';
}

/* ------------------------------------------------------------------------ */
/* run.json                                                                 */
/* ------------------------------------------------------------------------ */

json_t *harness_cuda_info_json(const harness_cuda_info *i)
{
    char cc[32], drv[32];
    snprintf(cc, sizeof cc, "%d.%d", i->cc_major, i->cc_minor);
    snprintf(drv, sizeof drv, "%d.%d", i->driver_version / 1000, (i->driver_version % 1000) / 10);
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "name", json_string(i->name));
    json_object_set_new(o, "ordinal", json_integer(i->ordinal));
    json_object_set_new(o, "compute_capability", json_string(cc));
    json_object_set_new(o, "sm_count", json_integer(i->sm_count));
    json_object_set_new(o, "clock_mhz", json_real(i->clock_khz / 1000.0));
    json_object_set_new(o, "memory_clock_mhz", json_real(i->mem_clock_khz / 1000.0));
    json_object_set_new(o, "memory_bus_bits", json_integer(i->mem_bus_bits));
    json_object_set_new(o, "l2_bytes", json_integer(i->l2_bytes));
    json_object_set_new(o, "total_memory_bytes", json_integer((json_int_t)i->total_mem));
    json_object_set_new(o, "max_threads_per_block", json_integer(i->max_threads_per_block));
    json_object_set_new(o, "max_shared_optin_bytes", json_integer(i->max_shared_optin));
    char bus[32];
    snprintf(bus, sizeof bus, "%08x:%02x:%02x.0", (unsigned)i->pci_domain, (unsigned)i->pci_bus,
             (unsigned)i->pci_device);
    json_object_set_new(o, "pci_bus_id", json_string(bus));
    json_object_set_new(o, "driver_version", json_string(drv));
    json_object_set_new(o, "registers_per_thread", json_integer(i->num_regs));
    json_object_set_new(o, "libcuda", json_string(i->libcuda));
    json_object_set_new(o, "timing_gated", json_boolean(i->gated));
    json_object_set_new(o, "timing", json_string(i->timing));
    return o;
}
