/*
 * cmd_spec.c — `warphunt spec check SPEC`: is a kernel spec right for its
 * kernel, and what in it looks wrong before a hunt spends an hour on it.
 *
 * Errors (exit 1) are what no run could get past: what the spec loader
 * refuses (file and JSON path), a PTX or entry it cannot find, parameters
 * that do not match the entry's (number, order, size), an image that the
 * full launch or one of the symbolic stage's X-thread launches cannot
 * build.  Warnings are what runs, but wrongly: a random input that faults
 * or runs past the step limit on the sim (counts too small for the
 * indices the kernel makes), a per_thread slice that gives the launch's
 * last threads nothing, and symbolic threads that never branch on the
 * input (a guard comparing the thread index with a constant at least X
 * sends them all out early, and the symbolic stage then yields one path:
 * a hunt would search without atoms worth having).  --strict makes a
 * warning an error.
 */
#include "cli/cli.h"
#include "cli/init.h"

#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/image.h"
#include "core/pcg32.h"
#include "gen/explore.h"
#include "harness/harness.h"
#include "ptx/ptx.h"
#include "symexec/symexec.h"

/* A random input runs past this many warp instructions: a hang, or a
 * launch too large to check quickly (said as such). */
#define CHECK_STEP_LIMIT 200000000ULL

typedef struct {
    json_t *warnings;       /* strings: what may be wrong in the spec */
    json_t *notes;          /* strings: what the tools will do with it that the user
                               should know, but cannot change in the spec */
    bool quiet;
} findings;

static void add_finding(findings *f, json_t *to, const char *kind, const char *fmt, va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    json_array_append_new(to, json_string(text));
    if (!f->quiet) fprintf(stderr, "spec check: %s: %s\n", kind, text);
}

static void warn(findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(findings *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_finding(f, f->warnings, "warning", fmt, ap);
    va_end(ap);
}

static void note(findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(findings *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_finding(f, f->notes, "note", fmt, ap);
    va_end(ap);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt spec check SPEC [--explore-time S] [--strict] [--json] [--quiet]\n"
            "\n"
            "Check a kernel spec against its kernel before a hunt.  Errors (exit 1): what the\n"
            "spec loader refuses (with the file and the JSON path), a PTX or entry it cannot\n"
            "find, parameters that do not match the entry's in number, order or size, an\n"
            "input image the full launch, a named size (\"sizes\": built, not run) or a\n"
            "symbolic launch (one block of X threads, for each X of symbolic.threads) cannot\n"
            "build.  Warnings (exit 0): a random input that faults or runs past %llu warp\n"
            "instructions on the sim (counts too small for the indices the kernel makes, or a\n"
            "hang), an input buffer whose per_thread slices need more elements than its count\n"
            "(the launch's last threads get none), an input owned by rows whose rows may\n"
            "hold more entries than its per_thread (by warp, 32 x per_thread) or end past\n"
            "its count, an input owned through an index whose range passes what it names,\n"
            "a hash table that may be full with no probe bound (a lookup of an absent key\n"
            "would not stop),\n"
            "textures, surfaces and tensor maps stated otherwise than the entry uses them,\n"
            "globals the entry never names, and symbolic threads that never branch on the\n"
            "input: a kernel with no branch on its inputs (its time from memory and atomics\n"
            "alone), or a guard comparing the thread index with a constant of at least X\n"
            "that sends them all out early; the symbolic stage then gives one path (the\n"
            "constants and fixed scalars of at least X are named).\n"
            "Notes (never an error): a structured input too large for the symbolic stage to\n"
            "assume its structure, a probe that finished no path in its time (the stage\n"
            "may give a hunt no atom), and an input the code reads by a loop from a row\n"
            "start read at the thread's position (row_start[t]) owned otherwise than by\n"
            "those rows (\"owner\": { \"rows\": ... } may be what it needs), and one read at\n"
            "an index read there (x[level[t]]), or walked from a row start read so, owned\n"
            "otherwise than through it (\"owner\": { \"index\": ... }, or \"through\").\n"
            "\n"
            "  --explore-time S  seconds for the symbolic probe (default 3; 0 skips it)\n"
            "  --strict          exit 1 on a warning too (not on a note)\n"
            "  --json            the findings as JSON on stdout: {spec, kernel, errors,\n"
            "                    warnings, notes, ok}\n"
            "  --quiet           nothing on stderr\n"
            "  -h, --help        this text\n",
            (unsigned long long)CHECK_STEP_LIMIT);
}

/* ---- the checks ------------------------------------------------------------- */

/* Every launch the tools make must build an image: the full one and each
 * symbolic X. */
static bool launches_build(const wh_spec *spec, wh_error *err)
{
    wh_launch full = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &full, err);
    bool ok = img != NULL;
    wh_image_free(img);
    for (int k = 0; ok && k < spec->nsym_threads; k++) {
        wh_launch l = wh_launch_threads((unsigned)spec->sym_threads[k]);
        img = wh_image_new(spec, &l, err);
        if (!img) {
            char why[1024];
            snprintf(why, sizeof why, "%s", err->msg);
            wh_error_set(err, WH_ERR_USER, spec->path, 0, 0, "the symbolic launch of X = %d threads: %s",
                         spec->sym_threads[k], why);
            ok = false;
        }
        wh_image_free(img);
    }
    return ok;
}

/* The full launch's expression variables (NULL when they cannot be
 * evaluated: the launch check reports why). */
static int64_t *full_vars(const wh_spec *spec)
{
    wh_launch full = wh_spec_launch_full(spec);
    int64_t *vars = calloc((size_t)spec->nvars, sizeof *vars);
    wh_error err;
    wh_error_clear(&err);
    if (vars && !wh_spec_vars(spec, &full, vars, &err)) {
        free(vars);
        return NULL;
    }
    return vars;
}

/* per_thread (per_warp) slices past an input buffer's count. */
static void check_slice(const wh_spec *spec, const wh_param *q, uint64_t count, findings *f)
{
    wh_launch full = wh_spec_launch_full(spec);
    bool warp = q->owner == WH_OWNER_WARP;
    uint64_t owned = wh_owned_total(q, &full);
    uint64_t owners = warp ? owned / (uint64_t)q->per_thread : wh_launch_threads_total(&full);
    if (owned > count)
        warn(f, "input '%s': %s %lld x %llu %s = %llu elements, but its count is %lld: %s from %lld on own "
             "none of it (is %s or count wrong?)", q->name, warp ? "per_warp" : "per_thread", (long long)q->per_thread,
             (unsigned long long)owners, warp ? "warps" : "threads", (unsigned long long)owned, (long long)count,
             warp ? "warps" : "threads", (long long)(count / (uint64_t)q->per_thread),
             warp ? "per_warp" : "per_thread");
}

/* A hash table that may fill every slot with no probe bound: a lookup of
 * an absent key then never meets an empty slot and never stops. */
static void check_table(const wh_spec *spec, const wh_param *q, uint64_t count, const int64_t *vars, findings *f)
{
    int64_t probes = (int64_t)count, keys = (int64_t)count;
    wh_error err;
    if ((q->table->max_probes && !wh_spec_eval(spec, q->table->max_probes, vars, "max_probes", &probes, &err)) ||
        (q->table->max_keys && !wh_spec_eval(spec, q->table->max_keys, vars, "max_keys", &keys, &err)))
        return;
    if (count > 0 && keys >= (int64_t)count && probes >= (int64_t)count)
        warn(f, "input '%s' (\"hash_table\"): max_keys and max_probes allow a full table of %llu keys, where a "
             "lookup of a key it lacks finds no empty slot (does the kernel bound its probes? say so with "
             "max_probes, or keep a slot free with max_keys)", q->name, (unsigned long long)count);
}

/* An owner by rows whose rows may be longer than its owners hold
 * (per_thread, or 32 lanes x per_thread by warp: the entries past it are
 * no thread's, and the scaler leaves them at the low end) or end past the
 * buffer (the kernel reads past it). */
static void check_rows_owner(const wh_spec *spec, const wh_param *q, uint64_t count, const int64_t *vars, findings *f)
{
    const wh_param *rows = &spec->params[q->owner_rows - 1], *lens = &spec->params[rows->prefix_of - 1];
    int64_t longest, end, held = q->per_thread * (q->rows_by_warp ? 32 : 1);
    wh_error err;
    if (lens->fields[0].hi && wh_spec_eval(spec, lens->fields[0].hi, vars, lens->name, &longest, &err) &&
        longest > held)
        warn(f, "input '%s' is owned by the rows of '%s', whose lengths '%s' reach %lld, but a row's %s %lld of "
             "its entries (%sper_thread %lld): the entries of a row past %lld are no thread's (the scaler leaves "
             "them at the low end; is per_thread the longest row%s?)", q->name, rows->name, lens->name,
             (long long)longest, q->rows_by_warp ? "warp holds" : "thread holds", (long long)held,
             q->rows_by_warp ? "32 lanes x " : "", (long long)q->per_thread, (long long)held,
             q->rows_by_warp ? " / 32" : "");
    if (rows->fields[0].hi && wh_spec_eval(spec, rows->fields[0].hi, vars, rows->name, &end, &err) &&
        end > (int64_t)count)
        warn(f, "input '%s' is owned by the rows of '%s', whose range reaches %lld, but its count is %llu: rows may "
             "end past the buffer", q->name, rows->name, (long long)end, (unsigned long long)count);
}

/* An owner through an index whose values may pass what they name (the
 * elements, or the rows): those threads own nothing there, and the kernel
 * reads past the buffer. */
static void check_index_owner(const wh_spec *spec, const wh_param *q, uint64_t count, const int64_t *vars, findings *f)
{
    const wh_param *idx = &spec->params[q->owner_index - 1];
    const wh_param *lens = q->owner == WH_OWNER_ROWS ? &spec->params[spec->params[q->owner_rows - 1].prefix_of - 1]
                                                     : NULL;
    int64_t hi, n = (int64_t)count;
    wh_error err;
    if (lens && !(lens->count && wh_spec_eval(spec, lens->count, vars, lens->name, &n, &err))) return;
    if (idx->fields[0].hi && wh_spec_eval(spec, idx->fields[0].hi, vars, idx->name, &hi, &err) && hi >= n)
        warn(f, "input '%s' is owned through the index '%s', whose range reaches %lld, but it has %lld %s: a thread "
             "whose index passes them owns nothing there", q->name, idx->name, (long long)hi, (long long)n,
             lens ? "rows" : "elements");
}

/* What the counts of the full launch's input buffers say: slices past
 * them, tables that may be full, rows longer than their owners hold,
 * indices past what they name. */
static void check_counts(const wh_spec *spec, findings *f)
{
    int64_t *vars = full_vars(spec);
    wh_error err;
    for (int p = 0; vars && p < spec->nparams; p++) {
        const wh_param *q = &spec->params[p];
        int64_t count;
        if (q->kind != WH_BUFFER || !q->count || (q->per_thread <= 0 && !q->table) ||
            !wh_spec_eval(spec, q->count, vars, q->name, &count, &err) || count < 0)
            continue;
        if (q->per_thread > 0 && q->owner != WH_OWNER_INDEX) check_slice(spec, q, (uint64_t)count, f);
        if (q->owner == WH_OWNER_ROWS) check_rows_owner(spec, q, (uint64_t)count, vars, f);
        if (q->owner_index) check_index_owner(spec, q, (uint64_t)count, vars, f);
        if (q->table) check_table(spec, q, (uint64_t)count, vars, f);
    }
    free(vars);
}

/* Structured inputs too large for the symbolic stage to assume at its
 * first X (sx_structure_assumed): its atoms may then break them. */
static void check_structures(const wh_spec *spec, findings *f)
{
    int x = spec->nsym_threads > 0 ? spec->sym_threads[0] : 2;
    wh_launch l = wh_launch_threads((unsigned)x);
    wh_error err;
    wh_image *img = wh_image_new(spec, &l, &err);
    for (int p = 0; img && p < img->nbufs; p++) {
        const wh_param *q = img->bufs[p].param;
        if (q->role == WH_ROLE_INPUT && q->below_rows && !sx_structure_assumed(img, p))
            note(f, "input '%s' (\"below_row\") has %llu column slots in %llu rows at X = %d, more than the %d slots "
                 "or %d slot-row pairs the symbolic stage assumes it over: its atoms may break it (the search's inputs "
                 "keep it)", q->name, (unsigned long long)img->bufs[p].count,
                 (unsigned long long)wh_csr_nrows(img, q->below_rows - 1), x, SX_STRUCTURE_MAX, SX_BELOW_ROW_PAIRS);
        else if (q->role == WH_ROLE_INPUT && wh_param_structured(q) && !sx_structure_assumed(img, p))
            note(f, "input '%s' (%s%s%s) has %llu elements at X = %d, more than the %d the "
                 "symbolic stage assumes a structure over: its atoms may break it (the search's inputs keep it)",
                 q->name, q->structure ? "\"structure\": \"" : q->table ? "\"hash_table\"" : q->tree ? "\"tree\""
                 : "a structure on a field, or a running sum",
                 q->structure ? wh_structure_name(q->structure) : "", q->structure ? "\"" : "",
                 (unsigned long long)img->bufs[p].count, x,
                 q->table ? SX_TABLE_SLOTS : q->structure == WH_STRUCTURE_FOREST ? SX_FOREST_NODES : SX_STRUCTURE_MAX);
    }
    wh_image_free(img);
}

/* Neighbour lists ("neighbors") whose range, at the full launch, holds
 * fewer other threads than a list is long: they cannot be distinct, and
 * the projection then only keeps a thread off its own list. */
static void check_lists(const wh_spec *spec, findings *f)
{
    int64_t *vars = full_vars(spec), lo = 0, hi = 0;
    wh_error err;
    for (int p = 0; vars && p < spec->nparams; p++) {
        const wh_param *q = &spec->params[p];
        if (q->structure != WH_STRUCTURE_NEIGHBORS || !q->fields[0].has_range ||
            !wh_spec_eval(spec, q->fields[0].lo, vars, q->name, &lo, &err) ||
            !wh_spec_eval(spec, q->fields[0].hi, vars, q->name, &hi, &err))
            continue;
        if (hi - lo < q->per_thread)
            warn(f, "input '%s' (\"neighbors\"): its range [%lld, %lld] holds fewer threads than a thread's %lld "
                 "neighbours and itself, so at the full launch a list repeats threads (is the range or per_thread "
                 "wrong?)", q->name, (long long)lo, (long long)hi, (long long)q->per_thread);
    }
    free(vars);
}

/* A shortest-path state's graph at the full launch: edges whose range
 * names nodes the distances do not hold (the projection skips them; the
 * kernel would read past the distances), and more rows than nodes. */
static void check_graphs(const wh_spec *spec, findings *f)
{
    int64_t *vars = full_vars(spec), nodes = 0, rows = 0, lo = 0, hi = 0;
    wh_error err;
    for (int p = 0; vars && p < spec->nparams; p++) {
        const wh_param *q = &spec->params[p];
        if (!q->paths.rows) continue;
        const wh_param *ptr = &spec->params[q->paths.rows - 1], *edges = &spec->params[q->paths.edges - 1];
        if (!wh_spec_eval(spec, q->count, vars, q->name, &nodes, &err) ||
            !wh_spec_eval(spec, ptr->count, vars, ptr->name, &rows, &err))
            continue;
        rows -= ptr->prefix_of ? 0 : 1;   /* offsets: one more than the rows */
        if (rows > nodes)
            warn(f, "input '%s' (\"shortest_paths\"): the row pointer '%s' has %lld rows, more than the %lld "
                 "distances: the nodes past them have edges but no distance", q->name, ptr->name, (long long)rows,
                 (long long)nodes);
        if (edges->fields[0].has_range && wh_spec_eval(spec, edges->fields[0].lo, vars, edges->name, &lo, &err) &&
            wh_spec_eval(spec, edges->fields[0].hi, vars, edges->name, &hi, &err) && (lo < 0 || hi >= nodes))
            warn(f, "input '%s' (\"shortest_paths\"): the targets '%s' range over [%lld, %lld], past the %lld "
                 "nodes the distances hold: the projection skips such edges, and the kernel would read past the "
                 "distances (is the range [0, %lld]?)", q->name, edges->name, (long long)lo, (long long)hi,
                 (long long)nodes, (long long)nodes - 1);
    }
    free(vars);
}

/* Structures the symbolic stage does not assume at all: its atoms may
 * break them (the search's inputs keep them). */
static void check_unassumed(const wh_spec *spec, findings *f)
{
    for (int p = 0; p < spec->nparams; p++) {
        const wh_param *q = &spec->params[p];
        if (q->nearest_of)
            note(f, "input '%s' (\"nearest_of\": \"%s\"): the symbolic stage assumes its threads are other "
                 "threads, not that they are the nearest (the search's inputs keep it)", q->name,
                 spec->params[q->nearest_of - 1].name);
        if (q->paths.rows)
            note(f, "input '%s' (\"shortest_paths\"): the symbolic stage does not assume a relaxation state (the "
                 "search's inputs keep it)", q->name);
    }
}

/* Globals that no code the entry can reach names: their values cannot
 * change what it does (a typo for another variable, or the wrong entry). */
static bool check_globals(const wh_spec *spec, findings *f, wh_error *err)
{
    if (spec->nparams == spec->nkparams) return true;
    char ptx[1024];
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, err)) return false;
    ptx_module *mod = ptx_parse_file(ptx, err);
    if (!mod) return false;
    ptx_memmap mm;
    ptx_memmap_build(mod, ptx_function_index(mod, spec->entry), &mm);
    for (int p = spec->nkparams; p < spec->nparams; p++) {
        int v = ptx_spec_global_var(mod, spec->params[p].name);
        if (v >= 0 && !mm.referenced[v])
            warn(f, "global '%s': no code entry '%s' can reach names the variable, so its values cannot change "
                 "the kernel's time (a typo, or another entry's variable?)", spec->params[p].name, spec->entry);
    }
    ptx_memmap_free(&mm);
    ptx_module_free(mod);
    return true;
}

/* Texture, surface and tensor map parameters against the entry's tex,
 * suld, sust and tensor copies (as `init` reads them): a handle or map
 * the code goes through stated as something else, or with another
 * geometry or rank, and one the entry's own code never uses. */
static void check_one_object(const wh_param *sp, const init_param *ip, findings *f)
{
    const char *what = ip->surface ? "surface" : "texture";
    int geom = sp->tex ? ptx_tex_geometry_of(sp->tex->ndims, sp->tex->layers != NULL, sp->tex->cube, sp->tex->surface)
                       : 0;
    if (ip->tex_geom && !sp->tex)
        warn(f, "parameter '%s': the kernel uses it as a .%s %s object (%s): state it as \"kind\": \"%s\"",
             sp->name, ptx_tex_geom_name(ip->tex_geom), what, ip->surface ? "suld/sust" : "tex", what);
    else if (ip->tex_geom && sp->tex->surface != ip->surface)
        warn(f, "parameter '%s': a %s in the spec, but the kernel uses it as a %s", sp->name,
             sp->tex->surface ? "surface" : "texture", what);
    else if (ip->tex_geom && geom != ip->tex_geom)
        warn(f, "parameter '%s': a .%s %s in the spec, but the kernel's accesses are .%s", sp->name,
             ptx_tex_geom_name(geom), what, ptx_tex_geom_name(ip->tex_geom));
    else if (ip->gathers && !sp->tex->gather)
        warn(f, "texture '%s': the kernel gathers from it (tld4, tex2Dgather), which a GPU does only from a CUDA "
             "array made for it: say \"gather\": true", sp->name);
    else if (!ip->tex_geom && !ip->queried && sp->tex)
        warn(f, "%s '%s': the entry's own code never goes through it (a function it calls may)",
             sp->tex->surface ? "surface" : "texture", sp->name);
    if (ip->tmap_rank && !sp->tmap)
        warn(f, "parameter '%s': the kernel's tensor copies go through it (.%dd): state it as \"kind\": "
             "\"tensor_map\"", sp->name, ip->tmap_rank);
    else if (ip->tmap_rank && sp->tmap->rank != ip->tmap_rank)
        warn(f, "tensor map '%s': %d dimensions in the spec, but the kernel's tensor copies are .%dd", sp->name,
             sp->tmap->rank, ip->tmap_rank);
    else if (!ip->tmap_rank && sp->tmap)
        warn(f, "tensor map '%s': the entry's own code never copies through it (a function it calls may)", sp->name);
}

/* A per-thread input the code reads by a walk from a row start read at
 * the thread's position (as `init` reads it), or at the position an index
 * gives the thread, owned otherwise than by those rows: a note, since only
 * the user knows the pointer is a running sum and a row a thread's (none
 * where the spec says CSR offsets or a struct's field, which no owner
 * states). */
static void check_walked_rows(const wh_spec *spec, int p, const init_param *params, int n, findings *f)
{
    const wh_param *sp = &spec->params[p];
    int r = init_rows_pointer(params, n, p);
    if (sp->kind != WH_BUFFER || sp->role != WH_ROLE_INPUT || sp->per_thread <= 0 || sp->owner == WH_OWNER_ROWS ||
        sp->owner == WH_OWNER_INDEX || r < 0 || r >= spec->nkparams || spec->params[r].structure == WH_STRUCTURE_OFFSETS ||
        spec->params[r].nfields != 1)
        return;
    const char *rows = spec->params[r].name;
    int q = init_index_of(params, n, r);
    if (q >= 0 && q < spec->nkparams)
        note(f, "input '%s' is read by a loop that starts at %s[%s[t]] (t the thread's position), but owned as %s "
                "slices: if %s is a running sum of row lengths and thread t reads row %s[t], say \"owner\": { "
                "\"rows\": \"%s\", \"through\": \"%s\" } (README, \"Ownership\")", sp->name, rows,
             spec->params[q].name, wh_owner_name(sp->owner), rows, spec->params[q].name, rows, spec->params[q].name);
    else
        note(f, "input '%s' is read by a loop that starts at %s[t] (t the thread's position), but owned as %s "
                "slices: if %s is a running sum of row lengths and thread t reads row t, say \"owner\": { \"rows\": "
                "\"%s\" } (\"by\": \"warp\" where a warp reads a row; README, \"Ownership\")", sp->name, rows,
             wh_owner_name(sp->owner), rows, rows);
}

/* A per-thread input the code reads at an index read at the thread's
 * position in another per-thread input (x[level[t]]), owned otherwise
 * than through it: a note, as above. */
static void check_indexed(const wh_spec *spec, int p, const init_param *params, int n, findings *f)
{
    const wh_param *sp = &spec->params[p];
    int q = init_index_of(params, n, p);
    if (sp->kind != WH_BUFFER || sp->role != WH_ROLE_INPUT || sp->per_thread <= 0 || sp->owner == WH_OWNER_ROWS ||
        sp->owner == WH_OWNER_INDEX || q < 0 || q >= spec->nkparams || spec->params[q].per_thread <= 0)
        return;
    note(f, "input '%s' is read at %s[t] (t the thread's position), but owned as %s slices: if thread t's element "
            "is the one %s[t] names, say \"owner\": { \"index\": \"%s\" } (README, \"Ownership\")", sp->name,
         spec->params[q].name, wh_owner_name(sp->owner), spec->params[q].name, spec->params[q].name);
}

static bool check_objects(const wh_spec *spec, findings *f, wh_error *err)
{
    char ptx[1024];
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, err)) return false;
    ptx_module *mod = ptx_parse_file(ptx, err);
    if (!mod) return false;
    const ptx_function *fn = ptx_find_kernel(mod, spec->entry);
    init_param params[INIT_MAX_PARAMS];
    int n = fn ? init_infer(fn, params, INIT_MAX_PARAMS) : -1;
    for (int p = 0; p < n && p < spec->nkparams; p++) {
        check_one_object(&spec->params[p], &params[p], f);
        check_walked_rows(spec, p, params, n, f);
        check_indexed(spec, p, params, n, f);
    }
    ptx_module_free(mod);
    return true;
}

/* One random input (PCG32 seeded 1, as measure --random 1) on the sim. */
static bool random_run(const wh_spec *spec, findings *f, wh_error *err)
{
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.step_limit = CHECK_STEP_LIMIT;
    harness *h = harness_open(spec, HARNESS_SIM, &o, err);
    if (!h) return false;
    wh_launch full = wh_spec_launch_full(spec);
    wh_image *img = wh_image_new(spec, &full, err);
    pcg32 rng;
    pcg32_seed(&rng, 1, 0);
    harness_result r;
    memset(&r, 0, sizeof r);
    bool ok = img && wh_image_fill_random(img, &rng, err) && harness_measure(h, img, 1, &r, err);
    if (ok && r.status != HARNESS_OK)
        warn(f, "a random input (measure --random 1) ends with status %s on the sim: %s",
             harness_status_name(r.status), r.message);
    harness_result_free(&r);
    wh_image_free(img);
    harness_close(h);
    return ok;
}

/* The constants and fixed scalars whose value in the symbolic launch of X
 * threads is at least X: the suspects of an early exit. */
static void suspects(const wh_spec *spec, int x, char *out, size_t n)
{
    out[0] = '\0';
    wh_launch l = wh_launch_threads((unsigned)x);
    int64_t *vars = calloc((size_t)spec->nvars, sizeof *vars);
    wh_error err;
    wh_error_clear(&err);
    size_t at = 0;
    if (vars && wh_spec_vars(spec, &l, vars, &err)) {
        for (int k = 0; k < spec->nconsts && at < n; k++) {
            int64_t v;
            if (wh_spec_eval(spec, spec->const_exprs[k], vars, spec->const_names[k], &v, &err) && v >= x)
                at += (size_t)snprintf(out + at, n - at, "%s%s = %lld", at ? ", " : "", spec->const_names[k],
                                       (long long)v);
        }
        for (int p = 0; p < spec->nparams && at < n; p++) {
            const wh_param *q = &spec->params[p];
            int64_t v;
            if (q->kind == WH_SCALAR && q->value &&
                wh_spec_eval(spec, q->value, vars, q->name, &v, &err) && v >= x)
                at += (size_t)snprintf(out + at, n - at, "%sscalar %s = %lld", at ? ", " : "", q->name,
                                       (long long)v);
        }
    }
    free(vars);
}

/* The symbolic stage's first X for a few seconds: threads that never
 * branch on the input, in a kernel that has branches, are a warning. */
static bool symbolic_probe(const wh_spec *spec, double seconds, findings *f, wh_error *err)
{
    char ptx[1024];
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, err)) return false;
    ptx_module *mod = ptx_parse_file(ptx, err);
    if (!mod) return false;
    int x = spec->nsym_threads > 0 ? spec->sym_threads[0] : 2;
    sx_options o;
    sx_options_default(&o);
    o.threads = x;
    o.time_budget_s = seconds;
    o.path_budget = 64;
    o.seed = 1;
    sx_result *r = sx_explore(spec, mod, &o, err);
    bool ok = r != NULL;
    if (ok && sx_result_never_branched(r)) {
        char names[600];
        suspects(spec, x, names, sizeof names);
        warn(f, "the symbolic stage's %d threads never branch on the input (1 path, %d of %d branch legs "
             "covered): either the kernel has no branch on its inputs (its time then comes from memory and "
             "atomics alone, contention the search finds without the stage's atoms), or a guard compares the "
             "thread index with a constant of at least %d (a size too small for X threads), every symbolic "
             "thread exits early and a hunt gets no useful atom%s%s", x, r->nlegs_covered, r->nlegs, x,
             names[0] ? "; constants and fixed scalars of at least X: " : "", names);
    } else if (ok && r->ndone + r->ncut + r->nerror == 0 && !sx_result_stopped_unsupported(r)) {
        gen_explore_options hunt_stage;
        gen_explore_options_default(&hunt_stage);
        note(f, "the symbolic stage finished no path of %d threads in the probe's %g s (%ld solver checks, %ld "
             "given up): a hunt's stage (hunt --explore-time, %g s by default) may give no atom either and then "
             "searches with random ones; `warphunt explore SPEC` shows how far it gets", x, seconds,
             r->solver_calls, r->giveups, hunt_stage.time_s);
    }
    sx_result_free(r);
    ptx_module_free(mod);
    return ok;
}

/* Every named size ("sizes") applies to a fresh copy of the spec and gives
 * a launch and an input image within the limits (nothing is run: a large
 * size takes the sim minutes). */
static bool check_sizes(const wh_spec *spec, wh_error *err)
{
    bool ok = true;
    for (int k = 0; ok && k < spec->nsizes; k++) {
        wh_spec *sized = wh_spec_load(spec->path, err);
        ok = sized && wh_spec_apply_size(sized, spec->size_names[k], err);
        wh_launch full;
        if (ok) full = wh_spec_launch_full(sized);
        wh_image *img = ok ? wh_image_new(sized, &full, err) : NULL;
        if (ok && !img) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            snprintf(err->msg, sizeof err->msg, "--size %s: %.900s", spec->size_names[k], msg);
        }
        ok = ok && img;
        wh_image_free(img);
        wh_spec_free(sized);
    }
    return ok;
}

/* ---- the command ------------------------------------------------------------ */

typedef struct {
    const char *spec;
    double explore_s;
    bool strict, json, quiet;
} check_args;

static int parse_check(int argc, char **argv, check_args *a, wh_error *err)
{
    enum { OPT_EXPLORE_TIME = 1, OPT_STRICT, OPT_JSON, OPT_QUIET };
    static const struct option longs[] = {
        { "explore-time", required_argument, NULL, OPT_EXPLORE_TIME },
        { "strict", no_argument, NULL, OPT_STRICT },
        { "json", no_argument, NULL, OPT_JSON },
        { "quiet", no_argument, NULL, OPT_QUIET },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    *a = (check_args){ NULL, 3.0, false, false, false };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case OPT_EXPLORE_TIME:
            if (!cli_parse_double("--explore-time", optarg, 0, 3600, &a->explore_s, err)) return 1;
            break;
        case OPT_STRICT: a->strict = true; break;
        case OPT_JSON: a->json = true; break;
        case OPT_QUIET: a->quiet = true; break;
        case 'h': usage(stdout); return 0;
        default:
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "spec check: unknown option '%s' (see --help)",
                         argv[optind - 1]);
            return 1;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 1;
    }
    a->spec = argv[optind];
    return -1;
}

static int check(const check_args *a)
{
    wh_error err;
    wh_error_clear(&err);
    findings f = { json_array(), json_array(), a->quiet };
    wh_spec *spec = cli_load_spec(a->spec, &err);
    bool ok = spec && launches_build(spec, &err) && check_sizes(spec, &err) && random_run(spec, &f, &err);
    if (ok) check_counts(spec, &f);
    if (ok) {
        check_structures(spec, &f);
        check_lists(spec, &f);
        check_graphs(spec, &f);
        check_unassumed(spec, &f);
    }
    if (ok) ok = check_globals(spec, &f, &err);
    if (ok) ok = check_objects(spec, &f, &err);
    if (ok && a->explore_s > 0) ok = symbolic_probe(spec, a->explore_s, &f, &err);
    size_t nwarn = json_array_size(f.warnings);
    int status = !ok ? 1 : a->strict && nwarn > 0 ? 1 : 0;
    if (a->json) {
        json_t *j = json_pack("{s:s, s:s?, s:o, s:o, s:o, s:b}", "spec", a->spec, "kernel",
                              spec ? spec->name : NULL, "errors", ok ? json_array() : json_pack("[s]", err.msg),
                              "warnings", json_incref(f.warnings), "notes", json_incref(f.notes), "ok", status == 0);
        cli_print_json(j);
        json_decref(j);
    }
    if (!ok) {
        status = cli_report(&err);
    } else if (!a->quiet) {
        fprintf(stderr, "spec check: %s: %s%s%s\n", spec->name, nwarn ? "loads and runs, with warnings" : "ok",
                json_array_size(f.notes) ? (nwarn ? " and notes" : ", with notes") : "",
                a->strict && nwarn ? " (--strict: an error)" : "");
    }
    json_decref(f.warnings);
    json_decref(f.notes);
    wh_spec_free(spec);
    return status;
}

int cmd_spec(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 1 : 0;
    }
    if (strcmp(argv[1], "check") != 0) {
        fprintf(stderr, "warphunt: spec: unknown verb '%s' (spec check SPEC)\n", argv[1]);
        return 1;
    }
    wh_error err;
    wh_error_clear(&err);
    check_args a;
    int status = parse_check(argc - 1, argv + 1, &a, &err);
    if (status >= 0) {
        if (status && err.msg[0]) cli_report(&err);
        return status;
    }
    return check(&a);
}
