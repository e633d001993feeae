/*
 * paired.h — two inputs measured on one harness, interleaved round by
 * round (A, then B, in each), and compared by ranks: what `diff` does,
 * and `explain` on the GPU beside the sim.  Interleaving makes drift of
 * the machine (clocks, temperature, other load) hit both alike.
 */
#ifndef WH_CLI_PAIRED_H
#define WH_CLI_PAIRED_H

#include "core/error.h"
#include "core/image.h"
#include "core/stats.h"
#include "harness/harness.h"

#include <jansson.h>
#include <stdbool.h>

/* One of the two: what to call it in messages, where it is, its image
 * (the caller's), and what cli_paired_measure fills. */
typedef struct {
    const char *label;          /* "A", "input", ... */
    char dir[1100];             /* where the input is from (messages, reports) */
    wh_image *img;
    double *times;              /* one per round (cli_paired_free) */
    wh_summary st;
} paired_side;

typedef enum { PAIRED_NO_DIFFERENCE, PAIRED_A_SLOWER, PAIRED_B_SLOWER } paired_verdict;

/* rounds runs of a then b on h, their summaries and the rank test of a's
 * times against b's.  A fault, hang or unsupported instruction ends it
 * (a missing time cannot be ranked): false, err naming `who`, the side and
 * the round. */
bool cli_paired_measure(harness *h, paired_side *a, paired_side *b, int rounds, const char *who, wh_rank_test *t,
                        wh_error *err);
/* A side's summary as JSON: mean, median, min, max, stddev (and
 * "input": its dir when with_dir). */
json_t *cli_paired_side_json(const paired_side *s, bool with_dir);
/* The times (not the image). */
void cli_paired_free(paired_side *s);

/* Which is slower at significance alpha (two-sided Mann-Whitney). */
paired_verdict cli_paired_verdict(const wh_rank_test *t, double alpha);
/* "no_difference", "a_slower", "b_slower" */
const char *cli_paired_verdict_key(paired_verdict v);

#endif
