/*
 * image_internal.h — what the image_*.c files share and nothing outside
 * core/ should use: a field's place and type, the error a broken
 * structure gives, and an order for qsort and bsearch.
 */
#ifndef WH_CORE_IMAGE_INTERNAL_H
#define WH_CORE_IMAGE_INTERNAL_H

#include "core/image.h"

#include <stdbool.h>
#include <stdint.h>

/* Field f of element e of buffer p: where it is, and its type. */
unsigned char *wh_image_value_at(const wh_image *img, int p, int f, uint64_t e);
wh_type wh_image_type_of(const wh_image *img, int p, int f);
/* An error naming buffer p (and a struct's field f) and its structure, at
 * the spec's "structure" key; false. */
bool wh_structure_error(const wh_image *img, int p, int f, wh_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
bool wh_image_oom(wh_error *err);

/* "neighbors" lists (image_neighbors.c) of field f of buffer p, range bd:
 * the projection, its part for the elements past the lists (also a
 * "nearest_of" list's), and the check. */
bool wh_image_restructure_neighbors(wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err);
bool wh_image_restructure_unowned(wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err);
bool wh_image_check_neighbors(const wh_image *img, int p, int f, const wh_bounds *bd, wh_error *err);

/* Parent arrays with no cycle ("forest", image_forest.c), field f of
 * buffer p: the projection (one link per cycle made a root) and the check. */
bool wh_image_restructure_forest(wh_image *img, int p, int f, wh_error *err);
bool wh_image_check_forest(const wh_image *img, int p, int f, wh_error *err);

#endif
