/*
 * pwcet_samples.h — reading the samples `warphunt pwcet` analyses.
 */
#ifndef WH_CLI_PWCET_SAMPLES_H
#define WH_CLI_PWCET_SAMPLES_H

#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>

/* One input's samples in the order they were taken. */
typedef struct {
    char name[64];
    double *t;
    size_t n, cap;
    int throttled;      /* samples left out: flagged throttled */
    int faults;         /* ...: a fault, timeout or unsupported instruction */
} pwcet_series;

typedef struct {
    char path[1100];    /* the file read */
    char unit[16];      /* "us", "cycles"; "" for a plain file */
    pwcet_series *series;
    int n;
} pwcet_samples;

/* ARG: a campaign.csv, a campaign directory, a run directory holding
 * campaign/, or a file of one time per line (one series, "samples").
 * Throttled samples are left out unless keep_throttled; faults always.
 * A bad line is an error at file:line. */
bool pwcet_samples_read(const char *arg, bool keep_throttled, pwcet_samples *s, wh_error *err);
void pwcet_samples_free(pwcet_samples *s);

#endif
