/*
 * results.c — run directories, atomic writes, history CSV, gnuplot plots.
 */
#include "core/results.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

bool wh_make_dirs(const char *dir, wh_error *err)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        wh_error_set(err, WH_ERR_USER, dir, 0, 0, "path too long");
        return false;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) break;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        wh_error_set(err, WH_ERR_USER, dir, 0, 0, "cannot create directory: %s", strerror(errno));
        return false;
    }
    return true;
}

bool wh_results_make_run_dir(const char *base, const char *kernel, const char *stem, char *out,
                             size_t size, wh_error *err)
{
    char parent[1024];
    snprintf(parent, sizeof parent, "%s/%s", base, kernel);
    if (!wh_make_dirs(parent, err)) return false;
    for (int n = 1; n < 10000; n++) {
        if (n == 1) snprintf(out, size, "%s/%s", parent, stem);
        else snprintf(out, size, "%s/%s-%d", parent, stem, n);
        if (mkdir(out, 0777) == 0) return true;
        if (errno != EEXIST) {
            wh_error_set(err, WH_ERR_USER, out, 0, 0, "cannot create the run directory: %s", strerror(errno));
            return false;
        }
    }
    wh_error_set(err, WH_ERR_USER, parent, 0, 0, "too many runs named %s", stem);
    return false;
}

bool wh_write_file_atomic(const char *path, const void *data, size_t size, wh_error *err)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot write: %s", strerror(errno));
        remove(tmp);
    }
    return ok;
}

bool wh_write_text_atomic(const char *path, const char *text, wh_error *err)
{
    return wh_write_file_atomic(path, text, strlen(text), err);
}

json_t *wh_read_json(const char *path, const char *context, wh_error *err)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc)
        wh_error_set(err, WH_ERR_USER, path, jerr.line > 0 ? jerr.line : 0, 0, "%s%s%s", context ? context : "",
                     context ? ": " : "", jerr.text);
    return doc;
}

bool wh_write_json_atomic(const char *path, json_t *doc, wh_error *err)
{
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    if (!text) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot encode JSON");
        return false;
    }
    size_t n = strlen(text);
    char *withnl = realloc(text, n + 2);
    if (withnl) {
        text = withnl;
        text[n] = '\n';
        text[n + 1] = '\0';
    }
    bool ok = wh_write_text_atomic(path, text, err);
    free(text);
    return ok;
}

bool wh_history_open(wh_history *h, const char *path, bool append, wh_error *err)
{
    snprintf(h->path, sizeof h->path, "%s", path);
    struct stat st;
    bool fresh = !append || stat(path, &st) != 0 || st.st_size == 0;
    h->f = fopen(path, append ? "a" : "w");
    if (!h->f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot open: %s", strerror(errno));
        return false;
    }
    if (fresh) {
        fprintf(h->f, "eval,generation,wall_s,fitness,best,status\n");
        fflush(h->f);
    }
    return true;
}

void wh_history_row(wh_history *h, long eval, int generation, double wall_s, double fitness, double best,
                    const char *status)
{
    if (!h->f) return;
    errno = 0;
    if ((fprintf(h->f, "%ld,%d,%.6f,%.9g,%.9g,%s\n", eval, generation, wall_s, fitness, best, status) < 0 ||
         fflush(h->f) != 0) && !h->error)
        h->error = errno ? errno : EIO;
}

bool wh_history_ok(const wh_history *h, wh_error *err)
{
    if (!h->error) return true;
    wh_error_set(err, WH_ERR_USER, h->path, 0, 0, "cannot write the history: %s", strerror(h->error));
    return false;
}

/* A lock file holds its owner's pid: the messages of those who find it
 * taken name the process. */
static void lock_owner(int fd, char owner[32])
{
    ssize_t n = pread(fd, owner, 31, 0);
    owner[n > 0 ? n : 0] = '\0';
    owner[strcspn(owner, "\n")] = '\0';
}

static void lock_claim(int fd)
{
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
        /* the lock holds without the pid; only the message would lack it */
    }
}

static int lock_open(const char *path, wh_error *err)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot create the lock: %s", strerror(errno));
    return fd;
}

int wh_run_dir_lock(const char *dir, wh_error *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/.lock", dir);
    int fd = lock_open(path, err);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char owner[32];
        lock_owner(fd, owner);
        wh_error_set(err, WH_ERR_USER, dir, 0, 0, "the run directory is in use by another warphunt process%s%s%s; "
                     "wait for it to end or give another directory", owner[0] ? " (pid " : "", owner,
                     owner[0] ? ")" : "");
        close(fd);
        return -1;
    }
    lock_claim(fd);
    return fd;
}

int wh_file_lock_wait(const char *path, const char *waiting_for, bool quiet, wh_error *err)
{
    int fd = lock_open(path, err);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char owner[32];
        lock_owner(fd, owner);
        if (!quiet)
            fprintf(stderr, "warphunt: waiting for another warphunt process%s%s%s %s\n", owner[0] ? " (pid " : "",
                    owner, owner[0] ? ")" : "", waiting_for);
        if (flock(fd, LOCK_EX) != 0) { /* EINTR: Ctrl-C while waiting */
            wh_error_set(err, WH_ERR_USER, path, 0, 0, "stopped while waiting for the lock: %s", strerror(errno));
            close(fd);
            return -1;
        }
    }
    lock_claim(fd);
    return fd;
}

void wh_run_dir_unlock(int fd, const char *dir)
{
    if (fd < 0) return;
    char path[1100];
    snprintf(path, sizeof path, "%s/.lock", dir);
    unlink(path);
    close(fd);
}

void wh_history_close(wh_history *h)
{
    if (h->f) fclose(h->f);
    h->f = NULL;
}

bool wh_history_truncate(const char *path, long max_eval, wh_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in) return true; /* nothing measured yet */
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    char line[4096];
    bool ok = out != NULL, header = true;
    while (ok && fgets(line, sizeof line, in)) {
        if (!header && strtol(line, NULL, 10) > max_eval) continue;
        header = false;
        ok = fputs(line, out) >= 0;
    }
    fclose(in);
    if (out && fclose(out) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        remove(tmp);
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot rewrite the history: %s", strerror(errno));
    }
    return ok;
}

static bool have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char buf[1024];
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)len, path);
        if (access(buf, X_OK) == 0) return true;
        path = colon ? colon + 1 : NULL;
    }
    return false;
}

/* The path from any directory: plot.gp can be rendered from anywhere. */
void wh_absolute_path(const char *path, char *out, size_t n)
{
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd)) snprintf(out, n, "%s", path);
    else snprintf(out, n, "%s/%s", cwd, path);
}

void wh_gnuplot_quote(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void plot_panel(FILE *f, const wh_plot_curve *curves, int n, int xcol)
{
    fprintf(f, "plot ");
    for (int i = 0; i < n; i++) {
        if (i) fprintf(f, ", \\\n     ");
        char csv[PATH_MAX + 1100];
        wh_absolute_path(curves[i].csv, csv, sizeof csv);
        wh_gnuplot_quote(f, csv);
        fprintf(f, " using %d:5 with steps lw 2 title ", xcol);
        wh_gnuplot_quote(f, curves[i].title);
    }
    fprintf(f, "\n");
}

bool wh_plot_convergence(const char *out_stem, const char *title, const char *unit,
                         const wh_plot_curve *curves, int ncurves, bool *rendered, wh_error *err)
{
    char gp[1100], stem[PATH_MAX + 1100], svg[PATH_MAX + 1200];
    snprintf(gp, sizeof gp, "%s.gp", out_stem);
    wh_absolute_path(out_stem, stem, sizeof stem);
    snprintf(svg, sizeof svg, "%s.svg", stem);
    *rendered = false;
    FILE *f = fopen(gp, "w");
    if (!f) {
        wh_error_set(err, WH_ERR_INTERNAL, gp, 0, 0, "cannot write: %s", strerror(errno));
        return false;
    }
    fprintf(f, "# best-so-far kernel time; render with: gnuplot %s.gp\n", stem);
    /* a white background (a transparent one turns black when converted);
     * names as written: in enhanced mode an underscore is a subscript */
    fprintf(f, "set terminal svg size 1100,450 dynamic font 'sans,11' background rgb 'white'\n"
               "set termoption noenhanced\nset output ");
    wh_gnuplot_quote(f, svg);
    fprintf(f, "\nset datafile separator ','\nset key bottom right\nset grid\n");
    fprintf(f, "set multiplot layout 1,2 title ");
    wh_gnuplot_quote(f, title);
    fprintf(f, "\nset xlabel 'evaluations'\nset ylabel 'best kernel time (%s)'\n", unit);
    plot_panel(f, curves, ncurves, 1);
    fprintf(f, "set xlabel 'seconds'\n");
    plot_panel(f, curves, ncurves, 3);
    fprintf(f, "unset multiplot\n");
    if (fclose(f) != 0) {
        wh_error_set(err, WH_ERR_INTERNAL, gp, 0, 0, "cannot write");
        return false;
    }
    *rendered = wh_plot_render(gp);
    return true;
}

bool wh_plot_render(const char *gp)
{
    if (!have_gnuplot()) return false;
    pid_t pid = fork();
    if (pid == 0) {
        FILE *devnull = freopen("/dev/null", "w", stderr);
        (void)devnull;
        execlp("gnuplot", "gnuplot", gp, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool wh_copy_file(const char *src, const char *dst, wh_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", dst);
    FILE *in = fopen(src, "rb");
    FILE *out = in ? fopen(tmp, "wb") : NULL;
    char buf[65536];
    size_t n;
    bool ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in && ferror(in))
        ok = false;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    if (ok && rename(tmp, dst) != 0)
        ok = false;
    if (!ok) {
        remove(tmp);
        wh_error_set(err, WH_ERR_INTERNAL, dst, 0, 0, "cannot copy %s here", src);
    }
    return ok;
}

bool wh_link_or_copy_file(const char *src, const char *dst, wh_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", dst);
    remove(tmp);
    if (link(src, tmp) == 0) {
        if (rename(tmp, dst) == 0) return true;
        remove(tmp);
    }
    return wh_copy_file(src, dst, err);
}

void wh_csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
