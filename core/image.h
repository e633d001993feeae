/*
 * image.h — the input image: the host-side contents of one launch.
 *
 * An image holds one buffer per kernel parameter of a spec, sized for a
 * given launch (the full N-thread one or an X-thread symbolic one): input
 * buffers (what the search varies), outputs (zeroed), fixed buffers (from a
 * generator or a file) and scalars (their value bytes).  Every input
 * element always lies in its value domain: images are created at the low
 * end of each domain, filled at random within them, and checked on load;
 * a structured buffer (sorted, a permutation, ...) is brought to its
 * structure whenever it is filled.
 */
#ifndef WH_CORE_IMAGE_H
#define WH_CORE_IMAGE_H

#include "core/error.h"
#include "core/pcg32.h"
#include "core/spec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const wh_param *param;
    uint64_t count;          /* elements; 1 for a scalar */
    size_t bytes;            /* count * elem_size */
    unsigned char *data;
} wh_buffer;

typedef struct {
    const wh_spec *spec;
    wh_launch launch;
    int64_t *vars;           /* expression variables for this launch */
    uint64_t shared_bytes;   /* dynamic shared memory per block */
    int nbufs;               /* == spec->nparams, same order */
    wh_buffer *bufs;
} wh_image;

/* The evaluated domain of one field of one element. */
typedef struct {
    bool is_float;
    int64_t lo, hi;          /* hi: the last value of the domain (a step's last multiple) */
    int64_t step;            /* integers: the domain is lo, lo+step, ... hi (1: every value) */
    double flo, fhi;
} wh_bounds;

/* The float t of the way from b's low end to its high end (t in [0, 1]):
 * flo (1 - t) + fhi t, which stays finite where fhi - flo overflows (a
 * range such as [-1e308, 1e308]). */
double wh_bounds_lerp(const wh_bounds *b, double t);
/* An integer v moved onto b's domain: clamped to its ends, then down to a step. */
int64_t wh_bounds_snap(const wh_bounds *b, int64_t v);
/* An integer drawn uniformly from b's domain (its steps). */
int64_t wh_bounds_draw(const wh_bounds *b, pcg32 *rng);
/* How many steps above lo b's integer domain holds (hi - lo with no step). */
uint64_t wh_bounds_steps(const wh_bounds *b);

wh_image *wh_image_new(const wh_spec *spec, const wh_launch *launch, wh_error *err);
wh_image *wh_image_clone(const wh_image *img, wh_error *err);
void wh_image_free(wh_image *img);

/* Domain of field f of element `elem` of parameter p. */
bool wh_image_bounds(const wh_image *img, int p, int f, uint64_t elem, wh_bounds *out, wh_error *err);
/* Draw every input element uniformly within its domain, then bring the
 * structured buffers to their structure (sorted: the order statistics of
 * uniform draws; a permutation: the ranks of uniform draws; a hash table:
 * random keys inserted). */
bool wh_image_fill_random(wh_image *img, pcg32 *rng, wh_error *err);
/* Set every element of input buffer p to the low end of its domain (the
 * lowest values its structure allows: lo, lo + 1, ... for a permutation;
 * a hash table empty). */
bool wh_image_fill_low(wh_image *img, int p, wh_error *err);
/* Check every input element against its domain; the error names the
 * parameter, element, field and value that is out. */
bool wh_image_check_domains(const wh_image *img, wh_error *err);
void wh_image_zero_outputs(wh_image *img);

/* Structured input buffers (image_structure.c).  Can buffer p's structure
 * hold at this image's size (a permutation needs as many elements as its
 * range has values)?  Checked when images are made. */
bool wh_image_structure_fits(const wh_image *img, int p, wh_error *err);
/* Bring input buffer p, or every input buffer, to its structure (a
 * projection: an image that has it is left as it is).  Whatever builds an
 * image element by element calls this before the image is used. */
bool wh_image_restructure_buffer(wh_image *img, int p, wh_error *err);
bool wh_image_restructure(wh_image *img, wh_error *err);
/* Field f of input buffer p, when it is a running sum ("prefix_sum_of"),
 * computed from what it sums, which is left as it is: an error when the
 * total passes the range (where restructuring would lower summands).  For
 * inputs a user writes by hand, who gives the summands only. */
bool wh_image_sum_into(wh_image *img, int p, int f, wh_error *err);
/* Does buffer p have its structure?  The error names the elements that
 * break it.  (wh_image_check_domains checks it for every input.) */
bool wh_image_check_structure(const wh_image *img, int p, wh_error *err);
/* Input buffers that hold a tree (image_tree.c, wh_tree): bring buffer p
 * to a tree (a projection, as above; part of wh_image_restructure_buffer),
 * or check that it is one (part of wh_image_check_structure). */
bool wh_image_restructure_tree(wh_image *img, int p, wh_error *err);
bool wh_image_check_tree(const wh_image *img, int p, wh_error *err);
/* Neighbour lists derived from positions ("nearest_of", image_nearest.c):
 * thread t's elements name the positions nearest position t, nearest
 * first; the projection (part of wh_image_restructure_buffer for such a
 * list) and the check, as above. */
bool wh_image_restructure_nearest(wh_image *img, int p, wh_error *err);
bool wh_image_check_nearest(const wh_image *img, int p, wh_error *err);
/* Ascending int64_t, for qsort and bsearch. */
int wh_cmp_i64(const void *a, const void *b);
/* Element e of buffer p (one integer field), and its setter. */
int64_t wh_image_int(const wh_image *img, int p, uint64_t e);
void wh_image_set_int(wh_image *img, int p, uint64_t e, int64_t v);
/* A CSR row pointer, buffer p (a running sum of row lengths,
 * "prefix_sum_of", or "offsets"): how many rows it has, and row k's
 * entries [*b, *e), clipped to the n entries there are. */
uint64_t wh_csr_nrows(const wh_image *img, int p);
void wh_csr_row(const wh_image *img, int p, uint64_t k, uint64_t n, uint64_t *b, uint64_t *e);
/* Element j of thread t's elements of per-thread input buffer p in img
 * (UINT64_MAX: none), and the inverse: the owner of element e (UINT64_MAX:
 * none) and which of its elements e is (*j).  As wh_owned_elem and
 * wh_elem_owner, but under an owner by rows (WH_OWNER_ROWS) thread t's
 * elements are the first per_thread entries of row t of the image's row
 * pointer (by warp: lane l's of its warp's row; through an index: of row
 * index[t]), and under an owner through an index (WH_OWNER_INDEX) the
 * elements its elements of the index name (image_owner.c); an index value
 * outside the buffer (the rows) names none. */
uint64_t wh_image_owned_elem(const wh_image *img, int p, uint64_t t, uint64_t j);
/* Under an owner by rows, which row thread t's element j is in (*row) and
 * where in it (the return value), whatever the image; the inverse: the
 * thread that owns entry `off` of row `row` (UINT64_MAX: none) and which
 * of its elements that is (*j).  By thread, row t's entry j; by warp
 * ("by": "warp"), row w's entries lane, lane + 32, ... (image_owner.c). */
uint64_t wh_rows_offset(const wh_param *par, const wh_launch *l, uint64_t t, uint64_t j, uint64_t *row);
uint64_t wh_rows_thread(const wh_param *par, const wh_launch *l, uint64_t row, uint64_t off, uint64_t *j);
uint64_t wh_image_elem_owner(const wh_image *img, int p, uint64_t e, uint64_t *j);
/* Under an owner through an index (WH_OWNER_INDEX, or rows "through" one:
 * thread t owns x[index[t]], or row index[t]), the inverse reads the slot
 * of the index that names an element (a row): a scan of the index each
 * time, or this map of the first slot naming each one (UINT64_MAX: none),
 * built once for many lookups and freed by the caller (NULL: out of
 * memory), valid while the index is unchanged. */
uint64_t *wh_image_index_slots(const wh_image *img, int p);
uint64_t wh_image_elem_owner_in(const wh_image *img, int p, uint64_t e, uint64_t *j, const uint64_t *slots);
/* Column indices of a lower-triangular CSR matrix ("below_row",
 * image_rows.c): each entry below its row, outside the level for a row of
 * the level; the projection and the check, as above. */
bool wh_image_restructure_rows(wh_image *img, int p, wh_error *err);
bool wh_image_check_rows(const wh_image *img, int p, wh_error *err);
/* Distances that are a state of shortest-path relaxation on a CSR graph
 * ("shortest_paths", image_paths.c): the source at the range's low end,
 * every other reached node below the high end and reached through edges
 * from it, every edge out of a reached node outside the frontier relaxed,
 * the frontier within the reached nodes; the projection (which writes the
 * frontier too) and the check, as above. */
bool wh_image_restructure_paths(wh_image *img, int p, wh_error *err);
bool wh_image_check_paths(const wh_image *img, int p, wh_error *err);
/* What a shortest-path state holds (zeros, source -1, for a buffer that is
 * none or a graph that does not open): nodes reached (below the range's
 * high end), those of them in the frontier, and the first node at the
 * range's low end. */
typedef struct {
    uint64_t reached, frontier;
    int64_t source;
} wh_paths_summary;
void wh_paths_stats(const wh_image *img, int p, wh_paths_summary *out);
/* Input buffers that hold a hash table (image_hash_table.c,
 * wh_hash_table): the projection and the check, as above; an empty table
 * (the low end: wh_image_fill_low); a random one, max_keys random keys of
 * the key's range inserted one after another (wh_image_fill_random). */
bool wh_image_restructure_hash_table(wh_image *img, int p, wh_error *err);
bool wh_image_check_hash_table(const wh_image *img, int p, wh_error *err);
bool wh_image_empty_hash_table(wh_image *img, int p, wh_error *err);
bool wh_image_fill_hash_table(wh_image *img, int p, pcg32 *rng, wh_error *err);
/* The same into `data`, a buffer of p's size and layout elsewhere (a
 * drawn gene's values); a buffer that is no table is left as it is. */
bool wh_image_fill_hash_table_at(const wh_image *img, int p, unsigned char *data, pcg32 *rng, wh_error *err);
/* A table buffer's keys and its longest run of occupied slots (cyclic:
 * a run past the last slot goes on from slot 0); 0, 0 for no table. */
void wh_hash_table_stats(const wh_buffer *b, uint64_t *keys, uint64_t *longest_run);
/* A table's max_probes and max_keys at this image's size (each at most
 * the slots; 0, 0 for a buffer that is no table). */
bool wh_image_hash_table_limits(const wh_image *img, int p, uint64_t *probes, uint64_t *max_keys, wh_error *err);
/* A table's key hash, and its inverse (both hashes are bijections of
 * 32-bit words: a key with any chosen home can be made).  fmix32 is
 * Murmur3's finalizer: xor-shift 16, times MUL1, xor-shift 13, times
 * MUL2, xor-shift 16. */
#define WH_FMIX32_MUL1 0x85ebca6bu
#define WH_FMIX32_MUL2 0xc2b2ae35u
#define WH_FMIX32_INV1 0xa5cb9243u   /* MUL1^-1 mod 2^32 */
#define WH_FMIX32_INV2 0x7ed1b41du   /* MUL2^-1 mod 2^32 */
uint32_t wh_key_hash_of(wh_key_hash h, uint32_t k);
uint32_t wh_key_unhash(wh_key_hash h, uint32_t v);
/* Index of the parameter named `name`, or -1. */
int wh_image_find(const wh_image *img, const char *name);

/* A directory with one NAME.bin per buffer and manifest.json (types,
 * counts, launch, spec hash).  Files are written atomically. */
bool wh_image_save(const wh_image *img, const char *dir, wh_error *err);
/* A buffer's file name: its name with characters other than letters,
 * digits, '_', '-' and '.' replaced by '_', then ext (".bin"). */
void wh_buffer_file_name(const wh_param *p, const char *ext, char *out, size_t size);
/* Loads a saved image for `spec`; the layout must match exactly. */
wh_image *wh_image_load(const wh_spec *spec, const char *dir, wh_error *err);

/* One buffer as a table (image_table.c): CSV with a header of field names
 * and one row per element, or NumPy .npy (a 1-D array, structured for
 * struct elements).  Import reads either (told apart by the .npy magic);
 * the element count must be the buffer's and every value must fit its
 * type; domains are left to wh_image_check_domains. */
typedef enum { WH_TABLE_CSV, WH_TABLE_NPY } wh_table_format;
bool wh_buffer_export(const wh_image *img, int p, wh_table_format fmt, const char *path, wh_error *err);
bool wh_buffer_import(wh_image *img, int p, const char *path, wh_error *err);

/* The input buffers' values as JSON: {"name": [v, ...]} with struct
 * elements as objects of their fields (for paths.json and reports).
 * Declared with an incomplete type so core users need not include jansson. */
struct json_t;
struct json_t *wh_image_inputs_json(const wh_image *img);

/* Reading and writing one scalar value of type t at p. */
int64_t wh_value_get_int(wh_type t, const void *p);
void wh_value_set_int(wh_type t, void *p, int64_t v);
double wh_value_get_float(wh_type t, const void *p);
void wh_value_set_float(wh_type t, void *p, double v);

#endif
