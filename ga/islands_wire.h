/*
 * islands_wire.h — what an island (the hunt, in the child process:
 * islands.c) and its rank (the process mpirun started: islands_mpi.c) say
 * to each other over their socket.
 *
 * The island sends a request (an operation, a value, n bytes); the rank
 * makes the operation's round with every other rank and answers with the
 * bytes it got and every rank's word in that round (islands_word), from
 * which the island reads the others' values, message sizes and fates.
 * LEAVE and ABORT get no answer.
 */
#ifndef WH_GA_ISLANDS_WIRE_H
#define WH_GA_ISLANDS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum {
    ISLANDS_OP_NONE,        /* a lost or departed island's part in a round */
    ISLANDS_OP_RING,
    ISLANDS_OP_ALL,
    ISLANDS_OP_MAX,
    ISLANDS_OP_TEXT,
    ISLANDS_OP_BARRIER,
    ISLANDS_OP_GATHER,
    ISLANDS_OP_LEAVE,
    ISLANDS_OP_ABORT,
} islands_op;

/* The rank's first word to its island. */
typedef struct {
    int32_t ok, rank, size, local_rank;
} islands_hello;

typedef struct {
    int32_t op, value;
    uint64_t n;             /* bytes that follow */
} islands_request;

/* One rank's word in a round: what its island asked (NONE once it is
 * lost or gone), its value, its message's size, its fate (islands.h). */
typedef struct {
    int32_t op, value;
    int64_t n;
    int32_t fate, unused;
} islands_word;

/* The answer: ok, then n bytes, then size words. */
typedef struct {
    int32_t ok, unused;
    uint64_t n;
} islands_reply;

/* Whole messages over a stream socket (no SIGPIPE; EINTR retried). */
bool islands_send(int fd, const void *p, size_t n);
bool islands_recv(int fd, void *p, size_t n);

/* The rank's side (islands_mpi.c): MPI_Init, the hello, then every round
 * until all islands have left or died; exits with the island's status. */
_Noreturn void islands_keep_rank(int fd, pid_t island);

#endif
