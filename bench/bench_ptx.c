/*
 * bench_ptx.c — speed of the PTX front end (lexing, parsing, decoding, CFG,
 * dominators, loops) on every .ptx under build/ptx/.
 *
 * Files are read into memory first; then rounds parse every file once from
 * memory until about one second has passed (at least 3 rounds).  Prints
 * MB/s and instructions/s for each file and overall.  Usage:
 *   bench_ptx [DIR] [SECONDS]      (defaults: build/ptx, 1)
 * Exits 0, also when there is nothing to parse (it says so).
 */
#include "core/clock.h"
#include "ptx/ptx.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    char *path;
    char *text;
    size_t len;
    long instrs;
    double secs;
    long parses;
} item;

static item *items;
static int nitems, capitems;

static void add_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n <= 0) {
        fclose(f);
        return;
    }
    char *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return;
    }
    fclose(f);
    if (nitems == capitems) {
        capitems = capitems ? capitems * 2 : 64;
        items = realloc(items, sizeof(item) * (size_t)capitems);
        if (!items) exit(2);
    }
    item *it = &items[nitems++];
    memset(it, 0, sizeof *it);
    it->path = strdup(path);
    it->text = buf;
    it->len = (size_t)n;
}

static void walk(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d || depth > 8) {
        if (d) closedir(d);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(path, depth + 1);
        } else {
            size_t l = strlen(e->d_name);
            if (l > 4 && !strcmp(e->d_name + l - 4, ".ptx")) add_file(path);
        }
    }
    closedir(d);
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const item *)a)->path, ((const item *)b)->path);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "build/ptx";
    double budget = argc > 2 ? atof(argv[2]) : 1.0;
    if (budget <= 0) budget = 1.0;
    walk(dir, 0);
    if (nitems == 0) {
        printf("bench_ptx: no .ptx file under %s (run `make ptx`); nothing to measure\n", dir);
        return 0;
    }
    qsort(items, (size_t)nitems, sizeof(item), by_path);

    /* one checked pass: count instructions, drop files that do not parse */
    for (int i = 0; i < nitems; i++) {
        wh_error e;
        wh_error_clear(&e);
        ptx_module *m = ptx_parse_buffer(items[i].text, items[i].len, items[i].path, &e);
        if (!m) {
            char buf[2048];
            wh_error_format(&e, buf, sizeof buf);
            printf("bench_ptx: skipping %s\n", buf);
            items[i].instrs = -1;
            continue;
        }
        for (int f = 0; f < m->nfuncs; f++) items[i].instrs += m->funcs[f].ninstrs;
        ptx_module_free(m);
    }

    double start = wh_clock_s();
    int rounds = 0;
    while (rounds < 3 || wh_clock_s() - start < budget) {
        for (int i = 0; i < nitems; i++) {
            if (items[i].instrs < 0) continue;
            double t0 = wh_clock_s();
            ptx_module *m = ptx_parse_buffer(items[i].text, items[i].len, items[i].path, NULL);
            ptx_module_free(m);
            items[i].secs += wh_clock_s() - t0;
            items[i].parses++;
        }
        rounds++;
    }

    printf("%-52s %10s %8s %10s %12s\n", "file", "bytes", "instrs", "MB/s", "instrs/s");
    double tot_bytes = 0, tot_instrs = 0, tot_secs = 0;
    for (int i = 0; i < nitems; i++) {
        const item *it = &items[i];
        if (it->instrs < 0 || it->secs <= 0) continue;
        double per = it->secs / (double)it->parses;
        printf("%-52s %10zu %8ld %10.1f %12.0f\n", it->path, it->len, it->instrs, (double)it->len / per / 1e6,
               (double)it->instrs / per);
        tot_bytes += (double)it->len * (double)it->parses;
        tot_instrs += (double)it->instrs * (double)it->parses;
        tot_secs += it->secs;
    }
    if (tot_secs > 0)
        printf("overall: %d files, %d rounds in %.2f s: %.1f MB/s, %.0f instructions/s\n", nitems, rounds, tot_secs,
               tot_bytes / tot_secs / 1e6, tot_instrs / tot_secs);
    for (int i = 0; i < nitems; i++) {
        free(items[i].path);
        free(items[i].text);
    }
    free(items);
    return 0;
}
