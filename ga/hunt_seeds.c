/*
 * hunt_seeds.c — a user's own inputs as the first individuals of a hunt
 * (`hunt --seed-inputs`), as a fuzzer takes a seed corpus.
 *
 * Each saved input is taken apart into genes (gen_unscale: one new atom per
 * thread group) so that the GA can breed it like any other individual.  The
 * gene layout can state almost every input exactly; where it cannot (a
 * shared input that is not a repetition of its first X-thread elements, or
 * an offset outside its type), the individual is the nearest input the
 * layout states, and the run says which buffers differ and by how many
 * elements: nothing is approximated silently.
 */
#include "core/alloc.h"
#include "ga/hunt_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool has_manifest(const char *dir)
{
    char p[1400];
    snprintf(p, sizeof p, "%s/manifest.json", dir);
    return access(p, R_OK) == 0;
}

/* dir itself, or dir/best (a run directory), into out. */
static bool input_at(const char *dir, char *out, size_t n)
{
    snprintf(out, n, "%s", dir);
    if (has_manifest(out)) return true;
    snprintf(out, n, "%s/best", dir);
    return has_manifest(out);
}

typedef struct {
    char **dirs;
    int n, cap;
} dir_list;

static void list_add(dir_list *l, const char *dir)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->dirs = wh_xrealloc(l->dirs, (size_t)l->cap * sizeof *l->dirs);
    }
    l->dirs[l->n++] = wh_xstrdup(dir);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* A given path: one input (or run), else each of its subdirectories that
 * is one, in name order (a run is the same whatever the file system's). */
static bool expand(const char *given, dir_list *l, wh_error *err)
{
    char at[1300];
    if (input_at(given, at, sizeof at)) {
        list_add(l, at);
        return true;
    }
    struct dirent **names;
    int n = scandir(given, &names, NULL, by_name), found = 0;
    for (int i = 0; i < n; i++) {
        char sub[1200];
        snprintf(sub, sizeof sub, "%s/%s", given, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && input_at(sub, at, sizeof at)) {
            list_add(l, at);
            found++;
        }
        free(names[i]);
    }
    if (n >= 0) free(names);
    if (!found)
        wh_error_set(err, WH_ERR_USER, given, 0, 0, "--seed-inputs: no saved input (manifest.json) here, in its "
                     "best/, or in a subdirectory (save one with `warphunt input import`)");
    return found > 0;
}

/* Elements of input buffer p that differ between a and b. */
static uint64_t differing(const wh_image *a, const wh_image *b, int p)
{
    const wh_buffer *x = &a->bufs[p], *y = &b->bufs[p];
    size_t es = x->param->elem_size;
    uint64_t n = 0;
    for (uint64_t e = 0; e < x->count; e++) n += memcmp(x->data + e * es, y->data + e * es, es) != 0;
    return n;
}

/* Take one input apart into genes; its run.json record says whether the
 * genes state it exactly, and if not where they differ. */
static json_t *take_seed(hunt *h, const char *dir, int *genes, wh_error *err)
{
    wh_image *seed = wh_image_load(h->spec, dir, err);
    if (!seed) return NULL;
    json_t *rec = NULL;
    const wh_launch *want = &h->img->launch, *got = &seed->launch;
    if (memcmp(want, got, sizeof *want)) {
        wh_error_set(err, WH_ERR_USER, dir, 0, 0, "--seed-inputs: saved for a launch of %u x %u threads, the hunt's "
                     "is %u x %u", got->grid[0] * got->grid[1] * got->grid[2], got->block[0] * got->block[1] * got->block[2],
                     want->grid[0] * want->grid[1] * want->grid[2], want->block[0] * want->block[1] * want->block[2]);
    } else if (gen_unscale(h->pool, &h->lay, seed, genes, err) && gen_scale(h->pool, &h->lay, genes, h->img, err)) {
        json_t *diff = json_object();
        for (int p = 0; p < seed->nbufs; p++) {
            uint64_t n = seed->bufs[p].param->role == WH_ROLE_INPUT ? differing(seed, h->img, p) : 0;
            if (n) json_object_set_new(diff, seed->bufs[p].param->name, json_integer((json_int_t)n));
        }
        char full_path[4096];
        rec = json_pack("{s:s, s:b, s:o}", "dir", realpath(dir, full_path) ? full_path : dir, "exact", json_object_size(diff) == 0,
                        "differing_elements", diff);
    }
    wh_image_free(seed);
    return rec;
}

static void say_inexact(const json_t *rec)
{
    char list[400] = "";
    size_t len = 0;
    const char *name;
    json_t *n;
    json_object_foreach(json_object_get(rec, "differing_elements"), name, n)
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s: %lld elements", len ? ", " : "", name,
                                    (long long)json_integer_value(n));
    fprintf(stderr, "hunt: seed %s is not exactly what the gene layout states (%s differ: a shared input "
            "repeats its first X-thread elements); its nearest input starts the search\n",
            json_string_value(json_object_get(rec, "dir")), list);
}

bool hunt_take_seeds(hunt *h, wh_error *err)
{
    dir_list l = { 0 };
    bool ok = true;
    for (int i = 0; ok && i < h->opt.nseed_inputs; i++) ok = expand(h->opt.seed_inputs[i], &l, err);
    if (ok && l.n > h->opt.ga.population) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--seed-inputs: %d inputs, more than a population (%d): give "
                     "--population %d or fewer seeds", l.n, h->opt.ga.population, l.n);
        ok = false;
    }
    h->seeds_json = json_array();
    h->seeds_given = json_array();
    for (int i = 0; i < h->opt.nseed_inputs; i++) { /* as given, for a restart from scratch */
        char full_path[4096];
        const char *g = h->opt.seed_inputs[i];
        json_array_append_new(h->seeds_given, json_string(realpath(g, full_path) ? full_path : g));
    }
    h->seeds = wh_xcalloc((size_t)(l.n ? l.n : 1), sizeof *h->seeds);
    int exact = 0;
    for (int i = 0; ok && i < l.n; i++) {
        h->seeds[i] = wh_xcalloc((size_t)h->lay.ngenes, sizeof **h->seeds);
        h->nseeds = i + 1;
        json_t *rec = take_seed(h, l.dirs[i], h->seeds[i], err);
        ok = rec != NULL;
        if (!ok) break;
        if (json_is_true(json_object_get(rec, "exact"))) exact++;
        else if (!h->opt.quiet) say_inexact(rec);
        json_array_append_new(h->seeds_json, rec);
    }
    if (ok && !h->opt.quiet)
        fprintf(stderr, "hunt: %d seed input%s first in the first population (%d stated exactly)\n", l.n,
                l.n == 1 ? "" : "s", exact);
    for (int i = 0; i < l.n; i++) free(l.dirs[i]);
    free(l.dirs);
    return ok;
}

void hunt_recall_seeds(hunt *h)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", h->dir);
    json_t *doc = json_load_file(path, 0, NULL);
    json_t *seeds = json_object_get(doc, "seed_inputs"), *given = json_object_get(doc, "seed_inputs_given");
    if (seeds) h->seeds_json = json_incref(seeds);
    if (given) h->seeds_given = json_incref(given);
    json_decref(doc);
}

void hunt_recall_seed_dirs(hunt *h, const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *doc = json_load_file(path, 0, NULL), *given = json_object_get(doc, "seed_inputs_given");
    size_t n = json_array_size(given);
    h->opt.nseed_inputs = 0;
    h->seed_dirs = wh_xcalloc(n ? n : 1, sizeof *h->seed_dirs);
    for (size_t k = 0; k < n && h->opt.nseed_inputs < HUNT_MAX_SEED_OPTIONS; k++) {
        const char *d = json_string_value(json_array_get(given, k));
        if (!d) continue;
        h->seed_dirs[h->nseed_dirs] = wh_xstrdup(d);
        h->opt.seed_inputs[h->opt.nseed_inputs++] = h->seed_dirs[h->nseed_dirs++];
    }
    json_decref(doc);
}

void hunt_free_seeds(hunt *h)
{
    for (int i = 0; i < h->nseed_dirs; i++) free(h->seed_dirs[i]);
    free(h->seed_dirs);
    for (int i = 0; i < h->nseeds; i++) free(h->seeds[i]);
    free(h->seeds);
    json_decref(h->seeds_json);
    json_decref(h->seeds_given);
}
