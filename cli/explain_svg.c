/*
 * explain_svg.c — what explain's two pictures share (causes and their
 * colours, colour scales, XML text, writing a document whole) and the
 * step that writes both into explain's directory and, asked to (--png),
 * turns them into PNGs when a converter is on PATH.  PNGs are asked for,
 * not made whenever a converter is there: ImageMagick 6 renders SVG with
 * its own MSVG (2 s for a small heat.svg here, and it gives up on the
 * timeline's class attributes after 7 s), too slow for every explain and
 * for the one each hunt on the sim runs.  The pictures themselves are in
 * explain_svg_timeline.c and explain_svg_heat.c.
 */
#include "cli/explain_svg.h"

#include "core/results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

explain_svg_limits cli_explain_svg_default_limits(void)
{
    /* 4000 bars of about 300 bytes keep timeline.svg near 1 MB; above
     * that, buckets bound it by SMs x 60 cells of about 200 bytes (1.3 MB
     * for 108 SMs) whatever the launch. */
    return (explain_svg_limits){ .max_warps = 4000, .buckets = 60, .max_rows = 60 };
}

/* ---- causes ------------------------------------------------------------------------ */

const char *svg_cause_name(int cause)
{
    return cause == SVG_CAUSE_ISSUE ? "issue" : harness_stall_name((harness_stall)cause);
}

/* Okabe-Ito's colours, which colour-blind readers tell apart; issue (work
 * done) green, memory the warm vermillion that draws the eye. */
const char *svg_cause_colour(int cause)
{
    static const char *const colour[SVG_NCAUSES] = { "#d55e00", "#0072b2", "#e69f00", "#cc79a7", "#56b4e9",
                                                      "#009e73" };
    return cause >= 0 && cause < SVG_NCAUSES ? colour[cause] : "#999999";
}

double svg_warp_cause_cycles(const harness_explain_warp *w, int cause)
{
    return cause == SVG_CAUSE_ISSUE ? w->issue_cycles : w->stall[cause];
}

int svg_warp_cause(const harness_explain_warp *w)
{
    int best = 0;
    for (int c = 1; c < SVG_NCAUSES; c++)
        if (svg_warp_cause_cycles(w, c) > svg_warp_cause_cycles(w, best))
            best = c;
    return best;
}

/* ---- XML ----------------------------------------------------------------------------- */

/* Bytes of the UTF-8 character at p that XML accepts, 0 when it is not one
 * (a bad sequence, an overlong form, a surrogate, U+FFFE/U+FFFF). */
static size_t utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3 : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0) ||
                   (p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE)))
        return 0;
    if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90)))
        return 0;
    return n;
}

void svg_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_len(p);
        if (n > 1) {
            fwrite(p, 1, n, f);
            p += n;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(n == 0 || *p < 0x20 || *p == 0x7f ? '?' : *p, f); break;
        }
        p++;
    }
}

void svg_attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    svg_text(f, value);
    fputc('"', f);
}

void svg_label(FILE *f, double x, double y, const char *anchor, double size, const char *extra, const char *s)
{
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\" font-size=\"%.1f\"%s%s>", x, y, anchor, size,
            extra ? " " : "", extra ? extra : "");
    svg_text(f, s);
    fputs("</text>\n", f);
}

bool svg_open(svg_doc *d, double width, double height, const char *title, wh_error *err)
{
    d->text = NULL;
    d->len = 0;
    d->f = open_memstream(&d->text, &d->len);
    if (!d->f) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for a picture");
        return false;
    }
    fprintf(d->f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\">\n<title>",
            width, height, width, height);
    svg_text(d->f, title);
    /* presentation attributes, not CSS: every converter reads them */
    fprintf(d->f, "</title>\n<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                  "fill=\"#ffffff\"/>\n<g font-family=\"DejaVu Sans, Arial, sans-serif\" fill=\"#222222\">\n",
            width, height);
    return true;
}

bool svg_close(svg_doc *d, const char *path, wh_error *err)
{
    fputs("</g>\n</svg>\n", d->f);
    bool ok = !ferror(d->f);
    if (fclose(d->f) != 0 || !ok || !d->text) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot write: out of memory");
        ok = false;
    } else {
        ok = wh_write_text_atomic(path, d->text, err);
    }
    free(d->text);
    d->text = NULL;
    d->f = NULL;
    return ok;
}

/* ---- colour scales ------------------------------------------------------------------- */

static void mix(const unsigned char (*stops)[3], int nstops, double t, char *out)
{
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double pos = t * (nstops - 1);
    int i = (int)pos;
    if (i >= nstops - 1)
        i = nstops - 2;
    double u = pos - i;
    int rgb[3];
    for (int k = 0; k < 3; k++)
        rgb[k] = (int)lround(stops[i][k] + u * (stops[i + 1][k] - stops[i][k]));
    snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* ColorBrewer's YlOrRd: ordered by lightness, so it reads in grey too */
void svg_sequential(double t, char *out)
{
    static const unsigned char stops[][3] = { { 255, 255, 204 }, { 254, 217, 118 }, { 253, 141, 60 },
                                              { 227, 26, 28 },   { 128, 0, 38 } };
    mix(stops, 5, t, out);
}

/* ColorBrewer's RdBu, red for cycles the input adds */
void svg_diverging(double t, char *out)
{
    static const unsigned char stops[][3] = { { 33, 102, 172 }, { 146, 197, 222 }, { 247, 247, 247 },
                                              { 244, 165, 130 }, { 178, 24, 43 } };
    mix(stops, 5, (t + 1) / 2, out);
}

double svg_nice_step(double range, int ticks)
{
    if (!(range > 0))
        return 1;
    double raw = range / ticks, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

const char *svg_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- PNG through a converter --------------------------------------------------------- */

/* name's path in a directory of PATH, when it is there and executable */
static bool find_on_path(const char *name, char *out, size_t n)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len + strlen(name) + 2 <= n) {
            snprintf(out, n, "%.*s/%s", (int)len, path, name);
            if (access(out, X_OK) == 0)
                return true;
        }
        path += len + (path[len] == ':');
    }
    return false;
}

/* Waits for pid up to a minute: a converter stuck on a picture must not
 * hang explain (or the hunt that ran it).  true when it exited 0. */
static bool wait_converter(pid_t pid)
{
    struct timespec nap = { 0, 5 * 1000 * 1000 };
    for (int waited = 0; waited < 12000; waited++) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (r < 0 && errno != EINTR)
            return false;
        nanosleep(&nap, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return false;
}

/* tool svg -> png, its output discarded; true when png was made */
static bool convert_png(const char *tool, bool rsvg, const char *svg, const char *png)
{
    unlink(png);   /* no stale picture beside a new SVG */
    char *const rsvg_argv[] = { (char *)tool, "-o", (char *)png, (char *)svg, NULL };
    char *const im_argv[] = { (char *)tool, (char *)svg, (char *)png, NULL };
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return false;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    bool ok = posix_spawn(&pid, tool, &fa, NULL, rsvg ? rsvg_argv : im_argv, environ) == 0 && wait_converter(pid);
    posix_spawn_file_actions_destroy(&fa);
    struct stat st;
    ok = ok && stat(png, &st) == 0 && st.st_size > 0;
    if (!ok)
        unlink(png);
    return ok;
}

/* timeline.png and heat.png; says what became of them on log */
static void write_pngs(const char *dir, FILE *log)
{
    char tool[4096];
    bool rsvg = find_on_path("rsvg-convert", tool, sizeof tool);
    if (!rsvg && !find_on_path("convert", tool, sizeof tool)) {
        if (log)
            fprintf(log, "explain: no PNG: neither rsvg-convert nor convert (ImageMagick) is on PATH\n");
        return;
    }
    static const char *const names[] = { "timeline", "heat" };
    for (int i = 0; i < 2; i++) {
        char svg[1300], png[1300];
        snprintf(svg, sizeof svg, "%s/%s.svg", dir, names[i]);
        snprintf(png, sizeof png, "%s/%s.png", dir, names[i]);
        bool made = convert_png(tool, rsvg, svg, png);
        if (log && made)
            fprintf(log, "explain: wrote %s (%s)\n", png, svg_base_name(tool));
        else if (log)
            fprintf(log, "explain: no %s.png: %s failed on %s (not an error)\n", names[i], tool, svg);
    }
}

bool cli_explain_svg_write(const char *dir, const explain_view *v, bool png, FILE *log, wh_error *err)
{
    explain_svg_limits lim = cli_explain_svg_default_limits();
    char timeline[1300], heat[1300];
    snprintf(timeline, sizeof timeline, "%s/timeline.svg", dir);
    snprintf(heat, sizeof heat, "%s/heat.svg", dir);
    if (!cli_explain_svg_timeline(timeline, v, &lim, err) || !cli_explain_svg_heat(heat, v, &lim, err))
        return false;
    if (log)
        fprintf(log, "explain: wrote %s and %s\n", timeline, heat);
    if (png)
        write_pngs(dir, log);
    return true;
}
