/*
 * fuzz_file.h — for the fuzz harnesses whose target reads a file: the
 * input bytes written to a per-process temporary path.
 */
#ifndef WH_TESTS_FUZZ_FILE_H
#define WH_TESTS_FUZZ_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* Write data to /tmp/wh_fuzz_<what>_<pid>.<ext>; path receives the name. */
static inline bool fuzz_write_temp(const char *what, const char *ext, const void *data, size_t size, char *path,
                                   size_t n)
{
    snprintf(path, n, "/tmp/wh_fuzz_%s_%ld.%s", what, (long)getpid(), ext);
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

#endif
