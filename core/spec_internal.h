/*
 * spec_internal.h — what the spec loader's files share: the loader's
 * state, its error and key helpers, and the parsers spec.c calls in
 * spec_relations.c and spec_texture.c.  Not for use outside core/spec*.c.
 */
#ifndef WH_SPEC_INTERNAL_H
#define WH_SPEC_INTERNAL_H

#include "core/spec.h"

#include <jansson.h>
#include <stdbool.h>

typedef struct {
    const char *file;
    wh_spec *spec;
    wh_error *err;
} spec_loader;

/* Sets the error at the spec file and JSON path; returns false. */
bool spec_bad(spec_loader *ld, const char *jpath, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Every key of obj is one of `allowed` (NULL-terminated), or an error
 * listing them. */
bool spec_check_keys(spec_loader *ld, json_t *obj, const char *jpath, const char *const *allowed);
/* An integer expression: a JSON integer or a string over the spec's names. */
bool spec_get_expr(spec_loader *ld, json_t *v, const char *jpath, wh_expr **out);

/* An integer range that is the same for every element: what a running
 * sum ("prefix_sum_of") and its summands need. */
bool spec_plain_int_range(spec_loader *ld, const wh_field *f, const char *where, const char *what);

/* spec_relations.c: keys relating buffer p to others, once every
 * parameter is parsed (README, "Structured inputs"). */
bool spec_buffer_prefix(spec_loader *ld, json_t *pobj, int p);
bool spec_buffer_nearest(spec_loader *ld, json_t *pobj, int p);
bool spec_buffer_below_row(spec_loader *ld, json_t *pobj, int p);
bool spec_buffer_paths(spec_loader *ld, json_t *pobj, int p);
bool spec_buffer_owner_rows(spec_loader *ld, json_t *pobj, int p);
bool spec_buffer_owner_index(spec_loader *ld, json_t *pobj, int p);

/* spec_texture.c: a texture, surface or tensor map parameter's own keys,
 * once its type is known. */
bool spec_parse_texture(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p);
bool spec_parse_surface(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p);
bool spec_parse_tensor_map(spec_loader *ld, json_t *pobj, const char *jpath, wh_param *p);

#endif
