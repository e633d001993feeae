/*
 * worker.h — the worker process that runs the GPU part, and the
 * parent's side of it: start, watchdog, restart (internal to harness/).
 *
 * The GPU part is an *engine*: a table of three functions that run inside
 * the worker process.  The real one (wh_cuda_driver_engine, engine.c)
 * talks to libcuda; tests pass a double (one that hangs, crashes, faults)
 * to exercise the watchdog and the restarts without a GPU.
 *
 *   wh_cuda_worker w;
 *   wh_cuda_worker_init(&w, &wh_cuda_driver_engine, &setup, 120.0, err);
 *   wh_cuda_worker_start(&w, err);            // fork, SETUP, wait for READY
 *   wh_cuda_worker_run(&w, &rq, 10.0, dest, dest_bytes, &res, err);
 *   wh_cuda_worker_fini(&w);                  // close, reap (kill if stuck)
 *
 * The worker is forked, never exec()ed, and the parent must not have made
 * any CUDA call before (a CUDA context does not survive fork): only the
 * worker and the probe's child ever call into libcuda.
 */
#ifndef WH_HARNESS_CUDA_WORKER_H
#define WH_HARNESS_CUDA_WORKER_H

#include "core/error.h"
#include "harness/cuda/cuda.h"
#include "harness/cuda/proto.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct wh_cuda_engine {
    const char *name;
    /* Prepare (load the driver, create the context, JIT the PTX) and fill
     * *info.  NULL with `msg` on failure: the worker reports it and exits. */
    void *(*open)(const wh_cuda_setup *setup, harness_cuda_info *info, char *msg, size_t n);
    /* One request: warm-ups then rq->reps timed launches (each from the
     * pristine inputs); call rq->progress (when set) after each launch
     * that completes but the last, or the parent's watchdog, which gives
     * each launch kernel_timeout_s, fires.  Fill res (status, times[] and
     * ntimes, time_us = the last, message; restart = the context is
     * poisoned and the worker must exit after replying); an engine that
     * leaves ntimes 0 ran one timed launch, time_us.  With
     * rq->want_outputs, outputs[i] (rq->args[i].bytes bytes, allocated by
     * the worker) is non-NULL for every output buffer (every buffer with
     * rq->want_all) and receives its content after the last timed launch.
     * false (with msg) for a failure of the tool; the worker then reports
     * it and exits. */
    bool (*run)(void *state, const wh_cuda_request *rq, unsigned char *const *outputs,
                wh_cuda_result *res, char *msg, size_t n);
    void (*close)(void *state);
} wh_cuda_engine;

/* The engine that drives a real GPU through libcuda (engine.c). */
extern const wh_cuda_engine wh_cuda_driver_engine;

typedef struct {
    const wh_cuda_engine *engine;
    unsigned char *setup;       /* the encoded SETUP, sent at every (re)start */
    size_t setup_len;
    int nparams;
    double start_timeout_s;
    pid_t pid;                  /* 0: no worker running */
    int fd;                     /* our end of the socketpair; -1 when none */
    unsigned generation;        /* incremented at every successful start */
    unsigned restarts;          /* workers lost (fault, timeout, crash) */
    harness_cuda_info info;     /* from the last READY */
    char last_exit[128];        /* how the last worker ended, for messages */
} wh_cuda_worker;

bool wh_cuda_worker_init(wh_cuda_worker *w, const wh_cuda_engine *engine, const wh_cuda_setup *setup,
                         double start_timeout_s, wh_error *err);
/* Stop the worker (if any) and free what init allocated. */
void wh_cuda_worker_fini(wh_cuda_worker *w);

bool wh_cuda_worker_running(const wh_cuda_worker *w);
/* Fork a worker, send SETUP and wait for READY (or ERROR: err gets its
 * text, kind WH_ERR_DEVICE).  A running worker is left alone. */
bool wh_cuda_worker_start(wh_cuda_worker *w, wh_error *err);
/* Close our end, give the worker `grace_s` to exit, then SIGKILL it; reap. */
void wh_cuda_worker_stop(wh_cuda_worker *w, double grace_s);

/* Run one request (starting a worker first if none is running).  The
 * watchdog: no RESULT or PROGRESS within timeout_s (plus 2 s, plus the
 * request's transfer time; <= 0: none) kills the worker and gives status
 * HARNESS_TIMEOUT; a worker that dies gives HARNESS_FAULT with
 * how it ended; a RESULT with restart set lets the worker exit.  Outputs
 * for parameter i land in dest[i] (dest_bytes[i] bytes) when dest[i] is
 * not NULL.  A worker found dead before the request reached it sets
 * res->lost (nothing ran; rebuild the request with every input and call
 * again).  false (err filled) only for a failure of the tool: the worker
 * cannot start, reports an ERROR, or breaks the protocol. */
bool wh_cuda_worker_run(wh_cuda_worker *w, const wh_cuda_request *rq, double timeout_s,
                        unsigned char *const *dest, const uint64_t *dest_bytes,
                        wh_cuda_result *res, wh_error *err);

/* The cuda backend instance (backend.c) over a chosen engine: what
 * harness_cuda_open_config does with wh_cuda_driver_engine; tests pass
 * doubles.  The worker is started before this returns. */
void *wh_cuda_backend_open(const wh_spec *spec, const char *ptx, size_t ptx_len, const char *entry,
                           const harness_cuda_config *cfg, const wh_cuda_engine *engine,
                           wh_error *err);
/* Workers the instance lost so far (faults, timeouts, crashes). */
unsigned wh_cuda_backend_restarts(const void *impl);
/* The instance's worker process id (0 when none is running). */
pid_t wh_cuda_backend_worker_pid(const void *impl);

/* "exited with status 3" / "was killed by signal 11 (Segmentation fault)". */
void wh_cuda_describe_exit(int wstatus, char *buf, size_t n);

#endif
