/*
 * islands_mpi.c — the island model's transport (islands.h) on MPI, or,
 * in a build without MPI, the functions that say so.
 *
 * Only MPI_COMM_WORLD is used, with blocking calls at points every island
 * reaches together (generation ends), so a run is deterministic on the
 * sim for a given seed, island count and migration schedule.
 */
#include "ga/islands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#ifdef WH_HAVE_MPI

#include <mpi.h>

bool wh_islands_built(void) { return true; }

struct wh_islands {
    int rank, size;
    int local_rank;             /* among the ranks of this node */
};

wh_islands *wh_islands_join(wh_error *err)
{
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "MPI_Init failed: cannot join the islands of this mpirun");
        return NULL;
    }
    wh_islands *is = calloc(1, sizeof *is);
    if (!is) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        MPI_Finalize();
        return NULL;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &is->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &is->size);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, is->rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &is->local_rank);
        MPI_Comm_free(&node);
    }
    return is;
}

void wh_islands_leave(wh_islands *is)
{
    if (!is) return;
    MPI_Finalize();
    free(is);
}

_Noreturn void wh_islands_abort(wh_islands *is, int status)
{
    (void)is;
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);   /* MPI_Abort does not return; the compiler cannot know */
}

int wh_islands_rank(const wh_islands *is) { return is->rank; }
int wh_islands_size(const wh_islands *is) { return is->size; }
int wh_islands_local_rank(const wh_islands *is) { return is->local_rank; }

bool wh_islands_ring(wh_islands *is, const void *out, size_t n, void **in, size_t *in_n, wh_error *err)
{
    int next = (is->rank + 1) % is->size, prev = (is->rank + is->size - 1) % is->size;
    unsigned long long len = n, got = 0;
    MPI_Sendrecv(&len, 1, MPI_UNSIGNED_LONG_LONG, next, 1, &got, 1, MPI_UNSIGNED_LONG_LONG, prev, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (n > (size_t)0x7fffffff || got > 0x7fffffffULL) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "a migration of more than 2 GiB");
        return false;
    }
    *in = malloc(got ? (size_t)got : 1);
    if (!*in) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for %llu bytes of migrants", got);
        return false;
    }
    MPI_Sendrecv(out, (int)n, MPI_BYTE, next, 2, *in, (int)got, MPI_BYTE, prev, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    *in_n = (size_t)got;
    return true;
}

bool wh_islands_all(wh_islands *is, const void *out, size_t n, void **in, size_t *sizes, wh_error *err)
{
    *in = NULL;
    if (n > (size_t)0x7fffffff / (size_t)is->size) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "a migration of more than 2 GiB in all");
        return false;
    }
    int mine = (int)n, *counts = calloc((size_t)is->size, sizeof *counts), *at = calloc((size_t)is->size, sizeof *at);
    bool ok = counts && at;
    if (ok) MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    long total = 0;
    for (int r = 0; ok && r < is->size; r++) {
        at[r] = (int)total;
        total += counts[r];
        sizes[r] = (size_t)counts[r];
    }
    ok = ok && total <= 0x7fffffffL && (*in = malloc(total ? (size_t)total : 1)) != NULL;
    if (ok) MPI_Allgatherv(out, mine, MPI_BYTE, *in, counts, at, MPI_BYTE, MPI_COMM_WORLD);
    else wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for %ld bytes of migrants", total);
    free(counts);
    free(at);
    return ok;
}

int wh_islands_max(wh_islands *is, int value)
{
    (void)is;
    int out = value;
    MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

void wh_islands_share_text(wh_islands *is, char *text, size_t n)
{
    (void)is;
    MPI_Bcast(text, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[n - 1] = '\0';
}

void wh_islands_barrier(wh_islands *is)
{
    (void)is;
    MPI_Barrier(MPI_COMM_WORLD);
}

void wh_islands_gather(wh_islands *is, const void *mine, size_t n, void *all)
{
    (void)is;
    MPI_Gather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
}

#else /* no MPI in this build */

struct wh_islands {
    int unused;
};

bool wh_islands_built(void) { return false; }

wh_islands *wh_islands_join(wh_error *err)
{
    wh_error_set(err, WH_ERR_USER, NULL, 0, 0,
                 "started by mpirun, but this warphunt was built without MPI: install Open MPI "
                 "(make deps: libopenmpi-dev) and rebuild, or run it without mpirun (one island)");
    return NULL;
}

void wh_islands_leave(wh_islands *is) { (void)is; }
_Noreturn void wh_islands_abort(wh_islands *is, int status)
{
    (void)is;
    exit(status);
}
int wh_islands_rank(const wh_islands *is) { (void)is; return 0; }
int wh_islands_size(const wh_islands *is) { (void)is; return 1; }
int wh_islands_local_rank(const wh_islands *is) { (void)is; return 0; }
bool wh_islands_ring(wh_islands *is, const void *out, size_t n, void **in, size_t *in_n, wh_error *err)
{
    (void)is, (void)out, (void)n, (void)in, (void)in_n;
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "no MPI in this build");
    return false;
}
bool wh_islands_all(wh_islands *is, const void *out, size_t n, void **in, size_t *sizes, wh_error *err)
{
    (void)is, (void)out, (void)n, (void)in, (void)sizes;
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "no MPI in this build");
    return false;
}
int wh_islands_max(wh_islands *is, int value) { (void)is; return value; }
void wh_islands_share_text(wh_islands *is, char *text, size_t n) { (void)is, (void)text, (void)n; }
void wh_islands_barrier(wh_islands *is) { (void)is; }
void wh_islands_gather(wh_islands *is, const void *mine, size_t n, void *all)
{
    (void)is;
    memcpy(all, mine, n);
}

#endif
