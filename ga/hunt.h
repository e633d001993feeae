/*
 * hunt.h — one complete search: from a spec to a results directory.
 *
 * hunt_run explores the kernel (gdivan only; cached), builds the atom pool,
 * runs the GA strategy with the harness as fitness, and writes
 * results/<kernel>/<strategy>-s<seed>[-N]/:
 *   run.json      tool version, spec and PTX hashes, backend and device,
 *                 seed, options, symbolic-stage statistics, best fitness
 *                 with its distribution over `final_reps` runs, stop reason;
 *   history.csv   one row per evaluation;
 *   paths.json    the symbolic paths (gdivan);
 *   best/         the worst-case input found (`warphunt replay` re-runs it);
 *   top/NN/       with ga.keep > 1: the keep longest-running distinct inputs,
 *                 best first, each re-measured (run.json "top" lists them);
 *   findings/     inputs on which the kernel faulted or hung, one directory
 *                 each with the harness's message;
 *   plot.svg      best-so-far against evaluations and against time;
 *   checkpoint.bin, pool.bin   the search state, every generation.
 * With `resume_dir` the run continues from its checkpoint.
 */
#ifndef WH_GA_HUNT_H
#define WH_GA_HUNT_H

#include "ga/ga.h"
#include "gen/explore.h"
#include "harness/harness.h"

#include <signal.h>

/* How genes become a full input (gen.h): plain tiling repeats each atom;
 * stride tiling adds an evolved tiling gene (tile index x 2^k). */
typedef enum { HUNT_TILING_AUTO = 0, HUNT_TILING_PLAIN, HUNT_TILING_STRIDE } hunt_tiling;

/* --seed-inputs options one hunt takes (each may name many inputs). */
#define HUNT_MAX_SEED_OPTIONS 64

/* Islands: where migrants go.  ring: to the next island, which takes all
 * of them; all: to every island, each taking the M best of the others'. */
typedef enum { HUNT_TOPOLOGY_RING, HUNT_TOPOLOGY_ALL } hunt_topology;
const char *hunt_topology_name(hunt_topology t);
bool hunt_topology_from_name(const char *name, hunt_topology *out);

typedef struct {
    ga_strategy strategy;
    hunt_tiling tiling;         /* AUTO: stride for gdivan, plain for random-ga (the paper's baseline) */
    ga_options ga;
    uint64_t seed;
    int reps;                   /* timed runs per evaluation; 0: 1 on sim, 10 otherwise */
    int final_reps;             /* runs of the best input at the end; 0: 30 */
    /* Fitness hygiene on a noisy device (after nvbench's noise criterion):
     * while the relative standard error of the mean of an evaluation's runs
     * is above noise_rsd, `reps` more are taken, up to max_reps in all.
     * 0: off. */
    double noise_rsd;
    int max_reps;               /* 0: 10 x reps */
    int genes_x;                /* random-ga: threads per gene; 0: the spec's first X */
    int value_edits;            /* gdivan: value-edit genes (gen.h's edits); 0: none */
    bool edit_screen;           /* gdivan: the edit screen (ga/screen.c) over value_edits */
    bool end_edits;             /* ... and the scout's screen try the ends edit's variants too
                                   (gen.h: one step in from a domain end; one element at an end,
                                   the rest at the other) when all of them fit in a round; on by
                                   default (session 48, results/corpus_ablation.md) */
    /* gdivan on the sim: per-location feedback, the GA's archive
     * (ga/archive.c) of the inputs that drove each instruction's counters
     * highest (harness_options.want_locations), ga.archive_frac of the
     * children bred from it */
    bool location_feedback;
    /* gdivan on the sim, one island: each time the busiest thread of a
     * run beats the record, the next generation gets a child with that
     * thread's per-thread input in every thread (ga/hunt_lanes.c) */
    bool lane_amplify;
    /* ... and that child's thread input is first replaced by the concolic
     * extension's answer (gen_extend_atom: the other side of one of its
     * last branches, one more loop trip at a loop's exit); off by default
     * (no gain measured: README, "Lane extension") */
    bool lane_extend;
    int warp_first;             /* gdivan: candidates per gene of the warp-first
                                   individual (gen/warp.c); 0: none */
    long warp_refine;           /* gdivan: unit launches of element refinement of
                                   the warp-first unit (its own individual); 0 (the
                                   default here; the command line's is
                                   GEN_WARP_REFINE_LAUNCHES): none */
    bool refine_dictionary;     /* ... half its values from the kernel's constants
                                   (gen_dictionary; default true) */
    bool refine_work_ties;      /* ... and keeps a value that ties the unit's cycles
                                   with more lane work (default true) */
    /* gdivan: while the symbolic stage explores, random testing measures
     * inputs on a spare core (hunt_scout.c), out of the --evals budget (at
     * most half of it); the run's best is the better of the two */
    bool scout;
    /* with no spare core: the scout's head start, random inputs measured
     * before the stage (-1: a fiftieth of --evals, 1-100; 0: none) */
    long scout_head;
    /* the scout's screen: after as many random inputs as a head start's
     * (scout_head's), each edit screen code tried on its best, greedily
     * (pairs of one kind on two fields where no single code gains), one
     * round per value-edit gene, at most a tenth of the budget
     * (hunt_scout.c; default true) */
    bool scout_screen;
    harness_backend backend;
    harness_options harness;
    gen_explore_options explore;
    const char *results_base;   /* "results" */
    const char *out_dir;        /* explicit run directory, or NULL */
    const char *resume_dir;     /* continue this run, or NULL */
    /* Evaluation threads, each with its own harness and image; the run is
     * the same for any count.  0: one per online core.  The cuda backend
     * and emulated sim noise always use one (concurrent launches on one GPU
     * would disturb each other's times; the noise is one stream). */
    int jobs;
    /* A run that finishes removes its search state (checkpoint.bin, pool.bin:
     * only --resume reads them, and a long run's pool takes hundreds of MB);
     * it can no longer be extended. */
    bool drop_state;
    /* Saved inputs (or run directories, or directories of them) that are
     * the first individuals of the first population (hunt_seeds.c);
     * gene-based strategies only; a resumed run ignores them. */
    const char *seed_inputs[HUNT_MAX_SEED_OPTIONS];
    int nseed_inputs;
    /* The command that started the run, recorded in run.json (argc 0: none). */
    int argc;
    char *const *argv;
    bool quiet;
    volatile sig_atomic_t *interrupted;  /* set by a SIGINT handler; polled */
    /* MPI islands (ga/islands.h): this process is one island of the run;
     * NULL: a single island, as without mpirun. */
    struct wh_islands *islands;
    int migrate_every;          /* generations between migrations; 0: 5 */
    int migrants;               /* best individuals each island sends; 0: 2 */
    hunt_topology topology;     /* who receives them */
    /* Islands without MPI (hunt_sync.c): a directory shared with other
     * hunts, and this hunt's name there (NULL: host-pid) */
    const char *sync_dir;
    const char *sync_id;
} hunt_options;

#define HUNT_DEFAULT_MIGRATE_EVERY 5
#define HUNT_DEFAULT_MIGRANTS 2

/* gdivan's value-edit genes unless --value-edits says otherwise. */
#define HUNT_DEFAULT_VALUE_EDITS 3

void hunt_options_default(hunt_options *o);
const char *hunt_tiling_name(hunt_tiling t);
bool hunt_tiling_from_name(const char *name, hunt_tiling *out);

typedef struct {
    char dir[1024];
    ga_strategy strategy;
    char backend[16], device[256], unit[16];
    uint64_t seed;
    double best;                /* fitness (mean of `reps`) of the best input */
    /* evals: every measured input, the scout's first (scout.csv), then
     * the search's (history.csv, whose evaluation k is the run's
     * scout_evals + k); evals_to_best: the best's number in that order;
     * time_to_best_s: seconds of search (history.csv), or since the stage
     * started (scout.csv) when best_from_scout */
    long evals, evals_to_best;
    double time_s, time_to_best_s;
    bool best_from_scout;       /* the scout's random input beat the search */
    long scout_evals;           /* inputs the scout measured (0: no scout) */
    double scout_best;          /* its best fitness (0: none) */
    double measure_s;           /* inside the harness, summed over the evaluation threads */
    int jobs;                   /* evaluation threads used */
    double state_mb;            /* checkpoint.bin + pool.bin left in dir (0 when dropped) */
    int generations;
    ga_stop_reason stop;
    double final_mean, final_min, final_median, final_max, final_stddev;
    int final_reps;
    long findings;
    int x;                      /* threads per gene (0 for random) */
    bool strided;               /* the layout had a tiling gene */
    uint64_t best_stride;       /* the best individual's stride (0: plain tiling) */
    int value_edits;            /* edit genes per individual (0: none) */
    /* location feedback (ga/archive.c): counters the harness gave (0:
     * none), how many an archive input holds the maximum of, how many
     * inputs, children bred from them */
    int locations, locations_held, archive_inputs;
    long archive_children;
    long lanes_amplified;       /* children given the busiest thread's input; -1: off */
    long lanes_extended;        /* ...of them, given the extension's answer by this process; -1: off */
    double coverage;            /* gdivan: symbolic branch coverage */
    int paths, atoms_valid, atoms_invalid;
    bool explore_cached;
    double explore_s;           /* gdivan: the symbolic stage's wall time in this run
                                   (about 0 when it came from the cache) */
    double search_offset_s;     /* gdivan: the search began this long after the stage did (the
                                   stage, the warp-first composition and refinement); 0: not measured */
    char explore_failure[600];  /* gdivan: why the symbolic stage gave no atom, or "" */
    /* islands: how many (0 or 1: one, as without mpirun), which found the
     * best, and how many died during the run; on the island that merged
     * the results (island 0 unless it died) the summary is the run's (dir
     * the run's directory, evals the living islands', the rest the best
     * island's) */
    int islands, best_island, islands_lost;
} hunt_summary;

/* false only when the tool fails (err filled); a run stopped by Ctrl-C
 * returns true with summary->stop == GA_STOP_INTERRUPTED, results written. */
bool hunt_run(const wh_spec *spec, const hunt_options *o, hunt_summary *out, wh_error *err);

/* The summary as the `--json` object of `warphunt hunt`. */
struct json_t;
struct json_t *hunt_summary_json(const hunt_summary *s);

#endif
