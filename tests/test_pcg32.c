/*
 * test_pcg32.c — PCG32 against the reference outputs of pcg32-demo
 * (pcg-c-basic, seed 42, sequence 54), plus properties of the helpers.
 */
#include <criterion/criterion.h>

#include "core/pcg32.h"

#include <string.h>

Test(pcg32, demo_round1_32bit)
{
    static const uint32_t expect[6] = { 0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                        0x83d2f293u, 0xbfa4784bu, 0xcbed606eu };
    pcg32 rng;
    pcg32_seed(&rng, 42u, 54u);
    for (int i = 0; i < 6; i++) cr_expect_eq(pcg32_next(&rng), expect[i], "output %d", i);
}

/* The demo continues with 65 coin flips and 33 die rolls from the same
 * stream (after re-seeding, as its "Again" line shows the six again). */
Test(pcg32, demo_round1_coins_and_rolls)
{
    static const char coins[] = "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT";
    static const int rolls[33] = { 3, 4, 1, 1, 2, 2, 3, 2, 4, 3, 2, 4, 3, 3, 5, 2, 3,
                                   1, 3, 1, 5, 1, 4, 1, 5, 6, 4, 6, 6, 2, 6, 3, 3 };
    pcg32 rng;
    pcg32_seed(&rng, 42u, 54u);
    for (int i = 0; i < 6; i++) pcg32_next(&rng);
    char got[66];
    for (int i = 0; i < 65; i++) got[i] = pcg32_bounded(&rng, 2) ? 'H' : 'T';
    got[65] = '\0';
    cr_expect_str_eq(got, coins);
    for (int i = 0; i < 33; i++) cr_expect_eq((int)pcg32_bounded(&rng, 6) + 1, rolls[i], "roll %d", i);
}

Test(pcg32, copies_fork_identical_streams)
{
    pcg32 a, b;
    pcg32_seed(&a, 7, 9);
    for (int i = 0; i < 10; i++) pcg32_next(&a);
    b = a;
    for (int i = 0; i < 100; i++) cr_assert_eq(pcg32_next(&a), pcg32_next(&b));
}

Test(pcg32, streams_differ)
{
    pcg32 a, b;
    pcg32_seed(&a, 1, 1);
    pcg32_seed(&b, 1, 2);
    int same = 0;
    for (int i = 0; i < 100; i++) same += pcg32_next(&a) == pcg32_next(&b);
    cr_expect_lt(same, 3);
}

Test(pcg32, bounded_stays_in_range_and_hits_every_value)
{
    pcg32 rng;
    pcg32_seed(&rng, 3, 4);
    int seen[7] = { 0 };
    for (int i = 0; i < 7000; i++) {
        uint32_t v = pcg32_bounded(&rng, 7);
        cr_assert_lt(v, 7u);
        seen[v]++;
    }
    for (int v = 0; v < 7; v++) cr_expect_gt(seen[v], 800, "value %d seen %d times", v, seen[v]);
    cr_expect_eq(pcg32_bounded(&rng, 0), 0u);
}

Test(pcg32, range_i64_inclusive_and_extreme_bounds)
{
    pcg32 rng;
    pcg32_seed(&rng, 5, 6);
    bool lo = false, hi = false;
    for (int i = 0; i < 2000; i++) {
        int64_t v = pcg32_range_i64(&rng, -3, 3);
        cr_assert(v >= -3 && v <= 3);
        lo |= v == -3;
        hi |= v == 3;
    }
    cr_expect(lo && hi, "both ends of [-3, 3] are reachable");
    /* The full signed range must not overflow. */
    for (int i = 0; i < 100; i++) (void)pcg32_range_i64(&rng, INT64_MIN, INT64_MAX);
    cr_expect_eq(pcg32_range_i64(&rng, 10, 10), 10);
}

Test(pcg32, double_in_unit_interval)
{
    pcg32 rng;
    pcg32_seed(&rng, 11, 12);
    double sum = 0;
    for (int i = 0; i < 10000; i++) {
        double d = pcg32_double(&rng);
        cr_assert(d >= 0.0 && d < 1.0);
        sum += d;
    }
    cr_expect(sum / 10000 > 0.48 && sum / 10000 < 0.52, "mean %f", sum / 10000);
}
