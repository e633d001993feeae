/*
 * spec.h — the kernel spec: what warphunt must know that the PTX does not say.
 *
 * A spec (kernels/NAME.json, format in README.md) names the PTX entry, the
 * launch shape, and every kernel parameter in order: buffers with their
 * element type (a scalar type or a struct of fields), element count, role
 * (input / output / fixed), the slice each thread owns, and value domains;
 * scalars with their value; then, optionally, module variables (`__device__`
 * and `__constant__` globals) the kernel reads or writes, as buffers.
 * Counts, values and integer range bounds are
 * expressions (core/expr.h) evaluated for a given launch: the full one, or
 * the one-block X-thread launch of the symbolic stage.
 */
#ifndef WH_CORE_SPEC_H
#define WH_CORE_SPEC_H

#include "core/error.h"
#include "core/expr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    WH_I8, WH_U8, WH_I16, WH_U16, WH_I32, WH_U32, WH_I64, WH_U64, WH_F32, WH_F64,
    WH_STRUCT
} wh_type;

typedef enum { WH_BUFFER, WH_SCALAR } wh_param_kind;
typedef enum { WH_ROLE_NONE, WH_ROLE_INPUT, WH_ROLE_OUTPUT, WH_ROLE_FIXED } wh_role;
typedef enum { WH_INIT_ZERO, WH_INIT_IOTA, WH_INIT_CONST, WH_INIT_FILE } wh_init_kind;
/* How `measure --check` compares an output buffer of two runs: element by
 * element, as multisets of elements (the same values, any order: e.g. a
 * hash table filled in the order the atomics are served), or not at all. */
typedef enum { WH_CHECK_EXACT, WH_CHECK_MULTISET, WH_CHECK_NONE } wh_check;
/* A constraint on an input buffer as a whole, beyond each element's range
 * (README, "Structured inputs"): what a sorted key array, a permutation or
 * a CSR row pointer must be for the kernel to mean anything.  Integer
 * elements, except `sorted`, which takes floats too. */
typedef enum {
    WH_STRUCTURE_NONE,
    WH_STRUCTURE_SORTED,          /* non-decreasing */
    WH_STRUCTURE_STRICTLY_SORTED, /* increasing */
    WH_STRUCTURE_DISTINCT,        /* no value twice, in any order */
    WH_STRUCTURE_PERMUTATION,     /* every value of the range once: count == hi - lo + 1 */
    WH_STRUCTURE_OFFSETS,         /* non-decreasing from the range's lo to its hi (CSR row pointers) */
    WH_STRUCTURE_NEIGHBORS,       /* per-thread: no element is its owner thread's own index (an
                                     atom's neighbour list never names the atom) */
    WH_STRUCTURE_FOREST           /* element v names its parent, a root itself, with no cycle (a
                                     union-find's parents in any layout) */
} wh_structure;
#define WH_STRUCTURE_LAST WH_STRUCTURE_FOREST
/* Which elements of an input buffer with `per_thread` k each thread owns
 * (README, "Ownership"): a slice of k neighbours (thread t: t*k ..
 * t*k+k-1), every threads-th element (a grid-stride loop: t, t + threads,
 * ...), or every block-th element of its block's k*block elements (a
 * block-stride loop: thread i of block b reads b*k*block + i, + block,
 * ...).  WH_OWNER_ROWS depends on the data: thread t owns the entries of
 * row t of a running sum of row lengths (at most k of them; by warp,
 * lane l of warp w owns row w's entries l, l + 32, ...; through an
 * index, row index[t]'s), and WH_OWNER_INDEX, thread t owning the
 * element its element of an index buffer names (x[index[t]]): only an
 * image can say which (wh_image_owned_elem); without one they count as k
 * elements a thread (wh_owned_total). */
typedef enum { WH_OWNER_CONTIGUOUS, WH_OWNER_STRIDE, WH_OWNER_BLOCK_STRIDE, WH_OWNER_WARP_STRIDE,
               WH_OWNER_WARP, WH_OWNER_ROWS, WH_OWNER_INDEX } wh_owner;
#define WH_OWNER_LAST WH_OWNER_WARP_STRIDE   /* the "owner" names; WH_OWNER_WARP comes from "per_warp",
                                                WH_OWNER_ROWS from { "rows": ... }, WH_OWNER_INDEX
                                                from { "index": ... } */

/* A tree stored in a struct buffer (README, "Trees"): element i is a
 * node, a leaf when its `leaf` field is above 0, else an internal node
 * whose `children` fields name its children; every node has at most one
 * parent, the root (element 0) none, and a child comes after its parent
 * (so the links make no cycle and no shared subtree: a BVH, a k-d tree, a
 * decision tree in an array). */
#define WH_TREE_MAX_CHILDREN 8
/* "nearest_of": the most fields (coordinates) a position may have. */
#define WH_NEAREST_MAX_DIMS 8
typedef struct {
    int children[WH_TREE_MAX_CHILDREN];   /* field indexes */
    int nchildren;
    int leaf;                              /* field index */
} wh_tree;

/* An open-addressing hash table with linear probing stored in an input
 * buffer (README, "Hash tables"): slot i holds a key or the empty marker;
 * a key's home slot is its hash modulo the slots, and lookups walk from
 * there to the next slot, and on, until the key, an empty slot or
 * max_probes slots.  A table as an insert builds it: every key at most
 * max_probes - 1 slots after its home (cyclically), every slot between its
 * home and it occupied, no key twice, at most max_keys keys.  Keys are
 * 32-bit integers (an element, or one field of a struct slot). */
typedef enum { WH_HASH_IDENTITY, WH_HASH_FMIX32 } wh_key_hash;
#define WH_KEY_HASH_LAST WH_HASH_FMIX32
typedef struct {
    int key;                /* field index of the key (0 for a plain buffer) */
    wh_key_hash hash;
    int64_t empty;          /* the empty slot's marker */
    wh_expr *max_probes;    /* NULL: as many as the slots */
    wh_expr *max_keys;      /* NULL: as many as the slots */
} wh_hash_table;

/* A texture object parameter (README, "Textures"): a buffer of texels the
 * kernel reads through `tex` with a cudaTextureObject_t, whose value the
 * backend makes.  Its elements are the texels in x-fastest order; the
 * element type is one integer or f32 type of 8, 16 or 32 bits, or a struct
 * of 1, 2 or 4 fields of one such type (the channels). */
typedef enum { WH_TEX_CLAMP, WH_TEX_BORDER, WH_TEX_WRAP, WH_TEX_MIRROR } wh_tex_address;
#define WH_TEX_ADDRESS_LAST WH_TEX_MIRROR
typedef struct {
    int ndims;                  /* 1, 2 or 3 */
    wh_expr *dims[3];           /* width, height, depth (texels) */
    bool linear_memory;         /* 1-D over linear memory (tex1Dfetch), else a CUDA array */
    wh_tex_address address[3];  /* per dimension */
    bool filter_linear;         /* else point sampling */
    bool normalized_coords;
    bool read_normalized;       /* 8/16-bit integers read as floats in [0, 1] or [-1, 1] */
    bool surface;               /* a surface object (suld/sust: read and written), a CUDA array */
    bool gather;                /* a 2-D CUDA array made for tld4 (tex2Dgather: cudaArrayTextureGather) */
    wh_expr *layers;            /* a layered texture's layers (of a cubemap: of 6 faces each), else NULL */
    bool cube;                  /* a cubemap: 6 square faces of dims[0] x dims[1] texels */
    int levels;                 /* a mipmapped array's levels (level k: max(1, dim >> k)), else 1 */
    bool mip_linear;            /* mipmap filter: between the two nearest levels, else the nearest */
} wh_texture;
#define WH_TEX_MAX_LEVELS 16

/* A tensor map parameter (README, "Tensor maps"): a __grid_constant__
 * CUtensorMap (128 bytes by value) that the kernel's cp.async.bulk.tensor
 * copies move boxes of a tensor through.  Its elements are the tensor's,
 * dimension 0 fastest, packed (each row of dimension 0 a multiple of 16
 * bytes); the backend encodes the map (cuda: cuTensorMapEncodeTiled). */
typedef enum { WH_SWIZZLE_NONE, WH_SWIZZLE_32B, WH_SWIZZLE_64B, WH_SWIZZLE_128B } wh_swizzle;
#define WH_SWIZZLE_LAST WH_SWIZZLE_128B
#define WH_TMAP_MAX_RANK 5
#define WH_TMAP_MAX_BOX 256
#define WH_TMAP_MAX_BOX_BYTES (227u * 1024u)   /* the most shared memory a block gets (sm_90) */
typedef struct {
    int rank;                           /* 1..5 */
    wh_expr *dims[WH_TMAP_MAX_RANK];    /* elements per dimension, dimension 0 fastest */
    int box[WH_TMAP_MAX_RANK];          /* the box a copy moves: 1..256 elements each */
    wh_swizzle swizzle;                 /* the box's layout in shared memory */
    bool oob_nan;                       /* elements outside the tensor read NaN (floats), else 0 */
} wh_tensor_map;

/* A buffer of distances that is a state of shortest-path relaxation on a
 * CSR graph (README, "Structured inputs"): Bellman-Ford's, or a BFS's with
 * unit weights, from one source, with the frontier (worklist) of nodes
 * lowered and not yet relaxed.  Parameter indexes plus one (0: none). */
typedef struct {
    int rows;       /* the row pointer: node u's out-edges (a running sum of degrees, or offsets) */
    int edges;      /* each edge's target node */
    int weights;    /* each edge's weight, 0: every edge weighs 1 */
    int frontier;   /* per node: nonzero when in the frontier, 0: no frontier buffer */
} wh_paths;

/* Variable indices of spec expressions; constants follow from WH_VAR_CONST0. */
enum { WH_VAR_THREADS, WH_VAR_BLOCKS, WH_VAR_BLOCK, WH_VAR_I, WH_VAR_CONST0 };

/* One scalar field of an element.  A non-struct element is one field named
 * "" at offset 0, so ranges are handled the same way for both. */
typedef struct {
    char *name;
    wh_type type;           /* never WH_STRUCT */
    size_t offset;
    bool has_range;
    wh_expr *lo, *hi;       /* integer types: inclusive bounds, may use `i` */
    wh_expr *step;          /* "step": values are lo + k*step (an integer expression without
                               `i`), NULL: every value of the range */
    double flo, fhi;        /* float types */
    wh_expr *value;         /* a struct scalar's integer field */
    double fvalue;          /* a struct scalar's float field */
    int prefix_of;          /* "prefix_sum_of": 1 + the sibling field whose running sum
                               this field is (README, "Running sums"), 0: none */
    int array_index, array_len;  /* element k of an array field of n ("keys[k]"); 0, 1 otherwise */
    wh_structure structure; /* an array field's: sorted, strictly sorted or distinct within
                               each element of the buffer (a tree node's keys), on every one
                               of its element fields */
} wh_field;

typedef struct {
    char *name;
    wh_param_kind kind;
    wh_role role;           /* WH_ROLE_NONE for scalars, WH_ROLE_INPUT for searched
                               ones (a "range" instead of a "value": one element) */
    wh_type type;           /* WH_STRUCT when fields are named */
    wh_field *fields;
    int nfields;
    size_t elem_size, elem_align;
    wh_expr *count;         /* buffers */
    int64_t per_thread;     /* input buffers: 0 means shared (no owner); under WH_OWNER_WARP
                               ("per_warp": k), the elements each warp owns */
    wh_owner owner;         /* with per_thread: which elements a thread owns; WH_OWNER_WARP:
                               warp w's k elements w*k .. w*k+k-1, owned by its lane 0 (the
                               row of a warp-per-row kernel) */
    int owner_rows;         /* WH_OWNER_ROWS: 1 + the row pointer (a running sum of row lengths,
                               one per thread, or per warp) whose row t thread t owns, 0: none */
    bool rows_by_warp;      /* WH_OWNER_ROWS by warp ("by": "warp"): the row pointer has one row
                               per warp, and lane l of warp w owns row w's entries l, l + 32, ... */
    int owner_index;        /* WH_OWNER_INDEX, or WH_OWNER_ROWS "through" an index: 1 + the index
                               buffer (per-thread integers) whose element j of thread t names
                               the element (the row) t owns; 0: none */
    wh_expr *value;         /* integer scalars (a struct scalar's are on its fields) */
    double fvalue;          /* float scalars */
    wh_init_kind init;      /* fixed buffers */
    double init_value;      /* WH_INIT_CONST */
    char *init_file;        /* WH_INIT_FILE, resolved against the spec dir */
    wh_structure structure; /* input buffers of one field */
    wh_tree *tree;          /* a struct input buffer whose elements are a tree's nodes, or NULL */
    wh_hash_table *table;   /* an input buffer whose elements are a hash table's slots, or NULL */
    int prefix_of;          /* "prefix_sum_of": 1 + the input buffer whose running sum this
                               buffer is (README, "Running sums"), 0: none */
    int nearest_of;         /* "nearest_of" on a "neighbors" list: 1 + the input buffer of
                               positions whose nearest ones thread t's elements name, nearest
                               to position t first (README, "Structured inputs"), 0: none */
    int below_rows;         /* "below_row": 1 + the row pointer (a running sum of lengths or
                               "offsets") whose rows' entries this buffer's columns are, each
                               below its row (README, "Structured inputs"), 0: none */
    int below_level;        /* "below_row"'s "level": 1 + the buffer of a level's rows, whose
                               entries name no row of the level, 0: none */
    bool below_increasing;  /* "below_row"'s "increasing": each row's columns strictly increase
                               (a sorted adjacency list), the diagonal past the row's room */
    wh_paths paths;         /* "shortest_paths": the graph and frontier of which these
                               distances are a relaxation state, or paths.rows == 0 */
    bool in_place;          /* "in_place": an input the kernel writes its result over (a sort in
                               place): measure --outputs writes it back, --check compares it */
    wh_check check;         /* output buffers and in-place inputs; WH_CHECK_EXACT by default */
    char *check_why;        /* the spec's reason for a non-exact check, or NULL */
    wh_texture *tex;        /* a texture or surface object parameter's description, else NULL */
    wh_tensor_map *tmap;    /* a tensor map parameter's description, else NULL */
    bool global;            /* a module variable (the spec's "globals", a buffer named as the
                               PTX's .global or .const variable), not a kernel parameter */
} wh_param;

typedef struct {
    unsigned grid[3], block[3];
} wh_launch;

typedef struct {
    char *path;             /* the spec file as given */
    char *dir;              /* its directory */
    char *name, *source, *entry;
    char *ptx;              /* explicit PTX path (resolved), or NULL */
    char hash[17];          /* FNV-1a 64 of the spec file bytes, hex */
    wh_launch launch;
    /* grid[0..2], then block[0..2], written as expressions of constants
     * ("G"); NULL for a literal.  A --set of a constant evaluates them
     * again, so one spec serves several launch sizes. */
    wh_expr *launch_expr[6];
    wh_expr *shared_bytes;
    char **const_names;     /* constants, in order */
    wh_expr **const_exprs;
    int nconsts;
    const char **var_names; /* threads, blocks, block, i, constants... */
    int nvars;
    int *sym_threads;       /* X sequence of the symbolic stage */
    int nsym_threads;
    int max_iter;           /* loop bound of the symbolic stage (0: default) */
    wh_param *params;       /* the kernel's parameters in order, then the module variables */
    int nparams;            /* all of them: every image has one buffer per entry */
    int nkparams;           /* the kernel's parameters: params[nkparams..] are globals */
    char **sets;            /* constants given on the command line: "NAME=EXPR", in order */
    int nsets;
    /* Named problem sizes ("sizes": {"large": ["G=423000"]}): each a list of
     * "NAME=EXPR" that wh_spec_apply_size gives as --set would. */
    char **size_names;
    char ***size_sets;      /* size_sets[k]: NULL-terminated */
    int nsizes;
} wh_spec;

/* Resource limits of a spec (README, "Limits"): threads of a launch, and
 * bytes of one input image (every buffer and scalar of a launch). */
#define WH_MAX_LAUNCH_THREADS (1ull << 40)
#define WH_MAX_IMAGE_BYTES (4ull << 30)

wh_spec *wh_spec_load(const char *path, wh_error *err);
void wh_spec_free(wh_spec *spec);

/* Give constant `name` the expression `text` (the command line's --set), as
 * if the spec said so: an expression of the names before it, seen by later
 * constants and every count, value and range.  The spec's hash then covers
 * the change (the explore cache, run.json and --resume tell the variants
 * apart) and `sets` records it.  Sizes are checked where images are made. */
bool wh_spec_set_const(wh_spec *spec, const char *name, const char *text, wh_error *err);
/* wh_spec_set_const of an assignment "NAME=EXPR" (--set's text). */
bool wh_spec_assign(wh_spec *spec, const char *assignment, wh_error *err);
/* Apply the named size's assignments in order (--size NAME); an unknown
 * name is refused, naming the sizes there are. */
bool wh_spec_apply_size(wh_spec *spec, const char *name, wh_error *err);
/* The full launch, and the symbolic one: one block of X threads. */
wh_launch wh_spec_launch_full(const wh_spec *spec);
wh_launch wh_launch_threads(unsigned x);
uint64_t wh_launch_threads_total(const wh_launch *l);
uint64_t wh_launch_block_threads(const wh_launch *l);   /* threads per block */
uint64_t wh_launch_blocks_total(const wh_launch *l);

/* Values of every expression variable for a launch (threads, blocks, block,
 * i = 0, then the constants); vars must hold spec->nvars entries. */
bool wh_spec_vars(const wh_spec *spec, const wh_launch *l, int64_t *vars, wh_error *err);
/* Is input buffer p constrained as a whole: a "structure", a running sum
 * ("prefix_sum_of", on the buffer or one of its fields), a tree or a hash
 * table?  wh_param_ordered: the first two alone, whose projections
 * re-rank or re-sum values, so that a change to one element moves
 * others (a tree's and a table's keep each change they can). */
bool wh_param_structured(const wh_param *p);
bool wh_param_ordered(const wh_param *p);
/* Does an integer field's range depend on the element index `i` (so its
 * bounds must be evaluated per element)? */
bool wh_field_varies_by_index(const wh_field *f);

/* A buffer whose contents after a run are a result: an output, or an
 * input the kernel writes over ("in_place"). */
bool wh_param_returned(const wh_param *p);
/* Evaluate one of the spec's expressions; `what` names it in errors. */
bool wh_spec_eval(const wh_spec *spec, const wh_expr *e, const int64_t *vars,
                  const char *what, int64_t *out, wh_error *err);

/* Where the PTX of the spec's kernel is: the `ptx` key, else <dir>/<stem>.ptx,
 * else <dir>/../build/ptx/kernels/<stem>.ptx, else build/ptx/<dir>/<stem>.ptx.
 * Fails naming every place it looked. */
bool wh_spec_ptx_path(const wh_spec *spec, char *buf, size_t size, wh_error *err);

/* The JSON path of params[p] in its spec file ("$.params[2]", or
 * "$.globals[0]" for a module variable) followed by `suffix`. */
void wh_param_jpath(const wh_spec *spec, int p, const char *suffix, char *buf, size_t size);

const char *wh_type_name(wh_type t);
size_t wh_type_size(wh_type t);
bool wh_type_is_float(wh_type t);
bool wh_type_is_signed(wh_type t);
/* Does integer type t represent v (u64: up to INT64_MAX here)? */
bool wh_type_holds(wh_type t, int64_t v);
/* The representable range of an integer type, as int64 (u64 stops at 2^63-1). */
void wh_type_limits(wh_type t, int64_t *lo, int64_t *hi);
const char *wh_role_name(wh_role r);
const char *wh_check_name(wh_check c);   /* "exact", "multiset", "none" */
const char *wh_structure_name(wh_structure s); /* "none", "sorted", ... as in specs */
const char *wh_owner_name(wh_owner o);
const char *wh_key_hash_name(wh_key_hash h);   /* "identity", "fmix32" */
const char *wh_tex_address_name(wh_tex_address a);  /* "clamp", "border", "wrap", "mirror" */
const char *wh_swizzle_name(wh_swizzle z);          /* "none", "32B", "64B", "128B" */

/* Element j of thread t's elements of input buffer p (per_thread > 0) in a
 * launch l (UINT64_MAX when t owns none: a lane other than 0 under
 * WH_OWNER_WARP), and the inverse: the thread that owns element e, and
 * which of its elements e is (*j).  See wh_owner (WH_OWNER_ROWS as
 * contiguous: core/image.h has the image's own). */
uint64_t wh_owned_elem(const wh_param *p, const wh_launch *l, uint64_t t, uint64_t j);
uint64_t wh_elem_owner(const wh_param *p, const wh_launch *l, uint64_t e, uint64_t *j);
/* The elements the launch's threads own in all (per_thread x threads, or
 * per_warp x warps). */
uint64_t wh_owned_total(const wh_param *p, const wh_launch *l);

#endif
