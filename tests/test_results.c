/*
 * test_results.c — run directories, atomic JSON, history rows and plots.
 */
#include <criterion/criterion.h>

#include "core/results.h"
#include "tests/support.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void tmpdir(char *dir)
{
    strcpy(dir, "/tmp/wh_res_XXXXXX");
    cr_assert(mkdtemp(dir));
}

Test(results, run_dirs_never_collide)
{
    char base[64], a[1024], b[1024];
    wh_error err;
    tmpdir(base);
    cr_assert(wh_results_make_run_dir(base, "artificial", "gdivan-s1", a, sizeof a, &err), "%s", err.msg);
    cr_assert(wh_results_make_run_dir(base, "artificial", "gdivan-s1", b, sizeof b, &err), "%s", err.msg);
    cr_expect(strstr(a, "/artificial/gdivan-s1"));
    cr_expect(strstr(b, "/artificial/gdivan-s1-2"), "%s", b);
    ts_rmtree(base);
}

Test(results, json_and_history_are_complete_files)
{
    char base[64], path[1100];
    wh_error err;
    tmpdir(base);
    snprintf(path, sizeof path, "%s/run.json", base);
    json_t *doc = json_pack("{s:s, s:f}", "strategy", "gdivan", "best", 1.5);
    cr_assert(wh_write_json_atomic(path, doc, &err), "%s", err.msg);
    json_decref(doc);
    cr_expect(strstr(ts_read_text(path), "\"strategy\": \"gdivan\""));
    snprintf(path, sizeof path, "%s/run.json.tmp", base);
    cr_expect_neq(access(path, F_OK), 0, "no temporary left behind");

    wh_history h;
    snprintf(path, sizeof path, "%s/history.csv", base);
    cr_assert(wh_history_open(&h, path, false, &err));
    wh_history_row(&h, 1, 0, 0.5, 10, 10, "ok");
    wh_history_row(&h, 2, 0, 0.75, 12, 12, "ok");
    wh_history_close(&h);
    cr_assert(wh_history_open(&h, path, true, &err), "append for --resume");
    wh_history_row(&h, 3, 1, 1.0, 11, 12, "fault");
    wh_history_close(&h);
    cr_expect_str_eq(ts_read_text(path), "eval,generation,wall_s,fitness,best,status\n"
                                  "1,0,0.500000,10,10,ok\n2,0,0.750000,12,12,ok\n3,1,1.000000,11,12,fault\n");
    cr_assert(wh_history_truncate(path, 2, &err), "%s", err.msg);
    cr_expect_str_eq(ts_read_text(path), "eval,generation,wall_s,fitness,best,status\n"
                                  "1,0,0.500000,10,10,ok\n2,0,0.750000,12,12,ok\n");
    ts_rmtree(base);
}

Test(results, plot_script_names_every_curve)
{
    char base[64], stem[1100], csv[1100];
    wh_error err;
    tmpdir(base);
    snprintf(csv, sizeof csv, "%s/history.csv", base);
    wh_history h;
    cr_assert(wh_history_open(&h, csv, false, &err));
    for (int i = 1; i <= 5; i++) wh_history_row(&h, i, 0, 0.1 * i, i, i, "ok");
    wh_history_close(&h);
    snprintf(stem, sizeof stem, "%s/plot", base);
    wh_plot_curve curves[2] = { { csv, "gdivan" }, { csv, "random \"quoted\"" } };
    bool rendered;
    cr_assert(wh_plot_convergence(stem, "artificial", "cycles", curves, 2, &rendered, &err), "%s", err.msg);
    char gp[1200];
    snprintf(gp, sizeof gp, "%s.gp", stem);
    const char *text = ts_read_text(gp);
    cr_expect(strstr(text, "title \"gdivan\""));
    cr_expect(strstr(text, "random \\\"quoted\\\""));
    if (rendered) {
        snprintf(gp, sizeof gp, "%s.svg", stem);
        cr_expect(strstr(ts_read_text(gp), "<svg"), "gnuplot rendered an SVG");
    } else {
        cr_log_warn("gnuplot not installed: plot script written, SVG not rendered");
    }
    ts_rmtree(base);
}

/* A plot written from a relative directory renders from any directory,
 * on white, with underscores in names as written (not subscripts). */
Test(results, plot_script_renders_anywhere_with_names_as_written)
{
    char base[64], cwd[1024], cmd[1400];
    wh_error err;
    tmpdir(base);
    cr_assert(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(base), 0);
    wh_history h;
    cr_assert(wh_history_open(&h, "history.csv", false, &err));
    for (int i = 1; i <= 5; i++) wh_history_row(&h, i, 0, 0.1 * i, i, i, "ok");
    wh_history_close(&h);
    wh_plot_curve curve = { "history.csv", "gdivan_s1" };
    bool rendered;
    bool ok = wh_plot_convergence("plot", "spmv_scalar", "cycles", &curve, 1, &rendered, &err);
    cr_assert_eq(chdir(cwd), 0);
    cr_assert(ok, "%s", err.msg);
    char gp[1200], svg[1200];
    snprintf(gp, sizeof gp, "%s/plot.gp", base);
    snprintf(svg, sizeof svg, "%s/plot.svg", base);
    const char *text = ts_read_text(gp);
    char want[1200];
    snprintf(want, sizeof want, "\"%s/history.csv\"", base);
    cr_expect(strstr(text, want), "the data file by its absolute path: %s", text);
    cr_expect(strstr(text, "noenhanced"));
    cr_expect(strstr(text, "background rgb 'white'"));
    if (!rendered) {
        cr_log_warn("gnuplot not installed: plot script checked, not rendered");
        ts_rmtree(base);
        return;
    }
    remove(svg);
    snprintf(cmd, sizeof cmd, "cd / && gnuplot '%s' 2>/dev/null", gp);
    cr_expect_eq(system(cmd), 0, "renders from another directory");
    const char *pic = ts_read_text(svg);
    cr_expect(strstr(pic, "fill=\"#ffffff\""), "a white background");
    cr_expect(strstr(pic, "spmv_scalar") && strstr(pic, "gdivan_s1"), "names as written");
    ts_rmtree(base);
}

