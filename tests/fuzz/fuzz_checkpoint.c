/*
 * fuzz_checkpoint.c — libFuzzer harness for the GA checkpoint reader behind
 * `hunt --resume` (ga_restore): any bytes as checkpoint.bin.  A damaged or
 * hostile file must be refused with a clean message; an accepted one must
 * leave a state the search can go on from, so a restored GA runs a few
 * more evaluations against a cheap made-up fitness.
 *
 * ga_restore refuses a file whose strategy, population or gene count differ
 * from the GA it restores into, so the GA is made with the shape the
 * input's header claims when that shape is small enough to run quickly
 * (else a fixed one, which exercises the refusal).
 */
#include "ga/ga.h"
#include "tests/fuzz/fuzz_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bounds on the shape taken from the input: a real hunt has up to a few
 * hundred genes; more only slows the fuzzer down. */
#define MAX_POP 64
#define MAX_GENES 512
#define KEEP 3
/* Evaluations after the restore: two generations of the largest population. */
#define MAX_CONTINUE (2 * MAX_POP)

typedef struct {
    int ngenes;
    long calls;
} fuzz_ctx;

static const int PATH_ALLELES[] = { 0, 1, 2, 3 };

/* A made-up fitness: deterministic, cheap, from any gene values. */
static bool evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    fuzz_ctx *c = ctx;
    (void)worker, (void)err;
    c->calls++;
    uint32_t h = (uint32_t)ind->seed;
    for (int k = 0; ind->genes && k < c->ngenes; k++) h = h * 31u + (uint32_t)ind->genes[k];
    ind->fitness = (double)(h % 1000u);
    ind->status = h % 17u == 0; /* a few failed runs, as a real kernel has */
    return true;
}

static bool new_random_allele(void *ctx, pcg32 *rng, int gene, int *allele, wh_error *err)
{
    (void)ctx, (void)gene, (void)err;
    *allele = 4 + (int)(pcg32_next(rng) % 4u);
    return true;
}

/* Bounds the continuation whatever counters the file restored. */
static bool stop_requested(void *ctx)
{
    return ((fuzz_ctx *)ctx)->calls >= MAX_CONTINUE;
}

/* The shape (strategy, population, genes) the header claims, or a fixed
 * one when the input is too short or the shape is out of bounds. */
static void shape_from(const uint8_t *data, size_t size, ga_strategy *s, int *npop, int *ngenes)
{
    int32_t h[4] = { GA_GDIVAN, 8, 8, 4 }; /* strategy, npop, npop_valid, ngenes */
    if (size >= 8 + sizeof h) memcpy(h, data + 8, sizeof h);
    bool ok = h[0] >= GA_GDIVAN && h[0] <= GA_RANDOM_GA && h[1] >= 2 && h[1] <= MAX_POP &&
              (h[0] == GA_RANDOM ? h[3] == 0 : h[3] >= 1 && h[3] <= MAX_GENES);
    *s = ok ? (ga_strategy)h[0] : GA_GDIVAN;
    *npop = ok ? h[1] : 8;
    *ngenes = ok ? h[3] : 4;
}

static ga *make_ga(const uint8_t *data, size_t size, fuzz_ctx *c)
{
    ga_strategy s;
    int npop;
    shape_from(data, size, &s, &npop, &c->ngenes);
    ga_problem p;
    memset(&p, 0, sizeof p);
    p.ctx = c;
    p.ngenes = c->ngenes;
    p.path_alleles = PATH_ALLELES;
    p.npath_alleles = 4;
    p.new_random_allele = new_random_allele;
    p.evaluate = evaluate;
    p.stop_requested = stop_requested;
    ga_options o;
    ga_options_default(&o);
    o.population = npop;
    o.keep = KEEP;
    wh_error err;
    wh_error_clear(&err);
    return ga_new(&p, &o, s, 1, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_write_temp("checkpoint", "bin", data, size, path, sizeof path)) return 0;
    fuzz_ctx c = { 0, 0 };
    ga *g = make_ga(data, size, &c);
    if (g) {
        wh_error err;
        wh_error_clear(&err);
        if (ga_restore(g, path, &err)) ga_run(g, &err);
        else if (!err.msg[0]) abort(); /* refused without saying why */
        ga_free(g);
    }
    unlink(path);
    return 0;
}
