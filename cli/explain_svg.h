/*
 * explain_svg.h — `warphunt explain`'s pictures (issue #19), written from
 * the reports explain already has: timeline.svg, SMs x cycles with each
 * warp a bar coloured by the cause that took most of its cycles
 * (explain_svg_timeline.c), and heat.svg, the cycles charged to each
 * source line and what the input adds over its reference
 * (explain_svg_heat.c); PNGs of both, asked for (--png), when a
 * converter is on PATH (explain_svg.c).  Plain SVG 1.1, every element
 * that stands for data carrying a class and data-* attributes, so that
 * tests and users can read the pictures back.
 */
#ifndef WH_CLI_EXPLAIN_SVG_H
#define WH_CLI_EXPLAIN_SVG_H

#include "cli/explain_lines.h"
#include "core/error.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t max_warps;  /* above this many warps the timeline draws time buckets, not a bar per warp */
    int buckets;         /* time buckets per SM then */
    int max_rows;        /* heat.svg's rows at most */
} explain_svg_limits;

/* What explain uses: 4000 warps, 60 buckets, 60 rows. */
explain_svg_limits cli_explain_svg_default_limits(void);

/* One picture into path (written whole through a temporary file); false
 * with err naming the file when it cannot be written. */
bool cli_explain_svg_timeline(const char *path, const explain_view *v, const explain_svg_limits *lim, wh_error *err);
bool cli_explain_svg_heat(const char *path, const explain_view *v, const explain_svg_limits *lim, wh_error *err);

/* timeline.svg and heat.svg into dir; with png, then timeline.png and
 * heat.png through rsvg-convert, or ImageMagick's convert, from PATH (no
 * converter, or one that fails, leaves no PNG and is said, not an error:
 * the SVGs are the report).  What was written is said on log (NULL:
 * nothing is said). */
bool cli_explain_svg_write(const char *dir, const explain_view *v, bool png, FILE *log, wh_error *err);

/* ---- shared by explain_svg*.c --------------------------------------------------- */

/* The causes a warp's cycles go to: harness_stall's five, then issue. */
enum { SVG_CAUSE_ISSUE = HARNESS_NSTALLS, SVG_NCAUSES };

const char *svg_cause_name(int cause);
const char *svg_cause_colour(int cause);
/* A warp's cycles for one cause, and the cause with the most (ties: the
 * first in harness_stall's order, issue last). */
double svg_warp_cause_cycles(const harness_explain_warp *w, int cause);
int svg_warp_cause(const harness_explain_warp *w);

/* A picture built in memory and written whole (svg_close). */
typedef struct {
    FILE *f;
    char *text;
    size_t len;
} svg_doc;

/* XML declaration, <svg> with width, height and viewBox, <title>, a white
 * background, and a group setting the font; false when out of memory. */
bool svg_open(svg_doc *d, double width, double height, const char *title, wh_error *err);
/* Closes the document and writes it to path; frees it either way. */
bool svg_close(svg_doc *d, const char *path, wh_error *err);

/* s as XML text or attribute value: & < > " ' escaped, control
 * characters and bytes that are not UTF-8 as '?'. */
void svg_text(FILE *f, const char *s);
/* ` name="value"` with value escaped */
void svg_attr(FILE *f, const char *name, const char *value);
/* <text> at (x, y) with the anchor and size given, s escaped */
void svg_label(FILE *f, double x, double y, const char *anchor, double size, const char *extra, const char *s);

/* Colours as "#rrggbb" in out (8 bytes): a sequential scale (t in 0..1,
 * pale to dark red) and a diverging one (t in -1..1, blue to white to red). */
void svg_sequential(double t, char *out);
void svg_diverging(double t, char *out);

/* A step of 1, 2 or 5 times a power of ten giving about `ticks` ticks over range. */
double svg_nice_step(double range, int ticks);

/* The last component of a path. */
const char *svg_base_name(const char *path);

#endif
