/*
 * alloc.h — the one allocation-failure policy.
 *
 * Two kinds of memory, two answers when it runs out:
 *
 *   - Memory whose size the user's input sets (input images and their
 *     buffers, the sim's global, shared and local memory, populations and
 *     atom pools) is allocated with plain malloc/calloc and checked: a
 *     failure is a wh_error that names what was being allocated and how
 *     much, so the user learns which field or option asked for too much,
 *     and a hunt records it and writes its results.
 *   - Everything else (IR arrays, names, stacks, work lists: small, and
 *     bounded by the program rather than chosen by the user) goes through
 *     wh_xmalloc and friends, which never return NULL: on failure they
 *     print "warphunt: out of memory (N bytes)" and exit with status 2
 *     (an internal failure), instead of every caller inventing its own
 *     unwinding for a case that cannot be recovered from anyway.
 *
 * A zero size allocates one byte, so a NULL return never means "empty".
 */
#ifndef WH_CORE_ALLOC_H
#define WH_CORE_ALLOC_H

#include <stddef.h>

_Noreturn void wh_out_of_memory(size_t bytes);

void *wh_xmalloc(size_t size);
void *wh_xcalloc(size_t n, size_t size);
void *wh_xrealloc(void *p, size_t size);
char *wh_xstrdup(const char *s);

#endif
