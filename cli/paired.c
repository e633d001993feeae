/*
 * paired.c — two inputs measured interleaved on one harness and ranked
 * (paired.h).
 */
#include "cli/paired.h"

#include <stdlib.h>

/* One run of s's input in round `round`. */
static bool measure_once(harness *h, const char *who, paired_side *s, int round, wh_error *err)
{
    harness_result r;
    if (!harness_measure(h, s->img, 1, &r, err)) return false;
    bool ok = r.status == HARNESS_OK && r.reps == 1;
    if (ok)
        s->times[round] = r.times[0];
    else /* the kernel failed where it ran: exit 2, as for a device failure */
        wh_error_set(err, WH_ERR_DEVICE, s->dir, 0, 0, "%s: %s, round %d: %s: %s", who, s->label, round + 1,
                     harness_status_name(r.status), r.message);
    harness_result_free(&r);
    return ok;
}

static bool alloc_times(paired_side *s, int rounds, wh_error *err)
{
    free(s->times);
    s->times = calloc((size_t)rounds, sizeof *s->times);
    if (!s->times) wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for %d times", rounds);
    return s->times != NULL;
}

bool cli_paired_measure(harness *h, paired_side *a, paired_side *b, int rounds, const char *who, wh_rank_test *t,
                        wh_error *err)
{
    if (!alloc_times(a, rounds, err) || !alloc_times(b, rounds, err)) return false;
    for (int k = 0; k < rounds; k++)
        if (!measure_once(h, who, a, k, err) || !measure_once(h, who, b, k, err)) return false;
    if (!wh_summarize(a->times, rounds, &a->st) || !wh_summarize(b->times, rounds, &b->st) ||
        !wh_rank_test_run(a->times, rounds, b->times, rounds, t)) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "%s: out of memory for the rank test", who);
        return false;
    }
    return true;
}

json_t *cli_paired_side_json(const paired_side *s, bool with_dir)
{
    json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f}", "mean", s->st.mean, "median", s->st.median, "min", s->st.min,
                          "max", s->st.max, "stddev", s->st.stddev);
    if (with_dir) json_object_set_new(o, "input", json_string(s->dir));
    return o;
}

void cli_paired_free(paired_side *s)
{
    free(s->times);
    s->times = NULL;
}

paired_verdict cli_paired_verdict(const wh_rank_test *t, double alpha)
{
    if (!(t->p_value < alpha) || t->a12 == 0.5) return PAIRED_NO_DIFFERENCE;
    return t->a12 > 0.5 ? PAIRED_A_SLOWER : PAIRED_B_SLOWER;
}

const char *cli_paired_verdict_key(paired_verdict v)
{
    static const char *const keys[] = { "no_difference", "a_slower", "b_slower" };
    return keys[v];
}
