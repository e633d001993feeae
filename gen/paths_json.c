/*
 * paths_json.c — paths.json: the symbolic stage's result, for people and
 * for the cache.  Written from a live exploration (formulas, decisions,
 * each atom's id and validity); read back for the metrics a hunt needs;
 * with the atoms' values from the pool for `explore`'s own copy.
 */
#include "gen/internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"

static json_t *xstats_json(const gen_result *r)
{
    json_t *a = json_array();
    for (int i = 0; i < r->nxs; i++) {
        const gen_xstat *x = &r->xs[i];
        double cov = x->legs_total ? 100.0 * x->legs_covered / x->legs_total : 100.0;
        json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:b, s:b, s:b, s:f, s:f}",
                                           "threads", x->x, "paths", x->paths, "done", x->done, "cut", x->cut,
                                           "errors", x->error, "legs_total", x->legs_total, "legs_covered",
                                           x->legs_covered, "coverage", cov, "budget_hit", x->budget_hit,
                                           "path_budget_hit", x->path_cap, "saturated", x->saturated,
                                           "last_gain_s", x->last_gain_s, "time_s", x->time_s));
    }
    return a;
}

/* A path's atoms; with their input values when scratch is given
 * (explore's own copy; the cache's leaves them to atoms.bin). */
static json_t *atoms_json(const gen_result *r, const gen_path *gp, wh_image *scratch)
{
    json_t *a = json_array();
    for (int k = 0; k < gp->natoms; k++) {
        int id = gp->first_atom + k;
        json_t *o = json_pack("{s:i, s:b}", "atom", id, "valid", r->pool.atoms[id].valid);
        if (scratch) {
            gen_pool_atom_to_image(&r->pool, id, scratch);
            json_object_set_new(o, "inputs", wh_image_inputs_json(scratch));
        }
        json_array_append_new(a, o);
    }
    return a;
}

static void set_atoms(const gen_result *r, json_t *doc, wh_image *scratch)
{
    json_t *paths = json_object_get(doc, "paths");
    for (int i = 0; i < r->npaths && i < (int)json_array_size(paths); i++)
        json_object_set_new(json_array_get(paths, (size_t)i), "atoms", atoms_json(r, &r->paths[i], scratch));
}

/* The body is the symbolic executor's own (sx_result_json: paths with
 * formulas, metrics, decisions and legs; legs; issues; domains), so that
 * `explore` and `hunt` write one format; the generator block adds the
 * deepening, its atoms and their validation.  Each atom's id and
 * validity, not its values: atoms.bin holds them, and as JSON they were
 * most of the file and of the stage's time where an input is large
 * (binary_search: 450 MB, its 16384 keys in every atom, about 9 s to write
 * at the 50 MB/s measured, and 4.5 s to read back from the cache); gen_result_write_paths_with_values
 * adds them for `explore`. */
bool gen_paths_json_write(gen_result *r, const sx_result *sx, const ptx_module *mod, const char *path, bool keep,
                          wh_error *err)
{
    json_t *doc = sx_result_json(sx, mod);
    if (!doc) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot build paths.json");
        return false;
    }
    json_t *uncovered = json_array();
    for (int i = 0; i < r->nuncovered; i++) json_array_append_new(uncovered, json_string(r->uncovered[i]));
    json_object_set_new(doc, "format", json_integer(1));
    json_object_set_new(doc, "spec", json_string(r->spec->path));
    json_object_set_new(doc, "spec_hash", json_string(r->spec->hash));
    json_object_set_new(doc, "ptx", json_string(mod->name));
    json_object_set_new(doc, "cache_key", json_string(r->cache_key));
    json_object_set_new(doc, "coverage_per_x", xstats_json(r));
    json_object_set_new(doc, "uncovered", uncovered);
    json_object_set_new(doc, "validation", json_string(r->validated ? "sim" : "none"));
    json_object_set_new(doc, "atoms_valid", json_integer(r->atoms_valid));
    json_object_set_new(doc, "atoms_invalid", json_integer(r->atoms_invalid));
    json_object_set_new(doc, "atoms_hung", json_integer(r->atoms_hung));
    json_object_set_new(doc, "paths_without_atoms", json_integer(r->paths_without_atoms));
    json_object_set_new(doc, "explore_time_s", json_real(r->time_s));
    json_object_set_new(doc, "atoms_time_s", json_real(r->atoms_s));
    set_atoms(r, doc, NULL);
    bool ok = wh_write_json_atomic(path, doc, err);
    if (ok && keep)
        r->doc = doc;
    else
        json_decref(doc);
    return ok;
}

static bool read_xstats(gen_result *r, json_t *a)
{
    r->nxs = (int)json_array_size(a);
    r->xs = calloc(r->nxs ? (size_t)r->nxs : 1, sizeof *r->xs);
    if (!r->xs) return false;
    for (int i = 0; i < r->nxs; i++) {
        json_t *o = json_array_get(a, (size_t)i);
        gen_xstat *x = &r->xs[i];
        x->x = (int)json_integer_value(json_object_get(o, "threads"));
        x->paths = (int)json_integer_value(json_object_get(o, "paths"));
        x->done = (int)json_integer_value(json_object_get(o, "done"));
        x->cut = (int)json_integer_value(json_object_get(o, "cut"));
        x->error = (int)json_integer_value(json_object_get(o, "errors"));
        x->legs_total = (int)json_integer_value(json_object_get(o, "legs_total"));
        x->legs_covered = (int)json_integer_value(json_object_get(o, "legs_covered"));
        x->budget_hit = json_is_true(json_object_get(o, "budget_hit"));
        x->path_cap = json_is_true(json_object_get(o, "path_budget_hit"));
        x->saturated = json_is_true(json_object_get(o, "saturated"));
        x->last_gain_s = json_number_value(json_object_get(o, "last_gain_s"));
        x->time_s = json_number_value(json_object_get(o, "time_s"));
    }
    return true;
}

static int kind_from_name(const char *s)
{
    return s && !strcmp(s, "cut") ? SX_PATH_CUT : s && !strcmp(s, "error") ? SX_PATH_ERROR : SX_PATH_DONE;
}

static bool read_paths(gen_result *r, json_t *a)
{
    r->npaths = (int)json_array_size(a);
    r->paths = calloc(r->npaths ? (size_t)r->npaths : 1, sizeof *r->paths);
    if (!r->paths) return false;
    int next_atom = 0;
    for (int i = 0; i < r->npaths; i++) {
        json_t *o = json_array_get(a, (size_t)i), *atoms = json_object_get(o, "atoms");
        gen_path *p = &r->paths[i];
        p->kind = kind_from_name(json_string_value(json_object_get(o, "kind")));
        p->brdiv = json_number_value(json_object_get(o, "brdiv"));
        p->instr = (uint64_t)json_integer_value(json_object_get(o, "instr"));
        p->warp_instr = (uint64_t)json_integer_value(json_object_get(o, "warp_instr"));
        p->intervals = (int)json_integer_value(json_object_get(o, "intervals"));
        p->uf = json_is_true(json_object_get(o, "uf"));
        p->first_atom = next_atom;
        p->natoms = (int)json_array_size(atoms);
        for (int k = 0; k < p->natoms; k++) p->nvalid += json_is_true(json_object_get(json_array_get(atoms, (size_t)k), "valid"));
        next_atom += p->natoms;
    }
    return true;
}

bool gen_paths_json_read(gen_result *r, const char *path, bool keep, wh_error *err)
{
    json_t *doc = wh_read_json(path, NULL, err);
    if (!doc)
        return false;
    r->x = (int)json_integer_value(json_object_get(doc, "threads"));
    r->legs_total = (int)json_integer_value(json_object_get(doc, "legs_total"));
    r->legs_covered = (int)json_integer_value(json_object_get(doc, "legs_covered"));
    r->atoms_valid = (int)json_integer_value(json_object_get(doc, "atoms_valid"));
    r->atoms_invalid = (int)json_integer_value(json_object_get(doc, "atoms_invalid"));
    r->atoms_hung = (int)json_integer_value(json_object_get(doc, "atoms_hung"));
    r->paths_without_atoms = (int)json_integer_value(json_object_get(doc, "paths_without_atoms"));
    const char *how = json_string_value(json_object_get(doc, "validation"));
    r->validated = how && !strcmp(how, "sim");
    r->time_s = json_number_value(json_object_get(doc, "explore_time_s"));
    r->atoms_s = json_number_value(json_object_get(doc, "atoms_time_s"));   /* 0 in older entries */
    json_t *unc = json_object_get(doc, "uncovered");
    r->uncovered = calloc(json_array_size(unc) + 1, sizeof *r->uncovered);
    bool ok = r->x > 0 && r->uncovered && read_xstats(r, json_object_get(doc, "coverage_per_x")) &&
              read_paths(r, json_object_get(doc, "paths"));
    for (size_t i = 0; ok && i < json_array_size(unc); i++) {
        const char *leg = json_string_value(json_array_get(unc, i));
        ok = (r->uncovered[r->nuncovered++] = strdup(leg ? leg : "")) != NULL;
    }
    if (ok && keep)
        r->doc = doc;
    else
        json_decref(doc);
    if (!ok) wh_error_set(err, WH_ERR_USER, path, 0, 0, "not a paths.json written by this version");
    return ok;
}

bool gen_result_write_paths_with_values(const gen_result *r, const char *path, wh_error *err)
{
    json_t *doc = r->doc ? json_deep_copy(r->doc) : wh_read_json(r->paths_json, NULL, err);
    if (!doc) {
        if (r->doc) wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "out of memory");
        return false;
    }
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *scratch = wh_image_new(r->spec, &l, err);
    bool ok = scratch != NULL;
    if (ok) {
        set_atoms(r, doc, scratch);
        ok = wh_write_json_atomic(path, doc, err);
    }
    wh_image_free(scratch);
    json_decref(doc);
    return ok;
}
