/*
 * image_io.c — saving an input image to a directory and loading it back.
 *
 * Layout: DIR/manifest.json describes the launch, the spec (name and hash)
 * and every buffer (name, role, type, element size, count, bytes, file);
 * DIR/NAME.bin holds the raw little-endian bytes of each buffer that is not
 * an output.  Each file is written to a temporary name and renamed, so a
 * crash never leaves a half-written input behind.
 */
#include "core/image.h"
#include "core/results.h"

#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void wh_buffer_file_name(const wh_param *p, const char *ext, char *out, size_t size)
{
    size_t n = 0, room = strlen(ext) + 1;
    for (const char *c = p->name; *c && n + room < size; c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                  *c == '_' || *c == '-' || *c == '.';
        out[n++] = ok ? *c : '_';
    }
    snprintf(out + n, size - n, "%s", ext);
}

static json_t *dims_json(const unsigned d[3])
{
    return json_pack("[iii]", (json_int_t)d[0], (json_int_t)d[1], (json_int_t)d[2]);
}

static json_t *manifest_json(const wh_image *img)
{
    json_t *bufs = json_array();
    for (int i = 0; i < img->nbufs; i++) {
        const wh_buffer *b = &img->bufs[i];
        const wh_param *p = b->param;
        char fname[300];
        wh_buffer_file_name(p, ".bin", fname, sizeof fname);
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "name", p->name, "kind",
                              p->kind == WH_BUFFER ? "buffer" : "scalar", "role", wh_role_name(p->role),
                              "type", wh_type_name(p->type), "elem_size", (json_int_t)p->elem_size,
                              "count", (json_int_t)b->count, "bytes", (json_int_t)b->bytes);
        if (p->role != WH_ROLE_OUTPUT) json_object_set_new(o, "file", json_string(fname));
        json_array_append_new(bufs, o);
    }
    json_t *m = json_pack("{s:i, s:s, s:s, s:s, s:{s:o, s:o}, s:I, s:o}", "format", 1, "spec", img->spec->name,
                          "spec_path", img->spec->path, "spec_hash", img->spec->hash, "launch", "grid",
                          dims_json(img->launch.grid), "block", dims_json(img->launch.block), "shared_bytes",
                          (json_int_t)img->shared_bytes, "buffers", bufs);
    char real[PATH_MAX];   /* the path as given is relative to where the input was made */
    if (m && img->spec->path[0] != '/' && realpath(img->spec->path, real))
        json_object_set_new(m, "spec_realpath", json_string(real));
    if (m && img->spec->nsets) { /* the constants it was made with, for whoever loads it */
        json_t *sets = json_array();
        for (int k = 0; k < img->spec->nsets; k++) json_array_append_new(sets, json_string(img->spec->sets[k]));
        json_object_set_new(m, "spec_sets", sets);
    }
    return m;
}

bool wh_image_save(const wh_image *img, const char *dir, wh_error *err)
{
    if (!wh_make_dirs(dir, err)) return false;
    char path[1100], fname[300];
    for (int i = 0; i < img->nbufs; i++) {
        const wh_buffer *b = &img->bufs[i];
        if (b->param->role == WH_ROLE_OUTPUT) continue;
        wh_buffer_file_name(b->param, ".bin", fname, sizeof fname);
        snprintf(path, sizeof path, "%s/%s", dir, fname);
        if (!wh_write_file_atomic(path, b->data, b->bytes, err)) return false;
    }
    json_t *m = manifest_json(img);
    char *text = m ? json_dumps(m, JSON_INDENT(2)) : NULL;
    json_decref(m);
    if (!text) {
        wh_error_set(err, WH_ERR_INTERNAL, dir, 0, 0, "cannot build manifest.json");
        return false;
    }
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    bool ok = wh_write_text_atomic(path, text, err);
    free(text);
    return ok;
}

static bool read_exact(const char *path, void *data, size_t size, wh_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot open: %s", strerror(errno));
        return false;
    }
    size_t got = fread(data, 1, size, f);
    bool longer = fgetc(f) != EOF;
    fclose(f);
    if (got != size || longer) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "expected exactly %zu bytes, the file has %s", size,
                     longer ? "more" : "fewer");
        return false;
    }
    return true;
}

static bool read_launch(json_t *m, const char *mpath, wh_launch *l, wh_error *err)
{
    json_t *launch = json_object_get(m, "launch");
    for (int k = 0; k < 2; k++) {
        json_t *a = json_object_get(launch, k ? "block" : "grid");
        unsigned *d = k ? l->block : l->grid;
        if (json_array_size(a) != 3) goto bad;
        for (int i = 0; i < 3; i++) {
            json_int_t v = json_integer_value(json_array_get(a, (size_t)i));
            if (v < 1 || v > 0x7fffffff) goto bad;
            d[i] = (unsigned)v;
        }
    }
    return true;
bad:
    wh_error_set(err, WH_ERR_USER, mpath, 0, 0, "$.launch: expected {\"grid\": [x,y,z], \"block\": [x,y,z]}");
    return false;
}

static bool load_buffer(wh_image *img, int i, json_t *o, const char *dir, const char *mpath, wh_error *err)
{
    wh_buffer *b = &img->bufs[i];
    const char *name = json_string_value(json_object_get(o, "name"));
    const char *type = json_string_value(json_object_get(o, "type"));
    json_int_t count = json_integer_value(json_object_get(o, "count"));
    json_int_t esize = json_integer_value(json_object_get(o, "elem_size"));
    if (!name || strcmp(name, b->param->name) || !type || strcmp(type, wh_type_name(b->param->type)) ||
        (uint64_t)count != b->count || (size_t)esize != b->param->elem_size) {
        wh_error_set(err, WH_ERR_USER, mpath, 0, 0,
                     "$.buffers[%d]: saved as %s %s[%lld] (element %lld bytes), the spec wants %s %s[%llu] "
                     "(element %zu bytes) for this launch",
                     i, type ? type : "?", name ? name : "?", (long long)count, (long long)esize,
                     wh_type_name(b->param->type), b->param->name, (unsigned long long)b->count,
                     b->param->elem_size);
        return false;
    }
    const char *file = json_string_value(json_object_get(o, "file"));
    if (b->param->role == WH_ROLE_OUTPUT) return true;
    if (!file || strchr(file, '/')) {
        wh_error_set(err, WH_ERR_USER, mpath, 0, 0, "$.buffers[%d].file: expected a file name in %s", i, dir);
        return false;
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return read_exact(path, b->data, b->bytes, err);
}

wh_image *wh_image_load(const wh_spec *spec, const char *dir, wh_error *err)
{
    char mpath[1100];
    snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
    json_t *m = wh_read_json(mpath, NULL, err);
    if (!m) return NULL;
    wh_image *img = NULL;
    wh_launch l;
    json_t *bufs = json_object_get(m, "buffers");
    if (!read_launch(m, mpath, &l, err)) goto done;
    if (json_array_size(bufs) != (size_t)spec->nparams) {
        wh_error_set(err, WH_ERR_USER, mpath, 0, 0, "$.buffers: %zu saved, the spec %s has %d parameters",
                     json_array_size(bufs), spec->path, spec->nparams);
        goto done;
    }
    img = wh_image_new(spec, &l, err);
    for (int i = 0; img && i < spec->nparams; i++)
        if (!load_buffer(img, i, json_array_get(bufs, (size_t)i), dir, mpath, err)) {
            wh_image_free(img);
            img = NULL;
        }
    if (img && !wh_image_check_domains(img, err)) {
        if (err) snprintf(err->file, sizeof err->file, "%s", dir);
        wh_image_free(img);
        img = NULL;
    }
done:
    json_decref(m);
    return img;
}

static json_t *field_json(const wh_field *fd, const unsigned char *at)
{
    if (wh_type_is_float(fd->type)) return json_real(wh_value_get_float(fd->type, at));
    return json_integer((json_int_t)wh_value_get_int(fd->type, at));
}

json_t *wh_image_inputs_json(const wh_image *img)
{
    json_t *o = json_object();
    for (int i = 0; o && i < img->nbufs; i++) {
        const wh_buffer *b = &img->bufs[i];
        const wh_param *p = b->param;
        if (p->role != WH_ROLE_INPUT) continue;
        json_t *arr = json_array();
        for (uint64_t e = 0; e < b->count; e++) {
            const unsigned char *at = b->data + e * p->elem_size;
            if (p->type != WH_STRUCT) {
                json_array_append_new(arr, field_json(&p->fields[0], at));
                continue;
            }
            json_t *elem = json_object();
            for (int f = 0; f < p->nfields; f++)
                json_object_set_new(elem, p->fields[f].name, field_json(&p->fields[f], at + p->fields[f].offset));
            json_array_append_new(arr, elem);
        }
        json_object_set_new(o, p->name, arr);
    }
    return o;
}
