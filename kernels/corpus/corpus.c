/*
 * corpus.c — the corpus table (from list.def) and the small helpers the
 * kernels' input builders share.
 */
#include "kernels/corpus/corpus.h"

#include <stdio.h>
#include <string.h>

#define CORPUS(name) extern const corpus_kernel corpus_##name;
#include "kernels/corpus/list.def"
#undef CORPUS

static const corpus_kernel *const table[] = {
#define CORPUS(name) &corpus_##name,
#include "kernels/corpus/list.def"
#undef CORPUS
};

int corpus_count(void)
{
    return (int)(sizeof table / sizeof table[0]);
}

const corpus_kernel *corpus_at(int i)
{
    return i >= 0 && i < corpus_count() ? table[i] : NULL;
}

const corpus_kernel *corpus_find(const char *name)
{
    for (int i = 0; i < corpus_count(); i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    return NULL;
}

void corpus_spec_path(const corpus_kernel *k, char *buf, size_t size)
{
    snprintf(buf, size, "kernels/corpus/%s.json", k->name);
}

bool corpus_build(const corpus_input *in, wh_image *img, wh_error *err)
{
    pcg32 rng;
    pcg32_seed(&rng, 20261125u, 7u);
    for (int p = 0; p < img->nbufs; p++)
        if (img->bufs[p].param->role == WH_ROLE_INPUT && !wh_image_fill_low(img, p, err))
            return false;
    if (!in->build(img, &rng, err))
        return false;
    /* running sums (a CSR row start) follow the lengths the builder set;
     * a builder's structured buffers already have their structure, which
     * the projection then leaves as it is */
    return wh_image_restructure(img, err) && wh_image_check_domains(img, err);
}

wh_buffer *corpus_buffer(wh_image *img, const char *name, wh_error *err)
{
    int p = wh_image_find(img, name);
    if (p < 0) {
        wh_error_set(err, WH_ERR_INTERNAL, img->spec->path, 0, 0, "corpus input: no buffer '%s'", name);
        return NULL;
    }
    return &img->bufs[p];
}

/* Where element `elem`'s field lives, or NULL with err set. */
static void *field_at(wh_image *img, const char *name, const char *field, uint64_t elem, wh_type *type,
                      wh_error *err)
{
    wh_buffer *b = corpus_buffer(img, name, err);
    if (!b)
        return NULL;
    const wh_param *p = b->param;
    int f = 0;
    if (field) {
        for (f = 0; f < p->nfields && strcmp(p->fields[f].name, field); f++)
            ;
        if (f == p->nfields) {
            wh_error_set(err, WH_ERR_INTERNAL, img->spec->path, 0, 0, "corpus input: %s has no field '%s'", name,
                         field);
            return NULL;
        }
    }
    if (elem >= b->count) {
        wh_error_set(err, WH_ERR_INTERNAL, img->spec->path, 0, 0,
                     "corpus input: %s[%llu] past its %llu elements", name, (unsigned long long)elem,
                     (unsigned long long)b->count);
        return NULL;
    }
    *type = p->fields[f].type;
    return b->data + elem * p->elem_size + p->fields[f].offset;
}

bool corpus_set_int(wh_image *img, const char *name, const char *field, uint64_t elem, int64_t v, wh_error *err)
{
    wh_type t;
    void *at = field_at(img, name, field, elem, &t, err);
    if (!at)
        return false;
    wh_value_set_int(t, at, v);
    return true;
}

bool corpus_get_int(wh_image *img, const char *name, const char *field, uint64_t elem, int64_t *v, wh_error *err)
{
    wh_type t;
    void *at = field_at(img, name, field, elem, &t, err);
    if (!at)
        return false;
    *v = wh_value_get_int(t, at);
    return true;
}

bool corpus_set_float(wh_image *img, const char *name, const char *field, uint64_t elem, double v,
                      wh_error *err)
{
    wh_type t;
    void *at = field_at(img, name, field, elem, &t, err);
    if (!at)
        return false;
    wh_value_set_float(t, at, v);
    return true;
}

bool corpus_fill_int(wh_image *img, const char *name, const char *field, int64_t v, wh_error *err)
{
    wh_buffer *b = corpus_buffer(img, name, err);
    for (uint64_t e = 0; b && e < b->count; e++)
        if (!corpus_set_int(img, name, field, e, v, err))
            return false;
    return b != NULL;
}

bool corpus_fill_float(wh_image *img, const char *name, const char *field, double v, wh_error *err)
{
    wh_buffer *b = corpus_buffer(img, name, err);
    for (uint64_t e = 0; b && e < b->count; e++)
        if (!corpus_set_float(img, name, field, e, v, err))
            return false;
    return b != NULL;
}

int64_t corpus_var(const wh_image *img, const char *name)
{
    for (int v = 0; v < img->spec->nvars; v++)
        if (!strcmp(img->spec->var_names[v], name))
            return img->vars[v];
    return -1;
}
