/*
 * checkpoint.c — saving and restoring the state of a search.
 *
 * Format (native endianness; a checkpoint is resumed on the machine that
 * wrote it): magic "WHGACKP1", a fixed header, then the best individual's
 * genes and each population member's record and genes; then the top list
 * (ga_top): magic "WHGATOP1", its count, and each member's record and
 * genes; then the edit screen's state (screen.c): magic "WHGASCR1", its
 * state, rounds and the last round's first and last evaluation; then,
 * with prob.amplify, the hot individual: magic "WHGAHOT1", whether there
 * is one and whether it is fresh, the children amplified, its record and
 * genes, its hot unit and work; then the archive (archive.c): magic "WHGAARC1", its location count and children,
 * each location's maximum and holder, and each slot (in use, and then its
 * record and genes).  The top list, the screen and the archive came later,
 * so a file that ends after the population, the top list or the screen
 * is still a valid checkpoint (one written before the screen existed
 * resumes with no screen, before the archive with an empty archive,
 * before the hot individual with none).
 */
#include "ga/internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CKP_MAGIC "WHGACKP1"
#define TOP_MAGIC "WHGATOP2"     /* members carry their input hash */
#define TOP_MAGIC_V1 "WHGATOP1"  /* read: members without one */
#define SCREEN_MAGIC "WHGASCR1"
#define ARCHIVE_MAGIC "WHGAARC1"
#define HOT_MAGIC "WHGAHOT1"

typedef struct {
    int32_t state, rounds;
    int64_t first, last;
} ckp_screen;

typedef struct {
    char magic[8];
    int32_t strategy, npop, npop_valid, ngenes, generation, stale, evaluated_all, has_best;
    int64_t evals, evals_to_best;
    uint64_t seed, rng_state, rng_inc;
    double time_to_best, elapsed;
} ckp_header;

typedef struct {
    uint64_t seed;
    double fitness;
    int64_t eval_index;
    int32_t status, pad;
} ckp_indiv;

static bool write_indiv(FILE *f, const ga_indiv *ind, int ngenes)
{
    ckp_indiv r = { ind->seed, ind->fitness, ind->eval_index, ind->status, 0 };
    if (fwrite(&r, sizeof r, 1, f) != 1) return false;
    return !ind->genes || fwrite(ind->genes, sizeof(int), (size_t)ngenes, f) == (size_t)ngenes;
}

static bool read_indiv(FILE *f, ga_indiv *ind, int ngenes)
{
    ckp_indiv r;
    if (fread(&r, sizeof r, 1, f) != 1) return false;
    ind->seed = r.seed;
    ind->fitness = r.fitness;
    ind->eval_index = r.eval_index;
    ind->status = r.status;
    return !ind->genes || fread(ind->genes, sizeof(int), (size_t)ngenes, f) == (size_t)ngenes;
}

static bool write_archive(const ga *g, FILE *f)
{
    const ga_archive *a = &g->arc;
    if (!a->best) return true;
    int32_t n = g->prob.nlocations;
    int64_t children = a->children;
    bool ok = fwrite(ARCHIVE_MAGIC, 1, 8, f) == 8 && fwrite(&n, sizeof n, 1, f) == 1 &&
              fwrite(&children, sizeof children, 1, f) == 1 && fwrite(a->best, sizeof *a->best, (size_t)n, f) == (size_t)n &&
              fwrite(a->holder, sizeof *a->holder, (size_t)n, f) == (size_t)n;
    for (int i = 0; ok && i < GA_ARCHIVE_MAX; i++) {
        int32_t used = a->entries[i].genes != NULL;
        ok = fwrite(&used, sizeof used, 1, f) == 1 && (!used || write_indiv(f, &a->entries[i], g->prob.ngenes));
    }
    return ok;
}

static bool write_hot(const ga *g, FILE *f)
{
    if (!g->hot.genes) return true;
    int32_t flags[2] = { g->hot.hot_work > 0, g->hot_fresh };
    int64_t amplified = g->amplified, unit = g->hot.hot_unit;
    return fwrite(HOT_MAGIC, 1, 8, f) == 8 && fwrite(flags, sizeof *flags, 2, f) == 2 &&
           fwrite(&amplified, sizeof amplified, 1, f) == 1 && write_indiv(f, &g->hot, g->prob.ngenes) &&
           fwrite(&unit, sizeof unit, 1, f) == 1 && fwrite(&g->hot.hot_work, sizeof g->hot.hot_work, 1, f) == 1;
}

bool ga_checkpoint(const ga *g, const char *path, wh_error *err)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        wh_error_set(err, WH_ERR_INTERNAL, tmp, 0, 0, "cannot write: %s", strerror(errno));
        return false;
    }
    ckp_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CKP_MAGIC, 8);
    h.strategy = g->strategy;
    h.npop = g->npop;
    h.npop_valid = g->npop_valid;
    h.ngenes = g->prob.ngenes;
    h.generation = g->generation;
    h.stale = g->stale;
    h.evaluated_all = g->evaluated_all;
    h.has_best = g->best.fitness >= 0;
    h.evals = g->evals;
    h.evals_to_best = g->evals_to_best;
    h.seed = g->seed;
    h.rng_state = g->rng.state;
    h.rng_inc = g->rng.inc;
    h.time_to_best = g->time_to_best;
    h.elapsed = ga_elapsed(g);
    bool ok = fwrite(&h, sizeof h, 1, f) == 1 && write_indiv(f, &g->best, g->prob.ngenes);
    for (int i = 0; ok && i < g->npop_valid; i++) ok = write_indiv(f, &g->pop[i], g->prob.ngenes);
    int32_t ntop = g->ntop;
    ok = ok && fwrite(TOP_MAGIC, 1, 8, f) == 8 && fwrite(&ntop, sizeof ntop, 1, f) == 1;
    for (int i = 0; ok && i < g->ntop; i++)
        ok = write_indiv(f, &g->top[i], g->prob.ngenes) &&
             fwrite(&g->top[i].input_hash, sizeof g->top[i].input_hash, 1, f) == 1;
    ckp_screen sc = { g->screen_state, g->screen_rounds, g->screen_first, g->screen_last };
    ok = ok && fwrite(SCREEN_MAGIC, 1, 8, f) == 8 && fwrite(&sc, sizeof sc, 1, f) == 1;
    ok = ok && write_hot(g, f) && write_archive(g, f);
    if (fclose(f) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot write the checkpoint: %s", strerror(errno));
        remove(tmp);
    }
    return ok;
}

/* Counters a resumed search goes on counting from (generation++,
 * ++evals, stale + 1) must be non-negative and far from their type's
 * limit: a damaged or hostile file with INT_MAX generations would make the
 * next generation overflow.  No real search comes near these bounds. */
#define CKP_MAX_GENERATION (INT_MAX / 2)
#define CKP_MAX_EVALS (INT64_MAX / 2)

/* What is wrong with a header whose shape matched, or NULL. */
static const char *header_problem(const ckp_header *h)
{
    if (h->generation < 0 || h->generation > CKP_MAX_GENERATION || h->stale < 0 || h->stale > CKP_MAX_GENERATION)
        return "its generation counters are out of range";
    if (h->evals < 0 || h->evals > CKP_MAX_EVALS || h->evals_to_best < 0 || h->evals_to_best > h->evals)
        return "its evaluation counters are out of range";
    /* PCG32's increment is always odd (pcg32_seed); with an even one the
     * stream can stick at one value (state 0, increment 0 gives zeros for
     * ever) and pcg32_bounded's rejection loop never ends. */
    if (!(h->rng_inc & 1u)) return "its random-number state is damaged";
    /* The search's clock restarts from `elapsed`: a NaN or negative one
     * would defeat --time. */
    if (!isfinite(h->elapsed) || h->elapsed < 0 || !isfinite(h->time_to_best) || h->time_to_best < 0)
        return "its times are out of range";
    return NULL;
}

/* The top list after the population; true and an empty list when the
 * file ends there.  Members beyond opt.keep are read and dropped. */
static bool read_top(ga *g, FILE *f)
{
    char magic[8];
    g->ntop = 0;
    size_t n = fread(magic, 1, sizeof magic, f);
    if (n == 0 && feof(f)) return true;
    int32_t ntop;
    bool hashed = n == sizeof magic && !memcmp(magic, TOP_MAGIC, 8);
    if (n != sizeof magic || (!hashed && memcmp(magic, TOP_MAGIC_V1, 8)) || fread(&ntop, sizeof ntop, 1, f) != 1 ||
        ntop < 0)
        return false;
    ga_indiv spare = { 0 };
    if (g->strategy != GA_RANDOM && !(spare.genes = calloc((size_t)g->prob.ngenes, sizeof(int)))) return false;
    bool ok = true;
    for (int i = 0; ok && i < ntop; i++) {
        ga_indiv *dst = i < g->opt.keep ? &g->top[i] : &spare;
        ok = read_indiv(f, dst, g->prob.ngenes);
        dst->input_hash = 0;
        if (ok && hashed) ok = fread(&dst->input_hash, sizeof dst->input_hash, 1, f) == 1;
        if (ok && i < g->opt.keep) g->ntop++;
    }
    free(spare.genes);
    return ok;
}

/* The screen's state after the top list; a file that ends there resumes
 * with the screen done. */
static bool read_screen(ga *g, FILE *f, const ckp_header *h)
{
    char magic[8];
    ckp_screen sc;
    size_t n = fread(magic, 1, sizeof magic, f);
    g->screen_state = GA_SCREEN_DONE;
    if (n == 0 && feof(f)) return true;
    if (n != sizeof magic || memcmp(magic, SCREEN_MAGIC, 8) || fread(&sc, sizeof sc, 1, f) != 1) return false;
    if (sc.state < GA_SCREEN_PENDING || sc.state > GA_SCREEN_DONE || sc.rounds < 0 || sc.first < 0 ||
        sc.last < sc.first || sc.last > h->evals)
        return false;
    g->screen_state = (ga_screen_state)sc.state;
    g->screen_rounds = sc.rounds;
    g->screen_first = sc.first;
    g->screen_last = sc.last;
    return true;
}

/* The slots and holders of an archive read back; false when a holder
 * names an empty slot or a maximum is not a count. */
static bool archive_consistent(ga *g)
{
    ga_archive *a = &g->arc;
    memset(a->refs, 0, GA_ARCHIVE_MAX * sizeof *a->refs);
    for (int l = 0; l < g->prob.nlocations; l++) {
        int s = a->holder[l];
        if (!(a->best[l] >= 0) || s < -1 || s >= GA_ARCHIVE_MAX || (s >= 0 && !a->entries[s].genes)) return false;
        if (s >= 0) a->refs[s]++;
    }
    a->live = 0;
    for (int i = 0; i < GA_ARCHIVE_MAX; i++) {
        if (a->entries[i].genes && a->refs[i] == 0) return false;
        a->live += a->entries[i].genes != NULL;
    }
    return true;
}

/* The hot individual after the screen, if the file has one (a file
 * written without it goes on with the archive, or ends). */
static bool read_hot(ga *g, FILE *f)
{
    char magic[8];
    long at = ftell(f);
    size_t got = fread(magic, 1, sizeof magic, f);
    if (got != sizeof magic || memcmp(magic, HOT_MAGIC, 8)) return fseek(f, at, SEEK_SET) == 0;
    int32_t flags[2];
    int64_t amplified, unit;
    double work;
    if (!g->hot.genes || fread(flags, sizeof *flags, 2, f) != 2 || fread(&amplified, sizeof amplified, 1, f) != 1 ||
        amplified < 0 || !read_indiv(f, &g->hot, g->prob.ngenes) || fread(&unit, sizeof unit, 1, f) != 1 ||
        fread(&work, sizeof work, 1, f) != 1 || !(work >= 0) || (work > 0) != (flags[0] != 0))
        return false;
    g->hot.hot_unit = unit;
    g->hot.hot_work = work;
    g->hot_fresh = flags[0] && flags[1];
    g->amplified = amplified;
    return true;
}

/* The archive after the screen; a file that ends there resumes with an
 * empty one. */
static bool read_archive(ga *g, FILE *f)
{
    ga_archive *a = &g->arc;
    char magic[8];
    size_t got = fread(magic, 1, sizeof magic, f);
    if (got == 0 && feof(f)) return true;
    int32_t n;
    int64_t children;
    if (!a->best || got != sizeof magic || memcmp(magic, ARCHIVE_MAGIC, 8) || fread(&n, sizeof n, 1, f) != 1 ||
        n != g->prob.nlocations || fread(&children, sizeof children, 1, f) != 1 || children < 0 ||
        fread(a->best, sizeof *a->best, (size_t)n, f) != (size_t)n ||
        fread(a->holder, sizeof *a->holder, (size_t)n, f) != (size_t)n)
        return false;
    a->children = children;
    for (int i = 0; i < GA_ARCHIVE_MAX; i++) {
        int32_t used;
        if (fread(&used, sizeof used, 1, f) != 1 || used < 0 || used > 1) return false;
        free(a->entries[i].genes);
        a->entries[i].genes = NULL;
        if (!used) continue;
        if (!(a->entries[i].genes = calloc((size_t)g->prob.ngenes, sizeof(int))) ||
            !read_indiv(f, &a->entries[i], g->prob.ngenes))
            return false;
    }
    return archive_consistent(g);
}

bool ga_restore(ga *g, const char *path, wh_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot open the checkpoint: %s", strerror(errno));
        return false;
    }
    ckp_header h;
    bool ok = fread(&h, sizeof h, 1, f) == 1 && !memcmp(h.magic, CKP_MAGIC, 8);
    const char *why = ok ? NULL : "not a warphunt checkpoint";
    if (ok && (h.strategy != (int)g->strategy || h.npop != g->npop || h.ngenes != g->prob.ngenes ||
               h.npop_valid < 0 || h.npop_valid > h.npop)) {
        ok = false;
        why = "saved with another strategy, population size or gene count";
    }
    if (ok && (why = header_problem(&h)) != NULL) ok = false;
    ok = ok && read_indiv(f, &g->best, g->prob.ngenes);
    for (int i = 0; ok && i < h.npop_valid; i++) ok = read_indiv(f, &g->pop[i], g->prob.ngenes);
    if (ok && !read_top(g, f)) {
        ok = false;
        why = "its top list is damaged";
    }
    if (ok && !read_screen(g, f, &h)) {
        ok = false;
        why = "its edit screen's state is damaged";
    }
    if (ok && !read_hot(g, f)) {
        ok = false;
        why = "its hot individual is damaged or was saved without one";
    }
    if (ok && !read_archive(g, f)) {
        ok = false;
        why = "its archive is damaged or was saved for another kernel";
    }
    fclose(f);
    if (!ok) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "%s", why ? why : "the checkpoint is truncated");
        return false;
    }
    if (!h.has_best) g->best.fitness = -1;
    g->npop_valid = h.npop_valid;
    g->generation = h.generation;
    g->stale = h.stale;
    g->evaluated_all = h.evaluated_all;
    g->evals = h.evals;
    g->evals_to_best = h.evals_to_best;
    g->seed = h.seed;
    g->rng.state = h.rng_state;
    g->rng.inc = h.rng_inc;
    g->time_to_best = h.time_to_best;
    g->elapsed_before = h.elapsed;
    g->resumed = true;
    g->stop = GA_STOP_NONE;
    return true;
}
