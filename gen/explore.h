/*
 * explore.h — the generator block's front half: from a kernel to atoms.
 *
 * Deepening: the symbolic executor runs for X = 2, 3, 4, ... (the spec's
 * `symbolic.threads`, or one X given) until every conditional-branch leg is
 * covered or the time budget is spent.  The paths of the largest X whose
 * exploration finished are kept (an exploration cut short by the budget is
 * kept only if no X finished).  Each finished or loop-cut path yields up to
 * K atoms (a cut path's atom must replay its decisions as a prefix):
 * models of its formula, made diverse by seeds that steer the solver to
 * random points of the domains, duplicates dropped.  Every atom is replayed
 * on the sim backend with X threads; an atom whose branch decisions differ
 * from its path's (approximate floats, modelling gaps) is kept but marked
 * invalid, and never used as an allele.  A replay stops after
 * GEN_VALIDATE_STEP_LIMIT warp instructions: an atom that runs longer (a
 * loop the input never lets end) is invalid too, counted as a hang
 * candidate and reported.
 *
 * Results are written under <cache_dir>/<key>/ (paths.json + atoms.bin),
 * keyed by the PTX bytes, the spec file and the options; with `reuse`, an
 * existing entry is loaded instead of exploring again: a hunt reuses the
 * exploration of an earlier explore or hunt and says so.
 */
#ifndef WH_GEN_EXPLORE_H
#define WH_GEN_EXPLORE_H

#include "gen/gen.h"
#include "ptx/ptx.h"
#include "symexec/symexec.h"

/* Warp instructions a replay of X threads may take (a second or two on
 * the sim; a single warp running longer is a hang for practical purposes). */
#define GEN_VALIDATE_STEP_LIMIT 20000000ULL

/* The time budget bounds the whole stage: the symbolic search gets this
 * share of it, atom solving and replay what is left (at least the rest);
 * no solver check for an atom runs longer than GEN_MODEL_QUERY_MS. */
#define GEN_SEARCH_SHARE 0.75
#define GEN_MODEL_QUERY_MS 5000u
/* Paths that still get their first atom (their final state's model, no solver
 * check) when the search has spent the stage's budget. */
#define GEN_LATE_FIRST_ATOMS 64
/* paths.json is written within the budget too: atoms stop early by what
 * writing it will take, its formulas' and atoms' bytes at this rate
 * (hash_lookup's 45 MB took 0.9 s to build and write on the development
 * machine, 50 MB/s; the rate assumed is lower, for slower machines). */
#define GEN_WRITE_BYTES_PER_S 40e6

/* The command line's saturation (gen_explore_options.saturation_s): seconds
 * without a new leg or a longer or more divergent path after which an X
 * stops, at least (and never sooner than the time it took to find the
 * last new thing).  Measured on the corpus: bench/stage_saturation.md. */
#define GEN_SATURATION_S 2.0

typedef struct {
    int threads;            /* one X; 0: the spec's sequence */
    int max_iter;           /* loop bound; 0: the spec's, else the symexec default */
    double time_s;          /* budget for all X together; 0: 60 s */
    int path_budget;        /* per X; 0: 2000 */
    int models;             /* atoms per path (K); 0: 4 */
    int families;           /* paths that get a family of siblings (family.c); 0: none */
    unsigned query_ms;      /* the search's per-check solver limit; 0: SX_DEFAULT_QUERY_MS */
    unsigned solver_mb;     /* Z3's memory limit, MiB; 0: SX_DEFAULT_SOLVER_MB */
    sx_order order;         /* the search order after coverage (SX_ORDER_RANDOM by default) */
    double saturation_s;    /* each X stops once it finds nothing new (sx_options.saturation_s);
                               0 (the default here: runs that do not depend on the machine's
                               speed, as tests need): only the budgets stop it; the command
                               line's default is GEN_SATURATION_S */
    bool validate;          /* replay atoms on the sim backend */
    const char *cache_dir;  /* where paths.json and atoms.bin are written (required) */
    bool reuse;             /* load a matching earlier result instead of exploring */
    bool keep_doc;          /* keep paths.json's document in the result (doc) */
    bool quiet;             /* no progress on stderr */
    /* Called once when an exploration starts (not when the cache answers),
     * on the caller's thread: a hunt starts work for its idle cores. */
    void (*on_explore)(void *ctx);
    void *on_explore_ctx;
} gen_explore_options;

void gen_explore_options_default(gen_explore_options *o);

/* Statistics of one X of the deepening. */
typedef struct {
    int x;
    int paths, done, cut, error;
    int legs_total, legs_covered;
    bool budget_hit;
    bool path_cap;          /* the path budget stopped it (its paths are whole) */
    bool saturated;         /* it found nothing new for long enough (saturation_s) */
    double last_gain_s;     /* when it last found something new */
    double time_s;
} gen_xstat;

/* A symbolic path as the search sees it. */
typedef struct {
    int kind;               /* sx_path_kind: 0 done, 1 cut, 2 error */
    double brdiv;
    uint64_t instr, warp_instr;
    int intervals;
    bool uf;
    int first_atom, natoms, nvalid;  /* its atoms in the pool: [first, first+natoms) */
} gen_path;

typedef struct {
    const wh_spec *spec;
    int x;                  /* the X whose paths are kept */
    gen_xstat *xs; int nxs;
    gen_path *paths; int npaths;
    gen_pool pool;          /* atoms of the kept paths */
    int atoms_valid, atoms_invalid;
    int atoms_hung;         /* of the invalid: replays that hit GEN_VALIDATE_STEP_LIMIT */
    int paths_without_atoms;/* paths left without atoms when the budget ran out */
    int families;           /* families of siblings (after the path atoms in the pool) */
    int family_atoms, family_valid;
    bool validated;         /* atoms were replayed */
    int legs_total, legs_covered;
    char **uncovered; int nuncovered;   /* "line 42 taken" ... */
    double time_s;
    double atoms_s;         /* of it: atoms solved and replayed, families included */
    bool from_cache;
    char cache_key[17];
    char *paths_json;       /* path of the paths.json written, or NULL */
    /* With keep_doc: paths.json's document as written or read (a summary
     * needs it; reading back a large kernel's 47 MB took half a second
     * past the budget), owned; else NULL. */
    struct json_t *doc;
    /* Inputs of the stage's issues replayed on the sim (issues.c): the
     * directory holding issue-K-STATUS/ (NULL: no issue had an input), and
     * how many of them faulted or hung. */
    char *issues_dir;
    int issue_findings;
    /* Structured inputs whose structure the stage did not assume (more
     * than SX_STRUCTURE_MAX elements at X): names, comma separated, or NULL. */
    char *unassumed;
} gen_result;

gen_result *gen_explore(const wh_spec *spec, const ptx_module *mod, const gen_explore_options *opt,
                        wh_error *err);
/* The same, finding and parsing the spec's PTX itself (for callers that
 * should not know about PTX, such as the search). */
gen_result *gen_explore_spec(const wh_spec *spec, const gen_explore_options *opt, wh_error *err);
void gen_result_free(gen_result *r);
double gen_result_coverage(const gen_result *r);
/* paths.json of the result at `path`: a hard link to the cache entry's
 * file where the file system allows, else a copy. */
bool gen_result_write_paths(const gen_result *r, const char *path, wh_error *err);
/* paths.json with every atom's input values (from the pool) beside its id
 * and validity, as `explore` writes it: a file of its own, a value a
 * line (binary_search's: 450 MB). */
bool gen_result_write_paths_with_values(const gen_result *r, const char *path, wh_error *err);

/* Families (family.c): for the `families` (default GEN_FAMILY_PATHS)
 * paths with most warp-issued instructions, up to GEN_FAMILY_ATOMS siblings of the path's
 * first valid atom that vary thread X-1's inputs only (sx_path_siblings),
 * replayed like atoms, stored after the path atoms (origin
 * GEN_ATOM_FAMILY).  They get GEN_FAMILY_SHARE of the time the search
 * leaves to atoms, and whatever the atoms leave. */
#define GEN_FAMILY_PATHS 2
#define GEN_FAMILY_ATOMS 64
#define GEN_FAMILY_SHARE 0.4
/* The valid atoms of family f (0-based, pool order); returns how many
 * (-1: out of memory), *out malloc'ed. */
int gen_family_atoms(const gen_result *r, int family, int **out);

/* Alleles the search may use: the valid atoms of finished paths and
 * of families. */
int gen_valid_alleles(const gen_result *r, int **out);

/* Arrangements for the first population (each a vector of layout->ngenes
 * genes, malloc'ed; *count of them).  Made from valid atoms only:
 *   [0] the paper's special: the path with most instructions, then most
 *       divergence, in every gene;
 *   [1] the path with most warp-issued instructions in every gene;
 *   then each family, one sibling per gene in turn;
 *   [2] maximal mixing: consecutive genes cycle through distinct paths
 *       (most warp-issued first), so each warp holds as many as fit;
 *   then, alternately, each other path in every gene (up to
 *   GEN_MAX_UNIFORM_PATHS, most warp-issued first: counts are not time, so
 *   the first generation measures the uniform input of every path) and,
 *   when the layout has a tiling gene, the warp-richest uniform
 *   arrangement with each stride (smallest first).
 * All but the stride variants use plain tiling.  Fewer when there are
 * fewer distinct choices. */
#define GEN_MAX_UNIFORM_PATHS 64
int gen_arrangements(const gen_result *r, const gen_layout *layout, int ***out, wh_error *err);

/* Warp-first composition (warp.c): the genes of one unit of lcm(32, X)
 * threads chosen greedily on a launch of that unit on the sim, repeated
 * over `full`: one individual for the first population. */
#define GEN_WARP_CANDIDATES 48
/* The composed unit is kept when at least this much longer than the
 * uniform one (see warp.c). */
#define GEN_WARP_GAIN 1.02
/* Element refinement of the composed unit: values tried per element
 * besides the domain's two ends. */
#define GEN_WARP_REFINE_DRAWS 6
/* ... and it stops after this many launches without a gain, at least
 * (a whole pass's, and the launches its last gain took, if more;
 * refine.c); at most GEN_WARP_REFINE_S seconds whatever the budget. */
#define GEN_WARP_REFINE_QUIET 2000
#define GEN_WARP_REFINE_S 60.0
/* The command line's budget of refinement launches (hunt --warp-refine);
 * gen_warp_options_default and hunt_options_default leave it off. */
#define GEN_WARP_REFINE_LAUNCHES 50000
/* Seconds between refinement's progress lines (gen_warp_options.progress). */
#define GEN_WARP_PROGRESS_S 5.0
typedef struct {
    int candidates;          /* alleles tried per gene (GEN_WARP_CANDIDATES); 0: off */
    int passes;              /* over the genes (1) */
    double time_s;           /* bound on the whole composition (10); 0: none */
    long refine_launches;    /* then element refinement: its budget of unit launches
                                (at most GEN_WARP_REFINE_S); 0 (the default): none */
    bool dictionary;         /* refinement draws half its values from the kernel's
                                constants (gen_dictionary); false: uniform only */
    bool work_ties;          /* refinement also keeps a value that ties the unit's
                                cycles when its lanes do more work (lane
                                instructions); false: longer only */
    int refine_threads;      /* sim threads measuring an element's candidates at once
                                (the result is the same for any number); <= 1: one */
    bool progress;           /* a line on stderr every GEN_WARP_PROGRESS_S of refinement */
    uint64_t seed;           /* which candidates are drawn when there are more */
    /* Called with the full layout's genes of the composed unit when it is
     * kept and refinement is to follow (the caller may measure it before
     * refinement's launches); NULL: none. */
    void (*on_composed)(void *ctx, const int *genes);
    void *on_composed_ctx;
} gen_warp_options;

typedef struct {
    int unit_threads;        /* 0: not composed */
    long evaluations;        /* unit launches on the sim */
    double seconds;
    uint64_t uniform_cycles; /* the unit with one allele in every gene */
    uint64_t cycles;         /* the composed unit */
    bool budget_hit;
    bool kept;               /* it beat the uniform unit by GEN_WARP_GAIN */
    /* element refinement (warp.c): its launches and seconds, the refined
     * unit's cycles (0: not refined), and how many elements it changed */
    long refine_evaluations;
    double refine_seconds;
    int refine_threads;      /* threads it measured on */
    uint64_t refined_cycles;
    long refined_elements;
} gen_warp_report;

/* The kernel's constants (dictionary.c): every integer immediate of the
 * module's code with v - 1, v + 1 and -v, and every floating one, each
 * sorted and once; element refinement draws half its values from those in
 * an element's domain. */
typedef struct {
    int64_t *ints;
    int nints;
    double *floats;
    int nfloats;
} gen_dictionary;

bool gen_dictionary_build(const ptx_module *mod, gen_dictionary *d, wh_error *err);
/* The same from the spec's PTX file. */
bool gen_dictionary_for_spec(const wh_spec *spec, gen_dictionary *d, wh_error *err);
void gen_dictionary_free(gen_dictionary *d);
/* How many of its values lie in [lo, hi]; the first's index in *first. */
int gen_dictionary_ints_in(const gen_dictionary *d, int64_t lo, int64_t hi, int *first);
int gen_dictionary_floats_in(const gen_dictionary *d, double lo, double hi, int *first);

void gen_warp_options_default(gen_warp_options *o);
/* The full layout's genes (malloc'd), or NULL: with err set on an error,
 * else when there was nothing to compose (no candidate, a launch smaller
 * than the unit, every candidate faulting) or neither the composed unit
 * was kept (rep->kept) nor a refined one made.  cand[0..ncand): allele ids
 * (pool atoms, or gen_seeded_allele values).  With o->refine_launches and
 * `launch` (an image of the full launch: its buffers' sizes), *refined
 * (when not NULL) receives the unit's image after element refinement when
 * that made it longer than the composed unit by GEN_WARP_GAIN (the caller
 * frees it; gen_warp_tile lays it over the input the genes build), else
 * NULL.  The genes are the composed unit's, an individual only when
 * rep->kept. */
int *gen_warp_compose(const wh_spec *spec, const gen_pool *pool, const int *cand, int ncand, const gen_layout *full,
                      const gen_warp_options *o, gen_warp_report *rep, const wh_image *launch,
                      wh_image **refined, wh_error *err);
/* Whether input buffer p's elements are refined per thread: per-thread,
 * contiguous ownership, not structured as a whole.  (Shared input buffers
 * as long in the unit as in the launch are refined too, whole.) */
bool gen_warp_refinable(const wh_param *par);
/* `full` takes the unit's refinable values: thread t those of unit thread
 * t mod the unit's threads, a shared buffer of the unit's size the unit's
 * whole; running sums and structures are brought back
 * (wh_image_restructure); false (err) when a value is outside the
 * launch's domain. */
bool gen_warp_tile(const wh_image *unit, wh_image *full, wh_error *err);

/* Lane extension (extend.c): atom a holds one thread's input in every
 * thread (gen_thread_atom); the concolic extension (symexec.h, sx_extend)
 * asks, within time_s seconds, for the neighbour of that input that takes
 * the other side of one of its last branches (one more loop trip at a
 * loop's exit), and a new atom holds it in every thread: its index, -2 when
 * none was found, -1 on failure (err).  The extender holds the spec's
 * parsed PTX. */
typedef struct gen_extender gen_extender;
gen_extender *gen_extender_new(const wh_spec *spec, wh_error *err);
void gen_extender_free(gen_extender *x);
int gen_extend_atom(gen_extender *x, gen_pool *pool, int a, double time_s, wh_error *err);

#endif
