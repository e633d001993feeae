/*
 * hash.h — FNV-1a 64, the one hash of the project: spec and PTX identities
 * (run.json, the explore cache key, bench_corpus's reuse stamps) and the
 * binary's build id.  Not cryptographic: it names versions of files.
 */
#ifndef WH_CORE_HASH_H
#define WH_CORE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WH_FNV_OFFSET 1469598103934665603ULL

uint64_t wh_fnv1a(uint64_t h, const void *data, size_t n);
/* Continue h over a file's bytes; *ok (when given) says whether it was read. */
uint64_t wh_fnv1a_file(uint64_t h, const char *path, bool *ok);
/* 16 lower-case hex digits and a NUL. */
void wh_hash_hex(uint64_t h, char out[17]);
/* The hex FNV-1a of a file, "" when it cannot be read. */
void wh_file_hash_hex(const char *path, char out[17]);

#endif
