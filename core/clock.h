/*
 * clock.h — the wall clock every stage times itself with.
 */
#ifndef WH_CORE_CLOCK_H
#define WH_CORE_CLOCK_H

/* Seconds of CLOCK_MONOTONIC (an arbitrary origin; differences only). */
double wh_clock_s(void);

#endif
