/*
 * explain_lines.h — `warphunt explain`'s pieces (cli/explain_*.c): the
 * rows of two explained runs (an input and its reference) joined by
 * source line or PTX line and ranked by the cycles the input adds, and
 * the views of them (terminal table, explain.md, explain.json).
 */
#ifndef WH_CLI_EXPLAIN_LINES_H
#define WH_CLI_EXPLAIN_LINES_H

#include "core/spec.h"
#include "harness/harness.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum { EXPLAIN_BY_LINE, EXPLAIN_BY_PTX } explain_by;

/* harness_explain_row's counters, summed over the rows of one line */
typedef harness_explain_counts explain_counts;

typedef struct {
    char *file;          /* CUDA source path; the PTX file for --by ptx or a row without .loc */
    int line;
    char *what;          /* --by ptx: "opcode (function)"; NULL otherwise */
    explain_counts in, ref;
    double extra;        /* warp-cycles the input spends here beyond the reference's */
} explain_line;

typedef struct {
    explain_line *v;
    size_t n;
} explain_lines;

/* Join the rows of the input's and the reference's reports by line and
 * rank them by extra cycles (largest first; ties in file and line order).
 * ptx_name names rows without a source line and every row of --by ptx. */
void cli_explain_lines(const harness_explain_report *in, const harness_explain_report *ref, explain_by by,
                         const char *ptx_name, explain_lines *out);
void cli_explain_lines_free(explain_lines *l);

/* issue + every stall: the warp-cycles charged to a line */
double cli_explain_cycles(const explain_counts *c);
/* the stall cause with the most cycles, -1 when there are none */
int cli_explain_dominant_stall(const explain_counts *c);

/* What the views show: both runs, the ranked lines, how many of them. */
typedef struct {
    const wh_spec *spec;
    const char *device;
    const char *input;          /* the input's directory */
    const char *reference;      /* the reference's directory, or "random (seed N)" */
    const harness_explain_report *in, *ref;
    const explain_lines *lines;
    explain_by by;
    int top;
    bool critical;              /* the rows are each run's critical warp's alone */
} explain_view;

void cli_explain_print_text(FILE *f, const explain_view *v);
void cli_explain_print_markdown(FILE *f, const explain_view *v);
json_t *cli_explain_json(const explain_view *v);

#endif
