/*
 * test_cuda_fake.c — the cuda backend end to end, driver code included
 * (harness/cuda/engine.c), against the fake CUDA driver of
 * tests/fakecuda/ (built beside the test runner as libfakecuda.so and
 * libfakecuda_old.so, selected with $WARPHUNT_LIBCUDA).  The fake is not a
 * GPU: it runs the kernel fake_inc (tests/ptx/fake_inc.cu, spec
 * tests/specs/cuda_fake_inc.json) in C, keeps a virtual clock for its
 * events, and logs every driver call to a file this test reads.
 *
 * What is checked: the probe and `--backend auto` find the driver; the
 * device description (name, SMs, clock, L2, driver version, registers);
 * the launch alone is timed (in microseconds); every repetition starts
 * from the pristine input and a zeroed output; want_all_buffers; cold L2
 * writes more than the L2 before every launch; a fault and a trap are
 * findings and the next measurement works in a new worker; a hang is
 * killed by the watchdog (in a warm-up and in the timed launch); JIT
 * errors show the JIT's log, and PTX too new for the driver or for the
 * device says how to rebuild it; init failures and a bad device index are
 * explained; an older driver without the _v2 entry points; timed launches
 * are gated behind a stream wait on a host word, and ungated (said so)
 * where the driver refuses stream waits; dynamic shared
 * memory is opted into when it and the kernel's static shared memory pass
 * 48 KiB; the worker releases everything it allocated; the fake's own JIT
 * log sizes and sticky errors; `warphunt measure --backend cuda` with
 * --check (agreement and disagreement with the sim), --cold-l2,
 * --kernel-timeout, a fault and a JIT error.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/clock.h"
#include "core/image.h"
#include "harness/cuda/api.h"
#include "harness/cuda/cuda.h"
#include "harness/harness.h"
#include "tests/fakecuda/fakecuda.h"
#include "tests/sim_support.h"
#include "tests/support.h"

#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef FAKECUDA_DRIVER_VERSION         /* no cuda.h: no fake either, and fake_path fails */
#define FAKECUDA_DRIVER_VERSION 0
#endif

#define SPEC "tests/specs/cuda_fake_inc.json"
#define PTX "build/ptx/tests/ptx/fake_inc.ptx"
#define THREADS 256
/* What the fake's virtual clock gives one launch of fake_inc over THREADS. */
#define KERNEL_US ((FAKECUDA_KERNEL_NS + THREADS * FAKECUDA_THREAD_NS) / 1000.0)

/* ------------------------------------------------------------------------ */
/* The fake and its log                                                     */
/* ------------------------------------------------------------------------ */

/* $(BUILD)/NAME: the fake lives beside the test runner (make test builds both). */
static void fake_path(const char *name, char *buf, size_t n)
{
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert(k > 0, "readlink /proc/self/exe: %s", strerror(errno));
    exe[k] = 0;
    snprintf(buf, n, "%s/%s", dirname(exe), name);
    cr_assert(access(buf, R_OK) == 0, "%s is missing: the fake CUDA driver is built by make test / make check",
              buf);
}

typedef struct {
    long pid;
    char op[32];
    char rest[480];
} logline;

typedef struct {
    logline *l;
    int n;
} fakelog;

static fakelog read_log(const char *path)
{
    fakelog g = { NULL, 0 };
    FILE *f = fopen(path, "r");
    if (!f)
        return g;
    char line[1024];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (g.n == cap) {
            cap = cap ? 2 * cap : 64;
            g.l = realloc(g.l, (size_t)cap * sizeof *g.l);
            cr_assert(g.l);
        }
        logline *e = &g.l[g.n];
        memset(e, 0, sizeof *e);
        int used = 0;
        if (sscanf(line, "%ld %31s %n", &e->pid, e->op, &used) < 2)
            continue;
        snprintf(e->rest, sizeof e->rest, "%s", line + used);
        g.n++;
    }
    fclose(f);
    return g;
}

static int count_op(const fakelog *g, const char *op)
{
    int n = 0;
    for (int i = 0; i < g->n; i++)
        n += !strcmp(g->l[i].op, op);
    return n;
}

/* Distinct pids that called cuInit, in order. */
static int init_pids(const fakelog *g, long *pids, int max)
{
    int n = 0;
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->l[i].op, "init") && n < max)
            pids[n++] = g->l[i].pid;
    return n;
}

typedef struct {
    char dir[64], log[128], lib[PATH_MAX];
    wh_spec *spec;
    wh_image *img;
} fx;

static void fx_open_lib(fx *f, const char *libname)
{
    memset(f, 0, sizeof *f);
    cr_assert(access(PTX, R_OK) == 0, PTX " is missing: make ptx (make test builds it)");
    fake_path(libname, f->lib, sizeof f->lib);
    snprintf(f->dir, sizeof f->dir, "/tmp/wh_fakecuda_XXXXXX");
    tsim_mkdtemp(f->dir);
    snprintf(f->log, sizeof f->log, "%s/driver.log", f->dir);
    setenv(WH_CUDA_LIB_ENV, f->lib, 1);
    setenv(FAKECUDA_LOG_ENV, f->log, 1);
    unsetenv(FAKECUDA_INIT_ERROR_ENV);
    unsetenv(FAKECUDA_DEVICES_ENV);
    unsetenv(FAKECUDA_JIT_FAIL_ENV);
    unsetenv(FAKECUDA_WRONG_ENV);
    unsetenv(FAKECUDA_NO_STREAM_WAIT_ENV);
    unsetenv(FAKECUDA_NO_PINNED_ENV);
    wh_error err;
    f->spec = wh_spec_load(SPEC, &err);
    cr_assert(f->spec, "%s: %s", err.path, err.msg);
    wh_launch l = wh_spec_launch_full(f->spec);
    f->img = wh_image_new(f->spec, &l, &err);
    cr_assert(f->img, "%s", err.msg);
    cr_assert_eq(f->img->bufs[0].count, THREADS);
    uint32_t *d = (uint32_t *)f->img->bufs[0].data;
    for (int i = 0; i < THREADS; i++)
        d[i] = (uint32_t)(3 * i + 10);
}

static void fx_open(fx *f)
{
    fx_open_lib(f, "libfakecuda.so");
}

static void fx_close(fx *f)
{
    wh_image_free(f->img);
    wh_spec_free(f->spec);
    ts_rmtree(f->dir);
}

/* "driver 13.0" (with_word) or "13.0" for a cuDriverGetVersion value. */
static const char *driver_text(int v, bool with_word)
{
    static char buf[2][32];
    char *b = buf[with_word];
    snprintf(b, sizeof buf[0], "%s%d.%d", with_word ? "driver " : "", v / 1000, (v % 1000) / 10);
    return b;
}

/* A variant of the spec in the fixture's directory, DIR/NAME.json, with
 * its own copy of the PTX (DIR/NAME.ptx) whose .version and .target lines
 * are replaced when given, the input domain [0, range_hi], the entry and
 * the dynamic shared memory.  Returns the spec's path (static buffer). */
static const char *write_variant(fx *f, const char *name, const char *version, const char *target,
                                 unsigned range_hi, const char *entry, unsigned shared_bytes)
{
    static char spec_path[300];
    char ptx_path[300], cwd[1024], text[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    FILE *in = fopen(PTX, "r");
    cr_assert(in, PTX);
    snprintf(ptx_path, sizeof ptx_path, "%s/%s.ptx", f->dir, name);
    FILE *out = fopen(ptx_path, "w");
    cr_assert(out, "%s", ptx_path);
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        if (version && !strncmp(line, ".version", 8))
            fprintf(out, ".version %s\n", version);
        else if (target && !strncmp(line, ".target", 7))
            fprintf(out, ".target %s\n", target);
        else
            fputs(line, out);
    }
    fclose(in);
    fclose(out);
    snprintf(text, sizeof text,
             "{ \"name\": \"%s\", \"source\": \"%s/tests/ptx/fake_inc.cu\", \"ptx\": \"%s.ptx\",\n"
             "  \"entry\": \"%s\", \"grid\": [4], \"block\": [64], \"shared_bytes\": %u,\n"
             "  \"params\": [\n"
             "    { \"name\": \"data\", \"kind\": \"buffer\", \"type\": \"u32\", \"count\": \"threads\",\n"
             "      \"role\": \"input\", \"per_thread\": 1, \"range\": [0, %u] },\n"
             "    { \"name\": \"out\", \"kind\": \"buffer\", \"type\": \"u32\", \"count\": \"threads\",\n"
             "      \"role\": \"output\" },\n"
             "    { \"name\": \"n\", \"kind\": \"scalar\", \"type\": \"i32\", \"value\": \"threads\" } ] }\n",
             name, cwd, name, entry, shared_bytes, range_hi);
    char file[64];
    snprintf(file, sizeof file, "%s.json", name);
    tsim_write(f->dir, file, text);
    snprintf(spec_path, sizeof spec_path, "%s/%s.json", f->dir, name);
    return spec_path;
}

/* The ISA version of the built PTX, major * 10 + minor. */
static int built_ptx_isa(void)
{
    FILE *in = fopen(PTX, "r");
    cr_assert(in, PTX);
    char line[256];
    int maj = 0, min = 0;
    while (fgets(line, sizeof line, in))
        if (sscanf(line, ".version %d.%d", &maj, &min) == 2)
            break;
    fclose(in);
    return maj * 10 + min;
}

static uint32_t *data_of(fx *f) { return (uint32_t *)f->img->bufs[0].data; }
static uint32_t *out_of(fx *f) { return (uint32_t *)f->img->bufs[1].data; }

static harness_options opts(bool want_outputs)
{
    harness_options o;
    harness_options_init(&o);
    o.want_outputs = want_outputs;
    o.quiet = true;
    return o;
}

static harness *open_cuda(fx *f, const harness_options *o)
{
    wh_error err;
    wh_error_clear(&err);
    harness *h = harness_open(f->spec, HARNESS_CUDA, o, &err);
    cr_assert(h, "harness_open(cuda) with the fake driver: %s", err.msg);
    cr_assert_eq(harness_backend_of(h), HARNESS_CUDA);
    return h;
}

static harness_result measure(harness *h, fx *f, int reps)
{
    harness_result r;
    wh_error err;
    wh_error_clear(&err);
    cr_assert(harness_measure(h, f->img, reps, &r, &err), "harness_measure: %s", err.msg);
    return r;
}

static harness_result measure_ok(harness *h, fx *f, int reps)
{
    harness_result r = measure(h, f, reps);
    cr_assert_eq(r.status, HARNESS_OK, "status %s: %s", harness_status_name(r.status), r.message);
    cr_assert_eq(r.reps, reps);
    return r;
}

static bool fake_loaded_here(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    return h != NULL;
}

/* The launches of the log: line index, data and out device addresses. */
typedef struct {
    int at;
    unsigned long long data, out;
    unsigned shared;
} launch_t;

static int launches_of(const fakelog *g, launch_t *ls, int max)
{
    int n = 0;
    for (int i = 0; i < g->n && n < max; i++) {
        if (strcmp(g->l[i].op, "launch") != 0)
            continue;
        launch_t *l = &ls[n];
        unsigned gx, gy, gz, bx, by, bz;
        int nn;
        int k = sscanf(g->l[i].rest, "fake_inc %u %u %u %u %u %u %u params %llx %llx %d", &gx, &gy, &gz,
                       &bx, &by, &bz, &l->shared, &l->data, &l->out, &nn);
        cr_assert_eq(k, 10, "launch line: %s", g->l[i].rest);
        cr_expect_eq(nn, THREADS);
        l->at = i;
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Harness API                                                              */
/* ------------------------------------------------------------------------ */

Test(fake_cuda, the_probe_finds_the_driver_and_auto_picks_cuda)
{
    fx f;
    fx_open(&f);
    char why[1024];
    cr_assert(harness_cuda_available(why, sizeof why), "probe: %s", why);
    cr_expect(strstr(why, FAKECUDA_NAME), "%s", why);
    cr_expect(strstr(why, driver_text(FAKECUDA_DRIVER_VERSION, true)), "%s", why);
    cr_expect(strstr(why, f.lib), "the probe names the library: %s", why);

    harness_options o = opts(false);
    wh_error err;
    harness *h = harness_open(f.spec, HARNESS_AUTO, &o, &err);
    cr_assert(h, "%s", err.msg);
    cr_expect_eq(harness_backend_of(h), HARNESS_CUDA, "auto uses the GPU the probe found");
    harness_close(h);

    setenv(FAKECUDA_DEVICES_ENV, "0", 1);
    cr_expect(!harness_cuda_available(why, sizeof why));
    cr_expect(strstr(why, "no CUDA device"), "%s", why);
    h = harness_open(f.spec, HARNESS_AUTO, &o, &err);
    cr_assert(h, "%s", err.msg);
    cr_expect_eq(harness_backend_of(h), HARNESS_SIM, "no device: auto falls back to the sim");
    harness_close(h);
    fx_close(&f);
}

Test(fake_cuda, measure_describes_the_device_and_times_the_launch_alone)
{
    fx f;
    fx_open(&f);
    harness_options o = opts(false);
    harness *h = open_cuda(&f, &o);
    const char *dev = harness_device(h);
    cr_expect(strstr(dev, "cuda: " FAKECUDA_NAME), "%s", dev);
    cr_expect(strstr(dev, "sm_86"), "%s", dev);
    cr_expect(strstr(dev, "7 SMs"), "%s", dev);
    cr_expect(strstr(dev, "1234 MHz"), "%s", dev);
    cr_expect(strstr(dev, "L2 3 MiB"), "%s", dev);
    cr_expect(strstr(dev, driver_text(FAKECUDA_DRIVER_VERSION, true)), "%s", dev);
    cr_expect_float_eq(harness_clock_mhz(h), 1234.0, 1e-9);
    cr_expect_str_eq(harness_unit(h), "us");
    const harness_cuda_info *i = harness_cuda_info_of(h);
    cr_assert(i);
    cr_expect_str_eq(i->name, FAKECUDA_NAME);
    cr_expect_eq(i->cc_major, FAKECUDA_CC_MAJOR);
    cr_expect_eq(i->cc_minor, FAKECUDA_CC_MINOR);
    cr_expect_eq(i->sm_count, FAKECUDA_SM_COUNT);
    cr_expect_eq(i->clock_khz, FAKECUDA_CLOCK_KHZ);
    cr_expect_eq(i->mem_clock_khz, FAKECUDA_MEM_CLOCK_KHZ);
    cr_expect_eq(i->mem_bus_bits, FAKECUDA_BUS_BITS);
    cr_expect_eq(i->l2_bytes, FAKECUDA_L2_BYTES);
    cr_expect_eq(i->total_mem, FAKECUDA_TOTAL_MEM);
    cr_expect_eq(i->driver_version, FAKECUDA_DRIVER_VERSION);
    cr_expect_eq(i->max_threads_per_block, FAKECUDA_MAX_THREADS_PER_BLOCK);
    cr_expect_eq(i->max_shared_optin, FAKECUDA_SHARED_OPTIN);
    cr_expect_eq(i->num_regs, FAKECUDA_INC_REGS, "the JIT result's registers per thread");
    cr_expect_str_eq(i->libcuda, f.lib);
    cr_expect(i->gated, "%s", i->timing);
    cr_expect(strstr(i->timing, "events, gated"), "%s", i->timing);
    cr_expect(!strstr(dev, "ungated"), "%s", dev);

    harness_result r = measure_ok(h, &f, 5);
    cr_expect_str_eq(r.unit, "us");
    /* The fake's events measure exactly the kernel on its virtual clock:
     * any restore, zeroing or flush inside the timed region would add to
     * it, and milliseconds taken for microseconds would be 1000x off. */
    for (int k = 0; k < 5; k++)
        cr_expect(fabs(r.times[k] - KERNEL_US) < 1e-3, "rep %d: %g us, expected %g", k, r.times[k],
                  KERNEL_US);
    cr_expect(fabs(r.mean - KERNEL_US) < 1e-3);
    cr_expect(fabs(r.us - KERNEL_US) < 1e-3);
    harness_result_free(&r);
    harness_close(h);
    cr_expect(!fake_loaded_here(f.lib), "this process never loads the driver: the worker does");

    /* Between the two events there is the launch and nothing else, and
     * the three queue up behind a wait on the host word (a new value each
     * time) that the host satisfies before it waits for the end. */
    fakelog g = read_log(f.log);
    int pairs = 0;
    unsigned long long gate = 0;
    unsigned last = 0;
    for (int k = 0; k < g.n; k++) {
        if (strcmp(g.l[k].op, "record") != 0 || strncmp(g.l[k].rest, "1 ", 2) != 0)
            continue;
        cr_assert(k >= 1 && k + 3 < g.n);
        unsigned long long addr;
        unsigned v;
        cr_assert_str_eq(g.l[k - 1].op, "wait", "line %d", k - 1);
        cr_assert_eq(sscanf(g.l[k - 1].rest, "%llx %u", &addr, &v), 2, "%s", g.l[k - 1].rest);
        cr_expect(gate == 0 || addr == gate, "one host word for every launch");
        gate = addr;
        cr_expect_gt(v, last, "each launch waits for a new value");
        last = v;
        cr_expect_str_eq(g.l[k + 1].op, "launch", "line %d", k + 1);
        cr_expect_str_eq(g.l[k + 2].op, "record");
        cr_expect(!strncmp(g.l[k + 2].rest, "2 ", 2), "%s", g.l[k + 2].rest);
        cr_expect_str_eq(g.l[k + 3].op, "event_sync");
        cr_expect_str_eq(g.l[k + 4].op, "wait_released", "released before the end is awaited");
        pairs++;
    }
    cr_expect_eq(pairs, 5, "one timed launch per repetition");
    cr_expect_eq(count_op(&g, "blocked"), 0);
    cr_expect_eq(count_op(&g, "elapsed"), 5);
    free(g.l);
    fx_close(&f);
}

Test(fake_cuda, every_repetition_starts_from_the_pristine_input_and_a_zeroed_output)
{
    fx f;
    fx_open(&f);
    harness_options o = opts(true);
    o.warmup = 2;
    harness *h = open_cuda(&f, &o);
    uint32_t before[THREADS];
    memcpy(before, data_of(&f), sizeof before);
    harness_result r = measure_ok(h, &f, 5);
    harness_result_free(&r);
    /* fake_inc does data[i] += 1 and out[i] += data[i]: 7 launches without
     * the restore and the zeroing would leave out[i] far from data[i] + 1
     * (new device memory is not zeroed either). */
    for (int i = 0; i < THREADS; i++) {
        cr_expect_eq(out_of(&f)[i], before[i] + 1, "out[%d] = %u, expected %u", i, out_of(&f)[i],
                     before[i] + 1);
        cr_expect_eq(data_of(&f)[i], before[i], "the image's input is left alone");
    }
    /* The same again: the inputs did not change, nothing is uploaded, and
     * the device copy the kernel modified is restored anyway. */
    r = measure_ok(h, &f, 3);
    harness_result_free(&r);
    for (int i = 0; i < THREADS; i++)
        cr_expect_eq(out_of(&f)[i], before[i] + 1, "second measurement: out[%d]", i);
    harness_close(h);

    fakelog g = read_log(f.log);
    launch_t ls[64];
    int n = launches_of(&g, ls, 64);
    cr_expect_eq(n, 2 + 5 + 3, "2 warm-ups, then 5 and 3 timed launches (no warm-up: nothing changed)");
    cr_expect_eq(count_op(&g, "htod"), 1, "the unchanged input travels once");
    for (int k = 0; k < n; k++) {
        int from = k ? ls[k - 1].at + 1 : 0;
        bool restored = false, zeroed = false;
        for (int j = from; j < ls[k].at; j++) {
            unsigned long long a, b;
            size_t bytes;
            unsigned v;
            if (!strcmp(g.l[j].op, "dtod") &&
                sscanf(g.l[j].rest, "%llx %llx %zu", &a, &b, &bytes) == 3 && a == ls[k].data &&
                b != ls[k].data && bytes == THREADS * 4)
                restored = true;
            if (!strcmp(g.l[j].op, "memset8") &&
                sscanf(g.l[j].rest, "%llx %u %zu", &a, &v, &bytes) == 3 && a == ls[k].out && v == 0 &&
                bytes == THREADS * 4)
                zeroed = true;
        }
        cr_expect(restored, "launch %d: the input was not restored from its pristine copy first", k);
        cr_expect(zeroed, "launch %d: the output was not zeroed first", k);
    }
    free(g.l);
    fx_close(&f);
}

Test(fake_cuda, want_all_buffers_returns_the_in_place_result_of_one_launch)
{
    fx f;
    fx_open(&f);
    harness_options o = opts(true);
    o.want_all_buffers = true;
    harness *h = open_cuda(&f, &o);
    uint32_t before[THREADS];
    memcpy(before, data_of(&f), sizeof before);
    harness_result r = measure_ok(h, &f, 4);
    harness_result_free(&r);
    for (int i = 0; i < THREADS; i++) {
        cr_expect_eq(data_of(&f)[i], before[i] + 1, "data[%d]: one launch's worth, not 2 + 4", i);
        cr_expect_eq(out_of(&f)[i], before[i] + 1, "out[%d]", i);
    }
    harness_close(h);
    fx_close(&f);
}

Test(fake_cuda, cold_l2_writes_more_than_the_l2_before_every_launch)
{
    for (int cold = 0; cold < 2; cold++) {
        fx f;
        fx_open(&f);
        harness_options o = opts(false);
        o.cold_l2 = cold;
        o.warmup = 1;
        harness *h = open_cuda(&f, &o);
        harness_result r = measure_ok(h, &f, 4);
        for (int k = 0; k < 4; k++)
            cr_expect(fabs(r.times[k] - KERNEL_US) < 1e-3, "cold=%d rep %d: %g us: the flush is outside "
                      "the timed region", cold, k, r.times[k]);
        harness_result_free(&r);
        harness_close(h);

        fakelog g = read_log(f.log);
        launch_t ls[16];
        int n = launches_of(&g, ls, 16);
        cr_expect_eq(n, 5);
        int flushed = 0;
        unsigned last_value = 1000;
        for (int k = 0; k < n; k++) {
            int from = k ? ls[k - 1].at + 1 : 0;
            bool flush = false;
            for (int j = from; j < ls[k].at; j++) {
                unsigned long long a;
                size_t bytes;
                unsigned v;
                if (!strcmp(g.l[j].op, "memset8") && sscanf(g.l[j].rest, "%llx %u %zu", &a, &v, &bytes) == 3 &&
                    bytes > FAKECUDA_L2_BYTES && a != ls[k].data && a != ls[k].out) {
                    flush = true;
                    cr_expect_neq(v, last_value, "each flush writes new values");
                    last_value = v;
                }
            }
            flushed += flush;
        }
        cr_expect_eq(flushed, cold ? n : 0, "cold=%d: %d of %d launches preceded by a flush", cold, flushed, n);
        free(g.l);
        fx_close(&f);
    }
}

Test(fake_cuda, a_fault_is_a_finding_and_the_next_measurement_works)
{
    fx f;
    fx_open(&f);
    harness_options o = opts(true);
    harness *h = open_cuda(&f, &o);
    harness_result r = measure_ok(h, &f, 2);
    harness_result_free(&r);

    static const struct {
        uint32_t mode;
        const char *needle;
    } cases[] = {
        { FAKECUDA_FAULT, "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered" },
        { FAKECUDA_TRAP, "CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch failure" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        data_of(&f)[9] = cases[c].mode;
        r = measure(h, &f, 3);
        cr_expect_eq(r.status, HARNESS_FAULT, "mode %u: %s: %s", cases[c].mode,
                     harness_status_name(r.status), r.message);
        cr_expect(strstr(r.message, cases[c].needle), "%s", r.message);
        cr_expect(strstr(r.message, "faulted"), "%s", r.message);
        cr_expect(strstr(r.message, "reported by cuCtxSynchronize (after a warm-up launch)"), "%s",
                  r.message);
        cr_expect_eq(r.reps, 0, "a finding has no times");
        harness_result_free(&r);

        data_of(&f)[9] = 27;
        memset(out_of(&f), 0, THREADS * 4);
        r = measure_ok(h, &f, 2);
        cr_expect(fabs(r.times[1] - KERNEL_US) < 1e-3, "%g", r.times[1]);
        harness_result_free(&r);
        cr_expect_eq(out_of(&f)[9], 28, "the next measurement works");
        cr_expect_eq(out_of(&f)[10], 3 * 10 + 10 + 1);
    }
    harness_close(h);

    /* Without warm-ups the timed launch faults: reported at its end. */
    o.warmup = 0;
    h = open_cuda(&f, &o);
    data_of(&f)[9] = FAKECUDA_FAULT;
    r = measure(h, &f, 2);
    cr_expect_eq(r.status, HARNESS_FAULT, "%s", r.message);
    cr_expect(strstr(r.message, "reported by cuEventSynchronize (end of the kernel)"), "%s", r.message);
    harness_result_free(&r);
    harness_close(h);

    fakelog g = read_log(f.log);
    long pids[8];
    cr_expect_eq(init_pids(&g, pids, 8), 4, "a fresh worker after each fault");
    cr_expect_eq(count_op(&g, "fault"), 3);
    cr_expect_eq(count_op(&g, "reported"), 3, "each fault was reported by a synchronising call");
    cr_expect_eq(count_op(&g, "ctx_release"), 1, "only the healthy worker tears its context down");
    free(g.l);
    fx_close(&f);
}

Test(fake_cuda, a_hang_is_killed_by_the_watchdog_and_the_next_measurement_works)
{
    for (int timed = 0; timed < 2; timed++) {
        fx f;
        fx_open(&f);
        harness_options o = opts(true);
        o.kernel_timeout_s = 0.5;
        o.warmup = timed ? 0 : 2;      /* the hang in a warm-up, or in the timed launch */
        harness *h = open_cuda(&f, &o);
        harness_result r = measure_ok(h, &f, 1);
        harness_result_free(&r);

        data_of(&f)[0] = FAKECUDA_HANG;
        double t0 = wh_clock_s();
        r = measure(h, &f, 3);
        double dt = wh_clock_s() - t0;
        cr_expect_eq(r.status, HARNESS_TIMEOUT, "%s: %s", harness_status_name(r.status), r.message);
        cr_expect(strstr(r.message, "did not finish within the 0.5 s watchdog"), "%s", r.message);
        /* the three repetitions go in one request, after the warm-ups */
        cr_expect(strstr(r.message, timed ? "launch 1 of 3, a timed one" : "launch 1 of 5, a warm-up"),
                  "%s", r.message);
        cr_expect(dt >= 0.5 && dt < 10, "the watchdog fired after %.2f s", dt);
        harness_result_free(&r);

        fakelog g = read_log(f.log);
        long pids[8];
        cr_assert_eq(init_pids(&g, pids, 8), 1);
        cr_expect_eq(count_op(&g, "hang"), 1);
        cr_expect_eq(count_op(&g, "blocked"), 1, "the worker was stuck in a synchronising call");
        for (int k = 0; k < g.n; k++)
            if (!strcmp(g.l[k].op, "blocked"))
                cr_expect_str_eq(g.l[k].rest, timed ? "cuEventSynchronize" : "cuCtxSynchronize");
        cr_expect(kill((pid_t)pids[0], 0) < 0 && errno == ESRCH, "the hung worker %ld is gone", pids[0]);
        free(g.l);

        data_of(&f)[0] = 5;
        r = measure_ok(h, &f, 2);
        harness_result_free(&r);
        cr_expect_eq(out_of(&f)[0], 6);
        harness_close(h);
        g = read_log(f.log);
        cr_expect_eq(init_pids(&g, pids, 8), 2, "a fresh worker after the hang");
        free(g.l);
        fx_close(&f);
    }
}

Test(fake_cuda, jit_errors_show_the_jit_log)
{
    fx f;
    fx_open(&f);
    static const char bad[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                              ".visible .entry fake_inc(.param .u64 a, .param .u64 b, .param .u32 n)\n"
                              "{\n    frobnicate.u32 %r1;\n    ret;\n}\n";
    harness_cuda_config cfg;
    harness_cuda_config_init(&cfg);
    wh_error err;
    wh_error_clear(&err);
    void *impl = harness_cuda_open_config(f.spec, bad, sizeof bad - 1, "fake_inc", &cfg, &err);
    cr_expect_null(impl);
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect_eq(wh_error_exit_status(&err), 2);
    cr_expect(strstr(err.msg, "CUDA_ERROR_INVALID_PTX (218)"), "%s", err.msg);
    cr_expect(strstr(err.msg, "JIT error log:\nptxas application ptx input, line 6; error   : Not a name "
                              "of any known instruction: 'frobnicate'"), "%s", err.msg);
    cr_expect(strstr(err.msg, "JIT info log:\nptxas info"), "%s", err.msg);
    cr_expect(strstr(err.msg, FAKECUDA_NAME), "%s", err.msg);

    /* The same through harness_open, the JIT failing on PTX warphunt's own
     * parser accepts. */
    setenv(FAKECUDA_JIT_FAIL_ENV, "1", 1);
    harness_options o = opts(false);
    wh_error_clear(&err);
    harness *h = harness_open(f.spec, HARNESS_CUDA, &o, &err);
    cr_expect_null(h);
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect(strstr(err.msg, FAKECUDA_JIT_FORCED_ERROR), "%s", err.msg);
    fx_close(&f);
}

Test(fake_cuda, init_failures_and_a_bad_device_are_explained)
{
    fx f;
    fx_open(&f);
    static const struct {
        const char *env, *value, *needle;
    } cases[] = {
        { FAKECUDA_INIT_ERROR_ENV, "34", "stub library" },
        { FAKECUDA_INIT_ERROR_ENV, "46", "unavailable" },
        { FAKECUDA_DEVICES_ENV, "0", "found no CUDA device" },
    };
    harness_options o = opts(false);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        setenv(cases[c].env, cases[c].value, 1);
        wh_error err;
        wh_error_clear(&err);
        harness *h = harness_open(f.spec, HARNESS_CUDA, &o, &err);
        cr_expect_null(h);
        cr_expect_eq(err.kind, WH_ERR_DEVICE, "%s=%s", cases[c].env, cases[c].value);
        cr_expect(strstr(err.msg, cases[c].needle), "%s=%s: %s", cases[c].env, cases[c].value, err.msg);
        unsetenv(cases[c].env);
    }
    setenv(FAKECUDA_DEVICES_ENV, "2", 1);
    o.device = 1;
    wh_error err;
    harness *h = harness_open(f.spec, HARNESS_CUDA, &o, &err);
    cr_assert(h, "device 1 of 2: %s", err.msg);
    cr_expect(strstr(harness_device(h), "device 1"), "%s", harness_device(h));
    harness_close(h);
    o.device = 2;
    wh_error_clear(&err);
    h = harness_open(f.spec, HARNESS_CUDA, &o, &err);
    cr_expect_null(h);
    cr_expect(strstr(err.msg, "CUDA device 2 does not exist: 2 devices visible (0..1)"), "%s", err.msg);
    fx_close(&f);
}

Test(fake_cuda, without_stream_waits_launches_are_timed_ungated_and_say_so)
{
    fx f;
    fx_open(&f);
    setenv(FAKECUDA_NO_STREAM_WAIT_ENV, "1", 1);
    harness_options o = opts(false);
    harness *h = open_cuda(&f, &o);
    const harness_cuda_info *i = harness_cuda_info_of(h);
    cr_assert(i);
    cr_expect(!i->gated);
    cr_expect(strstr(i->timing, "not gated: cuStreamWaitValue32: CUDA_ERROR_NOT_SUPPORTED"), "%s",
              i->timing);
    cr_expect(strstr(harness_device(h), "launches timed ungated"), "%s", harness_device(h));
    json_t *dj = harness_device_json(h);
    cr_expect(json_is_false(json_object_get(dj, "timing_gated")));
    cr_expect(strstr(json_string_value(json_object_get(dj, "timing")), "not gated"));
    json_decref(dj);
    harness_result r = measure_ok(h, &f, 3);
    for (int k = 0; k < 3; k++)
        cr_expect(fabs(r.times[k] - KERNEL_US) < 1e-3, "rep %d: %g us", k, r.times[k]);
    harness_result_free(&r);
    harness_close(h);
    fakelog g = read_log(f.log);
    cr_expect_eq(count_op(&g, "wait"), 0);
    cr_expect_eq(count_op(&g, "elapsed"), 3);
    free(g.l);

    /* No pinned memory to be had: the same, for that reason. */
    unsetenv(FAKECUDA_NO_STREAM_WAIT_ENV);
    setenv(FAKECUDA_NO_PINNED_ENV, "1", 1);
    h = open_cuda(&f, &o);
    cr_expect(!harness_cuda_info_of(h)->gated);
    cr_expect(strstr(harness_cuda_info_of(h)->timing, "not gated: cuMemHostAlloc: CUDA_ERROR_OUT_OF_MEMORY"),
              "%s", harness_cuda_info_of(h)->timing);
    r = measure_ok(h, &f, 2);
    cr_expect(fabs(r.times[1] - KERNEL_US) < 1e-3, "%g us", r.times[1]);
    harness_result_free(&r);
    harness_close(h);
    g = read_log(f.log);
    for (int k = 0; k < g.n; k++)
        if (!strcmp(g.l[k].op, "ctx_release"))
            cr_expect_str_eq(g.l[k].rest, "allocs=0 events=0 modules=0", "the host word is freed");
    free(g.l);
    fx_close(&f);
}

Test(fake_cuda, an_older_driver_without_the_v2_entry_points_works)
{
    fx f;
    fx_open_lib(&f, "libfakecuda_old.so");
    harness_options o = opts(true);
    wh_error err;

    /* PTX of a newer ISA than a 12.4 driver reads (nvcc 12.5 and later
     * write one) is refused, and the message says what to do. */
    if (built_ptx_isa() > 84) {
        wh_error_clear(&err);
        harness *h = harness_open(f.spec, HARNESS_CUDA, &o, &err);
        cr_expect_null(h);
        cr_expect_eq(err.kind, WH_ERR_DEVICE);
        cr_expect(strstr(err.msg, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)"), "%s", err.msg);
        cr_expect(strstr(err.msg, "current version is '" FAKECUDA_OLD_DRIVER_MAX_PTX "'"), "%s", err.msg);
        cr_expect(strstr(err.msg, "newer than driver 12.4 reads"), "%s", err.msg);
        cr_expect(strstr(err.msg, "CUDA_HOME"), "%s", err.msg);
    }

    /* The same kernel as ISA 7.0 PTX loads and runs, the driver's
     * unversioned entry points standing in for the _v2 ones. */
    const char *spec_path = write_variant(&f, "isa70", "7.0", "sm_70", 1000000, "fake_inc", 0);
    wh_spec *spec = wh_spec_load(spec_path, &err);
    cr_assert(spec, "%s: %s", err.path, err.msg);
    wh_launch l = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    memcpy(img->bufs[0].data, f.img->bufs[0].data, THREADS * 4);
    wh_error_clear(&err);
    harness *h = harness_open(spec, HARNESS_CUDA, &o, &err);
    cr_assert(h, "%s", err.msg);
    cr_expect(strstr(harness_device(h), "driver 12.4"), "%s", harness_device(h));
    /* CUDA 8-11's cuStreamWaitValue32 refuses unless the driver enabled it. */
    cr_expect(strstr(harness_cuda_info_of(h)->timing, "not gated: cuStreamWaitValue32"), "%s",
              harness_cuda_info_of(h)->timing);
    harness_result r;
    cr_assert(harness_measure(h, img, 3, &r, &err), "%s", err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s", r.message);
    cr_expect(fabs(r.times[2] - KERNEL_US) < 1e-3, "%g", r.times[2]);
    harness_result_free(&r);
    cr_expect_eq(((uint32_t *)img->bufs[1].data)[3], data_of(&f)[3] + 1);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(spec);
    fakelog g = read_log(f.log);
    /* Released through cuDevicePrimaryCtxRelease, after the failed JIT too. */
    cr_expect_eq(count_op(&g, "ctx_release"), built_ptx_isa() > 84 ? 2 : 1);
    for (int k = 0; k < g.n; k++)
        if (!strcmp(g.l[k].op, "ctx_release"))
            cr_expect_str_eq(g.l[k].rest, "allocs=0 events=0 modules=0");
    free(g.l);
    fx_close(&f);
}

Test(fake_cuda, ptx_for_a_newer_gpu_says_how_to_rebuild_it)
{
    fx f;
    fx_open(&f);
    const char *spec_path = write_variant(&f, "sm90", NULL, "sm_90", 1000000, "fake_inc", 0);
    wh_error err;
    wh_spec *spec = wh_spec_load(spec_path, &err);
    cr_assert(spec, "%s: %s", err.path, err.msg);
    harness_options o = opts(false);
    wh_error_clear(&err);
    harness *h = harness_open(spec, HARNESS_CUDA, &o, &err);
    cr_expect_null(h);
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect(strstr(err.msg, "CUDA_ERROR_INVALID_PTX (218)"), "%s", err.msg);
    cr_expect(strstr(err.msg, "SM version specified by .target is higher"), "the JIT log: %s", err.msg);
    cr_expect(strstr(err.msg, "make ptx NVCC_ARCH=sm_86"), "the remedy: %s", err.msg);
    wh_spec_free(spec);
    fx_close(&f);
}

Test(fake_cuda, large_dynamic_shared_memory_is_opted_into)
{
    fx f;
    fx_open(&f);
    harness_options o = opts(true);
    harness *h = open_cuda(&f, &o);
    f.img->shared_bytes = 64 * 1024;
    harness_result r = measure_ok(h, &f, 2);
    harness_result_free(&r);
    cr_expect_eq(out_of(&f)[1], data_of(&f)[1] + 1);

    f.img->shared_bytes = 200 * 1024;
    wh_error err;
    wh_error_clear(&err);
    cr_expect(!harness_measure(h, f.img, 1, &r, &err), "more than the device allows is refused");
    cr_expect(strstr(err.msg, "at most 101376"), "%s", err.msg);

    f.img->shared_bytes = 1024;
    r = measure_ok(h, &f, 1);
    harness_result_free(&r);
    harness_close(h);

    fakelog g = read_log(f.log);
    launch_t ls[16];
    int n = launches_of(&g, ls, 16);
    cr_assert_geq(n, 2);
    cr_expect_eq(ls[0].shared, 64 * 1024);
    cr_expect_eq(ls[n - 1].shared, 1024);
    cr_expect_eq(count_op(&g, "func_set_attribute"), 1, "opted in once, for 64 KiB");
    free(g.l);
    fx_close(&f);
}

/* A block may use 48 KiB of shared memory, static and dynamic together,
 * without opting in: a kernel with 40 KiB of its own needs the opt-in from
 * 8 KiB of dynamic shared memory on. */
Test(fake_cuda, static_shared_memory_counts_towards_the_opt_in)
{
    fx f;
    fx_open(&f);
    const char *spec_path = write_variant(&f, "smem", NULL, NULL, 1000000, "fake_inc_smem", 16384);
    wh_error err;
    wh_spec *spec = wh_spec_load(spec_path, &err);
    cr_assert(spec, "%s: %s", err.path, err.msg);
    wh_launch l = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    cr_assert_eq(img->shared_bytes, 16384);
    memcpy(img->bufs[0].data, f.img->bufs[0].data, THREADS * 4);
    harness_options o = opts(true);
    harness *h = harness_open(spec, HARNESS_CUDA, &o, &err);
    cr_assert(h, "%s", err.msg);
    harness_result r;
    wh_error_clear(&err);
    cr_assert(harness_measure(h, img, 2, &r, &err), "40 KiB static + 16 KiB dynamic: %s", err.msg);
    cr_expect_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    cr_expect_eq(((uint32_t *)img->bufs[1].data)[7], data_of(&f)[7] + 1);

    /* Static + dynamic above the opt-in limit: refused, the reason given. */
    img->shared_bytes = FAKECUDA_SHARED_OPTIN - FAKECUDA_SMEM_STATIC + 4;
    wh_error_clear(&err);
    cr_expect(!harness_measure(h, img, 1, &r, &err));
    cr_expect(strstr(err.msg, "40960 bytes of static shared memory"), "%s", err.msg);
    cr_expect(strstr(err.msg, "at most 101376"), "%s", err.msg);
    img->shared_bytes = FAKECUDA_SHARED_OPTIN - FAKECUDA_SMEM_STATIC;
    wh_error_clear(&err);
    cr_assert(harness_measure(h, img, 1, &r, &err), "exactly the limit: %s", err.msg);
    cr_expect_eq(r.status, HARNESS_OK, "%s", r.message);
    harness_result_free(&r);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(spec);
    fx_close(&f);
}

Test(fake_cuda, the_engine_releases_everything_it_allocated)
{
    for (int cold = 0; cold < 2; cold++) {
        fx f;
        fx_open(&f);
        harness_options o = opts(true);
        o.cold_l2 = cold;
        harness *h = open_cuda(&f, &o);
        harness_result r = measure_ok(h, &f, 2);
        harness_result_free(&r);
        data_of(&f)[0] += 1;               /* new input: uploaded again */
        r = measure_ok(h, &f, 2);
        harness_result_free(&r);
        harness_close(h);
        fakelog g = read_log(f.log);
        bool found = false;
        for (int k = 0; k < g.n; k++)
            if (!strcmp(g.l[k].op, "ctx_release")) {
                found = true;
                cr_expect_str_eq(g.l[k].rest, "allocs=0 events=0 modules=0", "cold=%d", cold);
            }
        cr_expect(found, "the worker released its context on close");
        cr_expect_eq(count_op(&g, "alloc"), cold ? 4 : 3, "buffers allocated once per worker");
        cr_expect_eq(count_op(&g, "alloc"), count_op(&g, "free"));
        free(g.l);
        fx_close(&f);
    }
}

/* ------------------------------------------------------------------------ */
/* The fake itself (in a child: this process stays free of CUDA)            */
/* ------------------------------------------------------------------------ */

Test(fake_cuda, the_fake_caps_jit_logs_and_makes_kernel_errors_sticky)
{
    char lib[PATH_MAX];
    fake_path("libfakecuda.so", lib, sizeof lib);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        char msg[256] = "ok";
        wh_cuda_api api;
        char why[512];
#define CHILD_CHECK(c)                                                                  \
    do {                                                                                \
        if (!(c)) {                                                                     \
            snprintf(msg, sizeof msg, "line %d: %s", __LINE__, #c);                    \
            goto done;                                                                  \
        }                                                                               \
    } while (0)
        CHILD_CHECK(wh_cuda_api_load(&api, lib, why, sizeof why));
        CUdevice dev;
        CUcontext ctx;
        CUdeviceptr p = 0;
        CHILD_CHECK(api.MemAlloc(&p, 16) == 3);                 /* before cuInit */
        CHILD_CHECK(api.Init(0) == 0);
        CHILD_CHECK(api.DeviceGet(&dev, 0) == 0);
        CHILD_CHECK(api.MemAlloc(&p, 16) == 201);               /* no current context */
        CHILD_CHECK(api.DevicePrimaryCtxRetain(&ctx, dev) == 0);
        CHILD_CHECK(api.CtxSetCurrent(ctx) == 0);
        CHILD_CHECK(api.MemAlloc(&p, 0) == 1);
        CHILD_CHECK(api.MemAlloc(&p, 16) == 0);
        CHILD_CHECK(p >= FAKECUDA_DEVICE_BASE);
        unsigned char host[32] = { 0 };
        CHILD_CHECK(api.MemcpyHtoD(p, host, 32) == 1);          /* past the allocation */
        CHILD_CHECK(api.MemsetD8(p + 8, 0, 8) == 0);

        static const char bad[] = ".version 7.0\n.target sm_70\nfrobnicate;\n";
        char elog[32], ilog[8];
        memset(elog, 'x', sizeof elog);
        memset(ilog, 'y', sizeof ilog);
        CUjit_option o[4] = { WH_CU_JIT_ERROR_LOG_BUFFER, WH_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              WH_CU_JIT_INFO_LOG_BUFFER, WH_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES };
        void *v[4] = { elog, (void *)(uintptr_t)16, ilog, (void *)(uintptr_t)0 };
        CUmodule mod;
        CHILD_CHECK(api.ModuleLoadDataEx(&mod, bad, 4, o, v) == 218);
        CHILD_CHECK(strlen(elog) == 15 && !strncmp(elog, "ptxas applicati", 15));
        CHILD_CHECK(elog[16] == 'x');                           /* nothing past the size */
        CHILD_CHECK((uintptr_t)v[1] == 16);                     /* OUT: bytes filled */
        CHILD_CHECK(ilog[0] == 'y' && (uintptr_t)v[3] == 0);    /* size 0: untouched */

        /* A fault is reported by the next synchronising call, then sticks. */
        static const char good[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                                   ".visible .entry fake_inc(.param .u64 a, .param .u64 b, .param .u32 n)\n"
                                   "{\n    ret;\n}\n";
        CHILD_CHECK(api.ModuleLoadDataEx(&mod, good, 0, NULL, NULL) == 0);
        CUfunction fn;
        CHILD_CHECK(api.ModuleGetFunction(&fn, mod, "nope") == 500);
        CHILD_CHECK(api.ModuleGetFunction(&fn, mod, "fake_inc") == 0);
        uint32_t word = FAKECUDA_FAULT;
        CHILD_CHECK(api.MemcpyHtoD(p, &word, 4) == 0);
        int n = 1;
        void *params[3] = { &p, &p, &n };
        CHILD_CHECK(api.LaunchKernel(fn, 1, 1, 1, 2000, 1, 1, 0, NULL, params, NULL) == 1);
        CHILD_CHECK(api.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL) == 0);
        CUevent e;
        CHILD_CHECK(api.EventCreate(&e, 0) == 0);
        CHILD_CHECK(api.EventRecord(e, NULL) == 0);             /* not synchronising */
        CHILD_CHECK(api.CtxSynchronize() == 700);
        CHILD_CHECK(api.MemsetD8(p, 0, 4) == 700);              /* sticky */
        CHILD_CHECK(api.CtxSynchronize() == 700);
    done:
        if (write(fds[1], msg, strlen(msg) + 1) < 0)
            _exit(2);
        _exit(0);
#undef CHILD_CHECK
    }
    close(fds[1]);
    char msg[256] = "";
    ssize_t k = read(fds[0], msg, sizeof msg - 1);
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(k > 0, "the child said nothing");
    cr_expect_str_eq(msg, "ok");
}

/* ------------------------------------------------------------------------ */
/* warphunt measure --backend cuda                                          */
/* ------------------------------------------------------------------------ */

/* Runs a subcommand with stdout to DIR/out.json and stderr to DIR/err.txt. */
static int run_cmd(fx *f, wh_command_fn cmd, const char *name, const char **args, int nargs)
{
    char out[200], errp[200];
    snprintf(out, sizeof out, "%s/out.json", f->dir);
    snprintf(errp, sizeof errp, "%s/err.txt", f->dir);
    return ts_run_cmd(cmd, name, args, nargs, out, errp);
}

static int run_measure(fx *f, const char **args, int nargs)
{
    return run_cmd(f, cmd_measure, "measure", args, nargs);
}

static json_t *out_json(fx *f)
{
    char path[200];
    snprintf(path, sizeof path, "%s/out.json", f->dir);
    return ts_load_json(path);
}

static char *err_text(fx *f)
{
    char path[200];
    snprintf(path, sizeof path, "%s/err.txt", f->dir);
    FILE *fp = fopen(path, "r");
    cr_assert(fp);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = 0;
    fclose(fp);
    return buf;
}

Test(fake_cuda, cli_measure_check_agrees_with_the_sim_and_reports_a_difference)
{
    fx f;
    fx_open(&f);
    const char *a[] = { SPEC, "--backend", "cuda", "--check", "--json", "--reps", "3", "--random", "5" };
    cr_assert_eq(run_measure(&f, a, 9), 0, "%s", err_text(&f));
    json_t *j = out_json(&f);
    cr_expect_str_eq(json_string_value(json_object_get(j, "backend")), "cuda");
    cr_expect_str_eq(json_string_value(json_object_get(j, "unit")), "us");
    cr_expect_str_eq(json_string_value(json_object_get(j, "status")), "ok");
    cr_expect_eq(json_integer_value(json_object_get(j, "reps")), 3);
    cr_expect(fabs(json_real_value(json_object_get(j, "mean")) - KERNEL_US) < 1e-3);
    json_t *d = json_object_get(j, "device_info");
    cr_assert(d, "no device_info");
    cr_expect_str_eq(json_string_value(json_object_get(d, "name")), FAKECUDA_NAME);
    cr_expect_eq(json_integer_value(json_object_get(d, "sm_count")), FAKECUDA_SM_COUNT);
    cr_expect_float_eq(json_real_value(json_object_get(d, "clock_mhz")), FAKECUDA_CLOCK_KHZ / 1000.0, 1e-9);
    cr_expect_eq(json_integer_value(json_object_get(d, "l2_bytes")), FAKECUDA_L2_BYTES);
    cr_expect_str_eq(json_string_value(json_object_get(d, "driver_version")),
                     driver_text(FAKECUDA_DRIVER_VERSION, false));
    cr_expect_str_eq(json_string_value(json_object_get(d, "compute_capability")), "8.6");
    cr_expect_eq(json_integer_value(json_object_get(d, "registers_per_thread")), FAKECUDA_INC_REGS);
    cr_expect_str_eq(json_string_value(json_object_get(d, "libcuda")), f.lib);
    json_t *c = json_object_get(j, "check");
    cr_assert(c, "no check");
    cr_expect_str_eq(json_string_value(json_object_get(c, "reference")), "sim");
    cr_expect(json_is_true(json_object_get(c, "agree")), "%s", json_string_value(json_object_get(c, "report")));
    cr_expect(strstr(json_string_value(json_object_get(c, "report")), "256 elements"), "%s",
              json_string_value(json_object_get(c, "report")));
    json_decref(j);
    cr_expect(strstr(err_text(&f), "check:   agrees against the sim"), "%s", err_text(&f));

    /* A "GPU" that computes something else: exit status 3 and where. */
    setenv(FAKECUDA_WRONG_ENV, "1", 1);
    cr_expect_eq(run_measure(&f, a, 9), 3, "%s", err_text(&f));
    j = out_json(&f);
    c = json_object_get(j, "check");
    cr_assert(c);
    cr_expect(json_is_false(json_object_get(c, "agree")));
    cr_expect(strstr(json_string_value(json_object_get(c, "report")), "out"), "%s",
              json_string_value(json_object_get(c, "report")));
    json_decref(j);
    cr_expect(strstr(err_text(&f), "DIFFERS"), "%s", err_text(&f));
    fx_close(&f);
}

/* measure SPEC --backend cuda --check --json --random SEED --reps REPS on
 * the fake driver (f open): the run succeeds and its outputs agree with
 * the sim's. */
static void expect_agrees_with_the_sim(fx *f, const char *spec, const char *seed, const char *reps)
{
    const char *a[] = { spec, "--backend", "cuda", "--check", "--json", "--random", seed, "--reps", reps };
    cr_assert_eq(run_measure(f, a, 9), 0, "%s", err_text(f));
    json_t *j = out_json(f);
    json_t *c = json_object_get(j, "check");
    cr_assert(c, "no check");
    cr_expect(json_is_true(json_object_get(c, "agree")), "%s", json_string_value(json_object_get(c, "report")));
    json_decref(j);
}

/* A struct passed by value (32 bytes) reaches the kernel whole: the fake
 * runs struct_byval in C and its outputs agree with the sim's. */
Test(fake_cuda, a_struct_passed_by_value_reaches_the_kernel)
{
    struct stat st;
    if (stat("build/ptx/tests/ptx/struct_byval.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/sim_struct_byval.json", "3", "10");
    fx_close(&f);
}

/* Structures on struct fields (a key count sorted across the nodes, each
 * node's keys strictly sorted) reach the kernel as the sim gets them: the
 * fake runs node_scan in C and its outputs agree with the sim's. */
Test(fake_cuda, struct_field_structures_reach_the_kernel)
{
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/node_scan_sorted.json", "3", "3");
    expect_agrees_with_the_sim(&f, "tests/specs/node_scan_by_count.json", "4", "3");
    fx_close(&f);
}

/* Module variables ("globals": a __constant__ input, a fixed __device__
 * array, two outputs, one with an initializer) reach the kernel through
 * cuModuleGetGlobal and come back: the fake runs module_inputs in C and
 * its outputs agree with the sim's, every launch from the initializer
 * (hits is 7 + 1 after warm-ups and repetitions alike). */
Test(fake_cuda, module_variables_reach_the_kernel)
{
    struct stat st;
    if (stat("build/ptx/tests/ptx/module_inputs.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/module_inputs.json", "3", "3");
    fakelog g = read_log(f.log);
    cr_expect_eq(count_op(&g, "module_global"), 4, "cuModuleGetGlobal once per global");
    free(g.l);
    fx_close(&f);
}

/* A texture object parameter: the worker makes a texture over linear
 * memory once (s32 texels read as integers, aligned for textures), uploads
 * each input's texels and passes the handle; the fake runs tex_gather in C
 * and its outputs agree with the sim's. */
Test(fake_cuda, a_texture_reaches_the_kernel)
{
    struct stat st;
    if (stat("build/ptx/tests/ptx/textures.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/tex_gather.json", "3", "3");
    fakelog g = read_log(f.log);
    cr_expect_eq(count_op(&g, "tex_create"), 1, "one texture object for every launch");
    bool integer_reads = false;
    for (int k = 0; k < g.n; k++)
        integer_reads |= !strcmp(g.l[k].op, "tex_create") && strstr(g.l[k].rest, "linear flags 1 ") != NULL;
    cr_expect(integer_reads, "a linear texture read as integers (CU_TRSF_READ_AS_INTEGER)");
    free(g.l);
    fx_close(&f);
}

/* Two tensor map parameters (__grid_constant__ CUtensorMap, by value):
 * the worker encodes each with cuTensorMapEncodeTiled for its buffer, once
 * (the buffers stay put), and the fake runs tensor_tiles in C through the
 * maps it encoded; outputs agree with the sim's.  On the default sm_86
 * fake the sm_90 PTX is refused, as a real driver refuses it. */
Test(fake_cuda, tensor_maps_reach_the_kernel_by_value)
{
    fx f;
    fx_open(&f);
    setenv(FAKECUDA_SM90_ENV, "1", 1);
    expect_agrees_with_the_sim(&f, "tests/specs/tensor_tiles.json", "3", "3");
    fakelog g = read_log(f.log);
    cr_expect_eq(count_op(&g, "tensor"), 2, "one map per parameter for every launch");
    free(g.l);
    unsetenv(FAKECUDA_SM90_ENV);
    const char *a[] = { "tests/specs/tensor_tiles.json", "--backend", "cuda", "--random", "3" };
    cr_expect_neq(run_measure(&f, a, 5), 0);
    cr_expect(strstr(err_text(&f), "sm_90"), "%s", err_text(&f));
    fx_close(&f);
}

/* A texture tld4 gathers from: the worker makes its CUDA array with
 * CUDA_ARRAY3D_TEXTURE_GATHER (the fake's tex_gather4 faults without it),
 * and the fake's gathers, in C, agree with the sim's. */
Test(fake_cuda, a_gather_texture_is_made_for_gathers)
{
    struct stat st;
    if (stat("build/ptx/tests/ptx/textures.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/tex_gather4.json", "3", "3");
    fakelog g = read_log(f.log);
    bool gather = false;
    for (int k = 0; k < g.n; k++)
        gather |= !strcmp(g.l[k].op, "array_create") && strstr(g.l[k].rest, "flags 8") != NULL;
    cr_expect(gather, "a 2-D array made with CUDA_ARRAY3D_TEXTURE_GATHER");
    free(g.l);
    fx_close(&f);
}

/* Layered textures and cubemaps: the worker makes their arrays with
 * CUDA_ARRAY3D_LAYERED (the layers as the depth) and CUDA_ARRAY3D_CUBEMAP
 * (6 faces, of each layer), copies the texels in whole, and the fake's C
 * versions of tex_layered and tex_cube agree with the sim. */
Test(fake_cuda, layered_and_cubemap_textures_reach_the_kernel)
{
    struct stat st;
    if (stat("build/ptx/tests/ptx/textures.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/tex_layered.json", "3", "3");
    expect_agrees_with_the_sim(&f, "tests/specs/tex_cube.json", "3", "3");
    fakelog g = read_log(f.log);
    bool layered = false, cube = false, cube_layers = false;
    for (int k = 0; k < g.n; k++) {
        if (strcmp(g.l[k].op, "array_create")) continue;
        layered |= strstr(g.l[k].rest, "4 3 5 fmt") && strstr(g.l[k].rest, "flags 1");
        cube |= strstr(g.l[k].rest, "3 3 6 fmt") && strstr(g.l[k].rest, "flags 4");
        cube_layers |= strstr(g.l[k].rest, "2 2 12 fmt") && strstr(g.l[k].rest, "flags 5");
    }
    cr_expect(layered, "a 4 x 3 array of 5 layers (CUDA_ARRAY3D_LAYERED)");
    cr_expect(cube, "a cubemap of 3 x 3 faces (CUDA_ARRAY3D_CUBEMAP)");
    cr_expect(cube_layers, "a layered cubemap of 2 layers of 2 x 2 faces");
    free(g.l);
    fx_close(&f);
}

/* A mipmapped texture: the worker makes a mipmapped array of the spec's
 * levels, fills each level from its part of the texels and makes the
 * texture over it; the fake's C version of tex_mip (tex2DLod, tex2DGrad)
 * agrees with the sim. */
Test(fake_cuda, a_mipmapped_texture_reaches_the_kernel)
{
    struct stat st;
    if (stat("build/ptx/tests/ptx/textures.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/tex_mip.json", "3", "3");
    expect_agrees_with_the_sim(&f, "tests/specs/tex_mip.json", "11", "2");
    fakelog g = read_log(f.log);
    cr_expect_geq(count_op(&g, "mipmap_create"), 1, "a mipmapped array");
    bool levels = false, made = false;
    for (int k = 0; k < g.n; k++) {
        levels |= !strcmp(g.l[k].op, "mipmap_create") && strstr(g.l[k].rest, "8 4 0 levels 3");
        made |= !strcmp(g.l[k].op, "tex_create") && strstr(g.l[k].rest, "mipmap");
    }
    cr_expect(levels, "8 x 4 texels, 3 levels");
    cr_expect(made, "a texture over the mipmapped array");
    free(g.l);
    fx_close(&f);
}

/* Surface objects: the worker makes a CUDA array with surface load/store
 * and a surface object once; an input surface is restored before every
 * launch (surf_walk writes row 0: warm-ups and repetitions start from the
 * input, so the fake's outputs still agree with the sim's), an output
 * surface starts from zeros and comes back (surf_gather's clamped store). */
Test(fake_cuda, surfaces_reach_the_kernel_and_come_back)
{
    struct stat st;
    if (stat("build/ptx/tests/ptx/textures.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/surf_walk.json", "3", "3");
    expect_agrees_with_the_sim(&f, "tests/specs/surf_gather.json", "5", "3");
    expect_agrees_with_the_sim(&f, "tests/specs/surf_layered.json", "7", "3");   /* a layered array */
    expect_agrees_with_the_sim(&f, "tests/specs/surf_cube.json", "7", "3");      /* a cubemap */
    expect_agrees_with_the_sim(&f, "tests/specs/surf_reduce.json", "5", "3");    /* sured.b add and min */
    expect_agrees_with_the_sim(&f, "tests/specs/surf_formatted.json", "5", "3"); /* sust.p, sured.p */
    fakelog g = read_log(f.log);
    cr_expect_geq(count_op(&g, "surf_create"), 6, "a surface object per backend");
    cr_expect_geq(count_op(&g, "memcpy3d_dtoa"), 6, "the surface restored before each launch");
    cr_expect_geq(count_op(&g, "memcpy3d_atoh"), 1, "the output surface read back");
    free(g.l);
    fx_close(&f);
}

/* A searched scalar and a sorted input reach the kernel: the random input
 * draws n below the thread count, and the fake's outputs (only threads
 * below n write theirs) agree with the sim's. */
Test(fake_cuda, a_searched_scalar_and_a_structured_input_reach_the_kernel)
{
    fx f;
    fx_open(&f);
    expect_agrees_with_the_sim(&f, "tests/specs/cuda_fake_inc_searched.json", "5", "10");
    fx_close(&f);
}

Test(fake_cuda, cli_measure_cold_l2_kernel_timeout_fault_and_jit_error)
{
    fx f;
    fx_open(&f);
    /* --cold-l2: a flush larger than the L2 before each of the 1 + 3 launches. */
    const char *a1[] = { SPEC, "--backend", "cuda", "--cold-l2", "--warmup", "1", "--reps", "3", "--json", "--quiet" };
    cr_assert_eq(run_measure(&f, a1, 10), 0, "%s", err_text(&f));
    fakelog g = read_log(f.log);
    int flushes = 0;
    for (int k = 0; k < g.n; k++) {
        unsigned long long a;
        unsigned v;
        size_t bytes;
        if (!strcmp(g.l[k].op, "memset8") && sscanf(g.l[k].rest, "%llx %u %zu", &a, &v, &bytes) == 3 &&
            bytes > FAKECUDA_L2_BYTES)
            flushes++;
    }
    cr_expect_eq(flushes, 4);
    cr_expect_eq(count_op(&g, "launch"), 4);
    free(g.l);

    /* Saved inputs with the fake's magic values: the spec's domain stops
     * below them, so these runs use a copy of the spec that admits them. */
    char wide[300];
    snprintf(wide, sizeof wide, "%s", write_variant(&f, "wide", NULL, NULL, FAKECUDA_TRAP, "fake_inc", 0));

    /* --kernel-timeout on a saved input that hangs: status timeout, exit 0. */
    char in[200];
    snprintf(in, sizeof in, "%s/hang", f.dir);
    data_of(&f)[4] = FAKECUDA_HANG;
    wh_error err;
    cr_assert(wh_image_save(f.img, in, &err), "%s", err.msg);
    const char *a2[] = { wide, "--backend", "cuda", "--input", in, "--kernel-timeout", "0.5", "--json", "--quiet" };
    double t0 = wh_clock_s();
    cr_expect_eq(run_measure(&f, a2, 9), 0, "%s", err_text(&f));
    cr_expect(wh_clock_s() - t0 < 10);
    json_t *j = out_json(&f);
    cr_expect_str_eq(json_string_value(json_object_get(j, "status")), "timeout");
    cr_expect(strstr(json_string_value(json_object_get(j, "message")), "watchdog"), "%s",
              json_string_value(json_object_get(j, "message")));
    cr_expect_eq(json_integer_value(json_object_get(j, "reps")), 0);
    json_decref(j);

    /* A fault: status fault, with --check the sim faults too and they agree. */
    snprintf(in, sizeof in, "%s/fault", f.dir);
    data_of(&f)[4] = FAKECUDA_FAULT;
    cr_assert(wh_image_save(f.img, in, &err), "%s", err.msg);
    const char *a3[] = { wide, "--backend", "cuda", "--input", in, "--check", "--json", "--quiet" };
    cr_expect_eq(run_measure(&f, a3, 8), 0, "%s", err_text(&f));
    j = out_json(&f);
    cr_expect_str_eq(json_string_value(json_object_get(j, "status")), "fault");
    cr_expect(strstr(json_string_value(json_object_get(j, "message")), "CUDA_ERROR_ILLEGAL_ADDRESS"), "%s",
              json_string_value(json_object_get(j, "message")));
    json_t *c = json_object_get(j, "check");
    cr_assert(c);
    cr_expect_str_eq(json_string_value(json_object_get(c, "reference_status")), "fault");
    cr_expect(json_is_true(json_object_get(c, "agree")));
    json_decref(j);

    /* A JIT error: exit status 2 and the log on stderr. */
    setenv(FAKECUDA_JIT_FAIL_ENV, "1", 1);
    const char *a4[] = { SPEC, "--backend", "cuda" };
    cr_expect_eq(run_measure(&f, a4, 3), 2);
    cr_expect(strstr(err_text(&f), "JIT error log:\n" FAKECUDA_JIT_FORCED_ERROR), "%s", err_text(&f));
    fx_close(&f);
}

/* A whole hunt on the cuda backend: the GA's evaluations go through the
 * driver, with the run options every kernel-running command shares. */
/* --jobs on the cuda backend: one evaluation thread per device, as many
 * as asked and as there are devices (a GPU shared by two would disturb
 * both times); one device, or no --jobs, one thread. */
Test(fake_cuda, cli_hunt_takes_one_evaluation_thread_per_device)
{
    fx f;
    fx_open(&f);
    char results[200];
    snprintf(results, sizeof results, "%s/results", f.dir);
    static const struct { const char *devices, *jobs; int threads, dev1; } cases[] = {
        { "2", "3", 2, 1 }, { "2", NULL, 1, 0 }, { "1", "2", 1, 0 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        setenv(FAKECUDA_DEVICES_ENV, cases[c].devices, 1);
        FILE *lf = fopen(f.log, "w");   /* this case's driver calls only */
        cr_assert(lf, "cannot truncate %s", f.log);
        fclose(lf);
        const char *args[] = { SPEC, "--backend", "cuda", "--evals", "20", "--population", "10", "--reps", "1",
                               "--no-explain", "--results", results, "--json", "--quiet", "--jobs",
                               cases[c].jobs };
        int nargs = (int)(sizeof args / sizeof args[0]) - (cases[c].jobs ? 0 : 2);
        cr_assert_eq(run_cmd(&f, cmd_hunt, "hunt", args, nargs), 0, "hunt failed: %s", err_text(&f));
        json_t *j = out_json(&f);
        cr_expect_eq(json_integer_value(json_object_get(j, "jobs")), cases[c].threads, "%s devices, --jobs %s",
                     cases[c].devices, cases[c].jobs ? cases[c].jobs : "(none)");
        cr_expect_eq(json_integer_value(json_object_get(j, "evals")), 20);
        json_decref(j);
        fakelog g = read_log(f.log);
        int on_dev1 = 0;
        for (int k = 0; k < g.n; k++) on_dev1 += !strcmp(g.l[k].op, "ctx_retain") && !strncmp(g.l[k].rest, "1 ", 2);
        cr_expect_eq(on_dev1 > 0, cases[c].dev1, "%s devices, --jobs %s: a worker on device 1: %d", cases[c].devices,
                     cases[c].jobs ? cases[c].jobs : "(none)", on_dev1);
        free(g.l);
    }
    unsetenv(FAKECUDA_DEVICES_ENV);
    fx_close(&f);
}

Test(fake_cuda, cli_hunt_runs_on_the_cuda_backend_with_cold_l2)
{
    fx f;
    fx_open(&f);
    char results[200];
    snprintf(results, sizeof results, "%s/results", f.dir);
    const char *args[] = { SPEC, "--backend", "cuda", "--cold-l2", "--warmup", "1", "--kernel-timeout", "5",
                           "--evals", "20", "--reps", "2", "--final-reps", "3", "--patience", "0", "--results",
                           results, "--json", "--quiet" };
    int rc = run_cmd(&f, cmd_hunt, "hunt", args, (int)(sizeof args / sizeof args[0]));
    cr_assert_eq(rc, 0, "hunt failed: %s", err_text(&f));
    json_t *j = out_json(&f);
    cr_expect_str_eq(json_string_value(json_object_get(j, "backend")), "cuda");
    cr_expect_eq(json_integer_value(json_object_get(j, "evals")), 20);
    cr_expect(fabs(json_number_value(json_object_get(j, "best")) - KERNEL_US) < 1e-3, "best %g us",
              json_number_value(json_object_get(j, "best")));
    /* run.json describes the device */
    char runjson[600];
    snprintf(runjson, sizeof runjson, "%s/run.json", json_string_value(json_object_get(j, "dir")));
    json_decref(j);
    json_t *rj = ts_load_json(runjson);
    json_t *di = json_object_get(rj, "device_info");
    cr_expect_str_eq(json_string_value(json_object_get(di, "name")), FAKECUDA_NAME);
    cr_expect_eq(json_integer_value(json_object_get(di, "sm_count")), FAKECUDA_SM_COUNT);
    cr_expect_eq(json_integer_value(json_object_get(di, "l2_bytes")), FAKECUDA_L2_BYTES);
    cr_expect(json_string_value(json_object_get(di, "driver_version")));
    cr_expect(json_is_true(json_object_get(json_object_get(json_object_get(rj, "options"), "harness"), "cold_l2")));
    json_decref(rj);

    /* 20 evaluations x 2 reps + 3 final reps + warm-ups, each after a flush */
    fakelog g = read_log(f.log);
    launch_t ls[256];
    int n = launches_of(&g, ls, 256);
    cr_expect_geq(n, 20 * 2 + 3, "%d launches", n);
    int flushes = 0;
    for (int i = 0; i < g.n; i++) {
        unsigned long long a;
        size_t bytes;
        unsigned v;
        if (!strcmp(g.l[i].op, "memset8") && sscanf(g.l[i].rest, "%llx %u %zu", &a, &v, &bytes) == 3 &&
            bytes > FAKECUDA_L2_BYTES)
            flushes++;
    }
    cr_expect_geq(flushes, 20 * 2 + 3, "--cold-l2 reached the harness: %d flushes", flushes);
    free(g.l);
    fx_close(&f);
}

/* The same on the cuda backend: a faulting launch (an illegal address in
 * the fake, as on a GPU) is a finding with the driver's message, the worker
 * is replaced, and the search goes on. */
Test(fake_cuda, cli_hunt_records_faults_as_findings_and_goes_on)
{
    fx f;
    fx_open(&f);
    char results[200];
    snprintf(results, sizeof results, "%s/results", f.dir);
    const char *args[] = { "tests/specs/fault_small.json", "--backend", "cuda", "--evals", "30", "--reps", "1",
                           "--final-reps", "2", "--patience", "0", "--results", results, "--json", "--quiet" };
    int rc = run_cmd(&f, cmd_hunt, "hunt", args, (int)(sizeof args / sizeof args[0]));
    cr_assert_eq(rc, 0, "hunt failed: %s", err_text(&f));
    json_t *j = out_json(&f);
    long findings = (long)json_integer_value(json_object_get(j, "findings"));
    cr_expect_eq(json_integer_value(json_object_get(j, "evals")), 30);
    cr_expect_gt(findings, 0);
    cr_expect_lt(findings, 30);
    cr_expect_gt(json_number_value(json_object_get(j, "best")), 0, "inputs that run were found");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "grep -l 'illegal' '%s'/findings/*/message.txt | wc -l | grep -qx %ld",
             json_string_value(json_object_get(j, "dir")), findings);
    cr_expect_eq(system(cmd), 0, "every finding has the driver's message");
    json_decref(j);
    fx_close(&f);
}

/* An input the kernel writes its result over ("in_place": fake_inc's
 * data[i] = v + 1) is compared by --check beside the outputs (the
 * "GPU" and the sim each start from the pristine input), and --outputs
 * writes its result as data.out.bin beside the input's data.bin. */
Test(fake_cuda, an_in_place_input_is_checked_and_written_back)
{
    fx f;
    fx_open(&f);
    char outdir[200];
    snprintf(outdir, sizeof outdir, "%s/outputs", f.dir);
    const char *a[] = { "tests/specs/cuda_fake_inc_in_place.json", "--backend", "cuda", "--check", "--json",
                        "--random", "5", "--outputs", outdir };
    cr_assert_eq(run_measure(&f, a, 9), 0, "%s", err_text(&f));
    json_t *j = out_json(&f);
    json_t *c = json_object_get(j, "check");
    cr_assert(c, "no check");
    const char *report = json_string_value(json_object_get(c, "report"));
    cr_expect(json_is_true(json_object_get(c, "agree")), "%s", report);
    cr_expect(strstr(report, "512 elements"), "data and out, 256 each: %s", report);
    json_decref(j);
    wh_error err;
    wh_spec *s = wh_spec_load("tests/specs/cuda_fake_inc_in_place.json", &err);
    cr_assert(s, "%s", err.msg);
    wh_image *in = wh_image_load(s, outdir, &err);
    cr_assert(in, "%s", err.msg);
    char path[300];
    snprintf(path, sizeof path, "%s/data.out.bin", outdir);
    FILE *fp = fopen(path, "rb");
    cr_assert(fp, "%s", path);
    uint32_t after[256];
    cr_assert_eq(fread(after, sizeof after[0], 256, fp), 256);
    fclose(fp);
    const uint32_t *before = (const uint32_t *)in->bufs[0].data;
    for (int i = 0; i < 256; i++)
        cr_expect_eq(after[i], before[i] + 1, "element %d: %u, the input's %u", i, after[i], before[i]);
    wh_image_free(in);
    wh_spec_free(s);
    fx_close(&f);
}
