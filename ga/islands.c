/*
 * islands.c — an island's side of the island model (islands.h): the hunt
 * runs in a child of the process mpirun started (its rank) and asks the
 * rank, over a socket, for every exchange (the words are islands_wire.h's).
 *
 * When the rank is gone (mpirun ended the job, or MPI_Abort), the island
 * goes on alone: every exchange answers as if every other island were
 * lost, and the rank's death has already sent it SIGTERM, which a hunt
 * takes as Ctrl-C, so it stops soon with its results written.
 */
#include "core/alloc.h"
#include "ga/islands.h"
#include "ga/islands_wire.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

struct wh_islands {
    int fd;                 /* to this island's rank; -1 once it is gone */
    int rank, size, local_rank;
    islands_word *words;    /* every rank's word in the latest round */
};

bool wh_islands_launched(void)
{
    /* Open MPI's mpirun, then PMIx/PMI launchers (srun --mpi, MPICH's
     * hydra); not SLURM_NTASKS, which a batch script sees without srun */
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1) return true;
    }
    return false;
}

bool islands_send(int fd, const void *p, size_t n)
{
    const char *at = p;
    while (n > 0) {
        ssize_t k = send(fd, at, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        at += k;
        n -= (size_t)k;
    }
    return true;
}

bool islands_recv(int fd, void *p, size_t n)
{
    char *at = p;
    while (n > 0) {
        ssize_t k = recv(fd, at, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        at += k;
        n -= (size_t)k;
    }
    return true;
}

/* In the child, after the fork: the rank's hello. */
static wh_islands *meet_rank(int fd, pid_t rank_pid, wh_error *err)
{
#ifdef __linux__
    /* the rank ended (MPI_Abort, mpirun killed): stop as on Ctrl-C */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != rank_pid) raise(SIGTERM);
#else
    (void)rank_pid;
#endif
    islands_hello hello;
    if (!islands_recv(fd, &hello, sizeof hello) || !hello.ok || hello.size < 1) {
        close(fd);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "MPI_Init failed: cannot join the islands of this mpirun");
        return NULL;
    }
    wh_islands *is = wh_xcalloc(1, sizeof *is);
    is->fd = fd;
    is->rank = hello.rank;
    is->size = hello.size;
    is->local_rank = hello.local_rank;
    is->words = wh_xcalloc((size_t)hello.size, sizeof *is->words);
    for (int r = 0; r < is->size; r++) is->words[r] = (islands_word){ ISLANDS_OP_NONE, 0, 0, WH_ISLAND_ALIVE, 0 };
    return is;
}

wh_islands *wh_islands_join(wh_error *err)
{
    if (!wh_islands_built()) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0,
                     "started by mpirun, but this warphunt was built without MPI: install Open MPI "
                     "(make deps: libopenmpi-dev) and rebuild, or run it without mpirun (one island)");
        return NULL;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "cannot make the socket to this island's rank: %s",
                     strerror(errno));
        return NULL;
    }
    fflush(NULL);   /* nothing buffered is written twice */
    pid_t rank_pid = getpid(), pid = fork();
    if (pid < 0) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "cannot start this island's process: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return NULL;
    }
    if (pid > 0) {
        close(sv[1]);
        islands_keep_rank(sv[0], pid);
    }
    close(sv[0]);
    return meet_rank(sv[1], rank_pid, err);
}

/* The rank is gone: from now on this island is alone. */
static void lose_rank(wh_islands *is)
{
    close(is->fd);
    is->fd = -1;
    for (int r = 0; r < is->size; r++)
        is->words[r] = (islands_word){ ISLANDS_OP_NONE, 0, 0, r == is->rank ? WH_ISLAND_ALIVE : WH_ISLAND_UNREACHABLE, 0 };
    fprintf(stderr, "warphunt: island %d lost its MPI rank (the job ended?); it finishes alone\n", is->rank);
}

/* One exchange through the rank: *got (malloc'ed, *got_n bytes) is what
 * it brought back, and words every rank's word.  false when the rank is
 * gone (nothing brought back). */
static bool ask(wh_islands *is, islands_op op, int value, const void *out, size_t n, void **got, size_t *got_n)
{
    if (got) *got = NULL, *got_n = 0;
    if (is->fd < 0) return false;
    islands_request rq = { (int32_t)op, value, n };
    islands_reply rp;
    void *bytes = NULL;
    bool ok = islands_send(is->fd, &rq, sizeof rq) && islands_send(is->fd, out, n) &&
              islands_recv(is->fd, &rp, sizeof rp) && rp.ok && rp.n <= (uint64_t)INT_MAX;
    if (ok) {
        bytes = wh_xmalloc(rp.n ? (size_t)rp.n : 1);
        ok = islands_recv(is->fd, bytes, (size_t)rp.n) &&
             islands_recv(is->fd, is->words, (size_t)is->size * sizeof *is->words);
    }
    if (!ok) {
        free(bytes);
        lose_rank(is);
        return false;
    }
    if (got) {
        *got = bytes;
        *got_n = (size_t)rp.n;
    } else {
        free(bytes);
    }
    return true;
}

void wh_islands_leave(wh_islands *is)
{
    if (!is) return;
    if (is->fd >= 0) {
        islands_request rq = { ISLANDS_OP_LEAVE, 0, 0 };
        islands_send(is->fd, &rq, sizeof rq);
        close(is->fd);
    }
    free(is->words);
    free(is);
}

_Noreturn void wh_islands_abort(wh_islands *is, int status)
{
    if (is && is->fd >= 0) {
        islands_request rq = { ISLANDS_OP_ABORT, status, 0 };
        islands_send(is->fd, &rq, sizeof rq);
    }
    exit(status);
}

int wh_islands_rank(const wh_islands *is) { return is->rank; }
int wh_islands_size(const wh_islands *is) { return is->size; }
int wh_islands_local_rank(const wh_islands *is) { return is->local_rank; }
int wh_islands_fate(const wh_islands *is, int r) { return is->words[r].fate; }

/* The first island with something to say in the latest round. */
static int first_living(const wh_islands *is)
{
    for (int r = 0; r < is->size; r++)
        if (is->words[r].op != ISLANDS_OP_NONE) return r;
    return is->rank;
}

bool wh_islands_ring(wh_islands *is, const void *out, size_t n, void **in, size_t *in_n, wh_error *err)
{
    if (n > (size_t)INT_MAX) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "a migration of more than 2 GiB");
        return false;
    }
    if (ask(is, ISLANDS_OP_RING, 0, out, n, in, in_n)) return true;
    *in = wh_xmalloc(1);
    *in_n = 0;
    return true;
}

bool wh_islands_all(wh_islands *is, const void *out, size_t n, void **in, size_t *sizes, wh_error *err)
{
    *in = NULL;
    if (n > (size_t)INT_MAX / (size_t)is->size) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "a migration of more than 2 GiB in all");
        return false;
    }
    size_t got_n;
    if (ask(is, ISLANDS_OP_ALL, 0, out, n, in, &got_n)) {
        for (int r = 0; r < is->size; r++) sizes[r] = (size_t)is->words[r].n;
        return true;
    }
    for (int r = 0; r < is->size; r++) sizes[r] = r == is->rank ? n : 0;
    *in = wh_xmalloc(n ? n : 1);
    memcpy(*in, out, n);
    return true;
}

int wh_islands_max(wh_islands *is, int value)
{
    if (!ask(is, ISLANDS_OP_MAX, value, NULL, 0, NULL, NULL)) return value;
    int out = value;
    for (int r = 0; r < is->size; r++)
        if (is->words[r].op != ISLANDS_OP_NONE && is->words[r].value > out) out = is->words[r].value;
    return out;
}

void wh_islands_share_text(wh_islands *is, char *text, size_t n)
{
    void *got;
    size_t got_n;
    if (ask(is, ISLANDS_OP_TEXT, 0, text, n, &got, &got_n)) {
        memcpy(text, got, got_n < n ? got_n : n);
        if (got_n < n) text[got_n] = '\0';
        free(got);
    }
    text[n - 1] = '\0';
}

void wh_islands_barrier(wh_islands *is)
{
    ask(is, ISLANDS_OP_BARRIER, 0, NULL, 0, NULL, NULL);
}

bool wh_islands_gather(wh_islands *is, const void *mine, size_t n, void *all)
{
    memset(all, 0, (size_t)is->size * n);
    void *got;
    size_t got_n;
    if (!ask(is, ISLANDS_OP_GATHER, 0, mine, n, &got, &got_n)) {
        /* alone, nobody merges: each island's own directory is whole */
        memcpy((char *)all + (size_t)is->rank * n, mine, n);
        return false;
    }
    size_t at = 0;
    for (int r = 0; r < is->size && at < got_n; r++) {
        size_t k = (size_t)is->words[r].n;
        if (k == n) memcpy((char *)all + (size_t)r * n, (char *)got + at, n);
        at += k;
    }
    free(got);
    return first_living(is) == is->rank;
}

void wh_islands_fate_text(int fate, char *out, size_t n)
{
    if (fate == WH_ISLAND_ALIVE) snprintf(out, n, "alive");
    else if (fate == WH_ISLAND_LEFT) snprintf(out, n, "finished");
    else if (fate == WH_ISLAND_UNREACHABLE) snprintf(out, n, "unreachable (this island's MPI rank is gone)");
    else if (fate >= 256) snprintf(out, n, "killed by signal %d (%s)", fate - 256, strsignal(fate - 256));
    else snprintf(out, n, "exited with status %d before the run ended", fate);
}
