/*
 * explore.c — deepening over X, atoms from path models, the result cache.
 */
#include "gen/internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/hash.h"
#include "core/results.h"

void gen_explore_options_default(gen_explore_options *o)
{
    memset(o, 0, sizeof *o);
    o->time_s = 60;
    o->path_budget = 2000;
    o->models = 4;
    o->families = GEN_FAMILY_PATHS;
    o->validate = true;
    o->reuse = true;
}

/* Everything that changes what an exploration produces is in the key. */
static void cache_key(const wh_spec *spec, const ptx_module *mod, const gen_explore_options *o, char out[17])
{
    /* bump when the cached files change, or what the stage finds (v16:
     * aligned symbolic-offset accesses to small regions as word cases; v15:
     * float checks in a child once one was slow; v14: addresses made from
     * floats pinned, saturation waiting for the first
     * path, increasing rows; v13: paths.json without the atoms' values, in
     * atoms.bin; v12: indirect calls, initializers holding addresses, spec
     * globals, forks on sampled witnesses) */
    static const char format[] = "warphunt-explore-v16";
    uint64_t h = wh_fnv1a(WH_FNV_OFFSET, format, sizeof format);
    h = wh_fnv1a_file(h, mod->name, NULL);
    h = wh_fnv1a(h, spec->hash, strlen(spec->hash));
    int32_t knobs[7] = { o->threads, o->max_iter, o->path_budget, o->models, o->validate, o->families,
                         (int32_t)o->query_ms };
    h = wh_fnv1a(h, knobs, sizeof knobs);
    h = wh_fnv1a(h, &o->time_s, sizeof o->time_s);
    /* hashed only when given, so that the default keeps the keys it had */
    if (o->solver_mb) h = wh_fnv1a(h, &o->solver_mb, sizeof o->solver_mb);
    if (o->order != SX_ORDER_RANDOM) h = wh_fnv1a(h, &o->order, sizeof o->order);
    if (o->saturation_s > 0) h = wh_fnv1a(h, &o->saturation_s, sizeof o->saturation_s);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static bool file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* The issues' inputs, replayed once when the exploration runs; a cached
 * one finds them on disk.  A failure only costs the findings. */
static void replay_issues(gen_result *r, const sx_result *sx, const char *dir, bool quiet)
{
    char idir[1200];
    snprintf(idir, sizeof idir, "%s/issues", dir);
    wh_error ierr;
    wh_error_clear(&ierr);
    int n = gen_replay_issues(r->spec, sx, idir, quiet, &ierr);
    if (n < 0 && !quiet)
        fprintf(stderr, "explore: the issues' inputs were not replayed: %s\n", ierr.msg);
    r->issue_findings = n > 0 ? n : 0;
    if (file_exists(idir))
        r->issues_dir = strdup(idir);
}

static bool load_cached(gen_result *r, const char *dir, bool keep_doc, wh_error *err)
{
    char pj[1200], ab[1200];
    snprintf(pj, sizeof pj, "%s/paths.json", dir);
    snprintf(ab, sizeof ab, "%s/atoms.bin", dir);
    if (!gen_paths_json_read(r, pj, keep_doc, err)) return false;
    if (r->x < 1 || r->x > 1024) {
        wh_error_set(err, WH_ERR_USER, pj, 0, 0, "threads %d is not an X the stage can have run", r->x);
        return false;
    }
    if (!gen_pool_init(&r->pool, r->spec, r->x, err) || !gen_pool_load(&r->pool, ab, err)) return false;
    /* the two files of an entry must agree, or the search reads past the pool */
    for (int i = 0; i < r->npaths; i++) {
        const gen_path *p = &r->paths[i];
        if (p->first_atom < 0 || p->natoms < 0 || p->nvalid < 0 || p->nvalid > p->natoms ||
            p->first_atom > r->pool.natoms - p->natoms) {
            wh_error_set(err, WH_ERR_USER, pj, 0, 0, "path %d's atoms [%d, +%d) are not in atoms.bin (%d atoms)", i,
                         p->first_atom, p->natoms, r->pool.natoms);
            return false;
        }
    }
    gen_count_families(r);
    char idir[1200];
    snprintf(idir, sizeof idir, "%s/issues", dir);
    if (file_exists(idir))
        r->issues_dir = strdup(idir);
    r->paths_json = strdup(pj);
    r->from_cache = true;
    return r->paths_json != NULL;
}

static bool push_xstat(gen_result *r, const sx_result *sx, double t)
{
    gen_xstat *xs = realloc(r->xs, (size_t)(r->nxs + 1) * sizeof *xs);
    if (!xs) return false;
    r->xs = xs;
    r->xs[r->nxs++] = (gen_xstat){ sx->threads, sx->npaths, sx->ndone, sx->ncut, sx->nerror, sx->nlegs,
                                   sx->nlegs_covered, sx->budget_hit, sx->path_cap_hit, sx->saturated,
                                   sx->last_gain_s, t };
    return true;
}

/* A line on stderr while one X runs, so a long exploration is not silent. */
static void print_progress(void *ctx, const sx_progress *p)
{
    (void)ctx;
    fprintf(stderr, "explore: X=%d running %.0f s: %d paths, coverage %.1f%% (%d/%d legs), %d states pending; "
            "solver %.1f s in %ld calls (%ld given up; %ld cut by the watchdog, %ld for memory)\n", p->threads,
            p->elapsed_s, p->paths, p->legs ? 100.0 * p->legs_covered / p->legs : 100.0, p->legs_covered, p->legs,
            p->pending, p->solver_s, p->solver_calls, p->giveups, p->interrupted, p->memouts);
}

/* Does the exploration sx replace the kept one?  One that finished does;
 * one the path budget stopped does when it covers more branch legs (its
 * paths are whole paths of more threads, only not all of them: lbm's X = 4
 * stopped at 2000 paths covers 94 % of the legs, X = 3 finished 89 %).  At
 * equal coverage the finished one stays: the capped one's paths are the
 * search order's first ones, and can miss the longest (substring_search's
 * all-match path, in X = 2's 1089 paths, was not among X = 3's first 2000:
 * gdivan fell from 1.00 to 0.66 of the known worst).  One that saturated
 * (found nothing new for long enough) is judged as a capped one.  One the
 * clock stopped only stands in when nothing else is there. */
static bool keeps_over(const sx_result *sx, const sx_result *kept)
{
    if (!kept || !sx->budget_hit)
        return true;
    return (sx->path_cap_hit || sx->saturated) && sx->nlegs_covered > kept->nlegs_covered;
}

/* What stopped one X short of finishing, for its line ("" when it did). */
static const char *stop_reason(const sx_result *sx, char *buf, size_t n)
{
    if (sx->path_cap_hit) return ", path budget hit";
    if (sx->saturated)
        snprintf(buf, n, ", saturated: nothing new after %.2f s", sx->last_gain_s);
    else
        snprintf(buf, n, "%s", sx->budget_hit ? ", time budget hit" : "");
    return buf;
}

/* Did the last X finish with exactly the paths and legs of the X before,
 * which finished too?  Its threads then never told one another apart (no
 * path depends on how many there are: md_cutoff's 2 paths at X = 2, 3 and
 * 4, 6.4 s each), and a larger X is time taken from the search. */
static bool same_as_smaller(const gen_result *r)
{
    if (r->nxs < 2) return false;
    const gen_xstat *a = &r->xs[r->nxs - 2], *b = &r->xs[r->nxs - 1];
    return !a->budget_hit && !b->budget_hit && a->paths == b->paths && a->legs_covered == b->legs_covered;
}

/* Run the X sequence; returns the exploration to keep (or NULL + err). */
static sx_result *deepen(gen_result *r, const ptx_module *mod, const gen_explore_options *o, double budget,
                         wh_error *err)
{
    const wh_spec *spec = r->spec;
    int one[1] = { o->threads };
    const int *xs = o->threads ? one : spec->sym_threads;
    int nxs = o->threads ? 1 : spec->nsym_threads;
    double t0 = wh_clock_s();
    sx_result *kept = NULL;
    for (int i = 0; i < nxs; i++) {
        double left = budget - (wh_clock_s() - t0);
        if (left <= 0 && kept) break;
        sx_options so;
        sx_options_default(&so);
        so.threads = xs[i];
        so.max_iter = o->max_iter;
        so.time_budget_s = left > 0.5 ? left : 0.5;
        so.path_budget = o->path_budget > 0 ? o->path_budget : 2000;
        so.seed = 1;
        if (o->query_ms) so.query_ms = o->query_ms;
        if (o->solver_mb) so.solver_mb = o->solver_mb;
        so.order = o->order;
        so.saturation_s = o->saturation_s;
        so.saturate_pathless = kept && kept->npaths > 0;   /* a larger X need not wait for its first */
        if (!o->quiet) so.progress = print_progress;
        double tx = wh_clock_s();
        char buf[80];
        sx_result *sx = sx_explore(spec, mod, &so, err);
        if (!sx) {
            sx_result_free(kept);
            return NULL;
        }
        if (!push_xstat(r, sx, wh_clock_s() - tx)) {
            sx_result_free(sx);
            sx_result_free(kept);
            wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
            return NULL;
        }
        if (!o->quiet)
            fprintf(stderr, "explore: X=%d: %d paths (%d done, %d cut), coverage %.1f%% (%d/%d legs), %.2f s%s\n",
                    sx->threads, sx->npaths, sx->ndone, sx->ncut, sx_result_coverage(sx), sx->nlegs_covered,
                    sx->nlegs, wh_clock_s() - tx, stop_reason(sx, buf, sizeof buf));
        bool full = sx->nlegs_covered == sx->nlegs;
        if (keeps_over(sx, kept)) {
            if ((sx->path_cap_hit || sx->saturated) && kept && !o->quiet)
                fprintf(stderr, "explore: keeping X=%d's first %d paths (each whole; the %s stopped the rest) "
                        "over X=%d's %d: it covers more legs\n", sx->threads, sx->npaths,
                        sx->saturated ? "saturation" : "path budget", kept->threads, kept->npaths);
            sx_result_free(kept);
            kept = sx;
        } else {
            sx_result_free(sx);
            break;
        }
        /* a larger X would hit the same budget; a saturated one may still
         * meet new legs with more threads (and saturates in turn) */
        if (full || (kept->budget_hit && !kept->saturated)) break;
        if (same_as_smaller(r)) {
            if (!o->quiet && i + 1 < nxs)
                fprintf(stderr, "explore: X=%d found what X=%d found (%d paths, %d legs): no larger X tried\n",
                        sx->threads, r->xs[r->nxs - 2].x, sx->npaths, sx->nlegs_covered);
            break;
        }
    }
    const char *unsupported = kept ? sx_result_stopped_unsupported(kept) : NULL;
    if (unsupported && !o->quiet)
        fprintf(stderr, "explore: warning: no path ran to its end: %s (the stage does not run it; the hunt's atoms "
                "come from the paths up to there)\n", unsupported);
    if (kept && !o->quiet && sx_result_never_branched(kept))
        fprintf(stderr, "explore: warning: the %d symbolic threads never branched on the input (%d of %d legs): "
                "either the kernel has no branch on its inputs (its time from memory and atomics alone), or a "
                "guard comparing the thread index with a constant of at least %d sends them all out early "
                "(`warphunt spec check` names the suspects)\n", kept->threads, kept->nlegs_covered, kept->nlegs,
                kept->threads);
    return kept;
}

static bool same_as_earlier(const gen_pool *pool, int first, int id)
{
    for (int a = first; a < id; a++)
        if (gen_pool_same(pool, a, id)) return true;
    return false;
}

/* What making the atoms needs: the exploration, a scratch image of X
 * threads, the validator (when atoms are replayed) and the deadline. */
typedef struct {
    gen_result *r;
    sx_result *sx;
    const ptx_module *mod;
    wh_image *scratch;
    gen_validator v;
    double deadline;        /* for making atoms and writing paths.json */
    double write_s;         /* what writing the formulas will take */
} atom_maker;

/* What writing the paths' formulas will take (paths.json holds no atom
 * values: atoms.bin does). */
static double write_formulas_s(const sx_result *sx)
{
    double bytes = 0;
    for (int i = 0; i < sx->npaths; i++)
        bytes += sx->paths[i].formula ? (double)strlen(sx->paths[i].formula) : 0;
    return bytes / GEN_WRITE_BYTES_PER_S;
}

/* Time left for atoms, writing the formulas accounted. */
static bool time_left(const atom_maker *am)
{
    return wh_clock_s() + am->write_s < am->deadline;
}

/* The first model of every path (the solver's own: one check, no
 * pinning), replayed, before any path gets a second one: when the budget
 * runs out, as many paths as possible have an atom.  Past the deadline the
 * first GEN_LATE_FIRST_ATOMS paths still get the model their own final
 * state holds, which costs no solver check (one that would is refused at
 * once): kd_nearest's search overran its share by 20 s and its 5 paths
 * got no atom, the hunt none but random ones.  first[i] is NULL for a
 * path without one (an error path, no model, or no time left). */
static bool first_models(atom_maker *am, wh_image **first, bool *valid, bool *hung, wh_error *err)
{
    for (int i = 0; i < am->sx->npaths && (time_left(am) || i < GEN_LATE_FIRST_ATOMS); i++) {
        wh_error merr;
        if (am->sx->paths[i].kind == SX_PATH_ERROR || !sx_path_model(am->sx, i, 0, am->scratch, &merr)) continue;
        valid[i] = true;
        if (am->r->validated &&
            !gen_validate_atom(&am->v, am->mod, &am->sx->paths[i], am->scratch, &valid[i], &hung[i], err))
            return false;
        if (!(first[i] = wh_image_clone(am->scratch, err))) return false;
    }
    return true;
}

/* Adds the atom in img for path i, as the replay judged it. */
static bool add_atom(atom_maker *am, int i, const wh_image *img, bool valid, bool hung, wh_error *err)
{
    gen_result *r = am->r;
    gen_path *gp = &r->paths[i];
    int id = gen_pool_add(&r->pool, img, GEN_ATOM_PATH, i, valid, err);
    if (id < 0) return false;
    r->atoms_hung += hung;
    gp->natoms++;
    gp->nvalid += valid;
    r->atoms_valid += valid;
    r->atoms_invalid += !valid;
    return true;
}

/* Models 1..k-1 of path i, distinct from its earlier atoms, each
 * replayed, while the budget lasts. */
static bool more_models(atom_maker *am, int i, int k, wh_error *err)
{
    gen_result *r = am->r;
    gen_path *gp = &r->paths[i];
    for (int m = 1; m < k && time_left(am); m++) {
        wh_error merr;
        if (!sx_path_model(am->sx, i, (uint64_t)m, am->scratch, &merr)) break; /* no more models */
        int id = gen_pool_add(&r->pool, am->scratch, GEN_ATOM_PATH, i, true, err);
        if (id < 0) return false;
        bool dup = same_as_earlier(&r->pool, gp->first_atom, id);
        gen_pool_drop_last(&r->pool);   /* only a probe for duplicates so far */
        if (dup) continue;
        bool valid = true, hung = false;
        if (r->validated && !gen_validate_atom(&am->v, am->mod, &am->sx->paths[i], am->scratch, &valid, &hung, err))
            return false;
        if (!add_atom(am, i, am->scratch, valid, hung, err)) return false;
    }
    return true;
}

/* Up to K distinct models of every finished or cut path, each replayed,
 * within the stage's deadline: first one per path, then the others path
 * by path (each path's atoms stay consecutive in the pool).  Cut paths
 * give atoms too: their models drive loops past the cut (a loop whose
 * trip count is an input is where the time is). */
static bool make_atoms(gen_result *r, sx_result *sx, const ptx_module *mod, const gen_explore_options *o,
                       double deadline, wh_error *err)
{
    int k = o->models > 0 ? o->models : 4, n = sx->npaths;
    double atoms_deadline = deadline - (o->families > 0 ? (deadline - wh_clock_s()) * GEN_FAMILY_SHARE : 0);
    atom_maker am = { .r = r, .sx = sx, .mod = mod, .deadline = atoms_deadline, .write_s = write_formulas_s(sx) };
    sx_model_limits(sx, GEN_MODEL_QUERY_MS, atoms_deadline - am.write_s);
    wh_launch l = wh_launch_threads((unsigned)r->x);
    wh_image **first = calloc(n ? (size_t)n : 1, sizeof *first);
    bool *flags = calloc(n ? (size_t)n * 2 : 1, sizeof *flags);
    if (!first || !flags || !(am.scratch = wh_image_new(r->spec, &l, err))) {
        free(first);
        free(flags);
        return false;
    }
    r->validated = o->validate && gen_validator_open(&am.v, r->spec, r->x, err);
    if (o->validate && !r->validated && !o->quiet) {
        char buf[1200];
        wh_error_format(err, buf, sizeof buf);
        fprintf(stderr, "explore: atoms not validated: the sim backend cannot run this kernel: %s\n", buf);
    }
    bool ok = first_models(&am, first, flags, flags + n, err);
    for (int i = 0; i < n; i++) {
        r->paths[i].first_atom = r->pool.natoms;
        if (!first[i]) {
            r->paths_without_atoms += sx->paths[i].kind != SX_PATH_ERROR;
            continue;
        }
        ok = ok && add_atom(&am, i, first[i], flags[i], flags[n + i], err) && more_models(&am, i, k, err);
        wh_image_free(first[i]);
    }
    ok = ok && gen_make_families(r, sx, mod, r->validated ? &am.v : NULL, o->families, deadline - am.write_s, o->quiet,
                                 err);
    if (r->validated) gen_validator_close(&am.v);
    wh_image_free(am.scratch);
    free(first);
    free(flags);
    if (ok && r->paths_without_atoms && !o->quiet)
        fprintf(stderr, "explore: %d of %d paths got no atom (no model within the time budget, or none at all)\n",
                r->paths_without_atoms, n);
    if (ok && r->atoms_hung && !o->quiet)
        fprintf(stderr, "explore: %d atom(s) did not finish within %llu warp instructions on the sim with X=%d: "
                "hang candidates, marked invalid (paths.json: atoms_hung)\n", r->atoms_hung,
                (unsigned long long)GEN_VALIDATE_STEP_LIMIT, r->x);
    return ok;
}

static bool fill_paths(gen_result *r, const sx_result *sx, const ptx_module *mod)
{
    r->x = sx->threads;
    r->npaths = sx->npaths;
    r->paths = calloc(sx->npaths ? (size_t)sx->npaths : 1, sizeof *r->paths);
    if (!r->paths) return false;
    for (int i = 0; i < sx->npaths; i++) {
        const sx_path *p = &sx->paths[i];
        r->paths[i] = (gen_path){ p->kind, p->brdiv, p->instr, p->warp_instr, p->intervals, p->uf, 0, 0, 0 };
    }
    r->legs_total = sx->nlegs;
    r->legs_covered = sx->nlegs_covered;
    int n = sx->nlegs - sx->nlegs_covered;
    r->uncovered = calloc(n > 0 ? (size_t)n : 1, sizeof *r->uncovered);
    if (!r->uncovered) return false;
    for (int l = 0; l < sx->nlegs; l++) {
        if (sx->covered[l]) continue;
        char buf[700], src[600];
        bool has_src = sx_leg_source(mod, &sx->legs[l], src, sizeof src);
        snprintf(buf, sizeof buf, "line %d %s%s%s%s", sx->legs[l].line, sx->legs[l].taken ? "taken" : "not taken",
                 has_src ? " (CUDA source " : "", has_src ? src : "", has_src ? ")" : "");
        if (!(r->uncovered[r->nuncovered++] = strdup(buf))) return false;
    }
    return true;
}

static gen_result *explore_entry(const wh_spec *spec, const ptx_module *mod, const gen_explore_options *o,
                                 wh_error *err);

/* One process computes a cache entry at a time: a second run of the same
 * exploration waits for the first and reuses its entry, rather than
 * computing it again and racing it for the entry's two files (paths.json
 * from one run and atoms.bin from the other would not belong together). */
/* The structured inputs whose structure the stage did not assume at the
 * kept X (too many elements: sx_structure_assumed), named in r->unassumed
 * and in a note; false when out of memory. */
static bool find_unassumed(gen_result *r, bool quiet)
{
    const wh_image *ref = r->pool.ref;
    size_t at = 0;
    for (int p = 0; ref && p < ref->nbufs; p++) {
        const wh_param *par = ref->bufs[p].param;
        if (par->role != WH_ROLE_INPUT || !(wh_param_structured(par) || par->below_rows) ||
            sx_structure_assumed(ref, p))
            continue;
        size_t n = strlen(par->name) + 3;
        char *v = realloc(r->unassumed, at + n);
        if (!v) return false;
        snprintf(v + at, n, "%s%s", at ? ", " : "", par->name);
        at += strlen(v + at);
        r->unassumed = v;
    }
    if (r->unassumed && !quiet)
        fprintf(stderr, "explore: note: the symbolic stage does not assume the structure of %s (more than %d "
                "elements, a hash table of more than %d slots, or columns below their rows in more than %d "
                "slot-row pairs, at X = %d): its atoms may break it; the search brings every input it builds to "
                "it\n", r->unassumed, SX_STRUCTURE_MAX, SX_TABLE_SLOTS, SX_BELOW_ROW_PAIRS, r->x);
    return true;
}

gen_result *gen_explore(const wh_spec *spec, const ptx_module *mod, const gen_explore_options *o, wh_error *err)
{
    char key[17], lock[1200];
    cache_key(spec, mod, o, key);
    snprintf(lock, sizeof lock, "%s/%s.lock", o->cache_dir, key);
    int fd = wh_make_dirs(o->cache_dir, err)
                 ? wh_file_lock_wait(lock, "to finish this exploration; it will be reused", o->quiet, err)
                 : -1;
    if (fd < 0) return NULL;
    gen_result *r = explore_entry(spec, mod, o, err);
    close(fd);
    if (r && !find_unassumed(r, o->quiet)) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        gen_result_free(r);
        return NULL;
    }
    return r;
}

static gen_result *explore_entry(const wh_spec *spec, const ptx_module *mod, const gen_explore_options *o,
                                 wh_error *err)
{
    gen_result *r = calloc(1, sizeof *r);
    if (!r) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    r->spec = spec;
    double t0 = wh_clock_s();
    cache_key(spec, mod, o, r->cache_key);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/%s", o->cache_dir, r->cache_key);
    char probe[1200];
    snprintf(probe, sizeof probe, "%s/atoms.bin", dir);
    if (o->reuse && file_exists(probe)) {
        wh_error cerr;
        if (load_cached(r, dir, o->keep_doc, &cerr)) {
            if (!o->quiet)
                fprintf(stderr, "explore: reusing the cached exploration %s (X=%d, %d paths, %d valid atoms)\n",
                        dir, r->x, r->npaths, r->atoms_valid);
            return r;
        }
        if (!o->quiet) fprintf(stderr, "explore: ignoring an unreadable cache entry %s: %s\n", dir, cerr.msg);
        gen_result_free(r);
        r = calloc(1, sizeof *r);
        if (!r) return NULL;
        r->spec = spec;
        cache_key(spec, mod, o, r->cache_key);
    }
    if (o->on_explore) o->on_explore(o->on_explore_ctx);
    /* The budget bounds the whole stage: the search gets its share, the
     * atoms (models and replays) the rest, at least. */
    double budget = o->time_s > 0 ? o->time_s : 60;
    sx_result *sx = deepen(r, mod, o, budget * GEN_SEARCH_SHARE, err);
    bool ok = sx && fill_paths(r, sx, mod) && gen_pool_init(&r->pool, spec, r->x, err);
    double ta = wh_clock_s();
    ok = ok && make_atoms(r, sx, mod, o, t0 + budget, err);
    r->atoms_s = wh_clock_s() - ta;
    ok = ok && wh_make_dirs(dir, err);
    r->time_s = wh_clock_s() - t0;
    char pj[1200], ab[1200];
    snprintf(pj, sizeof pj, "%s/paths.json", dir);
    snprintf(ab, sizeof ab, "%s/atoms.bin", dir);
    ok = ok && gen_paths_json_write(r, sx, mod, pj, o->keep_doc, err) && gen_pool_save(&r->pool, ab, 0, err);
    if (ok)
        replay_issues(r, sx, dir, o->quiet);
    sx_result_free(sx);
    if (ok && !(r->paths_json = strdup(pj))) ok = false;
    if (!ok) {
        gen_result_free(r);
        return NULL;
    }
    return r;
}

gen_result *gen_explore_spec(const wh_spec *spec, const gen_explore_options *opt, wh_error *err)
{
    char ptx_path[1024];
    if (!wh_spec_ptx_path(spec, ptx_path, sizeof ptx_path, err)) return NULL;
    ptx_module *mod = ptx_parse_file(ptx_path, err);
    if (!mod) return NULL;
    gen_result *r = gen_explore(spec, mod, opt, err);
    ptx_module_free(mod);
    return r;
}

void gen_result_free(gen_result *r)
{
    if (!r) return;
    free(r->xs);
    free(r->paths);
    gen_pool_free(&r->pool);
    for (int i = 0; i < r->nuncovered; i++) free(r->uncovered[i]);
    free(r->uncovered);
    free(r->paths_json);
    free(r->issues_dir);
    free(r->unassumed);
    json_decref(r->doc);
    free(r);
}

double gen_result_coverage(const gen_result *r)
{
    return r->legs_total ? 100.0 * r->legs_covered / r->legs_total : 100.0;
}

/* A hunt's paths.json is the cache entry's file under a second name: a
 * large kernel's is megabytes, and every run of it had its own copy.  The
 * cache replaces its files by renames, so the run's name keeps its text. */
bool gen_result_write_paths(const gen_result *r, const char *path, wh_error *err)
{
    return wh_link_or_copy_file(r->paths_json, path, err);
}

int gen_valid_alleles(const gen_result *r, int **out)
{
    int n = 0;
    *out = malloc((size_t)(r->pool.natoms ? r->pool.natoms : 1) * sizeof **out);
    if (!*out) return -1;
    for (int a = 0; a < r->pool.natoms; a++)
        if (r->pool.atoms[a].valid && (r->pool.atoms[a].origin == GEN_ATOM_PATH || r->pool.atoms[a].origin == GEN_ATOM_FAMILY))
            (*out)[n++] = a;
    return n;
}
