/*
 * isolate.c — a model check in a child process, under a deadline that holds.
 *
 * Z3 heeds neither its timeout nor Z3_interrupt while it turns a float
 * formula into bits: one model check of md_cutoff's atoms, given the 1.4 s
 * left of `explore --time 10`, ran 4.4 s before it answered unknown, and
 * the stage ended at 11.8 s (bench/symexec_budget_session21.md).  So a
 * check on floats runs in a fork of the process: the child checks and
 * writes the answer and the symbols' values to a pipe, and the parent waits
 * for them until the deadline and kills the child past it.  The child
 * works on a copy-on-write image of the parent's Z3 context, so it gives
 * the answer the parent would have got; the parent rebuilds the model from
 * the symbols' values, which is all an atom reads of a model (model.c).
 *
 * The child sets no Z3 timeout (Z3's timer threads are the parent's and
 * are not in the child) and leaves with _exit (no atexit handler, no
 * stdio flush of the parent's buffers).  Where fork fails, the caller
 * checks in process as before.
 */
#include "symexec/internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"

/* What the child writes: one answer byte, then (sat, model wanted) one
 * little-endian u64 per symbol of the engine, 0 for a symbol without ast. */
static void child_check(sx_engine *e, Z3_solver s, bool want_model, int fd)
{
    Z3_context c = e->z.c;
    if (e->mem_limit) {
        /* past it Z3 fails inside the check: harmless in a child */
        char mb[32];
        snprintf(mb, sizeof mb, "%llu", (unsigned long long)(e->mem_limit >> 20) + 1);
        Z3_global_param_set("memory_max_size", mb);
    }
    Z3_lbool r = Z3_solver_check(c, s);
    uint8_t answer = r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 2 : 0;
    uint64_t *v = NULL;
    size_t bytes = 0;
    if (r == Z3_L_TRUE && want_model) {
        Z3_model m = Z3_solver_get_model(c, s);
        v = calloc((size_t)e->nsyms + 1, sizeof *v);
        for (int i = 0; v && m && i < e->nsyms; i++) {
            Z3_ast out = NULL;
            if (e->syms[i].ast && Z3_model_eval(c, m, e->syms[i].ast, true, &out) && out)
                Z3_get_numeral_uint64(c, out, &v[i]);
        }
        if (!v || !m)
            answer = 0;
        else
            bytes = (size_t)e->nsyms * sizeof *v;
    }
    const uint8_t *p = &answer;
    size_t left = 1;
    for (int part = 0; part < 2; part++) {
        while (left > 0) {
            ssize_t n = write(fd, p, left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(1);
            p += n;
            left -= (size_t)n;
        }
        p = (const uint8_t *)v;
        left = bytes;
    }
    _exit(0);
}

/* Read what the child writes until it closes the pipe or the deadline
 * (wh_clock_s) passes; returns the bytes read, -1 past the deadline. */
static long read_until(int fd, uint8_t *buf, size_t cap, double deadline)
{
    size_t got = 0;
    for (;;) {
        double left = deadline - wh_clock_s();
        if (left <= 0)
            return -1;
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        int pr = poll(&pf, 1, (int)(left * 1000.0) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            return -1;   /* the deadline, or poll failed: the child is killed */
        uint8_t scratch[64];
        uint8_t *to = got < cap ? buf + got : scratch;
        size_t room = got < cap ? cap - got : sizeof scratch;
        ssize_t n = read(fd, to, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return (long)got;
        if (got < cap)
            got += (size_t)n;
    }
}

/* The model the child's values describe: each symbol bound to its value. */
static Z3_model rebuild_model(sx_engine *e, const uint64_t *v)
{
    Z3_context c = e->z.c;
    Z3_model m = Z3_mk_model(c);
    Z3_model_inc_ref(c, m);
    for (int i = 0; i < e->nsyms; i++) {
        Z3_ast a = e->syms[i].ast;
        if (!a)
            continue;
        Z3_func_decl d = Z3_get_app_decl(c, Z3_to_app(c, a));
        Z3_add_const_interp(c, m, d, Z3_mk_unsigned_int64(c, v[i], Z3_get_sort(c, a)));
    }
    return m;
}

int sx_isolated_check(sx_engine *e, Z3_solver s, double deadline, Z3_model *m, Z3_lbool *r)
{
    int fd[2];
    if (pipe(fd) != 0)
        return 0;
    fflush(NULL);   /* a child that Z3 ends with exit() must not write our buffers again */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return 0;
    }
    e->isolated++;
    if (pid == 0) {
        close(fd[0]);
        child_check(e, s, m != NULL, fd[1]);
    }
    close(fd[1]);
    size_t cap = 1 + (size_t)e->nsyms * sizeof(uint64_t);
    uint8_t *buf = malloc(cap);
    long got = buf ? read_until(fd[0], buf, cap, deadline) : -1;
    close(fd[0]);
    if (got < 0)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *r = Z3_L_UNDEF;
    int cut = got < 0 ? -1 : 1;
    if (got >= 1 && buf[0] == 2) {
        *r = Z3_L_FALSE;
    } else if (got >= 1 && buf[0] == 1 && (!m || (size_t)got == cap)) {
        *r = Z3_L_TRUE;
        if (m) {
            uint64_t *v = malloc((size_t)e->nsyms * sizeof *v + 1);
            if (v) {
                memcpy(v, buf + 1, (size_t)e->nsyms * sizeof *v);
                *m = rebuild_model(e, v);
                free(v);
            } else {
                *r = Z3_L_UNDEF;
            }
        }
    }
    free(buf);
    return cut;
}
