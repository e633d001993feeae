/*
 * cmd_input.c — `warphunt input show|export|import`: a saved input as the
 * user's tools see it, and a user's data as a saved input.
 *
 * A saved input is a directory of NAME.bin files and a manifest (core's
 * image_io.c): what hunt writes as best/, top/NN/ and findings/, and what
 * measure --input, replay, diff and hunt --seed-inputs read.  `show` prints
 * it, `export` writes each buffer as CSV or .npy, `import` builds one for a
 * spec from CSV/.npy files and per-element expressions.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/image.h"
#include "core/results.h"

enum { OPT_SPEC = CLI_OPT_FIRST_FREE, OPT_LIMIT, OPT_FORMAT, OPT_BUFFER, OPT_FROM, OPT_SET, OPT_RANDOM };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt input show DIR [--limit N] [--spec SPEC] [--json]\n"
            "       warphunt input export DIR [--format csv|npy] [--buffer NAME] [-o OUTDIR] [--spec SPEC]\n"
            "       warphunt input import SPEC -o DIR [--random SEED] [--from [NAME=]FILE]...\n"
            "                             [--set NAME[.FIELD]=EXPR]...\n"
            "\n"
            "A saved input is a directory with manifest.json and one NAME.bin per buffer: a\n"
            "run's best/ (give the run directory), top/NN/ or findings/K-STATUS/.  It is what\n"
            "measure --input, replay, diff and hunt --seed-inputs read.\n"
            "\n"
            "show     the launch and every buffer: role, type, count, each field's min and\n"
            "         max, a structure (a hash table: its keys and longest run of occupied\n"
            "         slots; shortest-path distances: the nodes reached, from which source,\n"
            "         and how many are in the frontier), and the first N elements\n"
            "         (--limit, default 8; 0: all).\n"
            "export   each input and fixed buffer (or --buffer NAME) as OUTDIR/NAME.csv (a\n"
            "         header of field names, one row per element) or OUTDIR/NAME.npy (a 1-D\n"
            "         array, structured for structs); OUTDIR defaults to DIR.\n"
            "import   build an input for SPEC's full launch into DIR: every input starts at\n"
            "         the low end of its domain (or at random with --random SEED), then each\n"
            "         --from and --set applies in order.  --from reads a CSV or .npy file (as\n"
            "         export writes them; any plain numeric .npy dtype converts, values must\n"
            "         fit) into buffer NAME, or into the buffer its file name names\n"
            "         (keys.csv -> keys).  --set gives every element of NAME (or one field of\n"
            "         a struct) the value of an integer expression of the spec's language:\n"
            "         i (the element index), threads, blocks, the spec's constants, + - * / %%,\n"
            "         min(), max(), < <= > >= == != (1 or 0) and c ? a : b (i%%32==0 ? 7 : 1\n"
            "         is 7 on every warp's lane 0).  A float buffer (or field) also takes a\n"
            "         number such as 0.5 or -1e-3 for every element (float expressions are\n"
            "         not supported: give per-element floats with --from).  Every value\n"
            "         must lie in its domain: the error names the element.  Fixed buffers\n"
            "         come from the spec; outputs are not saved.\n"
            "         A running sum (\"prefix_sum_of\") that no --from or --set writes is\n"
            "         computed from its summands (--set degree=16 alone gives CSR row starts).\n"
            "         --set NAME=EXPR naming one of the spec's constants gives it that value\n"
            "         before anything else (the input's sizes follow; its manifest records it).\n"
            "\n"
            "  --spec SPEC       the kernel spec (default: the one recorded in the manifest)\n"
            "  --json            show: the same as a JSON object on stdout\n"
            "  -h, --help        this text\n");
}

/* ---- loading ------------------------------------------------------------ */

typedef struct {
    char dir[1100];
    wh_spec *spec;
    wh_image *img;
} loaded_input;

static bool load_input(const char *arg, const char *spec_arg, loaded_input *in, wh_error *err)
{
    memset(in, 0, sizeof *in);
    if (!cli_input_dir("input", arg, in->dir, sizeof in->dir, err)) return false;
    in->spec = cli_load_input_spec(in->dir, spec_arg, err);
    in->img = in->spec ? wh_image_load(in->spec, in->dir, err) : NULL;
    return in->img != NULL;
}

static void free_input(loaded_input *in)
{
    wh_image_free(in->img);
    wh_spec_free(in->spec);
}

/* ---- show --------------------------------------------------------------- */

/* The minimum and maximum of one field over a buffer (long double holds
 * every i64 and u64 exactly). */
static void field_range(const wh_buffer *b, const wh_field *fd, long double *lo, long double *hi)
{
    for (uint64_t e = 0; e < b->count; e++) {
        const unsigned char *at = b->data + e * b->param->elem_size + fd->offset;
        long double v = wh_type_is_float(fd->type) ? (long double)wh_value_get_float(fd->type, at)
                        : fd->type == WH_U64 ? (long double)(uint64_t)wh_value_get_int(fd->type, at)
                                             : (long double)wh_value_get_int(fd->type, at);
        if (e == 0 || v < *lo) *lo = v;
        if (e == 0 || v > *hi) *hi = v;
    }
}

/* A field's min or max: an integer field's as a JSON integer where it fits
 * (a u32 of 2971215073 printed as 2.97121507e+09 puzzled a user). */
static json_t *number_json(const wh_field *fd, long double v)
{
    if (!wh_type_is_float(fd->type) && v <= (long double)INT64_MAX) return json_integer((json_int_t)v);
    return json_real((double)v);
}

static json_t *field_value_json(const wh_field *fd, const unsigned char *elem)
{
    const unsigned char *at = elem + fd->offset;
    if (wh_type_is_float(fd->type)) return json_real(wh_value_get_float(fd->type, at));
    return json_integer((json_int_t)wh_value_get_int(fd->type, at));
}

static json_t *element_json(const wh_param *p, const unsigned char *elem)
{
    if (p->type != WH_STRUCT) return field_value_json(&p->fields[0], elem);
    json_t *o = json_object();
    for (int f = 0; f < p->nfields; f++) json_object_set_new(o, p->fields[f].name, field_value_json(&p->fields[f], elem));
    return o;
}

static json_t *buffer_json(const wh_image *img, int bi, uint64_t limit)
{
    const wh_buffer *b = &img->bufs[bi];
    const wh_param *p = b->param;
    json_t *fields = json_array(), *first = json_array();
    bool saved = p->role != WH_ROLE_OUTPUT;
    for (int f = 0; saved && b->count && f < p->nfields; f++) {
        long double lo = 0, hi = 0;
        field_range(b, &p->fields[f], &lo, &hi);
        json_t *fj = json_pack("{s:s, s:o, s:o}", "name", p->fields[f].name, "min", number_json(&p->fields[f], lo),
                               "max", number_json(&p->fields[f], hi));
        if (p->fields[f].structure != WH_STRUCTURE_NONE)
            json_object_set_new(fj, "structure", json_string(wh_structure_name(p->fields[f].structure)));
        json_array_append_new(fields, fj);
    }
    uint64_t n = !saved ? 0 : limit == 0 || limit > b->count ? b->count : limit;
    for (uint64_t e = 0; e < n; e++) json_array_append_new(first, element_json(p, b->data + e * p->elem_size));
    const char *kind = p->kind == WH_SCALAR ? "scalar" : wh_role_name(p->role);
    json_t *doc = json_pack("{s:s, s:s, s:s, s:I, s:b, s:o, s:o}", "name", p->name, "role", kind, "type",
                            wh_type_name(p->type), "count", (json_int_t)b->count, "saved", saved, "fields", fields,
                            "first", first);
    if (p->structure != WH_STRUCTURE_NONE)
        json_object_set_new(doc, "structure", json_string(wh_structure_name(p->structure)));
    if (p->tree)
        json_object_set_new(doc, "structure", json_string("tree"));
    if (p->table) {
        uint64_t keys, run;
        wh_hash_table_stats(b, &keys, &run);
        json_object_set_new(doc, "structure", json_string("hash_table"));
        if (saved)
            json_object_set_new(doc, "table", json_pack("{s:I, s:I}", "keys", (json_int_t)keys, "longest_run",
                                                        (json_int_t)run));
    }
    if (p->paths.rows) {
        wh_paths_summary ps;
        wh_paths_stats(img, bi, &ps);
        json_object_set_new(doc, "structure", json_string("shortest_paths"));
        if (saved)
            json_object_set_new(doc, "paths", json_pack("{s:I, s:I, s:I}", "reached", (json_int_t)ps.reached,
                                                        "frontier", (json_int_t)ps.frontier, "source",
                                                        (json_int_t)ps.source));
    }
    if (p->global)
        json_object_set_new(doc, "global", json_true());
    return doc;
}

static void print_number(const json_t *v)
{
    if (json_is_integer(v)) fprintf(stderr, "%lld", (long long)json_integer_value(v));
    else fprintf(stderr, "%.9g", json_real_value(v));
}

static void print_value(const json_t *v)
{
    if (json_is_number(v)) {
        fputc(' ', stderr);
        print_number(v);
    } else {
        fputs(" {", stderr);
        const char *k;
        json_t *f;
        bool first = true;
        json_object_foreach((json_t *)v, k, f) {
            fprintf(stderr, "%s%s=", first ? "" : " ", k);
            first = false;
            print_number(f);
        }
        fputc('}', stderr);
    }
}

static void print_buffer(const json_t *b)
{
    const char *name = json_string_value(json_object_get(b, "name"));
    fprintf(stderr, "  %-16s %-6s %s[%lld]", name, json_string_value(json_object_get(b, "role")),
            json_string_value(json_object_get(b, "type")), (long long)json_integer_value(json_object_get(b, "count")));
    if (!json_is_true(json_object_get(b, "saved"))) {
        fputs(json_is_true(json_object_get(b, "global"))
                  ? "  (an output module variable: its initializer before every run, not saved)\n"
                  : "  (an output: zeroed before every run, not saved)\n", stderr);
        return;
    }
    size_t k;
    json_t *f;
    json_array_foreach(json_object_get(b, "fields"), k, f) {
        const char *fname = json_string_value(json_object_get(f, "name"));
        const char *fs = json_string_value(json_object_get(f, "structure"));
        fprintf(stderr, "%s%s%s ", k ? "," : " ", fname[0] ? " " : "", fname);
        print_number(json_object_get(f, "min"));
        fputs("..", stderr);
        print_number(json_object_get(f, "max"));
        fprintf(stderr, "%s%s", fs ? " " : "", fs ? fs : "");
    }
    const char *structure = json_string_value(json_object_get(b, "structure"));
    if (structure) fprintf(stderr, "  %s", structure);
    json_t *table = json_object_get(b, "table");
    if (table)
        fprintf(stderr, ": %lld keys, the longest run of occupied slots %lld",
                (long long)json_integer_value(json_object_get(table, "keys")),
                (long long)json_integer_value(json_object_get(table, "longest_run")));
    json_t *paths = json_object_get(b, "paths");
    if (paths)
        fprintf(stderr, ": %lld nodes reached from node %lld, %lld of them in the frontier",
                (long long)json_integer_value(json_object_get(paths, "reached")),
                (long long)json_integer_value(json_object_get(paths, "source")),
                (long long)json_integer_value(json_object_get(paths, "frontier")));
    json_t *first = json_object_get(b, "first");
    if (json_array_size(first)) {
        fputs("\n      ", stderr);
        json_array_foreach(first, k, f) print_value(f);
        long long rest = json_integer_value(json_object_get(b, "count")) - (long long)json_array_size(first);
        if (rest > 0) fprintf(stderr, "  ... (%lld more)", rest);
    }
    fputc('\n', stderr);
}

static json_t *dims(const unsigned d[3])
{
    return json_pack("[III]", (json_int_t)d[0], (json_int_t)d[1], (json_int_t)d[2]);
}

static int show(const loaded_input *in, uint64_t limit, bool as_json)
{
    json_t *bufs = json_array();
    for (int i = 0; i < in->img->nbufs; i++) json_array_append_new(bufs, buffer_json(in->img, i, limit));
    const wh_launch *l = &in->img->launch;
    json_t *doc = json_pack("{s:s, s:s, s:s, s:{s:o, s:o}, s:o}", "input", in->dir, "kernel", in->spec->name, "spec",
                            in->spec->path, "launch", "grid", dims(l->grid), "block", dims(l->block), "buffers", bufs);
    if (as_json) {
        cli_print_json(doc);
    } else {
        fprintf(stderr, "input %s: kernel %s (spec %s), grid %u x %u x %u, block %u x %u x %u\n", in->dir,
                in->spec->name, in->spec->path, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                l->block[2]);
        size_t k;
        json_t *b;
        json_array_foreach(bufs, k, b) print_buffer(b);
    }
    json_decref(doc);
    return 0;
}

/* ---- export ------------------------------------------------------------- */

static int export_buffers(const loaded_input *in, wh_table_format fmt, const char *buffer, const char *out_dir,
                          bool quiet)
{
    wh_error err;
    wh_error_clear(&err);
    int only = buffer ? wh_image_find(in->img, buffer) : -1;
    if (buffer && (only < 0 || in->img->bufs[only].param->kind != WH_BUFFER ||
                   in->img->bufs[only].param->role == WH_ROLE_OUTPUT)) {
        wh_error_set(&err, WH_ERR_USER, in->spec->path, 0, 0, "--buffer %s: no input or fixed buffer of that name",
                     buffer);
        return cli_report(&err);
    }
    if (!wh_make_dirs(out_dir, &err)) return cli_report(&err);
    int written = 0;
    for (int i = 0; i < in->img->nbufs; i++) {
        const wh_param *p = in->img->bufs[i].param;
        if ((only >= 0 && i != only) || p->kind != WH_BUFFER || p->role == WH_ROLE_OUTPUT) continue;
        char name[300], path[1500];
        wh_buffer_file_name(p, fmt == WH_TABLE_NPY ? ".npy" : ".csv", name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", out_dir, name);
        if (!wh_buffer_export(in->img, i, fmt, path, &err)) return cli_report(&err);
        if (!quiet) fprintf(stderr, "input: wrote %s (%llu elements)\n", path,
                            (unsigned long long)in->img->bufs[i].count);
        written++;
    }
    if (!written && !quiet) fprintf(stderr, "input: %s has no input or fixed buffer to export\n", in->dir);
    return 0;
}

/* ---- import ------------------------------------------------------------- */

/* The input buffer `name` of img, or -1 with an error listing them. */
static int input_buffer(const wh_image *img, const char *name, const char *what, wh_error *err)
{
    int p = wh_image_find(img, name);
    if (p >= 0 && img->bufs[p].param->role == WH_ROLE_INPUT) return p;
    char names[600] = "";
    size_t len = 0;
    for (int i = 0; i < img->nbufs && len < sizeof names; i++)
        if (img->bufs[i].param->role == WH_ROLE_INPUT)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", img->bufs[i].param->name);
    const wh_param *par = p >= 0 ? img->bufs[p].param : NULL;
    const char *why = !par                        ? ""
                      : par->kind == WH_SCALAR    ? "; this scalar takes the spec's value (a \"range\" makes one searched)"
                      : par->role == WH_ROLE_FIXED ? "; fixed buffers come from the spec"
                                                   : "; outputs are zeroed before every run";
    wh_error_set(err, WH_ERR_USER, img->spec->path, 0, 0, "%s: \"%s\" is not an input buffer of %s (inputs: %s)%s",
                 what, name, img->spec->name, names[0] ? names : "none", why);
    return -1;
}

/* --from [NAME=]FILE: the buffer's name (NAME when it names an input, else
 * the file's stem) into name[256]; returns the file. */
static const char *from_target(const wh_image *img, const char *arg, char *name)
{
    const char *file = arg, *eq = strchr(arg, '=');
    if (eq && eq - arg < 256) {
        snprintf(name, 256, "%.*s", (int)(eq - arg), arg);
        if (wh_image_find(img, name) >= 0) file = eq + 1;
    }
    if (file == arg) {
        const char *base = strrchr(arg, '/');
        snprintf(name, 256, "%s", base ? base + 1 : arg);
        char *dot = strrchr(name, '.');
        if (dot && dot != name) *dot = '\0';
    }
    return file;
}

static bool apply_from(wh_image *img, const char *arg, wh_error *err)
{
    char name[256];
    const char *file = from_target(img, arg, name);
    int p = input_buffer(img, name, "--from", err);
    return p >= 0 && wh_buffer_import(img, p, file, err);
}

static bool set_elements(wh_image *img, int p, int f, const wh_expr *e, const char *arg, wh_error *err)
{
    const wh_buffer *b = &img->bufs[p];
    const wh_field *fd = &b->param->fields[f];
    for (uint64_t k = 0; k < b->count; k++) {
        int64_t v;
        if (!wh_expr_eval_with(e, img->vars, WH_VAR_I, (int64_t)k, &v, err)) {
            wh_error_set_path(err, NULL);
            snprintf(err->file, sizeof err->file, "--set %s", arg);
            return false;
        }
        if (!wh_type_is_float(fd->type) && !wh_type_holds(fd->type, v)) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--set %s: element %llu is %lld, which does not fit a %s", arg,
                         (unsigned long long)k, (long long)v, wh_type_name(fd->type));
            return false;
        }
        wh_value_set_int(fd->type, b->data + k * b->param->elem_size + fd->offset, v);
    }
    return true;
}

/* A float field's --set value written as a number ("0.5", "-1e-3",
 * "inf"): the spec's expressions are integers.  False when text is not one
 * (an integer expression, then). */
static bool float_literal(const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && strpbrk(text, "0123456789") &&
           strspn(text, "+-0123456789") != strlen(text) && errno != ERANGE;
}

static void set_float_elements(wh_image *img, int p, int f, double v)
{
    const wh_buffer *b = &img->bufs[p];
    const wh_field *fd = &b->param->fields[f];
    for (uint64_t k = 0; k < b->count; k++)
        wh_value_set_float(fd->type, b->data + k * b->param->elem_size + fd->offset, v);
}

/* --set NAME[.FIELD]=EXPR */
static bool apply_set(wh_image *img, const char *arg, wh_error *err)
{
    const char *eq = strchr(arg, '=');
    char target[256];
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof target) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--set %s: expected NAME=EXPR or NAME.FIELD=EXPR", arg);
        return false;
    }
    snprintf(target, sizeof target, "%.*s", (int)(eq - arg), arg);
    char *dot = strchr(target, '.');
    if (dot) *dot = '\0';
    int p = input_buffer(img, target, "--set", err);
    if (p < 0) return false;
    const wh_param *par = img->bufs[p].param;
    int f = par->type == WH_STRUCT ? -1 : 0;
    for (int k = 0; dot && k < par->nfields; k++)
        if (!strcmp(par->fields[k].name, dot + 1)) f = k;
    if (f < 0 || (dot && par->type != WH_STRUCT)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--set %s: %s", arg,
                     par->type == WH_STRUCT ? "name one field of the struct (NAME.FIELD=EXPR)"
                                            : "the buffer has no fields");
        return false;
    }
    double v;
    if (wh_type_is_float(par->fields[f].type) && float_literal(eq + 1, &v)) {
        set_float_elements(img, p, f, v);   /* checked against the domain with the rest */
        return true;
    }
    wh_expr *e = wh_expr_parse(eq + 1, img->spec->var_names, img->spec->nvars, err);
    if (!e) {
        snprintf(err->file, sizeof err->file, "--set %s", arg);
        return false;
    }
    bool ok = set_elements(img, p, f, e, arg, err);
    wh_expr_free(e);
    return ok;
}

typedef struct {
    bool is_set;
    const char *arg;
} import_step;

/* Does the step write field f of buffer p (--from: every field)? */
static bool step_writes(const wh_image *img, const import_step *s, int p, int f)
{
    char name[256];
    if (!s->is_set) {
        from_target(img, s->arg, name);
        return !strcmp(name, img->bufs[p].param->name);
    }
    size_t n = strcspn(s->arg, "=.");
    const wh_param *par = img->bufs[p].param;
    if (strlen(par->name) != n || strncmp(s->arg, par->name, n)) return false;
    if (s->arg[n] != '.') return true;
    size_t m = strcspn(s->arg + n + 1, "=");
    return par->type == WH_STRUCT && strlen(par->fields[f].name) == m && !strncmp(s->arg + n + 1, par->fields[f].name, m);
}

/* A running sum no step wrote is computed from its summands, which users
 * give alone (a CSR graph's degrees, not its row starts). */
static bool sum_unwritten(wh_image *img, const import_step *steps, int nsteps, wh_error *err)
{
    for (int p = 0; p < img->nbufs; p++) {
        const wh_param *par = img->bufs[p].param;
        if (par->role != WH_ROLE_INPUT || par->kind != WH_BUFFER) continue;
        for (int f = 0; f < (par->type == WH_STRUCT ? par->nfields : 1); f++) {
            bool is_sum = par->type == WH_STRUCT ? par->fields[f].prefix_of : par->prefix_of;
            bool written = false;
            for (int k = 0; k < nsteps && !written; k++) written = step_writes(img, &steps[k], p, f);
            if (is_sum && !written && !wh_image_sum_into(img, p, f, err)) return false;
        }
    }
    return true;
}

/* Does a --set NAME=... name one of the spec's constants (not a buffer)? */
static bool names_constant(const wh_spec *spec, const char *arg)
{
    size_t n = strcspn(arg, "=");
    for (int k = 0; k < spec->nconsts; k++)
        if (strlen(spec->const_names[k]) == n && !strncmp(spec->const_names[k], arg, n)) return true;
    return false;
}

static int import_input(const char *spec_arg, const char *out_dir, const import_step *steps, int nsteps,
                        const uint64_t *random_seed, bool quiet)
{
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = cli_load_spec(spec_arg, &err);
    /* a --set naming a constant sizes the launch: before the image is made */
    for (int k = 0; spec && k < nsteps; k++)
        if (steps[k].is_set && names_constant(spec, steps[k].arg) && !cli_apply_sets(spec, &steps[k].arg, 1, &err)) {
            wh_spec_free(spec);
            spec = NULL;
        }
    wh_launch full = spec ? wh_spec_launch_full(spec) : (wh_launch){ { 0 }, { 0 } };
    wh_image *img = spec ? wh_image_new(spec, &full, &err) : NULL;
    bool ok = img != NULL;
    if (ok && random_seed) {
        pcg32 rng;
        pcg32_seed(&rng, *random_seed, 0x696d706f);
        ok = wh_image_fill_random(img, &rng, &err);
    }
    for (int k = 0; ok && k < nsteps; k++)
        if (!steps[k].is_set || !names_constant(spec, steps[k].arg))
            ok = steps[k].is_set ? apply_set(img, steps[k].arg, &err) : apply_from(img, steps[k].arg, &err);
    ok = ok && sum_unwritten(img, steps, nsteps, &err) && wh_image_check_domains(img, &err) &&
         wh_image_save(img, out_dir, &err);
    if (ok && !quiet)
        fprintf(stderr, "input: saved an input of %s (%u x %u threads) in %s\n", spec->name,
                full.grid[0] * full.grid[1] * full.grid[2], full.block[0] * full.block[1] * full.block[2], out_dir);
    wh_image_free(img);
    wh_spec_free(spec);
    return ok ? 0 : cli_report(&err);
}

/* ---- the command -------------------------------------------------------- */

typedef struct {
    const char *spec, *out, *buffer;
    bool json, quiet, has_random;
    uint64_t random_seed;
    long limit;
    wh_table_format format;
    import_step *steps;
    int nsteps;
} input_options;

/* 1: parsed, 0: --help printed, -1: error (reported). */
static int parse(int argc, char **argv, input_options *o)
{
    static const struct option longs[] = {
        { "spec", required_argument, NULL, OPT_SPEC },
        { "limit", required_argument, NULL, OPT_LIMIT },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "buffer", required_argument, NULL, OPT_BUFFER },
        { "from", required_argument, NULL, OPT_FROM },
        { "set", required_argument, NULL, OPT_SET },
        { "random", required_argument, NULL, OPT_RANDOM },
        { "json", no_argument, NULL, CLI_OPT_JSON },
        { "quiet", no_argument, NULL, CLI_OPT_QUIET },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    wh_error err;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
        switch (c) {
        case OPT_SPEC: o->spec = optarg; break;
        case OPT_LIMIT:
            if (!cli_parse_long("--limit", optarg, 0, 1L << 40, &o->limit, &err)) return cli_report(&err), -1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "csv") && strcmp(optarg, "npy")) {
                fprintf(stderr, "warphunt input: --format %s: expected csv or npy\n", optarg);
                return -1;
            }
            o->format = strcmp(optarg, "npy") ? WH_TABLE_CSV : WH_TABLE_NPY;
            break;
        case OPT_BUFFER: o->buffer = optarg; break;
        case OPT_FROM:
        case OPT_SET: o->steps[o->nsteps++] = (import_step){ c == OPT_SET, optarg }; break;
        case OPT_RANDOM:
            if (!cli_parse_u64("--random", optarg, &o->random_seed, &err)) return cli_report(&err), -1;
            o->has_random = true;
            break;
        case CLI_OPT_JSON: o->json = true; break;
        case CLI_OPT_QUIET: o->quiet = true; break;
        case 'o': o->out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: return -1;
        }
    }
    return 1;
}

int cmd_input(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    const char *action = argc >= 2 ? argv[1] : "";
    bool is_show = !strcmp(action, "show"), is_export = !strcmp(action, "export"), is_import = !strcmp(action, "import");
    if (!is_show && !is_export && !is_import) {
        fprintf(stderr, "warphunt input: expected show, export or import%s%s\n", action[0] ? ", not " : "", action);
        return cli_usage_hint("input");
    }
    input_options o = { .limit = 8, .format = WH_TABLE_CSV };
    o.steps = calloc((size_t)argc, sizeof *o.steps);
    int parsed = o.steps ? parse(argc - 1, argv + 1, &o) : -1;
    int status = parsed < 0 ? cli_usage_hint("input") : 0;
    argc -= 1;
    argv += 1;
    if (parsed > 0 && optind != argc - 1) {
        fprintf(stderr, "warphunt input %s: expected exactly one %s\n", action, is_import ? "SPEC" : "DIR");
        status = cli_usage_hint("input");
    } else if (parsed > 0 && is_import && !o.out) {
        fprintf(stderr, "warphunt input import: -o DIR says where to save the input\n");
        status = cli_usage_hint("input");
    } else if (parsed > 0 && !is_import && (o.nsteps || o.has_random)) {
        fprintf(stderr, "warphunt input %s: --from, --set and --random belong to import\n", action);
        status = cli_usage_hint("input");
    } else if (parsed > 0 && is_import) {
        status = import_input(argv[optind], o.out, o.steps, o.nsteps, o.has_random ? &o.random_seed : NULL, o.quiet);
    } else if (parsed > 0) {
        wh_error err;
        wh_error_clear(&err);
        loaded_input in;
        if (!load_input(argv[optind], o.spec, &in, &err)) status = cli_report(&err);
        else if (is_show) status = show(&in, (uint64_t)o.limit, o.json);
        else status = export_buffers(&in, o.format, o.buffer, o.out ? o.out : in.dir, o.quiet);
        free_input(&in);
    }
    free(o.steps);
    return status;
}
