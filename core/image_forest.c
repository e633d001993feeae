/*
 * image_forest.c — parent arrays with no cycle ("structure": "forest"): a
 * union-find's parents, a tree stored as parent links.  Element v names
 * its parent, a root names itself, and following parents from any element
 * reaches a root, in any memory layout (a range [0, i] states only the
 * forests whose parents come first).
 *
 * The projection keeps what it can: it walks each element's parents until
 * it meets a root or an element already known to reach one; a walk that
 * comes back to an element on its own way has found a cycle, and the
 * element it came back to becomes a root.  So one link per cycle changes,
 * and an input that is already a forest stays as it is.
 */
#include "core/image.h"
#include "core/image_internal.h"

#include <stdlib.h>

enum { UNSEEN, ON_WAY, REACHES_ROOT };

/* Element e's parent; values outside the buffer were refused with the
 * domains (the range lies within [0, count - 1]). */
static uint64_t parent_of(const wh_image *img, int p, int f, uint64_t e)
{
    return (uint64_t)wh_value_get_int(wh_image_type_of(img, p, f), wh_image_value_at(img, p, f, e));
}

/* Walks from every element; at a cycle, the element the walk came back to
 * becomes a root in `cut` (img itself), or without one is reported
 * (*cycle, *found).  False only when out of memory. */
static bool walk_all(const wh_image *img, wh_image *cut, int p, int f, uint64_t *cycle, bool *found)
{
    uint64_t n = img->bufs[p].count;
    unsigned char *state = calloc(n ? n : 1, 1);
    uint64_t *way = malloc((n ? n : 1) * sizeof *way);
    if (!state || !way) {
        free(state);
        free(way);
        return false;
    }
    *found = false;
    for (uint64_t start = 0; start < n && !*found; start++) {
        uint64_t len = 0, v = start;
        while (v < n && state[v] == UNSEEN) {
            state[v] = ON_WAY;
            way[len++] = v;
            uint64_t up = parent_of(img, p, f, v);
            if (up == v) break;
            v = up;
        }
        if (v < n && state[v] == ON_WAY && parent_of(img, p, f, v) != v) {   /* back on its own way */
            if (cut) wh_value_set_int(wh_image_type_of(cut, p, f), wh_image_value_at(cut, p, f, v), (int64_t)v);
            else *cycle = v, *found = true;
        }
        for (uint64_t k = 0; k < len; k++) state[way[k]] = REACHES_ROOT;
    }
    free(state);
    free(way);
    return true;
}

bool wh_image_restructure_forest(wh_image *img, int p, int f, wh_error *err)
{
    uint64_t unused;
    bool found;
    return walk_all(img, img, p, f, &unused, &found) || wh_image_oom(err);
}

bool wh_image_check_forest(const wh_image *img, int p, int f, wh_error *err)
{
    uint64_t v = 0;
    bool found;
    if (!walk_all(img, NULL, p, f, &v, &found)) return wh_image_oom(err);
    if (!found) return true;
    return wh_structure_error(img, p, f, err, "element %llu's parents lead back to it (a cycle, no root)",
                              (unsigned long long)v);
}
