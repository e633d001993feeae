/*
 * explain_svg_timeline.c — timeline.svg: the input's run as SMs x cycles.
 * One band per SM that ran a warp ("SM n"; idle SMs are counted in the
 * subtitle, not drawn), x from 0 to the kernel's time.  Each warp is a bar
 * from its start to its finish, coloured by the cause that took most of
 * its cycles (issue counts as a cause); warps of one SM overlap in time,
 * so each goes to the first sub-row of its SM's band that is free by its
 * start (warps taken by start: as few sub-rows as the most warps ever
 * resident at once).  The critical warp, the one that set the kernel's
 * time, is outlined and named in the title; the reference's time is a
 * dashed line when it falls inside the axis.
 *
 * The rule that keeps the file bounded: with more warps than
 * lim->max_warps (4000), each SM's band shows lim->buckets (60) equal
 * time buckets instead of bars, each a column whose height is the average
 * number of warps resident in the bucket and whose colour is the cause
 * with the most warp-cycles there (a warp's cycles of each cause spread
 * evenly over its life: the report has totals per warp, not times); the
 * subtitle says so.  The critical warp is still drawn as its own bar.
 */
#include "cli/explain_svg.h"

#include "core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LEFT = 64, RIGHT = 28, TOP = 62, PLOT_W = 960, AXIS_H = 40, LEGEND_H = 30, MAX_PLOT_H = 1400 };

typedef struct {
    const harness_explain_report *r;
    const harness_explain_report *ref;   /* NULL: none */
    const char *kernel;
    int nsms;                  /* SM indices 0..nsms-1 (warps' included) */
    int *lane_of_sm;           /* -1: idle */
    int *sm_of_lane;
    int nlanes;
    double xmax;               /* cycles at the right edge */
    double x0, y0, w, h;       /* the plot area */
    double band;               /* a lane's height */
    bool buckets;              /* aggregated (more warps than the limit) */
    int *sub;                  /* bars: each warp's sub-row */
    int nsub;                  /* bars: sub-rows per band */
    bool used[SVG_NCAUSES];    /* causes drawn, for the legend */
} timeline;

static double x_of(const timeline *t, double cycles)
{
    return t->x0 + t->w * cycles / t->xmax;
}

/* Which SMs ran warps, and the right edge: the kernel's time, or the
 * last finish should a warp end past it (a stopped run). */
static void find_lanes(timeline *t)
{
    const harness_explain_report *r = t->r;
    t->nsms = r->nsms;
    for (uint64_t i = 0; i < r->nwarps; i++)
        if (r->warps[i].sm >= t->nsms)
            t->nsms = r->warps[i].sm + 1;
    t->lane_of_sm = wh_xmalloc(((size_t)t->nsms + 1) * sizeof *t->lane_of_sm);
    t->sm_of_lane = wh_xmalloc(((size_t)t->nsms + 1) * sizeof *t->sm_of_lane);
    for (int s = 0; s < t->nsms; s++)
        t->lane_of_sm[s] = -1;
    t->xmax = r->cycles > 0 ? (double)r->cycles : 1;
    for (uint64_t i = 0; i < r->nwarps; i++) {
        const harness_explain_warp *w = &r->warps[i];
        if (w->sm >= 0)
            t->lane_of_sm[w->sm] = 0;
        t->xmax = fmax(t->xmax, w->finish);
    }
    t->nlanes = 0;
    for (int s = 0; s < t->nsms; s++)
        if (t->lane_of_sm[s] >= 0) {
            t->lane_of_sm[s] = t->nlanes;
            t->sm_of_lane[t->nlanes++] = s;
        }
}

/* A warp's place in the packing order: by SM, then start. */
typedef struct {
    int sm;
    double start;
    uint64_t i;
} warp_key;

static int key_cmp(const void *a, const void *b)
{
    const warp_key *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Each warp to the first sub-row of its SM free by its start. */
static void pack_sub_rows(timeline *t)
{
    const harness_explain_report *r = t->r;
    warp_key *key = wh_xmalloc((r->nwarps + 1) * sizeof *key);
    for (uint64_t i = 0; i < r->nwarps; i++)
        key[i] = (warp_key){ r->warps[i].sm, r->warps[i].start, i };
    qsort(key, r->nwarps, sizeof *key, key_cmp);
    t->sub = wh_xcalloc(r->nwarps + 1, sizeof *t->sub);
    double *end = wh_xmalloc((r->nwarps + 1) * sizeof *end);
    int nend = 0;
    t->nsub = 1;
    for (uint64_t k = 0; k < r->nwarps; k++) {
        const harness_explain_warp *w = &r->warps[key[k].i];
        if (k == 0 || w->sm != key[k - 1].sm)
            nend = 0;   /* a new SM: its band starts empty */
        int s = 0;
        while (s < nend && end[s] > w->start)
            s++;
        if (s == nend)
            nend++;
        end[s] = w->finish;
        t->sub[key[k].i] = s;
        if (nend > t->nsub)
            t->nsub = nend;
    }
    free(end);
    free(key);
}

static void lay_out(timeline *t, const explain_svg_limits *lim)
{
    find_lanes(t);
    t->buckets = t->r->nwarps > lim->max_warps;
    if (!t->buckets)
        pack_sub_rows(t);
    double want = t->buckets ? 36 : 4.0 + 5.0 * t->nsub;
    t->band = want < 20 ? 20 : want > 64 ? 64 : want;
    if (t->nlanes * t->band > MAX_PLOT_H)
        t->band = fmax(MAX_PLOT_H / (double)t->nlanes, 6);
    t->x0 = LEFT;
    t->y0 = TOP;
    t->w = PLOT_W;
    t->h = t->nlanes ? t->nlanes * t->band : 40;
}

static double lane_y(const timeline *t, int sm)
{
    return t->y0 + t->lane_of_sm[sm] * t->band;
}

/* ---- drawing ------------------------------------------------------------------------- */

static void draw_heading(FILE *f, const timeline *t, const char *title, const explain_svg_limits *lim)
{
    svg_label(f, LEFT, 22, "start", 15, "font-weight=\"bold\"", title);
    char sub[600];
    int idle = t->r->nsms - t->nlanes;
    size_t k = (size_t)snprintf(sub, sizeof sub, "%llu warps on %d SMs%s", (unsigned long long)t->r->nwarps,
                                t->nlanes, idle > 0 ? "" : ".");
    if (idle > 0)
        k += (size_t)snprintf(sub + k, sizeof sub - k, " (%d idle SMs not drawn).", idle);
    if (t->buckets)
        snprintf(sub + k, sizeof sub - k,
                 " More than %llu: each SM shows %d time buckets, height = average warps resident, colour = the "
                 "cause with most warp-cycles there.",
                 (unsigned long long)lim->max_warps, lim->buckets);
    else
        snprintf(sub + k, sizeof sub - k, " A bar per warp, start to finish, coloured by the cause that took most "
                                          "of its cycles.");
    svg_label(f, LEFT, 42, "start", 11, NULL, sub);
}

static void draw_lanes(FILE *f, const timeline *t)
{
    double size = t->band - 2 < 11 ? fmax(t->band - 2, 5) : 11;
    for (int l = 0; l < t->nlanes; l++) {
        double y = t->y0 + l * t->band;
        fprintf(f, "<rect class=\"lane\" data-sm=\"%d\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                   "fill=\"%s\"/>\n",
                t->sm_of_lane[l], t->x0, y, t->w, t->band, l % 2 ? "#ffffff" : "#f1f1f1");
        char name[32];
        snprintf(name, sizeof name, "SM %d", t->sm_of_lane[l]);
        svg_label(f, t->x0 - 6, y + t->band / 2 + size * 0.35, "end", size, NULL, name);
    }
    if (!t->nlanes)
        svg_label(f, t->x0 + t->w / 2, t->y0 + 24, "middle", 12, NULL, "no warp ran");
}

static void draw_axis(FILE *f, const timeline *t)
{
    double step = svg_nice_step(t->xmax, 8), bottom = t->y0 + t->h;
    for (double c = 0; c <= t->xmax + step * 1e-9; c += step) {
        double x = x_of(t, c);
        fprintf(f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#cccccc\" "
                   "stroke-width=\"0.6\"/>\n",
                x, t->y0, x, bottom + 4);
        char tick[32];
        snprintf(tick, sizeof tick, "%.0f", c);
        svg_label(f, x, bottom + 16, "middle", 10, NULL, tick);
    }
    fprintf(f, "<rect class=\"plot\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" data-cycles=\"%.10g\" "
               "fill=\"none\" stroke=\"#888888\" stroke-width=\"0.8\"/>\n",
            t->x0, t->y0, t->w, t->h, t->xmax);
    svg_label(f, t->x0 + t->w / 2, bottom + 32, "middle", 11, NULL, "cycles");
}

static void warp_tooltip(FILE *f, const harness_explain_warp *w, int cause)
{
    double life = w->finish - w->start;
    fprintf(f, "<title>SM %d, warp %d of block (%u,%u,%u): cycles %.0f-%.0f, %s %.0f%%</title>", w->sm, w->warp,
            w->ctaid[0], w->ctaid[1], w->ctaid[2], w->start, w->finish, svg_cause_name(cause),
            life > 0 ? 100.0 * svg_warp_cause_cycles(w, cause) / life : 0.0);
}

/* A warp's bar (its x-extent is its life, scaled) with what it stands for. */
static void draw_warp(FILE *f, timeline *t, uint64_t i, double y, double hgt, bool critical)
{
    const harness_explain_warp *w = &t->r->warps[i];
    int cause = svg_warp_cause(w);
    t->used[cause] = true;
    fprintf(f, "<rect class=\"%s\" x=\"%.3f\" y=\"%.2f\" width=\"%.3f\" height=\"%.2f\" fill=\"%s\"",
            critical && t->buckets ? "critical" : "warp", x_of(t, w->start), y, x_of(t, w->finish) - x_of(t, w->start),
            hgt, svg_cause_colour(cause));
    fprintf(f, " data-sm=\"%d\" data-block=\"%llu\" data-warp=\"%d\" data-start=\"%.10g\" data-finish=\"%.10g\" "
               "data-cause=\"%s\"%s>",
            w->sm, (unsigned long long)w->block, w->warp, w->start, w->finish, svg_cause_name(cause),
            critical ? " data-critical=\"1\"" : "");
    warp_tooltip(f, w, cause);
    fputs("</rect>\n", f);
}

static void draw_bars(FILE *f, timeline *t)
{
    double sub_h = (t->band - 2) / t->nsub;
    for (uint64_t i = 0; i < t->r->nwarps; i++) {
        const harness_explain_warp *w = &t->r->warps[i];
        double y = lane_y(t, w->sm) + 1 + t->sub[i] * sub_h;
        draw_warp(f, t, i, y + sub_h * 0.1, sub_h * 0.8, (int64_t)i == t->r->critical);
    }
}

/* Per SM and bucket: warp-cycles resident, and by cause. */
typedef struct {
    double resident;
    double cause[SVG_NCAUSES];
} bucket;

static void spread_warp(const timeline *t, const harness_explain_warp *w, bucket *lane, int nb)
{
    double life = w->finish - w->start, bw = t->xmax / nb;
    if (!(life > 0))
        return;
    int first = (int)(w->start / bw), last = (int)(w->finish / bw);
    for (int b = first < 0 ? 0 : first; b <= last && b < nb; b++) {
        double overlap = fmin(w->finish, (b + 1) * bw) - fmax(w->start, b * bw);
        if (overlap <= 0)
            continue;
        lane[b].resident += overlap;
        for (int c = 0; c < SVG_NCAUSES; c++)
            lane[b].cause[c] += overlap * svg_warp_cause_cycles(w, c) / life;
    }
}

static int bucket_cause(const bucket *b)
{
    int best = 0;
    for (int c = 1; c < SVG_NCAUSES; c++)
        if (b->cause[c] > b->cause[best])
            best = c;
    return best;
}

static void draw_bucket(FILE *f, timeline *t, int sm, int b, const bucket *bk, double bw, double top)
{
    double avg = bk->resident / bw, hgt = (t->band - 2) * avg / top;
    int cause = bucket_cause(bk);
    t->used[cause] = true;
    /* crisp edges: adjacent buckets would otherwise show anti-aliased seams */
    fprintf(f, "<rect class=\"bucket\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
               "shape-rendering=\"crispEdges\" data-sm=\"%d\" data-start=\"%.8g\" data-finish=\"%.8g\" "
               "data-warps=\"%.4g\" data-cause=\"%s\"/>\n",
            x_of(t, b * bw), lane_y(t, sm) + t->band - 1 - hgt, x_of(t, (b + 1) * bw) - x_of(t, b * bw), hgt,
            svg_cause_colour(cause), sm, b * bw, (b + 1) * bw, avg, svg_cause_name(cause));
}

static void draw_buckets(FILE *f, timeline *t, const explain_svg_limits *lim)
{
    int nb = lim->buckets > 0 ? lim->buckets : 1;
    bucket *all = wh_xcalloc((size_t)t->nlanes * (size_t)nb + 1, sizeof *all);
    for (uint64_t i = 0; i < t->r->nwarps; i++)
        spread_warp(t, &t->r->warps[i], &all[(size_t)t->lane_of_sm[t->r->warps[i].sm] * (size_t)nb], nb);
    double bw = t->xmax / nb, top = 0;
    for (size_t k = 0; k < (size_t)t->nlanes * (size_t)nb; k++)
        top = fmax(top, all[k].resident / bw);
    for (int l = 0; l < t->nlanes; l++)
        for (int b = 0; b < nb; b++)
            if (all[(size_t)l * (size_t)nb + (size_t)b].resident > 0)
                draw_bucket(f, t, t->sm_of_lane[l], b, &all[(size_t)l * (size_t)nb + (size_t)b], bw, top);
    free(all);
    if (t->r->critical >= 0) {
        double y = lane_y(t, t->r->warps[t->r->critical].sm);
        draw_warp(f, t, (uint64_t)t->r->critical, y + t->band * 0.3, t->band * 0.4, true);
    }
}

/* The critical warp outlined, with a label where there is room. */
static void draw_critical(FILE *f, const timeline *t)
{
    if (t->r->critical < 0)
        return;
    const harness_explain_warp *w = &t->r->warps[t->r->critical];
    double y, hgt;
    if (t->buckets) {
        y = lane_y(t, w->sm) + t->band * 0.3;
        hgt = t->band * 0.4;
    } else {
        double sub_h = (t->band - 2) / t->nsub;
        y = lane_y(t, w->sm) + 1 + t->sub[t->r->critical] * sub_h + sub_h * 0.1;
        hgt = sub_h * 0.8;
    }
    double x1 = x_of(t, w->start), x2 = x_of(t, w->finish);
    fprintf(f, "<rect class=\"critical-mark\" x=\"%.3f\" y=\"%.2f\" width=\"%.3f\" height=\"%.2f\" fill=\"none\" "
               "stroke=\"#000000\" stroke-width=\"2\" data-sm=\"%d\" data-start=\"%.10g\" data-finish=\"%.10g\"/>\n",
            x1, y, x2 - x1, hgt, w->sm, w->start, w->finish);
    double size = 10, ty = y + hgt / 2 + size * 0.35;
    if (hgt < size)
        ty = y - 2;   /* above a thin bar */
    svg_label(f, x2 - 4, ty, "end", size,
              "font-weight=\"bold\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\"", "critical");
}

static void draw_reference(FILE *f, const timeline *t)
{
    if (!t->ref || (double)t->ref->cycles > t->xmax || t->ref->cycles == 0)
        return;
    double x = x_of(t, (double)t->ref->cycles);
    fprintf(f, "<line class=\"reference\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444444\" "
               "stroke-width=\"1.2\" stroke-dasharray=\"5,3\" data-cycles=\"%llu\"/>\n",
            x, t->y0 - 6, x, t->y0 + t->h, (unsigned long long)t->ref->cycles);
    char text[64];
    snprintf(text, sizeof text, "reference ends (%llu)", (unsigned long long)t->ref->cycles);
    svg_label(f, x, t->y0 - 9, "middle", 10, NULL, text);
}

static void draw_legend(FILE *f, const timeline *t)
{
    double x = LEFT, y = t->y0 + t->h + AXIS_H + 8;
    svg_label(f, x, y + 10, "start", 11, "font-weight=\"bold\"", "cause:");
    x += 48;
    for (int c = 0; c < SVG_NCAUSES; c++) {
        if (!t->used[c])
            continue;
        fprintf(f, "<rect class=\"legend\" data-cause=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"14\" height=\"12\" "
                   "fill=\"%s\"/>\n",
                svg_cause_name(c), x, y, svg_cause_colour(c));
        svg_label(f, x + 18, y + 10, "start", 11, NULL, svg_cause_name(c));
        x += 30 + 7.0 * (double)strlen(svg_cause_name(c));
    }
    if (t->r->critical >= 0) {
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"14\" height=\"12\" fill=\"none\" stroke=\"#000000\" "
                   "stroke-width=\"2\"/>\n",
                x + 10, y);
        svg_label(f, x + 28, y + 10, "start", 11, NULL, "critical warp (finished last: set the kernel's time)");
    }
}

static void title_text(const timeline *t, char *buf, size_t n)
{
    int k = snprintf(buf, n, "explain: %s, %llu cycles - ", t->kernel, (unsigned long long)t->r->cycles);
    if (k < 0 || (size_t)k >= n)
        return;
    if (t->r->critical < 0) {
        snprintf(buf + k, n - (size_t)k, "no warp ran");
        return;
    }
    const harness_explain_warp *w = &t->r->warps[t->r->critical];
    snprintf(buf + k, n - (size_t)k, "critical warp: warp %d of block (%u,%u,%u) on SM %d, cycles %.0f-%.0f",
             w->warp, w->ctaid[0], w->ctaid[1], w->ctaid[2], w->sm, w->start, w->finish);
}

bool cli_explain_svg_timeline(const char *path, const explain_view *v, const explain_svg_limits *lim, wh_error *err)
{
    timeline t;
    memset(&t, 0, sizeof t);
    t.r = v->in;
    t.ref = v->ref;
    t.kernel = v->spec ? v->spec->name : "kernel";
    lay_out(&t, lim);
    char title[700];
    title_text(&t, title, sizeof title);
    svg_doc d;
    bool ok = svg_open(&d, LEFT + PLOT_W + RIGHT, t.y0 + t.h + AXIS_H + LEGEND_H + 8, title, err);
    if (ok) {
        draw_heading(d.f, &t, title, lim);
        draw_lanes(d.f, &t);
        draw_axis(d.f, &t);
        if (t.buckets)
            draw_buckets(d.f, &t, lim);
        else
            draw_bars(d.f, &t);
        draw_critical(d.f, &t);
        draw_reference(d.f, &t);
        draw_legend(d.f, &t);
        ok = svg_close(&d, path, err);
    }
    free(t.sub);
    free(t.lane_of_sm);
    free(t.sm_of_lane);
    return ok;
}
