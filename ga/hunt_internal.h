/*
 * hunt_internal.h — the state of one hunt, shared by hunt.c and
 * hunt_report.c.
 */
#ifndef WH_GA_HUNT_INTERNAL_H
#define WH_GA_HUNT_INTERNAL_H

#include "core/results.h"
#include "ga/hunt.h"

#include <pthread.h>
#include <stdatomic.h>

/* What one evaluation thread owns.  Worker 0 is the hunt's own harness
 * and image (h->h, h->img), which the final re-measurement also uses. */
typedef struct {
    harness *h;
    wh_image *img;              /* the full-size image its evaluations build */
    double measure_s;           /* wall time inside harness_measure */
    long reps;                  /* timed runs taken (with the noise criterion's extra ones) */
    long noisy;                 /* evaluations that took extra runs for the noise criterion */
    long noisy_capped;          /* ...and still ended above the bound at max_reps */
    long throttle_retries;      /* measurements taken again because the device was throttled */
    long throttled;             /* evaluations still throttled after the retries: fitness 0 */
} hunt_worker;

/* A scouted input's value edits: screen codes (gen_edit_screen) applied to
 * the random input of a seed, each with its screen group (one edit per
 * group: a code replaces the edit of its own group). */
#define HUNT_SCOUT_EDITS 8
typedef struct {
    int n;
    int codes[HUNT_SCOUT_EDITS], groups[HUNT_SCOUT_EDITS];
} hunt_edits;

/* Random testing while gdivan's symbolic stage runs (hunt_scout.c). */
typedef struct {
    bool ran;                   /* this run had a scout (a resumed one: recalled from run.json) */
    bool running;               /* its threads are alive (a head start: not yet closed) */
    bool head;                  /* one core: a head start before the stage, not threads during it */
    int nthreads, first_worker; /* thread k measures on evaluation worker first_worker + k */
    pthread_t *threads;
    void *args;                 /* the threads' arguments (hunt_scout.c) */
    pthread_mutex_t mu;         /* guards what follows while they run */
    pcg32 rng;                  /* the seeds of its inputs, in evaluation order */
    long max_evals;             /* half the budget (0: no bound but the stage) */
    long taken;                 /* evaluations handed to a thread */
    long evals, findings;       /* measured */
    double seconds;             /* its wall time */
    double best;                /* its best fitness, -1 while none */
    uint64_t best_seed;         /* the random input that gave it (a gene-less ga_indiv's seed) */
    hunt_edits best_edits;      /* ...with these edits (the scout's screen) */
    long best_eval;
    long screen_evals;          /* inputs its screen measured (in evals) */
    long composed_evals;        /* warp-first composed individuals it measured (in evals) */
    int screen_rounds;          /* the screen's rounds that found a longer input */
    double best_time_s;
    double rows_best;           /* the best of scout.csv's rows (the composed individual's too) */
    wh_history csv;             /* scout.csv */
    atomic_bool stop;
    bool failed;                /* the harness failed: err says why */
    wh_error err;
} hunt_scout;

/* The concolic extension of lane amplification's children (hunt_lanes.c),
 * counted since this process started the run. */
typedef struct {
    gen_extender *extender;     /* made at the first child, NULL before */
    bool off;                   /* stopped: no PTX, a failure, or misses in a row */
    long tries, extended;       /* children it was asked for, and found one for */
    int misses;                 /* asked in a row without an answer */
    double seconds;
} hunt_lane_extension;

typedef struct {
    const wh_spec *spec;
    hunt_options opt;           /* effective options (resume: the saved ones) */
    harness *h;
    gen_result *explored;       /* gdivan: the symbolic stage */
    gen_pool own_pool;          /* random-ga, or any resumed run */
    gen_pool *pool;
    gen_layout lay;
    wh_image *img;              /* worker 0's full-size image */
    hunt_worker *workers;       /* njobs of them */
    int njobs;
    int *alleles;               /* valid path atoms */
    int nalleles;
    int **specials;
    int nspecials;
    int *screen_codes, *screen_groups;   /* the edit screen's (gen_edit_screen) */
    int nscreen;
    gen_warp_report warp;       /* gdivan: the warp-first individual (the first special) */
    int **seeds;                /* --seed-inputs taken apart into genes */
    int nseeds;
    json_t *seeds_json;         /* run.json's record of them, or NULL */
    json_t *seeds_given;        /* the --seed-inputs as given (absolute), or NULL */
    char **seed_dirs;           /* a restarted run's recorded seeds (opt.seed_inputs points here) */
    int nseed_dirs;
    ga *g;
    wh_history hist;
    char dir[1024];
    bool made_dir;
    bool state_dropped;         /* checkpoint.bin and pool.bin removed at the end */              /* this run created dir (removed if it fails empty) */
    int lock_fd;                /* the run directory's lock, -1 when not held */
    int pool_saved;             /* atoms already written to pool.bin */
    long findings;
    int reps;
    bool tty;
    double last_progress;
    long last_progress_eval;    /* evaluation the last progress line showed */
    hunt_summary *sum;
    json_t *top;                /* --keep > 1: the saved top list, for run.json */
    double explore_s;           /* gdivan: wall time of the symbolic stage in this run */
    double stage_t0;            /* gdivan: when the stage started (wh_clock_s; scout.csv's time 0), 0: no stage */
    double search_offset_s;     /* gdivan: the search's start, seconds after stage_t0 (history.csv's
                                   time 0 on scout.csv's clock); 0 when not measured */
    char started[32];           /* when this process started the run (UTC, ISO 8601) */
    char explore_failure[600];  /* gdivan: why the symbolic stage gave no atom ("": it did) */
    /* islands (hunt_islands.c): the run's directory, of which h->dir is
     * this island's island-NN/; "" for a single island */
    char root[1024];
    char island_dir[1100];      /* what opt.out_dir / opt.resume_dir point to */
    int restored_generation;    /* the checkpoint's generation on resume, else -1 */
    long migrations, immigrants;
    double comm_s;              /* wall time in the islands' exchanges and stop agreements */
    char sync_dir[1024];        /* --sync-dir, as used (a resumed run's own) */
    char sync_id[64];           /* --sync-dir: this hunt's name there */
    struct hunt_sync_peer *sync_peers;   /* what was taken from whom (hunt_sync.c) */
    int nsync_peers;
    hunt_scout scout;           /* gdivan: random testing during the symbolic stage */
    hunt_lane_extension lanes;  /* lane amplification's extension (hunt_lanes.c) */
} hunt;

/* gdivan without atoms from the symbolic stage searches with this many
 * random atoms as its alleles (the first atoms of its pool). */
#define HUNT_FALLBACK_ATOMS 64

/* Value-edit genes of an individual, after the layout's genes. */
int hunt_edit_genes(const hunt *h);
/* Rebuild the input of an individual into img (a full-size image of the
 * spec): scaled atoms, then edits. */
bool hunt_build_image(const hunt *h, const ga_indiv *ind, wh_image *img, wh_error *err);
/* The scout's input: the random input of seed with edits applied (NULL: none). */
bool hunt_build_scouted(uint64_t seed, const hunt_edits *edits, wh_image *img, wh_error *err);
/* The hash of img's input buffers, never 0 (ga_indiv.input_hash). */
uint64_t hunt_input_hash(const wh_image *img);
/* Save img, the input of evaluation `eval` (kind "eval": the search's,
 * "scout": the scout's), under findings/KIND-EVAL-STATUS/ with the
 * harness's message (callable from any evaluation thread). */
void hunt_record_finding(const hunt *h, const wh_image *img, const char *kind, long eval, const harness_result *res);
/* Wall time inside harness_measure, over all workers. */
double hunt_measure_s(const hunt *h);
/* A measurement on a throttled device is taken again this many times. */
#define HUNT_THROTTLE_RETRIES 3
/* One evaluation of worker w's image (hunt_measure.c): res as measured
 * (its status; a finding's message) and the fitness the search ranks by,
 * under the throttling and noise rules. */
bool hunt_measure_fitness(const hunt *h, hunt_worker *w, harness_result *res, double *fitness, wh_error *err);
/* Copy the symbolic stage's issue inputs that faulted or hung on the sim
 * (gen_result.issues_dir) into findings/symbolic-issue-K-STATUS/. */
void hunt_take_issue_findings(hunt *h);
/* --seed-inputs: load each input, take it apart into genes (h->seeds)
 * and record in h->seeds_json whether the genes state it exactly. */
bool hunt_take_seeds(hunt *h, wh_error *err);
/* A run restarted from scratch (no checkpoint yet) starts from the seeds
 * its run.json records, whatever --seed-inputs says now. */
void hunt_recall_seed_dirs(hunt *h, const char *dir);
/* A resumed run keeps the record of the seeds it started from. */
void hunt_recall_seeds(hunt *h);
void hunt_free_seeds(hunt *h);
/* Lane amplification (hunt_lanes.c): whether this run does it; the
 * busiest thread of a measurement noted in ind's hot fields; the
 * ga_problem.amplify callback (ctx: the hunt). */
bool hunt_lanes_on(const hunt *h);
void hunt_lanes_note(const hunt *h, ga_indiv *ind, const harness_result *res);
bool hunt_lanes_amplify(void *ctx, const ga_indiv *hot, int *genes, wh_error *err);
/* Islands (hunt_islands.c, migration in hunt_migrate.c); each is a no-op
 * for a single island. */
/* More than one island?  This one's rank (0 for a single island). */
bool hunt_islands_many(const hunt *h);
int hunt_island_rank(const hunt *h);
/* On resume: migrations.csv cut back to the checkpoint's generation. */
void hunt_migrations_truncate(const hunt *h, int generation);

/* --sync-dir (hunt_sync.c): names of at most this many characters, from
 * [A-Za-z0-9._-], not starting with a dot; peers read at most. */
#define HUNT_SYNC_ID_MAX 63
#define HUNT_SYNC_PEERS_MAX 256
bool hunt_sync_id_ok(const char *id);
/* After the saved options are read: --sync-dir (a resumed run's own
 * unless given again) made, the name checked or made (host-pid); refused
 * under mpirun. */
bool hunt_sync_prepare(hunt *h, wh_error *err);
/* At a generation's end, every --migrate-every: write this hunt's best,
 * take the others' new ones. */
bool hunt_sync_migrate(hunt *h, int generation, wh_error *err);
void hunt_sync_free(hunt *h);

/* Migrants being received: the individuals (genes the caller's) and the
 * island each left, at most cap. */
typedef struct {
    ga_indiv *ind;
    int *from;
    int n, cap;
} hunt_arrivals;
/* Migrants as bytes (migrants.c): the size of a message of k, k of them
 * packed into buf, one message appended to a (false when it is not one of
 * this gene layout or would pass a->cap), a ranked best first (ties keep
 * their order). */
size_t hunt_migrants_bytes(int k, int ngenes);
void hunt_migrants_pack(const ga_indiv *m, int k, int island, int ngenes, unsigned char *buf);
bool hunt_migrants_unpack(const unsigned char *buf, size_t n, hunt_arrivals *a, int ngenes);
void hunt_migrants_rank(hunt_arrivals *a);
/* migrations.csv: what this island sent (k) and received at generation;
 * a log that cannot be written is said once and does not stop the search. */
void hunt_log_migration(hunt *h, int generation, const ga_indiv *out, int k, const hunt_arrivals *a);
/* Before anything else: this island's directory under the run's (island
 * 0 makes the run's and tells the others), its own seed. */
bool hunt_islands_prepare(hunt *h, wh_error *err);
/* The seed of this island's GA and noise: the run's seed on island 0. */
uint64_t hunt_island_seed(const hunt *h);
/* At a generation's end: every --migrate-every generations, the ring
 * exchange of --migrants best individuals. */
bool hunt_islands_migrate(hunt *h, int generation, wh_error *err);
/* ga_problem.agree_stop of an island. */
ga_stop_reason hunt_islands_agree_stop(void *ctx, ga_stop_reason own);
/* After every island finished: island 0 writes the run's run.json,
 * best/ (the best island's) and plot, and points the summary at them. */
bool hunt_islands_merge(hunt *h, wh_error *err);

/* The scout (hunt_scout.c).  start (gen_explore_options.on_explore, ctx
 * the hunt, when an exploration starts): with a spare worker and core, on a
 * fresh gdivan run that asks for it, measure random inputs from now on;
 * stop: end it, join, report (err: it could not start, the harness failed
 * or scout.csv could not be written); wins: its best beats the search's;
 * json: run.json's "scout" (null when none ran); recall: a resumed run's,
 * from DIR/run.json. */
void hunt_scout_start(void *hunt_ctx);
/* One core: the head start, on worker 0, before the stage (hunt_scout.c). */
void hunt_scout_head(hunt *h);
bool hunt_scout_stop(hunt *h, wh_error *err);
/* gen_warp_options.on_composed (ctx the hunt): the warp-first composed
 * individual measured before refinement, as a scout row. */
void hunt_scout_measure_genes(void *hunt_ctx, const int *genes);
bool hunt_scout_wins(const hunt *h);
json_t *hunt_scout_json(const hunt *h);
void hunt_scout_recall(hunt *h, const char *dir);

/* run.json; `final` adds the best input's distribution. */
bool hunt_write_run_json(hunt *h, const char *state, wh_error *err);
/* Re-measure the best, save best/, fill the summary, render the plot. */
bool hunt_finish(hunt *h, wh_error *err);
/* The saved options of a run directory (for --resume). */
bool hunt_read_saved_options(const char *dir, const wh_spec *spec, hunt_options *o, int *x, wh_error *err);

#endif
