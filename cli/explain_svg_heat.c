/*
 * explain_svg_heat.c — heat.svg: the cycles charged to each line (issue +
 * stalls, summed over warps) as a heat strip in source order, and what the
 * input adds over its reference.  One row per line that issued in either
 * run, as explain joined them (CUDA source lines from .loc, PTX lines for
 * instructions without one, or every PTX line with --by ptx), labelled
 * "file:line" with explain's rank for its top lines.  First column: the
 * input's cycles, bar length linear in the cycles and colour on a log
 * scale over the three decades below the largest (one line often holds
 * most of the time; the colour still tells the rest apart); second
 * column: input - reference, a bar left (blue: the input spends less) or
 * right (red: more) of a zero axis, coloured the same way.
 *
 * The row cap (lim->max_rows, 60): explain's top lines (--top, ranked by
 * the cycles the input adds) first, then the others by the most cycles in
 * either run; the kept rows are shown in source order and the subtitle
 * says how many were left out.
 */
#include "cli/explain_svg.h"

#include "core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MARGIN = 16, RANK_W = 34, CHAR_W = 7, LABEL_MAX = 48, BAR_W = 320, NUM_W = 84, DIFF_W = 300,
       TOP = 88, ROW_H = 17, LEGEND_H = 56, DECADES = 3 };

/* A row: explain's line and its place in explain's ranking. */
typedef struct {
    const explain_line *l;
    size_t rank;          /* 1-based */
    double in, ref;       /* cycles */
} heat_row;

typedef struct {
    heat_row *rows;
    size_t n, candidates;
    double max_in, max_diff;
    double label_w, bar_x, diff_x, width, height;
    bool diff;            /* there is a reference */
    int top;
} heat;

static double hotness(const heat_row *r)
{
    return fmax(r->in, r->ref);
}

static int hotter(const void *a, const void *b)
{
    const heat_row *x = a, *y = b;
    if (hotness(x) != hotness(y))
        return hotness(x) < hotness(y) ? 1 : -1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int source_order(const void *a, const void *b)
{
    const heat_row *x = a, *y = b;
    int c = strcmp(x->l->file, y->l->file);
    if (c)
        return c;
    if (x->l->line != y->l->line)
        return x->l->line < y->l->line ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Lines that issued in either run; explain's top ones first, then the
 * hottest, cut at the cap; then in source order. */
static void pick_rows(heat *h, const explain_view *v, int cap)
{
    h->rows = wh_xcalloc(v->lines->n + 1, sizeof *h->rows);
    for (size_t i = 0; i < v->lines->n; i++) {
        const explain_line *l = &v->lines->v[i];
        if (l->in.issued || l->ref.issued)
            h->rows[h->candidates++] = (heat_row){ l, i + 1, cli_explain_cycles(&l->in), cli_explain_cycles(&l->ref) };
    }
    size_t keep = cap > 0 ? (size_t)cap : 1, ranked = 0;
    while (ranked < h->candidates && ranked < keep && h->rows[ranked].rank <= (size_t)v->top)
        ranked++;
    qsort(h->rows + ranked, h->candidates - ranked, sizeof *h->rows, hotter);
    h->n = h->candidates < keep ? h->candidates : keep;
    qsort(h->rows, h->n, sizeof *h->rows, source_order);
}

/* "file:line" (and the instruction with --by ptx), long ones cut at the
 * front on a character boundary: the end names the file and line. */
static void row_label(const explain_line *l, char *out, size_t n)
{
    char full[600];
    snprintf(full, sizeof full, "%s:%d%s%s", svg_base_name(l->file), l->line, l->what ? " " : "",
             l->what ? l->what : "");
    size_t len = strlen(full), start = 0;
    if (len > LABEL_MAX) {
        start = len - (LABEL_MAX - 3);
        while ((full[start] & 0xC0) == 0x80)
            start++;
    }
    size_t k = 0;
    if (start)
        for (const char *dots = "..."; *dots && k + 1 < n; dots++)
            out[k++] = *dots;
    for (const char *c = full + start; *c && k + 1 < n; c++)
        out[k++] = *c;
    out[k] = '\0';
}

static void lay_out(heat *h, const explain_view *v)
{
    h->diff = v->ref != NULL;
    h->top = v->top;
    size_t longest = 12;
    for (size_t i = 0; i < h->n; i++) {
        char label[LABEL_MAX + 8];
        row_label(h->rows[i].l, label, sizeof label);
        longest = strlen(label) > longest ? strlen(label) : longest;
        h->max_in = fmax(h->max_in, h->rows[i].in);
        h->max_diff = fmax(h->max_diff, fabs(h->rows[i].in - h->rows[i].ref));
    }
    h->label_w = (double)longest * CHAR_W;
    h->bar_x = MARGIN + RANK_W + h->label_w + 10;
    h->diff_x = h->bar_x + BAR_W + NUM_W;
    h->width = fmax(h->diff_x + (h->diff ? DIFF_W + NUM_W : 0) + MARGIN, 760);
    h->height = TOP + (double)(h->n ? h->n : 1) * ROW_H + LEGEND_H;
}

/* The colour's place on its scale: the three decades below max, log
 * scaled (a log over the whole range would paint most lines one red). */
static double log_share(double c, double max)
{
    if (!(max > 0) || !(fabs(c) > 0))
        return 0;
    double t = 1 + log10(fabs(c) / max) / DECADES;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

static void draw_heading(FILE *f, const heat *h, const explain_view *v, const char *title)
{
    svg_label(f, MARGIN, 22, "start", 15, "font-weight=\"bold\"", title);
    char sub[400];
    const char *what = v->by == EXPLAIN_BY_PTX ? "PTX lines" : "lines";
    if (h->n < h->candidates)
        snprintf(sub, sizeof sub, "%zu of %zu %s that issued instructions (cap %zu: explain's top %d, then the "
                                  "hottest), in source order.",
                 h->n, h->candidates, what, h->n, v->top);
    else
        snprintf(sub, sizeof sub, "All %zu %s that issued instructions, in source order.", h->n, what);
    svg_label(f, MARGIN, 42, "start", 11, NULL, sub);
    double y = TOP - 8;
    svg_label(f, MARGIN + RANK_W - 6, y, "end", 11, "font-weight=\"bold\"", "rank");
    svg_label(f, MARGIN + RANK_W + h->label_w, y, "end", 11, "font-weight=\"bold\"",
              v->by == EXPLAIN_BY_PTX ? "PTX line" : "line");
    svg_label(f, h->bar_x, y, "start", 11, "font-weight=\"bold\"", "warp-cycles in the input (issue + stalls)");
    if (h->diff)
        svg_label(f, h->diff_x + DIFF_W / 2.0, y, "middle", 11, "font-weight=\"bold\"", "input - reference");
}

static void line_tooltip(FILE *f, const heat_row *r, const char *label)
{
    fputs("<title>", f);
    svg_text(f, r->l->file);
    fprintf(f, ":%d: %.0f warp-cycles in the input, %.0f in the reference (%+.0f), rank %zu", r->l->line, r->in,
            r->ref, r->l->extra, r->rank);
    if (r->l->what) {
        fputs(", ", f);
        svg_text(f, label);
    }
    fputs("</title>", f);
}

static void draw_cycles(FILE *f, const heat *h, const heat_row *r, double y, const char *label)
{
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%d\" height=\"%d\" fill=\"#f3f3f3\"/>\n", h->bar_x, y + 2,
            BAR_W, ROW_H - 4);
    char colour[8], num[32];
    svg_sequential(0.08 + 0.92 * log_share(r->in, h->max_in), colour);
    fprintf(f, "<rect class=\"line\" x=\"%.2f\" y=\"%.2f\" width=\"%.3f\" height=\"%d\" fill=\"%s\"", h->bar_x,
            y + 2, h->max_in > 0 ? BAR_W * r->in / h->max_in : 0, ROW_H - 4, colour);
    svg_attr(f, "data-file", r->l->file);
    fprintf(f, " data-line=\"%d\" data-cycles=\"%.10g\" data-ref-cycles=\"%.10g\" data-extra=\"%.10g\" "
               "data-rank=\"%zu\">",
            r->l->line, r->in, r->ref, r->l->extra, r->rank);
    line_tooltip(f, r, label);
    fputs("</rect>\n", f);
    snprintf(num, sizeof num, "%.0f", r->in);
    svg_label(f, h->bar_x + BAR_W + 6, y + ROW_H - 5, "start", 10.5, NULL, num);
}

static void draw_diff(FILE *f, const heat *h, const heat_row *r, double y)
{
    double d = r->l->extra, axis = h->diff_x + DIFF_W / 2.0;
    double len = h->max_diff > 0 ? (DIFF_W / 2.0) * fabs(d) / h->max_diff : 0;
    char colour[8], num[32];
    svg_diverging((d < 0 ? -1 : 1) * (0.15 + 0.85 * log_share(d, h->max_diff)), colour);
    fprintf(f, "<rect class=\"diff\" x=\"%.3f\" y=\"%.2f\" width=\"%.3f\" height=\"%d\" fill=\"%s\"", d < 0 ? axis - len
            : axis, y + 2, len, ROW_H - 4, colour);
    svg_attr(f, "data-file", r->l->file);
    fprintf(f, " data-line=\"%d\" data-extra=\"%.10g\"/>\n", r->l->line, d);
    snprintf(num, sizeof num, "%+.0f", d);
    svg_label(f, h->diff_x + DIFF_W + 6, y + ROW_H - 5, "start", 10.5, NULL, num);
}

static void draw_rows(FILE *f, const heat *h)
{
    for (size_t i = 0; i < h->n; i++) {
        const heat_row *r = &h->rows[i];
        double y = TOP + (double)i * ROW_H;
        char label[LABEL_MAX + 8];
        row_label(r->l, label, sizeof label);
        if (i % 2)
            fprintf(f, "<rect x=\"%d\" y=\"%.2f\" width=\"%.2f\" height=\"%d\" fill=\"#fafafa\"/>\n", MARGIN, y,
                    h->width - 2 * MARGIN, ROW_H);
        if (r->rank <= (size_t)h->top) {
            char rank[24];
            snprintf(rank, sizeof rank, "#%zu", r->rank);
            svg_label(f, MARGIN + RANK_W - 6, y + ROW_H - 5, "end", 10.5, "font-weight=\"bold\"", rank);
        }
        svg_label(f, MARGIN + RANK_W + h->label_w, y + ROW_H - 5, "end", 10.5, "font-family=\"DejaVu Sans Mono, "
                  "monospace\"", label);
        draw_cycles(f, h, r, y, label);
        if (h->diff)
            draw_diff(f, h, r, y);
    }
    if (!h->n)
        svg_label(f, h->bar_x, TOP + ROW_H - 5, "start", 11, NULL, "no line issued an instruction");
    if (h->diff) {
        double axis = h->diff_x + DIFF_W / 2.0;
        fprintf(f, "<line class=\"axis\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#555555\" "
                   "stroke-width=\"1\"/>\n",
                axis, TOP, axis, TOP + (double)(h->n ? h->n : 1) * ROW_H);
    }
}

/* Swatches of a scale from lo to hi with their ends labelled. */
static void draw_scale(FILE *f, double x, double y, bool diverging, double max, const char *caption)
{
    for (int k = 0; k < 9; k++) {
        char colour[8];
        if (diverging)
            svg_diverging((k - 4) / 4.0, colour);
        else
            svg_sequential(0.08 + 0.92 * k / 8.0, colour);
        fprintf(f, "<rect class=\"scale\" x=\"%.2f\" y=\"%.2f\" width=\"16\" height=\"10\" fill=\"%s\"/>\n",
                x + 16 * k, y, colour);
    }
    char lo[40], hi[40];
    snprintf(lo, sizeof lo, diverging ? "-%.0f" : "%.0f or less", max / (diverging ? 1 : pow(10, DECADES)));
    snprintf(hi, sizeof hi, diverging ? "+%.0f" : "%.0f", max);
    svg_label(f, x, y + 22, "start", 9.5, NULL, lo);
    svg_label(f, x + 144, y + 22, "end", 9.5, NULL, hi);
    svg_label(f, x + 152, y + 9, "start", 10, NULL, caption);
}

static void draw_legend(FILE *f, const heat *h)
{
    double y = TOP + (double)(h->n ? h->n : 1) * ROW_H + 14;
    draw_scale(f, h->bar_x, y, false, h->max_in, "colour: log (3 decades); length: linear");
    if (h->diff)
        draw_scale(f, h->diff_x, y, true, h->max_diff, "red: the input spends more");
}

bool cli_explain_svg_heat(const char *path, const explain_view *v, const explain_svg_limits *lim, wh_error *err)
{
    heat h;
    memset(&h, 0, sizeof h);
    pick_rows(&h, v, lim->max_rows);
    lay_out(&h, v);
    /* the reference's last component: a full path would run off the picture */
    const char *ref = v->reference && *svg_base_name(v->reference) ? svg_base_name(v->reference) : "the reference";
    char title[400];
    snprintf(title, sizeof title, "explain: %s - warp-cycles by %s, input against %s",
             v->spec ? v->spec->name : "kernel", v->by == EXPLAIN_BY_PTX ? "PTX line" : "source line", ref);
    svg_doc d;
    bool ok = svg_open(&d, h.width, h.height, title, err);
    if (ok) {
        draw_heading(d.f, &h, v, title);
        draw_rows(d.f, &h);
        draw_legend(d.f, &h);
        ok = svg_close(&d, path, err);
    }
    free(h.rows);
    return ok;
}
