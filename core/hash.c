/*
 * hash.c — FNV-1a 64 over bytes and files.
 */
#include "core/hash.h"

#include <stdio.h>

uint64_t wh_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

uint64_t wh_fnv1a_file(uint64_t h, const char *path, bool *ok)
{
    FILE *f = fopen(path, "rb");
    if (ok) *ok = f != NULL;
    if (!f) return h;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = wh_fnv1a(h, buf, n);
    if (ferror(f) && ok) *ok = false;
    fclose(f);
    return h;
}

void wh_hash_hex(uint64_t h, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void wh_file_hash_hex(const char *path, char out[17])
{
    bool ok;
    uint64_t h = wh_fnv1a_file(WH_FNV_OFFSET, path, &ok);
    if (ok) wh_hash_hex(h, out);
    else out[0] = '\0';
}
