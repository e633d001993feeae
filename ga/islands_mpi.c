/*
 * islands_mpi.c — the rank's side of the island model (islands.h): the
 * process mpirun started, which makes every MPI call for its island (a
 * child process) and outlives it.
 *
 * Every exchange is a round: each rank first tells every other what its
 * island asked (islands_word, one allgather), then they make that
 * exchange.  A rank whose island died or left says "nothing" (OP_NONE)
 * and takes its part in the exchange with an empty message, so the living
 * islands never wait for a dead one; when every rank says nothing, all
 * are done.  Waits poll with short sleeps: Open MPI's blocking waits spin
 * a core, and a rank whose island is gone may wait for the others for
 * hours.  Only MPI_COMM_WORLD is used, at points every island reaches
 * together, so a run is deterministic on the sim for a given seed,
 * island count and migration schedule.
 *
 * In a build without MPI this file only says so.
 */
#include "ga/islands.h"
#include "ga/islands_wire.h"

#ifdef WH_HAVE_MPI

#include <mpi.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool wh_islands_built(void) { return true; }

typedef struct {
    int fd;                 /* to the island; -1 once it died or left */
    pid_t island;
    bool reaped;
    int status;             /* waitpid's, once reaped */
    int fate;               /* islands.h's */
    int rank, size;
    islands_word *words;    /* every rank's word in this round */
} rank_state;

/* The island's pid, for the one thing a signal handler here does:
 * forward mpirun's signals (Ctrl-C, SIGTERM) to the island. */
static volatile sig_atomic_t island_pid;

static void forward_signal(int sig)
{
    if (island_pid > 0) kill((pid_t)island_pid, sig);
}

static void forward_signals(pid_t island)
{
    island_pid = island;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    static const int sigs[] = { SIGINT, SIGTERM, SIGUSR1, SIGUSR2 };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
}

static void reap(rank_state *s, bool block)
{
    if (s->reaped) return;
    int status = 0;
    pid_t r;
    do r = waitpid(s->island, &status, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == s->island || (r < 0 && errno == ECHILD)) {
        s->reaped = true;
        s->status = r == s->island ? status : 1 << 8;   /* reaped elsewhere: exit 1 */
    }
}

static int fate_of(int status)
{
    return WIFSIGNALED(status) ? 256 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* The island died (or closed its socket without leaving): say so once. */
static void lose_island(rank_state *s)
{
    close(s->fd);
    s->fd = -1;
    reap(s, true);
    s->fate = fate_of(s->status);
    char what[160];
    wh_islands_fate_text(s->fate, what, sizeof what);
    fprintf(stderr, "warphunt: island %d of %d (pid %d) %s; the other islands go on without it (its last "
                    "checkpoint stays in its directory)\n", s->rank, s->size, (int)s->island, what);
}

/* The island's next request, or false when it died.  poll, not a plain
 * read: a process the island forked (the CUDA worker) holds a copy of its
 * socket, so its death need not close the socket. */
static bool next_request(rank_state *s, islands_request *rq, void **bytes)
{
    for (;;) {
        struct pollfd p = { s->fd, POLLIN, 0 };
        int k = poll(&p, 1, 200);
        if (k > 0) break;
        if (k < 0 && errno != EINTR) return false;
        reap(s, false);
        if (s->reaped) return false;
    }
    if (!islands_recv(s->fd, rq, sizeof *rq) || rq->n > (uint64_t)INT_MAX) return false;
    *bytes = malloc(rq->n ? (size_t)rq->n : 1);
    return *bytes && islands_recv(s->fd, *bytes, (size_t)rq->n);
}

/* A short spin first (a round whose ranks arrive together completes in
 * microseconds), then sleeps growing to half a millisecond. */
static void wait_all(MPI_Request *reqs, int n)
{
    int done = 0;
    double spin_until = MPI_Wtime() + 1e-3;
    do {
        MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (done) return;
    } while (MPI_Wtime() < spin_until);
    for (long pause_ns = 50000;; pause_ns = pause_ns < 500000 ? 2 * pause_ns : pause_ns) {
        struct timespec ts = { 0, pause_ns };
        nanosleep(&ts, NULL);
        MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (done) return;
    }
}

_Noreturn static void out_of_step(const char *why, int a, int b)
{
    fprintf(stderr, "warphunt: the islands are out of step (%s: %d and %d); ending the run\n", why, a, b);
    MPI_Abort(MPI_COMM_WORLD, 2);
    _exit(2);
}

/* What the living islands asked this round (NONE: every island is gone). */
static int agreed_op(const rank_state *s)
{
    int op = ISLANDS_OP_NONE;
    for (int r = 0; r < s->size; r++) {
        int o = s->words[r].op;
        if (o == ISLANDS_OP_NONE) continue;
        if (op != ISLANDS_OP_NONE && o != op) out_of_step("two islands asked different exchanges", op, o);
        op = o;
    }
    return op;
}

static int first_living(const rank_state *s)
{
    for (int r = 0; r < s->size; r++)
        if (s->words[r].op != ISLANDS_OP_NONE) return r;
    return 0;
}

/* Every rank's message size as MPI counts and displacements; the total. */
static int counts_of(const rank_state *s, int *counts, int *at)
{
    long total = 0;
    for (int r = 0; r < s->size; r++) {
        if (s->words[r].n < 0 || s->words[r].n > INT_MAX - total) out_of_step("over 2 GiB in one exchange", r, 0);
        counts[r] = (int)s->words[r].n;
        at[r] = (int)total;
        total += counts[r];
    }
    return (int)total;
}

/* The exchange itself, with this rank's message (n bytes, 0 for a lost
 * island); *got is what this rank's island is to receive. */
static void exchange(rank_state *s, int op, const void *mine, int n, char **got, int *got_n)
{
    int *counts = calloc((size_t)s->size, sizeof *counts), *at = calloc((size_t)s->size, sizeof *at);
    if (!counts || !at) out_of_step("out of memory", s->rank, 0);
    int total = counts_of(s, counts, at), root = first_living(s);
    int prev = (s->rank + s->size - 1) % s->size, next = (s->rank + 1) % s->size;
    *got_n = op == ISLANDS_OP_RING ? counts[prev]
           : op == ISLANDS_OP_ALL ? total
           : op == ISLANDS_OP_TEXT ? counts[root]
           : op == ISLANDS_OP_GATHER && s->rank == root ? total : 0;
    *got = malloc(*got_n ? (size_t)*got_n : 1);
    if (!*got) out_of_step("out of memory", s->rank, *got_n);
    MPI_Request reqs[2];
    int nreqs = 0;
    if (op == ISLANDS_OP_RING) {
        MPI_Irecv(*got, *got_n, MPI_BYTE, prev, 2, MPI_COMM_WORLD, &reqs[nreqs++]);
        MPI_Isend(mine, n, MPI_BYTE, next, 2, MPI_COMM_WORLD, &reqs[nreqs++]);
    } else if (op == ISLANDS_OP_ALL) {
        MPI_Iallgatherv(mine, n, MPI_BYTE, *got, counts, at, MPI_BYTE, MPI_COMM_WORLD, &reqs[nreqs++]);
    } else if (op == ISLANDS_OP_TEXT) {
        if (s->rank == root) memcpy(*got, mine, (size_t)n);
        MPI_Ibcast(*got, *got_n, MPI_BYTE, root, MPI_COMM_WORLD, &reqs[nreqs++]);
    } else if (op == ISLANDS_OP_GATHER) {
        MPI_Igatherv(mine, n, MPI_BYTE, *got, counts, at, MPI_BYTE, root, MPI_COMM_WORLD, &reqs[nreqs++]);
    }
    wait_all(reqs, nreqs);
    free(counts);
    free(at);
}

static void answer(rank_state *s, const char *got, int got_n)
{
    islands_reply rp = { 1, 0, (uint64_t)got_n };
    /* a failed answer is the island dying: its next request says so */
    (void)(islands_send(s->fd, &rp, sizeof rp) && islands_send(s->fd, got, (size_t)got_n) &&
           islands_send(s->fd, s->words, (size_t)s->size * sizeof *s->words));
}

/* This rank's word for the round: its island's request, or nothing. */
static islands_request take_request(rank_state *s, void **bytes)
{
    islands_request rq = { ISLANDS_OP_NONE, 0, 0 };
    *bytes = NULL;
    if (s->fd < 0) return rq;
    if (!next_request(s, &rq, bytes)) {
        free(*bytes);
        *bytes = NULL;
        lose_island(s);
        return (islands_request){ ISLANDS_OP_NONE, 0, 0 };
    }
    if (rq.op == ISLANDS_OP_ABORT) {
        MPI_Abort(MPI_COMM_WORLD, rq.value);
        _exit(rq.value);
    }
    if (rq.op == ISLANDS_OP_LEAVE) {
        close(s->fd);
        s->fd = -1;
        s->fate = WH_ISLAND_LEFT;
        free(*bytes);
        *bytes = NULL;
        return (islands_request){ ISLANDS_OP_NONE, 0, 0 };
    }
    return rq;
}

/* Rounds until every island has left or died. */
static void serve(rank_state *s)
{
    for (;;) {
        void *bytes;
        islands_request rq = take_request(s, &bytes);
        islands_word mine = { rq.op, rq.value, (int64_t)rq.n, s->fate, 0 };
        MPI_Request req;
        MPI_Iallgather(&mine, (int)sizeof mine, MPI_BYTE, s->words, (int)sizeof mine, MPI_BYTE, MPI_COMM_WORLD,
                       &req);
        wait_all(&req, 1);
        int op = agreed_op(s);
        if (op == ISLANDS_OP_NONE) {
            free(bytes);
            return;
        }
        char *got;
        int got_n;
        exchange(s, op, bytes ? bytes : "", (int)mine.n, &got, &got_n);
        if (s->fd >= 0) answer(s, got, got_n);
        free(got);
        free(bytes);
    }
}

/* This rank among the ranks of its node. */
static int local_rank_of(int rank)
{
    int local = 0;
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    return local;
}

_Noreturn void islands_keep_rank(int fd, pid_t island)
{
    rank_state s = { .fd = fd, .island = island, .fate = WH_ISLAND_ALIVE };
    forward_signals(island);
    islands_hello hello = { 0, 0, 1, 0 };
    if (MPI_Init(NULL, NULL) == MPI_SUCCESS) {
        MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &s.size);
        s.words = calloc((size_t)s.size, sizeof *s.words);
        hello = (islands_hello){ s.words != NULL, s.rank, s.size, local_rank_of(s.rank) };
    }
    islands_send(fd, &hello, sizeof hello);
    if (hello.ok) {
        serve(&s);
        MPI_Finalize();
    }
    if (s.fd >= 0) close(s.fd);
    free(s.words);
    reap(&s, true);
    /* the island's status, as a shell gives it */
    _exit(WIFSIGNALED(s.status) ? 128 + WTERMSIG(s.status) : WEXITSTATUS(s.status));
}

#else /* no MPI in this build */

#include <unistd.h>

bool wh_islands_built(void) { return false; }

/* Never reached: wh_islands_join refuses first in a build without MPI. */
_Noreturn void islands_keep_rank(int fd, pid_t island)
{
    (void)fd, (void)island;
    _exit(2);
}

#endif
