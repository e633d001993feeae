/*
 * hunt_opts.h — the search options shared by `hunt` and `compare`.
 */
#ifndef WH_CLI_HUNT_OPTS_H
#define WH_CLI_HUNT_OPTS_H

#include "cli/cli.h"
#include "ga/hunt.h"

#include <getopt.h>
#include <stdio.h>

enum {
    HOPT_EVALS = CLI_OPT_FIRST_FREE, HOPT_TIME, HOPT_SEED, HOPT_POPULATION, HOPT_ELITE, HOPT_MUTATION,
    HOPT_SPECIAL, HOPT_RANDOM_GENE, HOPT_EPSILON, HOPT_PATIENCE, HOPT_REPS, HOPT_FINAL_REPS,
    HOPT_EXPLORE_TIME, HOPT_MODELS, HOPT_THREADS, HOPT_MAX_ITER, HOPT_NO_CACHE, HOPT_RESULTS, HOPT_TILING, HOPT_SEGMENT, HOPT_EXPLORE_PATHS,
    HOPT_KEEP, HOPT_RANDOM_INDIVIDUALS, HOPT_VALUE_EDITS, HOPT_WARP_FIRST, HOPT_FAMILIES, HOPT_JOBS, HOPT_NOISE_RSD, HOPT_MAX_REPS, HOPT_MIGRATE_EVERY, HOPT_MIGRANTS, HOPT_TOPOLOGY, HOPT_SYNC_DIR, HOPT_SYNC_ID, HOPT_NO_SCOUT, HOPT_ORDER, HOPT_NO_EDIT_SCREEN,
    HOPT_NO_LOCATION_FEEDBACK, HOPT_NO_LANE_AMPLIFY, HOPT_LANE_EXTEND, HOPT_ARCHIVE_SHARE, HOPT_EXPLORE_SATURATION, HOPT_WARP_REFINE,
    HOPT_NO_REFINE_DICTIONARY, HOPT_NO_REFINE_WORK_TIES, HOPT_SCOUT_HEAD, HOPT_NO_SCOUT_SCREEN, HOPT_END_EDITS, HOPT_NO_END_EDITS,
    HOPT_FIRST_FREE = 1200
};

#define HUNT_LONG_OPTIONS \
    { "evals", required_argument, NULL, HOPT_EVALS }, { "time", required_argument, NULL, HOPT_TIME }, \
    { "seed", required_argument, NULL, HOPT_SEED }, { "population", required_argument, NULL, HOPT_POPULATION }, \
    { "elite", required_argument, NULL, HOPT_ELITE }, { "mutation", required_argument, NULL, HOPT_MUTATION }, \
    { "special", required_argument, NULL, HOPT_SPECIAL }, \
    { "random-gene", required_argument, NULL, HOPT_RANDOM_GENE }, \
    { "random-individuals", required_argument, NULL, HOPT_RANDOM_INDIVIDUALS }, \
    { "value-edits", required_argument, NULL, HOPT_VALUE_EDITS }, \
    { "warp-first", required_argument, NULL, HOPT_WARP_FIRST }, { "no-scout", no_argument, NULL, HOPT_NO_SCOUT }, \
    { "scout-head", required_argument, NULL, HOPT_SCOUT_HEAD }, \
    { "no-scout-screen", no_argument, NULL, HOPT_NO_SCOUT_SCREEN }, \
    { "warp-refine", required_argument, NULL, HOPT_WARP_REFINE }, \
    { "no-refine-dictionary", no_argument, NULL, HOPT_NO_REFINE_DICTIONARY }, \
    { "no-refine-work-ties", no_argument, NULL, HOPT_NO_REFINE_WORK_TIES }, \
    { "no-edit-screen", no_argument, NULL, HOPT_NO_EDIT_SCREEN }, \
    { "end-edits", no_argument, NULL, HOPT_END_EDITS }, \
    { "no-end-edits", no_argument, NULL, HOPT_NO_END_EDITS }, \
    { "no-location-feedback", no_argument, NULL, HOPT_NO_LOCATION_FEEDBACK }, \
    { "no-lane-amplify", no_argument, NULL, HOPT_NO_LANE_AMPLIFY }, \
    { "lane-extend", no_argument, NULL, HOPT_LANE_EXTEND }, \
    { "archive-share", required_argument, NULL, HOPT_ARCHIVE_SHARE }, \
    { "families", required_argument, NULL, HOPT_FAMILIES }, \
    { "epsilon", required_argument, NULL, HOPT_EPSILON }, { "patience", required_argument, NULL, HOPT_PATIENCE }, \
    { "reps", required_argument, NULL, HOPT_REPS }, { "final-reps", required_argument, NULL, HOPT_FINAL_REPS }, \
    { "noise-rsd", required_argument, NULL, HOPT_NOISE_RSD }, { "max-reps", required_argument, NULL, HOPT_MAX_REPS }, \
    { "migrate-every", required_argument, NULL, HOPT_MIGRATE_EVERY }, { "migrants", required_argument, NULL, HOPT_MIGRANTS }, \
    { "topology", required_argument, NULL, HOPT_TOPOLOGY }, \
    { "sync-dir", required_argument, NULL, HOPT_SYNC_DIR }, { "sync-id", required_argument, NULL, HOPT_SYNC_ID }, \
    { "explore-time", required_argument, NULL, HOPT_EXPLORE_TIME }, \
    { "explore-paths", required_argument, NULL, HOPT_EXPLORE_PATHS }, \
    { "explore-saturation", required_argument, NULL, HOPT_EXPLORE_SATURATION }, \
    { "models", required_argument, NULL, HOPT_MODELS }, { "threads", required_argument, NULL, HOPT_THREADS }, \
    { "max-iter", required_argument, NULL, HOPT_MAX_ITER }, { "no-cache", no_argument, NULL, HOPT_NO_CACHE }, \
    { "order", required_argument, NULL, HOPT_ORDER }, \
    { "results", required_argument, NULL, HOPT_RESULTS }, { "tiling", required_argument, NULL, HOPT_TILING }, \
    { "segment", required_argument, NULL, HOPT_SEGMENT }, { "keep", required_argument, NULL, HOPT_KEEP }, \
    { "jobs", required_argument, NULL, HOPT_JOBS }

/* The search options' help; EVALS and PATIENCE are the command's defaults
 * (strings), which differ between hunt and compare. */
#define HUNT_HELP(EVALS, PATIENCE) \
    "search budget and stopping (the same for every strategy):\n" \
    "  --evals N         stop after N evaluations (default " EVALS "): launches of the\n" \
    "                    full input; gdivan's symbolic stage and its warp-first unit and\n" \
    "                    refinement (launches of one warp, see --warp-first and\n" \
    "                    --warp-refine) come before it and outside it\n" \
    "  --time S          stop after S seconds of search (default: none)\n" \
    "  --epsilon F       relative improvement that counts as progress (default 0.01)\n" \
    "  --patience N      stop after N generations without progress (default " PATIENCE ";\n" \
    "                    0: never stop early)\n" \
    "genetic algorithm (defaults from the paper):\n" \
    "  --seed S          PCG32 seed (default 1); the same seed on sim gives the same run\n" \
    "  --population N    individuals per generation (100)\n" \
    "  --elite F         fraction kept unchanged (0.10)\n" \
    "  --mutation F      probability a child is mutated (0.25)\n" \
    "  --segment F       share of mutations that give one new allele to a run of genes of\n" \
    "                    log-uniform length, up to the whole launch (0.5; 0: the paper's\n" \
    "                    one-gene mutation)\n" \
    "  --special F       gdivan: share of special individuals in the first population (0.30)\n" \
    "  --random-gene F   gdivan: probability a mutation draws random values, not a path (0.05)\n" \
    "  --random-individuals F  gdivan: share of the first population whose every gene is\n" \
    "                    random values, as random testing draws them (0.20; 0: the paper's)\n" \
    "  --value-edits N   gdivan: genes per individual that edit the built input: a run of\n" \
    "                    a buffer filled with one value or a domain end, sorted, reversed,\n" \
    "                    a ramp of distinct values, a lane's values copied across its warp,\n" \
    "                    values drawn from a searched shape (a long tail, heavy lanes in\n" \
    "                    every warp, a few hubs: CSR row lengths, degrees) (default 3;\n" \
    "                    0: none, the paper's)\n" \
    "  --no-edit-screen  gdivan: the generation after the first tries every operator on\n" \
    "                    the whole of every input field (a searched scalar: its two ends),\n" \
    "                    one at a time, as one more edit of the best input, and through\n" \
    "                    every index buffer (a field whose\n" \
    "                    range is [0, count - 1] of another buffer) a relaxation's\n" \
    "                    contention worst case: every index at 0, the values falling, the\n" \
    "                    pointed one at the top, the loop's side values falling (contend-min;\n" \
    "                    contend-max mirrors it), and on a \"tree\" buffer a chain and a complete\n" \
    "                    tree (tree-chain, tree-complete) (one evaluation each, at most a generation's\n" \
    "                    children), and again from the result while a round's input is\n" \
    "                    the best (at most --value-edits rounds); this turns it off\n" \
    "  --no-end-edits    gdivan: the edit screen (and the scout's) also tries, on every\n" \
    "                    input field, each element one step in from the top or the bottom\n" \
    "                    of its own domain (parent[v] in [0, v] becomes v - 1: a chain),\n" \
    "                    and the first element at its top or bottom with the rest at the\n" \
    "                    other end (one walker, the others idle), when all of those codes\n" \
    "                    fit in the screen's round with the others; this turns them off\n" \
    "                    (--end-edits, the default, is accepted too)\n" \
    "  --no-location-feedback  gdivan on the sim: the sim counts, per PTX instruction,\n" \
    "                    the lanes that ran it, its memory transactions and its atomics'\n" \
    "                    waits; the input that drove each count highest is kept (an\n" \
    "                    archive, as PerfFuzz's) even when it is not slow yet, and\n" \
    "                    --archive-share of the children take a parent from it; this\n" \
    "                    turns it off (the cuda backend has no counters: off there)\n" \
    "  --no-lane-amplify gdivan on the sim: the sim also counts the warp instructions\n" \
    "                    each thread was active for; each time a run's busiest thread\n" \
    "                    beats every earlier one, the next generation gets a child\n" \
    "                    with that thread's per-thread inputs in every thread (a\n" \
    "                    launch of independent threads tries thousands of values at\n" \
    "                    once); this turns it off (off on the cuda backend, with\n" \
    "                    islands and --sync-dir, and without per-thread inputs)\n" \
    "  --lane-extend     gdivan with lane amplification: that thread's input is first\n" \
    "                    followed along its path with its values symbolic, and Z3\n" \
    "                    asked for its neighbour on the other side of one of its\n" \
    "                    last branches, latest first (one more loop trip at a\n" \
    "                    loop's exit; 2 s a try, stopped after 4 tries in a row\n" \
    "                    with no answer); the child gets that.  Off by default: no\n" \
    "                    gain measured on the corpus and held-out kernels\n" \
    "  --archive-share F share of the children whose first parent is an archive input\n" \
    "                    (0.2)\n" \
    "  --warp-first N    gdivan: before the search, build one warp (lcm(32, X) threads) on\n" \
    "                    the sim, gene by gene, trying N alleles at each for the one that\n" \
    "                    makes it longest, and start from it repeated over the launch\n" \
    "                    when it beats one allele everywhere by 2 %% (default 48; 0:\n" \
    "                    none, the paper's; at most 10 s)\n" \
    "  --warp-refine N   gdivan: then refine that warp element by element in up to N\n" \
    "                    launches of it (at most 60 s): each per-thread input element\n" \
    "                    (contiguous owners, no structure), then each element of a\n" \
    "                    shared input as long for the warp as for the launch (a tree,\n" \
    "                    a table), tries its domain's ends and 6 values drawn in it\n" \
    "                    (every other one among the kernel's constants in the domain:\n" \
    "                    each integer immediate of its PTX, +-1 and negated, and each\n" \
    "                    floating one), keeping what makes the warp longer (composed\n" \
    "                    or not), pass after pass, until as many launches as the last\n" \
    "                    gain took (at least a pass's and 2000) gain nothing; the\n" \
    "                    refined warp repeated over the launch is one more first\n" \
    "                    individual when it gains 2 %% (default 50000; 0: none)\n" \
    "  --no-refine-dictionary  gdivan: refinement draws uniformly in the domain only\n" \
    "  --no-refine-work-ties  gdivan: refinement keeps only values that make the warp\n" \
    "                    longer; by default a per-thread input's value that ties its\n" \
    "                    cycles while its lanes do more work (lane instructions) is kept\n" \
    "                    too, so a lane that is not the slowest can climb towards a\n" \
    "                    longer path of its own\n" \
    "  --no-scout        gdivan: while the symbolic stage explores (one core), random\n" \
    "                    testing measures inputs on the other evaluation workers, out of\n" \
    "                    the --evals budget (at most half of it; scout.csv); the run's\n" \
    "                    best is the better of the search's and this scout's (run.json\n" \
    "                    says which); its count follows the stage's wall time, so only\n" \
    "                    the search is repeatable for a seed.  None with --jobs 1 or\n" \
    "                    one core (a head start instead: --scout-head) or a cached\n" \
    "                    stage.  This turns both off (the paper's)\n" \
    "  --scout-head N    gdivan with no spare core (--jobs 1, one core): N random\n" \
    "                    inputs measured before the stage, cached or not, out of the\n" \
    "                    budget (at most half; scout.csv), so that the run reaches random\n" \
    "                    testing's level in its first seconds (default: --evals / 50,\n" \
    "                    1 to 100; 0: none)\n" \
    "  --no-scout-screen gdivan: after as many random inputs as a head start's (the\n" \
    "                    head start itself on one core), the scout tries the edit\n" \
    "                    screen's codes (those of --no-edit-screen) on its best random\n" \
    "                    input, one at a time, the longest of a round the base of the\n" \
    "                    next, while a round gains (where none gains, a round of pairs:\n" \
    "                    one kind of edit on two fields), one round per --value-edits,\n" \
    "                    at most a tenth of --evals: a buffer-wide worst case (every edge\n" \
    "                    into one node) in the first seconds, not after the stage.\n" \
    "                    None with --scout-head 0.  This turns it off\n" \
    "                    (--no-edit-screen leaves it on)\n" \
    "  --tiling T        how genes fill the launch: 'stride' adds an evolved gene that shifts\n" \
    "                    group g's integer inputs by g * 2^k (distinct keys, spread indices,\n" \
    "                    many paths per warp); 'plain' repeats atoms as in the paper\n" \
    "                    (default: stride for gdivan, plain for random-ga)\n" \
    "measurement:\n" \
    "  --reps R          timed runs per evaluation, fitness = their mean (1 on sim, 10 on cuda)\n" \
    "  --noise-rsd F     while the fitness's relative standard error (stddev / (mean x\n" \
    "                    sqrt(runs))) is above F (0.005: 0.5 %%), take --reps more runs,\n" \
    "                    up to --max-reps (default 0: off);\n" \
    "                    a measurement on a throttled GPU is always taken again (3 tries)\n" \
    "                    and, still throttled, ranked last\n" \
    "  --max-reps R      the noise criterion's cap on runs per evaluation (10 x --reps)\n" \
    "  --final-reps R    runs of the best input at the end (30)\n" \
    "  --keep N          also save the N longest-running distinct inputs measured, each\n" \
    "                    re-measured --final-reps times, under top/ (default 1: best/ only)\n" \
    "  --jobs N          sim: inputs measured at once, on N threads (default: one per core);\n" \
    "                    the run is the same for every N; --sim-noise measures one at a\n" \
    "                    time; cuda: one at a time unless N > 1, then one thread per device\n" \
    "                    from --device on, at most N (a GPU measures one input at a time);\n" \
    "                    warp refinement measures on N sim threads, at most 8 (cuda: every\n" \
    "                    core, at most 8)\n" \
    "symbolic stage (gdivan):\n" \
    "  --explore-time S  budget of the symbolic stage (60); when it is spent the paths\n" \
    "                    found depend on the machine's speed: see --explore-paths\n" \
    "  --explore-paths N paths per X before the symbolic stage stops (2000): a budget\n" \
    "                    that does not depend on the machine, for reproducible runs\n" \
    "                    (with --explore-saturation 0: saturation is timed)\n" \
    "  --explore-saturation S  each X of the symbolic stage stops once it has found\n" \
    "                    nothing new (a branch leg, a path longer in warp instructions\n" \
    "                    or more divergent) for as long as its last find took, and at\n" \
    "                    least S seconds (default 2; 0: only the budgets stop it, as\n" \
    "                    compare's gdivan-paper does); as explore --saturation\n" \
    "  --threads X       one X instead of the spec's sequence; also random-ga's gene size\n" \
    "  --max-iter N      symbolic loop bound (the spec's, else 16)\n" \
    "  --models K        atoms per path (4)\n" \
    "  --order O         the symbolic stage's order once no pending state takes an\n" \
    "                    uncovered leg: random (default) or time (longest first;\n" \
    "                    as explore --order)\n" \
    "  --families N      the N warp-richest paths get a family of up to 64 siblings that\n" \
    "                    vary the last thread's inputs only, laid out one per gene (2; 0: none)\n" \
    "  --no-cache        explore again even if a cached result exists\n" \
    "  --results DIR     base directory of results (default: results)\n"

/* 1: consumed, 0: not a search option, -1: bad value. */
int cli_hunt_option(hunt_options *h, int c, const char *arg, wh_error *err);

/* A command's own options: 1 consumed, 0 unknown, -1 bad (err filled). */
typedef int (*cli_own_option_fn)(void *ctx, int c, const char *arg, wh_error *err);

/* Parse the argv of a search command (`hunt`, `compare`): the search
 * options, the run options, and the command's own through `own`; then load
 * SPEC (the one operand) and install the Ctrl-C handler.  Returns -1 when
 * the command should go on with *spec, else the exit status to return
 * (0 after --help).  On -1, ho->argv holds the command as typed (for
 * run.json): release it with cli_search_free. */
int cli_parse_search(int argc, char **argv, const struct option *longs, cli_own_option_fn own, void *ctx,
                     void (*usage)(FILE *out), hunt_options *ho, cli_run_options *ro, wh_spec **spec);
void cli_search_free(hunt_options *ho);

/* Under mpirun (ga/islands.h): join the run's islands, point ho at them,
 * and make every island but 0 quiet (it neither prints nor writes the
 * command's own summaries).  *islands is NULL without mpirun; false (err
 * filled) when the job cannot be joined. */
struct wh_islands;
bool cli_join_islands(hunt_options *ho, cli_run_options *ro, struct wh_islands **islands, wh_error *err);
/* The islands' end after a failed run: say so and end every island
 * (MPI_Abort), since the others would wait for this one at their next
 * exchange. */
_Noreturn void cli_abort_islands(struct wh_islands *islands, wh_error *err);

#endif
