/*
 * harness.c — backend dispatch: choosing the backend, loading and checking
 * the PTX against the spec, repetitions and their statistics.
 */
#include "harness/harness.h"
#include "harness/backend.h"
#include "harness/cuda/cuda.h"
#include "core/clock.h"
#include "core/pcg32.h"
#include "core/stats.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct harness {
    const wh_spec *spec;
    const harness_backend_ops *ops;
    void *impl;
    ptx_module *module;
    harness_options opt;
    char device[256];
    pcg32 noise;                /* sim_noise draws */
};

bool harness_backend_from_name(const char *name, harness_backend *out, wh_error *err)
{
    if (name && !strcmp(name, "auto"))
        *out = HARNESS_AUTO;
    else if (name && !strcmp(name, "sim"))
        *out = HARNESS_SIM;
    else if (name && !strcmp(name, "cuda"))
        *out = HARNESS_CUDA;
    else {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "unknown backend '%s' (expected auto, sim or cuda)",
                     name ? name : "");
        return false;
    }
    return true;
}

const char *harness_backend_name(harness_backend b)
{
    switch (b) {
    case HARNESS_SIM: return "sim";
    case HARNESS_CUDA: return "cuda";
    default: return "auto";
    }
}

const char *harness_status_name(harness_status s)
{
    switch (s) {
    case HARNESS_OK: return "ok";
    case HARNESS_FAULT: return "fault";
    case HARNESS_TIMEOUT: return "timeout";
    case HARNESS_UNSUPPORTED: return "unsupported";
    default: return "?";
    }
}

void harness_options_init(harness_options *o)
{
    memset(o, 0, sizeof *o);
    o->warmup = -1;
}

void harness_options_resolve(harness_options *o)
{
    if (o->warmup < 0) o->warmup = HARNESS_DEFAULT_WARMUP;
    if (o->kernel_timeout_s == 0) o->kernel_timeout_s = HARNESS_DEFAULT_KERNEL_TIMEOUT_S;
    if (o->step_limit == 0) o->step_limit = HARNESS_DEFAULT_STEP_LIMIT;
    if (o->sim_local_mb == 0) o->sim_local_mb = HARNESS_DEFAULT_SIM_LOCAL_MB;
}

void harness_result_free(harness_result *r)
{
    if (!r)
        return;
    free(r->times);
    r->times = NULL;
    r->reps = 0;
    free(r->locations);
    r->locations = NULL;
    r->nlocations = 0;
}

/* ---- opening ------------------------------------------------------------------ */

static bool find_entry(const wh_spec *spec, const ptx_module *m, const char *path, int *entry, wh_error *err)
{
    int idx = ptx_function_index(m, spec->entry);
    if (idx >= 0 && m->funcs[idx].is_entry && m->funcs[idx].has_body) {
        *entry = idx;
        return true;
    }
    char list[512] = "";
    size_t n = 0;
    for (int i = 0; i < m->nkernels && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", m->funcs[m->kernels[i]].name);
    wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "kernel '%s' not found in %s (its kernels: %s)",
                 spec->entry, path, m->nkernels ? list : "none");
    wh_error_set_path(err, "$.entry");
    return false;
}

harness *harness_open(const wh_spec *spec, harness_backend backend, const harness_options *opt,
                      wh_error *err)
{
    harness_options o;
    if (opt)
        o = *opt;
    else
        harness_options_init(&o);
    if (backend == HARNESS_AUTO) {
        char why[1024];
        if (harness_cuda_available(why, sizeof why)) {
            if (!o.quiet)
                fprintf(stderr, "warphunt: note: backend auto: using cuda (%s)\n", why);
            backend = HARNESS_CUDA;
        } else {
            if (!o.quiet)
                fprintf(stderr, "warphunt: note: backend auto: no GPU (%s): using sim\n", why);
            backend = HARNESS_SIM;
        }
    }
    if (backend == HARNESS_CUDA && o.sim_noise > 0) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "emulated noise (--sim-noise) is for the sim backend: "
                     "a GPU's measurements have noise of their own");
        return NULL;
    }
    char path[4096];
    if (!wh_spec_ptx_path(spec, path, sizeof path, err))
        return NULL;
    ptx_module *m = ptx_parse_file(path, err);
    if (!m)
        return NULL;
    int entry;
    wh_launch full = wh_spec_launch_full(spec);
    if (!find_entry(spec, m, path, &entry, err) || !ptx_spec_check(m, &m->funcs[entry], spec, &full, path, err)) {
        ptx_module_free(m);
        return NULL;
    }
    harness *h = calloc(1, sizeof *h);
    if (!h) {
        ptx_module_free(m);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    h->spec = spec;
    h->ops = backend == HARNESS_CUDA ? &harness_cuda_ops : &harness_sim_ops;
    h->module = m;
    h->opt = o;
    pcg32_seed(&h->noise, o.noise_seed, 0x6e6f697365ULL);
    h->impl = h->ops->open(spec, m, entry, &o, err);
    if (!h->impl) {
        ptx_module_free(m);
        free(h);
        return NULL;
    }
    snprintf(h->device, sizeof h->device, "%s", h->ops->device(h->impl));
    return h;
}

void harness_close(harness *h)
{
    if (!h)
        return;
    if (h->impl)
        h->ops->close(h->impl);
    ptx_module_free(h->module);
    free(h);
}

bool harness_may_fork(const harness *h)
{
    return h->ops == &harness_cuda_ops;
}

harness_backend harness_backend_of(const harness *h)
{
    return h->ops->kind;
}

const char *harness_device(const harness *h)
{
    return h->device;
}

const char *harness_unit(const harness *h)
{
    return h->ops->unit;
}

double harness_clock_mhz(const harness *h)
{
    return h->ops->clock_mhz ? h->ops->clock_mhz(h->impl) : 0;
}

void harness_clocks_judge(harness_clocks *c)
{
    c->throttled = false;
    if (!c->known)
        return;
    if (c->default_sm_mhz > 0 && c->sm_mhz < HARNESS_THROTTLE_CLOCK_FRACTION * c->default_sm_mhz) {
        c->throttled = true;
        snprintf(c->why, sizeof c->why, "SM clock %.0f MHz below %.0f %% of its default %.0f MHz", c->sm_mhz,
                 100 * HARNESS_THROTTLE_CLOCK_FRACTION, c->default_sm_mhz);
    } else if (c->reasons & HARNESS_REASONS_THROTTLING) {
        c->throttled = true;
        snprintf(c->why, sizeof c->why, "%s%s%s%s slowdown (NVML reasons 0x%llx)",
                 c->reasons & HARNESS_REASON_HW_SLOWDOWN ? " hardware" : "",
                 c->reasons & HARNESS_REASON_SW_THERMAL ? " software-thermal" : "",
                 c->reasons & HARNESS_REASON_HW_THERMAL ? " hardware-thermal" : "",
                 c->reasons & HARNESS_REASON_HW_POWER_BRAKE ? " power-brake" : "",
                 (unsigned long long)c->reasons);
        memmove(c->why, c->why + 1, strlen(c->why));   /* the leading blank */
    }
}

void harness_read_clocks(harness *h, harness_clocks *out)
{
    memset(out, 0, sizeof *out);
    out->temperature_c = -1;
    if (h->ops->clocks) {
        h->ops->clocks(h->impl, out);
    } else {
        snprintf(out->why, sizeof out->why, "the %s backend cannot read its clocks",
                 harness_backend_name(h->ops->kind));
    }
    harness_clocks_judge(out);
}

const struct harness_cuda_info *harness_cuda_info_of(const harness *h)
{
    return h->ops == &harness_cuda_ops ? harness_cuda_impl_info(h->impl) : NULL;
}

json_t *harness_device_json(const harness *h)
{
    const harness_cuda_info *info = harness_cuda_info_of(h);
    return info ? harness_cuda_info_json(info) : json_null();
}

/* ---- measuring ------------------------------------------------------------------ */

static void stats(harness_result *r)
{
    wh_summary sm;
    if (r->reps < 1 || !wh_summarize(r->times, r->reps, &sm)) return;
    r->mean = sm.mean;
    r->median = sm.median;
    r->min = sm.min;
    r->max = sm.max;
    r->stddev = sm.stddev;
}

/* t x (1 + sigma z), z standard normal (Box-Muller), never below 0. */
static double noisy(pcg32 *rng, double t, double sigma)
{
    double u1 = 1.0 - pcg32_double(rng), u2 = pcg32_double(rng);   /* u1 in (0, 1] */
    double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
    double f = 1.0 + sigma * z;
    return f > 0 ? t * f : 0;
}

int harness_locations(const harness *h)
{
    return h->ops->locations ? h->ops->locations(h->impl) : 0;
}

bool harness_location_name(const harness *h, int loc, char *buf, size_t size)
{
    return h->ops->location_name && loc < harness_locations(h) && h->ops->location_name(h->impl, loc, buf, size);
}

bool harness_set_want_locations(harness *h, bool on)
{
    bool was = h->opt.want_locations;
    h->opt.want_locations = on;
    return was;
}

/* One run; with options.want_locations (and a backend that counts them)
 * its location counters go to res->locations. */
static bool run_once(harness *h, wh_image *img, bool copy, harness_result *res, harness_run *run, wh_error *err)
{
    int n = h->opt.want_locations && h->ops->run_located ? harness_locations(h) : 0;
    if (n == 0) return h->ops->run(h->impl, img, copy, run, err);
    if (!res->locations && !(res->locations = malloc((size_t)n * sizeof *res->locations))) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for %d location counters", n);
        return false;
    }
    res->nlocations = n;
    return h->ops->run_located(h->impl, img, copy, res->locations, run, err);
}

bool harness_measure(harness *h, wh_image *img, int reps, harness_result *res, wh_error *err)
{
    memset(res, 0, sizeof *res);
    res->unit = h->ops->unit;
    if (reps < 1) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "repetitions must be at least 1 (got %d)", reps);
        return false;
    }
    if (img->spec != h->spec && (img->nbufs != h->spec->nparams)) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "the image does not belong to the spec of this harness");
        return false;
    }
    double *times = calloc((size_t)reps, sizeof *times);
    if (!times) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    int runs = h->ops->deterministic ? 1 : reps;
    bool copy = h->opt.want_outputs || h->opt.want_all_buffers;
    harness_run run;
    memset(&run, 0, sizeof run);
    double t0 = wh_clock_s();
    if (h->ops->run_reps && runs > 1) {
        int done = 0;
        if (!h->ops->run_reps(h->impl, img, runs, copy, &run, times, &done, err)) {
            free(times);
            return false;
        }
    } else {
        for (int i = 0; i < runs; i++) {
            memset(&run, 0, sizeof run);
            if (!run_once(h, img, copy && i == runs - 1, res, &run, err)) {
                free(times);
                harness_result_free(res);
                return false;
            }
            times[i] = run.time;
            if (run.status != HARNESS_OK)
                break;
        }
    }
    res->wall_s = wh_clock_s() - t0;
    res->status = run.status;
    snprintf(res->message, sizeof res->message, "%s", run.message);
    res->cycles = run.cycles;
    res->us = run.us;
    res->warp_instructions = run.warp_instructions;
    res->lane_instructions = run.lane_instructions;
    res->busiest_thread = run.busiest_work ? run.busiest_thread : -1;
    res->busiest_work = run.busiest_work;
    if (run.status != HARNESS_OK) {
        free(times);
        return true;
    }
    for (int i = runs; i < reps; i++)
        times[i] = times[0];
    for (int i = 0; h->opt.sim_noise > 0 && i < reps; i++)
        times[i] = noisy(&h->noise, times[i], h->opt.sim_noise);
    res->times = times;
    res->reps = reps;
    stats(res);
    return true;
}

/* ---- explaining ----------------------------------------------------------------- */

const char *harness_stall_name(harness_stall s)
{
    static const char *const names[HARNESS_NSTALLS] = { "memory", "dependency", "pipe", "control", "barrier" };
    return s >= 0 && s < HARNESS_NSTALLS ? names[s] : "?";
}

bool harness_explain(harness *h, wh_image *img, harness_explain_report *out, wh_error *err)
{
    return harness_explain_one_warp(h, img, -1, out, err);
}

bool harness_explain_one_warp(harness *h, wh_image *img, int64_t warp, harness_explain_report *out, wh_error *err)
{
    memset(out, 0, sizeof *out);
    out->critical = -1;
    if (!h->ops->explain) {
        wh_error_set(err, WH_ERR_UNSUPPORTED, NULL, 0, 0,
                     "explain needs the sim backend (this harness runs on %s): give --backend sim", h->device);
        return false;
    }
    if (img->nbufs != h->spec->nparams) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "the image does not belong to the spec of this harness");
        return false;
    }
    return h->ops->explain(h->impl, img, warp, out, err);
}

void harness_explain_report_free(harness_explain_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nfiles; i++)
        free(r->files[i]);
    for (int i = 0; i < r->nrows; i++)
        free((char *)r->rows[i].function);
    free(r->files);
    free(r->rows);
    free(r->warps);
    free(r->sm_finish);
    memset(r, 0, sizeof *r);
    r->critical = -1;
}
