/*
 * results.h — writing what a run found: run directories, atomic JSON
 * files, the evaluation history, and gnuplot plots; reading its JSON back.
 *
 * A run writes results/<kernel>/<run-id>/.  Everything that a reader might
 * see half-written (run.json, checkpoints) is written to a temporary file
 * and renamed; the history CSV is appended and flushed row by row, so a
 * killed run keeps every evaluation it measured.
 */
#ifndef WH_CORE_RESULTS_H
#define WH_CORE_RESULTS_H

#include "core/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Create (with parents) a fresh run directory <base>/<kernel>/<stem>, adding
 * "-2", "-3", ... if it exists.  `out` receives the path. */
bool wh_results_make_run_dir(const char *base, const char *kernel, const char *stem, char *out,
                             size_t size, wh_error *err);
/* mkdir -p. */
bool wh_make_dirs(const char *dir, wh_error *err);
/* Write JSON (indented, keys in insertion order) atomically. */
bool wh_write_json_atomic(const char *path, json_t *doc, wh_error *err);
bool wh_write_text_atomic(const char *path, const char *text, wh_error *err);
/* Copy file src to dst through dst.tmp and a rename (no half-written dst). */
bool wh_copy_file(const char *src, const char *dst, wh_error *err);
/* dst as a second name of src's file (a hard link, through dst.tmp and a
 * rename) where both are on one file system and it allows links, else a
 * copy (wh_copy_file).  Only for a src that is replaced by renames, never
 * rewritten in place: dst keeps the contents it had. */
bool wh_link_or_copy_file(const char *src, const char *dst, wh_error *err);
bool wh_write_file_atomic(const char *path, const void *data, size_t size, wh_error *err);
/* One CSV field: quoted (RFC 4180) only when it holds a comma, a quote or
 * a line break, so that plain fields read as they are. */
void wh_csv_text(FILE *f, const char *s);
/* Load a JSON file.  A failure is a user error at path and line, its
 * message led by "context: " where context is not NULL. */
json_t *wh_read_json(const char *path, const char *context, wh_error *err);

/* The evaluation history: one row per evaluation. */
typedef struct {
    FILE *f;
    char path[1024];
    int error;          /* errno of the first failed write, 0 while all succeed */
} wh_history;

bool wh_history_open(wh_history *h, const char *path, bool append, wh_error *err);
void wh_history_row(wh_history *h, long eval, int generation, double wall_s, double fitness,
                    double best, const char *status);
void wh_history_close(wh_history *h);
/* false (err says why) once a row could not be written (a full disk...). */
bool wh_history_ok(const wh_history *h, wh_error *err);

/* An exclusive lock on a run directory (DIR/.lock holding the owner's pid),
 * so two runs, or a resume of a running one, never write it at once.
 * Returns the lock's descriptor, or -1 (err names the directory and the
 * owner) when another process holds it. */
int wh_run_dir_lock(const char *dir, wh_error *err);
void wh_run_dir_unlock(int fd, const char *dir);
/* An exclusive lock on the file at path (created, holding the owner's
 * pid), waiting for another process that holds it: on stderr, unless
 * quiet, "waiting for another warphunt process (pid N) <waiting_for>".
 * The file stays (a waiter may hold it open); close the descriptor to
 * release.  -1 (err) when it cannot be created or the wait is
 * interrupted (Ctrl-C). */
int wh_file_lock_wait(const char *path, const char *waiting_for, bool quiet, wh_error *err);
/* Keep the header and the rows whose evaluation is <= max_eval (a resumed
 * run measures again what its checkpoint did not include). */
bool wh_history_truncate(const char *path, long max_eval, wh_error *err);

/* One curve of best-so-far against evaluations or seconds, read from a
 * history CSV, for plots that compare several runs. */
typedef struct {
    const char *csv;    /* history.csv */
    const char *title;  /* legend */
} wh_plot_curve;

/* Writes <out_stem>.gp and, when gnuplot is installed, renders
 * <out_stem>.svg: best-so-far against evaluations (left) and seconds
 * (right).  Returns false only on a write error; a missing gnuplot is
 * reported in *rendered = false. */
bool wh_plot_convergence(const char *out_stem, const char *title, const char *unit,
                         const wh_plot_curve *curves, int ncurves, bool *rendered, wh_error *err);
/* Run gnuplot on a script; false when gnuplot is missing or failed. */
bool wh_plot_render(const char *gp_path);
/* A string as a gnuplot literal ("..." with \ and " escaped). */
void wh_gnuplot_quote(FILE *f, const char *s);
/* path made absolute against the working directory (plots rendered from anywhere). */
void wh_absolute_path(const char *path, char *out, size_t n);

#endif
