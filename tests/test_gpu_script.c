/*
 * test_gpu_script.c — bench/gpu.sh, the campaign a session lent a GPU runs,
 * dry-run against the fake CUDA driver: every step runs and reports, the
 * summary has a row per bundled kernel, compare writes its table, and the
 * fake's figures never land in results/gpu.  This checks the script, not
 * the GPU code (the fake runs unknown kernels as empty ones, so every
 * output check differs, as the summary must say).
 */
#include <criterion/criterion.h>

#include "tests/support.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The test runner's build tree, relative to the repository root if inside. */
static void build_dir(char *out, size_t n)
{
    char exe[PATH_MAX], cwd[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert(k > 0);
    exe[k] = 0;
    const char *dir = dirname(exe);
    cr_assert(getcwd(cwd, sizeof cwd));
    size_t lc = strlen(cwd);
    if (!strncmp(dir, cwd, lc) && dir[lc] == '/') dir += lc + 1;
    snprintf(out, n, "%s", dir);
}

/* The build tree and its fake libcuda; the test is skipped without it. */
static void fake_driver(char *build, size_t nb, char *lib, size_t nl)
{
    build_dir(build, nb);
    snprintf(lib, nl, "%s/libfakecuda.so", build);
    struct stat st;
    if (stat(lib, &st) != 0) cr_skip_test("%s not built (make test builds it)", lib);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s is missing", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int run_script(const char *build, const char *lib, const char *out, const char *log)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL BUILD='%s' JOBS=2 WARPHUNT_LIBCUDA='%s' "
             "WH_FAKECUDA_ANY_KERNEL=1 %s%s%s COMPARE_ARGS='--evals 30 --seeds 1' "
             "bash bench/gpu.sh --skip-tests --reps 3 >'%s' 2>&1",
             build, lib, out ? "GPU_OUT='" : "", out ? out : "", out ? "'" : "", log);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "gpu.sh did not exit");
    return WEXITSTATUS(st);
}

Test(gpu_script, dry_run_against_the_fake_driver, .timeout = 600)
{
    char build[PATH_MAX], lib[PATH_MAX + 32];
    fake_driver(build, sizeof build, lib, sizeof lib);
    char dir[] = "/tmp/wh_gpush_XXXXXX";
    cr_assert(mkdtemp(dir));
    char out[PATH_MAX], log[PATH_MAX], summary[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/log", dir);

    /* Without GPU_OUT the fake's figures are refused, not written to results/gpu. */
    cr_expect_eq(run_script(build, lib, NULL, log), 2);
    cr_expect(strstr(slurp(log), "is not a GPU"), "%s", slurp(log));

    /* With it, every step runs: exit 1 because every check differs. */
    cr_expect_eq(run_script(build, lib, out, log), 1, "%s", slurp(log));
    snprintf(summary, sizeof summary, "%s/summary.txt", out);
    char *s = slurp(summary);
    cr_expect(strstr(s, "warphunt fake CUDA driver"), "the device is named");
    cr_expect(strstr(s, "empty kernel (events)"), "bench_launch ran");
    static const char *const kernels[] = { "artificial", "bfs1", "bfs2", "fig1a", "fig1b", "gt_atomic",
                                           "gt_bank", "gt_gather", "gt_hash", "gt_loop", "gt_paths32",
                                           "lbm", "nsichneu" };
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        char row[64];
        snprintf(row, sizeof row, "\n%-12s %8s", kernels[k], "ok");
        cr_expect(strstr(s, row), "no ok row for %s in:\n%s", kernels[k], s);
    }
    cr_expect(strstr(s, "DIFFER"), "the empty kernels' outputs differ from the sim's");
    cr_expect(strstr(s, "compare: ok"), "%s", s);
    char table[PATH_MAX + 32];
    struct stat st;
    snprintf(table, sizeof table, "%s/compare/table.md", out);
    cr_expect_eq(stat(table, &st), 0, "compare wrote its table into GPU_OUT");
    cr_expect(strstr(s, "ground truth: ok"), "%s", s);
    cr_expect(strstr(s, "calibrate: FAILED"), "calibrate ran, and the fake driver, which runs only the "
              "bundled kernels, cannot run its microbenchmarks:\n%s", s);
    snprintf(table, sizeof table, "%s/groundtruth.txt", out);
    cr_expect(strstr(slurp(table), "\ngt_hash "), "a ground-truth row for gt_hash:\n%s", slurp(table));
    ts_rmtree(dir);
}

/* The bundle for a GPU machine that cannot build: packed here, unpacked
 * elsewhere, gpu.sh --prebuilt runs from it with `make` unusable. */
Test(gpu_script, prebuilt_bundle_runs_without_building, .timeout = 600)
{
    char build[PATH_MAX], lib[PATH_MAX + 32];
    fake_driver(build, sizeof build, lib, sizeof lib);
    char dir[] = "/tmp/wh_bundle_test_XXXXXX";
    cr_assert(mkdtemp(dir));
    char cmd[8 * PATH_MAX], log[PATH_MAX + 16];
    snprintf(log, sizeof log, "%s/log", dir);

    snprintf(cmd, sizeof cmd,
             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL BUILD='%s' JOBS=2 "
             "bash bench/device_bundle.sh --no-tests --out '%s/b.tar.gz' >'%s' 2>&1 && "
             "tar xzf '%s/b.tar.gz' -C '%s' >>'%s' 2>&1",
             build, dir, log, dir, dir, log);
    cr_assert_eq(system(cmd), 0, "%s", slurp(log));
    char path[PATH_MAX + 64];
    struct stat st;
    snprintf(path, sizeof path, "%s/build-bundle/lib/libz3.so.4", dir);
    cr_expect_eq(stat(path, &st), 0, "Z3 travels in the bundle");
    snprintf(path, sizeof path, "%s/build-bundle/lib/libc.so.6", dir);
    cr_expect_neq(stat(path, &st), 0, "the C library does not travel");
    snprintf(path, sizeof path, "%s/build/ptx/kernels/gt_loop.ptx", dir);
    cr_expect_eq(stat(path, &st), 0, "the PTX travels");

    /* A `make` that fails first on PATH: --prebuilt must not call it. */
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/bin' && printf '#!/bin/sh\\nexit 97\\n' >'%s/bin/make' && chmod +x '%s/bin/make' && "
             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH='%s/bin':\"$PATH\" BUILD='%s/build-bundle' "
             "WARPHUNT_LIBCUDA='%s' WH_FAKECUDA_ANY_KERNEL=1 GPU_OUT='%s/out' "
             "bash bench/gpu.sh --prebuilt --skip-tests --skip-compare --kernels gt_loop --reps 3 "
             "--check-specs 'tests/specs/tex_gath*.json' --step-timeout 300 >'%s' 2>&1",
             dir, dir, dir, dir, dir, lib, dir, log);
    int rc = system(cmd);
    cr_assert(WIFEXITED(rc));
    /* 1, not 0: the fake runs gt_loop as an empty kernel, so the check differs. */
    cr_expect_eq(WEXITSTATUS(rc), 1, "%s", slurp(log));
    char summary[PATH_MAX + 32];
    snprintf(summary, sizeof summary, "%s/out/summary.txt", dir);
    char *s = slurp(summary);
    cr_expect(strstr(s, "warphunt device bundle"), "the bundle's manifest is in the summary:\n%s", s);
    cr_expect(strstr(s, "\ngt_loop      "), "a row for gt_loop:\n%s", s);
    cr_expect(!strstr(s, "\nartificial   "), "--kernels measured only gt_loop:\n%s", s);
    /* The fake driver has tex_gather and tex_gather4 in C: those checks agree. */
    cr_expect(strstr(s, "\ntex_gather   ") && strstr(s, "\ntex_gather4  "), "--check-specs rows:\n%s", s);
    const char *row = strstr(s, "\ntex_gather4  ");
    cr_expect(row && strstr(row, "agree"), "tex_gather4 agrees with the sim on the fake driver:\n%s", s);

    /* Bad --check-specs and --step-timeout are refused before anything runs. */
    snprintf(cmd, sizeof cmd,
             "BUILD='%s/build-bundle' bash bench/gpu.sh --prebuilt --check-specs 'tests/specs/nope_*.json' "
             ">'%s' 2>&1", dir, log);
    rc = system(cmd);
    cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "%s", slurp(log));
    cr_expect(strstr(slurp(log), "no spec file matches 'tests/specs/nope_*.json'"), "%s", slurp(log));
    snprintf(cmd, sizeof cmd, "BUILD='%s/build-bundle' bash bench/gpu.sh --prebuilt --step-timeout 5m >'%s' 2>&1",
             dir, log);
    rc = system(cmd);
    cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "%s", slurp(log));
    cr_expect(strstr(slurp(log), "--step-timeout: '5m' is not a number of seconds"), "%s", slurp(log));
    ts_rmtree(dir);
}

/* bench/gpu_large.sh ARGS on the fake driver, its output into log: the
 * exit status. */
static int gpu_large(const char *build, const char *lib, const char *args, const char *log)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL WH_FAKECUDA_ANY_KERNEL=1 BUILD='%s' "
             "WARPHUNT_LIBCUDA='%s' bash bench/gpu_large.sh %s >'%s' 2>&1", build, lib, args, log);
    int rc = system(cmd);
    cr_assert(WIFEXITED(rc), "gpu_large.sh did not exit");
    return WEXITSTATUS(rc);
}

/* bench/gpu_large.sh on the fake driver (its every kernel "runs" 20 us):
 * a spec's large size is where the search starts, G grows by --factor
 * until the target, the step cap or the image limit (a size, not a
 * failure), and the fake's figures are refused without -o. */
Test(gpu_script, large_sizes_search_grows_g_to_a_target, .timeout = 300)
{
    char build[PATH_MAX], lib[PATH_MAX + 32];
    fake_driver(build, sizeof build, lib, sizeof lib);
    char dir[] = "/tmp/wh_large_XXXXXX";
    cr_assert(mkdtemp(dir));
    char args[256], log[64], md[64];
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(md, sizeof md, "%s/large.md", dir);

    snprintf(args, sizeof args, "--kernels gt_atomic,gt_hash --target-us 10 -o '%s'", md);
    cr_assert_eq(gpu_large(build, lib, args, log), 0, "%s", slurp(log));
    char *s = slurp(md);
    cr_expect(strstr(s, "| gt_atomic | 128 | 423000 (from --size large) | 19.9"), "%s", s);
    cr_expect(strstr(s, "| gt_hash | 8 | 8 | 19.9") && strstr(s, "| reached |"), "%s", s);

    snprintf(args, sizeof args, "--kernels gt_hash --max-steps 2 -o '%s'", md);
    cr_assert_eq(gpu_large(build, lib, args, log), 0, "%s", slurp(log));
    cr_expect(strstr(slurp(md), "| gt_hash | 8 | 128 | 19.9") && strstr(slurp(md), "below the target after 2 steps"),
              "G 8 -> 32 -> 128:\n%s", slurp(md));
    snprintf(args, sizeof args, "--kernels gt_hash --start-scale 3 --max-steps 1 -o '%s'", md);
    cr_assert_eq(gpu_large(build, lib, args, log), 0, "%s", slurp(log));
    cr_expect(strstr(slurp(md), "| gt_hash | 8 | 96 | 19.9") && strstr(slurp(md), "from 3 times the default G"),
              "G 24 -> 96:\n%s", slurp(md));

    snprintf(args, sizeof args, "--kernels gt_atomic --factor 1000 --max-steps 30 -o '%s'", md);
    cr_assert_eq(gpu_large(build, lib, args, log), 0, "the image limit is no failure:\n%s", slurp(log));
    cr_expect(strstr(slurp(md), "| 423000 (from --size large) | 19.9") &&
              strstr(slurp(md), "image limit at G=423000000"), "%s", slurp(md));

    cr_expect_eq(gpu_large(build, lib, "--kernels gt_hash --max-steps 0", log), 2, "%s", slurp(log));
    cr_expect(strstr(slurp(log), "is not a GPU"), "%s", slurp(log));
    cr_expect_eq(gpu_large(build, lib, "--factor 1", log), 2, "%s", slurp(log));
    cr_expect(strstr(slurp(log), "--factor must be at least 2"), "%s", slurp(log));
    cr_expect_eq(gpu_large(build, lib, "--start-scale 0", log), 2, "%s", slurp(log));
    cr_expect(strstr(slurp(log), "--start-scale must be at least 1"), "%s", slurp(log));
    ts_rmtree(dir);
}

/* bench/gpu_fidelity_scaled.sh on the fake driver: a CSV per scale and
 * run (the second named _b, the flushed L2 _cold), each with the kernel's
 * inputs at that scale, and a log line per run. */
Test(gpu_script, fidelity_at_larger_sizes_writes_a_csv_per_scale_and_run, .timeout = 300)
{
    char build[PATH_MAX], lib[PATH_MAX + 32];
    fake_driver(build, sizeof build, lib, sizeof lib);
    char dir[] = "/tmp/wh_fidscaled_XXXXXX";
    cr_assert(mkdtemp(dir));
    char cmd[4 * PATH_MAX], log[64], csv[96];
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(cmd, sizeof cmd, "env WH_FAKECUDA_ANY_KERNEL=1 BUILD='%s' WARPHUNT_LIBCUDA='%s' "
             "bash bench/gpu_fidelity_scaled.sh -o '%s' --scales 2,4 --kernels gt_loop,gt_bank --skip gt_bank "
             "--cold >'%s' 2>&1", build, lib, dir, log);
    int rc = system(cmd);
    cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s", slurp(log));
    static const char *const names[] = { "x2", "x2_b", "x2_cold", "x4", "x4_b", "x4_cold" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(csv, sizeof csv, "%s/fidelity_gpu_%s.csv", dir, names[i]);
        const char *s = slurp(csv);
        cr_expect(strstr(s, "gt_loop,random-30,ok,") && strstr(s, "gt_loop,known-best,ok,"), "%s:\n%s", csv, s);
        cr_expect(!strstr(s, "gt_bank"), "--skip gt_bank:\n%s", s);
    }
    cr_expect(strstr(slurp(log), "x4 run cold: exit 0, 32 inputs"), "%s", slurp(log));
    snprintf(cmd, sizeof cmd, "bash bench/gpu_fidelity_scaled.sh -o '%s' --scales 2x >'%s' 2>&1", dir, log);
    rc = system(cmd);
    cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 2 && strstr(slurp(log), "'2x' is not a whole number"), "%s",
              slurp(log));
    ts_rmtree(dir);
}
