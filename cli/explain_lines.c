/*
 * explain_lines.c — the rows of two explained runs joined by line and
 * ranked by the cycles the input adds over its reference.
 */
#include "cli/explain_lines.h"

#include "core/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One report row on its way to a line: its key and which run it is from. */
typedef struct {
    const char *file;
    int line;
    const harness_explain_row *row;
    bool is_ref;
} keyed_row;

static int key_cmp(const char *fa, int la, const char *fb, int lb)
{
    int c = strcmp(fa, fb);
    return c ? c : (la > lb) - (la < lb);
}

static int keyed_cmp(const void *a, const void *b)
{
    const keyed_row *x = a, *y = b;
    return key_cmp(x->file, x->line, y->file, y->line);
}

static void add_counts(explain_counts *c, const explain_counts *r)
{
    c->issued += r->issued;
    c->lanes += r->lanes;
    c->branches += r->branches;
    c->divergent += r->divergent;
    c->global_requests += r->global_requests;
    c->sectors += r->sectors;
    c->local_requests += r->local_requests;
    c->local_sectors += r->local_sectors;
    c->shared_requests += r->shared_requests;
    c->wavefronts += r->wavefronts;
    c->atomics += r->atomics;
    c->atomic_wait += r->atomic_wait;
    c->issue_cycles += r->issue_cycles;
    for (int s = 0; s < HARNESS_NSTALLS; s++)
        c->stall[s] += r->stall[s];
}

double cli_explain_cycles(const explain_counts *c)
{
    double t = c->issue_cycles;
    for (int s = 0; s < HARNESS_NSTALLS; s++)
        t += c->stall[s];
    return t;
}

int cli_explain_dominant_stall(const explain_counts *c)
{
    int best = -1;
    for (int s = 0; s < HARNESS_NSTALLS; s++)
        if (c->stall[s] > 0 && (best < 0 || c->stall[s] > c->stall[best]))
            best = s;
    return best;
}

static size_t key_rows(const harness_explain_report *r, bool is_ref, explain_by by, const char *ptx_name,
                       keyed_row *out)
{
    for (int i = 0; i < r->nrows; i++) {
        const harness_explain_row *row = &r->rows[i];
        bool source = by == EXPLAIN_BY_LINE && row->source_file >= 0;
        out[i] = (keyed_row){ source ? r->files[row->source_file] : ptx_name,
                              source ? row->source_line : row->ptx_line, row, is_ref };
    }
    return (size_t)r->nrows;
}

static void start_line(explain_line *l, const keyed_row *k, explain_by by)
{
    memset(l, 0, sizeof *l);
    l->file = wh_xstrdup(k->file);
    l->line = k->line;
    if (by == EXPLAIN_BY_PTX) {
        size_t n = strlen(k->row->opcode) + strlen(k->row->function) + 4;
        l->what = wh_xmalloc(n);
        snprintf(l->what, n, "%s (%s)", k->row->opcode, k->row->function);
    }
}

static int extra_cmp(const void *a, const void *b)
{
    const explain_line *x = a, *y = b;
    if (x->extra != y->extra)
        return x->extra < y->extra ? 1 : -1;
    return key_cmp(x->file, x->line, y->file, y->line);
}

void cli_explain_lines(const harness_explain_report *in, const harness_explain_report *ref, explain_by by,
                         const char *ptx_name, explain_lines *out)
{
    size_t n = (size_t)in->nrows + (size_t)ref->nrows;
    keyed_row *k = wh_xcalloc(n + 1, sizeof *k);
    size_t m = key_rows(in, false, by, ptx_name, k);
    key_rows(ref, true, by, ptx_name, k + m);
    qsort(k, n, sizeof *k, keyed_cmp);
    out->v = wh_xcalloc(n + 1, sizeof *out->v);
    out->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || keyed_cmp(&k[i - 1], &k[i]) != 0)
            start_line(&out->v[out->n++], &k[i], by);
        explain_line *l = &out->v[out->n - 1];
        add_counts(k[i].is_ref ? &l->ref : &l->in, &k[i].row->n);
    }
    for (size_t i = 0; i < out->n; i++)
        out->v[i].extra = cli_explain_cycles(&out->v[i].in) - cli_explain_cycles(&out->v[i].ref);
    qsort(out->v, out->n, sizeof *out->v, extra_cmp);
    free(k);
}

void cli_explain_lines_free(explain_lines *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].file);
        free(l->v[i].what);
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
