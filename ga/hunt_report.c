/*
 * hunt_report.c — what a hunt writes: run.json, best/, findings/, the
 * plot, and the summary; and reading a run's options back for --resume.
 */
#include "core/hash.h"
#include "ga/hunt_internal.h"
#include "ga/islands.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef WH_VERSION
#error "WH_VERSION is set by the Makefile (VERSION)"
#endif

void hunt_record_finding(const hunt *h, const wh_image *img, const char *kind, long eval, const harness_result *res)
{
    char dir[1200], msg[1300];
    snprintf(dir, sizeof dir, "%s/findings/%s-%ld-%s", h->dir, kind, eval, harness_status_name(res->status));
    wh_error err;
    if (!wh_image_save(img, dir, &err)) return;
    snprintf(msg, sizeof msg, "%s/message.txt", dir);
    char text[1200];
    snprintf(text, sizeof text, "%s: %s\n", harness_status_name(res->status), res->message);
    wh_write_text_atomic(msg, text, &err);
    if (!h->opt.quiet)
        fprintf(stderr, "%shunt: finding at %s evaluation %ld (%s): %s\n", h->tty ? "\n" : "",
                strcmp(kind, "scout") ? "the search's" : "the scout's", eval, harness_status_name(res->status),
                res->message);
}

/* Copy the regular files of directory `from` into `to` (created). */
static bool copy_dir_files(const char *from, const char *to, wh_error *err)
{
    if (!wh_make_dirs(to, err))
        return false;
    DIR *d = opendir(from);
    if (!d)
        return false;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char src[1600], dst[1600];
        snprintf(src, sizeof src, "%s/%s", from, e->d_name);
        snprintf(dst, sizeof dst, "%s/%s", to, e->d_name);
        ok = wh_copy_file(src, dst, err);
    }
    closedir(d);
    return ok;
}

void hunt_take_issue_findings(hunt *h)
{
    const char *idir = h->explored ? h->explored->issues_dir : NULL;
    DIR *d = idir ? opendir(idir) : NULL;
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strstr(e->d_name, "-fault") && !strstr(e->d_name, "-timeout"))
            continue;
        char from[1200], to[1300];
        snprintf(from, sizeof from, "%s/%s", idir, e->d_name);
        snprintf(to, sizeof to, "%s/findings/symbolic-%s", h->dir, e->d_name);
        wh_error err;
        if (!copy_dir_files(from, to, &err))
            continue;
        h->findings++;
        if (!h->opt.quiet)
            fprintf(stderr, "hunt: finding from the symbolic stage: %s (input and message in %s)\n", e->d_name, to);
    }
    closedir(d);
}

/* What the harness was told beyond the backend: how a GPU measured. */
static json_t *harness_json(const harness_options *given)
{
    harness_options r = *given;
    harness_options_resolve(&r);
    const harness_options *o = &r;
    return json_pack("{s:b, s:i, s:f, s:I, s:I, s:f}", "cold_l2", o->cold_l2, "warmup", o->warmup,
                     "kernel_timeout_s", o->kernel_timeout_s, "step_limit", (json_int_t)o->step_limit,
                     "sim_local_mb", (json_int_t)o->sim_local_mb, "sim_noise", o->sim_noise);
}

/* What the throttling and noise rules did (hunt_measure.c). */
static json_t *measurement_json(const hunt *h)
{
    long reps = 0, noisy = 0, capped = 0, retries = 0, throttled = 0;
    for (int k = 0; k < h->njobs; k++) {
        const hunt_worker *w = &h->workers[k];
        reps += w->reps, noisy += w->noisy, capped += w->noisy_capped;
        retries += w->throttle_retries, throttled += w->throttled;
    }
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "runs", (json_int_t)reps, "noisy_evals", (json_int_t)noisy,
                     "noisy_evals_at_max_reps", (json_int_t)capped, "throttle_retries", (json_int_t)retries,
                     "throttled_evals", (json_int_t)throttled);
}

static json_t *edits_json(const hunt *h, const ga_indiv *ind);

/* The first ARCHIVE_NAMED nonzero maxima the archive's input i holds:
 * {"location": "file.ptx:45 atom... (atomic wait)", "count": N}. */
#define ARCHIVE_NAMED 8
static json_t *archive_maxima_json(const hunt *h, int i)
{
    json_t *list = json_array();
    int n = harness_locations(h->h);
    for (int l = 0; list && l < n && json_array_size(list) < ARCHIVE_NAMED; l++) {
        int holder;
        double best = ga_archive_best(h->g, l, &holder);
        char name[512];
        if (holder != i || best <= 0 || !harness_location_name(h->h, l, name, sizeof name)) continue;
        json_array_append_new(list, json_pack("{s:s, s:f}", "location", name, "count", best));
    }
    return list;
}

/* Lane amplification (hunt_lanes.c): children made, and the record the
 * last one was made from (the busiest thread, its instructions, the
 * evaluation that ran it); its extension's tries since this process
 * started the run. */
static json_t *lanes_json(const hunt *h)
{
    const ga_indiv *hot = ga_hot(h->g);
    json_t *o = json_pack("{s:I}", "children", (json_int_t)ga_amplified(h->g));
    const hunt_lane_extension *x = &h->lanes;
    if (o && h->opt.lane_extend)
        json_object_set_new(o, "extension", json_pack("{s:I, s:I, s:f, s:b}", "tries", (json_int_t)x->tries, "extended",
                                                      (json_int_t)x->extended, "seconds", x->seconds, "stopped",
                                                      x->off));
    if (o && hot)
        json_object_set_new(o, "busiest", json_pack("{s:I, s:f, s:I, s:f}", "thread", (json_int_t)hot->hot_unit,
                                                     "instructions", hot->hot_work, "eval", (json_int_t)hot->eval_index,
                                                     "fitness", hot->fitness));
    return o;
}

/* The location feedback's archive (ga/archive.c): how many counters the
 * harness gave, how many an input holds the maximum of, how many inputs
 * those are, how many children took a parent from them. */
static json_t *archive_json(const hunt *h)
{
    int n = h->opt.location_feedback && h->opt.harness.want_locations ? harness_locations(h->h) : 0;
    json_t *o = json_pack("{s:i, s:i, s:i, s:I}", "locations", n, "held", ga_archive_locations(h->g), "inputs",
                          ga_archive_size(h->g), "children", (json_int_t)ga_archive_children(h->g));
    json_t *list = json_array();
    for (int i = 0; o && list && i < ga_archive_size(h->g); i++) {
        int held;
        const ga_indiv *in = ga_archive_input(h->g, i, &held);
        json_t *e = json_pack("{s:I, s:f, s:i}", "eval", (json_int_t)in->eval_index, "fitness", in->fitness,
                              "holds", held);
        json_object_set_new(e, "value_edits", edits_json(h, in));
        json_object_set_new(e, "maxima", archive_maxima_json(h, i));
        json_array_append_new(list, e);
    }
    if (o) json_object_set_new(o, "list", list);
    return o;
}

static json_t *options_json(const hunt *h)
{
    const ga_options *g = &h->opt.ga;
    json_t *o = json_pack("{s:s, s:I, s:i, s:f, s:f, s:f, s:f, s:I, s:f, s:f, s:i, s:i, s:i, s:i, s:s, s:f, s:i, s:s, s:f}",
                     "strategy", ga_strategy_name(h->opt.strategy), "seed", (json_int_t)h->opt.seed,
                     "population", g->population, "elite", g->elite_frac, "mutation", g->mutation_prob,
                     "special", g->special_frac, "random_gene", g->random_gene_prob, "max_evals",
                     (json_int_t)g->max_evals, "max_seconds", g->max_seconds, "epsilon", g->epsilon,
                     "patience", g->patience, "reps", h->reps, "final_reps",
                     h->opt.final_reps > 0 ? h->opt.final_reps : 30, "x", h->pool ? h->pool->x : 0, "backend",
                     harness_backend_name(h->opt.backend), "explore_time", h->opt.explore.time_s,
                     "explore_models", h->opt.explore.models, "tiling", hunt_tiling_name(h->opt.tiling),
                     "segment", g->segment_prob);
    if (o) json_object_set_new(o, "keep", json_integer(g->keep));
    if (o) json_object_set_new(o, "random_individuals", json_real(g->random_frac));
    if (o) json_object_set_new(o, "value_edits", json_integer(h->opt.value_edits));
    if (o) json_object_set_new(o, "warp_first", json_integer(h->opt.warp_first));
    if (o) json_object_set_new(o, "warp_refine", json_integer(h->opt.warp_refine));
    if (o) json_object_set_new(o, "refine_dictionary", json_boolean(h->opt.refine_dictionary));
    if (o) json_object_set_new(o, "refine_work_ties", json_boolean(h->opt.refine_work_ties));
    if (o) json_object_set_new(o, "scout", json_boolean(h->opt.scout));
    if (o) json_object_set_new(o, "scout_head", json_integer(h->opt.scout_head));
    if (o) json_object_set_new(o, "scout_screen", json_boolean(h->opt.scout_screen));
    if (o) json_object_set_new(o, "edit_screen", json_boolean(h->opt.edit_screen));
    if (o) json_object_set_new(o, "end_edits", json_boolean(h->opt.end_edits));
    if (o) json_object_set_new(o, "location_feedback", json_boolean(h->opt.location_feedback));
    if (o) json_object_set_new(o, "lane_amplify", json_boolean(h->opt.lane_amplify));
    if (o) json_object_set_new(o, "lane_extend", json_boolean(h->opt.lane_extend));
    if (o) json_object_set_new(o, "archive_share", json_real(g->archive_frac));
    if (o) json_object_set_new(o, "explore_families", json_integer(h->opt.explore.families));
    if (o) json_object_set_new(o, "harness", harness_json(&h->opt.harness));
    if (o) json_object_set_new(o, "explore_paths", json_integer(h->opt.explore.path_budget));
    if (o) json_object_set_new(o, "explore_saturation", json_real(h->opt.explore.saturation_s));
    if (o) json_object_set_new(o, "explore_order",
                               json_string(h->opt.explore.order == SX_ORDER_TIME ? "time" : "random"));
    if (o) json_object_set_new(o, "migrate_every", json_integer(h->opt.migrate_every));
    if (o) json_object_set_new(o, "migrants", json_integer(h->opt.migrants));
    if (o) json_object_set_new(o, "topology", json_string(hunt_topology_name(h->opt.topology)));
    if (o) json_object_set_new(o, "sync_dir", h->opt.sync_dir ? json_string(h->opt.sync_dir) : json_null());
    if (o) json_object_set_new(o, "sync_id", h->opt.sync_dir ? json_string(h->opt.sync_id) : json_null());
    if (o) json_object_set_new(o, "noise_rsd", json_real(h->opt.noise_rsd));
    if (o) json_object_set_new(o, "max_reps", json_integer(h->opt.max_reps));
    return o;
}

static json_t *explore_json(const hunt *h)
{
    const gen_result *r = h->explored;
    json_t *failed = h->explore_failure[0] ? json_pack("{s:s, s:i}", "failed", h->explore_failure,
                                                       "fallback_atoms", HUNT_FALLBACK_ATOMS) : NULL;
    if (!r) return failed ? failed : json_null();
    json_t *per_x = json_array();
    for (int i = 0; i < r->nxs; i++)
        json_array_append_new(per_x, json_pack("{s:i, s:i, s:i, s:i, s:b, s:f}", "threads", r->xs[i].x, "paths",
                                               r->xs[i].paths, "legs_total", r->xs[i].legs_total,
                                               "legs_covered", r->xs[i].legs_covered, "saturated",
                                               r->xs[i].saturated, "time_s", r->xs[i].time_s));
    json_t *o = json_pack("{s:i, s:i, s:f, s:i, s:i, s:i, s:i, s:b, s:b, s:f, s:s, s:o}", "threads", r->x, "paths",
                     r->npaths, "coverage", gen_result_coverage(r), "legs_total", r->legs_total, "legs_covered",
                     r->legs_covered, "atoms_valid", r->atoms_valid, "atoms_invalid", r->atoms_invalid,
                     "validated", r->validated, "cached", r->from_cache, "time_s", r->time_s, "cache_key",
                     r->cache_key, "per_x", per_x);
    if (o) json_object_set_new(o, "families", json_pack("{s:i, s:i, s:i}", "count", r->families, "atoms",
                                                        r->family_atoms, "valid", r->family_valid));
    if (failed) json_object_update(o, failed);
    json_decref(failed);
    return o;
}

/* Value edit codes, described ("fill-copy edges[0..8)"); 0s skipped. */
static json_t *codes_json(const hunt *h, const int *codes, int n)
{
    json_t *list = json_array();
    for (int k = 0; k < n; k++) {
        gen_edit e;
        char text[300];
        gen_edit_decode(h->img, (uint32_t)codes[k], &e);
        if (e.kind == GEN_EDIT_NONE) continue;
        gen_edit_describe(&e, h->img, text, sizeof text);
        json_array_append_new(list, json_string(text));
    }
    return list;
}

/* The value edits an individual applies. */
static json_t *edits_json(const hunt *h, const ga_indiv *ind)
{
    return codes_json(h, ind->genes + h->lay.ngenes, hunt_edit_genes(h));
}

static json_t *best_json(const hunt *h)
{
    const hunt_summary *s = h->sum;
    const ga_indiv *b = h->g ? ga_best(h->g) : NULL;
    if (!b && !s->best_from_scout) return json_null();
    json_t *o = json_pack("{s:f, s:I, s:f, s:i, s:f, s:f, s:f, s:f, s:f, s:I}", "fitness", s->best, "eval",
                          (json_int_t)s->evals_to_best, "time_s", s->time_to_best_s, "final_reps", s->final_reps,
                          "mean", s->final_mean, "min", s->final_min, "median", s->final_median, "max",
                          s->final_max, "stddev", s->final_stddev, "stride", (json_int_t)s->best_stride);
    if (o) json_object_set_new(o, "source", json_string(s->best_from_scout ? "scout" : "search"));
    if (o && b && b->genes && !s->best_from_scout) json_object_set_new(o, "value_edits", edits_json(h, b));
    if (o && s->best_from_scout)   /* the scout's random input, with its screen's edits */
        json_object_set_new(o, "value_edits", codes_json(h, h->scout.best_edits.codes, h->scout.best_edits.n));
    return o;
}

/* Where and how the run was made: for a result read months later. */
static void provenance_json(const hunt *h, const char *ptx, json_t *doc)
{
    char host[256] = "", hash[17];
    gethostname(host, sizeof host - 1);
    json_object_set_new(doc, "started_utc", json_string(h->started));
    json_object_set_new(doc, "host", json_string(host));
    json_t *cmd = json_array();
    if (h->opt.argc > 0) json_array_append_new(cmd, json_string("warphunt"));
    for (int i = 0; i < h->opt.argc; i++) json_array_append_new(cmd, json_string(h->opt.argv[i]));
    json_object_set_new(doc, "command", cmd);
    wh_file_hash_hex(ptx, hash);
    json_object_set_new(doc, "ptx_hash", json_string(hash));
    /* the binary's own bytes name the build exactly */
    wh_file_hash_hex("/proc/self/exe", hash);
    json_object_set_new(doc, "build_id", json_string(hash));
}

/* An absolute path without "." and ".." where the file exists. */
static void normal_path(const char *path, char *out, size_t n)
{
    char real[PATH_MAX];
    snprintf(out, n, "%s", path[0] && realpath(path, real) ? real : path);
}

bool hunt_write_run_json(hunt *h, const char *state, wh_error *err)
{
    char found[1024] = "", ptx[PATH_MAX + 1], spec[PATH_MAX + 1];
    wh_error perr;
    wh_spec_ptx_path(h->spec, found, sizeof found, &perr);
    normal_path(found, ptx, sizeof ptx);
    normal_path(h->spec->path, spec, sizeof spec);
    json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:o, s:o}", "tool",
                            "warphunt " WH_VERSION, "state", state, "kernel", h->spec->name, "spec", spec,
                            "spec_hash", h->spec->hash, "ptx", ptx, "backend",
                            h->h ? harness_backend_name(harness_backend_of(h->h)) : "", "device",
                            h->h ? harness_device(h->h) : "", "clock_mhz", h->h ? harness_clock_mhz(h->h) : 0.0,
                            "options", options_json(h), "explore", explore_json(h));
    json_object_set_new(doc, "unit", json_string(h->h ? harness_unit(h->h) : ""));
    json_object_set_new(doc, "device_info", h->h ? harness_device_json(h->h) : json_null());
    provenance_json(h, ptx, doc);
    if (h->warp.unit_threads)
        json_object_set_new(doc, "warp_first", json_pack("{s:i, s:I, s:f, s:I, s:I, s:b, s:b, s:{s:I, s:f, s:I, s:I, s:i}}",
                                                         "unit_threads", h->warp.unit_threads, "sim_launches",
                                                         (json_int_t)h->warp.evaluations, "seconds", h->warp.seconds,
                                                         "uniform_cycles", (json_int_t)h->warp.uniform_cycles,
                                                         "cycles", (json_int_t)h->warp.cycles, "budget_hit",
                                                         h->warp.budget_hit, "individual", h->warp.kept, "refine",
                                                         "sim_launches", (json_int_t)h->warp.refine_evaluations,
                                                         "seconds", h->warp.refine_seconds, "cycles",
                                                         (json_int_t)h->warp.refined_cycles, "elements_changed",
                                                         (json_int_t)h->warp.refined_elements, "threads",
                                                         h->warp.refine_threads));
    if (h->seeds_json) json_object_set(doc, "seed_inputs", h->seeds_json);
    if (h->seeds_given) json_object_set(doc, "seed_inputs_given", h->seeds_given);
    if (h->spec->nsets) { /* the constants given with --set: a resume re-applies them */
        json_t *sets = json_array();
        for (int k = 0; k < h->spec->nsets; k++) json_array_append_new(sets, json_string(h->spec->sets[k]));
        json_object_set_new(doc, "spec_sets", sets);
    }
    json_object_set_new(doc, "scout", hunt_scout_json(h));
    if (h->search_offset_s > 0) json_object_set_new(doc, "search_offset_s", json_real(h->search_offset_s));
    if (h->g) {
        json_object_set_new(doc, "evals", json_integer(ga_evals(h->g) + h->scout.evals));
        json_object_set_new(doc, "search_evals", json_integer(ga_evals(h->g)));
        json_object_set_new(doc, "generations", json_integer(ga_generation(h->g)));
        json_object_set_new(doc, "edit_screen", json_pack("{s:i, s:i}", "codes", h->opt.edit_screen ? h->nscreen : 0, "rounds",
                                                          ga_screen_rounds(h->g)));
        json_object_set_new(doc, "archive", archive_json(h));
        if (hunt_lanes_on(h)) json_object_set_new(doc, "lane_amplify", lanes_json(h));
        json_object_set_new(doc, "stop_reason", json_string(ga_stop_reason_name(ga_get_stop_reason(h->g))));
        json_object_set_new(doc, "findings", json_integer(h->findings));
        json_object_set_new(doc, "best", best_json(h));
        if (h->top) json_object_set(doc, "top", h->top);
        json_object_set_new(doc, "time_s", json_real(h->sum->time_s));
        json_object_set_new(doc, "measure_s", json_real(h->sum->measure_s));
        json_object_set_new(doc, "jobs", json_integer(h->njobs));
        json_object_set_new(doc, "measurement", measurement_json(h));
        if (h->root[0])
            json_object_set_new(doc, "island", json_pack("{s:i, s:i, s:s, s:I, s:I, s:I, s:f}", "rank",
                                                         wh_islands_rank(h->opt.islands), "of",
                                                         wh_islands_size(h->opt.islands), "run", h->root,
                                                         "ga_seed", (json_int_t)hunt_island_seed(h), "migrations",
                                                         (json_int_t)h->migrations, "immigrants",
                                                         (json_int_t)h->immigrants, "comm_s", h->comm_s));
        json_object_set_new(doc, "state_dropped", json_boolean(h->state_dropped));
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/run.json", h->dir);
    bool ok = wh_write_json_atomic(path, doc, err);
    json_decref(doc);
    return ok;
}

static void fill_final(hunt_summary *s, const harness_result *r)
{
    s->final_reps = r->reps;
    s->final_mean = r->mean;
    s->final_min = r->min;
    s->final_median = r->median;
    s->final_max = r->max;
    s->final_stddev = r->stddev;
}

static void fill_summary(hunt *h)
{
    hunt_summary *s = h->sum;
    snprintf(s->dir, sizeof s->dir, "%s", h->dir);
    s->strategy = h->opt.strategy;
    snprintf(s->backend, sizeof s->backend, "%s", harness_backend_name(harness_backend_of(h->h)));
    snprintf(s->device, sizeof s->device, "%s", harness_device(h->h));
    snprintf(s->unit, sizeof s->unit, "%s", harness_unit(h->h));
    s->seed = h->opt.seed;
    s->evals = ga_evals(h->g);
    s->evals_to_best = ga_evals_to_best(h->g);
    s->time_s = ga_elapsed(h->g);
    s->time_to_best_s = ga_time_to_best(h->g);
    s->measure_s = hunt_measure_s(h);
    s->explore_s = h->explore_s;
    s->search_offset_s = h->search_offset_s;
    s->jobs = h->njobs;
    s->generations = ga_generation(h->g);
    s->stop = ga_get_stop_reason(h->g);
    s->findings = h->findings;
    s->x = h->opt.strategy == GA_RANDOM ? 0 : h->pool ? h->pool->x : 0;
    const ga_indiv *b = ga_best(h->g);
    s->best = b ? b->fitness : 0;
    s->strided = h->lay.tiling_gene >= 0 && h->opt.strategy != GA_RANDOM;
    s->best_stride = b && s->strided ? gen_tiling_stride(b->genes[h->lay.tiling_gene]) : 0;
    s->scout_evals = h->scout.evals;
    s->scout_best = h->scout.best > 0 ? h->scout.best : 0;
    /* the scout's evaluations came first: one numbering for the run */
    s->evals += h->scout.evals;
    s->evals_to_best += h->scout.evals;
    if ((s->best_from_scout = hunt_scout_wins(h))) {
        s->best = h->scout.best;
        s->evals_to_best = h->scout.best_eval;
        s->time_to_best_s = h->scout.best_time_s;
        s->best_stride = 0;
    }
    s->value_edits = hunt_edit_genes(h);
    s->locations = h->opt.location_feedback && h->opt.harness.want_locations ? harness_locations(h->h) : 0;
    s->lanes_amplified = hunt_lanes_on(h) ? ga_amplified(h->g) : -1;
    s->lanes_extended = hunt_lanes_on(h) && h->opt.lane_extend ? h->lanes.extended : -1;
    s->locations_held = ga_archive_locations(h->g);
    s->archive_inputs = ga_archive_size(h->g);
    s->archive_children = ga_archive_children(h->g);
    if (h->explored) {
        s->coverage = gen_result_coverage(h->explored);
        s->paths = h->explored->npaths;
        s->atoms_valid = h->explored->atoms_valid;
        s->atoms_invalid = h->explored->atoms_invalid;
        s->explore_cached = h->explored->from_cache;
    }
    snprintf(s->explore_failure, sizeof s->explore_failure, "%s", h->explore_failure);
}

static void render_plot(hunt *h)
{
    if (h->hist.error) return;   /* the history is incomplete: no curve from it */
    char csv[1100], stem[1100], title[300];
    snprintf(csv, sizeof csv, "%s/history.csv", h->dir);
    snprintf(stem, sizeof stem, "%s/plot", h->dir);
    snprintf(title, sizeof title, "%s: %s, seed %llu", h->spec->name, ga_strategy_name(h->opt.strategy),
             (unsigned long long)h->opt.seed);
    wh_plot_curve c = { csv, ga_strategy_name(h->opt.strategy) };
    bool rendered;
    wh_error err;
    wh_plot_convergence(stem, title, harness_unit(h->h), &c, 1, &rendered, &err);
}

static json_t *final_json(const harness_result *r)
{
    return json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:f}", "status", harness_status_name(r->status), "reps",
                     r->reps, "mean", r->mean, "min", r->min, "median", r->median, "max", r->max, "stddev",
                     r->stddev);
}

/* top/NN/: the --keep longest-running distinct inputs, best first, each
 * re-measured like the best (the first is the search's best: its
 * measurement is reused, unless best_final is NULL: the scout's input was
 * the run's best).  A re-run that faults is recorded with its status. */
static bool save_top(hunt *h, const harness_result *best_final, int reps, wh_error *err)
{
    int n;
    const ga_indiv *top = ga_top(h->g, &n);
    if (h->opt.ga.keep <= 1 || n == 0) return true;
    h->top = json_array();
    for (int k = 0; k < n; k++) {
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/top/%0*d", h->dir, n >= 100 ? 3 : 2, k + 1);
        harness_result r;
        const harness_result *fin = best_final;
        bool measure = k > 0 || !best_final;
        if (measure) {
            if (!hunt_build_image(h, &top[k], h->img, err) || !harness_measure(h->h, h->img, reps, &r, err)) return false;
            fin = &r;
        } else if (!hunt_build_image(h, &top[k], h->img, err)) {
            return false;
        }
        json_t *e = json_pack("{s:i, s:f, s:I, s:s, s:o}", "rank", k + 1, "fitness", top[k].fitness, "eval",
                              (json_int_t)top[k].eval_index, "dir", dir, "final", final_json(fin));
        json_array_append_new(h->top, e);
        if (measure) harness_result_free(&r);
        if (!wh_image_save(h->img, dir, err)) return false;
    }
    if (!h->opt.quiet) fprintf(stderr, "hunt: the %d longest-running distinct inputs are in %s/top/\n", n, h->dir);
    return true;
}

/* Size of checkpoint.bin + pool.bin in MB, after removing them if `drop`. */
static double search_state_mb(const hunt *h, bool drop)
{
    static const char *const files[] = { "checkpoint.bin", "pool.bin" };
    double mb = 0;
    for (int i = 0; i < 2; i++) {
        char path[1100];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", h->dir, files[i]);
        if (drop) remove(path);
        else if (stat(path, &st) == 0) mb += (double)st.st_size / 1e6;
    }
    return mb;
}

bool hunt_finish(hunt *h, wh_error *err)
{
    fill_summary(h);
    const ga_indiv *b = ga_best(h->g);
    if (h->sum->best_from_scout || b) {
        bool built = h->sum->best_from_scout
                         ? hunt_build_scouted(h->scout.best_seed, &h->scout.best_edits, h->img, err)
                         : hunt_build_image(h, b, h->img, err);
        if (!built) return false;
        harness_result r;
        int reps = h->opt.final_reps > 0 ? h->opt.final_reps : 30;
        if (!harness_measure(h->h, h->img, reps, &r, err)) return false;
        fill_final(h->sum, &r);
        char best[1100];
        snprintf(best, sizeof best, "%s/best", h->dir);
        bool ok = wh_image_save(h->img, best, err) && save_top(h, h->sum->best_from_scout ? NULL : &r, reps, err);
        harness_result_free(&r);
        if (!ok) return false;
    } else if (!h->opt.quiet) {
        fprintf(stderr, "hunt: no evaluation succeeded; see %s/findings/\n", h->dir);
    }
    long throttled = 0;
    for (int k = 0; k < h->njobs; k++) throttled += h->workers[k].throttled;
    if (throttled && !h->opt.quiet)
        fprintf(stderr, "hunt: %ld evaluation%s stayed throttled after %d tries (the GPU's clocks were down) and "
                        "ranked last with fitness 0; run.json's measurement says more\n",
                throttled, throttled == 1 ? "" : "s", HUNT_THROTTLE_RETRIES + 1);
    render_plot(h);
    ga_stop_reason stop = ga_get_stop_reason(h->g);
    bool finished = stop != GA_STOP_INTERRUPTED && stop != GA_STOP_ERROR;
    h->state_dropped = finished && h->opt.drop_state;
    h->sum->state_mb = search_state_mb(h, h->state_dropped);
    return hunt_write_run_json(h, stop == GA_STOP_INTERRUPTED ? "interrupted" : stop == GA_STOP_ERROR ? "failed"
                                                                                                       : "finished",
                               err);
}

json_t *hunt_summary_json(const hunt_summary *s)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:f, s:I, s:I, s:f, s:f, s:s, s:I, s:s, s:I, s:i}", "strategy",
                          ga_strategy_name(s->strategy), "backend", s->backend, "device", s->device, "unit",
                          s->unit, "best", s->best, "evals", (json_int_t)s->evals, "evals_to_best",
                          (json_int_t)s->evals_to_best, "time_s", s->time_s, "time_to_best_s", s->time_to_best_s,
                          "stop_reason", ga_stop_reason_name(s->stop), "seed", (json_int_t)s->seed, "dir", s->dir,
                          "findings", (json_int_t)s->findings, "x", s->x);
    json_object_set_new(o, "measure_s", json_real(s->measure_s));
    json_object_set_new(o, "jobs", json_integer(s->jobs));
    json_object_set_new(o, "best_source", json_string(s->best_from_scout ? "scout" : "search"));
    if (s->scout_evals)
        json_object_set_new(o, "scout", json_pack("{s:I, s:f}", "evals", (json_int_t)s->scout_evals, "best",
                                                  s->scout_best));
    json_object_set_new(o, "state_mb", json_real(s->state_mb));
    if (s->islands > 1) {
        json_object_set_new(o, "islands", json_integer(s->islands));
        json_object_set_new(o, "best_island", json_integer(s->best_island));
        json_object_set_new(o, "islands_lost", json_integer(s->islands_lost));
    }
    /* --keep N: the top list as run.json has it (rank, fitness, eval, dir, final) */
    char path[1100];
    snprintf(path, sizeof path, "%s/run.json", s->dir);
    json_t *run = json_load_file(path, 0, NULL);
    json_t *top = json_object_get(run, "top");
    if (top) json_object_set(o, "top", top);
    json_decref(run);
    json_object_set_new(o, "tiling", json_string(s->strided ? "stride" : "plain"));
    json_object_set_new(o, "best_stride", json_integer((json_int_t)s->best_stride));
    json_object_set_new(o, "generations", json_integer(s->generations));
    json_object_set_new(o, "final", json_pack("{s:i, s:f, s:f, s:f, s:f, s:f}", "reps", s->final_reps, "mean",
                                              s->final_mean, "min", s->final_min, "median", s->final_median,
                                              "max", s->final_max, "stddev", s->final_stddev));
    if (s->strategy == GA_GDIVAN) {
        json_t *x = json_pack("{s:f, s:i, s:i, s:i, s:b}", "coverage", s->coverage, "paths", s->paths, "atoms_valid",
                              s->atoms_valid, "atoms_invalid", s->atoms_invalid, "cached", s->explore_cached);
        json_object_set_new(x, "wall_s", json_real(s->explore_s));
        if (s->explore_failure[0]) json_object_set_new(x, "failed", json_string(s->explore_failure));
        json_object_set_new(o, "explore", x);
    }
    return o;
}

/* How the run measured (harness_json) is part of the run: a resumed run
 * measures the same way.  Runs made before a field existed keep what was
 * given now. */
static void read_saved_harness(json_t *j, harness_options *h)
{
    json_t *v;
    if ((v = json_object_get(j, "cold_l2"))) h->cold_l2 = json_is_true(v);
    if ((v = json_object_get(j, "warmup"))) h->warmup = (int)json_integer_value(v);
    if ((v = json_object_get(j, "kernel_timeout_s"))) h->kernel_timeout_s = json_number_value(v);
    if ((v = json_object_get(j, "step_limit"))) h->step_limit = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(j, "sim_local_mb"))) h->sim_local_mb = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(j, "sim_noise"))) h->sim_noise = json_number_value(v);
}

bool hunt_read_saved_options(const char *dir, const wh_spec *spec, hunt_options *o, int *x, wh_error *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *doc = wh_read_json(path, "cannot resume", err);
    if (!doc)
        return false;
    json_t *opt = json_object_get(doc, "options");
    const char *hash = json_string_value(json_object_get(doc, "spec_hash"));
    const char *strat = json_string_value(json_object_get(opt, "strategy"));
    bool ok = hash && strat && ga_strategy_from_name(strat, &o->strategy);
    if (!ok) wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot resume: not a hunt's run.json");
    else if (json_is_true(json_object_get(doc, "state_dropped"))) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot resume: the run finished and its search state was "
                     "removed (--drop-state); start a new run");
        ok = false;
    }
    else if (strcmp(hash, spec->hash)) {
        const char *made = json_string_value(json_object_get(doc, "spec"));
        wh_error_set(err, WH_ERR_USER, path, 0, 0,
                     "cannot resume: the run was made with the spec %s (hash %s); %s is not that file as it was "
                     "(hash %s)", made ? made : "(not recorded)", hash, spec->path, spec->hash);
        ok = false;
    }
    if (ok) {
        /* Budgets given now (--evals, --time) extend a run; the rest is the run's own. */
        long evals = o->ga.max_evals;
        double secs = o->ga.max_seconds;
        o->seed = (uint64_t)json_integer_value(json_object_get(opt, "seed"));
        o->ga.population = (int)json_integer_value(json_object_get(opt, "population"));
        o->ga.elite_frac = json_number_value(json_object_get(opt, "elite"));
        o->ga.mutation_prob = json_number_value(json_object_get(opt, "mutation"));
        /* runs made before segment mutations existed had none */
        o->ga.segment_prob = json_number_value(json_object_get(opt, "segment"));
        o->ga.special_frac = json_number_value(json_object_get(opt, "special"));
        o->ga.random_gene_prob = json_number_value(json_object_get(opt, "random_gene"));
        /* runs made before random-value individuals existed had none */
        o->ga.random_frac = json_number_value(json_object_get(opt, "random_individuals"));
        /* runs made before value edits existed had none */
        o->value_edits = (int)json_integer_value(json_object_get(opt, "value_edits"));
        /* ...nor a warp-first individual (only the first population has one) */
        o->warp_first = (int)json_integer_value(json_object_get(opt, "warp_first"));
        o->warp_refine = (long)json_integer_value(json_object_get(opt, "warp_refine"));
        /* ...and refinement drew uniformly before the dictionary */
        o->refine_dictionary = json_is_true(json_object_get(opt, "refine_dictionary"));
        /* ...and kept longer units only before work ties */
        o->refine_work_ties = json_is_true(json_object_get(opt, "refine_work_ties"));
        /* ...nor a scout (it only runs beside a first exploration) */
        o->scout = json_is_true(json_object_get(opt, "scout"));
        json_t *head = json_object_get(opt, "scout_head");   /* runs made before the head start: the default */
        o->scout_head = json_is_integer(head) ? (long)json_integer_value(head) : -1;
        /* ...nor the scout's screen */
        o->scout_screen = json_is_true(json_object_get(opt, "scout_screen"));
        /* ...nor an edit screen */
        o->edit_screen = json_is_true(json_object_get(opt, "edit_screen"));
        /* ...nor the ends edit in it */
        o->end_edits = json_is_true(json_object_get(opt, "end_edits"));
        /* ...nor location feedback */
        o->location_feedback = json_is_true(json_object_get(opt, "location_feedback"));
        /* ...nor lane amplification */
        o->lane_amplify = json_is_true(json_object_get(opt, "lane_amplify"));
        /* ...nor lane extension */
        o->lane_extend = json_is_true(json_object_get(opt, "lane_extend"));
        if (json_is_number(json_object_get(opt, "archive_share")))
            o->ga.archive_frac = json_number_value(json_object_get(opt, "archive_share"));
        o->ga.max_evals = evals ? evals : (long)json_integer_value(json_object_get(opt, "max_evals"));
        o->ga.max_seconds = secs ? secs : json_number_value(json_object_get(opt, "max_seconds"));
        o->ga.epsilon = json_number_value(json_object_get(opt, "epsilon"));
        o->ga.patience = (int)json_integer_value(json_object_get(opt, "patience"));
        o->reps = (int)json_integer_value(json_object_get(opt, "reps"));
        o->final_reps = (int)json_integer_value(json_object_get(opt, "final_reps"));
        /* runs made before islands: the defaults */
        o->migrate_every = (int)json_integer_value(json_object_get(opt, "migrate_every"));
        o->migrants = (int)json_integer_value(json_object_get(opt, "migrants"));
        const char *topology = json_string_value(json_object_get(opt, "topology"));
        o->topology = HUNT_TOPOLOGY_RING; /* runs made before topologies */
        if (topology && !hunt_topology_from_name(topology, &o->topology)) {
            wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot resume: unknown topology \"%s\"", topology);
            ok = false;
        }
        /* runs made before the noise criterion had none */
        o->noise_rsd = json_number_value(json_object_get(opt, "noise_rsd"));
        o->max_reps = (int)json_integer_value(json_object_get(opt, "max_reps"));
        json_t *keep = json_object_get(opt, "keep");   /* runs made before --keep: best/ only */
        o->ga.keep = keep ? (int)json_integer_value(keep) : 1;
        read_saved_harness(json_object_get(opt, "harness"), &o->harness);
        const char *tiling = json_string_value(json_object_get(opt, "tiling"));
        o->tiling = HUNT_TILING_PLAIN; /* runs made before stride tiling existed */
        if (tiling && !hunt_tiling_from_name(tiling, &o->tiling)) {
            wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot resume: unknown tiling \"%s\"", tiling);
            ok = false;
        }
        *x = (int)json_integer_value(json_object_get(opt, "x"));
    }
    json_decref(doc);
    return ok;
}
