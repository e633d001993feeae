/*
 * explain_gpu.c — the GPU's times of explain's two inputs beside the
 * sim's, and whether they rank the two alike (explain_gpu.h).
 */
#include "cli/explain_gpu.h"

#include <math.h>
#include <string.h>

explain_order cli_explain_sim_order(double in_cycles, double ref_cycles)
{
    double hi = fmax(in_cycles, ref_cycles);
    if (hi <= 0 || fabs(in_cycles - ref_cycles) <= EXPLAIN_SIM_TIE * hi) return EXPLAIN_ORDER_TIE;
    return in_cycles > ref_cycles ? EXPLAIN_ORDER_INPUT_SLOWER : EXPLAIN_ORDER_REFERENCE_SLOWER;
}

explain_order cli_explain_gpu_order(const wh_rank_test *t)
{
    switch (cli_paired_verdict(t, EXPLAIN_GPU_ALPHA)) {
    case PAIRED_A_SLOWER: return EXPLAIN_ORDER_INPUT_SLOWER;
    case PAIRED_B_SLOWER: return EXPLAIN_ORDER_REFERENCE_SLOWER;
    default: return EXPLAIN_ORDER_TIE;
    }
}

const char *cli_explain_order_key(explain_order o)
{
    static const char *const keys[] = { "tie", "input_slower", "reference_slower" };
    return keys[o];
}

bool cli_explain_gpu_measure(const wh_spec *spec, wh_image *in, wh_image *ref, const harness_options *ho,
                             int rounds, double sim_in, double sim_ref, explain_gpu *out, wh_error *err)
{
    memset(out, 0, sizeof *out);
    out->in = (paired_side){ .label = "input", .img = in };
    out->ref = (paired_side){ .label = "reference", .img = ref };
    out->rounds = rounds;
    out->sim_in = sim_in;
    out->sim_ref = sim_ref;
    harness *h = harness_open(spec, HARNESS_CUDA, ho, err);
    if (!h) return false;
    snprintf(out->device, sizeof out->device, "%s", harness_device(h));
    out->unit = harness_unit(h);
    bool ok = cli_paired_measure(h, &out->in, &out->ref, rounds, "explain on the GPU", &out->test, err);
    harness_close(h);
    out->gpu = cli_explain_gpu_order(&out->test);
    out->sim = cli_explain_sim_order(sim_in, sim_ref);
    return ok;
}

void cli_explain_gpu_free(explain_gpu *g)
{
    cli_paired_free(&g->in);
    cli_paired_free(&g->ref);
}

static const char *order_words(explain_order o)
{
    static const char *const words[] = { "neither is slower", "the input is slower", "the reference is slower" };
    return words[o];
}

void cli_explain_gpu_print(FILE *f, const explain_gpu *g, const char *bullet)
{
    fprintf(f, "%sthe GPU, %s, %d rounds each, interleaved: input median %.4g %s, reference %.4g %s", bullet,
            g->device, g->rounds, g->in.st.median, g->unit, g->ref.st.median, g->unit);
    if (g->ref.st.median > 0) fprintf(f, " (%.3gx)", g->in.st.median / g->ref.st.median);
    fprintf(f, "; A12 %.3f, Mann-Whitney p %.3g: %s\n", g->test.a12, g->test.p_value, order_words(g->gpu));
    fprintf(f, "%sthe sim: input %.0f cycles, reference %.0f", bullet, g->sim_in, g->sim_ref);
    if (g->sim_ref > 0) fprintf(f, " (%.3gx)", g->sim_in / g->sim_ref);
    fprintf(f, ": %s\n", order_words(g->sim));
    if (g->gpu == g->sim)
        fprintf(f, "%sthe GPU and the sim rank the two alike\n", bullet);
    else
        fprintf(f, "%sthe GPU and the sim DISAGREE: on the GPU %s, on the sim %s; the lines above are the sim's "
                   "model and may not say what makes this input slow on this GPU\n",
                bullet, order_words(g->gpu), order_words(g->sim));
}

json_t *cli_explain_gpu_json(const explain_gpu *g)
{
    return json_pack("{s:s, s:s, s:i, s:o, s:o, s:f, s:f, s:s, s:s, s:f, s:f, s:b}", "device", g->device, "unit",
                     g->unit, "rounds", g->rounds, "input", cli_paired_side_json(&g->in, false),
                     "reference", cli_paired_side_json(&g->ref, false), "a12",
                     g->test.a12, "p_value", g->test.p_value, "gpu_order", cli_explain_order_key(g->gpu),
                     "sim_order", cli_explain_order_key(g->sim), "sim_input_cycles", g->sim_in,
                     "sim_reference_cycles", g->sim_ref, "agree", g->gpu == g->sim);
}
