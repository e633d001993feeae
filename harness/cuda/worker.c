/*
 * worker.c — the worker process (child side: a loop over requests
 * that calls the engine) and its supervisor (parent side: start, watchdog,
 * kill, lazy restart).
 */
#include "harness/cuda/worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Child side                                                               */
/* ------------------------------------------------------------------------ */

/* Close every descriptor but 0-2 and `keep`, so that the worker holds no
 * copy of the parent's other sockets and pipes (another worker's socket
 * would then never see EOF). */
static void close_other_fds(int keep)
{
    int fds[1024];
    bool more = true;
    while (more) {
        more = false;
        int nfds = 0;
        DIR *d = opendir("/proc/self/fd");
        if (!d) {
            for (int fd = 3; fd < 1024; fd++)
                if (fd != keep)
                    close(fd);
            return;
        }
        int self = dirfd(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            char *end;
            long fd = strtol(e->d_name, &end, 10);
            if (*end || end == e->d_name || fd < 3 || fd == keep || fd == self)
                continue;
            if (nfds == (int)(sizeof fds / sizeof fds[0])) {
                more = true;
                break;
            }
            fds[nfds++] = (int)fd;
        }
        closedir(d);
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
    }
}

static void send_progress(void *ctx)
{
    wh_cuda_send(*(int *)ctx, WH_CUDA_MSG_PROGRESS, NULL, 0, wh_cuda_deadline(10));
}

static void send_error(int fd, const char *msg)
{
    wh_cuda_send(fd, WH_CUDA_MSG_ERROR, msg, strlen(msg) + 1, wh_cuda_deadline(10));
}

/* The worker's life: SETUP, open, then RUN after RUN until EOF.  Returns
 * the exit status. */
static int worker_main(int fd, const wh_cuda_engine *engine)
{
    char msg[8192];
    uint32_t type = 0;
    unsigned char *payload = NULL;
    size_t len = 0;

    if (wh_cuda_recv(fd, &type, &payload, &len, WH_CUDA_MAX_PAYLOAD, -1) != WH_IO_OK ||
        type != WH_CUDA_MSG_SETUP) {
        free(payload);
        return 3;
    }
    unsigned char *setup_payload = payload;
    payload = NULL;
    wh_cuda_setup setup;
    wh_cuda_param *params = NULL;
    if (!wh_cuda_setup_decode(setup_payload, len, &setup, &params, msg, sizeof msg)) {
        send_error(fd, msg);
        free(setup_payload);
        return 3;
    }

    harness_cuda_info info;
    memset(&info, 0, sizeof info);
    msg[0] = 0;
    void *state = engine->open(&setup, &info, msg, sizeof msg);
    if (!state) {
        send_error(fd, msg[0] ? msg : "the CUDA engine failed to start");
        free(params);
        free(setup_payload);
        return 1;
    }
    wh_cuda_wbuf b = { 0 };
    wh_cuda_info_encode(&info, &b);
    if (b.oom || wh_cuda_send(fd, WH_CUDA_MSG_READY, b.data, b.len, -1) != WH_IO_OK) {
        wh_cuda_wbuf_free(&b);
        engine->close(state);
        free(params);
        free(setup_payload);
        return 3;
    }
    wh_cuda_wbuf_free(&b);

    int np = setup.nparams;
    wh_cuda_arg *args = calloc(np ? (size_t)np : 1, sizeof *args);
    unsigned char **outputs = calloc(np ? (size_t)np : 1, sizeof *outputs);
    int rc = 0;
    bool poisoned = false;
    if (!args || !outputs) {
        send_error(fd, "out of memory in the CUDA worker");
        rc = 1;
    }
    while (rc == 0) {
        wh_cuda_io io = wh_cuda_recv(fd, &type, &payload, &len, WH_CUDA_MAX_PAYLOAD, -1);
        if (io == WH_IO_EOF)
            break;                              /* the parent is done */
        if (io != WH_IO_OK) {
            rc = 3;
            break;
        }
        wh_cuda_request rq;
        if (type != WH_CUDA_MSG_RUN) {
            snprintf(msg, sizeof msg, "the CUDA worker got message type %u, expected RUN", type);
            send_error(fd, msg);
            rc = 3;
        } else if (!wh_cuda_request_decode(payload, len, np, &rq, args, msg, sizeof msg)) {
            send_error(fd, msg);
            rc = 3;
        } else {
            rq.progress = send_progress;
            rq.progress_ctx = &fd;
            bool ok = true;
            for (int i = 0; i < np; i++) {
                outputs[i] = NULL;
                if (rq.want_outputs && setup.params[i].kind == WH_BUFFER &&
                    (rq.want_all || setup.params[i].role == WH_ROLE_OUTPUT)) {
                    outputs[i] = calloc(args[i].bytes ? (size_t)args[i].bytes : 1, 1);
                    if (!outputs[i])
                        ok = false;
                }
            }
            wh_cuda_result res;
            memset(&res, 0, sizeof res);
            msg[0] = 0;
            if (!ok) {
                send_error(fd, "out of memory in the CUDA worker (outputs)");
                rc = 1;
            } else if (!engine->run(state, &rq, outputs, &res, msg, sizeof msg)) {
                send_error(fd, msg[0] ? msg : "the CUDA engine failed");
                rc = 1;
                poisoned = true;    /* the tool failed: do not trust the context */
            } else {
                wh_cuda_wbuf out = { 0 };
                /* Outputs only from a run that completed. */
                wh_cuda_result_encode(&res, &rq,
                                      rq.want_outputs && res.status == HARNESS_OK ? outputs : NULL,
                                      &out);
                if (out.oom) {
                    send_error(fd, "out of memory in the CUDA worker (result)");
                    rc = 1;
                } else if (wh_cuda_send(fd, WH_CUDA_MSG_RESULT, out.data, out.len, -1) != WH_IO_OK) {
                    rc = 3;
                }
                wh_cuda_wbuf_free(&out);
                if (res.restart) {
                    poisoned = true;
                    if (rc == 0)
                        rc = 4;     /* leave: the context is unusable */
                }
            }
            for (int i = 0; i < np; i++) {
                free(outputs[i]);
                outputs[i] = NULL;
            }
        }
        free(payload);
        payload = NULL;
    }
    free(payload);
    /* A poisoned context is not torn down call by call: the process exit
     * releases it at once. */
    if (!poisoned)
        engine->close(state);
    free(args);
    free(outputs);
    free(params);
    free(setup_payload);
    return rc == 4 ? 0 : rc;
}

static void worker_child(int fd, const wh_cuda_engine *engine)
{
    /* The parent's --json output must not receive anything from the worker. */
    int dn = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (dn >= 0) {
        dup2(dn, STDOUT_FILENO);
        close(dn);
    }
    /* SIGINT etc. keep the parent's dispositions: on ^C the worker dies
     * with the parent's process group, which is right. */
    signal(SIGPIPE, SIG_IGN);
    close_other_fds(fd);
    int rc = worker_main(fd, engine);
    close(fd);
    _exit(rc);
}

/* ------------------------------------------------------------------------ */
/* Parent side                                                              */
/* ------------------------------------------------------------------------ */

void wh_cuda_describe_exit(int wstatus, char *buf, size_t n)
{
    if (WIFEXITED(wstatus))
        snprintf(buf, n, "exited with status %d", WEXITSTATUS(wstatus));
    else if (WIFSIGNALED(wstatus))
        snprintf(buf, n, "was killed by signal %d (%s)", WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
    else
        snprintf(buf, n, "ended (wait status 0x%x)", (unsigned)wstatus);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* Close our end; wait up to grace_s for the worker to exit (or kill it at
 * once), then reap it and record how it ended in w->last_exit. */
static void reap(wh_cuda_worker *w, double grace_s, bool kill_now)
{
    if (w->fd >= 0) {
        close(w->fd);
        w->fd = -1;
    }
    if (w->pid <= 0)
        return;
    int st = 0;
    pid_t r = 0;
    if (kill_now) {
        kill(w->pid, SIGKILL);
    } else {
        int64_t until = wh_cuda_now_ms() + (int64_t)(grace_s * 1000);
        while ((r = waitpid(w->pid, &st, WNOHANG)) == 0 && wh_cuda_now_ms() < until)
            sleep_ms(2);
        if (r == 0)
            kill(w->pid, SIGKILL);
    }
    if (r == 0)
        while ((r = waitpid(w->pid, &st, 0)) < 0 && errno == EINTR) {
        }
    if (r == w->pid)
        wh_cuda_describe_exit(st, w->last_exit, sizeof w->last_exit);
    else
        snprintf(w->last_exit, sizeof w->last_exit, "ended (not reaped: %s)", strerror(errno));
    w->pid = 0;
}

/* The wbuf API defers its out-of-memory check to one flag; an encoding
 * that hit it is freed here so that callers need not. */
static bool encoded(wh_cuda_wbuf *b, const char *what, wh_error *err)
{
    if (!b->oom)
        return true;
    wh_cuda_wbuf_free(b);
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory encoding %s", what);
    return false;
}

bool wh_cuda_worker_init(wh_cuda_worker *w, const wh_cuda_engine *engine, const wh_cuda_setup *setup,
                         double start_timeout_s, wh_error *err)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->engine = engine;
    w->nparams = setup->nparams;
    w->start_timeout_s = start_timeout_s;
    wh_cuda_wbuf b = { 0 };
    wh_cuda_setup_encode(setup, &b);
    if (!encoded(&b, "the CUDA worker setup", err))
        return false;
    w->setup = b.data;
    w->setup_len = b.len;
    return true;
}

void wh_cuda_worker_fini(wh_cuda_worker *w)
{
    wh_cuda_worker_stop(w, 10.0);
    free(w->setup);
    w->setup = NULL;
    w->setup_len = 0;
}

bool wh_cuda_worker_running(const wh_cuda_worker *w)
{
    return w->pid > 0;
}

void wh_cuda_worker_stop(wh_cuda_worker *w, double grace_s)
{
    reap(w, grace_s, false);
}

bool wh_cuda_worker_start(wh_cuda_worker *w, wh_error *err)
{
    if (w->pid > 0)
        return true;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "socketpair for the CUDA worker: %s",
                     strerror(errno));
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "fork of the CUDA worker: %s", strerror(e));
        return false;
    }
    if (pid == 0) {
        close(sv[0]);
        worker_child(sv[1], w->engine);   /* never returns */
    }
    close(sv[1]);
    w->fd = sv[0];
    w->pid = pid;

    int64_t deadline = wh_cuda_deadline(w->start_timeout_s);
    wh_cuda_io io = wh_cuda_send(w->fd, WH_CUDA_MSG_SETUP, w->setup, w->setup_len, deadline);
    uint32_t type = 0;
    unsigned char *payload = NULL;
    size_t len = 0;
    if (io == WH_IO_OK)
        io = wh_cuda_recv(w->fd, &type, &payload, &len, WH_CUDA_MAX_PAYLOAD, deadline);
    if (io == WH_IO_OK && type == WH_CUDA_MSG_READY &&
        wh_cuda_info_decode(payload, len, &w->info)) {
        free(payload);
        w->generation++;
        return true;
    }
    if (io == WH_IO_OK && type == WH_CUDA_MSG_ERROR) {
        wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "%.*s", (int)(len ? len - 1 : 0),
                     payload ? (const char *)payload : "");
        free(payload);
        reap(w, 5.0, false);
        return false;
    }
    free(payload);
    if (io == WH_IO_TIMEOUT) {
        reap(w, 0, true);
        wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0,
                     "the CUDA worker was not ready within %.0f s (driver initialisation or PTX "
                     "JIT hung?); it was killed", w->start_timeout_s);
    } else if (io == WH_IO_EOF) {
        reap(w, 5.0, false);
        wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "the CUDA worker %s while starting",
                     w->last_exit);
    } else {
        reap(w, 0, true);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0,
                     "the CUDA worker broke the protocol while starting (%s)",
                     io == WH_IO_OK ? "unexpected message" : wh_cuda_io_name(io));
    }
    return false;
}

bool wh_cuda_worker_run(wh_cuda_worker *w, const wh_cuda_request *rq, double timeout_s,
                        unsigned char *const *dest, const uint64_t *dest_bytes,
                        wh_cuda_result *res, wh_error *err)
{
    memset(res, 0, sizeof *res);
    if (rq->nparams != w->nparams) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "CUDA request with %d parameters, setup has %d",
                     rq->nparams, w->nparams);
        return false;
    }
    wh_cuda_wbuf b = { 0 };
    wh_cuda_request_encode(rq, &b);
    if (!encoded(&b, "a CUDA request", err))
        return false;

    /* The watchdog: each launch gets timeout_s (the worker reports every
     * launch that completes but the last), plus 2 s; the first one also
     * the transfer of the request at a pessimistic 250 MB/s. */
    double budget = -1, per_launch = -1;
    if (timeout_s > 0) {
        per_launch = timeout_s + 2.0;
        budget = per_launch + (double)b.len / 250e6;
    }

    if (w->pid <= 0 && !wh_cuda_worker_start(w, err)) {
        wh_cuda_wbuf_free(&b);
        return false;
    }
    int64_t deadline = wh_cuda_deadline(budget);
    wh_cuda_io io = wh_cuda_send(w->fd, WH_CUDA_MSG_RUN, b.data, b.len, deadline);
    wh_cuda_wbuf_free(&b);
    if (io == WH_IO_EOF) {
        /* It died while idle (not this input's doing), and a fresh worker
         * would need the inputs the request leaves out: the caller retries. */
        reap(w, 1.0, false);
        w->restarts++;
        res->lost = true;
        res->status = HARNESS_FAULT;
        snprintf(res->message, sizeof res->message, "the CUDA worker %s while idle", w->last_exit);
        return true;
    }

    uint32_t type = 0;
    unsigned char *payload = NULL;
    size_t len = 0;
    int progressed = 0;
    while (io == WH_IO_OK) {
        io = wh_cuda_recv(w->fd, &type, &payload, &len, WH_CUDA_MAX_PAYLOAD, deadline);
        if (io != WH_IO_OK || type != WH_CUDA_MSG_PROGRESS)
            break;
        free(payload);
        payload = NULL;
        progressed++;
        deadline = wh_cuda_deadline(per_launch);
    }

    switch (io) {
    case WH_IO_OK:
        break;
    case WH_IO_TIMEOUT:
        reap(w, 0, true);
        w->restarts++;
        res->status = HARNESS_TIMEOUT;
        snprintf(res->message, sizeof res->message,
                 "the kernel did not finish within the %.3g s watchdog (grid [%u,%u,%u], block "
                 "[%u,%u,%u]; launch %d of %d, %s); the CUDA worker was killed and the next run "
                 "starts a fresh one", timeout_s, rq->grid[0], rq->grid[1], rq->grid[2],
                 rq->block[0], rq->block[1], rq->block[2], progressed + 1,
                 rq->warmup + (rq->reps < 1 ? 1 : rq->reps),
                 progressed < rq->warmup ? "a warm-up" : "a timed one");
        return true;
    case WH_IO_EOF:
        reap(w, 5.0, false);
        w->restarts++;
        res->status = HARNESS_FAULT;
        snprintf(res->message, sizeof res->message,
                 "the CUDA worker %s while running the kernel (grid [%u,%u,%u], block [%u,%u,%u]); "
                 "the next run starts a fresh one", w->last_exit, rq->grid[0], rq->grid[1],
                 rq->grid[2], rq->block[0], rq->block[1], rq->block[2]);
        return true;
    case WH_IO_ERROR:
        reap(w, 0, true);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "talking to the CUDA worker: %s",
                     wh_cuda_io_name(io));
        return false;
    }

    bool ok = false;
    if (type == WH_CUDA_MSG_RESULT) {
        char why[256];
        ok = wh_cuda_result_decode(payload, len, res, rq->nparams, dest, dest_bytes, why, sizeof why);
        if (!ok) {
            reap(w, 0, true);
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "CUDA worker: %s", why);
        } else if (res->restart) {
            reap(w, 5.0, false);
            w->restarts++;
        }
    } else if (type == WH_CUDA_MSG_ERROR) {
        wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "%.*s", (int)(len ? len - 1 : 0),
                     payload ? (const char *)payload : "");
        reap(w, 5.0, false);
        w->restarts++;
    } else {
        reap(w, 0, true);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0,
                     "the CUDA worker sent message type %u, expected RESULT", type);
    }
    free(payload);
    return ok;
}
