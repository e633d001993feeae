/*
 * symexec.h — symbolic execution of one PTX entry for X threads on Z3.
 *
 * The kernel named by a spec is run for one block of X threads.  Buffers of
 * role `input` are symbolic (one bit-vector constant per element field,
 * named like `values[3]` or `nodes[2].start`), everything else is concrete:
 * outputs zero, fixed buffers and scalars from the spec evaluated for the
 * X-thread launch.  Threads run in a canonical order (each to its next
 * barrier, then the next, as GKLEE does); symbolic branches fork when both
 * sides are feasible; loops are cut at `max_iter` iterations on a symbolic
 * branch; the search reaches uncovered branch legs first and stops at a
 * time or path budget.
 *
 * Each finished path carries its formula (SMT-LIB2), the paper's metrics
 * (brdiv, instr) and more (warp-issued instructions, per-thread branch
 * decisions, covered legs, barrier intervals, whether it went through an
 * uninterpreted function).  `sx_path_model` turns a path into an input
 * image of X threads (an "atom"); several distinct ones with seeds.
 *
 * Semantics worth knowing:
 *   - an input field whose domain is a single value is that constant;
 *   - a thread's loop is cut when the thread has already taken its back
 *     edge max_iter times and a symbolic branch could keep it in the loop:
 *     that side is recorded as a cut path (its formula is the condition to
 *     iterate more), the other side goes on;
 *   - a barrier that some threads skip (they exited, or wait at another
 *     barrier) is reported as an issue and the path, run to its end, is an
 *     error path; an access that may leave its buffer is reported with the
 *     condition and a model, and the path goes on inside the bounds; one
 *     that always leaves it ends the path as an error;
 *   - warp collectives (shfl, vote, match, redux, activemask, elect) run
 *     when every thread stopped: the threads of a warp waiting at the same
 *     instruction are its active lanes;
 *   - coverage counts the legs taken by recorded paths (done, cut, error).
 *
 * Metrics (per path):
 *   instr       thread instructions executed, summed over the X threads
 *               (predicated-off instructions count: they are issued).
 *   intervals   barrier intervals: barriers released + 1 (kernel end).
 *   brdiv       per interval b: (distinct per-thread decision sequences in
 *               b - 1) / (X - 1) * 100, averaged over intervals (0 for X=1).
 *   warp_instr  instructions issued by the warps (32 consecutive threads)
 *               under SIMT serialization: per interval and warp, the
 *               threads' basic-block traces are merged by a SIMT stack
 *               that splits at a divergent branch and reconverges at the
 *               branch block's immediate post-dominator; each merged block
 *               visit issues once (its instruction count), so distinct
 *               per-thread paths inside an interval issue separately and
 *               shared prefixes/suffixes once.
 */
#ifndef WH_SYMEXEC_SYMEXEC_H
#define WH_SYMEXEC_SYMEXEC_H

#include "core/error.h"
#include "core/image.h"
#include "core/spec.h"
#include "ptx/ptx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SX_DEFAULT_MAX_ITER 16
/* Z3's memory by default (MiB): one check of a shared-memory histogram
 * once grew past 3 GB inside a single call. */
#define SX_DEFAULT_SOLVER_MB 4096

/* A snapshot of a running exploration. */
typedef struct sx_progress {
    int threads;
    double elapsed_s, solver_s;
    int paths, legs, legs_covered, pending;
    long solver_calls, giveups, interrupted, memouts;
} sx_progress;

/* Which pending state runs next once none of them takes a leg not yet
 * covered (those always run first, newest first): a seeded random one, or
 * mostly the one that has run longest (README, "Aimed at time"). */
typedef enum { SX_ORDER_RANDOM, SX_ORDER_TIME } sx_order;

typedef struct {
    int threads;                 /* X, 1..1024 */
    int max_iter;                /* 0: the spec's symbolic.max_iter, else 16 */
    double time_budget_s;        /* 0: no limit */
    int path_budget;             /* 0: no limit (finished + cut + error paths) */
    uint64_t seed;               /* search order tie-breaks */
    sx_order order;              /* after coverage: SX_ORDER_RANDOM (the default) or SX_ORDER_TIME */
    uint64_t max_thread_instrs;  /* per thread; 0: 1,000,000 */
    unsigned query_ms;           /* per solver check of the search; 0: only the time budget */
    unsigned solver_mb;          /* Z3's memory, MiB: a check is interrupted (a give-up) once
                                    Z3's allocations pass it; 0: SX_DEFAULT_SOLVER_MB */
    double saturation_s;         /* > 0: stop once nothing new (a leg, or a path longer in warp
                                    instructions or more divergent than any before) has come
                                    for as long as the last new thing took to come, and at
                                    least this many seconds; 0: only the budgets stop it */
    bool saturate_pathless;      /* saturation may stop the search before its first path (a
                                    smaller X already gave paths); false: never before it */
    bool isolate_fp;             /* every check on floats in a child process (isolate.c); false:
                                    only once one of them has been slow (solver.c) */
    /* Called about every progress_s seconds during the search (NULL: never):
     * how far it has got, for a progress line. */
    void (*progress)(void *ctx, const sx_progress *p);
    void *progress_ctx;
    double progress_s;           /* 0: 2 s */
} sx_options;



/* Symbolic-offset stores a region of a state takes before further
 * symbolic-offset accesses to it are pinned (sx_result.pinned). */
#define SX_SYMBOLIC_STORES_MAX 4

/* A region larger than this (bytes) is never turned into a Z3 array: an
 * access at a symbolic offset into it is pinned at once.  The array of a
 * 64 K-key table is a chain of 2^18 stores that Z3 spends the whole budget
 * internalizing (a binary search over fixed keys, a hash table's probe:
 * 0 paths in 10 s before this bound). */
#define SX_ARRAY_REGION_MAX 4096

/* Places of such a region written by a state that a later access at a
 * symbolic offset forks over before it is pinned (see memory.c). */
#define SX_ALIAS_CANDIDATES 16

/* An access at a symbolic offset that is a multiple of its size, into a
 * region not held in a Z3 array, that can reach at most this many words: a
 * case split over those words instead of an array (see memory.c). */
#define SX_WORD_CASES_MAX 64

/* Loads and stores at symbolic offsets one path may make: past this the
 * path ends as cut (its formula would grow past what the solver answers
 * in bounded time: Z3 does not always heed its timeout on long chains of
 * array stores). */
#define SX_ARRAY_OPS_MAX 256

/* A search check that takes longer is a give-up (see sx_result.giveups). */
#define SX_DEFAULT_QUERY_MS 5000u

void sx_options_default(sx_options *o);

typedef enum {
    SX_PATH_DONE = 0,   /* every thread ran to its end */
    SX_PATH_CUT,        /* a thread hit max_iter (or the instruction cap) */
    SX_PATH_ERROR       /* stopped at an error (out-of-bounds access...) */
} sx_path_kind;

typedef struct {
    int line;           /* PTX line of the branch */
    int func;           /* function index in the module */
    int instr;          /* instruction index in that function */
    bool taken;         /* the guarded bra jumped */
    int interval;       /* barrier interval it happened in */
} sx_decision;

/* One leg of a conditional branch. */
typedef struct {
    int func, block;    /* function and block ending in a guarded bra */
    bool taken;         /* the jumping leg (true) or the fall-through (false) */
    int line;           /* PTX line of the bra */
    int target_line;    /* first PTX line of the leg's target, 0 at end */
} sx_leg;

/* "FILE.cu:LINE" of a leg's branch, when the PTX has `.loc`s (-lineinfo). */
bool sx_leg_source(const ptx_module *m, const sx_leg *l, char *buf, size_t size);

typedef struct {
    sx_path_kind kind;
    char *formula;          /* SMT-LIB2 of the path condition */
    double brdiv;
    uint64_t instr, warp_instr;
    int intervals;
    bool uf;                /* went through an uninterpreted function */
    int nthreads;
    sx_decision **decisions;/* [thread][k] */
    int *ndecisions;        /* [thread] */
    int *legs; int nlegs;   /* indices into sx_result.legs */
    char *note;             /* why cut / what error, or NULL */
} sx_path;

/* Something wrong that a path can reach: an access that may leave its
 * buffer, threads disagreeing on a barrier, a brx.idx index past its
 * target list. */
typedef enum { SX_ISSUE_OOB = 1, SX_ISSUE_BARRIER, SX_ISSUE_UNSUPPORTED, SX_ISSUE_BRANCH, SX_ISSUE_ASSERT } sx_issue_kind;

typedef struct {
    sx_issue_kind kind;
    int line;               /* PTX line */
    int thread;
    int path;               /* index of the path that found it, -1 if none */
    char *message;          /* what and where */
    char *source;           /* "FILE.cu:LINE" of its CUDA source (-lineinfo), or NULL */
    char *condition;        /* SMT-LIB2 of the triggering condition, or NULL */
    char *model;            /* input values of one triggering model, or NULL */
    uint64_t *values;       /* the same model, one value per input symbol
                               (sx_issue_image writes them), or NULL */
} sx_issue;

typedef struct sx_engine sx_engine;

typedef struct {
    char *kernel;           /* spec name */
    char *entry;
    int threads, max_iter;
    sx_path *paths; int npaths;
    int ndone, ncut, nerror;   /* paths by kind */
    int npending;           /* states left unexplored when a budget ran out */
    bool budget_hit;        /* time or path budget stopped the search */
    bool path_cap_hit;      /* the path budget did, within the time budget: its
                               paths are whole, only fewer than there are */
    bool saturated;         /* sx_options.saturation_s stopped it (states were left) */
    double last_gain_s;     /* when the last new leg or longest path came, from the start */
    sx_leg *legs; int nlegs;   /* all legs of the entry and its callees */
    bool *covered;          /* [nlegs] */
    int nlegs_covered;
    sx_issue *issues; int nissues;
    char *domains;          /* SMT-LIB2 of the value-domain assumptions */
    double time_s, solver_s;
    double coverage_time_s; /* when the last new leg was covered */
    long solver_calls;
    long forks;
    /* Checks the solver could not answer within its limits: a branch then
     * follows the state's model's side with that side's condition added
     * (sound: its atoms replay it; the other side is not explored), and a
     * state whose instruction needs an answer to go on ends as a cut path
     * noting why (its decisions so far are a prefix atoms replay). */
    long giveups;
    /* Branch sides shown feasible by a sampled input instead of the solver
     * (witness.c): after a give-up, and at every branch of a concolic
     * state, a few inputs around the state's model are tried; one that
     * satisfies the path and the side forks a copy that takes it. */
    long witnesses;
    /* Solver calls the watchdog interrupted past their hard deadline (the
     * query limit plus a quarter, at least 0.5 s), or run in a child process
     * killed at its limit: counted in giveups too */
    long interrupted;
    /* Of those, the calls cut (or not started) because Z3's allocations
     * were past sx_options.solver_mb. */
    long memouts;
    /* Loads and stores at symbolic offsets concretized (pinned to the
     * model's value, the equality added to the path) because their region
     * already had SX_SYMBOLIC_STORES_MAX symbolic stores or is larger than
     * SX_ARRAY_REGION_MAX: a longer chain makes the solver blow up. */
    long pinned;
    /* Loads and stores at symbolic offsets made case splits over the words
     * they may reach (SX_WORD_CASES_MAX) instead of Z3 array accesses. */
    long word_cases;
    /* Paths whose state turned concolic after a give-up (fork.c): from
     * there on they followed their model, exploring no other side. */
    long concolic;
    /* Atoms made in this process (sx_path_model; not kept by the explore
     * cache): solver checks, and pins kept on a witness without one (the
     * formula evaluated at the pin's value, model.c). */
    long model_checks, pins_screened;
    sx_engine *priv;        /* keeps the Z3 context for model queries */
} sx_result;

/* Does the stage assume the structure (wh_structure) of input buffer p of
 * an X-thread image?  Not past SX_STRUCTURE_MAX elements: every path's
 * atoms would carry one constraint per element.  The search brings every
 * input it builds to the structure either way. */
#define SX_STRUCTURE_MAX 4096
/* "below_row" is one constraint per column slot and row: assumed while
 * there are no more pairs than this (sptrsv_level at X = 4: 128 x 8). */
#define SX_BELOW_ROW_PAIRS 65536
/* A hash table's (wh_hash_table) is assumed up to SX_TABLE_SLOTS slots:
 * each slot's key is a hash inverted, and a lookup at a symbolic slot
 * reads them all (measured: 8 slots of fmix32 keys with 2 probes, a 6 s
 * stage; 16 slots with 4, solver calls given up). */
#define SX_TABLE_SLOTS 16
/* A forest's (WH_STRUCTURE_FOREST) up to SX_FOREST_NODES elements: a rank
 * per element and, for each, a choice over every other as its parent. */
#define SX_FOREST_NODES 64

/* The device heap of the symbolic launch (malloc): smaller than the sim's
 * 8 MiB, since each state that writes it holds a copy.  A path whose
 * allocations pass it gets NULL where the sim would not; its atoms then
 * fail their replay and are not used. */
#define SX_HEAP_BYTES ((uint64_t)256 << 10)
bool sx_structure_assumed(const wh_image *img, int p);

/* Explore `spec`'s entry in `mod` for opt->threads threads.  Returns NULL
 * and fills err on a user error (spec/PTX mismatch), an unsupported
 * instruction (the message names the opcode and the PTX line) or a Z3
 * failure. */
sx_result *sx_explore(const wh_spec *spec, const ptx_module *mod,
                      const sx_options *opt, wh_error *err);
void sx_result_free(sx_result *r);

/* Coverage in percent (100 when there are no legs). */
double sx_result_coverage(const sx_result *r);
/* Did the threads take one path without a single fork, in a kernel with
 * branches they did not reach?  The symptom of a guard that sends every
 * symbolic thread out early (a spec constant of at least X). */
bool sx_result_never_branched(const sx_result *r);
/* No path ran to its end and one stopped at an instruction the stage does
 * not run: that issue's message (the first), else NULL. */
const char *sx_result_stopped_unsupported(const sx_result *r);

/* Fill `out` (an image of the same spec for wh_launch_threads(X)) with the
 * values of a model of path `path`'s formula.  Every input element is set
 * and stays in its domain.  seed 0 gives the solver's first model; other
 * seeds steer the input values towards random points of their domains
 * (distinct seeds give distinct models whenever the path allows). */
bool sx_path_model(const sx_result *r, int path, uint64_t seed, wh_image *out,
                   wh_error *err);

/* Siblings of an atom: models of path `path` equal to `base` (an atom of
 * the path) in every input but those thread `thread` owns (its
 * `per_thread` elements), each written to `scratch` and handed to `take`
 * (false stops with an error).  They keep the path's relation between
 * that thread and the others (a key that hashes to another thread's slot,
 * an edge into another thread's node) while the thread's own values
 * change: the models are ordered by the thread's first input symbol in
 * the formula, rising from base's value, then falling from it, so no two
 * are equal.  Up to n; fewer when the path allows no more or the limits of
 * sx_model_limits stop the solver.  Returns how many, or -1 (err set). */
typedef bool (*sx_sibling_fn)(void *ctx, wh_image *img, wh_error *err);
int sx_path_siblings(const sx_result *r, int path, const wh_image *base, int thread, int n, sx_sibling_fn take,
                     void *ctx, wh_image *scratch, wh_error *err);

/* The X-thread input of issue `issue` that triggers it (the model the
 * search found), written into `out` (an image of the spec with X threads,
 * like an atom's).  False (err) when the issue has no model. */
bool sx_issue_image(const sx_result *r, int issue, wh_image *out, wh_error *err);

/* Bounds on the solver checks sx_path_model makes: none runs longer than
 * query_ms milliseconds (0: no per-check limit) or past `deadline` (a
 * wh_clock_s() time; 0: none), and none starts after it.  A model the
 * solver cannot find within them is no model: sx_path_model fails and
 * says so.  Unbounded by default. */
void sx_model_limits(sx_result *r, unsigned query_ms, double deadline);

/* One conditional branch (`@p bra`) a thread executed in a replay. */
typedef struct {
    int func, block;        /* function index in the module, block ending in the bra */
    bool taken;
} sx_branch;

/* Does a replay of an atom follow path `path`?  br[t][0..nbr[t]) are the
 * branches thread t executed (for X = r->threads threads).  A done or error
 * path must match exactly; for a cut path the path's decisions must be a
 * prefix of the replay's (the replay goes on past the cut).  `why` (may be
 * NULL) says where they part. */
bool sx_path_follows(const sx_result *r, const ptx_module *m, int path, const sx_branch *const *br,
                     const int *nbr, char *why, size_t whysize);

/* Concolic extension (extend.c): `input`, an image of X threads (1..1024),
 * runs along its own path with its inputs symbolic (no fork; an unsigned
 * div or rem keeps the quotient it computes, a linear constraint), and its
 * latest branch decisions are tried, latest first, each with the other
 * side taken, the path before it kept and every input but the deciding
 * thread's own elements pinned.  The first satisfiable one becomes *out (a
 * new image like input): that thread's neighbour input on the other side
 * of that branch (at a loop's exit, one more trip; an earlier branch's
 * answer, taken when the later ones have none, may be a shorter path).
 * 1 found (*thread: whose decision),
 * 0 none within the limits, -1 error (err). */
typedef struct {
    int flips;                   /* latest decisions tried (and remembered) */
    unsigned query_ms;           /* per check */
    double time_s;               /* the whole call: following, then the checks */
    uint64_t max_thread_instrs;  /* per thread; 0: 1,000,000 */
} sx_extend_options;
void sx_extend_options_default(sx_extend_options *o);
int sx_extend(const wh_spec *spec, const ptx_module *mod, const wh_image *input, const sx_extend_options *o,
              wh_image **out, int *thread, wh_error *err);

struct json_t;

/* The result as JSON (the body of paths.json; see README "explore"):
 * paths with formula, metrics, decisions ("line:T|F[@interval]" per
 * thread), legs and atoms; every leg with its PTX line and whether it is
 * covered; counts, issues, timings, the domain assumptions.  `m` names the
 * functions of the legs (may be NULL).  The generator block adds the
 * atoms (gen/paths_json.c). */
struct json_t *sx_result_json(const sx_result *r, const ptx_module *m);

/* "done", "cut", "error". */
const char *sx_path_kind_name(sx_path_kind k);

#endif
