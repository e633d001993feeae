/*
 * hunt_islands.c — a hunt as one island of an MPI run (ga/islands.h):
 * where its results go, its seed, migration at generation ends, stopping
 * together, and the merged results of the run.
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

/* One migrant on the wire: fitness, status, evaluation, input hash, genes. */
typedef struct {
    double fitness;
    int32_t status;
    int64_t eval_index;
    uint64_t input_hash;
} migrant_head;

static bool multi(const hunt *h)
{
    return h->opt.islands && wh_islands_size(h->opt.islands) > 1;
}

static int rank_of(const hunt *h)
{
    return h->opt.islands ? wh_islands_rank(h->opt.islands) : 0;
}

uint64_t hunt_island_seed(const hunt *h)
{
    int r = rank_of(h);
    if (!multi(h) || r == 0) return h->opt.seed;
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
    int had = islands_in(h->opt.resume_dir), now = multi(h) ? wh_islands_size(h->opt.islands) : 1;
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
    if (!multi(h)) return true;
    int r = rank_of(h);
    char root[1024] = "";
    if (h->opt.resume_dir)
        snprintf(root, sizeof root, "%s", h->opt.resume_dir);
    else if (r == 0 && !make_root(h, root, sizeof root, err))
        root[0] = '\0';
    /* every island takes island 0's word, "" when it failed */
    wh_islands_share_text(h->opt.islands, root, sizeof root);
    if (!root[0]) {
        if (r != 0) wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "island 0 could not make the run directory");
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

static size_t migrant_bytes(int ngenes)
{
    return sizeof(migrant_head) + (size_t)ngenes * sizeof(int32_t);
}

static void pack(const ga_indiv *m, int k, int ngenes, unsigned char *buf)
{
    int32_t count = k;
    memcpy(buf, &count, sizeof count);
    unsigned char *p = buf + sizeof count;
    for (int i = 0; i < k; i++, p += migrant_bytes(ngenes)) {
        migrant_head head = { m[i].fitness, m[i].status, m[i].eval_index, m[i].input_hash };
        memcpy(p, &head, sizeof head);
        for (int j = 0; j < ngenes; j++) {
            int32_t v = m[i].genes[j];
            memcpy(p + sizeof head + (size_t)j * sizeof v, &v, sizeof v);
        }
    }
}

/* The received message into m[0..k); -1 when it is not a migration of
 * this gene layout (a fault of the run, not of the input). */
static int unpack(const unsigned char *buf, size_t n, ga_indiv *m, int max, int ngenes)
{
    int32_t count;
    if (n < sizeof count) return -1;
    memcpy(&count, buf, sizeof count);
    if (count < 0 || count > max || n != sizeof count + (size_t)count * migrant_bytes(ngenes)) return -1;
    const unsigned char *p = buf + sizeof count;
    for (int i = 0; i < count; i++, p += migrant_bytes(ngenes)) {
        migrant_head head;
        memcpy(&head, p, sizeof head);
        m[i].fitness = head.fitness;
        m[i].status = head.status;
        m[i].eval_index = head.eval_index;
        m[i].input_hash = head.input_hash;
        m[i].seed = 0;
        for (int j = 0; j < ngenes; j++) {
            int32_t v;
            memcpy(&v, p + sizeof head + (size_t)j * sizeof v, sizeof v);
            m[i].genes[j] = v;
        }
    }
    return count;
}

static bool exchange(hunt *h, int m, int ngenes, ga_indiv *out, ga_indiv *in, wh_error *err)
{
    int k = ga_emigrants(h->g, out, m);
    unsigned char *buf = wh_xmalloc(sizeof(int32_t) + (size_t)m * migrant_bytes(ngenes));
    pack(out, k, ngenes, buf);
    void *got = NULL;
    size_t got_n = 0;
    bool ok = wh_islands_ring(h->opt.islands, buf, sizeof(int32_t) + (size_t)k * migrant_bytes(ngenes), &got,
                              &got_n, err);
    free(buf);
    int kin = ok ? unpack(got, got_n, in, m, ngenes) : 0;
    free(got);
    if (ok && kin < 0) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "island %d received a migration it cannot read "
                     "(islands with different gene layouts?)", rank_of(h));
        return false;
    }
    if (ok) {
        ga_immigrate(h->g, in, kin);
        h->migrations++;
        h->immigrants += kin;
    }
    return ok;
}

bool hunt_islands_migrate(hunt *h, int generation, wh_error *err)
{
    int every = h->opt.migrate_every > 0 ? h->opt.migrate_every : HUNT_DEFAULT_MIGRATE_EVERY;
    /* islands stop together, so all of them skip the last call alike; a
     * resumed island's first call repeats the generation its checkpoint
     * ended, whose migration is in the checkpoint already */
    if (!multi(h) || h->opt.strategy == GA_RANDOM || ga_get_stop_reason(h->g) != GA_STOP_NONE ||
        generation == 0 || generation % every || generation == h->restored_generation)
        return true;
    int m = h->opt.migrants > 0 ? h->opt.migrants : HUNT_DEFAULT_MIGRANTS;
    int ngenes = h->lay.ngenes + hunt_edit_genes(h);
    ga_indiv *out = wh_xcalloc((size_t)m * 2, sizeof *out);
    int *genes = wh_xcalloc((size_t)m * 2 * (size_t)ngenes, sizeof *genes);
    for (int i = 0; i < 2 * m; i++) out[i].genes = genes + (size_t)i * (size_t)ngenes;
    double t0 = wh_clock_s();
    bool ok = exchange(h, m, ngenes, out, out + m, err);
    h->comm_s += wh_clock_s() - t0;
    free(genes);
    free(out);
    return ok;
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

/* RUN/run.json: the islands' figures and which found the best. */
static bool write_root_json(const hunt *h, const hunt_summary *all, int n, int best, wh_error *err)
{
    json_t *islands = json_array();
    long evals = 0;
    for (int r = 0; r < n; r++) {
        json_array_append_new(islands, island_json(r, &all[r]));
        evals += all[r].evals;
    }
    const hunt_summary *b = &all[best];
    json_t *doc = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:i, s:i, s:I, s:{s:i, s:f, s:I, s:f, s:f, s:f, s:f, s:i}, s:s, s:o}",
        "tool", "warphunt " WH_VERSION, "kind", "islands", "kernel", h->spec->name, "strategy",
        ga_strategy_name(h->opt.strategy), "seed", (json_int_t)h->opt.seed, "islands", n, "topology", "ring",
        "migrate_every", h->opt.migrate_every > 0 ? h->opt.migrate_every : HUNT_DEFAULT_MIGRATE_EVERY, "migrants",
        h->opt.migrants > 0 ? h->opt.migrants : HUNT_DEFAULT_MIGRANTS, "evals", (json_int_t)evals, "best", "island",
        best, "fitness", b->best, "eval", (json_int_t)b->evals_to_best, "final_mean", b->final_mean, "final_min",
        b->final_min, "final_median", b->final_median, "final_max", b->final_max, "final_reps", b->final_reps, "unit",
        b->unit, "island_runs", islands);
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

static void plot_islands(const hunt *h, const hunt_summary *all, int n)
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
    wh_plot_convergence(stem, heading, all[0].unit, curves, n, &rendered, &ignored);
    free(title);
    free(csv);
    free(curves);
}

bool hunt_islands_merge(hunt *h, wh_error *err)
{
    if (!multi(h)) return true;
    int n = wh_islands_size(h->opt.islands);
    hunt_summary *all = rank_of(h) == 0 ? wh_xcalloc((size_t)n, sizeof *all) : NULL;
    wh_islands_gather(h->opt.islands, h->sum, sizeof *h->sum, all);
    if (!all) return true;
    int best = 0;
    long evals = 0;
    for (int r = 0; r < n; r++) {
        evals += all[r].evals;
        if (all[r].best > all[best].best) best = r;
    }
    bool ok = write_root_json(h, all, n, best, err) && (all[best].best <= 0 || copy_best(h, &all[best], err));
    if (ok) plot_islands(h, all, n);
    *h->sum = all[best];
    snprintf(h->sum->dir, sizeof h->sum->dir, "%s", h->root);
    h->sum->islands = n;
    h->sum->best_island = best;
    h->sum->evals = evals;
    free(all);
    return ok;
}
