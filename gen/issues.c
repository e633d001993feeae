/*
 * issues.c — the symbolic stage's issues as concrete findings.
 *
 * An issue (an access that may leave its buffer, a brx.idx index past its
 * list) comes with the model the search found for its condition.  That
 * input is written into an X-thread image, like an atom's, and replayed on
 * the sim; what happens there (a fault naming thread, address and buffer,
 * or a run that ends normally because the model only makes the access
 * possible on another path) is saved with the input under the cache
 * entry's issues/issue-K-STATUS/, from where `hunt` copies each one that
 * faulted or hung into its findings/.
 */
#include "core/results.h"
#include "gen/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replay issue k's input; write it and what happened under dir.  Returns
 * the sim's status, or -1 when the issue has no input or the sim fails. */
static int replay_issue(harness *h, const wh_spec *spec, const sx_result *sx, int k, int x, const char *dir,
                        wh_error *err)
{
    wh_launch l = wh_launch_threads((unsigned)x);
    wh_image *img = wh_image_new(spec, &l, err);
    if (!img)
        return -1;
    harness_result res;
    int status = -1;
    if (sx_issue_image(sx, k, img, err) && harness_measure(h, img, 1, &res, err)) {
        status = res.status;
        char sub[1200], path[1300], text[4096];
        snprintf(sub, sizeof sub, "%s/issue-%d-%s", dir, k, harness_status_name(res.status));
        snprintf(path, sizeof path, "%s/message.txt", sub);
        const sx_issue *is = &sx->issues[k];
        snprintf(text, sizeof text, "%s: %s\nsymbolic stage (PTX line %d%s%s): %s\ninput: %s\ncondition: %s\n",
                 harness_status_name(res.status), res.status == HARNESS_OK ? "the input ran to its end on the sim"
                                                                            : res.message,
                 is->line, is->source ? ", CUDA source " : "", is->source ? is->source : "", is->message,
                 is->model ? is->model : "-", is->condition ? is->condition : "-");
        if (!wh_image_save(img, sub, err) || !wh_write_text_atomic(path, text, err))
            status = -1;
        harness_result_free(&res);
    }
    wh_image_free(img);
    return status;
}

int gen_replay_issues(const wh_spec *spec, const sx_result *sx, const char *dir, bool quiet, wh_error *err)
{
    int with_input = 0;
    for (int k = 0; k < sx->nissues; k++)
        with_input += sx->issues[k].values != NULL;
    if (!with_input)
        return 0;
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.step_limit = GEN_VALIDATE_STEP_LIMIT;
    harness *h = harness_open(spec, HARNESS_SIM, &o, err);
    if (!h)
        return -1;
    int confirmed = 0;
    for (int k = 0; k < sx->nissues; k++) {
        if (!sx->issues[k].values)
            continue;
        wh_error ierr;
        wh_error_clear(&ierr);
        int st = replay_issue(h, spec, sx, k, sx->threads, dir, &ierr);
        confirmed += st == HARNESS_FAULT || st == HARNESS_TIMEOUT;
        if (!quiet && st != HARNESS_OK)
            fprintf(stderr, "explore: issue %d (%s) %s on the sim with its input%s%s\n", k, sx->issues[k].message,
                    st < 0 ? "could not be replayed" : st == HARNESS_FAULT ? "faults" : st == HARNESS_TIMEOUT
                    ? "hangs" : "stops", st < 0 ? ": " : "", st < 0 ? ierr.msg : "");
    }
    harness_close(h);
    return confirmed;
}
