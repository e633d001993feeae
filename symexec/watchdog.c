/*
 * watchdog.c — a hard bound on each solver call.
 *
 * Z3's "timeout" parameter only covers a check itself, and not every part
 * of it: pushing a scope onto the incremental solver internalizes the
 * constraints asserted since the last one, and on array-heavy paths (a
 * binary search over symbolic sorted keys) that alone ran 20 s and more
 * against a 5 s query limit, so `explore --time 10` took a minute.  The
 * watchdog is a thread of the engine that calls Z3_interrupt on the
 * context when a call it was armed for runs past its deadline; the caller
 * then treats the call as a give-up and rebuilds the solver (solver.c).
 *
 * It bounds Z3's memory the same way: while armed it looks every 50 ms at
 * what Z3 has allocated (Z3_get_estimated_alloc_size) and interrupts the
 * call past the limit.  Z3's own memory_max_size is no use here: past it
 * Z3 throws out of memory deep inside, and a context is not safe to use
 * (or even reset) afterwards; an interrupt is a clean unknown.
 */
#include "symexec/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct sx_watchdog {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    Z3_context c;
    struct timespec deadline;   /* CLOCK_MONOTONIC */
    uint64_t mem_limit;         /* bytes of Z3 allocations; 0: none */
    bool armed, quit;
    sx_cut fired;
};

/* How often an armed watchdog looks at Z3's memory. */
#define WATCH_MEMORY_MS 50

static bool past(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static struct timespec after_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static bool earlier(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

bool sx_z3_memory_over(uint64_t limit)
{
    return limit > 0 && Z3_get_estimated_alloc_size() > limit;
}

static void *watch(void *arg)
{
    sx_watchdog *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->quit) {
        /* fired: nothing to do until the next arm (no spinning on a past
         * deadline) */
        if (!w->armed || w->fired) {
            pthread_cond_wait(&w->cv, &w->mu);
            continue;
        }
        struct timespec wake = w->deadline;
        if (w->mem_limit) {
            struct timespec look = after_ms(WATCH_MEMORY_MS);
            if (earlier(&look, &wake)) wake = look;
        }
        pthread_cond_timedwait(&w->cv, &w->mu, &wake);
        /* go by the clock, not by ETIMEDOUT: the wait may have timed out on
         * the deadline of a call that was disarmed and re-armed meanwhile
         * (it fired the next, 60 s call under AddressSanitizer) */
        if (!w->armed || w->fired) continue;
        if (past(&w->deadline)) w->fired = SX_CUT_TIME;
        else if (sx_z3_memory_over(w->mem_limit)) w->fired = SX_CUT_MEMORY;
        if (w->fired) Z3_interrupt(w->c);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

sx_watchdog *sx_watchdog_new(Z3_context c, uint64_t mem_limit)
{
    sx_watchdog *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->c = c;
    w->mem_limit = mem_limit;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    bool ok = pthread_mutex_init(&w->mu, NULL) == 0 && pthread_cond_init(&w->cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (!ok || pthread_create(&w->thread, NULL, watch, w) != 0) {
        free(w);
        return NULL;   /* no watchdog: Z3's own timeouts only */
    }
    return w;
}

void sx_watchdog_free(sx_watchdog *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

void sx_watchdog_arm(sx_watchdog *w, unsigned ms)
{
    if (!w)
        return;
    struct timespec t = after_ms((long)ms);
    pthread_mutex_lock(&w->mu);
    w->deadline = t;
    w->armed = true;
    w->fired = SX_CUT_NONE;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

sx_cut sx_watchdog_disarm(sx_watchdog *w)
{
    if (!w)
        return SX_CUT_NONE;
    pthread_mutex_lock(&w->mu);
    sx_cut fired = w->fired;
    w->armed = false;
    w->fired = SX_CUT_NONE;
    pthread_mutex_unlock(&w->mu);
    return fired;
}
