/*
 * backend.c — the sim backend's entry points for harness.c: open (profile,
 * pre-decoding), run (one launch), explain (one instrumented launch), close.
 */
#include "harness/backend.h"
#include "harness/sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *sim_open(const wh_spec *spec, const ptx_module *m, int entry, const harness_options *opt,
                      wh_error *err)
{
    sim_prog *P = calloc(1, sizeof *P);
    if (!P) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    if (opt->profile_path) {
        if (!sim_profile_load(opt->profile_path, &P->prof, err)) {
            free(P);
            return NULL;
        }
    } else {
        sim_profile_default(&P->prof);
    }
    P->step_limit = opt->step_limit ? opt->step_limit : HARNESS_DEFAULT_STEP_LIMIT;
    P->local_limit = (opt->sim_local_mb ? opt->sim_local_mb : HARNESS_DEFAULT_SIM_LOCAL_MB) << 20;
    P->on_branch = opt->on_branch;
    P->all_buffers = opt->want_all_buffers;
    P->branch_ctx = opt->branch_ctx;
    if (!sim_load(P, spec, m, entry, err)) {
        sim_prog_free(P);
        free(P);
        return NULL;
    }
    snprintf(P->device, sizeof P->device, "sim: %s (%d SMs, %g MHz)", P->prof.name, P->prof.sms,
             P->prof.clock_mhz);
    return P;
}

static bool sim_run_once(void *impl, wh_image *img, bool want_outputs, harness_run *out, wh_error *err)
{
    const sim_prog *P = impl;
    int copy = !want_outputs ? 0 : P->all_buffers ? 2 : 1;
    return sim_execute(P, img, copy, NULL, NULL, out, err);
}

static bool sim_run_located(void *impl, wh_image *img, bool want_outputs, double *locations, harness_run *out,
                            wh_error *err)
{
    const sim_prog *P = impl;
    int copy = !want_outputs ? 0 : P->all_buffers ? 2 : 1;
    sim_locations *L = sim_locations_new(P, &img->launch, locations);
    bool ok = sim_execute(P, img, copy, NULL, L, out, err);
    sim_locations_busiest(L, &out->busiest_thread, &out->busiest_work);
    sim_locations_free(L);
    return ok;
}

static int sim_location_count(const void *impl)
{
    return sim_row_bases(impl, NULL) * HARNESS_LOCATION_KINDS;
}

static bool sim_explain_once(void *impl, wh_image *img, int64_t warp, harness_explain_report *out, wh_error *err)
{
    const sim_prog *P = impl;
    sim_explain *ex = sim_explain_new(P);
    sim_explain_only_warp(ex, warp);
    harness_run run;
    bool ok = sim_execute(P, img, 0, ex, NULL, &run, err) && sim_explain_report(ex, out, err);
    sim_explain_free(ex);
    if (!ok)
        return false;
    out->status = run.status;
    snprintf(out->message, sizeof out->message, "%s", run.message);
    out->cycles = run.cycles;
    out->warp_instructions = run.warp_instructions;
    out->lane_instructions = run.lane_instructions;
    return true;
}

static void sim_close(void *impl)
{
    sim_prog *P = impl;
    sim_prog_free(P);
    free(P);
}

static const char *sim_device(const void *impl)
{
    return ((const sim_prog *)impl)->device;
}

static double sim_clock(const void *impl)
{
    return ((const sim_prog *)impl)->prof.clock_mhz;
}

/* The sim's clock never moves: its profile's, never throttled. */
static void sim_clocks(void *impl, harness_clocks *out)
{
    out->known = true;
    out->sm_mhz = out->default_sm_mhz = sim_clock(impl);
}

const harness_backend_ops harness_sim_ops = {
    .kind = HARNESS_SIM,
    .unit = "cycles",
    .deterministic = true,
    .open = sim_open,
    .run = sim_run_once,
    .run_located = sim_run_located,
    .locations = sim_location_count,
    .location_name = sim_location_name,
    .explain = sim_explain_once,
    .close = sim_close,
    .device = sim_device,
    .clock_mhz = sim_clock,
    .clocks = sim_clocks,
};
