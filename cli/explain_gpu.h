/*
 * explain_gpu.h — `warphunt explain --backend cuda`: the input and its
 * reference also measured on the GPU (interleaved, ranked: paired.h),
 * beside the sim's cycles for the same two, and whether the GPU and the
 * sim rank them alike.  The line-by-line report stays the sim's: a GPU
 * run has no per-line counts; this says how far to trust it for this
 * pair of inputs.
 */
#ifndef WH_CLI_EXPLAIN_GPU_H
#define WH_CLI_EXPLAIN_GPU_H

#include "cli/paired.h"

#include <jansson.h>
#include <stdio.h>

/* Which of the two a backend has slower: the input, the reference, or
 * neither (within the sim's tie band, or no significant difference on the
 * GPU). */
typedef enum { EXPLAIN_ORDER_TIE, EXPLAIN_ORDER_INPUT_SLOWER, EXPLAIN_ORDER_REFERENCE_SLOWER } explain_order;

/* Sim times within this fraction of each other are a tie. */
#define EXPLAIN_SIM_TIE 0.01
/* The GPU's rank test's significance level. */
#define EXPLAIN_GPU_ALPHA 0.05
/* Rounds (input, then reference, in each) unless --reps says otherwise. */
#define EXPLAIN_GPU_DEFAULT_ROUNDS 30

typedef struct {
    char device[640];
    const char *unit;           /* the GPU's ("us") */
    int rounds;
    paired_side in, ref;        /* their times on the GPU */
    wh_rank_test test;          /* the input's times against the reference's */
    explain_order gpu, sim;
    double sim_in, sim_ref;     /* the sim's cycles */
} explain_gpu;

explain_order cli_explain_sim_order(double in_cycles, double ref_cycles);
explain_order cli_explain_gpu_order(const wh_rank_test *t);
const char *cli_explain_order_key(explain_order o);

/* Measure in and ref (the caller's images) `rounds` times each on the
 * cuda backend with options ho; sim_in and sim_ref are the sim's cycles
 * for them.  false with err when the GPU cannot be opened or a run fails. */
bool cli_explain_gpu_measure(const wh_spec *spec, wh_image *in, wh_image *ref, const harness_options *ho,
                             int rounds, double sim_in, double sim_ref, explain_gpu *out, wh_error *err);
void cli_explain_gpu_free(explain_gpu *g);

/* The comparison as lines, each after `bullet` ("" or "- "). */
void cli_explain_gpu_print(FILE *f, const explain_gpu *g, const char *bullet);
/* explain.json's "gpu": device, unit, rounds, input and reference (mean,
 * median, min, max, stddev), a12, p_value, gpu_order, sim_order, agree. */
json_t *cli_explain_gpu_json(const explain_gpu *g);

#endif
