/*
 * test_cuda_worker.c — the cuda backend's worker machinery without a GPU:
 * message framing and payloads (round trips, truncation, corruption,
 * timeouts), and the worker process driven by engine doubles that answer,
 * hang, crash, fault or fail, to check the watchdog, the restarts and the
 * error paths.
 */
#include <criterion/criterion.h>

#include "harness/cuda/proto.h"
#include "harness/cuda/worker.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Framing                                                                  */
/* ------------------------------------------------------------------------ */

static void pair(int sv[2])
{
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

Test(cuda_proto, frames_round_trip)
{
    int sv[2];
    pair(sv);
    const char text[] = "hello worker";
    cr_assert_eq(wh_cuda_send(sv[0], 42, text, sizeof text, wh_cuda_deadline(2)), WH_IO_OK);
    cr_assert_eq(wh_cuda_send(sv[0], 7, NULL, 0, wh_cuda_deadline(2)), WH_IO_OK);
    uint32_t type = 0;
    unsigned char *p = NULL;
    size_t len = 0;
    cr_assert_eq(wh_cuda_recv(sv[1], &type, &p, &len, 1 << 20, wh_cuda_deadline(2)), WH_IO_OK);
    cr_expect_eq(type, 42);
    cr_expect_eq(len, sizeof text);
    cr_expect_str_eq((const char *)p, text);
    free(p);
    cr_assert_eq(wh_cuda_recv(sv[1], &type, &p, &len, 1 << 20, wh_cuda_deadline(2)), WH_IO_OK);
    cr_expect_eq(type, 7);
    cr_expect_eq(len, 0);
    cr_expect_null(p);
    close(sv[0]);
    cr_expect_eq(wh_cuda_recv(sv[1], &type, &p, &len, 1 << 20, wh_cuda_deadline(2)), WH_IO_EOF,
                 "a closed peer reads as EOF");
    close(sv[1]);
}

Test(cuda_proto, large_payload_crosses_the_socket_buffer)
{
    int sv[2];
    pair(sv);
    size_t n = 8u << 20;
    unsigned char *big = malloc(n);
    cr_assert(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (unsigned char)(i * 131 + 7);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(sv[1]);
        _exit(wh_cuda_send(sv[0], 3, big, n, wh_cuda_deadline(20)) == WH_IO_OK ? 0 : 1);
    }
    close(sv[0]);
    uint32_t type;
    unsigned char *p;
    size_t len;
    cr_assert_eq(wh_cuda_recv(sv[1], &type, &p, &len, n, wh_cuda_deadline(20)), WH_IO_OK);
    cr_expect_eq(len, n);
    cr_expect_eq(memcmp(p, big, n), 0);
    free(p);
    free(big);
    close(sv[1]);
    int st;
    waitpid(pid, &st, 0);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

Test(cuda_proto, corrupt_header_and_oversized_payload_are_refused)
{
    int sv[2];
    pair(sv);
    uint32_t junk[4] = { 0xdeadbeef, 1, 4, 0 };
    cr_assert_eq(wh_cuda_write_all(sv[0], junk, sizeof junk, -1), WH_IO_OK);
    uint32_t type;
    unsigned char *p;
    size_t len;
    cr_expect_eq(wh_cuda_recv(sv[1], &type, &p, &len, 1 << 20, wh_cuda_deadline(2)), WH_IO_ERROR,
                 "bad magic");
    close(sv[0]);
    close(sv[1]);

    pair(sv);
    char buf[64] = { 0 };
    cr_assert_eq(wh_cuda_send(sv[0], 1, buf, sizeof buf, -1), WH_IO_OK);
    cr_expect_eq(wh_cuda_recv(sv[1], &type, &p, &len, 16, wh_cuda_deadline(2)), WH_IO_ERROR,
                 "payload above max_len");
    cr_expect_null(p);
    close(sv[0]);
    close(sv[1]);
}

Test(cuda_proto, reads_time_out_and_writes_to_a_closed_peer_do_not_kill)
{
    int sv[2];
    pair(sv);
    uint32_t type;
    unsigned char *p;
    size_t len;
    int64_t t0 = wh_cuda_now_ms();
    cr_expect_eq(wh_cuda_recv(sv[1], &type, &p, &len, 1 << 20, wh_cuda_deadline(0.2)), WH_IO_TIMEOUT);
    int64_t dt = wh_cuda_now_ms() - t0;
    cr_expect(dt >= 150 && dt < 2000, "timed out after %lld ms", (long long)dt);
    close(sv[1]);
    /* No SIGPIPE: the process survives and sees EOF. */
    char buf[1 << 16] = { 0 };
    wh_cuda_io r = WH_IO_OK;
    for (int i = 0; i < 64 && r == WH_IO_OK; i++)
        r = wh_cuda_send(sv[0], 1, buf, sizeof buf, wh_cuda_deadline(2));
    cr_expect_eq(r, WH_IO_EOF);
    close(sv[0]);
}

/* ------------------------------------------------------------------------ */
/* Payloads                                                                 */
/* ------------------------------------------------------------------------ */

static const wh_cuda_param params3[3] = {
    { .name = "in", .kind = WH_BUFFER, .role = WH_ROLE_INPUT, .size = 4 },
    { .name = "out", .kind = WH_BUFFER, .role = WH_ROLE_OUTPUT, .size = 4 },
    { .name = "n", .kind = WH_SCALAR, .role = WH_ROLE_NONE, .size = 4 },
};

static wh_cuda_setup setup3(const char *entry)
{
    static const char ptx[] = ".version 7.0\n.target sm_70\n";
    wh_cuda_setup s = {
        .libcuda = "/x/libcuda.so.1", .device = 3, .cold_l2 = true, .entry = entry,
        .ptx = ptx, .ptx_len = sizeof ptx - 1, .nparams = 3, .params = params3,
    };
    return s;
}

Test(cuda_proto, setup_round_trip)
{
    wh_cuda_setup s = setup3("kern");
    wh_cuda_wbuf b = { 0 };
    wh_cuda_setup_encode(&s, &b);
    cr_assert(!b.oom);
    wh_cuda_setup d;
    wh_cuda_param *params;
    char why[256];
    cr_assert(wh_cuda_setup_decode(b.data, b.len, &d, &params, why, sizeof why), "%s", why);
    cr_expect_str_eq(d.libcuda, "/x/libcuda.so.1");
    cr_expect_eq(d.device, 3);
    cr_expect(d.cold_l2);
    cr_expect_str_eq(d.entry, "kern");
    cr_expect_eq(d.ptx_len, s.ptx_len);
    cr_expect_str_eq(d.ptx, s.ptx);
    cr_assert_eq(d.nparams, 3);
    for (int i = 0; i < 3; i++) {
        cr_expect_str_eq(d.params[i].name, params3[i].name);
        cr_expect_eq(d.params[i].kind, params3[i].kind);
        cr_expect_eq(d.params[i].role, params3[i].role);
        cr_expect_eq(d.params[i].size, params3[i].size);
    }
    free(params);
    /* Every truncation is refused, never read past. */
    for (size_t cut = 0; cut < b.len; cut++) {
        cr_expect(!wh_cuda_setup_decode(b.data, cut, &d, &params, why, sizeof why), "cut at %zu", cut);
        cr_expect_null(params);
    }
    wh_cuda_wbuf_free(&b);
}

/* A module variable travels as one (a buffer only: a scalar global is
 * refused as malformed). */
Test(cuda_proto, setup_carries_module_variables)
{
    wh_cuda_param p[2] = { { .name = "out", .kind = WH_BUFFER, .role = WH_ROLE_OUTPUT, .size = 4 },
                           { .name = "lut", .kind = WH_BUFFER, .role = WH_ROLE_INPUT, .size = 4, .global = true } };
    wh_cuda_setup s = setup3("kern");
    s.nparams = 2;
    s.params = p;
    for (int bad = 0; bad < 2; bad++) {
        p[1].kind = bad ? WH_SCALAR : WH_BUFFER;
        wh_cuda_wbuf b = { 0 };
        wh_cuda_setup_encode(&s, &b);
        wh_cuda_setup d;
        wh_cuda_param *params = NULL;
        char why[256];
        bool ok = wh_cuda_setup_decode(b.data, b.len, &d, &params, why, sizeof why);
        cr_expect_eq(ok, !bad, "%s", why);
        if (ok) {
            cr_expect(!d.params[0].global);
            cr_expect(d.params[1].global);
        }
        free(params);
        wh_cuda_wbuf_free(&b);
    }
}

/* A texture's or surface's description crosses to the worker whole; a
 * bad channel count is a malformed message. */
Test(cuda_proto, setup_carries_textures)
{
    ptx_texture t = (ptx_texture){ .ndims = 2, .dims = { 640, 480, 1 }, .address = { WH_TEX_WRAP, WH_TEX_MIRROR, 0 },
                       .filter_linear = true, .normalized_coords = true, .read_normalized = true,
                       .channels = 4, .chan_bytes = 1, .texel_bytes = 4 };
    wh_cuda_param p[1] = { { .name = "img", .kind = WH_BUFFER, .role = WH_ROLE_INPUT, .size = 4, .tex = t } };
    wh_cuda_setup s = setup3("kern");
    s.nparams = 1;
    s.params = p;
    for (int bad = 0; bad < 3; bad++) {
        p[0].tex.channels = bad == 1 ? 3 : 4;
        p[0].tex.surface = bad == 2;   /* not bad: a surface */
        p[0].tex.gather = bad == 0;
        wh_cuda_wbuf b = { 0 };
        wh_cuda_setup_encode(&s, &b);
        wh_cuda_setup d;
        wh_cuda_param *params = NULL;
        char why[256];
        bool ok = wh_cuda_setup_decode(b.data, b.len, &d, &params, why, sizeof why);
        cr_expect_eq(ok, bad != 1, "%s", why);
        if (ok) {
            const ptx_texture *r = &d.params[0].tex;
            cr_expect_eq(r->surface, bad == 2);
            cr_expect_eq(r->gather, bad == 0);
            cr_expect(r->ndims == 2 && r->dims[0] == 640 && r->dims[1] == 480 && r->dims[2] == 1);
            cr_expect(r->address[0] == WH_TEX_WRAP && r->address[1] == WH_TEX_MIRROR);
            cr_expect(r->filter_linear && r->normalized_coords && r->read_normalized && !r->linear_memory);
            cr_expect(r->channels == 4 && r->chan_bytes == 1 && r->texel_bytes == 4 && !r->chan_float);
        }
        free(params);
        wh_cuda_wbuf_free(&b);
    }
}

Test(cuda_proto, request_round_trip_and_truncations)
{
    uint32_t in[5] = { 1, 2, 3, 4, 5 }, n = 5;
    wh_cuda_arg args[3] = { { sizeof in, (const unsigned char *)in }, { 20, NULL }, { 4, (const unsigned char *)&n } };
    wh_cuda_request rq = { .grid = { 2, 3, 4 }, .block = { 32, 2, 1 }, .shared_bytes = 4096,
                           .warmup = 2, .reps = 7, .want_outputs = true, .nparams = 3, .args = args };
    wh_cuda_wbuf b = { 0 };
    wh_cuda_request_encode(&rq, &b);
    wh_cuda_request d;
    wh_cuda_arg dargs[3];
    char why[256];
    cr_assert(wh_cuda_request_decode(b.data, b.len, 3, &d, dargs, why, sizeof why), "%s", why);
    cr_expect_eq(d.grid[1], 3);
    cr_expect_eq(d.block[0], 32);
    cr_expect_eq(d.shared_bytes, 4096);
    cr_expect_eq(d.warmup, 2);
    cr_expect_eq(d.reps, 7);
    cr_expect(d.want_outputs);
    cr_expect(!d.want_all);
    cr_expect_eq(dargs[0].bytes, sizeof in);
    cr_assert_not_null(dargs[0].data);
    cr_expect_eq(memcmp(dargs[0].data, in, sizeof in), 0);
    cr_expect_eq(dargs[1].bytes, 20);
    cr_expect_null(dargs[1].data, "outputs travel as sizes only");
    cr_expect_eq(memcmp(dargs[2].data, &n, 4), 0);
    cr_expect(!wh_cuda_request_decode(b.data, b.len, 2, &d, dargs, why, sizeof why),
              "parameter count must match the setup");
    for (size_t cut = 0; cut < b.len; cut++)
        cr_expect(!wh_cuda_request_decode(b.data, cut, 3, &d, dargs, why, sizeof why), "cut at %zu", cut);
    wh_cuda_wbuf_free(&b);

    rq.want_all = true;
    wh_cuda_request_encode(&rq, &b);
    cr_assert(wh_cuda_request_decode(b.data, b.len, 3, &d, dargs, why, sizeof why), "%s", why);
    cr_expect(d.want_outputs && d.want_all);
    wh_cuda_wbuf_free(&b);

    /* 0 repetitions travel as 1; more than a batch is malformed */
    rq.reps = 0;
    wh_cuda_request_encode(&rq, &b);
    cr_assert(wh_cuda_request_decode(b.data, b.len, 3, &d, dargs, why, sizeof why), "%s", why);
    cr_expect_eq(d.reps, 1);
    wh_cuda_wbuf_free(&b);
    rq.reps = WH_CUDA_MAX_BATCH + 1;
    wh_cuda_request_encode(&rq, &b);
    cr_expect(!wh_cuda_request_decode(b.data, b.len, 3, &d, dargs, why, sizeof why));
    wh_cuda_wbuf_free(&b);
}

Test(cuda_proto, result_round_trip_with_outputs)
{
    uint32_t out[4] = { 9, 8, 7, 6 };
    wh_cuda_arg args[3] = { { 16, NULL }, { sizeof out, NULL }, { 4, NULL } };
    wh_cuda_request rq = { .nparams = 3, .args = args };
    unsigned char *outputs[3] = { NULL, (unsigned char *)out, NULL };
    wh_cuda_result res = { .status = HARNESS_OK, .time_us = 12.5, .ntimes = 3, .times = { 10.5, 11.5, 12.5 } };
    snprintf(res.message, sizeof res.message, "fine");
    wh_cuda_wbuf b = { 0 };
    wh_cuda_result_encode(&res, &rq, outputs, &b);

    uint32_t got[4] = { 0 };
    unsigned char *dest[3] = { NULL, (unsigned char *)got, NULL };
    uint64_t dest_bytes[3] = { 16, sizeof got, 4 };
    wh_cuda_result d;
    char why[256];
    cr_assert(wh_cuda_result_decode(b.data, b.len, &d, 3, dest, dest_bytes, why, sizeof why), "%s", why);
    cr_expect_eq(d.status, HARNESS_OK);
    cr_expect_float_eq(d.time_us, 12.5, 1e-12);
    cr_expect_eq(d.ntimes, 3);
    cr_expect_float_eq(d.times[0], 10.5, 1e-12);
    cr_expect_float_eq(d.times[2], 12.5, 1e-12);
    cr_expect_str_eq(d.message, "fine");
    cr_expect_eq(memcmp(got, out, sizeof out), 0);

    /* No destination: the data is skipped. */
    cr_expect(wh_cuda_result_decode(b.data, b.len, &d, 3, NULL, NULL, why, sizeof why));
    /* A size that does not match the destination is refused. */
    uint64_t wrong[3] = { 16, 8, 4 };
    cr_expect(!wh_cuda_result_decode(b.data, b.len, &d, 3, dest, wrong, why, sizeof why));
    cr_expect(strstr(why, "expected 8"), "%s", why);
    for (size_t cut = 0; cut < b.len; cut++)
        cr_expect(!wh_cuda_result_decode(b.data, cut, &d, 3, dest, dest_bytes, why, sizeof why));
    wh_cuda_wbuf_free(&b);
}

/* ------------------------------------------------------------------------ */
/* The worker, with engine doubles                                          */
/* ------------------------------------------------------------------------ */

/* The double: out[i] = in[i] + 1 (in: param 0, out: param 1), keeping the
 * last input as a device would; special input values act out failures.
 * The message reports what the request carried. */
enum { FAKE_FAULT = 1000001, FAKE_HANG = 1000002, FAKE_CRASH = 1000003, FAKE_TOOL = 1000004,
       FAKE_SLOW = 1000005,          /* every launch (warm-ups too) takes 1 s */
       FAKE_HANG_IN_WARMUP = 1000006 /* the first warm-up completes, the second hangs */ };

typedef struct {
    unsigned char *in;
    uint64_t in_bytes;
    bool loaded;
    bool hang_in_close;
} fake_state;

static void *fake_open(const wh_cuda_setup *s, harness_cuda_info *info, char *msg, size_t n)
{
    if (!strcmp(s->entry, "fail_open")) {
        snprintf(msg, n, "JIT says no: line 3: syntax error");
        return NULL;
    }
    if (!strcmp(s->entry, "hang_open"))
        for (;;)
            pause();
    fake_state *f = calloc(1, sizeof *f);
    f->hang_in_close = !strcmp(s->entry, "hang_close");
    snprintf(info->name, sizeof info->name, "Fake GPU %d", s->device);
    info->ordinal = s->device;
    info->sm_count = 7;
    info->clock_khz = 1234000;
    info->driver_version = 12040;
    snprintf(info->libcuda, sizeof info->libcuda, "%s", s->libcuda);
    return f;
}

static bool fake_run(void *state, const wh_cuda_request *rq, unsigned char *const *outputs,
                     wh_cuda_result *res, char *msg, size_t n)
{
    fake_state *f = state;
    const wh_cuda_arg *in = &rq->args[0];
    int uploads = 0;
    if (in->data) {
        free(f->in);
        f->in = malloc(in->bytes ? in->bytes : 1);
        memcpy(f->in, in->data, in->bytes);
        f->in_bytes = in->bytes;
        f->loaded = true;
        uploads++;
    } else if (!f->loaded) {
        snprintf(msg, n, "input 'in' was never sent");
        return false;
    }
    uint32_t *v = (uint32_t *)f->in;
    uint64_t count = f->in_bytes / 4;
    for (uint64_t i = 0; i < count; i++) {
        if (v[i] == FAKE_FAULT) {
            res->status = HARNESS_FAULT;
            res->restart = true;
            snprintf(res->message, sizeof res->message, "fake illegal address at element %llu",
                     (unsigned long long)i);
            return true;
        }
        if (v[i] == FAKE_HANG)
            for (;;)
                pause();
        if (v[i] == FAKE_CRASH) {
            signal(SIGTERM, SIG_DFL);
            raise(SIGTERM);
        }
        if (v[i] == FAKE_TOOL) {
            snprintf(msg, n, "cuMemAlloc: out of memory (fake)");
            return false;
        }
        if (v[i] == FAKE_SLOW || v[i] == FAKE_HANG_IN_WARMUP) {
            for (int w = 0; w < rq->warmup; w++) {
                if (v[i] == FAKE_HANG_IN_WARMUP && w == 1)
                    for (;;)
                        pause();
                usleep(v[i] == FAKE_SLOW ? 1000000 : 1000);
                if (rq->progress)
                    rq->progress(rq->progress_ctx);
            }
            usleep(v[i] == FAKE_SLOW ? 1000000 : 1000);
        }
    }
    if (outputs && outputs[1])
        for (uint64_t i = 0; i < count && (i + 1) * 4 <= rq->args[1].bytes; i++) {
            uint32_t o = v[i] + 1;
            memcpy(outputs[1] + 4 * i, &o, 4);
        }
    res->status = HARNESS_OK;
    res->time_us = 3.25;
    snprintf(res->message, sizeof res->message, "uploads=%d warmup=%d pid=%d", uploads, rq->warmup,
             (int)getpid());
    return true;
}

static void fake_close(void *state)
{
    fake_state *f = state;
    if (f->hang_in_close)
        for (;;)
            pause();
    free(f->in);
    free(f);
}

static const wh_cuda_engine fake_engine = { "fake", fake_open, fake_run, fake_close };

typedef struct {
    uint32_t in[8], out[8], n;
    wh_cuda_arg args[3];
    unsigned char *dest[3];
    uint64_t dest_bytes[3];
    wh_cuda_request rq;
} job;

static void job_init(job *j, bool send_input)
{
    memset(j, 0, sizeof *j);
    for (int i = 0; i < 8; i++)
        j->in[i] = (uint32_t)(10 * i);
    j->n = 8;
    j->args[0] = (wh_cuda_arg){ sizeof j->in, send_input ? (const unsigned char *)j->in : NULL };
    j->args[1] = (wh_cuda_arg){ sizeof j->out, NULL };
    j->args[2] = (wh_cuda_arg){ 4, (const unsigned char *)&j->n };
    j->dest[1] = (unsigned char *)j->out;
    j->dest_bytes[0] = sizeof j->in;
    j->dest_bytes[1] = sizeof j->out;
    j->dest_bytes[2] = 4;
    j->rq = (wh_cuda_request){ .grid = { 1, 1, 1 }, .block = { 8, 1, 1 }, .warmup = 0,
                               .want_outputs = true, .nparams = 3, .args = j->args };
}

static void start(wh_cuda_worker *w, const char *entry, double start_timeout)
{
    wh_cuda_setup s = setup3(entry);
    wh_error err;
    cr_assert(wh_cuda_worker_init(w, &fake_engine, &s, start_timeout, &err), "%s", err.msg);
    cr_assert(wh_cuda_worker_start(w, &err), "%s", err.msg);
}

Test(cuda_worker, answers_with_time_and_outputs)
{
    wh_cuda_worker w;
    start(&w, "kern", 10);
    cr_expect_str_eq(w.info.name, "Fake GPU 3", "READY carries the device description");
    cr_expect_eq(w.info.sm_count, 7);
    cr_expect_eq(w.generation, 1);
    job j;
    job_init(&j, true);
    wh_cuda_result res;
    wh_error err;
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_OK, "%s", res.message);
    cr_expect_float_eq(res.time_us, 3.25, 1e-12);
    for (int i = 0; i < 8; i++)
        cr_expect_eq(j.out[i], j.in[i] + 1);
    /* The worker keeps the input: a request without it still runs. */
    job_init(&j, false);
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_OK, "%s", res.message);
    cr_expect(strstr(res.message, "uploads=0"), "%s", res.message);
    cr_expect_eq(j.out[7], 71);
    pid_t pid = w.pid;
    wh_cuda_worker_fini(&w);
    cr_expect_eq(kill(pid, 0), -1, "the worker is gone after fini");
    cr_expect(strstr(w.last_exit, "exited with status 0"), "%s", w.last_exit);
}

Test(cuda_worker, watchdog_kills_a_hang_and_the_next_run_restarts)
{
    wh_cuda_worker w;
    start(&w, "kern", 10);
    pid_t first = w.pid;
    job j;
    job_init(&j, true);
    j.in[2] = FAKE_HANG;
    wh_cuda_result res;
    wh_error err;
    int64_t t0 = wh_cuda_now_ms();
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 0.3, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    int64_t dt = wh_cuda_now_ms() - t0;
    cr_expect_eq(res.status, HARNESS_TIMEOUT);
    cr_expect(strstr(res.message, "watchdog"), "%s", res.message);
    cr_expect(dt < 5000, "the watchdog fired after %lld ms (0.3 s + 2 s slack)", (long long)dt);
    cr_expect(!wh_cuda_worker_running(&w));
    cr_expect_eq(kill(first, 0), -1, "the hung worker was killed and reaped");
    cr_expect(strstr(w.last_exit, "signal 9"), "%s", w.last_exit);
    cr_expect_eq(w.restarts, 1);

    /* Lazy restart: the next run starts a fresh worker (it needs the input). */
    job_init(&j, true);
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_OK, "%s", res.message);
    cr_expect_neq(w.pid, first);
    cr_expect_eq(w.generation, 2);
    cr_expect_eq(j.out[2], 21);
    wh_cuda_worker_fini(&w);
}

/* Each launch has its own deadline: three launches of 1 s pass a 0.1 s
 * (+ 2 s) watchdog because the worker reports each warm-up; a hang in the
 * second warm-up is caught one launch budget after the first completed. */
Test(cuda_worker, the_watchdog_times_each_launch_not_the_whole_request)
{
    wh_cuda_worker w;
    start(&w, "kern", 10);
    job j;
    job_init(&j, true);
    j.in[0] = FAKE_SLOW;
    j.rq.warmup = 2;
    wh_cuda_result res;
    wh_error err;
    int64_t t0 = wh_cuda_now_ms();
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 0.1, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_OK, "%s", res.message);
    cr_expect(wh_cuda_now_ms() - t0 >= 2900, "three 1 s launches");

    job_init(&j, true);
    j.in[0] = FAKE_HANG_IN_WARMUP;
    j.rq.warmup = 2;
    t0 = wh_cuda_now_ms();
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 0.1, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    int64_t dt = wh_cuda_now_ms() - t0;
    cr_expect_eq(res.status, HARNESS_TIMEOUT, "%s", res.message);
    cr_expect(strstr(res.message, "launch 2 of 3, a warm-up"), "%s", res.message);
    cr_expect(dt >= 2000 && dt < 4500, "caught after %lld ms", (long long)dt);
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, a_crash_is_a_fault_and_the_next_run_restarts)
{
    wh_cuda_worker w;
    start(&w, "kern", 10);
    job j;
    job_init(&j, true);
    j.in[5] = FAKE_CRASH;
    wh_cuda_result res;
    wh_error err;
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_FAULT);
    cr_expect(strstr(res.message, "signal 15"), "%s", res.message);
    cr_expect(!wh_cuda_worker_running(&w));
    job_init(&j, true);
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_OK, "%s", res.message);
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, a_fault_with_restart_lets_the_worker_go)
{
    wh_cuda_worker w;
    start(&w, "kern", 10);
    pid_t first = w.pid;
    job j;
    job_init(&j, true);
    j.in[1] = FAKE_FAULT;
    j.out[0] = 0xabcd;
    wh_cuda_result res;
    wh_error err;
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_FAULT);
    cr_expect(res.restart);
    cr_expect(strstr(res.message, "element 1"), "%s", res.message);
    cr_expect_eq(j.out[0], 0xabcd, "no outputs on a fault");
    cr_expect(!wh_cuda_worker_running(&w));
    cr_expect_eq(kill(first, 0), -1);
    cr_expect(strstr(w.last_exit, "exited with status 0"), "it left on its own: %s", w.last_exit);
    job_init(&j, true);
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_OK, "%s", res.message);
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, a_tool_error_in_run_is_an_error_not_a_finding)
{
    wh_cuda_worker w;
    start(&w, "kern", 10);
    job j;
    job_init(&j, true);
    j.in[0] = FAKE_TOOL;
    wh_cuda_result res;
    wh_error err;
    wh_error_clear(&err);
    cr_expect(!wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err));
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect(strstr(err.msg, "out of memory (fake)"), "%s", err.msg);
    cr_expect(!wh_cuda_worker_running(&w));
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, a_request_without_inputs_to_a_fresh_worker_fails_cleanly)
{
    wh_cuda_worker w;
    start(&w, "kern", 10);
    job j;
    job_init(&j, false);
    wh_cuda_result res;
    wh_error err;
    cr_expect(!wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err));
    cr_expect(strstr(err.msg, "never sent"), "%s", err.msg);
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, engine_open_failure_is_a_device_error_with_its_message)
{
    wh_cuda_worker w;
    wh_cuda_setup s = setup3("fail_open");
    wh_error err;
    cr_assert(wh_cuda_worker_init(&w, &fake_engine, &s, 10, &err));
    wh_error_clear(&err);
    cr_expect(!wh_cuda_worker_start(&w, &err));
    cr_expect_eq(err.kind, WH_ERR_DEVICE);
    cr_expect_eq(wh_error_exit_status(&err), 2);
    cr_expect(strstr(err.msg, "JIT says no: line 3"), "%s", err.msg);
    cr_expect(!wh_cuda_worker_running(&w));
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, a_worker_that_never_gets_ready_is_killed)
{
    wh_cuda_worker w;
    wh_cuda_setup s = setup3("hang_open");
    wh_error err;
    cr_assert(wh_cuda_worker_init(&w, &fake_engine, &s, 0.3, &err));
    int64_t t0 = wh_cuda_now_ms();
    cr_expect(!wh_cuda_worker_start(&w, &err));
    cr_expect(wh_cuda_now_ms() - t0 < 5000);
    cr_expect(strstr(err.msg, "not ready within"), "%s", err.msg);
    cr_expect(strstr(w.last_exit, "signal 9"), "%s", w.last_exit);
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, stop_kills_a_worker_stuck_in_close)
{
    wh_cuda_worker w;
    start(&w, "hang_close", 10);
    int64_t t0 = wh_cuda_now_ms();
    wh_cuda_worker_stop(&w, 0.2);
    cr_expect(wh_cuda_now_ms() - t0 < 5000);
    cr_expect(!wh_cuda_worker_running(&w));
    cr_expect(strstr(w.last_exit, "signal 9"), "%s", w.last_exit);
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, a_worker_dead_while_idle_is_reported_lost)
{
    wh_cuda_worker w;
    start(&w, "kern", 10);
    kill(w.pid, SIGKILL);
    usleep(50000);
    job j;
    job_init(&j, true);
    wh_cuda_result res;
    wh_error err;
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect(res.lost, "nothing ran: the caller must resend everything (%s)", res.message);
    cr_expect(!wh_cuda_worker_running(&w));
    cr_assert(wh_cuda_worker_run(&w, &j.rq, 5, j.dest, j.dest_bytes, &res, &err), "%s", err.msg);
    cr_expect_eq(res.status, HARNESS_OK, "%s", res.message);
    wh_cuda_worker_fini(&w);
}

Test(cuda_worker, describes_how_a_process_ended)
{
    char buf[128];
    wh_cuda_describe_exit(3 << 8, buf, sizeof buf);
    cr_expect_str_eq(buf, "exited with status 3");
    wh_cuda_describe_exit(SIGSEGV, buf, sizeof buf);
    cr_expect(strstr(buf, "signal 11"), "%s", buf);
}
