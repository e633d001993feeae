/*
 * pwcet_samples.c — the samples `warphunt pwcet` analyses: a campaign's
 * campaign.csv (one series per input, flagged samples left out and
 * counted) or a plain file of one time per line (`replay --csv`, or the
 * text chronovise and MBPTA-CV read).
 */
#include "cli/pwcet_samples.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"

#define CAMPAIGN_HEADER "input,run,seq,time,unit,"
#define MAX_FIELDS 16

static pwcet_series *series_named(pwcet_samples *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->series[i].name, name))
            return &s->series[i];
    s->series = wh_xrealloc(s->series, (size_t)(s->n + 1) * sizeof *s->series);
    pwcet_series *p = &s->series[s->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    return p;
}

static bool series_add(pwcet_series *p, double t, wh_error *err)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        double *t2 = realloc(p->t, cap * sizeof *t2);
        if (!t2) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "out of memory for %zu samples of %s", cap, p->name);
            return false;
        }
        p->t = t2;
        p->cap = cap;
    }
    p->t[p->n++] = t;
    return true;
}

/* Split a CSV line in place (RFC 4180 quotes, as wh_csv_text writes them). */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    char *r = line, *w = line;
    while (n < max) {
        fields[n++] = w;
        bool quoted = *r == '"';
        if (quoted) r++;
        for (;;) {
            if (quoted && *r == '"' && r[1] == '"') { *w++ = '"'; r += 2; }
            else if (quoted && *r == '"') { quoted = false; r++; }
            else if (!quoted && (*r == ',' || *r == '\0' || *r == '\n' || *r == '\r')) break;
            else *w++ = *r++;
        }
        char end = *r;
        *w++ = '\0';
        if (end != ',') break;
        r++;
    }
    return n;
}

static bool parse_time(const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') end++;
    return end != text && *end == '\0' && errno == 0 && isfinite(*out);
}

static bool campaign_row(pwcet_samples *s, char *line, const char *path, long lineno, bool keep_throttled,
                         wh_error *err)
{
    char *f[MAX_FIELDS];
    int nf = split_csv(line, f, MAX_FIELDS);
    if (nf < 10) {
        wh_error_set(err, WH_ERR_USER, path, (int)lineno, 0, "%d fields where a campaign row has 10", nf);
        return false;
    }
    pwcet_series *p = series_named(s, f[0]);
    if (!s->unit[0]) snprintf(s->unit, sizeof s->unit, "%s", f[4]);
    const char *flags = f[9];
    if (!strcmp(flags, "throttled") && !keep_throttled) {
        p->throttled++;
        return true;
    }
    if (flags[0] && strcmp(flags, "throttled")) {
        p->faults++;
        return true;
    }
    double t;
    if (!parse_time(f[3], &t)) {
        wh_error_set(err, WH_ERR_USER, path, (int)lineno, 0, "time '%s' is not a finite number", f[3]);
        return false;
    }
    return series_add(p, t, err);
}

static bool plain_row(pwcet_samples *s, const char *line, const char *path, long lineno, wh_error *err)
{
    const char *q = line;
    while (*q == ' ' || *q == '\t') q++;
    if (*q == '\0' || *q == '\n' || *q == '\r' || *q == '#')
        return true;
    double t;
    if (!parse_time(q, &t)) {
        wh_error_set(err, WH_ERR_USER, path, (int)lineno, 0,
                     "expected one time per line (or a campaign.csv with its header), got '%.40s'", q);
        return false;
    }
    return series_add(series_named(s, "samples"), t, err);
}

/* DIR -> DIR/campaign.csv, or DIR/campaign/campaign.csv (a run directory). */
static void resolve(const char *arg, char *path, size_t n)
{
    struct stat st;
    snprintf(path, n, "%s", arg);
    if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    snprintf(path, n, "%s/campaign.csv", arg);
    if (stat(path, &st) != 0)
        snprintf(path, n, "%s/campaign/campaign.csv", arg);
}

bool pwcet_samples_read(const char *arg, bool keep_throttled, pwcet_samples *s, wh_error *err)
{
    memset(s, 0, sizeof *s);
    resolve(arg, s->path, sizeof s->path);
    FILE *f = fopen(s->path, "r");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "cannot read: %s (expected a campaign.csv, a campaign "
                     "directory or a file of one time per line)", strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    bool ok = true, campaign = false;
    while (ok && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (lineno == 1 && !strncmp(line, CAMPAIGN_HEADER, strlen(CAMPAIGN_HEADER))) {
            campaign = true;
            continue;
        }
        ok = campaign ? campaign_row(s, line, s->path, lineno, keep_throttled, err)
                      : plain_row(s, line, s->path, lineno, err);
    }
    free(line);
    fclose(f);
    if (ok && s->n == 0) {
        wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "no samples");
        ok = false;
    }
    if (!ok) pwcet_samples_free(s);
    return ok;
}

void pwcet_samples_free(pwcet_samples *s)
{
    for (int i = 0; s->series && i < s->n; i++)
        free(s->series[i].t);
    free(s->series);
    s->series = NULL;
    s->n = 0;
}
