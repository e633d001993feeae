/*
 * corpus.h — the corpus kernels (kernels/corpus/) and their hand-built
 * inputs: the yardstick every search change is judged by.
 *
 * Each corpus kernel is NAME.cu + NAME.json + NAME.c; NAME.c defines
 * `const corpus_kernel corpus_NAME` with the inputs an expert would build:
 * one or more candidate worst inputs (the header comment of NAME.cu argues
 * for them; the longest one measured is the reference) and a known best.
 * list.def names every kernel once; corpus.c turns it into the table.
 *
 * A builder fills every input buffer of an image made for the spec's full
 * launch (created at the low end of every domain); the caller checks the
 * result against the spec's value domains, so a builder cannot hand the
 * benchmark an input the search could not have produced.
 */
#ifndef WH_KERNELS_CORPUS_H
#define WH_KERNELS_CORPUS_H

#include "core/error.h"
#include "core/image.h"
#include "core/pcg32.h"

#include <stdbool.h>
#include <stdint.h>

/* Fill img; rng is seeded the same way for every call (reproducible). */
typedef bool (*corpus_build_fn)(wh_image *img, pcg32 *rng, wh_error *err);

typedef struct {
    const char *name;           /* short label: "full-rows-scattered" */
    corpus_build_fn build;
} corpus_input;

#define CORPUS_MAX_WORST 6

typedef struct {
    const char *name;           /* the spec's name and file stem */
    const char *family;         /* "sparse", "graph", "hashing", ... */
    corpus_input worst[CORPUS_MAX_WORST];   /* candidates, NULL-terminated when fewer */
    corpus_input best;
    bool quick;                 /* part of bench_corpus --quick */
} corpus_kernel;

/* The table, in list.def's order. */
int corpus_count(void);
const corpus_kernel *corpus_at(int i);
const corpus_kernel *corpus_find(const char *name);

/* The spec path of a corpus kernel, relative to the repository root. */
void corpus_spec_path(const corpus_kernel *k, char *buf, size_t size);

/* Build one input into img (made for the full launch) and check it
 * against the spec's value domains. */
bool corpus_build(const corpus_input *in, wh_image *img, wh_error *err);

/* Helpers for builders.  A buffer is named as in the spec; `field` is a
 * struct field's name, or NULL for a plain element.  Errors name the
 * buffer and field; setters do not check domains (corpus_build does). */
wh_buffer *corpus_buffer(wh_image *img, const char *name, wh_error *err);
bool corpus_set_int(wh_image *img, const char *name, const char *field, uint64_t elem, int64_t v,
                    wh_error *err);
bool corpus_set_float(wh_image *img, const char *name, const char *field, uint64_t elem, double v,
                      wh_error *err);
/* An element's (field's) value; false (err set) when there is none. */
bool corpus_get_int(wh_image *img, const char *name, const char *field, uint64_t elem, int64_t *v, wh_error *err);
/* Every element (field) of a buffer to one value. */
bool corpus_fill_int(wh_image *img, const char *name, const char *field, int64_t v, wh_error *err);
bool corpus_fill_float(wh_image *img, const char *name, const char *field, double v, wh_error *err);
/* The value of an expression variable or spec constant for this image's
 * launch ("threads", "block", a constant's name); -1 when unknown. */
int64_t corpus_var(const wh_image *img, const char *name);

#endif
