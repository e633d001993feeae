/*
 * spec_relations.c — the spec keys that relate one input buffer to others,
 * resolved once every parameter is parsed: "prefix_sum_of" (a running sum
 * of another buffer), "nearest_of" (neighbour lists from positions),
 * "below_row" (columns of a lower triangle, its rows and level),
 * "shortest_paths" (distances over a CSR graph) and an "owner" by rows
 * (thread t owns row t's entries).  Each names the buffers it needs and
 * refuses the combinations the projection or the scaler cannot keep.
 */
#include "core/spec_internal.h"

#include <stdio.h>
#include <string.h>

/* The parameter or global named `name` (a JSON string at sub, naming
 * `what`); -1 after an error. */
static int named_param(spec_loader *ld, const char *name, const char *sub, const char *what)
{
    wh_spec *s = ld->spec;
    if (!name) return spec_bad(ld, sub, "expected the name of %s", what), -1;
    for (int q = 0; q < s->nparams; q++)
        if (!strcmp(s->params[q].name, name)) return q;
    return spec_bad(ld, sub, "no parameter or global \"%s\"", name), -1;
}

/* "prefix_sum_of" on buffer p: another input buffer of one integer field,
 * neither of them structured otherwise. */
bool spec_buffer_prefix(spec_loader *ld, json_t *pobj, int p)
{
    wh_spec *s = ld->spec;
    wh_param *dst = &s->params[p];
    char sub[96];
    wh_param_jpath(s, p, ".prefix_sum_of", sub, sizeof sub);
    const char *name = json_string_value(json_object_get(pobj, "prefix_sum_of"));
    int q = named_param(ld, name, sub, "an input buffer");
    if (q < 0) return false;
    const wh_param *src = &s->params[q];
    if (q == p) return spec_bad(ld, sub, "a buffer cannot be its own running sum");
    if (dst->kind != WH_BUFFER || dst->tex || dst->role != WH_ROLE_INPUT || dst->type == WH_STRUCT)
        return spec_bad(ld, sub, "a running sum is an input buffer of one integer type (on a struct, put it on "
                "a field)");
    if (src->kind != WH_BUFFER || src->tex || src->role != WH_ROLE_INPUT || src->type == WH_STRUCT)
        return spec_bad(ld, sub, "\"%s\" is not an input buffer of one integer type", name);
    if (dst->structure != WH_STRUCTURE_NONE || src->structure != WH_STRUCTURE_NONE)
        return spec_bad(ld, sub, "a running sum and what it sums take no other \"structure\"");
    if (!dst->fields[0].has_range)
        return spec_bad(ld, sub, "a running sum needs a \"range\": its first value and the most the sum may reach");
    dst->prefix_of = q + 1;
    return spec_plain_int_range(ld, &dst->fields[0], sub, "a running sum") &&
           spec_plain_int_range(ld, &src->fields[0], sub, "the summed buffer");
}

/* "nearest_of" on neighbour list p: an input buffer of positions, one or
 * more numeric fields (coordinates), itself free of any structure. */
bool spec_buffer_nearest(spec_loader *ld, json_t *pobj, int p)
{
    wh_spec *s = ld->spec;
    wh_param *list = &s->params[p];
    char sub[96];
    wh_param_jpath(s, p, ".nearest_of", sub, sizeof sub);
    const char *name = json_string_value(json_object_get(pobj, "nearest_of"));
    if (list->structure != WH_STRUCTURE_NEIGHBORS)
        return spec_bad(ld, sub, "\"nearest_of\" derives a neighbour list: it goes with \"structure\": \"neighbors\"");
    int q = named_param(ld, name, sub, "an input buffer of positions");
    if (q < 0) return false;
    const wh_param *pos = &s->params[q];
    if (q == p || pos->kind != WH_BUFFER || pos->tex || pos->tmap || pos->role != WH_ROLE_INPUT)
        return spec_bad(ld, sub, "\"%s\" is not another input buffer (the positions)", name);
    if (wh_param_structured(pos) || pos->nearest_of || pos->nfields > WH_NEAREST_MAX_DIMS)
        return spec_bad(ld, sub, "the positions \"%s\" take no structure of their own and at most %d fields", name,
                        WH_NEAREST_MAX_DIMS);
    for (int f = 0; f < pos->nfields; f++)
        if (pos->fields[f].array_len > 1 || pos->fields[f].structure != WH_STRUCTURE_NONE)
            return spec_bad(ld, sub, "field \"%s\" of \"%s\" is not one coordinate (an array or a structured field)",
                            pos->fields[f].name, name);
    list->nearest_of = q + 1;
    return true;
}

/* Parameter `name`, before p, an input buffer of one integer type; -1
 * after an error at sub naming `what`. */
static int earlier_int_buffer(spec_loader *ld, const char *name, int p, const char *sub, const char *what)
{
    wh_spec *s = ld->spec;
    int q = named_param(ld, name, sub, what);
    if (q < 0) return -1;
    const wh_param *b = &s->params[q];
    if (b->kind != WH_BUFFER || b->tex || b->tmap || b->role != WH_ROLE_INPUT || b->type == WH_STRUCT ||
        wh_type_is_float(b->type))
        return spec_bad(ld, sub, "\"%s\" (%s) is not an input buffer of one integer type", name, what), -1;
    if (q >= p)
        return spec_bad(ld, sub, "\"%s\" (%s) must come before \"%s\" in the parameters (its projection runs first)",
                        name, what, s->params[p].name), -1;
    return q;
}

/* "below_row": { "rows": row pointer, "level": rows, "increasing": bool }
 * on buffer p: the columns of a lower-triangular CSR matrix. */
bool spec_buffer_below_row(spec_loader *ld, json_t *pobj, int p)
{
    static const char *const keys[] = { "rows", "level", "increasing", NULL };
    wh_spec *s = ld->spec;
    wh_param *cols = &s->params[p];
    char sub[96], fp[120];
    wh_param_jpath(s, p, ".below_row", sub, sizeof sub);
    json_t *v = json_object_get(pobj, "below_row");
    if (!json_is_object(v))
        return spec_bad(ld, sub, "expected { \"rows\": row pointer, \"level\": the level's rows (optional), "
                        "\"increasing\": true or false (optional) }");
    if (!spec_check_keys(ld, v, sub, keys)) return false;
    if (cols->kind != WH_BUFFER || cols->role != WH_ROLE_INPUT || cols->type == WH_STRUCT ||
        wh_type_is_float(cols->type) || !cols->fields[0].has_range || wh_field_varies_by_index(&cols->fields[0]))
        return spec_bad(ld, sub, "column indices are an input buffer of one integer type with a range that does not "
                        "depend on i");
    if (wh_param_structured(cols) || cols->nearest_of)
        return spec_bad(ld, sub, "column indices take no other structure");
    snprintf(fp, sizeof fp, "%s.rows", sub);
    int rp = earlier_int_buffer(ld, json_string_value(json_object_get(v, "rows")), p, fp, "the row pointer");
    if (rp < 0) return false;
    if (!s->params[rp].prefix_of && s->params[rp].structure != WH_STRUCTURE_OFFSETS)
        return spec_bad(ld, fp, "the row pointer \"%s\" is a running sum of row lengths (\"prefix_sum_of\") or CSR "
                        "offsets (\"structure\": \"offsets\")", s->params[rp].name);
    cols->below_rows = rp + 1;
    json_t *level = json_object_get(v, "level");
    snprintf(fp, sizeof fp, "%s.level", sub);
    int lp = level ? earlier_int_buffer(ld, json_string_value(level), p, fp, "the level's rows") : -1;
    if (level && lp < 0) return false;
    cols->below_level = lp + 1;
    json_t *inc = json_object_get(v, "increasing");
    snprintf(fp, sizeof fp, "%s.increasing", sub);
    if (inc && !json_is_boolean(inc)) return spec_bad(ld, fp, "expected true or false");
    cols->below_increasing = json_is_true(inc);
    if (cols->below_increasing && level)
        return spec_bad(ld, fp, "increasing columns take no \"level\" (not supported)");
    return true;
}

/* An optional earlier integer buffer `key` of "shortest_paths" object v
 * at sub: its index plus one, 0 when absent, -1 after an error. */
static int paths_part(spec_loader *ld, json_t *v, const char *key, int p, const char *sub, const char *what)
{
    char fp[140];
    json_t *name = json_object_get(v, key);
    if (!name) return 0;
    snprintf(fp, sizeof fp, "%s.%s", sub, key);
    int q = earlier_int_buffer(ld, json_string_value(name), p, fp, what);
    return q < 0 ? -1 : q + 1;
}

/* "shortest_paths": { "rows", "edges", "weights", "frontier" } on buffer
 * p: distances that are a relaxation state on that graph. */
bool spec_buffer_paths(spec_loader *ld, json_t *pobj, int p)
{
    static const char *const keys[] = { "rows", "edges", "weights", "frontier", NULL };
    wh_spec *s = ld->spec;
    wh_param *dist = &s->params[p];
    char sub[96];
    wh_param_jpath(s, p, ".shortest_paths", sub, sizeof sub);
    json_t *v = json_object_get(pobj, "shortest_paths");
    if (!json_is_object(v))
        return spec_bad(ld, sub, "expected { \"rows\": row pointer, \"edges\": targets, \"weights\" and "
                        "\"frontier\" (optional) }");
    if (!spec_check_keys(ld, v, sub, keys)) return false;
    if (dist->kind != WH_BUFFER || dist->role != WH_ROLE_INPUT || dist->type == WH_STRUCT ||
        wh_type_is_float(dist->type) || !dist->fields[0].has_range)
        return spec_bad(ld, sub, "distances are an input buffer of one integer type with a range (its low end the "
                        "source's distance, its high end an unreached node's)");
    if (!spec_plain_int_range(ld, &dist->fields[0], sub, "a distance")) return false;
    if (wh_param_structured(dist) || dist->nearest_of || dist->below_rows || dist->prefix_of)
        return spec_bad(ld, sub, "distances take no other structure");
    int parts[4];
    static const char *const what[4] = { "the row pointer", "the edges' targets", "the edges' weights",
                                         "the frontier" };
    for (int k = 0; k < 4; k++) {
        parts[k] = paths_part(ld, v, keys[k], p, sub, what[k]);
        if (parts[k] < 0) return false;
        if (k < 2 && !parts[k]) return spec_bad(ld, sub, "missing \"%s\" (%s)", keys[k], what[k]);
    }
    const wh_param *rows = &s->params[parts[0] - 1];
    if (!rows->prefix_of && rows->structure != WH_STRUCTURE_OFFSETS)
        return spec_bad(ld, sub, "the row pointer \"%s\" is a running sum of degrees (\"prefix_sum_of\") or CSR "
                        "offsets (\"structure\": \"offsets\")", rows->name);
    if (parts[2] && !spec_plain_int_range(ld, &s->params[parts[2] - 1].fields[0], sub, "a weight"))
        return false;
    if (parts[3]) {   /* the projection writes the frontier: nothing else may constrain it */
        const wh_param *fr = &s->params[parts[3] - 1];
        bool shared = parts[3] == parts[0] || parts[3] == parts[1] || parts[3] == parts[2];
        for (int q = 0; q < s->nparams; q++)   /* another state's frontier, or what a running sum sums */
            shared |= (q < p && s->params[q].paths.frontier == parts[3]) || s->params[q].prefix_of == parts[3];
        if (shared || wh_param_structured(fr) || fr->prefix_of || fr->nearest_of || fr->below_rows ||
            fr->paths.rows)
            return spec_bad(ld, sub, "the frontier \"%s\" is the projection's to write: it takes no structure "
                    "and is no "
                       "other part of a graph", fr->name);
    }
    dist->paths = (wh_paths){ .rows = parts[0], .edges = parts[1], .weights = parts[2], .frontier = parts[3] };
    return true;
}

/* "by": "thread" (the default) or "warp". */
static bool owner_rows_by(spec_loader *ld, json_t *owner, int p, bool *by_warp)
{
    json_t *v = json_object_get(owner, "by");
    const char *by = v ? json_string_value(v) : "thread";
    *by_warp = by && !strcmp(by, "warp");
    if (by && (*by_warp || !strcmp(by, "thread"))) return true;
    char sub[96];
    wh_param_jpath(ld->spec, p, ".owner.by", sub, sizeof sub);
    return spec_bad(ld, sub, "expected \"thread\" (thread t owns row t) or \"warp\" (lane l of warp w owns "
                    "row w's entries l, l + 32, ...)");
}

/* The index named at .owner.<key> of buffer p: an input buffer of
 * per-thread integers, k a thread (as many as p has; one row a thread
 * through it), owned as a function of the launch; -1 after an error. */
static int owner_index_of(spec_loader *ld, json_t *owner, int p, const char *key, int64_t k)
{
    wh_spec *s = ld->spec;
    const wh_param *b = &s->params[p];
    char sub[96], at[16];
    snprintf(at, sizeof at, ".owner.%s", key);
    wh_param_jpath(s, p, at, sub, sizeof sub);
    int q = named_param(ld, json_string_value(json_object_get(owner, key)), sub, "the index buffer");
    if (q < 0) return -1;
    const wh_param *x = &s->params[q];
    if (q == p || x->kind != WH_BUFFER || x->tex || x->role != WH_ROLE_INPUT || x->type == WH_STRUCT ||
        wh_type_is_float(x->type))
        return spec_bad(ld, sub, "an index is another input buffer of one integer type"), -1;
    if (x->per_thread != k || x->owner > WH_OWNER_WARP_STRIDE)
        return spec_bad(ld, sub, "thread t owns what its elements of the index \"%s\" name: the index needs "
                        "\"per_thread\": %lld (%s) and an owner by position (contiguous, stride, block_stride or "
                        "warp_stride)", x->name, (long long)k, k == b->per_thread ? "as the buffer it owns" :
                        "one row a thread"), -1;
    return q;
}

/* "owner": { "index": index } on per-thread buffer p: thread t's element
 * j is the one its element j of the index names (row_len[level_rows[t]]). */
bool spec_buffer_owner_index(spec_loader *ld, json_t *pobj, int p)
{
    wh_spec *s = ld->spec;
    wh_param *b = &s->params[p];
    int q = owner_index_of(ld, json_object_get(pobj, "owner"), p, "index", b->per_thread);
    if (q < 0) return false;
    if (b->structure == WH_STRUCTURE_NEIGHBORS || (wh_param_ordered(b) && !b->prefix_of)) {   /* a running
                                                                        sum is rebuilt from what it sums */
        char sub[96];
        wh_param_jpath(s, p, ".owner.index", sub, sizeof sub);
        return spec_bad(ld, sub, "\"%s\" is ordered or a neighbour list, whose elements belong to their place, "
                        "not to the thread an index gives them to (a running sum is the exception: a row "
                        "pointer, rebuilt from its lengths)", b->name);
    }
    b->owner_index = q + 1;
    return true;
}

/* "through": the row pointer and its lengths both owned through the same
 * index, one row a thread: thread t owns row index[t]. */
static bool rows_through(spec_loader *ld, json_t *owner, int p, const wh_param *r, const wh_param *len)
{
    wh_spec *s = ld->spec;
    wh_param *b = &s->params[p];
    char sub[96];
    wh_param_jpath(s, p, ".owner.through", sub, sizeof sub);
    if (b->rows_by_warp) return spec_bad(ld, sub, "rows by warp go through no index");
    int q = owner_index_of(ld, owner, p, "through", 1);
    if (q < 0) return false;
    if (r->owner != WH_OWNER_INDEX || r->owner_index != q + 1 || len->owner != WH_OWNER_INDEX ||
        len->owner_index != q + 1 || r->per_thread != 1 || len->per_thread != 1)
        return spec_bad(ld, sub, "thread t owns row %s[t]: the row pointer \"%s\" and its lengths \"%s\" need "
                        "\"per_thread\": 1 and \"owner\": { \"index\": \"%s\" }", s->params[q].name, r->name,
                        len->name, s->params[q].name);
    b->owner_index = q + 1;
    return true;
}

/* "owner": { "rows": row pointer, "by": ..., "through": ... } on
 * per-thread buffer p: thread t owns row t's entries, or lane l of warp
 * w row w's l, l + 32, ..., or thread t row index[t]'s.  The scaler tiles
 * the atoms' row lengths and rebuilds the row pointer from them before it
 * places each thread's entries, so the pointer must be a running sum of
 * lengths that are one per thread (per warp, or through the index); CSR
 * offsets are tiled as values and sorted, which keeps no atom's rows. */
bool spec_buffer_owner_rows(spec_loader *ld, json_t *pobj, int p)
{
    wh_spec *s = ld->spec;
    wh_param *b = &s->params[p];
    json_t *owner = json_object_get(pobj, "owner");
    char sub[96];
    if (!owner_rows_by(ld, owner, p, &b->rows_by_warp)) return false;
    wh_param_jpath(s, p, ".owner.rows", sub, sizeof sub);
    int q = named_param(ld, json_string_value(json_object_get(owner, "rows")), sub, "the row pointer");
    if (q < 0) return false;
    const wh_param *r = &s->params[q];
    if (q == p || !r->prefix_of)
        return spec_bad(ld, sub, "\"%s\" is not a running sum of row lengths (\"prefix_sum_of\"), which an owner by "
                        "rows needs (CSR offsets are not supported: the scaler sorts them, keeping no atom's rows)",
                        r->name);
    const wh_param *len = &s->params[r->prefix_of - 1];
    bool summed = false;
    for (int k = 0; k < s->nparams; k++) summed |= s->params[k].prefix_of == p + 1;
    if (b->structure == WH_STRUCTURE_NEIGHBORS || b->prefix_of || summed)
        return spec_bad(ld, sub, "\"%s\" is a neighbour list, a running sum or what one sums, whose elements "
                        "belong to their index, not to a row", b->name);
    b->owner_rows = q + 1;
    if (json_object_get(owner, "through")) return rows_through(ld, owner, p, r, len);
    wh_owner one = b->rows_by_warp ? WH_OWNER_WARP : WH_OWNER_CONTIGUOUS;
    if (r->per_thread != 1 || r->owner != one || len->per_thread != 1 || len->owner != one)
        return spec_bad(ld, sub, b->rows_by_warp ? "warp w owns row w: the row pointer \"%s\" and its lengths "
                        "\"%s\" need \"per_warp\": 1" : "thread t owns row t: the row pointer \"%s\" and its "
                        "lengths \"%s\" need \"per_thread\": 1 with the contiguous owner", r->name, len->name);
    return true;
}
