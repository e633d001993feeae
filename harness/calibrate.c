/*
 * calibrate.c — `warphunt calibrate`: the microbenchmarks of
 * kernels/calib/ run on a backend, the machine-profile values they
 * measure, and the sim profile written from them.
 *
 * Each microbenchmark times two sections of hand-written PTX with
 * %clock64 that differ only in how often the measured thing repeats, so
 * every value is a difference of cycle counts (calib.cu says why).  The
 * formulas mirror the sim's model (harness/sim/timing.c), so that
 * calibrating the sim gives back its own profile (the test of this file);
 * on a GPU they give the values the sim needs to rank inputs as the GPU
 * does (issue #24).  The SM count, clock and L2 size come from the device
 * description; the empty kernel's, the bandwidth streams' and the atomic
 * contention's times (whole grids, which no SM's clock can see) from the
 * harness.
 */
#include "harness/harness.h"

#include "core/image.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *const harness_calib_kernels[HARNESS_CALIB_KERNELS] = {
    "calib_chain", "calib_issue", "calib_global", "calib_shared", "calib_atomic", "calib_barrier", "calib_memory",
    "calib_l1", "calib_diverge", "calib_stream_dram_a", "calib_stream_dram_b", "calib_stream_l2_a",
    "calib_stream_l2_b", "calib_contend_word_a", "calib_contend_word_b", "calib_contend_line_a",
    "calib_contend_line_b", "calib_empty",
};

/* calib_chain's and calib_issue's sections, in the sim profile's names */
const char *const harness_calib_classes[HARNESS_CALIB_CLASSES] = {
    "alu", "fma", "fp64", "sfu", "idiv", "fdiv", "ddiv",
};

/* Instructions between two loads of a pointer chase (calib.cu's HOP_*):
 * all on the ALU's latency. */
#define HOP_ALU_OPS 4
/* Sections' sizes: how many more of the measured thing the longer one has. */
#define CHAIN_EXTRA 32         /* steps of a dependent chain */
#define ISSUE_EXTRA 64         /* steps of eight independent chains */
#define HOPS_EXTRA 32          /* chase hops */
#define BANK_LOADS 8           /* loads, each 32-way conflicted or not */
#define ATOMIC_ISSUE_EXTRA (8 * 32) /* same-address operations (8 warp reductions) */
#define BARRIER_EXTRA 8
#define LSU_EXTRA (8 * 32)     /* sectors (8 loads of 32) */
#define CONST_EXTRA (8 * 31)   /* further addresses (8 hops of 32 against 1) */
#define SATOMIC_EXTRA 8        /* same-word shared reductions by a warp */
#define L1_FOOTPRINTS 8        /* calib_l1's chases: 8 KB << 0..7 */
#define DIVERGE_EXTRA 16       /* calib_diverge's iterations, 32 against 16 */
/* The sim charges a divergent branch divergence_cycles past its issue and
 * any branch the control class's latency (4 in the built-in profile, which
 * a calibrated one keeps): a divergence costs what exceeds the latency. */
#define CTRL_LATENCY 4
/* calib_stream's specs: 16 then 48 MB once, from DRAM (the L2 flushed
 * first on a GPU); 16 MB five then nine times, the passes after the
 * first from the L2 */
#define STREAM_FIRST 9
#define DRAM_EXTRA_SECTORS ((48.0 - 16.0) * 1024 * 1024 / 32)
#define L2_EXTRA_SECTORS (4 * 16.0 * 1024 * 1024 / 32)
/* calib_contend's specs: 64 x 256 threads, each 4 then 12 reductions on
 * one word, and on 32 words of a line (a warp on each) */
#define CONTEND_FIRST (STREAM_FIRST + 4)
#define CONTEND_EXTRA_OPS (8.0 * 64 * 256)
/* the unit the sim's atomic queues have when a line is served as one */
#define LINE_BYTES 128

/* Runs spec once on h and reads its `out` buffer (up to sixteen cycle
 * counts). */
static bool run_one(harness *h, const wh_spec *spec, long long raw[16], double *time, wh_error *err)
{
    wh_launch L = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &L, err);
    if (!img)
        return false;
    harness_result res;
    bool ok = harness_measure(h, img, 1, &res, err);
    if (ok && res.status != HARNESS_OK) {
        wh_error_set(err, WH_ERR_DEVICE, spec->name, 0, 0, "calibration kernel %s: %s: %s", spec->name,
                     harness_status_name(res.status), res.message);
        ok = false;
    }
    if (ok) {
        *time = res.min;
        memset(raw, 0, 16 * sizeof *raw);
        for (int i = 0; i < img->nbufs; i++)
            if (!strcmp(img->bufs[i].param->name, "out") && img->bufs[i].data)
                memcpy(raw, img->bufs[i].data, img->bufs[i].bytes < 128 ? img->bufs[i].bytes : 128);
    }
    harness_result_free(&res);   /* harness_measure zeroes it first, so this is safe on every path */
    wh_image_free(img);
    return ok;
}

static int by_value(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* run_one `reps` times (a GPU's clock and caches vary from launch to
 * launch): each section's median cycles, and the shortest time. */
static bool run_repeated(harness *h, const wh_spec *spec, int reps, long long raw[16], double *time, wh_error *err)
{
    long long all[16][HARNESS_CALIB_MAX_REPS];
    *time = 0;
    for (int r = 0; r < reps; r++) {
        long long one[16];
        double t = 0;
        if (!run_one(h, spec, one, &t, err))
            return false;
        *time = r == 0 || t < *time ? t : *time;
        for (int i = 0; i < 16; i++)
            all[i][r] = one[i];
    }
    for (int i = 0; i < 16; i++) {
        qsort(all[i], (size_t)reps, sizeof all[i][0], by_value);
        raw[i] = all[i][reps / 2];
    }
    return true;
}

const char *harness_calib_quantity_name(int q)
{
    static const char *const lat[HARNESS_CALIB_CLASSES] = {
        "costs.alu.latency", "costs.fma.latency", "costs.fp64.latency", "costs.sfu.latency",
        "costs.idiv.latency", "costs.fdiv.latency", "costs.ddiv.latency",
    };
    static const char *const iss[HARNESS_CALIB_CLASSES] = {
        "costs.alu.issue", "costs.fma.issue", "costs.fp64.issue", "costs.sfu.issue",
        "costs.idiv.issue", "costs.fdiv.issue", "costs.ddiv.issue",
    };
    static const char *const other[] = {
        "costs.global.latency", "memory.dram_latency", "costs.shared.latency",
        "memory.shared_cycles_per_wavefront", "memory.atomic_cycles_per_op", "costs.bar.latency",
        "memory.lsu_cycles_per_sector", "memory.const_cycles_per_address", "memory.shared_atomic_cycles_per_op",
        "memory.l1_latency", "control.divergence_cycles", "memory.atomic_unit_bytes",
    };
    if (q >= 0 && q < HARNESS_CQ_ISSUE)
        return lat[q];
    if (q >= HARNESS_CQ_ISSUE && q < HARNESS_CQ_GLOBAL)
        return iss[q - HARNESS_CQ_ISSUE];
    if (q >= HARNESS_CQ_GLOBAL && q < HARNESS_CQ_COUNT)
        return other[q - HARNESS_CQ_GLOBAL];
    return "?";
}

#define BIT(q) (1u << (q))

json_t *harness_calib_unresolved_json(const harness_calibration *c)
{
    json_t *a = json_array();
    for (int q = 0; q < HARNESS_CQ_COUNT; q++)
        if (c->unresolved & BIT(q))
            json_array_append_new(a, json_string(harness_calib_quantity_name(q)));
    return a;
}

/* The quantities a pair of sections (kernel k, pair i) enters, directly or
 * through a value subtracted (the ALU's latency from a chase's hop, the
 * wavefront from a shared chase's and a shared atomic's). */
static unsigned pair_quantities(int k, int i)
{
    switch (k) {
    case 0: return BIT(HARNESS_CQ_LATENCY + i) |
                   (i == 0 ? BIT(HARNESS_CQ_GLOBAL) | BIT(HARNESS_CQ_SHARED) | BIT(HARNESS_CQ_L1) : 0);
    case 1: return BIT(HARNESS_CQ_ISSUE + i);
    case 2: return i == 0 ? BIT(HARNESS_CQ_DRAM)
                          : BIT(HARNESS_CQ_GLOBAL) | BIT(HARNESS_CQ_DRAM) | BIT(HARNESS_CQ_L1);
    case 3: return i == 0 ? BIT(HARNESS_CQ_SHARED)
                          : BIT(HARNESS_CQ_WAVEFRONT) | BIT(HARNESS_CQ_SHARED) | BIT(HARNESS_CQ_SATOMIC);
    case 4: return 0;   /* one warp's issue rate: reported, not a profile value */
    case 5: return BIT(HARNESS_CQ_BAR);
    case 6: return i == 0 ? BIT(HARNESS_CQ_LSU) : i == 3 ? BIT(HARNESS_CQ_SATOMIC) : BIT(HARNESS_CQ_CONST);
    case 7: return BIT(HARNESS_CQ_L1);
    default: return BIT(HARNESS_CQ_DIVERGE);
    }
}

/* Every timed section counted (a backend that does not run the kernel, a
 * driver stub, leaves zeros: an error); a pair whose longer section is no
 * longer leaves the quantities it enters unresolved, named with the
 * sections' cycles, and the rest of the calibration stands. */
static bool check_sections(harness_calibration *c, wh_error *err)
{
    static const int pairs[HARNESS_CALIB_KERNELS] = { HARNESS_CALIB_CLASSES, HARNESS_CALIB_CLASSES, 2, 2, 1, 1, 4, 1,
                                                      2, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    size_t used = 0;
    c->unresolved = 0;
    c->unresolved_why[0] = 0;
    for (int k = 0; k < HARNESS_CALIB_KERNELS; k++)
        for (int i = 0; i < pairs[k]; i++) {
            long long a = c->raw[k][2 * i], b = c->raw[k][2 * i + 1];
            if (a <= 0 || b <= 0) {
                wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "calibration kernel %s: sections of %lld and %lld "
                             "cycles are not a timing (does %s run the kernel?)", harness_calib_kernels[k], a, b,
                             c->device);
                return false;
            }
            if (b > a)
                continue;
            c->unresolved |= pair_quantities(k, i);
            if (used < sizeof c->unresolved_why) {
                int n = snprintf(c->unresolved_why + used, sizeof c->unresolved_why - used, "%s%s pair %d: %lld "
                                 "and %lld cycles", used ? "; " : "", harness_calib_kernels[k], i, a, b);
                used += n > 0 ? (size_t)n : 0;
            }
        }
    const double *st = c->stream_cycles, *ct = c->contend_cycles;
    if (!(st[1] > st[0] && st[3] > st[2])) {
        wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "calibration kernels calib_stream_*: %g, %g, %g and %g "
                     "cycles are not a timing (more data must take longer)", st[0], st[1], st[2], st[3]);
        return false;
    }
    if (!(ct[1] > ct[0]))
        c->unresolved |= BIT(HARNESS_CQ_ATOMIC) | BIT(HARNESS_CQ_ATOMIC_UNIT);
    else if (!(ct[3] > ct[2]))
        c->unresolved |= BIT(HARNESS_CQ_ATOMIC_UNIT);
    if (!(ct[1] > ct[0] && ct[3] > ct[2]) && used < sizeof c->unresolved_why)
        snprintf(c->unresolved_why + used, sizeof c->unresolved_why - used, "%scalib_contend_*: %g, %g, %g and %g "
                 "cycles", used ? "; " : "", ct[0], ct[1], ct[2], ct[3]);
    return true;
}

/* The L1 (calib_l1): a plain load's warm chase against the .cg one
 * (l2_hop): no faster, no L1 to model; else its hit latency (the hop less
 * `other`: the address arithmetic and the load/store unit) and its size,
 * the largest footprint whose chase stays within a quarter of the
 * smallest's hop (an LRU cache walked in a cycle misses every hop once
 * the footprint is past its size). */
static void fit_l1(harness_calibration *c, const long long *r, double l2_hop, double other)
{
    double hop = (double)(r[1] - r[0]) / HOPS_EXTRA;
    c->l1_latency = 0;
    c->l1_bytes = 0;
    if (!(hop < 0.9 * l2_hop))
        return;
    c->l1_latency = hop - other;
    double first = (double)r[2] / (8192.0 / 128);
    for (int i = 0; i < L1_FOOTPRINTS; i++) {
        uint64_t bytes = (uint64_t)8192 << i;
        if ((double)r[2 + i] / (double)(bytes / 128) > 1.25 * first)
            break;
        c->l1_bytes = bytes;
    }
}

/* The model's values from the sections' cycle counts (see calib.cu and the
 * sim's timing.c). */
static void fit(harness_calibration *c)
{
    const long long(*r)[16] = (const long long(*)[16])c->raw;
    for (int k = 0; k < HARNESS_CALIB_CLASSES; k++) {
        c->latency[k] = (double)(r[0][2 * k + 1] - r[0][2 * k]) / CHAIN_EXTRA;
        c->issue[k] = (double)(r[1][2 * k + 1] - r[1][2 * k]) / ISSUE_EXTRA;
    }
    double alu_latency = c->latency[0];
    c->lsu_cycles_per_sector = (double)(r[6][1] - r[6][0]) / LSU_EXTRA;
    c->const_cycles_per_address = (double)((r[6][5] - r[6][4]) - (r[6][3] - r[6][2])) / CONST_EXTRA;
    double cold = (double)(r[2][1] - r[2][0]) / HOPS_EXTRA, warm = (double)(r[2][3] - r[2][2]) / HOPS_EXTRA;
    /* a warm hop: the address arithmetic, one sector through the load/store
     * unit (a cycle at least), the L2 latency; a cold one waits for DRAM
     * instead of that unit */
    double one_sector = c->lsu_cycles_per_sector > 1 ? c->lsu_cycles_per_sector : 1;
    c->global_latency = warm - HOP_ALU_OPS * alu_latency - one_sector;
    c->dram_latency = cold - warm + one_sector;
    fit_l1(c, r[7], warm, HOP_ALU_OPS * alu_latency + one_sector);
    c->wavefront_cycles = (double)(r[3][3] - r[3][2]) / (BANK_LOADS * 31.0);
    double shop = (double)(r[3][1] - r[3][0]) / HOPS_EXTRA;
    c->shared_latency = shop - HOP_ALU_OPS * alu_latency - c->wavefront_cycles;
    c->atomic_issue_cycles_per_op = (double)(r[4][1] - r[4][0]) / ATOMIC_ISSUE_EXTRA;
    /* the grid's operations on one word queue one behind another; on a line
     * they take as long when the line is served as one unit, a 32nd as long
     * when each word has a queue of its own */
    const double *ct = c->contend_cycles;
    c->atomic_cycles_per_op = (ct[1] - ct[0]) / CONTEND_EXTRA_OPS;
    double line = (ct[3] - ct[2]) / CONTEND_EXTRA_OPS;
    c->atomic_unit_bytes = line >= 0.5 * c->atomic_cycles_per_op ? LINE_BYTES : 4;
    double extra = (double)((r[8][3] - r[8][2]) - (r[8][1] - r[8][0])) / DIVERGE_EXTRA;
    c->divergence_extra = extra;
    c->divergence_cycles = extra > 0 ? extra + CTRL_LATENCY - 1 : 0;
    c->dram_sectors_per_cycle = DRAM_EXTRA_SECTORS / (c->stream_cycles[1] - c->stream_cycles[0]);
    c->l2_sectors_per_cycle = L2_EXTRA_SECTORS / (c->stream_cycles[3] - c->stream_cycles[2]);
    /* a warp's same-word shared atomic: one wavefront, then each lane */
    c->shared_atomic_cycles_per_op = ((double)(r[6][7] - r[6][6]) / SATOMIC_EXTRA - c->wavefront_cycles) / 32;
    c->bar_latency = (double)(r[5][1] - r[5][0]) / BARRIER_EXTRA;
}

/* Kernels run with the L2 flushed before each repetition: the streams'
 * DRAM figures, and calib_global's first pass, whose chain the upload of
 * its input has just written through the L2 (an H200 measured the "first
 * touch" at only 42 cycles over an L2 hit without the flush). */
static bool runs_cold(int k)
{
    return !strcmp(harness_calib_kernels[k], "calib_global") || (k >= STREAM_FIRST && k < STREAM_FIRST + 4);
}

bool harness_calibrate(const wh_spec *const specs[HARNESS_CALIB_KERNELS], harness_backend backend,
                       const harness_options *opt, int reps, harness_calibration *out, wh_error *err)
{
    memset(out, 0, sizeof *out);
    if (reps < 0 || reps > HARNESS_CALIB_MAX_REPS) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "calibration repetitions must be 1 to %d (0: the default), "
                     "not %d", HARNESS_CALIB_MAX_REPS, reps);
        return false;
    }
    out->reps = reps;
    harness_options o = *opt;
    o.want_outputs = true;
    for (int k = 0; k < HARNESS_CALIB_KERNELS; k++) {
        if (!specs[k] || strcmp(specs[k]->name, harness_calib_kernels[k])) {
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "calibration kernel %d is not %s", k,
                         harness_calib_kernels[k]);
            return false;
        }
        o.cold_l2 = opt->cold_l2 || runs_cold(k);
        harness *h = harness_open(specs[k], backend, &o, err);
        if (!h)
            return false;
        if (k == 0) {
            snprintf(out->device, sizeof out->device, "%s", harness_device(h));
            out->clock_mhz = harness_clock_mhz(h);
            out->backend = harness_backend_of(h);
            if (reps == 0)   /* the default: the sim is exact */
                reps = out->backend == HARNESS_SIM ? 1 : HARNESS_CALIB_GPU_REPS;
            out->reps = reps;
            json_t *dev = harness_device_json(h);
            json_t *sms = json_object_get(dev, "sm_count"), *l2 = json_object_get(dev, "l2_bytes");
            out->sm_count = json_is_integer(sms) ? (int)json_integer_value(sms) : 0;
            out->l2_bytes = json_is_integer(l2) && json_integer_value(l2) > 0 ? (uint64_t)json_integer_value(l2) : 0;
            json_decref(dev);
        }
        double t = 0;
        bool ok = run_repeated(h, specs[k], reps, out->raw[k], &t, err);
        double cycles = !strcmp(harness_unit(h), "us") ? t * out->clock_mhz : t;
        if (ok && k == HARNESS_CALIB_KERNELS - 1)
            out->empty_kernel_cycles = cycles;
        if (ok && k >= STREAM_FIRST && k < STREAM_FIRST + 4)
            out->stream_cycles[k - STREAM_FIRST] = cycles;
        if (ok && k >= CONTEND_FIRST && k < CONTEND_FIRST + 4)
            out->contend_cycles[k - CONTEND_FIRST] = cycles;
        harness_close(h);
        if (!ok)
            return false;
    }
    return harness_calibration_fit(out, err);
}

bool harness_calibration_fit(harness_calibration *c, wh_error *err)
{
    if (!check_sections(c, err))
        return false;
    fit(c);
    return true;
}

/* Values rounded to a hundredth: what the microbenchmarks resolve. */
static double r2(double v)
{
    return round(v * 100.0) / 100.0;
}

/* key: v in o, unless quantity q is unresolved (the built-in value stays). */
static void put_value(const harness_calibration *c, int q, json_t *o, const char *key, double v)
{
    if (!(c->unresolved & BIT(q)))
        json_object_set_new(o, key, json_real(r2(v)));
}

bool harness_calibration_write_profile(const harness_calibration *c, const char *name, const char *path,
                                       wh_error *err)
{
    char desc[400];
    snprintf(desc, sizeof desc, "calibrated by `warphunt calibrate` on %s (%s backend); the values it does not "
             "measure are the built-in profile's", c->device, harness_backend_name(c->backend));
    /* the sim charges an empty kernel its launch, one block launch (150
     * cycles in the built-in profile, which stays) and a cycle */
    double launch = c->empty_kernel_cycles - 150 - 1;
    json_t *costs = json_object(), *memory = json_object(), *control = json_object();
    for (int k = 0; k < HARNESS_CALIB_CLASSES; k++) {
        json_t *cls = json_object();
        put_value(c, HARNESS_CQ_ISSUE + k, cls, "issue", c->issue[k]);
        put_value(c, HARNESS_CQ_LATENCY + k, cls, "latency", c->latency[k]);
        json_object_set_new(costs, harness_calib_classes[k], cls);
    }
    static const struct { int q; const char *object, *key; size_t offset; } fields[] = {
        { HARNESS_CQ_GLOBAL, "global", "latency", offsetof(harness_calibration, global_latency) },
        { HARNESS_CQ_SHARED, "shared", "latency", offsetof(harness_calibration, shared_latency) },
        { HARNESS_CQ_BAR, "bar", "latency", offsetof(harness_calibration, bar_latency) },
        { HARNESS_CQ_DRAM, NULL, "dram_latency", offsetof(harness_calibration, dram_latency) },
        { HARNESS_CQ_WAVEFRONT, NULL, "shared_cycles_per_wavefront", offsetof(harness_calibration, wavefront_cycles) },
        { HARNESS_CQ_ATOMIC, NULL, "atomic_cycles_per_op", offsetof(harness_calibration, atomic_cycles_per_op) },
        { HARNESS_CQ_LSU, NULL, "lsu_cycles_per_sector", offsetof(harness_calibration, lsu_cycles_per_sector) },
        { HARNESS_CQ_CONST, NULL, "const_cycles_per_address",
          offsetof(harness_calibration, const_cycles_per_address) },
        { HARNESS_CQ_SATOMIC, NULL, "shared_atomic_cycles_per_op",
          offsetof(harness_calibration, shared_atomic_cycles_per_op) },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        double v = *(const double *)((const char *)c + fields[i].offset);
        if (!fields[i].object) {
            put_value(c, fields[i].q, memory, fields[i].key, v);
            continue;
        }
        json_t *o = json_object();
        put_value(c, fields[i].q, o, fields[i].key, v);
        json_object_set_new(costs, fields[i].object, o);
    }
    json_object_set_new(memory, "l2_sectors_per_cycle", json_real(r2(c->l2_sectors_per_cycle)));
    json_object_set_new(memory, "dram_sectors_per_cycle", json_real(r2(c->dram_sectors_per_cycle)));
    if (c->l1_bytes && !(c->unresolved & BIT(HARNESS_CQ_L1))) {
        json_object_set_new(memory, "l1_bytes", json_integer((json_int_t)c->l1_bytes));
        json_object_set_new(memory, "l1_latency", json_real(r2(c->l1_latency)));
    }
    if (c->l2_bytes)
        json_object_set_new(memory, "l2_bytes", json_integer((json_int_t)c->l2_bytes));
    if (!(c->unresolved & BIT(HARNESS_CQ_ATOMIC_UNIT)))
        json_object_set_new(memory, "atomic_unit_bytes", json_integer(c->atomic_unit_bytes));
    json_object_set_new(control, "kernel_launch_cycles", json_real(r2(launch > 0 ? launch : 0)));
    if (c->divergence_cycles > 0)
        put_value(c, HARNESS_CQ_DIVERGE, control, "divergence_cycles", c->divergence_cycles);
    json_t *raw = json_object();
    for (int k = 0; k < STREAM_FIRST; k++) {
        json_t *a = json_array();
        int n = k < 2 ? 2 * HARNESS_CALIB_CLASSES : k == 6 ? 8 : k == 7 ? 2 + L1_FOOTPRINTS : 4;   /* calib_diverge: 4 */
        for (int i = 0; i < n; i++)
            json_array_append_new(a, json_integer(c->raw[k][i]));
        json_object_set_new(raw, harness_calib_kernels[k], a);
    }
    json_object_set_new(raw, "empty_kernel_cycles", json_real(c->empty_kernel_cycles));
    if (c->unresolved) {
        json_object_set_new(raw, "unresolved", harness_calib_unresolved_json(c));
        json_object_set_new(raw, "unresolved_sections", json_string(c->unresolved_why));
    }
    json_object_set_new(raw, "stream_cycles", json_pack("[f, f, f, f]", c->stream_cycles[0], c->stream_cycles[1],
                                                        c->stream_cycles[2], c->stream_cycles[3]));
    json_object_set_new(raw, "contend_cycles", json_pack("[f, f, f, f]", c->contend_cycles[0], c->contend_cycles[1],
                                                         c->contend_cycles[2], c->contend_cycles[3]));
    json_object_set_new(raw, "atomic_issue_cycles_per_op", json_real(r2(c->atomic_issue_cycles_per_op)));
    json_t *doc = json_pack("{s:s, s:s, s:f, s:o, s:o, s:o, s:o}", "name", name, "description", desc, "clock_mhz",
                            c->clock_mhz, "costs", costs, "memory", memory, "control", control, "calibration", raw);
    if (doc && c->sm_count > 0)
        json_object_set_new(doc, "sm", json_pack("{s:i}", "count", c->sm_count));
    if (!doc || json_dump_file(doc, path, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot write the profile");
        json_decref(doc);
        return false;
    }
    json_decref(doc);
    return true;
}
