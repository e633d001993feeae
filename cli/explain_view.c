/*
 * explain_view.c — what `warphunt explain` shows: the ranked lines and the
 * critical warps as a terminal table, as markdown (explain.md) and as
 * JSON (explain.json).  The two tables share their cells.
 */
#include "cli/explain_lines.h"

#include <string.h>

enum { NCOLS = 10, CELL = 64 };

static const char *const col_names[NCOLS] = {
    "rank", "line", "+cycles", "issued in/ref", "lanes", "divergent in/ref", "sectors/req", "bank conflict",
    "atomic wait in/ref", "stall",
};

static const char *by_name(explain_by by)
{
    return by == EXPLAIN_BY_PTX ? "ptx" : "line";
}

/* a path's last component: tables name files short, the JSON in full */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void ratio_cell(char *cell, uint64_t num, uint64_t den)
{
    if (den)
        snprintf(cell, CELL, "%.2f", (double)num / (double)den);
    else
        snprintf(cell, CELL, "-");
}

static void line_cells(const explain_line *l, int rank, char cells[NCOLS][CELL])
{
    const explain_counts *in = &l->in, *ref = &l->ref;
    snprintf(cells[0], CELL, "%d", rank);
    if (l->what)
        snprintf(cells[1], CELL, "%s:%d %.30s", base_name(l->file), l->line, l->what);
    else
        snprintf(cells[1], CELL, "%s:%d", base_name(l->file), l->line);
    snprintf(cells[2], CELL, "%+.0f", l->extra);
    snprintf(cells[3], CELL, "%llu/%llu", (unsigned long long)in->issued, (unsigned long long)ref->issued);
    ratio_cell(cells[4], in->lanes, in->issued);
    if (in->branches || ref->branches)
        snprintf(cells[5], CELL, "%llu/%llu", (unsigned long long)in->divergent, (unsigned long long)ref->divergent);
    else
        snprintf(cells[5], CELL, "-");
    if (in->global_requests || !in->local_requests)
        ratio_cell(cells[6], in->sectors, in->global_requests);
    else {   /* a line of local accesses only: their sectors, marked L */
        ratio_cell(cells[6], in->local_sectors, in->local_requests);
        strcat(cells[6], "L");
    }
    ratio_cell(cells[7], in->wavefronts, in->shared_requests);
    if (in->atomics || ref->atomics)
        snprintf(cells[8], CELL, "%.0f/%.0f", in->atomic_wait, ref->atomic_wait);
    else
        snprintf(cells[8], CELL, "-");
    int s = cli_explain_dominant_stall(in);
    snprintf(cells[9], CELL, "%s", s >= 0 ? harness_stall_name((harness_stall)s) : "-");
}

static int shown(const explain_view *v)
{
    return v->top < (int)v->lines->n ? v->top : (int)v->lines->n;
}

/* "warp 3 of block (5,0,0) on SM 5, cycles 150-1836: memory 61%, pipe 20%, issue 9%" */
static void critical_text(const harness_explain_report *r, char *buf, size_t n)
{
    if (r->critical < 0) {
        snprintf(buf, n, "none (no warp ran)");
        return;
    }
    const harness_explain_warp *w = &r->warps[r->critical];
    double life = w->finish - w->start;
    size_t k = (size_t)snprintf(buf, n, "warp %d of block (%u,%u,%u) on SM %d, cycles %.0f-%.0f", w->warp,
                                w->ctaid[0], w->ctaid[1], w->ctaid[2], w->sm, w->start, w->finish);
    bool used[HARNESS_NSTALLS] = { false };
    for (int shown_causes = 0; shown_causes < 3 && life > 0 && k < n; shown_causes++) {
        int best = -1;
        for (int s = 0; s < HARNESS_NSTALLS; s++)
            if (!used[s] && w->stall[s] > 0 && (best < 0 || w->stall[s] > w->stall[best]))
                best = s;
        if (best < 0)
            break;
        used[best] = true;
        k += (size_t)snprintf(buf + k, n - k, "%s %s %.0f%%", shown_causes ? "," : ":",
                              harness_stall_name((harness_stall)best), 100.0 * w->stall[best] / life);
    }
    if (life > 0 && k < n)
        snprintf(buf + k, n - k, "; issue %.0f%%", 100.0 * w->issue_cycles / life);
}

static void run_text(FILE *f, const char *md, const char *label, const char *source,
                     const harness_explain_report *r)
{
    fprintf(f, "%s%-10s %s: %llu cycles, %llu warp instructions, %s\n", md, label, source,
            (unsigned long long)r->cycles, (unsigned long long)r->warp_instructions, harness_status_name(r->status));
    if (r->status != HARNESS_OK)
        fprintf(f, "%s  (the run stopped: %s; its counts go up to there)\n", md, r->message);
}

static void header(FILE *f, const explain_view *v, const char *md)
{
    fprintf(f, "%sexplain: %s (%s) on %s\n", md, v->spec->name, v->spec->path, v->device);
    run_text(f, md, "input", v->input, v->in);
    run_text(f, md, "reference", v->reference, v->ref);
    if (v->ref->cycles) {
        /* three decimals near 1: inputs 0.4 % apart read "1x" with %.3g */
        double ratio = (double)v->in->cycles / (double)v->ref->cycles;
        fprintf(f, ratio >= 0.1 && ratio < 10 ? "%sthe input takes %.3fx the reference's time (%+lld cycles)\n"
                                              : "%sthe input takes %.3gx the reference's time (%+lld cycles)\n",
                md, ratio, (long long)v->in->cycles - (long long)v->ref->cycles);
    }
}

static void criticals(FILE *f, const explain_view *v, const char *md)
{
    char buf[512];
    critical_text(v->in, buf, sizeof buf);
    fprintf(f, "%scritical warp of the input (it finished last): %s\n", md, buf);
    critical_text(v->ref, buf, sizeof buf);
    fprintf(f, "%scritical warp of the reference: %s\n", md, buf);
}

static const char *table_title(const explain_view *v)
{
    return v->by == EXPLAIN_BY_PTX ? "PTX lines" : "source lines";
}

void cli_explain_print_text(FILE *f, const explain_view *v)
{
    header(f, v, "");
    fprintf(f, "top %d %s by warp-cycles added over the reference (issue + stalls, %s):\n", shown(v),
            table_title(v), v->critical ? "the critical warp's against the reference's" : "summed over warps");
    static const int width[NCOLS] = { 4, -34, 10, 15, 6, 16, 11, 13, 19, 0 };   /* the last unpadded */
    for (int c = 0; c < NCOLS; c++)
        fprintf(f, "%s%*s", c ? " " : "  ", width[c], col_names[c]);
    fputc('\n', f);
    for (int i = 0; i < shown(v); i++) {
        char cells[NCOLS][CELL];
        line_cells(&v->lines->v[i], i + 1, cells);
        for (int c = 0; c < NCOLS; c++)
            fprintf(f, "%s%*s", c ? " " : "  ", width[c], cells[c]);
        fputc('\n', f);
    }
    criticals(f, v, "");
}

void cli_explain_print_markdown(FILE *f, const explain_view *v)
{
    fprintf(f, "# explain: %s\n\n", v->spec->name);
    header(f, v, "- ");
    fprintf(f, "\n## Top %d %s by warp-cycles added over the reference%s\n\n", shown(v), table_title(v),
            v->critical ? " (the critical warps alone)" : "");
    for (int c = 0; c < NCOLS; c++)
        fprintf(f, "| %s ", col_names[c]);
    fputs("|\n", f);
    for (int c = 0; c < NCOLS; c++)
        fputs(c < 2 || c == NCOLS - 1 ? "|---" : "|---:", f);
    fputs("|\n", f);
    for (int i = 0; i < shown(v); i++) {
        char cells[NCOLS][CELL];
        line_cells(&v->lines->v[i], i + 1, cells);
        for (int c = 0; c < NCOLS; c++)
            fprintf(f, "| %s ", cells[c]);
        fputs("|\n", f);
    }
    fputs("\n## Critical warps\n\n", f);
    criticals(f, v, "- ");
}

/* ---- JSON ------------------------------------------------------------------------- */

static json_t *stalls_json(const double *stall)
{
    json_t *o = json_object();
    for (int s = 0; s < HARNESS_NSTALLS; s++)
        json_object_set_new(o, harness_stall_name((harness_stall)s), json_real(stall[s]));
    return o;
}

static json_t *ratio_json(uint64_t num, uint64_t den)
{
    return den ? json_real((double)num / (double)den) : json_null();
}

static json_t *counts_json(const explain_counts *c)
{
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f}", "issued", (json_int_t)c->issued,
                          "lanes", (json_int_t)c->lanes, "branches", (json_int_t)c->branches, "divergent",
                          (json_int_t)c->divergent, "global_requests", (json_int_t)c->global_requests, "sectors",
                          (json_int_t)c->sectors, "shared_requests", (json_int_t)c->shared_requests, "wavefronts",
                          (json_int_t)c->wavefronts, "atomics", (json_int_t)c->atomics, "atomic_wait",
                          c->atomic_wait, "issue_cycles", c->issue_cycles);
    json_object_set_new(o, "avg_lanes", ratio_json(c->lanes, c->issued));
    json_object_set_new(o, "sectors_per_request", ratio_json(c->sectors, c->global_requests));
    json_object_set_new(o, "local_requests", json_integer((json_int_t)c->local_requests));
    json_object_set_new(o, "local_sectors", json_integer((json_int_t)c->local_sectors));
    json_object_set_new(o, "local_sectors_per_request", ratio_json(c->local_sectors, c->local_requests));
    json_object_set_new(o, "conflict_degree", ratio_json(c->wavefronts, c->shared_requests));
    json_object_set_new(o, "stall", stalls_json(c->stall));
    json_object_set_new(o, "cycles", json_real(cli_explain_cycles(c)));
    int s = cli_explain_dominant_stall(c);
    json_object_set_new(o, "dominant_stall", s >= 0 ? json_string(harness_stall_name((harness_stall)s)) : json_null());
    return o;
}

static json_t *warp_json(const harness_explain_warp *w)
{
    json_t *o = json_pack("{s:i, s:I, s:[i,i,i], s:i, s:f, s:f, s:I, s:f}", "sm", w->sm, "block",
                          (json_int_t)w->block, "ctaid", (int)w->ctaid[0], (int)w->ctaid[1], (int)w->ctaid[2],
                          "warp", w->warp, "start", w->start, "finish", w->finish, "issued", (json_int_t)w->issued,
                          "issue_cycles", w->issue_cycles);
    json_object_set_new(o, "stall", stalls_json(w->stall));
    return o;
}

static json_t *run_json(const char *source, const harness_explain_report *r)
{
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I}", "source", source, "status", harness_status_name(r->status),
                          "cycles", (json_int_t)r->cycles, "warp_instructions", (json_int_t)r->warp_instructions,
                          "lane_instructions", (json_int_t)r->lane_instructions);
    if (r->status != HARNESS_OK)
        json_object_set_new(o, "message", json_string(r->message));
    json_object_set_new(o, "critical", r->critical >= 0 ? warp_json(&r->warps[r->critical]) : json_null());
    json_t *warps = json_array(), *sms = json_array();
    for (uint64_t i = 0; i < r->nwarps; i++)
        json_array_append_new(warps, warp_json(&r->warps[i]));
    for (int i = 0; i < r->nsms; i++)
        json_array_append_new(sms, json_real(r->sm_finish[i]));
    json_object_set_new(o, "warps", warps);
    json_object_set_new(o, "sm_finish", sms);
    return o;
}

static json_t *line_json(const explain_line *l)
{
    json_t *o = json_pack("{s:s, s:i, s:f}", "file", l->file, "line", l->line, "extra_cycles", l->extra);
    if (l->what)
        json_object_set_new(o, "what", json_string(l->what));
    json_object_set_new(o, "input", counts_json(&l->in));
    json_object_set_new(o, "reference", counts_json(&l->ref));
    return o;
}

json_t *cli_explain_json(const explain_view *v)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < v->lines->n; i++)
        json_array_append_new(rows, line_json(&v->lines->v[i]));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:b, s:o, s:o, s:o}", "kernel", v->spec->name, "spec",
                     v->spec->path, "device", v->device, "unit", "cycles", "by", by_name(v->by), "top", v->top,
                     "critical", v->critical, "input", run_json(v->input, v->in), "reference",
                     run_json(v->reference, v->ref), "rows", rows);
}
