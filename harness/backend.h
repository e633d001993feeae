/*
 * backend.h — what harness.c needs from a backend (internal to harness/).
 *
 * A backend is a table of functions over an opaque instance.  harness.c
 * parses the PTX, checks the entry and parameters, then hands the module
 * to the backend; it computes the statistics over repetitions itself.
 */
#ifndef WH_HARNESS_BACKEND_H
#define WH_HARNESS_BACKEND_H

#include "harness/harness.h"
#include "ptx/ptx.h"

/* One run of the kernel: status, message, counters and the time in the
 * backend's unit.  false only for a failure of the tool itself. */
typedef struct {
    harness_status status;
    char message[1024];
    double time;                 /* in the backend's unit */
    uint64_t cycles;
    double us;
    uint64_t warp_instructions, lane_instructions;
    int64_t busiest_thread;      /* run_located: harness_result's; -1 none */
    uint64_t busiest_work;
} harness_run;

typedef struct {
    harness_backend kind;
    const char *unit;
    bool deterministic;          /* one run stands for every repetition */
    void *(*open)(const wh_spec *spec, const ptx_module *m, int entry_func,
                  const harness_options *opt, wh_error *err);
    /* want_outputs: copy the output buffers back into img (and every buffer
     * when the options given to open said want_all_buffers) */
    bool (*run)(void *impl, wh_image *img, bool want_outputs, harness_run *out, wh_error *err);
    /* Optional: run with the location counters into locations[0..locations()) */
    bool (*run_located)(void *impl, wh_image *img, bool want_outputs, double *locations, harness_run *out,
                        wh_error *err);
    int (*locations)(const void *impl);
    bool (*location_name)(const void *impl, int loc, char *buf, size_t size);
    /* Optional: `reps` runs at once (times[0..reps-1] in the unit; out is
     * the last run, or the first that did not end OK, with *done the runs
     * that did).  Backends whose runs share a fixed cost (the cuda
     * worker's round trip) batch them. */
    bool (*run_reps)(void *impl, wh_image *img, int reps, bool want_outputs, harness_run *out,
                     double *times, int *done, wh_error *err);
    /* Optional: one instrumented run (harness_explain_one_warp; warp -1: the
     * rows of every warp); NULL: the backend cannot explain. */
    bool (*explain)(void *impl, wh_image *img, int64_t warp, harness_explain_report *out, wh_error *err);
    void (*close)(void *impl);
    const char *(*device)(const void *impl);
    double (*clock_mhz)(const void *impl);
    /* Optional: the clocks now (harness_read_clocks); NULL: unknown. */
    void (*clocks)(void *impl, harness_clocks *out);
} harness_backend_ops;

extern const harness_backend_ops harness_sim_ops;

#endif
