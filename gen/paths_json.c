/*
 * paths_json.c — paths.json: the symbolic stage's result, for people and
 * for the cache.  Written from a live exploration (formulas, decisions and
 * atom values included); read back for the metrics a hunt needs.
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
        json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:b, s:f}", "threads", x->x,
                                           "paths", x->paths, "done", x->done, "cut", x->cut, "error", x->error,
                                           "legs_total", x->legs_total, "legs_covered", x->legs_covered,
                                           "coverage", cov, "budget_hit", x->budget_hit, "time_s", x->time_s));
    }
    return a;
}

static json_t *decisions_json(const sx_path *p)
{
    json_t *threads = json_array();
    for (int t = 0; t < p->nthreads; t++) {
        json_t *d = json_array();
        for (int k = 0; k < p->ndecisions[t]; k++)
            json_array_append_new(d, json_pack("{s:i, s:b}", "line", p->decisions[t][k].line, "taken",
                                               p->decisions[t][k].taken));
        json_array_append_new(threads, d);
    }
    return threads;
}

static json_t *atoms_json(const gen_result *r, const gen_path *gp, wh_image *scratch)
{
    json_t *a = json_array();
    for (int k = 0; k < gp->natoms; k++) {
        int id = gp->first_atom + k;
        gen_pool_atom_to_image(&r->pool, id, scratch);
        json_array_append_new(a, json_pack("{s:i, s:b, s:o}", "atom", id, "valid", r->pool.atoms[id].valid,
                                           "inputs", wh_image_inputs_json(scratch)));
    }
    return a;
}

static json_t *path_json(const gen_result *r, const sx_path *p, int i, wh_image *scratch)
{
    const gen_path *gp = &r->paths[i];
    json_t *o = json_pack("{s:i, s:s, s:f, s:I, s:I, s:i, s:b}", "index", i, "kind", sx_path_kind_name(p->kind),
                          "brdiv", p->brdiv, "instr", (json_int_t)p->instr, "warp_instr",
                          (json_int_t)p->warp_instr, "intervals", p->intervals, "uf", p->uf);
    if (p->note) json_object_set_new(o, "note", json_string(p->note));
    json_object_set_new(o, "formula", json_string(p->formula ? p->formula : ""));
    json_object_set_new(o, "decisions", decisions_json(p));
    json_object_set_new(o, "atoms", atoms_json(r, gp, scratch));
    return o;
}

static json_t *issues_json(const sx_result *sx)
{
    static const char *const kinds[] = { "", "out-of-bounds", "barrier", "unsupported" };
    json_t *a = json_array();
    for (int i = 0; i < sx->nissues; i++) {
        const sx_issue *is = &sx->issues[i];
        json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:s}", "kind", kinds[is->kind], "line", is->line, "thread",
                              is->thread, "path", is->path, "message", is->message ? is->message : "");
        if (is->condition) json_object_set_new(o, "condition", json_string(is->condition));
        if (is->model) json_object_set_new(o, "model", json_string(is->model));
        json_array_append_new(a, o);
    }
    return a;
}

bool gen_paths_json_write(const gen_result *r, const sx_result *sx, const ptx_module *mod, const char *path,
                          wh_error *err)
{
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image *scratch = wh_image_new(r->spec, &l, err);
    if (!scratch) return false;
    json_t *uncovered = json_array();
    for (int i = 0; i < r->nuncovered; i++) json_array_append_new(uncovered, json_string(r->uncovered[i]));
    json_t *paths = json_array();
    for (int i = 0; i < sx->npaths; i++) json_array_append_new(paths, path_json(r, &sx->paths[i], i, scratch));
    json_t *doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:o, s:f, s:i, s:i, s:o, s:i, s:i, s:b,"
                            " s:i, s:i, s:i, s:o, s:f, s:f, s:o}",
                            "format", 1, "kernel", r->spec->name, "entry", r->spec->entry, "spec_hash",
                            r->spec->hash, "ptx", mod->name, "cache_key", r->cache_key, "threads", r->x,
                            "max_iter", sx->max_iter, "deepening", xstats_json(r), "coverage",
                            gen_result_coverage(r), "legs_total", r->legs_total, "legs_covered",
                            r->legs_covered, "uncovered", uncovered, "atoms_valid", r->atoms_valid,
                            "atoms_invalid", r->atoms_invalid, "validated", r->validated, "paths_done",
                            sx->ndone, "paths_cut", sx->ncut, "paths_error", sx->nerror, "issues",
                            issues_json(sx), "time_s", r->time_s, "solver_s", sx->solver_s, "paths", paths);
    wh_image_free(scratch);
    if (!doc) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot build paths.json");
        return false;
    }
    bool ok = wh_write_json_atomic(path, doc, err);
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
        x->error = (int)json_integer_value(json_object_get(o, "error"));
        x->legs_total = (int)json_integer_value(json_object_get(o, "legs_total"));
        x->legs_covered = (int)json_integer_value(json_object_get(o, "legs_covered"));
        x->budget_hit = json_is_true(json_object_get(o, "budget_hit"));
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

bool gen_paths_json_read(gen_result *r, const char *path, wh_error *err)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) {
        wh_error_set(err, WH_ERR_USER, path, jerr.line > 0 ? jerr.line : 0, 0, "%s", jerr.text);
        return false;
    }
    r->x = (int)json_integer_value(json_object_get(doc, "threads"));
    r->legs_total = (int)json_integer_value(json_object_get(doc, "legs_total"));
    r->legs_covered = (int)json_integer_value(json_object_get(doc, "legs_covered"));
    r->atoms_valid = (int)json_integer_value(json_object_get(doc, "atoms_valid"));
    r->atoms_invalid = (int)json_integer_value(json_object_get(doc, "atoms_invalid"));
    r->validated = json_is_true(json_object_get(doc, "validated"));
    r->time_s = json_number_value(json_object_get(doc, "time_s"));
    json_t *unc = json_object_get(doc, "uncovered");
    r->uncovered = calloc(json_array_size(unc) + 1, sizeof *r->uncovered);
    bool ok = r->x > 0 && r->uncovered && read_xstats(r, json_object_get(doc, "deepening")) &&
              read_paths(r, json_object_get(doc, "paths"));
    for (size_t i = 0; ok && i < json_array_size(unc); i++) {
        const char *leg = json_string_value(json_array_get(unc, i));
        ok = (r->uncovered[r->nuncovered++] = strdup(leg ? leg : "")) != NULL;
    }
    json_decref(doc);
    if (!ok) wh_error_set(err, WH_ERR_USER, path, 0, 0, "not a paths.json written by this version");
    return ok;
}
