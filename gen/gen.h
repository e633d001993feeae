/*
 * gen.h — the generator block: input atoms and the scaler.
 *
 * An *atom* is a concrete input for X threads (an X-thread wh_image), solved
 * from a symbolic path or drawn at random.  A *gene* is the choice of one
 * atom for one group of X consecutive threads; the scaler tiles the chosen
 * atoms into a full-size input image: gene g covers global threads
 * [gX, gX+X), and the last gene is cut short when X does not divide N.
 * Input buffers that no thread owns (no `per_thread`: "shared") get one
 * extra gene of their own, after the thread genes.
 *
 * Values move from the atom to the full image as offsets from the low end
 * of their domain, then are clamped into the full domain: a field whose
 * range depends on the element index (`start` in ["i*8", "i*8"]) or on the
 * launch size (`edges` in [0, "threads-1"]) stays valid after scaling.  A
 * scaled image never violates a value domain.
 *
 * Stride tiling.  Plain tiling repeats an atom's values in every gene, so
 * it cannot build inputs whose cost is a relation *between* groups of
 * threads: keys that are all distinct but share a hash slot, indices that
 * touch a new sector in every lane, 32 different branch paths in a warp.
 * Those worst cases are strided: a layout may carry one more gene, the
 * *tiling gene*, whose value t >= 1 adds g * 2^(t-1) to every integer value
 * of the per-thread inputs of gene g (wrapping inside the field's domain,
 * so values stay distinct and valid); t = 0 is plain tiling.  The atom's
 * own relations between its X threads are kept; floats and unsliced
 * ("shared") inputs are never shifted.
 */
#ifndef WH_GEN_GEN_H
#define WH_GEN_GEN_H

#include "core/error.h"
#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"

#include <stdbool.h>

typedef enum {
    GEN_ATOM_RANDOM = 0,   /* drawn uniformly within the domains */
    GEN_ATOM_PATH,         /* a model of a symbolic path's formula */
    GEN_ATOM_FAMILY,       /* a sibling of a path's atom: one thread's inputs varied (explore.h) */
    GEN_ATOM_SEED          /* a thread group's slice of a user's input (gen_unscale) */
} gen_atom_origin;

/* Atoms are stored compactly (the pool may hold millions: random-value
 * genes are atoms too): one blob per atom holding its per-thread input
 * buffers back to back, and, apart, a blob of its shared inputs (those
 * without `per_thread`), which only the shared gene reads.  A random atom
 * drawn for a thread gene has no shared blob: on a kernel with a 128 KiB
 * shared table, a random-value individual of 8192 genes took 1 GiB
 * before.  `ref` is an X-thread image giving the layout and the value
 * domains of every atom. */
typedef struct {
    gen_atom_origin origin;
    int path;              /* GEN_ATOM_PATH: index of the path, else -1 */
    bool valid;            /* replay followed the path (always true for random) */
    int shared;            /* index of its shared blob, or -1: none */
} gen_atom;

typedef struct {
    const wh_spec *spec;
    int x;                 /* threads per gene */
    wh_image *ref;         /* X-thread image: layout and domains */
    size_t thread_bytes;   /* bytes of an atom's per-thread inputs */
    size_t shared_bytes;   /* bytes of its shared inputs */
    size_t *offset;        /* per parameter: its offset in its blob (inputs only) */
    gen_atom *atoms;
    unsigned char *data;   /* natoms blobs of thread_bytes */
    unsigned char *sdata;  /* nshared blobs of shared_bytes */
    int natoms, cap, nshared, scap;
    const wh_image *full;  /* the full launch, for random atoms' domains, or NULL */
    /* Random draws' domains of each input field whose domain does not
     * depend on the element: atom (ref) and source (full, else ref) bounds,
     * two per field from field_base[p].  Evaluating them per drawn gene
     * cost a fifth of a random-ga hunt at 2^18 threads. */
    wh_bounds *draw_bounds;
    int *field_base;
    bool *draw_cached;     /* per field: the bounds above hold */
} gen_pool;

/* Gene layout of a full launch for atoms of X threads: genes
 * [0, thread_genes) choose the atoms of consecutive thread groups, then
 * comes the shared gene (if any), then the tiling gene (if any). */
typedef struct {
    int x;
    uint64_t threads;      /* N */
    int thread_genes;      /* ceil(N / X) */
    bool has_shared;       /* an extra gene for unsliced inputs */
    int tiling_gene;       /* index of the tiling gene, or -1: plain tiling */
    int ntilings;          /* values of the tiling gene (1 when there is none) */
    int ngenes;            /* thread_genes + has_shared + (tiling_gene >= 0) */
} gen_layout;

/* A plain layout (no tiling gene). */
bool gen_layout_make(const wh_spec *spec, const wh_launch *full, int x, gen_layout *out, wh_error *err);
/* Adds the tiling gene, with one value per power of two below the widest
 * integer domain of a per-thread input of `full`; no gene is added when
 * there is no such input.  Returns lay->ntilings. */
int gen_layout_add_tiling(gen_layout *lay, const wh_image *full, wh_error *err);
/* The stride a tiling gene value stands for (0 for plain tiling). */
uint64_t gen_tiling_stride(int tiling);

bool gen_pool_init(gen_pool *pool, const wh_spec *spec, int x, wh_error *err);
void gen_pool_free(gen_pool *pool);
/* Copies the input buffers of img (an X-thread image), shared ones
 * included; returns the index or -1. */
int gen_pool_add(gen_pool *pool, const wh_image *img, gen_atom_origin origin, int path, bool valid,
                 wh_error *err);
/* Adds an atom drawn at random within the domains, with a shared blob when
 * `with_shared` (for the shared gene); returns its index or -1.
 * With a full launch set (gen_pool_set_full), each value is drawn across
 * the full launch's domain of its element, not the X-thread one: a range
 * such as [0, threads-1] spans N values, not X.  (The atom then holds
 * values outside its X-thread domain, as offsets gen_scale moves.) */
int gen_pool_add_random(gen_pool *pool, pcg32 *rng, bool with_shared, wh_error *err);
void gen_pool_set_full(gen_pool *pool, const wh_image *full);
/* Seeded random alleles.  A random-value gene need not be stored: an
 * allele id below 0 names the random atom drawn from a 31-bit seed, as
 * gen_pool_add_random draws one (across the full launch's domains), and
 * the scaler draws its values when it needs them.  A population of
 * random-value genes then costs 4 bytes a gene, not an atom a gene (at
 * 2^18 threads random-ga's pool grew to gigabytes).  Each input parameter
 * has a stream of its own, so one can be drawn without the others. */
int gen_seeded_allele(uint32_t seed);
/* Draw input parameter p of seeded allele `allele` (< 0) into dst, laid
 * out as the X-thread reference image's buffer p. */
bool gen_pool_draw_seeded(const gen_pool *pool, int allele, int p, unsigned char *dst, wh_error *err);
/* The bytes of input parameter p in atom a (NULL for non-inputs, and for
 * shared inputs of an atom without a shared blob). */
const unsigned char *gen_pool_atom_data(const gen_pool *pool, int a, int p);
/* A new atom whose bytes the caller fills (gen_pool_atom_data), for
 * loaders; with a shared blob when with_shared.  Its index, or -1. */
int gen_pool_reserve(gen_pool *pool, gen_atom_origin origin, int path, bool valid, bool with_shared,
                     wh_error *err);
/* Removes the atom added last (and its shared blob). */
void gen_pool_drop_last(gen_pool *pool);
/* Do atoms a and b hold the same inputs? */
bool gen_pool_same(const gen_pool *pool, int a, int b);
/* Writes atom a's inputs into an X-thread image of the pool's spec (shared
 * inputs it has no blob for: the low end of their domains). */
void gen_pool_atom_to_image(const gen_pool *pool, int a, wh_image *img);

/* The pool in one binary file, and back: a resumed hunt needs every atom
 * its population refers to.  from = 0 writes a fresh file atomically;
 * from > 0 appends the atoms [from, natoms) to a file holding [0, from).
 * Loading checks X and atom size and ignores a torn last record. */
bool gen_pool_save(const gen_pool *pool, const char *path, int from, wh_error *err);
bool gen_pool_load(gen_pool *pool, const char *path, wh_error *err);

/* Fill the input buffers of `full` from the genes[0..ngenes) of `layout`
 * (atom ids or seeded alleles, then the tiling).  Non-input buffers are left as they are;
 * shared inputs take the low end of their domains when the shared gene's
 * atom has no shared blob (a random atom drawn for a thread gene that a
 * mutation carried there). */
bool gen_scale(const gen_pool *pool, const gen_layout *layout, const int *genes, wh_image *full,
               wh_error *err);

/* The reverse of gen_scale, for an input the user gives (hunt
 * --seed-inputs): genes[0..lay->ngenes) receive new GEN_ATOM_SEED atoms,
 * one per thread group holding its slice of `full`, one for the shared
 * gene holding the first X-thread elements of each shared input, and
 * plain tiling.  Values travel as offsets from the low end of each
 * element's domain, as in gen_scale, and keep offsets beyond the X-thread
 * domain, so gen_scale gives `full` back exactly unless a shared input is
 * not a repetition of its first elements (gen_scale repeats them) or an
 * offset does not fit the field's type: the caller compares. */
bool gen_unscale(gen_pool *pool, const gen_layout *lay, const wh_image *full, int *genes, wh_error *err);
/* A new GEN_ATOM_SEED atom whose every thread holds what `thread` of
 * `full` holds of each per-thread input (as gen_unscale moves values);
 * shared inputs: none.  Genes all on it give that thread's input to every
 * thread of the launch.  The atom's index, -1 on failure (err). */
int gen_thread_atom(gen_pool *pool, const gen_layout *lay, const wh_image *full, uint64_t thread, wh_error *err);

/* Value edits (edit.c): an operator applied to the full-size image after
 * scaling, stating a relation the atoms cannot: every element of a run set
 * to its first value (fill-copy) or to its domain's low or high end, the
 * run sorted up or down or reversed, a ramp of distinct values from one
 * end of the domain, or the first lane's elements copied across each warp
 * (an owner's `per_thread` elements; single elements for shared inputs),
 * or values drawn from a searched shape (gen_shape, below).  Two more
 * kinds, contend-min and contend-max, are screen-only (random codes never
 * draw them) and write several buffers at once: the contention worst case
 * of a relaxation (`if (x < B[A[e]]) atomicMin(&B[A[e]], x)`) over an
 * index buffer A into the edited buffer B -- every index of A at 0, B's
 * values falling to its low end along the buffer (rising to its high end
 * for max), the element they point at at B's high end (low for max), and
 * each buffer parallel to A (same count and ownership) falling (rising) by
 * owned index, a thread's loop order, in steps of width / per_thread;
 * they apply after every other edit.  An index buffer is another input
 * buffer's integer field whose range is exactly [0, count - 1] of B's.
 * The run is
 * the whole buffer, whole warps' elements, or any run.  An edit is named
 * by a code (0: none; any other 31-bit value draws the buffer, field, run
 * and operator from a PCG32 stream it seeds; a code with bit 31 set names
 * a field and a kind on the whole buffer: the screen's), so a gene can
 * hold it.  Written values are clamped into each element's domain; fields
 * whose domain is a single value are never chosen. */
typedef enum {
    GEN_EDIT_NONE = 0, GEN_EDIT_FILL_COPY, GEN_EDIT_FILL_LOW, GEN_EDIT_FILL_HIGH, GEN_EDIT_SORT_UP,
    GEN_EDIT_SORT_DOWN, GEN_EDIT_RAMP_UP, GEN_EDIT_RAMP_DOWN, GEN_EDIT_REVERSE, GEN_EDIT_WARP_COPY,
    GEN_EDIT_SHAPE, GEN_EDIT_CONTEND_MIN, GEN_EDIT_CONTEND_MAX, GEN_EDIT_TREE_CHAIN, GEN_EDIT_TREE_COMPLETE,
    GEN_EDIT_ENDS,  /* the screen's with `ends` only: its variant in slot (gen_ends_variant) */
    GEN_EDIT_KINDS  /* at most 16: a screen code holds a kind in 4 bits */
} gen_edit_kind;

/* The ends edit's variants: every element one step in from the top (from
 * the bottom) of its own domain (parent[v] in [0, v] becomes v - 1: a
 * chain), or the run's first element at its top (bottom) and the rest at
 * the other end (one walker on a long path, the others idle). */
typedef enum {
    GEN_ENDS_BELOW_HIGH, GEN_ENDS_ABOVE_LOW, GEN_ENDS_ONE_HIGH, GEN_ENDS_ONE_LOW, GEN_ENDS_VARIANTS
} gen_ends_variant;
/* Random codes draw kinds below this one (the run operators). */
#define GEN_EDIT_RUN_KINDS GEN_EDIT_CONTEND_MIN

typedef struct {
    gen_edit_kind kind;
    int param, field;
    uint64_t first, count;  /* the run, in elements (contend kinds: of the index buffer) */
    uint32_t shape;         /* GEN_EDIT_SHAPE: the code its family and
                               parameters are drawn from (0: the screen's) */
    int index_param, index_field;  /* contend kinds: the index buffer's field */
    int slot;               /* GEN_EDIT_TREE_CHAIN: the child field (its ordinal
                               in the tree's) that links the chain's internal nodes;
                               GEN_EDIT_ENDS: its gen_ends_variant */
} gen_edit;

/* A shape edit's distribution of values over the run (edit.c), as a
 * fraction of each element's domain: a CSR matrix's row lengths or a
 * graph's degrees (the summands of a running sum) drawn from a family
 * whose skew is itself searched.  SKEW: u^alpha for uniform u (alpha
 * log-uniform in [1/16, 16]: above 1 most rows short and a few long,
 * below 1 most rows long but unequal); HEAVY_LANES: `lanes` evenly
 * spaced lanes of every warp from `offset` at the top, the others at the
 * bottom (a warp waits for its longest row); HUBS: each element at the
 * top with probability `share`, else the bottom (a few hubs). */
typedef enum { GEN_SHAPE_SKEW, GEN_SHAPE_HEAVY_LANES, GEN_SHAPE_HUBS, GEN_SHAPE_FAMILIES } gen_shape_family;

typedef struct {
    gen_shape_family family;
    double alpha, share;
    int lanes, offset;
} gen_shape;

/* The shape a shape edit draws (the screen's: one heavy lane per warp,
 * and on the summands of a running sum the skew at its high end). */
void gen_shape_of(const gen_edit *e, gen_shape *out);

const char *gen_edit_kind_name(gen_edit_kind k);
/* The edit a code names on images of full's layout. */
void gen_edit_decode(const wh_image *full, uint32_t code, gen_edit *out);
bool gen_edit_apply(const gen_edit *e, wh_image *full, wh_error *err);
/* Decode and apply codes[0..n) in order (0s are skipped), contend kinds
 * after all others. */
bool gen_edits_apply(const int *codes, int n, wh_image *full, wh_error *err);
/* The screen's codes (bit GEN_EDIT_SCREEN_BIT set; random codes leave it
 * clear): every kind on the whole buffer of every editable field (the ends
 * kind's four variants only with `ends` and only when every one of them
 * fits within max, last; contend
 * kinds once per index buffer into the field; the tree kinds, on a "tree"
 * buffer's first child field only, the chain once per child field that can
 * link it: a whole tree of that shape; shapes twice on the summands of a
 * running sum), kinds outermost with the
 * domain extremes first, then contention; groups[i] is codes[i]'s field
 * (its ordinal; a contend code's is the field's ordinal plus the number
 * of editable fields, so it goes to another gene than the field's own).
 * Writes at most max; returns how many. */
#define GEN_EDIT_SCREEN_BIT 0x80000000u
int gen_edit_screen(const wh_image *full, bool ends, int *codes, int *groups, int max);
/* "fill-copy edges[0..262144)" */
void gen_edit_describe(const gen_edit *e, const wh_image *full, char *buf, size_t size);

#endif
