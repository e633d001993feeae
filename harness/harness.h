/*
 * harness.h — one measuring interface over several backends.
 *
 *   harness *h = harness_open(spec, HARNESS_AUTO, &opt, &err);
 *   harness_result r;
 *   harness_measure(h, image, 10, &r, &err);   r.status, r.times[0..9], r.unit
 *   harness_result_free(&r);
 *   harness_close(h);
 *
 * Backends:
 *   - sim  (harness/sim*.c): a functional PTX emulator of the whole grid with
 *     a deterministic warp-level timing model; the unit is "cycles" of the
 *     machine profile (harness/profiles/default.json, or --profile FILE).
 *   - cuda (harness/cuda*.c): the driver API, libcuda loaded at run time,
 *     each launch timed with events in a worker process that a watchdog
 *     replaces after a fault or hang; the unit is "us".
 *   - auto: cuda when the driver loads and has a device, else sim, with a
 *     note on stderr unless options.quiet.
 *
 * A kernel that faults (out-of-bounds or misaligned access, trap, barrier
 * misuse, deadlock), runs past the step limit, or uses an instruction the
 * backend cannot run is a *finding*, not a failure of the tool:
 * harness_measure then returns true with result.status != HARNESS_OK and a
 * message naming the instruction (file:line), the thread, the block and the
 * address.  harness_measure returns false only when the tool itself fails
 * (out of memory, a bad image), with `err` filled.
 *
 * The PTX of the spec is found with wh_spec_ptx_path; harness_open checks
 * that the entry exists and that the spec's parameters match the PTX
 * parameters in number and size (buffer = 8-byte pointer, scalar = its size).
 *
 * The sim is deterministic: identical inputs give identical cycles, so it
 * runs the kernel once per harness_measure call and reports that time for
 * every repetition (the outputs are those of that run), unless
 * options.sim_noise asks for emulated measurement noise.
 */
#ifndef WH_HARNESS_HARNESS_H
#define WH_HARNESS_HARNESS_H

#include "core/error.h"
#include "core/image.h"
#include "core/spec.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    HARNESS_AUTO = 0,
    HARNESS_SIM,
    HARNESS_CUDA
} harness_backend;

/* "auto", "sim", "cuda" -> backend; false (err: the valid names) otherwise. */
bool harness_backend_from_name(const char *name, harness_backend *out, wh_error *err);
const char *harness_backend_name(harness_backend b);

typedef enum {
    HARNESS_OK = 0,
    HARNESS_FAULT,        /* the kernel faulted: bad access, trap, barrier misuse, deadlock */
    HARNESS_TIMEOUT,      /* sim: the step limit; cuda: the watchdog */
    HARNESS_UNSUPPORTED   /* the backend cannot run an instruction of this kernel */
} harness_status;

const char *harness_status_name(harness_status s);   /* "ok", "fault", "timeout", "unsupported" */

/* Default step limit of the sim: warp instructions issued in one run. */
#define HARNESS_DEFAULT_STEP_LIMIT 2000000000ULL
/* Default cap on the sim's local memory for one run's resident warps. */
#define HARNESS_DEFAULT_SIM_LOCAL_MB 2048ULL

/* Optional branch trace (sim only): called once per thread for every
 * conditional branch (`@p bra`) it executes, in execution order.
 * thread = ctaid_linear * threads_per_block + tid_linear; func = index of the
 * function in the PTX module; block = PTX basic block ending in the branch;
 * taken = the thread jumps to the target. */
typedef void (*harness_branch_fn)(void *ctx, uint64_t thread, int func, int block, bool taken);

typedef struct {
    const char *profile_path;   /* sim: machine profile JSON; NULL = built-in default */
    uint64_t step_limit;        /* sim: warp instructions per run; 0 = HARNESS_DEFAULT_STEP_LIMIT */
    uint64_t sim_local_mb;      /* sim: MiB of host memory the resident warps' local memory may
                                   take (per-thread bytes x 32 x resident warps); a launch past
                                   it is a finding (unsupported); 0 = HARNESS_DEFAULT_SIM_LOCAL_MB */
    bool want_outputs;          /* copy the output buffers (role output) back into the image */
    bool want_all_buffers;      /* copy every buffer back, inputs and fixed ones too (in-place
                                   kernels, multi-launch programs); implies want_outputs */
    int device;                 /* cuda: device index */
    int device_rotate;          /* cuda: added to device modulo the devices visible, once device
                                   is found to exist (islands: the node-local rank, so that the
                                   ranks of a node spread over its GPUs); 0: none */
    bool quiet;                 /* no notes on stderr (e.g. which backend auto picked) */
    harness_branch_fn on_branch;   /* sim: NULL = no trace (no cost) */
    void *branch_ctx;
    double kernel_timeout_s;    /* cuda: watchdog per launch; 0 = the default, < 0 = none */
    int warmup;                 /* cuda: untimed launches first; < 0 = the default */
    bool cold_l2;               /* cuda: flush L2 before every timed launch */
    /* sim: measurement noise, for studying a search as a GPU would see it:
     * each repetition's time is multiplied by 1 + sim_noise * z, z drawn
     * from a standard normal (PCG32 seeded with noise_seed), at least 0.
     * 0: none (the sim is exact). */
    double sim_noise;
    uint64_t noise_seed;
    /* sim: fill harness_result.locations (see "locations" below); the
     * cuda backend has none and ignores it */
    bool want_locations;
} harness_options;

/* Everything 0 / NULL / false, except warmup = -1 (the backend's default). */
void harness_options_init(harness_options *o);

/* What the placeholders stand for: warmup < 0, kernel_timeout_s == 0 (cuda)
 * and step_limit == 0, sim_local_mb == 0 (sim). */
#define HARNESS_DEFAULT_WARMUP 2
#define HARNESS_DEFAULT_KERNEL_TIMEOUT_S 10.0
/* Replace every placeholder of o by the value it stands for (for records
 * such as run.json, which say what was used). */
void harness_options_resolve(harness_options *o);

/* harness_options carries the cuda backend's settings (cuda/backend.c tests this). */
#define HARNESS_HAVE_CUDA_OPTIONS 1

typedef struct {
    harness_status status;
    char message[1024];         /* status != OK: what, where (file:line), thread, block, address */
    const char *unit;           /* "cycles" or "us" (static string) */
    int reps;                   /* entries in times (0 when status != OK) */
    double *times;              /* per-repetition times in `unit` (owned; harness_result_free) */
    double mean, min, median, max, stddev;   /* over times; 0 when reps == 0 */
    /* Counters of the (last) run; also filled up to the point of a fault. */
    uint64_t cycles;            /* sim: simulated cycles; cuda: 0 */
    double us;                  /* time in microseconds (sim: cycles / clock) */
    uint64_t warp_instructions; /* sim: warp instructions issued */
    uint64_t lane_instructions; /* sim: sum of active lanes over issued instructions */
    double wall_s;              /* host seconds harness_measure took: uploads, warm-ups,
                                   repetitions, read-back (the harness's cost, with the kernel's) */
    /* options.want_locations on a backend that has them: the location
     * counters of the run (harness_locations of them; owned); else NULL */
    double *locations;
    int nlocations;
    /* With them, also: the thread (linear index in the launch) active
     * for the most warp instructions, and how many; -1 and 0 otherwise */
    int64_t busiest_thread;
    uint64_t busiest_work;
} harness_result;

void harness_result_free(harness_result *r);

typedef struct harness harness;

/* Parse the spec's PTX, check the entry and parameters, prepare the backend.
 * HARNESS_AUTO resolves to a concrete backend (harness_backend_of). */
harness *harness_open(const wh_spec *spec, harness_backend backend,
                      const harness_options *opt, wh_error *err);

/* Run the kernel on `img` (its launch shape, buffers and shared_bytes)
 * `reps` times (>= 1) and fill `res` (initialised here; free it with
 * harness_result_free).  With want_outputs the output buffers receive the
 * kernel's results (with want_all_buffers every buffer receives its final
 * contents); otherwise `img` is not modified. */
bool harness_measure(harness *h, wh_image *img, int reps, harness_result *res, wh_error *err);

void harness_close(harness *h);

harness_backend harness_backend_of(const harness *h);
/* Whether a measurement may fork a process (the cuda backend starts its
 * worker again after a fault, fork() without exec), which a caller running
 * other threads at the same time must know of under a sanitizer whose
 * allocator is not fork-safe. */
bool harness_may_fork(const harness *h);
/* "sim: a100-like (108 SMs, 1410 MHz)" / "cuda: NVIDIA A100 ..." */
const char *harness_device(const harness *h);
const char *harness_unit(const harness *h);
/* Clock used to convert cycles to microseconds (sim), 0 when unknown. */
double harness_clock_mhz(const harness *h);
/* ---- clocks: was the device running at its speed? --------------------------
 *
 * For measurement campaigns and for ranking only trustworthy samples.  The
 * sim always runs at its profile's clock.  The cuda backend reads the
 * GPU's current and default SM clocks, its clocks event ("throttle")
 * reasons and temperature through NVML, loaded at run time like libcuda
 * ($WARPHUNT_LIBNVML, else libnvidia-ml.so.1); where NVML is missing,
 * `known` is false and `why` says so.  A sample is *throttled* when the SM
 * clock is below 75 % of the default (nvbench's criterion) or a thermal,
 * hardware or power-brake slowdown is active.  Reading never changes a
 * clock or setting of the card. */
#define HARNESS_THROTTLE_CLOCK_FRACTION 0.75
/* NVML's clocks event reason bits that make a sample throttled. */
#define HARNESS_REASON_HW_SLOWDOWN 0x8ULL
#define HARNESS_REASON_SW_THERMAL 0x20ULL
#define HARNESS_REASON_HW_THERMAL 0x40ULL
#define HARNESS_REASON_HW_POWER_BRAKE 0x80ULL
#define HARNESS_REASONS_THROTTLING \
    (HARNESS_REASON_HW_SLOWDOWN | HARNESS_REASON_SW_THERMAL | HARNESS_REASON_HW_THERMAL | HARNESS_REASON_HW_POWER_BRAKE)

typedef struct {
    bool known;                 /* the clocks below were read */
    double sm_mhz;              /* current SM clock */
    double default_sm_mhz;      /* the clock it runs at undisturbed (0: unknown) */
    uint64_t reasons;           /* NVML clocks event reasons (0 on the sim) */
    int temperature_c;          /* -1: unknown */
    bool throttled;
    char why[256];              /* !known: why; throttled: what */
} harness_clocks;

/* Read the clocks now (cheap: no kernel runs).  Never fails: what cannot
 * be read is left unknown. */
void harness_read_clocks(harness *h, harness_clocks *out);
/* The verdict from sm_mhz, default_sm_mhz and reasons (sets throttled and
 * why); backends share it. */
void harness_clocks_judge(harness_clocks *c);

/* cuda: the device's description (name, SMs, clocks, L2, driver; for
 * run.json with harness_cuda_info_json); NULL for another backend. */
struct harness_cuda_info;
const struct harness_cuda_info *harness_cuda_info_of(const harness *h);
/* The same as JSON (name, ordinal, compute capability, SM count, clocks,
 * L2, memory, driver version, registers, libcuda path); JSON null for a
 * backend other than cuda. */
struct json_t;
struct json_t *harness_device_json(const harness *h);

/* ---- explain: where one run's time goes (sim only) -------------------------
 *
 *   harness_explain_report x;
 *   harness_explain(h, image, &x, &err);   x.rows (per PTX instruction),
 *   harness_explain_report_free(&x);       x.warps, x.sm_finish, x.critical
 *
 * One instrumented run of the kernel.  Every cycle of a warp's life, from
 * its block's start to its finish, is charged to exactly one instruction
 * and one cause, so each warp's issue and stall cycles sum to its
 * finish - start:
 *   issue       the dispatch cycle of each warp instruction (1 per issue);
 *   memory      waiting for a load's or an atomic's data (charged to that
 *               memory instruction), and at the warp's end for its
 *               outstanding memory operations (charged to the one that
 *               completed last);
 *   dependency  waiting for the result of an arithmetic or other
 *               non-memory instruction (charged to the producer);
 *   pipe        ready to issue, but the scheduler dispatched another warp's
 *               instruction or the instruction's pipe was busy (charged to
 *               the waiting instruction);
 *   control     a branch's, call's or return's latency, the divergence
 *               penalty, nanosleep (charged to that instruction);
 *   barrier     waiting at a barrier for the block's other warps (charged
 *               to the barrier).
 * The cuda backend cannot explain: harness_explain fails there with
 * WH_ERR_UNSUPPORTED. */
typedef enum {
    HARNESS_STALL_MEMORY = 0,
    HARNESS_STALL_DEPENDENCY,
    HARNESS_STALL_PIPE,
    HARNESS_STALL_CONTROL,
    HARNESS_STALL_BARRIER,
    HARNESS_NSTALLS
} harness_stall;

/* "memory", "dependency", "pipe", "control", "barrier" */
const char *harness_stall_name(harness_stall s);

/* What one PTX instruction (or a set of them) did over a run. */
typedef struct {
    uint64_t issued;            /* warp instructions issued */
    uint64_t lanes;             /* active lanes summed over the issues */
    uint64_t branches;          /* conditional branches executed by a warp */
    uint64_t divergent;         /* ...of which split the warp's active lanes */
    uint64_t global_requests;   /* global/generic-to-global loads, stores, atomics */
    uint64_t sectors;           /* 32-byte sectors those requests touched (atomics:
                                   distinct addresses, one L2 transaction each) */
    uint64_t local_requests;    /* local loads and stores (the sim's) */
    uint64_t local_sectors;     /* their 32-byte sectors (word w of lane l at w * 128 + l * 4:
                                   the same index on every lane is 4 sectors) */
    uint64_t shared_requests;   /* shared loads, stores, atomics */
    uint64_t wavefronts;        /* their wavefronts (conflict degree per request) */
    uint64_t atomics;           /* atomic lane operations */
    double atomic_wait;         /* lane-cycles spent behind other operations on
                                   the same address (in the warp and across warps) */
    double issue_cycles;
    double stall[HARNESS_NSTALLS];
} harness_explain_counts;

/* One PTX instruction of the report. */
typedef struct {
    const char *function;       /* PTX function (owned by the report) */
    int ptx_line;               /* line in the PTX file (a function's implicit end: its header's) */
    char opcode[64];            /* "atom.global.add.u32" */
    int source_file;            /* index in report.files, -1 when the PTX has no .loc for it */
    int source_line;
    harness_explain_counts n;
} harness_explain_row;

/* One warp of the launch. */
typedef struct {
    int sm;
    unsigned ctaid[3];
    uint64_t block;             /* linear block index */
    int warp;                   /* warp index in its block */
    double start, finish;       /* cycles; finish includes its outstanding memory operations */
    uint64_t issued;
    double issue_cycles;
    double stall[HARNESS_NSTALLS];
} harness_explain_warp;

typedef struct {
    harness_status status;      /* a fault or step limit stops the run: counters up to there */
    char message[1024];
    uint64_t cycles;            /* kernel time, as harness_measure reports it */
    uint64_t warp_instructions, lane_instructions;
    harness_explain_row *rows;  /* every instruction issued at least once, in PTX order */
    int nrows;
    char **files;               /* CUDA source files the rows name */
    int nfiles;
    harness_explain_warp *warps;   /* every warp that started, by block then warp */
    uint64_t nwarps;
    double *sm_finish;          /* per SM: when its last block ended (0: never used) */
    int nsms;
    int64_t critical;           /* the warp that finished last (it set the kernel's time), -1 none */
} harness_explain_report;

/* One instrumented run of `img` (the sim backend only).  false when the
 * tool fails or the backend cannot explain (err); a kernel fault is a
 * status, as for harness_measure. */
bool harness_explain(harness *h, wh_image *img, harness_explain_report *out, wh_error *err);
/* The same run, its rows counting warp `warp` alone (an index into
 * out->warps: a run's critical warp, say); warp -1 is harness_explain. */
bool harness_explain_one_warp(harness *h, wh_image *img, int64_t warp, harness_explain_report *out, wh_error *err);
void harness_explain_report_free(harness_explain_report *r);

/* ---- locations: per-instruction counters of a run, a search's feedback ----
 *
 * With options.want_locations the sim counts, for every PTX instruction of
 * the functions the kernel can reach, HARNESS_LOCATION_KINDS numbers of the
 * run harness_measure makes: location i * HARNESS_LOCATION_KINDS + k is
 * counter k of instruction i (PTX order, function by function):
 *   lanes        lanes that executed it (guard true), summed over the
 *                warps: how often a branch leg or a loop body ran;
 *   memory       its memory transactions: 32-byte global sectors plus
 *                shared-memory wavefronts (uncoalesced accesses and bank
 *                conflicts count more);
 *   atomic wait  lane-cycles its atomics waited behind other operations
 *                on the same address (contention).
 * A search keeps, per location, the input that drove it highest (ga's
 * archive): inputs that push one part of the kernel, though not yet its
 * time.  The sim also counts the warp instructions each thread was active
 * for, for harness_result.busiest_thread (lane amplification,
 * ga/hunt_lanes.c).  Counting costs a few additions per warp instruction
 * (and one per active lane where a warp's mask changes). */
typedef enum {
    HARNESS_LOCATION_LANES = 0,
    HARNESS_LOCATION_MEMORY,
    HARNESS_LOCATION_ATOMIC_WAIT,
    HARNESS_LOCATION_KINDS
} harness_location_kind;

/* How many locations the backend counts for this kernel (0: none, as on cuda). */
int harness_locations(const harness *h);
/* "kernel.ptx:45 atom.global.min.s32 (atomic wait)"; false when loc is out of range. */
bool harness_location_name(const harness *h, int loc, char *buf, size_t size);
/* Switch the counters of later runs on or off (options.want_locations at
 * open); gives the setting it replaces.  Measurements whose counters no one
 * reads (gdivan's scout) run without them: they cost 5-11 % of a run on
 * four corpus kernels (bench_sim --locations, session 49). */
bool harness_set_want_locations(harness *h, bool on);

/* Float tolerance of harness_compare_outputs for --check: correctly
 * rounded operations (add, mul, fma, div.rn, sqrt.rn) agree bit for bit
 * between the GPU and the sim; the bound leaves room for the .approx
 * instructions (sin, cos, ex2, lg2, rcp, rsqrt: 1-2 ulp on the GPU) and a
 * few operations chained after them. */
#define HARNESS_CHECK_FLOAT_ULPS 4.0

/* Compare the output buffers (role output) of two images of the same spec
 * and launch, e.g. one run on the sim and one on the GPU: integer fields
 * bit for bit, float fields within `float_ulps` units in the last place
 * (+0 == -0; any NaN equals any NaN); struct padding is ignored.  Each
 * buffer as its spec's "check" says: element by element ("exact"), as
 * multisets of elements ("multiset") or not at all ("none").  true when
 * they agree.  `report` receives a summary line (how many buffers were
 * compared exactly, as multisets, not at all), then per buffer the
 * mismatch count and the first mismatches (element, field, both values,
 * ulps; for a multiset, the elements without a partner), and a line for
 * each buffer not compared or compared as a multiset, with the spec's
 * check_why. */
bool harness_compare_outputs(const wh_image *a, const wh_image *b, double float_ulps,
                             char *report, size_t n);

/* Calibration (calibrate.c): the microbenchmarks of kernels/calib/ (one
 * spec each, in this order) run on a backend, and the machine-profile
 * values they measure, each a difference of two timed sections (calib.cu).
 * On the sim they give back its own profile's values; on a GPU, the
 * values a sim profile of that GPU needs. */
#define HARNESS_CALIB_KERNELS 18
extern const char *const harness_calib_kernels[HARNESS_CALIB_KERNELS];
#define HARNESS_CALIB_CLASSES 7
extern const char *const harness_calib_classes[HARNESS_CALIB_CLASSES];

typedef struct {
    char device[160];
    harness_backend backend;
    double clock_mhz;
    int sm_count;                     /* 0: not known (the sim keeps its profile's) */
    /* cycles per instruction class (harness_calib_classes: the sim's alu,
     * fma, fp64, sfu, idiv, fdiv, ddiv; calib.cu names the instruction
     * that stands for each): a dependent chain's step, and one of eight
     * independent chains' in a warp */
    double latency[HARNESS_CALIB_CLASSES], issue[HARNESS_CALIB_CLASSES];
    double global_latency;            /* a load that hits the L2, past the LSU's cycle */
    double dram_latency;              /* what a sector's first touch adds */
    double shared_latency;
    double wavefront_cycles;          /* each further wavefront of a bank conflict */
    double atomic_cycles_per_op;      /* one same-address operation, the grid contending (calib_contend) */
    int atomic_unit_bytes;            /* 128: a line's words share one queue; 4: a queue per word */
    double atomic_issue_cycles_per_op; /* one warp's same-address reductions as it issues them (calib_atomic) */
    double lsu_cycles_per_sector;     /* the load/store unit's time per sector of a request */
    double const_cycles_per_address;  /* each further address of a constant load */
    double shared_atomic_cycles_per_op; /* one same-word shared atomic */
    double l1_latency;                /* a load the L1 serves, past the LSU; 0: no L1 seen */
    uint64_t l1_bytes;                /* the largest footprint the L1 held (8 KB .. 1 MB); 0: none */
    uint64_t l2_bytes;                /* the device's (cuda); 0: not known */
    double l2_sectors_per_cycle;      /* the device's L2 bandwidth (warm passes of 16 MB) */
    double dram_sectors_per_cycle;    /* its DRAM bandwidth (16 MB against 48 MB, cold) */
    double stream_cycles[4];          /* the calib_stream_* launches' times, in cycles */
    double contend_cycles[4];         /* the calib_contend_* launches' times, in cycles */
    double divergence_extra;          /* what a divergent if costs a warp over a uniform one */
    double divergence_cycles;         /* the sim's parameter that gives it; 0: none seen */
    double bar_latency;               /* bar.sync of one warp */
    double empty_kernel_cycles;       /* a launch that does nothing, as the harness times it */
    long long raw[HARNESS_CALIB_KERNELS][16];  /* each kernel's section cycles (medians over reps) */
    int reps;
    /* The quantities (HARNESS_CQ_* bits) whose sections did not resolve
     * them: the longer section no longer than the shorter, as when a GPU
     * does the extra work in the shadow of a latency.  They are not
     * written to the profile (the built-in values stay) and `unresolved_why`
     * names the sections. */
    unsigned unresolved;
    char unresolved_why[600];
} harness_calibration;

/* The calibrated quantities, as bits of harness_calibration.unresolved:
 * one latency and one issue cost per class, then the memory and control
 * values (harness_calib_quantity_name gives the profile's names). */
enum {
    HARNESS_CQ_LATENCY = 0,   /* + class */
    HARNESS_CQ_ISSUE = HARNESS_CALIB_CLASSES,   /* + class */
    HARNESS_CQ_GLOBAL = 2 * HARNESS_CALIB_CLASSES,
    HARNESS_CQ_DRAM,
    HARNESS_CQ_SHARED,
    HARNESS_CQ_WAVEFRONT,
    HARNESS_CQ_ATOMIC,
    HARNESS_CQ_BAR,
    HARNESS_CQ_LSU,
    HARNESS_CQ_CONST,
    HARNESS_CQ_SATOMIC,
    HARNESS_CQ_L1,
    HARNESS_CQ_DIVERGE,
    HARNESS_CQ_ATOMIC_UNIT,
    HARNESS_CQ_COUNT
};
const char *harness_calib_quantity_name(int q);
/* The unresolved quantities' names, a JSON array (a new reference). */
struct json_t *harness_calib_unresolved_json(const harness_calibration *c);

/* Each kernel runs `reps` times (1 .. HARNESS_CALIB_MAX_REPS; 0: 1 on the
 * sim, which is exact, HARNESS_CALIB_GPU_REPS on a GPU); each section's
 * median counts. */
#define HARNESS_CALIB_MAX_REPS 101
#define HARNESS_CALIB_GPU_REPS 5
bool harness_calibrate(const wh_spec *const specs[HARNESS_CALIB_KERNELS], harness_backend backend,
                       const harness_options *opt, int reps, harness_calibration *out, wh_error *err);
/* The values from c's section cycles (raw, stream_cycles, and the empty
 * kernel's): harness_calibrate's last step, apart so that recorded cycles
 * can be fitted again.  False, with err, when a section is not a timing. */
bool harness_calibration_fit(harness_calibration *c, wh_error *err);
/* A sim profile (the format of harness/profiles/default.json) with the
 * measured values, named `name`, written to path; what it does not
 * measure stays the built-in profile's when it is loaded. */
bool harness_calibration_write_profile(const harness_calibration *c, const char *name, const char *path,
                                       wh_error *err);

#endif
