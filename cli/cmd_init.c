/*
 * cmd_init.c — `warphunt init`: draft a kernel spec from the kernel's PTX
 * (or its CUDA source, through nvcc), so a user starts from a spec that
 * loads and runs instead of a blank page.
 *
 * The draft states every parameter in order with a guessed kind, type,
 * role, count and domain (init_infer.c guesses from the mangled name and
 * the code); each guess a user must check is listed on stderr and in the
 * spec's "description".  It is loaded back before it is written, so a
 * draft that would not load is a bug, not the user's problem.
 */
#include "cli/cli.h"
#include "cli/init.h"

#include "core/results.h"
#include "core/spec.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt init FILE.ptx|FILE.cu [--entry NAME] [-o SPEC.json]\n"
            "\n"
            "Draft a kernel spec for an entry of FILE: every parameter in order, a pointer\n"
            "as a buffer, anything else as a scalar, with guessed types, roles, counts and\n"
            "value domains, and a launch shape to adjust.  The guesses come from the\n"
            "entry's mangled C++ name (pointer, const, element type) and from its code: the\n"
            "loads, stores and atomics each pointer reaches (element type, a struct's\n"
            "fields from their offsets, the element size from the index stride; read-only:\n"
            "input, written only or by atomics only: output).  A handle the entry's tex,\n"
            "tld4, suld or sust go through becomes a texture or surface, a map its tensor\n"
            "copies (cp.async.bulk.tensor) go through a tensor map.  Every guess to check\n"
            "is listed on stderr and in the spec's description; the draft is loaded back\n"
            "before it is written (it loads; a guessed size may still fault when run).  A\n"
            ".cu file is compiled to PTX with nvcc (-ptx -lineinfo) beside the spec.\n"
            "\n"
            "  --entry NAME      the kernel (default: the only one; its PTX or C++ name)\n"
            "  -o FILE           write the spec there (default: standard output)\n"
            "  --quiet           no notes on stderr\n"
            "  -h, --help        this text\n");
}

/* ---- notes: what the user must check ------------------------------------- */

typedef struct {
    char text[4096];
    size_t len;
} notes;

static void note(notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(notes *n, const char *fmt, ...)
{
    if (n->len + 4 >= sizeof n->text) return;
    if (n->len) n->len += (size_t)snprintf(n->text + n->len, sizeof n->text - n->len, "; ");
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(n->text + n->len, sizeof n->text - n->len, fmt, ap);
    va_end(ap);
    if (w > 0) n->len = n->len + (size_t)w < sizeof n->text ? n->len + (size_t)w : sizeof n->text - 1;
}

/* ---- types ---------------------------------------------------------------- */

/* A C++ builtin (possibly const) as a spec type, or NULL. */
static const char *cpp_spec_type(const char *cpp)
{
    static const struct { const char *cpp, *spec; } map[] = {
        { "bool", "u8" }, { "char", "i8" }, { "signed char", "i8" }, { "unsigned char", "u8" },
        { "short", "i16" }, { "unsigned short", "u16" }, { "int", "i32" }, { "unsigned int", "u32" },
        { "long", "i64" }, { "unsigned long", "u64" }, { "long long", "i64" },
        { "unsigned long long", "u64" }, { "float", "f32" }, { "double", "f64" },
    };
    if (!strncmp(cpp, "const ", 6)) cpp += 6;
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (!strcmp(cpp, map[k].cpp)) return map[k].spec;
    return NULL;
}

/* A PTX access or parameter type as a spec type: nvcc loads an int as
 * .u32 and a bool as .u8, so untyped and unsigned words read as signed
 * ints except bytes. */
static const char *ptx_spec_type(ptx_type t)
{
    switch (t) {
    case PTX_T_S8: return "i8";
    case PTX_T_U8: case PTX_T_B8: case PTX_T_PRED: return "u8";
    case PTX_T_S16: return "i16";
    case PTX_T_U16: case PTX_T_B16: return "u16";
    case PTX_T_F32: return "f32";
    case PTX_T_F64: return "f64";
    case PTX_T_U64: case PTX_T_B64: case PTX_T_S64: return "i64";
    default: return "i32";
    }
}

static bool spec_type_is_float(const char *t)
{
    return t[0] == 'f';
}

static int spec_type_size(const char *t)
{
    int bits = atoi(t + 1);
    return bits / 8;
}

/* A draft's integer domain: [0, threads-1], valid as an index into any
 * buffer of one element per thread; a byte: [0, 1] for a bool, else
 * [0, 127] (within both i8 and u8). */
static json_t *int_range(const char *type, bool boolean)
{
    if (spec_type_size(type) == 1) return json_pack("[ii]", 0, boolean ? 1 : 127);
    if (spec_type_size(type) == 2) return json_pack("[ii]", 0, 32767);
    return json_pack("[is]", 0, "threads-1");
}

/* ---- parameters ---------------------------------------------------------- */

static json_t *scalar_json(const init_param *p, notes *n)
{
    const ptx_param *pp = p->ptx;
    if (pp->is_array) { /* a struct passed by value: its bytes as words */
        json_t *fields = json_array();
        bool words = pp->size % 4 == 0;
        for (uint64_t k = 0; k < pp->size / (words ? 4 : 1); k++) {
            char name[32];
            snprintf(name, sizeof name, "b%llu", (unsigned long long)(k * (words ? 4 : 1)));
            json_array_append_new(fields, json_pack("{s:s, s:s, s:i}", "name", name, "type", words ? "u32" : "u8",
                                                    "value", 0));
        }
        note(n, "%s is a struct passed by value (%llu bytes): name its fields and values", p->name,
             (unsigned long long)pp->size);
        return json_pack("{s:s, s:s, s:s, s:o}", "name", p->name, "kind", "scalar", "type", "struct", "fields",
                         fields);
    }
    const char *type = p->cpp_type[0] && cpp_spec_type(p->cpp_type) ? cpp_spec_type(p->cpp_type)
                                                                       : ptx_spec_type(pp->type);
    if (spec_type_is_float(type)) {
        note(n, "%s = 1.0", p->name);
        return json_pack("{s:s, s:s, s:s, s:f}", "name", p->name, "kind", "scalar", "type", type, "value", 1.0);
    }
    note(n, "%s = threads (a size?)", p->name);
    return json_pack("{s:s, s:s, s:s, s:s}", "name", p->name, "kind", "scalar", "type", type, "value", "threads");
}

/* The element of a pointer seen accessed at several offsets (or with an
 * index stride wider than its access): a struct of the accessed fields in
 * offset order, u8 padding where the C layout would not put them. */
static json_t *struct_fields(const init_param *p, int64_t size)
{
    int order[INIT_MAX_FIELDS];
    for (int k = 0; k < p->naccesses; k++) order[k] = k;
    for (int a = 1; a < p->naccesses; a++)
        for (int b = a; b > 0 && p->access_off[order[b]] < p->access_off[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    json_t *fields = json_array();
    int64_t at = 0;
    for (int k = 0; k < p->naccesses; k++) {
        int64_t off = p->access_off[order[k]];
        const char *type = ptx_spec_type(p->access_type[order[k]]);
        int sz = spec_type_size(type);
        if (off < at || off % sz) continue; /* overlapping or misaligned: not a field of its own */
        for (; at < off; at++) {
            char pad[32];
            snprintf(pad, sizeof pad, "pad%lld", (long long)at);
            json_array_append_new(fields, json_pack("{s:s, s:s}", "name", pad, "type", "u8"));
        }
        char name[32];
        snprintf(name, sizeof name, "f%lld", (long long)off);
        json_t *f = json_pack("{s:s, s:s}", "name", name, "type", type);
        if (!spec_type_is_float(type)) json_object_set_new(f, "range", int_range(type, false));
        json_array_append_new(fields, f);
        at = off + sz;
    }
    for (; at < size; at++) {
        char pad[32];
        snprintf(pad, sizeof pad, "pad%lld", (long long)at);
        json_array_append_new(fields, json_pack("{s:s, s:s}", "name", pad, "type", "u8"));
    }
    return fields;
}

static const char *role_of(const init_param *p, notes *n)
{
    if (!p->read && !p->written) {
        note(n, "%s is not accessed by the entry itself (maybe through a called function): role input", p->name);
        return "input";
    }
    if (p->written && !p->read) return "output";
    if (p->written) note(n, "%s is read and written: an input here (an output if its first values do not matter)",
                         p->name);
    return "input";
}

static json_t *buffer_json(const init_param *p, notes *n)
{
    const char *role = role_of(p, n);
    json_t *b = json_pack("{s:s, s:s}", "name", p->name, "kind", "buffer");
    const char *pointee = NULL;
    if (p->cpp_type[0]) {
        char base[64];
        snprintf(base, sizeof base, "%s", p->cpp_type);
        char *star = strrchr(base, '*');
        if (star) *star = '\0';
        pointee = cpp_spec_type(base);
    }
    int64_t size = p->stride;
    bool one_field = p->naccesses >= 1 && size <= ptx_type_size(p->access_type[0]);
    for (int k = 0; one_field && k < p->naccesses; k++) /* one type, whole elements apart: an array */
        one_field = p->access_type[k] == p->access_type[0] && p->access_off[k] % ptx_type_size(p->access_type[0]) == 0;
    if (pointee || p->naccesses == 0 || one_field) {
        const char *type = pointee ? pointee : p->naccesses ? ptx_spec_type(p->access_type[0]) : "u8";
        if (!pointee && p->naccesses == 0) note(n, "%s: element type unknown (u8 here)", p->name);
        /* an index stride of k elements (c[5*i + j]): k elements per thread */
        int64_t esize = spec_type_size(type), k = esize > 0 && size > esize && size % esize == 0 ? size / esize : 1;
        if (k > INIT_MAX_PER_THREAD || p->naccesses == 0) k = 1;
        json_object_set_new(b, "type", json_string(type));
        if (k > 1) {
            char count[48];
            snprintf(count, sizeof count, "%lld*threads", (long long)k);
            json_object_set_new(b, "count", json_string(count));
            note(n, "%s: %lld elements per thread (its index stride)", p->name, (long long)k);
        } else
            json_object_set_new(b, "count", json_string("threads"));
        json_object_set_new(b, "role", json_string(role));
        /* parent[x] with x read from memory, never with the thread's
         * index: one array every thread reads, not a slice of each */
        bool shared = p->data_indexed && !p->thread_indexed;
        if (shared && strcmp(role, "output"))
            note(n, "%s is indexed only by values read from memory: a shared input (no per_thread) of a guessed "
                    "count", p->name);
        if (strcmp(role, "output")) {
            if (!shared) json_object_set_new(b, "per_thread", json_integer(k));
            if (!spec_type_is_float(type)) json_object_set_new(b, "range", int_range(type, strstr(p->cpp_type, "bool")));
        }
    } else {
        json_object_set_new(b, "type", json_string("struct"));
        json_object_set_new(b, "fields", struct_fields(p, size));
        json_object_set_new(b, "count", json_string("threads"));
        json_object_set_new(b, "role", json_string(role));
        if (strcmp(role, "output")) json_object_set_new(b, "per_thread", json_integer(1));
        note(n, "%s%s%s%s: a struct of %lld bytes guessed from its accesses (fields named by offset)", p->name,
             p->cpp_type[0] ? " (" : "", p->cpp_type, p->cpp_type[0] ? ")" : "", (long long)(size ? size : 0));
    }
    return b;
}

/* A surface object the entry reads (suld) or writes (sust): elements of
 * the access's size (an input, or an output when only written), width
 * `threads` and 64 rows and slices; 8 layers when its accesses are
 * layered (.a1d, .a2d: a layered surface, or a cubemap's faces). */
static json_t *surface_json(const init_param *p, notes *n)
{
    int size = ptx_type_size(p->tex_type);
    const char *type = size == 1 ? "u8" : size == 2 ? "u16" : size == 8 ? "u64" : "i32";
    const char *role = p->written && !p->read ? "output" : "input";
    json_t *b = json_pack("{s:s, s:s, s:s, s:s}", "name", p->name, "kind", "surface", "type", type, "role", role);
    json_t *dims = json_array();
    for (int d = 0; d < ptx_tex_geom_dims(p->tex_geom); d++)
        json_array_append_new(dims, d ? json_integer(64) : json_string("threads"));
    json_t *surf = json_pack("{s:o}", "dims", dims);
    bool layered = ptx_tex_geom_layered(p->tex_geom);
    if (layered) json_object_set_new(surf, "layers", json_integer(8));
    json_object_set_new(b, "surface", surf);
    note(n, "%s: a .%s surface object (suld/sust): dimensions, %selement type (\"fields\" for several channels) "
            "are guesses to check", p->name, ptx_tex_geom_name(p->tex_geom),
         layered ? "layers (or a cubemap's faces: \"cube\": true, square dims), " : "");
    return b;
}

/* A texture object the entry fetches through: one channel of the fetch's
 * type, dimensions to fill in; a 1-D texture read at integer indices is
 * tex1Dfetch's linear memory. */
static json_t *texture_json(const init_param *p, notes *n)
{
    const char *type = p->tex_type == PTX_T_F32 ? "f32" : p->tex_type == PTX_T_U32 ? "u32" : "i32";
    json_t *b = json_pack("{s:s, s:s, s:s, s:s}", "name", p->name, "kind", "texture", "type", type, "role", "input");
    json_t *dims = json_array();
    bool cube = p->tex_geom == PTX_TEX_CUBE || p->tex_geom == PTX_TEX_ACUBE;
    for (int d = 0; d < ptx_tex_geom_dims(p->tex_geom); d++)
        json_array_append_new(dims, cube || d ? json_integer(64) : json_string("threads"));
    json_t *tex = json_pack("{s:o}", "dims", dims);
    bool linear = p->tex_geom == PTX_TEX_1D && p->tex_coord == PTX_T_S32;
    json_object_set_new(tex, "memory", json_string(linear ? "linear" : "array"));
    if (p->gathers) json_object_set_new(tex, "gather", json_true());
    bool mipmapped = p->lod && !linear && !cube && !ptx_tex_geom_layered(p->tex_geom) && !p->gathers;
    if (mipmapped) {
        json_object_set_new(tex, "levels", json_integer(2));
        json_object_set_new(tex, "normalized_coords", json_true());
        note(n, "%s: fetched at a level of detail (tex2DLod, tex2DGrad): a mipmapped array of 2 levels, read at "
                "normalized coordinates, is a guess (of one level, the level of detail chooses nothing)", p->name);
    }
    if (ptx_tex_geom_layered(p->tex_geom))
        json_object_set_new(tex, "layers", json_integer(8));
    if (cube) json_object_set_new(tex, "cube", json_true());
    json_object_set_new(b, "texture", tex);
    note(n, "%s: a .%s texture object (fetched with tex%s): dimensions, layers, texel channels (\"fields\" for float2, "
            "float4...), address modes, filtering and read mode are guesses to check", p->name,
         ptx_tex_geom_name(p->tex_geom),
         linear ? "1Dfetch, linear memory" : ", a CUDA array");
    return b;
}

/* A tensor map the entry's tensor copies go through: its rank from the
 * copies, the rest (element type, dimensions, box) guesses to check
 * against the host's cuTensorMapEncodeTiled call. */
static json_t *tensor_map_json(const init_param *p, notes *n)
{
    int rank = p->tmap_rank ? p->tmap_rank : 2;   /* only prefetched: a guess */
    const char *role = p->tmap_store && !p->tmap_load ? "output" : "input";
    json_t *b = json_pack("{s:s, s:s, s:s, s:s}", "name", p->name, "kind", "tensor_map", "type", "f32", "role", role);
    json_t *dims = json_array(), *box = json_array();
    for (int d = 0; d < rank; d++) {
        json_array_append_new(dims, json_integer(d ? 64 : 256));
        json_array_append_new(box, json_integer(d ? 8 : 32));
    }
    json_object_set_new(b, "tensor_map", json_pack("{s:o, s:o}", "dims", dims, "box", box));
    note(n, "%s: a %d-D tensor map (%s%s): element type, dimensions, box%s are guesses to check against the host's "
            "cuTensorMapEncodeTiled", p->name, rank, p->tmap_rank ? "cp.async.bulk.tensor" : "prefetch.tensormap only",
         p->tmap_load && p->tmap_store ? ", both ways" : p->tmap_store ? ", stores" : "",
         p->tmap_rank ? ", swizzle and out-of-bounds fill" : ", rank, swizzle and out-of-bounds fill");
    return b;
}

/* ---- module variables ------------------------------------------------------ */

/* A module variable's element type: its PTX type, or, for the bytes nvcc
 * declares an array of words as (`.b8 trips[128]` with `.align 4`),
 * words of the alignment's size. */
static const char *global_type(const ptx_var *v)
{
    if (v->type != PTX_T_B8 || v->elem_size != 1) return ptx_spec_type(v->type);
    if (v->align >= 8 && v->size % 8 == 0) return "i64";
    if (v->align >= 4 && v->size % 4 == 0) return "i32";
    return "u8";
}

/* Every .global and .const variable the entry's code names (the module
 * memory map's `referenced`), as a spec global: inputs over the whole
 * variable, their roles and types to check. */
static json_t *globals_json(const ptx_module *m, int entry, notes *n)
{
    ptx_memmap mm;
    ptx_memmap_build(m, entry, &mm);
    json_t *list = json_array();
    for (int v = 0; v < m->nvars; v++) {
        const ptx_var *var = &m->vars[v];
        if (!mm.referenced[v] || ptx_spec_global_var(m, var->name) != v) continue;
        const char *type = global_type(var);
        uint64_t count = var->size / (uint64_t)spec_type_size(type);
        json_t *g = json_pack("{s:s, s:s, s:I, s:s}", "name", var->name, "type", type, "count", (json_int_t)count,
                              "role", "input");
        if (!spec_type_is_float(type)) json_object_set_new(g, "range", int_range(type, false));
        json_array_append_new(list, g);
        note(n, "global %s (.%s, %llu bytes%s): an input of %llu %s; one the kernel writes is an output (or fixed)",
             var->name, ptx_space_name(var->space), (unsigned long long)var->size, var->init ? ", initialised" : "",
             (unsigned long long)count, type);
    }
    ptx_memmap_free(&mm);
    return list;
}

/* ---- the draft ------------------------------------------------------------ */

/* The entry named `want` (PTX name, or the identifier inside a mangled
 * one), or the only one; -1 with an error listing them. */
static int pick_entry(const ptx_module *m, const char *want, const char *file, wh_error *err)
{
    int found = -1;
    char names[800] = "";
    size_t len = 0;
    for (int k = 0; k < m->nkernels; k++) {
        const char *name = m->funcs[m->kernels[k]].name;
        if (len < sizeof names) len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", name);
        bool match = want && (!strcmp(name, want) || (strstr(name, want) && !strncmp(name, "_Z", 2)));
        if (match || (!want && m->nkernels == 1)) found = m->kernels[k];
    }
    if (found < 0)
        wh_error_set(err, WH_ERR_USER, file, 0, 0, "%s: %s (entries: %s)",
                     want ? "no entry of that name" : "several entries: give --entry NAME", want ? want : "",
                     m->nkernels ? names : "none");
    return found;
}

/* A spec name from an entry: the identifier of a mangled name, else the name. */
static void spec_name(const char *entry, char *out, size_t n)
{
    const char *at = entry;
    int len = (int)strlen(entry);
    if (!strncmp(entry, "_Z", 2)) {
        char *end;
        long l = strtol(entry + 2, &end, 10);
        if (l > 0 && (long)strlen(end) >= l) at = end, len = (int)l;
    }
    snprintf(out, n, "%.*s", len, at);
}

/* The parameters' names, and the types the mangled name did not give
 * (an extern "C" entry's), from the entry's declaration in its CUDA
 * source; a name that is missing or repeats keeps the PTX's. */
static void from_source(const char *source, const ptx_function *f, init_param *params,
                        char names[][64], char types[][64], notes *n)
{
    char ident[128];
    spec_name(f->name, ident, sizeof ident);
    if (init_source_params(source, ident, names, types, INIT_MAX_PARAMS) != f->nparams || f->nparams == 0) return;
    int typed = 0;
    for (int p = 0; p < f->nparams; p++) {
        bool repeated = false;
        for (int q = 0; q < p; q++) repeated |= !strcmp(names[q], names[p]);
        if (names[p][0] && !repeated) params[p].name = names[p];
        if (!params[p].cpp_type[0] && types[p][0]) {
            snprintf(params[p].cpp_type, sizeof params[p].cpp_type, "%.63s", types[p]);
            params[p].pointer = strchr(types[p], '*') != NULL;
            typed++;
        }
    }
    note(n, "parameter names%s from the declaration of %s in %s", typed ? " and C++ types" : "", ident, source);
}

/* path (absolute) as seen from dir (absolute): "../src/k.cu". */
static void relative_to(const char *dir, const char *path, char *out, size_t n)
{
    size_t common = 0;   /* the directories they share: dir[0, common) */
    for (size_t i = 0; dir[i] && dir[i] == path[i]; i++)
        if ((dir[i + 1] == '/' || !dir[i + 1]) && path[i + 1] == '/') common = i + 1;
    out[0] = '\0';
    for (const char *p = dir + common; *p; p++)
        if (*p != '/' && (p[-1] == '/') && strlen(out) + 3 < n) strcat(out, "../");
    snprintf(out + strlen(out), n - strlen(out), "%s", path + common + (path[common] == '/'));
}

/* A draft with -o names its source (and a PTX given as such) relative
 * to the spec, so that the two can move together; a .cu's PTX, compiled
 * beside the spec under the source's name, is where the spec looks first
 * and goes unnamed (a `make ptx` copy is found once it is deleted). */
static void set_paths(json_t *spec, const char *spec_dir, const char *source, const char *ptx_abs, bool compiled)
{
    char rel[4096];
    if (spec_dir && source[0] == '/') relative_to(spec_dir, source, rel, sizeof rel);
    json_object_set_new(spec, "source", json_string(spec_dir && source[0] == '/' ? rel : source));
    if (compiled && spec_dir) return;
    if (spec_dir && ptx_abs[0] == '/') relative_to(spec_dir, ptx_abs, rel, sizeof rel);
    json_object_set_new(spec, "ptx", json_string(spec_dir && ptx_abs[0] == '/' ? rel : ptx_abs));
}

/* Whether a drafted input buffer (or one of its struct fields) is float. */
static bool has_float_input(const json_t *params)
{
    size_t k, j;
    json_t *p, *field;
    json_array_foreach(params, k, p) {
        const char *role = json_string_value(json_object_get(p, "role"));
        if (!role || strcmp(role, "input")) continue;
        const char *type = json_string_value(json_object_get(p, "type"));
        if (type && spec_type_is_float(type)) return true;
        json_array_foreach(json_object_get(p, "fields"), j, field) {
            const char *ft = json_string_value(json_object_get(field, "type"));
            if (ft && spec_type_is_float(ft)) return true;
        }
    }
    return false;
}

/* A buffer the code reads by a walk from a value read at the thread's
 * position in another (`for (j = start[t]; ...) cols[j]`), or at the
 * position an index list gives the thread (start[level[t]]): the rows of a
 * row pointer, which only a user can confirm (a running sum of lengths?
 * one row per thread or per warp?), so a note, not an owner. */
static void rows_notes(const init_param *params, int nparams, notes *n)
{
    for (int p = 0; p < nparams; p++) {
        const init_param *c = &params[p];
        int r = init_rows_pointer(params, nparams, p);
        if (!c->pointer || !c->read || r < 0) continue;
        const char *rows = params[r].name;
        int q = init_index_of(params, nparams, r);
        if (q >= 0) {
            note(n, "%s is read by a loop that starts at %s[%s[t]] (t the thread's position): if %s is a row "
                    "pointer and thread t reads row %s[t], state \"prefix_sum_of\" (the row lengths) on %s and "
                    "\"owner\": { \"rows\": \"%s\", \"through\": \"%s\" } on %s, per_thread the longest row "
                    "(README, \"Ownership\")", c->name, rows, params[q].name, rows, params[q].name, rows, rows,
                 params[q].name, c->name);
            continue;
        }
        note(n, "%s is read by a loop that starts at %s[t] (t the thread's position): if %s is a row pointer and "
                "thread t reads row t, state \"prefix_sum_of\" (the row lengths) on %s and \"owner\": { \"rows\": "
                "\"%s\" } on %s, per_thread the longest row (\"by\": \"warp\" where a warp reads a row; CSR "
                "offsets, rows ending where the next starts, are no owner: README, \"Ownership\")", c->name, rows,
             rows, rows, rows, c->name);
    }
}

/* A buffer the code reads at an index read at the thread's position in
 * another (x[level[t]]): owned through that index if thread t is the one
 * reading element level[t], which only a user can confirm. */
static void index_notes(const init_param *params, int nparams, notes *n)
{
    for (int p = 0; p < nparams; p++) {
        int q = init_index_of(params, nparams, p);
        if (!params[p].pointer || !params[p].read || q < 0) continue;
        note(n, "%s is read at %s[t] (t the thread's position): if it is an input and thread t's element is the one "
                "%s[t] names, state \"owner\": { \"index\": \"%s\" } on it, per_thread as %s's (README, "
                "\"Ownership\")", params[p].name, params[q].name, params[q].name, params[q].name, params[q].name);
    }
}

static json_t *draft(const ptx_module *m, const ptx_function *f, const char *ptx_abs, const char *source,
                     const char *spec_dir, bool compiled, notes *n, wh_error *err)
{
    init_param params[INIT_MAX_PARAMS];
    if (init_infer(f, params, INIT_MAX_PARAMS) < 0) {
        wh_error_set(err, WH_ERR_UNSUPPORTED, m->name, f->line, 0, "%s has more than %d parameters", f->name,
                     INIT_MAX_PARAMS);
        return NULL;
    }
    /* the CUDA source: given, else the first the PTX's .file names */
    for (int k = 0; !source && k < m->nsrc_files; k++) source = m->src_files[k];
    char names[INIT_MAX_PARAMS][64], types[INIT_MAX_PARAMS][64];   /* params[p].name may point here */
    if (source) from_source(source, f, params, names, types, n);
    json_t *list = json_array();
    for (int p = 0; p < f->nparams; p++)
        json_array_append_new(list, params[p].tmap_rank || params[p].tmap_prefetched ? tensor_map_json(&params[p], n)
                                    : params[p].surface ? surface_json(&params[p], n)
                                    : params[p].tex_geom ? texture_json(&params[p], n)
                                    : params[p].pointer ? buffer_json(&params[p], n) : scalar_json(&params[p], n));
    rows_notes(params, f->nparams, n);
    index_notes(params, f->nparams, n);
    int block = f->reqntid[0] > 0 ? f->reqntid[0] : f->maxntid[0] > 0 ? f->maxntid[0] : 256;
    note(n, "a buffer not noted above: count threads, an input one element per thread (per_thread 1)");
    note(n, "integer inputs: [0, threads-1], an index guess (state keys, counts and other values' real range)");
    if (has_float_input(list))
        note(n, "float inputs: no range drafted, so values are drawn from [-1000, 1000]");
    note(n, "launch: grid G = 64 blocks (a constant: --set G=N resizes the launch) x block %d (%s)", block,
         f->reqntid[0] || f->maxntid[0] ? "the PTX's ntid" : "a guess");
    char name[128];
    spec_name(f->name, name, sizeof name);
    json_t *spec = json_pack("{s:s, s:s}", "name", name, "description", "");
    set_paths(spec, spec_dir, source ? source : ptx_abs, ptx_abs, compiled);
    json_object_set_new(spec, "entry", json_string(f->name));
    json_object_set_new(spec, "constants", json_pack("{s:s}", "G", "64"));
    json_object_set_new(spec, "grid", json_pack("[sii]", "G", 1, 1));
    json_object_set_new(spec, "block", json_pack("[iii]", block, 1, 1));
    json_object_set_new(spec, "symbolic", json_pack("{s:[iii]}", "threads", 2, 3, 4));
    json_object_set_new(spec, "params", list);
    json_t *globals = globals_json(m, ptx_function_index(m, f->name), n);
    if (json_array_size(globals)) json_object_set_new(spec, "globals", globals);
    else json_decref(globals);
    return spec;
}

/* nvcc -ptx -lineinfo FILE.cu -o PTX; false (err) when it cannot run or fails. */
static bool compile_cu(const char *cu, const char *ptx, wh_error *err)
{
    const char *cuda = getenv("CUDA_HOME");
    char nvcc[1100];
    snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", cuda ? cuda : "/usr/local/cuda");
    if (access(nvcc, X_OK) != 0) snprintf(nvcc, sizeof nvcc, "nvcc");
    pid_t pid = fork();
    if (pid == 0) {
        execlp(nvcc, nvcc, "-ptx", "-lineinfo", "-arch=sm_80", "-o", ptx, cu, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    bool ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!ok)
        wh_error_set(err, WH_ERR_USER, cu, 0, 0, "nvcc %s (give the PTX instead: nvcc -ptx -lineinfo %s)",
                     pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127 ? "was not found" : "failed", cu);
    return ok;
}

/* Where a .cu's PTX goes: beside the spec (or the working directory). */
static void ptx_beside(const char *cu, const char *spec_out, char *out, size_t n)
{
    const char *base = strrchr(cu, '/');
    base = base ? base + 1 : cu;
    char dir[1024] = ".";
    if (spec_out && strrchr(spec_out, '/'))
        snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(spec_out, '/') - spec_out), spec_out);
    snprintf(out, n, "%s/%.*s.ptx", dir, (int)(strrchr(base, '.') ? strrchr(base, '.') - base : (long)strlen(base)),
             base);
}

/* Load the draft back: it must be a spec this tool accepts. */
static bool loads(const char *text, wh_error *err)
{
    char tmp[] = "/tmp/wh_init_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) return true; /* no temporary file: the check is skipped, not the draft */
    bool wrote = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    wh_spec *s = wrote ? wh_spec_load(tmp, err) : NULL;
    unlink(tmp);
    if (s) wh_spec_free(s);
    else if (wrote) err->kind = WH_ERR_INTERNAL; /* our draft, our bug */
    return s != NULL || !wrote;
}

static int init_spec(const char *file, const char *entry, const char *out, bool quiet)
{
    wh_error err;
    wh_error_clear(&err);
    size_t len = strlen(file);
    bool cu = len > 3 && !strcmp(file + len - 3, ".cu");
    char ptx[1200], ptx_abs[4096];
    if (cu) ptx_beside(file, out, ptx, sizeof ptx);
    else snprintf(ptx, sizeof ptx, "%s", file);
    if (cu && !compile_cu(file, ptx, &err)) return cli_report(&err);
    ptx_module *m = ptx_parse_file(ptx, &err);
    if (!m) return cli_report(&err);
    int fi = pick_entry(m, entry, ptx, &err);
    notes n = { .len = 0 };
    char src_abs[4096], spec_dir[4096], out_dir[4096];
    snprintf(out_dir, sizeof out_dir, "%.*s", out && strrchr(out, '/') ? (int)(strrchr(out, '/') - out) : 1,
             out && strrchr(out, '/') ? out : ".");
    bool relative = out && realpath(out_dir[0] ? out_dir : "/", spec_dir);
    json_t *spec = fi < 0 ? NULL
                          : draft(m, &m->funcs[fi], realpath(ptx, ptx_abs) ? ptx_abs : ptx,
                                  cu ? (realpath(file, src_abs) ? src_abs : file) : NULL, relative ? spec_dir : NULL,
                                  cu, &n, &err);
    int status = spec ? 0 : cli_report(&err);
    if (spec) {
        char desc[4400];
        snprintf(desc, sizeof desc, "Drafted by warphunt init from %s: check %s.", file, n.text);
        json_object_set_new(spec, "description", json_string(desc));
        char *text = json_dumps(spec, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!text || !loads(text, &err)) status = cli_report(&err);
        else if (out && !wh_write_text_atomic(out, text, &err)) status = cli_report(&err);
        else if (!out) fputs(text, stdout), fputc('\n', stdout);
        if (!status && !quiet)
            fprintf(stderr, "init: drafted a spec of %s%s%s; check: %s\n", m->funcs[fi].name, out ? " in " : "",
                    out ? out : "", n.text);
        free(text);
        json_decref(spec);
    }
    ptx_module_free(m);
    return status;
}

int cmd_init(int argc, char **argv)
{
    static const struct option longs[] = {
        { "entry", required_argument, NULL, 'e' },
        { "out", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *entry = NULL, *out = NULL;
    bool quiet = false;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
        switch (c) {
        case 'e': entry = optarg; break;
        case 'o': out = optarg; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); return 0;
        default: return cli_usage_hint("init");
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "warphunt init: expected exactly one FILE.ptx or FILE.cu\n");
        return cli_usage_hint("init");
    }
    return init_spec(argv[optind], entry, out, quiet);
}
