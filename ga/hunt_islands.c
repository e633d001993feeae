/*
 * hunt_islands.c — a hunt as one island of an MPI run (ga/islands.h):
 * where its results go, its seed, stopping together, and the merged
 * results of the run (migration itself: hunt_migrate.c).
 *
 * Layout: the run's directory RUN holds island-00/, island-01/, ... (each
 * a complete run directory: run.json, history.csv, best/, checkpoints, so
 * `--resume RUN` restarts every island from its own checkpoint), and, from
 * island 0 once all finished, RUN/run.json (every island's figures and
 * the best), RUN/best/ (the best island's best input) and RUN/plot.svg
 * (best-so-far of every island).
 *
 * Genes are portable between islands because every island's pool is the
 * same: gdivan's atoms come from the shared explore cache (one island
 * computes an entry, the others wait for it and load it), random-value
 * alleles are seeds, and the fallback's random atoms are drawn from the
 * run's seed, not the island's.
 */
#include "core/alloc.h"
#include "core/clock.h"
#include "core/results.h"
#include "ga/hunt_internal.h"
#include "ga/islands.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool hunt_islands_many(const hunt *h)
{
    return h->opt.islands && wh_islands_size(h->opt.islands) > 1;
}

int hunt_island_rank(const hunt *h)
{
    return h->opt.islands ? wh_islands_rank(h->opt.islands) : 0;
}

static const char *const topology_names[] = { "ring", "all" };

const char *hunt_topology_name(hunt_topology t)
{
    return topology_names[t];
}

bool hunt_topology_from_name(const char *name, hunt_topology *out)
{
    for (int t = 0; t < 2; t++)
        if (!strcmp(name, topology_names[t])) {
            *out = (hunt_topology)t;
            return true;
        }
    return false;
}

uint64_t hunt_island_seed(const hunt *h)
{
    int r = hunt_island_rank(h);
    if (!hunt_islands_many(h) || r == 0) return h->opt.seed;
    /* splitmix64 of (seed, island): streams far apart for nearby seeds */
    uint64_t z = h->opt.seed + 0x9e3779b97f4a7c15ULL * (uint64_t)r;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) >> 1;   /* 63 bits: a JSON integer */
}

/* Island 0: the run's directory (-o, else results/KERNEL/STRATEGY-sSEED-islandsK). */
static bool make_root(hunt *h, char *root, size_t n, wh_error *err)
{
    if (h->opt.out_dir) {
        snprintf(root, n, "%s", h->opt.out_dir);
        return wh_make_dirs(root, err);
    }
    char stem[128];
    snprintf(stem, sizeof stem, "%s-s%llu-islands%d", ga_strategy_name(h->opt.strategy),
             (unsigned long long)h->opt.seed, wh_islands_size(h->opt.islands));
    return wh_results_make_run_dir(h->opt.results_base, h->spec->name, stem, root, n, err);
}

/* How many island-NN/ directories a run's directory holds (0: none). */
static int islands_in(const char *dir)
{
    int n = 0;
    for (char path[1100];; n++) {
        snprintf(path, sizeof path, "%s/island-%02d/run.json", dir, n);
        if (access(path, R_OK) != 0) return n;
    }
}

/* A resumed run of K islands goes on as K islands, no more, no fewer. */
static bool same_islands(const hunt *h, wh_error *err)
{
    int had = islands_in(h->opt.resume_dir), now = hunt_islands_many(h) ? wh_islands_size(h->opt.islands) : 1;
    if (had == 0 && now == 1) return true;
    if (had == now) return true;
    if (had == 0)
        wh_error_set(err, WH_ERR_USER, h->opt.resume_dir, 0, 0, "cannot resume: a run of one island; resume it "
                     "without mpirun");
    else
        wh_error_set(err, WH_ERR_USER, h->opt.resume_dir, 0, 0, "cannot resume: a run of %d islands, resumed by "
                     "%d process%s; resume it with mpirun -np %d", had, now, now == 1 ? "" : "es", had);
    return false;
}

bool hunt_islands_prepare(hunt *h, wh_error *err)
{
    if (h->opt.resume_dir && !same_islands(h, err)) return false;
    if (!hunt_islands_many(h)) return true;
    if (h->opt.strategy == GA_GDIVAN && !h->opt.explore.reuse) {
        /* each island's own stage, cut by its own clock, could give other
         * atoms: the genes would not mean one input everywhere */
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--no-cache under mpirun: the islands share the symbolic "
                     "stage's atoms through the explore cache; leave it out");
        return false;
    }
    int r = hunt_island_rank(h);
    char root[1024] = "";
    if (h->opt.resume_dir)
        snprintf(root, sizeof root, "%s", h->opt.resume_dir);
    else if (r == 0 && !make_root(h, root, sizeof root, err))
        root[0] = '\0';
    /* every island takes island 0's word, "" when it failed */
    wh_islands_share_text(h->opt.islands, root, sizeof root);
    if (!root[0]) {
        if (r != 0) wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "island 0 did not make the run directory "
                                           "(it failed or is lost)");
        return false;
    }
    snprintf(h->root, sizeof h->root, "%s", root);
    /* a node's islands take its GPUs in turn, from --device on */
    h->opt.harness.device_rotate = wh_islands_local_rank(h->opt.islands);
    snprintf(h->island_dir, sizeof h->island_dir, "%s/island-%02d", root, r);
    if (h->opt.resume_dir) h->opt.resume_dir = h->island_dir;
    else h->opt.out_dir = h->island_dir;
    return true;
}

ga_stop_reason hunt_islands_agree_stop(void *ctx, ga_stop_reason own)
{
    hunt *h = ctx;
    /* a budget, the clock, Ctrl-C or an error stops every island; a
     * converged island goes on until every island has converged */
    int hard = own == GA_STOP_NONE || own == GA_STOP_CONVERGED ? 0 : (int)own;
    double t0 = wh_clock_s();
    int any_hard = wh_islands_max(h->opt.islands, hard);
    int any_going = wh_islands_max(h->opt.islands, own == GA_STOP_NONE);
    h->comm_s += wh_clock_s() - t0;
    if (any_hard) return hard ? own : (ga_stop_reason)any_hard;
    return any_going ? GA_STOP_NONE : GA_STOP_CONVERGED;
}

static json_t *island_json(int r, const hunt_summary *s)
{
    return json_pack("{s:i, s:s, s:f, s:I, s:I, s:f, s:i, s:s, s:f}", "island", r, "dir", s->dir, "best", s->best,
                     "evals", (json_int_t)s->evals, "evals_to_best", (json_int_t)s->evals_to_best, "time_to_best_s",
                     s->time_to_best_s, "generations", s->generations, "stop_reason", ga_stop_reason_name(s->stop),
                     "final_mean", s->final_mean);
}

/* An island that died: what is known of it is its fate and its
 * directory (history.csv and the last checkpoint, for --resume). */
static json_t *lost_island_json(int r, const hunt_summary *s, int fate)
{
    char what[160];
    wh_islands_fate_text(fate, what, sizeof what);
    return json_pack("{s:i, s:s, s:s}", "island", r, "dir", s->dir, "lost", what);
}

/* RUN/run.json: the islands' figures and which found the best. */
static bool write_root_json(const hunt *h, const hunt_summary *all, const int *fate, int n, int best,
                            wh_error *err)
{
    json_t *islands = json_array(), *lost = json_array();
    long evals = 0;
    for (int r = 0; r < n; r++) {
        if (fate[r] >= 0) {
            json_array_append_new(islands, lost_island_json(r, &all[r], fate[r]));
            json_array_append_new(lost, json_integer(r));
            continue;
        }
        json_array_append_new(islands, island_json(r, &all[r]));
        evals += all[r].evals;
    }
    const hunt_summary *b = &all[best];
    json_t *doc = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:i, s:i, s:I, s:{s:i, s:f, s:I, s:f, s:f, s:f, s:f, s:i}, s:s, s:o}",
        "tool", "warphunt " WH_VERSION, "kind", "islands", "kernel", h->spec->name, "strategy",
        ga_strategy_name(h->opt.strategy), "seed", (json_int_t)h->opt.seed, "islands", n, "topology",
        hunt_topology_name(h->opt.topology),
        "migrate_every", h->opt.migrate_every > 0 ? h->opt.migrate_every : HUNT_DEFAULT_MIGRATE_EVERY, "migrants",
        h->opt.migrants > 0 ? h->opt.migrants : HUNT_DEFAULT_MIGRANTS, "evals", (json_int_t)evals, "best", "island",
        best, "fitness", b->best, "eval", (json_int_t)b->evals_to_best, "final_mean", b->final_mean, "final_min",
        b->final_min, "final_median", b->final_median, "final_max", b->final_max, "final_reps", b->final_reps, "unit",
        b->unit, "island_runs", islands);
    json_object_set_new(doc, "islands_lost", lost);
    /* what `--resume RUN` reads before it finds the islands */
    char spec[PATH_MAX];
    json_object_set_new(doc, "spec", json_string(realpath(h->spec->path, spec) ? spec : h->spec->path));
    if (h->spec->nsets) {
        json_t *sets = json_array();
        for (int k = 0; k < h->spec->nsets; k++) json_array_append_new(sets, json_string(h->spec->sets[k]));
        json_object_set_new(doc, "spec_sets", sets);
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/run.json", h->root);
    bool ok = doc && wh_write_json_atomic(path, doc, err);
    json_decref(doc);
    return ok;
}

/* RUN/best/: the best island's best input, loaded and saved again. */
static bool copy_best(const hunt *h, const hunt_summary *b, wh_error *err)
{
    char from[1100], to[1100];
    snprintf(from, sizeof from, "%s/best", b->dir);
    snprintf(to, sizeof to, "%s/best", h->root);
    wh_image *img = wh_image_load(h->spec, from, err);
    bool ok = img && wh_image_save(img, to, err);
    wh_image_free(img);
    return ok;
}

static void plot_islands(const hunt *h, const hunt_summary *all, int n, const char *unit)
{
    wh_plot_curve *curves = wh_xcalloc((size_t)n, sizeof *curves);
    char (*csv)[1100] = wh_xcalloc((size_t)n, sizeof *csv);
    char (*title)[32] = wh_xcalloc((size_t)n, sizeof *title);
    for (int r = 0; r < n; r++) {
        snprintf(csv[r], sizeof csv[r], "%s/history.csv", all[r].dir);
        snprintf(title[r], sizeof title[r], "island %d", r);
        curves[r] = (wh_plot_curve){ csv[r], title[r] };
    }
    char stem[1100], heading[256];
    snprintf(stem, sizeof stem, "%s/plot", h->root);
    snprintf(heading, sizeof heading, "%s: %s on %d islands", h->spec->name, ga_strategy_name(h->opt.strategy), n);
    bool rendered;
    wh_error ignored;
    wh_plot_convergence(stem, heading, unit, curves, n, &rendered, &ignored);
    free(title);
    free(csv);
    free(curves);
}

/* Every island's summary, at the island that merges them (the first
 * living one); a lost island's is zero but for its directory. */
static bool gather_summaries(hunt *h, hunt_summary *all, int *fate, int n)
{
    bool merger = wh_islands_gather(h->opt.islands, h->sum, sizeof *h->sum, all);
    for (int r = 0; r < n; r++) {
        fate[r] = wh_islands_fate(h->opt.islands, r);
        if (fate[r] >= 0) snprintf(all[r].dir, sizeof all[r].dir, "%.1000s/island-%02d", h->root, r);
    }
    return merger;
}

bool hunt_islands_merge(hunt *h, wh_error *err)
{
    if (!hunt_islands_many(h)) return true;
    int n = wh_islands_size(h->opt.islands), r0 = hunt_island_rank(h);
    hunt_summary *all = wh_xcalloc((size_t)n, sizeof *all);
    int *fate = wh_xcalloc((size_t)n, sizeof *fate);
    if (!gather_summaries(h, all, fate, n)) {
        if (wh_islands_fate(h->opt.islands, (r0 + 1) % n) == WH_ISLAND_UNREACHABLE)
            fprintf(stderr, "warphunt: island %d finished without its MPI rank: its results are in %s; the run's "
                            "were not merged\n", r0, h->dir);
        free(fate);
        free(all);
        return true;
    }
    int best = r0, lost = 0;
    long evals = 0;
    for (int r = 0; r < n; r++) {
        if (fate[r] >= 0) {
            lost++;
            continue;
        }
        evals += all[r].evals;
        if (all[r].best > all[best].best) best = r;
    }
    bool ok = write_root_json(h, all, fate, n, best, err) && (all[best].best <= 0 || copy_best(h, &all[best], err));
    if (ok) plot_islands(h, all, n, all[best].unit);
    if (r0 != 0)
        fprintf(stderr, "warphunt: island 0 was lost; island %d merged the run's results into %s\n", r0, h->root);
    *h->sum = all[best];
    snprintf(h->sum->dir, sizeof h->sum->dir, "%s", h->root);
    h->sum->islands = n;
    h->sum->best_island = best;
    h->sum->islands_lost = lost;
    h->sum->evals = evals;
    free(fate);
    free(all);
    return ok;
}
