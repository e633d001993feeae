/*
 * bench_fidelity.c — does the sim rank inputs as a GPU does?  (issue #24)
 *
 *   bench_fidelity --measure [--backend sim|cuda] [--profile P] [--device N]
 *                  [--reps R] [--inputs N] [--cold-l2] [--kernels A,B]
 *                  [--skip A,B] [--found PATTERN] [--grid-scale K]
 *                  [--set NAME=EXPR]...
 *                  -o TIMES.csv
 *   bench_fidelity --compare REF.csv OTHER.csv [--ceiling REF2.csv] [--md FILE]
 *                  [--json FILE]
 *
 * --measure times, per kernel (every bundled kernel, kernels/NAME.json, and
 * every corpus kernel, or --kernels), N random inputs (seeds 1..N, default
 * 30) and the hand-built ones: a ground-truth kernel's known worst and
 * best (kernels/groundtruth.h), a corpus kernel's worst candidates and
 * best (kernels/corpus/), and with --found PATTERN the inputs searches
 * found: every best/ directory one level under PATTERN, {} in PATTERN
 * standing for the kernel's name ('results/{}/reference': the reference
 * runs' best inputs, "found-gdivan-s1" ...).  The same inputs on every backend (seeded, and
 * built by the same code), so two CSVs made on two machines join on
 * (kernel, input): a GPU session writes its CSV in minutes and the sim's
 * are made anywhere.  Each time is the median of R repetitions (default 5;
 * 1 on the sim, which is exact); rows: kernel,input,status,time,unit,
 * input_hash (FNV-1a of the image's input buffers: --compare leaves out an
 * input whose hash differs between the CSVs, as when a spec or a
 * builder changed the input under its name between the two runs; a CSV
 * written before the hash existed is joined on names alone).
 * --grid-scale K runs every kernel at K times its spec's grid constant G
 * (every bundled and corpus spec has one, a literal), and --set NAME=EXPR
 * gives constant NAME that expression in every spec that has one (a
 * warning when none of the kernels measured has it), after the scaling
 * ("slots=threads*2" keeps the hash tables half full): at the default
 * sizes most kernels take a few microseconds on a GPU, where its
 * run-to-run noise ranks their random inputs.  A search's best inputs
 * have the default size, so --found is refused with --grid-scale; --skip
 * leaves kernels out (gt_hash, whose kernel has its 4096 slots compiled
 * in: past 4096 threads its table is full and every later key probes it
 * all).
 *
 * --compare joins two CSVs (the first the reference: the GPU) and prints,
 * per kernel, over the inputs both ran: Spearman's rho and Kendall's tau
 * of the two rankings, and where the reference's slowest input ranks in
 * the other (whether it is in its top 3); then how many kernels reach
 * rho >= 0.9 (the goal).  --md and --json write the table too.
 * With --ceiling REF2.csv, a second run of the reference on the same
 * inputs, each kernel also gets the reference's rho against itself: where
 * the GPU's own run-to-run noise reorders the inputs (kernels whose inputs
 * all take the launch's few microseconds), no model can rank them, and the
 * summary counts the agreement on the kernels the GPU ranks reproducibly.
 * Since a ranking of inputs that take the same time is noise, each kernel
 * also gets the input pairs the reference tells apart (the slower 5 %
 * slower, in both its runs with --ceiling) and how many of them the other
 * orders the same way: what a search driven by the other would get right.
 */
#include "core/expr.h"
#include "core/hash.h"
#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "core/stats.h"
#include "harness/harness.h"
#include "kernels/corpus/corpus.h"
#include "kernels/groundtruth.h"

#include <getopt.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 100000
#define MAX_SETS 8

typedef struct {
    char kernel[64], input[64], status[16];
    double time;
    char hash[17];          /* the input's, "" in a CSV without the column */
} row;

typedef struct {
    harness_backend backend;
    harness_options hopt;
    int reps, inputs;
    const char *kernels;    /* comma-separated names, or NULL for all */
    const char *skip;       /* comma-separated names left out, or NULL */
    const char *found;      /* PATTERN of --found, or NULL */
    int grid_scale;         /* G times this (1: the spec's size) */
    const char *sets[MAX_SETS]; /* --set assignments, in order */
    int *set_uses;          /* [MAX_SETS]: how many kernels had each --set's constant */
    int nsets;
    FILE *out;
} measure_opts;

/* Whether comma-separated `list` names `name`. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

static bool wanted(const measure_opts *m, const char *name)
{
    return (!m->kernels || listed(m->kernels, name)) && !(m->skip && listed(m->skip, name));
}

/* What the input is: its input buffers' bytes. */
static void input_hash(const wh_image *img, char out[17])
{
    uint64_t h = WH_FNV_OFFSET;
    for (int i = 0; i < img->nbufs; i++)
        if (img->bufs[i].param->role == WH_ROLE_INPUT)
            h = wh_fnv1a(h, img->bufs[i].data, img->bufs[i].bytes);
    wh_hash_hex(h, out);
}

/* One input of spec on h: a CSV row. */
static bool time_one(const measure_opts *m, harness *h, const wh_spec *spec, wh_image *img, const char *input,
                     wh_error *err)
{
    char hash[17];
    input_hash(img, hash);
    harness_result res;
    if (!harness_measure(h, img, m->reps, &res, err))
        return false;
    fprintf(m->out, "%s,%s,%s,%.6f,%s,%s\n", spec->name, input, harness_status_name(res.status),
            res.status == HARNESS_OK ? res.median : 0.0, harness_unit(h), hash);
    fflush(m->out);
    harness_result_free(&res);
    return true;
}

/* The known inputs of a kernel: a corpus kernel's candidates and best, a
 * ground-truth kernel's worst and best; -1 on failure. */
static int known_inputs(const measure_opts *m, harness *h, const wh_spec *spec, const char *spec_path,
                        wh_error *err)
{
    wh_launch L = wh_spec_launch_full(spec);
    const corpus_kernel *ck = corpus_find(spec->name);
    int done = 0;
    if (ck) {
        const corpus_input *all[CORPUS_MAX_WORST + 1];
        int n = 0;
        for (int i = 0; i < CORPUS_MAX_WORST && ck->worst[i].build; i++)
            all[n++] = &ck->worst[i];
        all[n++] = &ck->best;
        for (int i = 0; i < n; i++) {
            wh_image *img = wh_image_new(spec, &L, err);
            bool ok = img && corpus_build(all[i], img, err) && time_one(m, h, spec, img, all[i]->name, err);
            wh_image_free(img);
            if (!ok)
                return -1;
            done++;
        }
        return done;
    }
    for (int g = 0; g < GT_KERNELS; g++) {
        if (strcmp(gt_kernels[g].spec, spec_path))
            continue;
        for (int w = 0; w < 2; w++) {
            wh_image *img = wh_image_new(spec, &L, err);
            int p = img ? wh_image_find(img, gt_kernels[g].input) : -1;
            bool ok = p >= 0 && gt_fill(img, p, w == 0 ? gt_kernels[g].worst : gt_kernels[g].best, err) &&
                      time_one(m, h, spec, img, w == 0 ? "known-worst" : "known-best", err);
            wh_image_free(img);
            if (!ok)
                return -1;
            done++;
        }
    }
    return done;
}

/* The best inputs of searches under --found's directory for this kernel;
 * -1 on failure. */
static int found_inputs(const measure_opts *m, harness *h, const wh_spec *spec, wh_error *err)
{
    if (!m->found)
        return 0;
    char dir[512] = "", pattern[600];
    const char *brace = strstr(m->found, "{}");
    if (brace)
        snprintf(dir, sizeof dir, "%.*s%s%s", (int)(brace - m->found), m->found, spec->name, brace + 2);
    else
        snprintf(dir, sizeof dir, "%s", m->found);
    snprintf(pattern, sizeof pattern, "%s/*/best", dir);
    glob_t g;
    memset(&g, 0, sizeof g);
    int done = 0;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && done >= 0; i++) {
            char run[256], name[64];
            snprintf(run, sizeof run, "%s", g.gl_pathv[i]);
            run[strlen(run) - strlen("/best")] = '\0';
            const char *slash = strrchr(run, '/');
            snprintf(name, sizeof name, "found-%s", slash ? slash + 1 : run);
            wh_image *img = wh_image_load(spec, g.gl_pathv[i], err);
            bool ok = img && time_one(m, h, spec, img, name, err);
            wh_image_free(img);
            done = ok ? done + 1 : -1;
        }
    }
    globfree(&g);
    return done;
}

static int const_index(const wh_spec *spec, const char *name, size_t len)
{
    for (int i = 0; i < spec->nconsts; i++)
        if (strlen(spec->const_names[i]) == len && !strncmp(spec->const_names[i], name, len))
            return i;
    return -1;
}

/* --grid-scale and --set on one spec. */
static bool resize(const measure_opts *m, wh_spec *spec, wh_error *err)
{
    if (m->grid_scale > 1) {
        int g = const_index(spec, "G", 1);
        char *end = NULL;
        long long v = g >= 0 ? strtoll(wh_expr_text(spec->const_exprs[g]), &end, 10) : 0;
        if (g < 0 || !end || *end || v <= 0) {
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0,
                         "--grid-scale needs a constant G written as a whole number");
            return false;
        }
        char text[32];
        snprintf(text, sizeof text, "%lld", v * m->grid_scale);
        if (!wh_spec_set_const(spec, "G", text, err))
            return false;
    }
    for (int i = 0; i < m->nsets; i++) {
        const char *eq = strchr(m->sets[i], '=');
        if (const_index(spec, m->sets[i], (size_t)(eq - m->sets[i])) < 0)
            continue;
        m->set_uses[i]++;
        if (!wh_spec_assign(spec, m->sets[i], err))
            return false;
    }
    return true;
}

static bool measure_kernel(const measure_opts *m, const char *spec_path, wh_error *err)
{
    wh_spec *spec = wh_spec_load(spec_path, err);
    if (!spec)
        return false;
    if (!wanted(m, spec->name)) {
        wh_spec_free(spec);
        return true;
    }
    harness *h = resize(m, spec, err) ? harness_open(spec, m->backend, &m->hopt, err) : NULL;
    bool ok = h != NULL;
    wh_launch L = wh_spec_launch_full(spec);
    for (int s = 1; ok && s <= m->inputs; s++) {
        wh_image *img = wh_image_new(spec, &L, err);
        pcg32 rng;
        pcg32_seed(&rng, (uint64_t)s, 0);
        char name[32];
        snprintf(name, sizeof name, "random-%d", s);
        ok = img && wh_image_fill_random(img, &rng, err) && time_one(m, h, spec, img, name, err);
        wh_image_free(img);
    }
    ok = ok && known_inputs(m, h, spec, spec_path, err) >= 0 && found_inputs(m, h, spec, err) >= 0;
    fprintf(stderr, "bench_fidelity: %s %s\n", spec->name, ok ? "measured" : "failed");
    harness_close(h);
    wh_spec_free(spec);
    return ok;
}

/* measure_kernel, its failure said on stderr; 1 when it failed. */
static int measure_or_say(const measure_opts *m, const char *spec_path)
{
    wh_error err;
    wh_error_clear(&err);
    if (measure_kernel(m, spec_path, &err))
        return 0;
    char buf[1200];
    wh_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "bench_fidelity: %s: %s\n", spec_path, buf);
    return 1;
}

static int run_measure(measure_opts *m, const char *path)
{
    m->out = fopen(path, "w");
    if (!m->out) {
        fprintf(stderr, "bench_fidelity: cannot write %s\n", path);
        return 2;
    }
    fprintf(m->out, "kernel,input,status,time,unit,input_hash\n");
    glob_t g;
    memset(&g, 0, sizeof g);
    glob("kernels/*.json", 0, NULL, &g);
    int failed = 0;
    for (size_t i = 0; i < g.gl_pathc; i++)
        failed += measure_or_say(m, g.gl_pathv[i]);
    globfree(&g);
    for (int i = 0; i < corpus_count(); i++) {
        char spec_path[512];
        corpus_spec_path(corpus_at(i), spec_path, sizeof spec_path);
        failed += measure_or_say(m, spec_path);
    }
    fclose(m->out);
    for (int i = 0; i < m->nsets; i++)
        if (!m->set_uses[i])
            fprintf(stderr, "bench_fidelity: warning: --set %s: no kernel measured has that constant\n", m->sets[i]);
    return failed ? 2 : 0;
}

/* ---- comparing ------------------------------------------------------------------ */

static int read_csv(const char *path, row **out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    row *rows = calloc(MAX_ROWS, sizeof *rows);
    char line[512];
    int n = 0;
    while (rows && fgets(line, sizeof line, f) && n < MAX_ROWS) {
        row r;
        char unit[16];
        r.hash[0] = '\0';
        if (sscanf(line, "%63[^,],%63[^,],%15[^,],%lf,%15[^,\n],%16s", r.kernel, r.input, r.status, &r.time, unit,
                   r.hash) >= 5 &&
            strcmp(r.kernel, "kernel"))
            rows[n++] = r;
    }
    fclose(f);
    *out = rows;
    return rows ? n : -1;
}

static const row *find(const row *rows, int n, const char *kernel, const char *input)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].kernel, kernel) && !strcmp(rows[i].input, input))
            return &rows[i];
    return NULL;
}

/* Whether two rows of one name are different inputs (both hashed). */
static bool other_input(const row *x, const row *y)
{
    return x->hash[0] && y->hash[0] && strcmp(x->hash, y->hash);
}

typedef struct {
    char kernel[64];
    int n;
    double rho, tau;
    bool ranked;
    char worst[64];        /* the reference's slowest input */
    int worst_rank;        /* ... its rank in the other (1: slowest) */
    double spread;         /* the reference's slowest over its fastest, less 1 */
    bool has_ceiling;      /* with a second run of the reference: */
    double ceiling;        /* ... its rho against the first, over the same inputs */
    int pairs, pairs_agree;  /* input pairs the reference separates (PAIR_MARGIN, in both its
                                runs), and those the other orders the same way */
    int differ;            /* inputs left out: another input under the same name in the other CSV */
} kernel_cmp;

/* Two inputs are told apart when the slower takes 5 % longer: the H200's
 * run-to-run noise at a few microseconds is about 1 %. */
#define PAIR_MARGIN 1.05

/* -1, 0 or 1: u below, within PAIR_MARGIN of, or above v. */
static int separated(double u, double v)
{
    return u >= PAIR_MARGIN * v ? 1 : v >= PAIR_MARGIN * u ? -1 : 0;
}

/* Spearman's rho of the reference against a second run of itself over
 * kernel's inputs: the reference's own run-to-run agreement, the most a
 * model can be expected to reach. */
static bool self_rho(const row *a, int na, const row *c, int nc, const char *kernel, double *rho)
{
    double *x = malloc((size_t)na * sizeof *x), *y = malloc((size_t)na * sizeof *y);
    int n = 0;
    for (int i = 0; x && y && i < na; i++) {
        const row *o = strcmp(a[i].kernel, kernel) || strcmp(a[i].status, "ok") ? NULL : find(c, nc, kernel, a[i].input);
        if (!o || strcmp(o->status, "ok") || other_input(&a[i], o))
            continue;
        x[n] = a[i].time;
        y[n++] = o->time;
    }
    bool ok = n >= 2 && wh_spearman(x, y, n, rho);
    free(x);
    free(y);
    return ok;
}

/* The pairs the reference separates (x; z too, a second run, where given:
 * the same direction in both) and how many of them y orders alike. */
static void count_pairs(const double *x, const double *y, const double *z, int n, kernel_cmp *k)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int d = separated(x[i], x[j]);
            if (!d || (z && separated(z[i], z[j]) != d))
                continue;
            k->pairs++;
            k->pairs_agree += (y[i] > y[j] ? 1 : y[i] < y[j] ? -1 : 0) == d;
        }
}

static void compare_kernel(const row *a, int na, const row *b, int nb, const row *c, int nc, const char *kernel,
                           kernel_cmp *k)
{
    memset(k, 0, sizeof *k);
    snprintf(k->kernel, sizeof k->kernel, "%s", kernel);
    double *x = malloc((size_t)na * sizeof *x), *y = malloc((size_t)na * sizeof *y);
    double *z = c ? malloc((size_t)na * sizeof *z) : NULL;
    const row **ra = malloc((size_t)na * sizeof *ra);
    for (int i = 0; x && y && ra && (z || !c) && i < na; i++) {
        if (strcmp(a[i].kernel, kernel) || strcmp(a[i].status, "ok"))
            continue;
        const row *o = find(b, nb, kernel, a[i].input), *again = c ? find(c, nc, kernel, a[i].input) : NULL;
        if (!o || strcmp(o->status, "ok") || (c && (!again || strcmp(again->status, "ok"))))
            continue;
        if (other_input(&a[i], o) || (again && other_input(&a[i], again))) {
            k->differ++;
            continue;
        }
        ra[k->n] = &a[i];
        x[k->n] = a[i].time;
        if (z)
            z[k->n] = again->time;
        y[k->n++] = o->time;
    }
    count_pairs(x, y, z, k->n, k);
    if (k->n >= 2) {
        k->ranked = wh_spearman(x, y, k->n, &k->rho) && wh_kendall_tau_b(x, y, k->n, &k->tau);
        int w = 0;
        for (int i = 1; i < k->n; i++)
            if (x[i] > x[w])
                w = i;
        snprintf(k->worst, sizeof k->worst, "%s", ra[w]->input);
        double lo = x[0];
        for (int i = 1; i < k->n; i++)
            lo = x[i] < lo ? x[i] : lo;
        k->spread = lo > 0 ? x[w] / lo - 1 : 0;
        k->worst_rank = 1;
        for (int i = 0; i < k->n; i++)
            k->worst_rank += y[i] > y[w];
    }
    free(x);
    free(y);
    free(z);
    free(ra);
}

/* One kernel's row of the table. */
static void print_kernel(FILE *f, const kernel_cmp *k, bool with_ceiling)
{
    char ceiling[32] = "";
    if (with_ceiling)
        snprintf(ceiling, sizeof ceiling, k->has_ceiling ? " %.3f |" : " - |", k->ceiling);
    char pairs[48] = "-";
    if (k->pairs)
        snprintf(pairs, sizeof pairs, "%d of %d (%.0f %%)", k->pairs_agree, k->pairs, 100.0 * k->pairs_agree / k->pairs);
    if (k->ranked)
        fprintf(f, "| %s | %d | %.1f %% |%s %.3f | %.3f | %s | %s | %d%s |\n", k->kernel, k->n, 100 * k->spread,
                ceiling, k->rho, k->tau, pairs, k->worst, k->worst_rank, k->worst_rank <= 3 ? " (top 3)" : "");
    else
        fprintf(f, "| %s | %d | %.1f %% |%s - | - | %s | %s | %s |\n", k->kernel, k->n, 100 * k->spread, ceiling,
                pairs, k->n >= 2 ? k->worst : "-",
                k->n >= 2 ? "a constant sample: no ranking" : "too few inputs ran on both");
}

static int run_compare(const char *ref, const char *other, const char *ref2, const char *md, const char *json_path)
{
    row *a = NULL, *b = NULL, *c = NULL;
    int na = read_csv(ref, &a), nb = read_csv(other, &b), nc = ref2 ? read_csv(ref2, &c) : 0;
    if (na < 0 || nb < 0 || nc < 0) {
        fprintf(stderr, "bench_fidelity: cannot read %s\n", na < 0 ? ref : nb < 0 ? other : ref2);
        free(a);
        free(b);
        free(c);
        return 2;
    }
    kernel_cmp *ks = calloc((size_t)na + 1, sizeof *ks);
    int nk = 0, good = 0, top3 = 0, steady = 0, steady_good = 0, all_pairs = 0, all_agree = 0, differ = 0;
    for (int i = 0; i < na; i++) {
        bool seen = false;
        for (int j = 0; j < nk && !seen; j++)
            seen = !strcmp(ks[j].kernel, a[i].kernel);
        if (seen)
            continue;
        kernel_cmp *k = &ks[nk++];
        compare_kernel(a, na, b, nb, c, nc, a[i].kernel, k);
        k->has_ceiling = ref2 && self_rho(a, na, c, nc, a[i].kernel, &k->ceiling);
        all_pairs += k->pairs;
        all_agree += k->pairs_agree;
        differ += k->differ;
        bool agrees = k->ranked && k->rho >= 0.9;
        good += agrees;
        top3 += k->n >= 2 && k->worst_rank <= 3;
        if (k->has_ceiling && k->ceiling >= 0.9) {
            steady++;
            steady_good += agrees;
        }
    }
    FILE *m = md ? fopen(md, "w") : NULL;
    FILE *outs[2] = { stdout, m };
    json_t *doc = json_array();
    for (int o = 0; o < 2; o++) {
        if (!outs[o])
            continue;
        fprintf(outs[o], "Reference %s against %s: rank agreement per kernel over the inputs both ran", ref, other);
        if (ref2)
            fprintf(outs[o], "; the reference against its second run %s (rho ceiling: how well it agrees with "
                    "itself)", ref2);
        fprintf(outs[o], ".  Spread: the reference's slowest input over its fastest.  Pairs: the input pairs "
                "the reference tells apart (one %.0f %% slower%s) and how many the other orders alike.\n\n",
                100 * (PAIR_MARGIN - 1), ref2 ? " in both its runs" : "");
        fprintf(outs[o], "| kernel | inputs | spread |%s Spearman rho | Kendall tau | pairs ordered alike | "
                "reference's slowest | its rank there |\n", ref2 ? " rho ceiling |" : "");
        fprintf(outs[o], "|---|---|---|%s---|---|---|---|---|\n", ref2 ? "---|" : "");
        for (int i = 0; i < nk; i++)
            print_kernel(outs[o], &ks[i], ref2 != NULL);
        fprintf(outs[o], "\n%d of %d kernels with rho >= 0.9; the reference's slowest input is in the other's top 3 "
                "on %d.\n", good, nk, top3);
        if (ref2)
            fprintf(outs[o], "The reference agrees with itself (rho ceiling >= 0.9) on %d kernels; on those, rho >= 0.9 "
                    "on %d.\n", steady, steady_good);
        fprintf(outs[o], "Of the %d input pairs the reference tells apart, the other orders %d alike (%.1f %%).\n",
                all_pairs, all_agree, all_pairs ? 100.0 * all_agree / all_pairs : 0.0);
        if (differ) {
            fprintf(outs[o], "Left out: %d inputs whose input hashes differ between the CSVs (another input under "
                    "the same name):", differ);
            for (int i = 0; i < nk; i++)
                if (ks[i].differ)
                    fprintf(outs[o], " %s %d", ks[i].kernel, ks[i].differ);
            fprintf(outs[o], ".\n");
        }
    }
    for (int i = 0; i < nk; i++) {
        const kernel_cmp *k = &ks[i];
        json_t *j = json_pack("{s:s, s:i, s:o, s:o, s:s, s:i, s:f, s:i, s:i}", "kernel", k->kernel, "inputs", k->n,
                              "rho", k->ranked ? json_real(k->rho) : json_null(), "tau",
                              k->ranked ? json_real(k->tau) : json_null(), "slowest", k->worst, "slowest_rank",
                              k->worst_rank, "spread", k->spread, "pairs", k->pairs, "pairs_agree", k->pairs_agree);
        if (ref2)
            json_object_set_new(j, "rho_ceiling", k->has_ceiling ? json_real(k->ceiling) : json_null());
        json_object_set_new(j, "inputs_differ", json_integer(k->differ));
        json_array_append_new(doc, j);
    }
    if (json_path)
        json_dump_file(doc, json_path, JSON_INDENT(2));
    json_decref(doc);
    if (m)
        fclose(m);
    free(ks);
    free(a);
    free(b);
    free(c);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_fidelity --measure [--backend sim|cuda] [--profile P] [--device N] [--reps R]\n"
                    "                      [--inputs N] [--cold-l2] [--kernels A,B] [--skip A,B]\n"
                    "                      [--found PATTERN] [--grid-scale K] [--set NAME=EXPR]... -o TIMES.csv\n"
                    "       bench_fidelity --compare REF.csv OTHER.csv [--ceiling REF2.csv] [--md FILE] [--json FILE]\n");
}

int main(int argc, char **argv)
{
    enum { O_MEASURE = 256, O_COMPARE, O_BACKEND, O_PROFILE, O_DEVICE, O_REPS, O_INPUTS, O_COLD, O_KERNELS, O_MD,
           O_JSON, O_FOUND, O_CEILING, O_GRID_SCALE, O_SET, O_SKIP };
    static const struct option longopts[] = {
        { "measure", no_argument, NULL, O_MEASURE }, { "compare", no_argument, NULL, O_COMPARE },
        { "backend", required_argument, NULL, O_BACKEND }, { "profile", required_argument, NULL, O_PROFILE },
        { "device", required_argument, NULL, O_DEVICE }, { "reps", required_argument, NULL, O_REPS },
        { "inputs", required_argument, NULL, O_INPUTS }, { "cold-l2", no_argument, NULL, O_COLD },
        { "kernels", required_argument, NULL, O_KERNELS }, { "md", required_argument, NULL, O_MD },
        { "json", required_argument, NULL, O_JSON }, { "found", required_argument, NULL, O_FOUND },
        { "ceiling", required_argument, NULL, O_CEILING },
        { "grid-scale", required_argument, NULL, O_GRID_SCALE }, { "set", required_argument, NULL, O_SET },
        { "skip", required_argument, NULL, O_SKIP },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    int set_uses[MAX_SETS] = { 0 };
    measure_opts m = { .backend = HARNESS_SIM, .reps = 5, .inputs = 30, .grid_scale = 1, .set_uses = set_uses };
    harness_options_init(&m.hopt);
    m.hopt.quiet = true;
    int mode = 0;
    const char *out = NULL, *md = NULL, *json_path = NULL, *ceiling = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        wh_error err;
        switch (c) {
        case O_MEASURE: case O_COMPARE: mode = c; break;
        case O_BACKEND:
            if (!harness_backend_from_name(optarg, &m.backend, &err)) {
                fprintf(stderr, "bench_fidelity: %s\n", err.msg);
                return 1;
            }
            break;
        case O_PROFILE: m.hopt.profile_path = optarg; break;
        case O_DEVICE: m.hopt.device = atoi(optarg); break;
        case O_REPS: m.reps = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
        case O_INPUTS: m.inputs = atoi(optarg) >= 0 ? atoi(optarg) : 0; break;
        case O_COLD: m.hopt.cold_l2 = true; break;
        case O_KERNELS: m.kernels = optarg; break;
        case O_SKIP: m.skip = optarg; break;
        case O_FOUND: m.found = optarg; break;
        case O_MD: md = optarg; break;
        case O_JSON: json_path = optarg; break;
        case O_CEILING: ceiling = optarg; break;
        case O_GRID_SCALE:
            m.grid_scale = atoi(optarg);
            if (m.grid_scale < 1) {
                fprintf(stderr, "bench_fidelity: --grid-scale '%s' is not a whole number >= 1\n", optarg);
                return 1;
            }
            break;
        case O_SET:
            if (m.nsets == MAX_SETS || !strchr(optarg, '=') || *optarg == '=') {
                fprintf(stderr, "bench_fidelity: --set '%s': NAME=EXPR, at most %d of them\n", optarg, MAX_SETS);
                return 1;
            }
            m.sets[m.nsets++] = optarg;
            break;
        case 'o': out = optarg; break;
        default: usage(); return c == 'h' ? 0 : 1;
        }
    }
    if (m.backend == HARNESS_SIM)
        m.reps = 1;
    if (m.found && m.grid_scale > 1) {
        fprintf(stderr, "bench_fidelity: --found's inputs have the spec's size: not with --grid-scale\n");
        return 1;
    }
    if (mode == O_MEASURE && out && optind == argc)
        return run_measure(&m, out);
    if (mode == O_COMPARE && optind == argc - 2)
        return run_compare(argv[optind], argv[optind + 1], ceiling, md, json_path);
    usage();
    return 1;
}
