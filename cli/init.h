/*
 * init.h — what a kernel's code says of its parameters, guessed from its
 * PTX: `warphunt init` drafts a spec from it, `spec check` compares a
 * spec's textures, surfaces and tensor maps with it (cli/ only).
 */
#ifndef WH_CLI_INIT_H
#define WH_CLI_INIT_H

#include "ptx/ptx.h"

#include <stdbool.h>
#include <stdint.h>

#define INIT_MAX_PARAMS 128
#define INIT_MAX_FIELDS 16
#define INIT_MAX_PER_THREAD 256   /* an index stride of more elements is no ownership guess */

typedef struct {
    const char *name;
    const ptx_param *ptx;
    char cpp_type[64];          /* from the mangled name ("const float*"), or "" */
    bool pointer;               /* addresses memory (or is a C++ pointer) */
    bool read, written, atomic; /* through it, in the entry's own code */
    int64_t stride;             /* the largest index factor seen (element size), 0: none */
    bool thread_indexed;        /* an access's index derives from the thread's position */
    bool data_indexed;          /* ... from values loaded from memory only */
    uint64_t rows_through;      /* its accesses walk (a loop's step) from values read at the thread's
                                   position from these parameters (bit p): a row pointer's rows? */
    uint64_t indexed_through;   /* its accesses' indices are values read at the thread's position from
                                   these parameters, as read (x[index[t]]): owned through an index? */
    int naccesses;              /* distinct offsets accessed from an element's start */
    int nloads;                 /* load instructions through it */
    int64_t access_off[INIT_MAX_FIELDS];
    ptx_type access_type[INIT_MAX_FIELDS];
    int tex_geom;               /* a texture (tex, tld4) or surface (suld/sust) object: its ptx_tex_geom, else 0 */
    bool surface;               /* ... a surface object */
    bool gathers;               /* ... read by tld4 (tex2Dgather) */
    bool lod;                   /* ... read by tex.level or tex.grad (tex2DLod, tex2DGrad) */
    bool queried;               /* a texture or surface handle txq or suq asks about */
    ptx_type tex_type, tex_coord; /* ... the access's value and coordinate types */
    int tmap_rank;              /* a tensor map (cp.async.bulk.tensor.Nd's map operand): N, else 0 */
    bool tmap_load, tmap_store; /* ... boxes copied out of its tensor, into it */
    bool tmap_prefetched;       /* a map prefetch.tensormap names (its rank unknown if no copy) */
} init_param;

/* Fill out[0 .. f->nparams); returns f->nparams, or -1 when there are more
 * than max or memory runs out. */
int init_infer(const ptx_function *f, init_param *out, int max);
/* The row pointer params[p] is read by a walk from (the first of its
 * rows_through), or -1: none, or one read at several offsets of an
 * element (a struct's field, which no owner by rows states). */
int init_rows_pointer(const init_param *params, int nparams, int p);
/* The index list params[p] is read through (x[index[t]]: the first of its
 * indexed_through, read by one load: a list read at t + k*n in an unrolled
 * loop is no thread's own), or -1: none, or p is walked from a row start
 * (rows, init_rows_pointer). */
int init_index_of(const init_param *params, int nparams, int p);

/* The entry `ident`'s parameters as the `__global__` declaration in the
 * CUDA source at path states them: names[k] (or "" when unnamed) and
 * types[k] in the demangler's form ("const float*"; "" when not read).
 * Returns their number, or -1 when the source or the declaration cannot
 * be read (or has more than max). */
int init_source_params(const char *path, const char *ident, char names[][64], char types[][64], int max);

#endif
