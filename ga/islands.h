/*
 * islands.h — the transport of the GA's island model over MPI: one hunt
 * per process, exchanging their best individuals (ga/hunt_migrate.c says
 * which go where).
 *
 * `mpirun -np K warphunt hunt ...` starts K processes; each is an island
 * with its own seed, harness and population, searching the same gene
 * space (the symbolic stage's atoms come from the shared explore cache,
 * so an individual's genes mean the same input on every island).  Every
 * G generations each island sends its M best individuals around a ring
 * (wh_islands_ring) or to every island (wh_islands_all) and puts what it
 * takes in place of its worst.  The islands stop together (a collective exchange must never
 * wait for an island that left): each generation they agree on the stop
 * reason, converging only when all have converged.
 *
 * An island that dies does not end the run.  MPI cannot go on when one of
 * its processes dies (Open MPI 4 has no ULFM), so the process mpirun
 * started keeps the rank and makes every MPI call, while the island
 * searches in a child process and asks it over a socket (islands.c, the
 * island's side; islands_mpi.c, the rank's).  When the child dies, its
 * rank says so and stands in for it in every later exchange with nothing
 * to give; the other islands learn its fate (wh_islands_fate) and finish.
 *
 * Only islands_mpi.c knows MPI; it is compiled with MPI when the build
 * finds mpicc (WH_HAVE_MPI), else joining says that the binary has none.
 * A warphunt started without mpirun never calls MPI at all, whether or
 * not it was built with it.
 */
#ifndef WH_GA_ISLANDS_H
#define WH_GA_ISLANDS_H

#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct wh_islands wh_islands;

/* Was this binary built with MPI? */
bool wh_islands_built(void);
/* Was this process started by mpirun (or srun) with more than one rank?
 * (From the launcher's environment; MPI is not called.) */
bool wh_islands_launched(void);
/* Join the MPI job: NULL with err set when the binary has no MPI or the
 * job cannot be joined.  Call once, before any thread starts: it forks,
 * and only the child returns (the parent keeps the rank until every
 * island has left, then exits with the child's status). */
wh_islands *wh_islands_join(wh_error *err);
/* This island is done: its rank waits for the others, then ends. */
void wh_islands_leave(wh_islands *is);
/* End every island of the run (MPI_Abort) after this one failed. */
_Noreturn void wh_islands_abort(wh_islands *is, int status);

int wh_islands_rank(const wh_islands *is);
int wh_islands_size(const wh_islands *is);
/* This island's rank among the islands of its node (shared memory), so
 * that a node's islands take its GPUs in turn. */
int wh_islands_local_rank(const wh_islands *is);
/* Send out[0..n) to the next island of the ring and receive the previous
 * island's message into a malloc'ed *in (*in_n bytes).  Blocking; every
 * island calls it at the same point.  A lost island's message is empty. */
bool wh_islands_ring(wh_islands *is, const void *out, size_t n, void **in, size_t *in_n, wh_error *err);
/* Every island's out (n bytes, n may differ between islands) to every
 * island: *in (malloc'ed) receives them one after another by rank, their
 * sizes in sizes[0..size) (the caller's array; 0 for a lost island).  A
 * collective. */
bool wh_islands_all(wh_islands *is, const void *out, size_t n, void **in, size_t *sizes, wh_error *err);
/* The maximum of every living island's value (a collective). */
int wh_islands_max(wh_islands *is, int value);
/* Every island gets the first living island's text (island 0's while it lives; a
 * collective; n bytes at most). */
void wh_islands_share_text(wh_islands *is, char *text, size_t n);
void wh_islands_barrier(wh_islands *is);
/* The first living island receives every island's n bytes, by rank, into
 * all (size x n bytes, which every caller provides; a lost island's are
 * zero).  Returns whether this island received them (never when its
 * rank is gone: then nobody merges).  A collective. */
bool wh_islands_gather(wh_islands *is, const void *mine, size_t n, void *all);

/* How island r ended, as this island heard at its latest exchange. */
#define WH_ISLAND_ALIVE (-1)
#define WH_ISLAND_LEFT (-2)          /* finished and left */
#define WH_ISLAND_UNREACHABLE (-3)   /* no word: this island's own rank is gone */
/* ALIVE, LEFT, UNREACHABLE, or, when it died, its exit status (256 + N
 * when killed by signal N). */
int wh_islands_fate(const wh_islands *is, int r);
/* A fate in words ("killed by signal 9 (Killed)"). */
void wh_islands_fate_text(int fate, char *out, size_t n);

#endif
