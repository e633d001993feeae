/*
 * internal.h — what the files of gen/ share and nobody else needs.
 */
#ifndef WH_GEN_INTERNAL_H
#define WH_GEN_INTERNAL_H

#include "gen/explore.h"
#include "harness/harness.h"
#include "symexec/symexec.h"

typedef struct {
    int func, block;
    bool taken;
} gen_branch;

typedef struct {
    gen_branch *b;
    int n, cap;
} gen_trace_thread;

typedef struct {
    gen_trace_thread *threads;
    int nthreads;
    int keep;       /* branches stored per thread; later ones are only counted */
    bool oom;
} gen_trace;

/* An owner by rows (WH_OWNER_ROWS, scale.c): the row lengths whose
 * running sum owns buffer p's elements (-1: p is not owned so); and an
 * atom's rows from its lengths `lens`: start[r] is row r's first element,
 * start[n] the end of the last, for the n = gen_atom_nrows rows an atom
 * has (X, one a thread or warp, rows past its warps empty; through an
 * index, every row of its lengths; ref: the pool's X-thread image). */
int gen_rows_lengths(const wh_spec *spec, int p);
/* Which pass places buffer p's elements: what owns the elements of later
 * ones is read from the buffers of earlier ones: indices and every other
 * buffer first (0), then what an index owns (1: row lengths through an
 * index), then buffers owned by rows (2: placed by the lengths). */
int gen_owner_pass(const wh_param *par);
uint64_t gen_atom_nrows(const wh_image *ref, int p);
/* The row pointers of img's buffers owned by rows, made the running sums
 * of their lengths (only them: the image's other projections wait until
 * the rows are filled, since some read them, as "shortest_paths" reads
 * the edges). */
bool gen_rebuild_rows(wh_image *img, wh_error *err);
bool gen_atom_rows(const wh_image *ref, int p, const unsigned char *lens, uint64_t *start, wh_error *err);
/* Under an owner through an index (WH_OWNER_INDEX, rows "through"): the
 * element (row) of buffer p that element j of atom thread t names in the
 * atom's index bytes.  An atom read back from a full input keeps the full
 * input's index values, which may pass its own buffer: the k-th slot whose
 * value does takes the k-th element no value inside names, so that no two
 * threads share one while the values inside are distinct (UINT64_MAX:
 * none). */
uint64_t gen_atom_indexed(const wh_image *ref, int p, const unsigned char *index, uint64_t t, uint64_t j);
/* Element j of atom thread t's row entries under those starts (by warp,
 * its lane's of its warp's row; through an index, of the row `index`
 * names; UINT64_MAX: none). */
uint64_t gen_atom_row_elem(const wh_image *ref, int p, const uint64_t *start, const unsigned char *index, uint64_t t,
                           uint64_t j);

/* A sim harness for X threads that records every thread's branches. */
typedef struct {
    harness *h;
    gen_trace trace;
} gen_validator;

bool gen_validator_open(gen_validator *v, const wh_spec *spec, int x, wh_error *err);
void gen_validator_close(gen_validator *v);
/* Replay `atom` (an X-thread image) and compare with path p's decisions.
 * A replay that does not finish within GEN_VALIDATE_STEP_LIMIT warp
 * instructions sets *hung (and the atom is invalid). */
bool gen_validate_atom(gen_validator *v, const ptx_module *mod, const sx_path *p, wh_image *atom, bool *valid,
                       bool *hung, wh_error *err);

/* Families of siblings (family.c) for up to npaths paths of the kept
 * exploration sx, until `deadline`; v replays them (NULL: not replayed). */
/* issues.c: replay every issue's triggering input on the sim with X
 * threads and save it under dir/issue-K-STATUS/; how many faulted or hung
 * (-1, err: the sim cannot run the kernel). */
int gen_replay_issues(const wh_spec *spec, const sx_result *sx, const char *dir, bool quiet, wh_error *err);

bool gen_make_families(gen_result *r, sx_result *sx, const ptx_module *mod, gen_validator *v, int npaths,
                       double deadline, bool quiet, wh_error *err);
/* Recount r->families, family_atoms and family_valid from the pool. */
void gen_count_families(gen_result *r);

/* paths.json: writing from a live exploration (each atom's id and
 * validity, not its values: atoms.bin has them), reading back from a
 * cache; with keep, the document stays in r->doc. */
bool gen_paths_json_write(gen_result *r, const sx_result *sx, const ptx_module *mod, const char *path, bool keep,
                          wh_error *err);
bool gen_paths_json_read(gen_result *r, const char *path, bool keep, wh_error *err);

/* Warp-first units (refine.c): a quiet sim for them, and a unit's cycles
 * (0 when it faults or hangs). */
harness *gen_unit_harness(const wh_spec *spec, wh_error *err);
uint64_t gen_unit_cycles(harness *sim, wh_image *img);
uint64_t gen_unit_work(harness *sim, wh_image *img, uint64_t *lanes);
/* A shared input buffer (no owner) as long in the unit `cell` as in the
 * launch of `full`'s size (a tree, a table of constants): refined whole,
 * and copied whole (a shared buffer whose size follows the thread count is
 * not). */
bool gen_shared_refinable(const wh_image *cell, const wh_image *full, int p);
/* Element refinement of the unit `img` (measured on `sim`) by coordinate
 * ascent, in o->refine_launches launches at most and GEN_WARP_REFINE_S
 * seconds, on o->refine_threads threads, drawing from the kernel's
 * constants when o->dictionary; cur: the composed unit's cycles.  Returns
 * the refined unit's cycles (0: it faults, could not be measured, or err
 * is set: the PTX could not be read again for its constants); img holds
 * it; rep's refinement counts are set. */
uint64_t gen_refine_unit(const wh_spec *spec, wh_image *img, harness *sim, const wh_image *full,
                         const gen_warp_options *o, pcg32 *rng, uint64_t cur, gen_warp_report *rep, wh_error *err);

#endif
