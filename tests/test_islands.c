/*
 * test_islands.c — `mpirun -np 2 warphunt hunt` on the sim: two islands
 * that exchange individuals, the same run for the same seed, a run
 * directory with each island's results and island 0's merged ones,
 * --resume of every island (and its refusal with another island count),
 * the islands of a node on its GPUs in turn (the fake CUDA driver with
 * two devices), the all-to-all topology, compare on islands, and hunts
 * started on their own sharing a --sync-dir.  Skipped, with the reason, where
 * mpirun or an MPI build is missing.  The GA's side (ga_emigrants,
 * ga_immigrate, agree_stop) is tested in-process below it.
 */
#include <criterion/criterion.h>

#include "ga/ga.h"
#include "harness/cuda/api.h"
#include "tests/fakecuda/fakecuda.h"
#include "tests/support.h"

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SPEC "tests/specs/hunt_paths_small.json"

/* The warphunt beside the test runner, built with MPI, and mpirun. */
static void need_mpi(char *tool, size_t n)
{
    ts_beside_runner("warphunt", tool, n);
    if (system("command -v mpirun >/dev/null 2>&1") != 0) cr_skip_test("mpirun not installed (make deps installs Open MPI)");
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "'%s' --version | grep -q 'MPI islands: yes'", tool);
    if (system(cmd) != 0) cr_skip_test("%s was built without MPI (mpicc missing at build time)", tool);
    ts_need_ptx("build/ptx/kernels/gt_paths32.ptx");
    /* CI machines run as root, which Open MPI refuses unless told */
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
}

/* What every mpirun test starts with: the tool (skipping without MPI), a
 * fresh temporary directory, and a log file in it. */
typedef struct {
    char tool[PATH_MAX];
    char base[32];
    char log[64];
} mpi_case;

static void mpi_case_open(mpi_case *c)
{
    need_mpi(c->tool, sizeof c->tool);
    snprintf(c->base, sizeof c->base, "/tmp/wh_islands_XXXXXX");
    cr_assert(mkdtemp(c->base));
    snprintf(c->log, sizeof c->log, "%s/log", c->base);
}

/* mpirun -np K TOOL COMMAND ARGS; its exit status. */
static int islands_k(int k, const char *tool, const char *command, const char *args, const char *log)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "mpirun --oversubscribe -np %d '%s' %s %s >'%s' 2>&1", k, tool, command, args, log);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int islands_of(const char *tool, const char *command, const char *args, const char *log)
{
    return islands_k(2, tool, command, args, log);
}

static int islands(const char *tool, const char *args, const char *log)
{
    return islands_of(tool, "hunt", args, log);
}

/* history.csv without its wall-time column: what a deterministic run repeats. */
static char *history_sans_time(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/history.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap), line[512];
    cr_assert(out);
    while (fgets(line, sizeof line, f)) {
        char *a = strchr(line, ','), *b = a ? strchr(a + 1, ',') : NULL, *c = b ? strchr(b + 1, ',') : NULL;
        if (!c) continue;
        size_t k = (size_t)(b - line) + strlen(c);
        if (len + k + 1 > cap) cr_assert((out = realloc(out, cap *= 2)));
        memcpy(out + len, line, (size_t)(b - line));
        memcpy(out + len + (size_t)(b - line), c, strlen(c));
        len += k;
    }
    out[len] = '\0';
    fclose(f);
    return out;
}

static json_t *island_run(const char *root, int r)
{
    char path[700];
    snprintf(path, sizeof path, "%s/island-%02d/run.json", root, r);
    return ts_load_json(path);
}

static long island_field(json_t *run, const char *key)
{
    return (long)json_integer_value(json_object_get(json_object_get(run, "island"), key));
}

/* A row of an island's migrations.csv. */
typedef struct {
    int generation;
    bool received;
    int island;
    double fitness;
    long eval;
} migration_row;

/* A run directory's migrations.csv into rows[0..max); how many. */
static int migrations_in(const char *run, migration_row *rows, int max)
{
    char path[800], line[256], dir[16];
    snprintf(path, sizeof path, "%s/migrations.csv", run);
    FILE *f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    cr_assert(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "generation,direction,island,fitness,eval\n");
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        migration_row *m = &rows[n];
        cr_assert_eq(sscanf(line, "%d,%15[a-z],%d,%lf,%ld", &m->generation, dir, &m->island, &m->fitness, &m->eval),
                     5, "%s: %s", path, line);
        m->received = !strcmp(dir, "received");
        n++;
    }
    fclose(f);
    return n;
}

/* island r's, under the run's directory root */
static int migrations_of(const char *root, int r, migration_row *rows, int max)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/island-%02d", root, r);
    return migrations_in(dir, rows, max);
}

/* The rows of one generation and direction, in file order. */
static int rows_at(const migration_row *rows, int n, int generation, bool received, migration_row *out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].generation == generation && rows[i].received == received) out[k++] = rows[i];
    return k;
}

#define MAX_ROWS 400

/* Every migration of a run of k islands as the topology says: ring, island
 * r receives what island r - 1 sent; all, the m best (ties by rank) of
 * what the others sent.  Returns the migrations seen. */
static int expect_migrations(const char *root, int k, int m, bool all)
{
    static migration_row rows[8][MAX_ROWS];
    int n[8];
    for (int r = 0; r < k; r++) n[r] = migrations_of(root, r, rows[r], MAX_ROWS);
    int seen = 0;
    for (int g = 1; g < 1000; g++) {
        migration_row sent[8][64], got[64], pool[512];
        int ns[8], total = 0;
        for (int r = 0; r < k; r++) total += ns[r] = rows_at(rows[r], n[r], g, false, sent[r]);
        if (!total) continue;
        seen++;
        for (int r = 0; r < k; r++) {
            cr_expect_leq(ns[r], m, "generation %d: island %d sent at most M", g, r);
            int np = 0;
            for (int q = 0; q < k; q++)
                if (all ? q != r : q == (r + k - 1) % k)
                    for (int i = 0; i < ns[q]; i++) pool[np++] = sent[q][i];
            /* best first, ties in rank order (insertion sort is stable) */
            for (int i = 1; i < np; i++)
                for (int j = i; j > 0 && pool[j - 1].fitness < pool[j].fitness; j--) {
                    migration_row t = pool[j];
                    pool[j] = pool[j - 1];
                    pool[j - 1] = t;
                }
            int want = np < m ? np : m;
            int ng = rows_at(rows[r], n[r], g, true, got);
            cr_expect_eq(ng, want, "generation %d: island %d received %d, expected %d", g, r, ng, want);
            for (int i = 0; i < ng && i < want; i++) {
                cr_expect_eq(got[i].island, pool[i].island, "generation %d, island %d, migrant %d: from", g, r, i);
                cr_expect_eq(got[i].fitness, pool[i].fitness, "generation %d, island %d, migrant %d", g, r, i);
                cr_expect_eq(got[i].eval, pool[i].eval, "generation %d, island %d, migrant %d", g, r, i);
            }
        }
    }
    return seen;
}

#define ARGS SPEC " --backend sim --evals 120 --population 20 --migrate-every 2 --patience 0 --jobs 1 --no-explain --quiet -o "

Test(islands, two_islands_exchange_individuals_and_repeat_for_one_seed, .timeout = 120)
{
    mpi_case c;
    mpi_case_open(&c);
    const char *tool = c.tool, *base = c.base, *log = c.log;
    char a[600], b[600], args[1200];
    snprintf(a, sizeof a, "%s/a", base);
    snprintf(b, sizeof b, "%s/b", base);
    snprintf(args, sizeof args, ARGS "%s", a);
    cr_assert_eq(islands(tool, args, log), 0, "%s", ts_read_text(log));
    snprintf(args, sizeof args, ARGS "%s", b);
    cr_assert_eq(islands(tool, args, log), 0, "%s", ts_read_text(log));

    char path[700];
    snprintf(path, sizeof path, "%s/run.json", a);
    json_t *root = ts_load_json(path);
    cr_expect_str_eq(json_string_value(json_object_get(root, "kind")), "islands");
    cr_expect_eq(json_integer_value(json_object_get(root, "islands")), 2);
    cr_expect_eq(json_integer_value(json_object_get(root, "evals")), 240, "120 evaluations per island");
    json_t *runs = json_object_get(root, "island_runs");
    cr_assert_eq(json_array_size(runs), 2);
    double best = json_number_value(json_object_get(json_object_get(root, "best"), "fitness"));
    double b0 = json_number_value(json_object_get(json_array_get(runs, 0), "best"));
    double b1 = json_number_value(json_object_get(json_array_get(runs, 1), "best"));
    cr_expect_float_eq(best, b0 > b1 ? b0 : b1, 1e-9, "the run's best is its best island's");
    snprintf(path, sizeof path, "%s/best/manifest.json", a);
    cr_expect(access(path, R_OK) == 0, "the best island's input is the run's best/");
    snprintf(path, sizeof path, "%s/plot.gp", a);
    cr_expect(access(path, R_OK) == 0, "a plot of every island");
    json_decref(root);

    for (int r = 0; r < 2; r++) {
        json_t *run = island_run(a, r);
        cr_expect_eq(island_field(run, "rank"), r);
        cr_expect_eq(island_field(run, "of"), 2);
        /* generations 2, 4 (6 ends the budget, where islands do not migrate) */
        cr_expect_geq(island_field(run, "migrations"), 2);
        cr_expect_geq(island_field(run, "immigrants"), 2, "each migration brings the previous island's best");
        json_decref(run);
        char da[700], db[700];
        snprintf(da, sizeof da, "%s/island-%02d", a, r);
        snprintf(db, sizeof db, "%s/island-%02d", b, r);
        char *ha = history_sans_time(da), *hb = history_sans_time(db);
        cr_expect_str_eq(ha, hb, "island %d: the same seed, the same run", r);
        free(ha);
        free(hb);
    }
    cr_expect_geq(expect_migrations(a, 2, 2, false), 2, "migrations.csv: the ring's exchanges");
    json_t *r0 = island_run(a, 0), *r1 = island_run(a, 1);
    cr_expect_neq(island_field(r0, "ga_seed"), island_field(r1, "ga_seed"), "each island has its own seed");
    json_decref(r0);
    json_decref(r1);
    ts_rmtree(base);
}

/* The CUDA ordinal each island's run.json records. */
static long island_ordinal(const char *root, int r)
{
    json_t *run = island_run(root, r);
    long o = (long)json_integer_value(json_object_get(json_object_get(run, "device_info"), "ordinal"));
    json_decref(run);
    return o;
}

Test(islands, the_islands_of_a_node_take_its_gpus_in_turn, .timeout = 120)
{
    mpi_case c;
    mpi_case_open(&c);
    const char *tool = c.tool, *base = c.base, *log = c.log;
    char lib[PATH_MAX];
    ts_beside_runner("libfakecuda.so", lib, sizeof lib);
    if (access(lib, R_OK) != 0) cr_skip_test("%s not built (make test builds it)", lib);
    setenv(WH_CUDA_LIB_ENV, lib, 1);
    setenv(FAKECUDA_DEVICES_ENV, "2", 1);
    setenv(FAKECUDA_ANY_KERNEL_ENV, "1", 1);
    char dir[600], args[1200];
    /* from --device on, modulo the devices: 0 then 1, or 1 then 0 */
    for (int first = 0; first < 2; first++) {
        snprintf(dir, sizeof dir, "%s/d%d", base, first);
        snprintf(args, sizeof args, SPEC " --backend cuda --device %d --evals 40 --population 20 --no-explain "
                 "--quiet -o %s", first, dir);
        cr_assert_eq(islands(tool, args, log), 0, "%s", ts_read_text(log));
        for (int r = 0; r < 2; r++)
            cr_expect_eq(island_ordinal(dir, r), (first + r) % 2, "--device %d: island %d", first, r);
    }
    /* one device: both islands on it */
    setenv(FAKECUDA_DEVICES_ENV, "1", 1);
    snprintf(dir, sizeof dir, "%s/one", base);
    snprintf(args, sizeof args, SPEC " --backend cuda --evals 40 --population 20 --no-explain --quiet -o %s", dir);
    cr_assert_eq(islands(tool, args, log), 0, "%s", ts_read_text(log));
    for (int r = 0; r < 2; r++) cr_expect_eq(island_ordinal(dir, r), 0);
    ts_rmtree(base);
}

Test(islands, resume_continues_every_island, .timeout = 120)
{
    mpi_case c;
    mpi_case_open(&c);
    const char *tool = c.tool, *base = c.base, *log = c.log;
    char dir[600], args[1200];
    snprintf(dir, sizeof dir, "%s/run", base);
    /* 50 and 100: the one-core scout (a head start and its screen) takes 6 and 11 */
    snprintf(args, sizeof args, SPEC " --backend sim --evals 50 --population 20 --migrate-every 1 --patience 0 "
             "--jobs 1 --no-explain --quiet -o %s", dir);
    cr_assert_eq(islands(tool, args, log), 0, "%s", ts_read_text(log));
    snprintf(args, sizeof args, "--resume %s --evals 100 --no-explain --quiet", dir);
    cr_assert_eq(islands(tool, args, log), 0, "%s", ts_read_text(log));
    /* the log continues where the checkpoint was: each generation's exchange once */
    cr_expect_geq(expect_migrations(dir, 2, 2, false), 3);
    for (int r = 0; r < 2; r++) {
        json_t *run = island_run(dir, r);
        cr_expect_eq(json_integer_value(json_object_get(run, "evals")), 100, "island %d extended to 100", r);
        cr_expect_geq(island_field(run, "migrations"), 1, "the resumed islands still migrate");
        json_decref(run);
    }
    char path[700];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *root = ts_load_json(path);
    cr_expect_eq(json_integer_value(json_object_get(root, "evals")), 200);
    json_decref(root);
    /* not as one island: it is refused, saying how */
    char cmd[PATH_MAX + 1400];
    snprintf(cmd, sizeof cmd, "'%s' hunt --resume %s --evals 120 --no-explain --quiet >'%s' 2>&1", tool, dir, log);
    int rc = system(cmd);
    cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "%s", ts_read_text(log));
    cr_expect(strstr(ts_read_text(log), "a run of 2 islands, resumed by 1 process; resume it with mpirun -np 2"),
              "%s", ts_read_text(log));
    ts_rmtree(base);
}

/* --topology all on three islands: each takes the M best of the other
 * two's 2 M migrants (checked against their migrations.csv); --no-cache
 * is refused; a run of three is refused when resumed by two. */
Test(islands, all_to_all_gives_each_island_the_best_of_the_others, .timeout = 120)
{
    mpi_case c;
    mpi_case_open(&c);
    char dir[600], args[1200];
    snprintf(dir, sizeof dir, "%s/all", c.base);
    snprintf(args, sizeof args, SPEC " --backend sim --evals 80 --population 20 --migrate-every 1 --migrants 3 "
             "--topology all --patience 0 --jobs 1 --no-explain --quiet -o %s", dir);
    cr_assert_eq(islands_k(3, c.tool, "hunt", args, c.log), 0, "%s", ts_read_text(c.log));
    char path[700];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *root = ts_load_json(path);
    cr_expect_str_eq(json_string_value(json_object_get(root, "topology")), "all");
    cr_expect_eq(json_integer_value(json_object_get(root, "islands")), 3);
    json_decref(root);
    for (int r = 0; r < 3; r++) {
        json_t *run = island_run(dir, r);
        long m = island_field(run, "migrations");
        cr_expect_geq(m, 2, "island %d", r);
        cr_expect_eq(island_field(run, "immigrants"), 3 * m, "island %d: 3 of the other two's 6 each time", r);
        cr_expect_str_eq(json_string_value(json_object_get(json_object_get(run, "options"), "topology")), "all");
        json_decref(run);
    }
    cr_expect_geq(expect_migrations(dir, 3, 3, true), 2, "migrations.csv: the best of the others");
    /* islands share the symbolic stage through the cache: --no-cache is refused */
    snprintf(args, sizeof args, SPEC " --backend sim --evals 20 --no-cache --quiet -o %s/nc", c.base);
    cr_expect_neq(islands_k(2, c.tool, "hunt", args, c.log), 0);
    cr_expect(strstr(ts_read_text(c.log), "--no-cache under mpirun"), "%s", ts_read_text(c.log));
    snprintf(args, sizeof args, "--resume %s --evals 100 --no-explain --quiet", dir);
    cr_expect_neq(islands_k(2, c.tool, "hunt", args, c.log), 0);
    cr_expect(strstr(ts_read_text(c.log), "a run of 3 islands, resumed by 2 processes; resume it with mpirun -np 3"),
              "%s", ts_read_text(c.log));
    ts_rmtree(c.base);
}

Test(islands, compare_runs_every_strategy_on_the_islands, .timeout = 120)
{
    mpi_case c;
    mpi_case_open(&c);
    const char *tool = c.tool, *base = c.base, *log = c.log;
    char dir[600], args[1200], path[800];
    snprintf(dir, sizeof dir, "%s/cmp", base);
    snprintf(args, sizeof args, SPEC " --backend sim --evals 40 --population 20 --migrate-every 1 --seeds 1 "
             "--strategies gdivan,random --jobs 1 --quiet -o %s", dir);
    cr_assert_eq(islands_of(tool, "compare", args, log), 0, "%s", ts_read_text(log));
    static const char *const runs[] = { "gdivan-s1", "random-s1" };
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s/run.json", dir, runs[k]);
        json_t *root = ts_load_json(path);
        cr_expect_str_eq(json_string_value(json_object_get(root, "kind")), "islands", "%s", runs[k]);
        cr_expect_eq(json_integer_value(json_object_get(root, "evals")), 80, "%s: 40 per island", runs[k]);
        json_decref(root);
        for (int r = 0; r < 2; r++) {
            snprintf(path, sizeof path, "%s/%s/island-%02d/history.csv", dir, runs[k], r);
            cr_expect(access(path, R_OK) == 0, "no %s", path);
        }
    }
    /* one table, by island 0, with a row per strategy */
    snprintf(path, sizeof path, "%s/table.md", dir);
    const char *table = ts_read_text(path);
    cr_expect(strstr(table, "gdivan") && strstr(table, "random"), "%s", table);
    snprintf(path, sizeof path, "%s/compare.json", dir);
    json_t *cmp = ts_load_json(path);
    cr_expect_eq(json_array_size(json_object_get(cmp, "strategies")), 2);
    json_decref(cmp);
    ts_rmtree(base);
}

/* ---- an island that dies ------------------------------------------------- */

/* Lines in a file (0 when it is not there yet). */
static long lines_in(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long n = 0;
    for (int ch; (ch = fgetc(f)) != EOF;) n += ch == '\n';
    fclose(f);
    return n;
}

/* The pid in an island's run-directory lock (its hunt process), 0 when
 * not there yet. */
static pid_t island_pid(const char *root, int r)
{
    char path[700];
    snprintf(path, sizeof path, "%s/island-%02d/.lock", root, r);
    FILE *f = fopen(path, "r");
    long pid = 0;
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1) pid = 0;
        fclose(f);
    }
    return (pid_t)pid;
}

/* mpirun -np 2 on a search bounded by --time; island `victim` is killed
 * (SIGKILL) once its history.csv has 30 rows.  mpirun's exit status. */
static int islands_with_a_death(const char *tool, const char *root, int victim, const char *log)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "exec mpirun --oversubscribe -np 2 '%s' hunt " SPEC " --backend sim --evals 1000000 "
             "--time 10 --population 20 --migrate-every 2 --patience 0 --jobs 1 --no-explain -o %s >'%s' 2>&1",
             tool, root, log);
    pid_t job = fork();
    cr_assert_geq(job, 0);
    if (job == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    char history[700];
    snprintf(history, sizeof history, "%s/island-%02d/history.csv", root, victim);
    pid_t pid = 0;
    for (int i = 0; i < 600 && (lines_in(history) < 30 || !(pid = island_pid(root, victim))); i++) usleep(50000);
    cr_assert_gt(pid, 0, "island %d never got going: %s", victim, ts_read_text(log));
    cr_assert_eq(kill(pid, SIGKILL), 0);
    int status;
    cr_assert_eq(waitpid(job, &status, 0), job);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* An island killed mid-run: its rank says so, the other island goes on to
 * the end of its budget and merges the results (island 1 when island 0
 * died), run.json names the lost island and its fate, and mpirun's status
 * is the dead island's. */
static void an_island_dies(int victim)
{
    mpi_case c;
    mpi_case_open(&c);
    char root[600], path[700], said[200];
    snprintf(root, sizeof root, "%s/run", c.base);
    int rc = islands_with_a_death(c.tool, root, victim, c.log);
    const char *log = ts_read_text(c.log);
    cr_expect_eq(rc, 128 + SIGKILL, "mpirun's status is the killed island's: %s", log);
    snprintf(said, sizeof said, "island %d of 2 (pid", victim);
    cr_expect(strstr(log, said) && strstr(log, "killed by signal 9"), "its rank says it died: %s", log);
    if (victim == 0) cr_expect(strstr(log, "island 0 was lost; island 1 merged"), "%s", log);

    snprintf(path, sizeof path, "%s/run.json", root);
    json_t *run = ts_load_json(path);
    json_t *lost = json_object_get(run, "islands_lost"), *runs = json_object_get(run, "island_runs");
    cr_assert_eq(json_array_size(lost), 1, "%s", log);
    cr_expect_eq(json_integer_value(json_array_get(lost, 0)), victim);
    json_t *dead = json_array_get(runs, (size_t)victim), *alive = json_array_get(runs, (size_t)(1 - victim));
    cr_expect(strstr(json_string_value(json_object_get(dead, "lost")), "killed by signal 9"));
    cr_expect_str_eq(json_string_value(json_object_get(alive, "stop_reason")), "time", "the other island finished");
    long evals = (long)json_integer_value(json_object_get(alive, "evals"));
    cr_expect_gt(evals, 30);
    cr_expect_eq(json_integer_value(json_object_get(run, "evals")), evals, "the run's figures are the living's");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(run, "best"), "island")), 1 - victim);
    json_decref(run);
    snprintf(path, sizeof path, "%s/best/manifest.json", root);
    cr_expect(access(path, R_OK) == 0, "the living island's best is the run's best/");
    ts_rmtree(c.base);
}

Test(islands, an_island_that_dies_is_reported_and_the_other_finishes, .timeout = 120)
{
    an_island_dies(1);
}

Test(islands, when_island_0_dies_island_1_merges_the_results, .timeout = 120)
{
    an_island_dies(0);
}

/* ---- islands without MPI: --sync-dir ------------------------------------ */

/* TOOL hunt SPEC ARGS, alone; its exit status. */
static int hunt_alone(const char *tool, const char *args, const char *log)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' hunt " SPEC " --backend sim --population 20 --migrate-every 1 --jobs 1 "
             "--no-explain %s >'%s' 2>&1", tool, args, log);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* A hunt alone takes nothing; one started after it takes the first one's
 * last migrants, once; a hunt of another gene layout takes nothing and
 * says so; a resumed hunt goes on; a name in use is warned, and one that
 * could leave the directory refused. */
Test(sync_dir, hunts_started_on_their_own_share_their_best, .timeout = 120)
{
    char tool[PATH_MAX], base[] = "/tmp/wh_sync_XXXXXX", args[2000], log[600], sync[600], a[600], b[600], c[600];
    ts_beside_runner("warphunt", tool, sizeof tool);
    ts_need_ptx("build/ptx/kernels/gt_paths32.ptx");
    cr_assert(mkdtemp(base));
    snprintf(log, sizeof log, "%s/log", base);
    snprintf(sync, sizeof sync, "%s/sync", base);
    snprintf(a, sizeof a, "%s/a", base);
    snprintf(b, sizeof b, "%s/b", base);
    snprintf(c, sizeof c, "%s/c", base);
    snprintf(args, sizeof args, "--evals 100 --patience 0 --sync-dir %s --sync-id a -o %s", sync, a);
    cr_assert_eq(hunt_alone(tool, args, log), 0, "%s", ts_read_text(log));
    static migration_row ra[MAX_ROWS], rb[MAX_ROWS], rc[MAX_ROWS], last[64], got[64];
    char path[700];
    int na = migrations_in(a, ra, MAX_ROWS);
    int last_gen = 0;
    for (int i = 0; i < na; i++) {
        cr_expect(!ra[i].received, "alone, it takes nothing");
        if (ra[i].generation > last_gen) last_gen = ra[i].generation;
    }
    cr_assert_geq(last_gen, 2);
    int nlast = rows_at(ra, na, last_gen, false, last);

    snprintf(args, sizeof args, "--seed 2 --evals 100 --patience 0 --sync-dir %s --sync-id b -o %s", sync, b);
    cr_assert_eq(hunt_alone(tool, args, log), 0, "%s", ts_read_text(log));
    int nb = migrations_in(b, rb, MAX_ROWS), taken = 0;
    for (int i = 0; i < nb; i++) taken += rb[i].received;
    cr_expect_eq(taken, nlast, "b takes a's last migrants once: %d rows, a's last had %d", taken, nlast);
    int ng = rows_at(rb, nb, 1, true, got);
    cr_expect_eq(ng, nlast, "at b's first migration");
    for (int i = 0; i < ng && i < nlast; i++) {
        cr_expect_eq(got[i].fitness, last[i].fitness, "migrant %d", i);
        cr_expect_eq(got[i].eval, last[i].eval, "migrant %d", i);
        cr_expect_eq(got[i].island, -1, "from another hunt");
    }

    /* random-ga's genes are not gdivan's: nothing taken, and said */
    snprintf(args, sizeof args, "--strategy random-ga --evals 60 --sync-dir %s --sync-id c -o %s", sync, c);
    cr_assert_eq(hunt_alone(tool, args, log), 0, "%s", ts_read_text(log));
    cr_expect(strstr(ts_read_text(log), "is not of this hunt's gene layout"), "%s", ts_read_text(log));
    int nc = migrations_in(c, rc, MAX_ROWS);
    for (int i = 0; i < nc; i++) cr_expect(!rc[i].received, "another layout is not taken");

    /* a resumed hunt keeps its directory and name */
    char cmd[PATH_MAX + 1400];
    snprintf(cmd, sizeof cmd, "'%s' hunt --resume %s --evals 160 --quiet >'%s' 2>&1", tool, a, log);
    cr_assert_eq(system(cmd), 0, "%s", ts_read_text(log));
    snprintf(path, sizeof path, "%s/run.json", a);
    json_t *run = ts_load_json(path);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(run, "options"), "sync_id")), "a");
    json_decref(run);
    na = migrations_in(a, ra, MAX_ROWS);
    cr_expect_gt(ra[na - 1].generation, last_gen, "the resumed hunt goes on migrating");

    /* a second hunt under a name in use is warned (at its first migration:
     * 50 leaves a generation after the one-core scout's 6) */
    snprintf(args, sizeof args, "--evals 50 --sync-dir %s --sync-id b -o %s/e", sync, base);
    cr_assert_eq(hunt_alone(tool, args, log), 0, "%s", ts_read_text(log));
    cr_expect(strstr(ts_read_text(log), "does another hunt use --sync-id b?"), "%s", ts_read_text(log));

    snprintf(args, sizeof args, "--evals 20 --sync-dir %s --sync-id ../x -o %s/d", sync, base);
    cr_expect_eq(hunt_alone(tool, args, log), 1);
    cr_expect(strstr(ts_read_text(log), "--sync-id '../x'"), "%s", ts_read_text(log));
    ts_rmtree(base);
}

/* ---- the GA's side, in-process ------------------------------------------- */

typedef struct {
    int calls;
} counter;

/* fitness = the sum of the genes: the best individuals are easy to know */
static bool eval_sum(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    (void)ctx, (void)worker, (void)err;
    double s = 0;
    for (int i = 0; i < 4; i++) s += ind->genes[i];
    ind->fitness = s;
    ind->status = 0;
    return true;
}

static const int alleles[] = { 1, 2, 3, 4, 5 };

static bool new_allele(void *ctx, pcg32 *rng, int gene, int *allele, wh_error *err)
{
    (void)ctx, (void)gene, (void)err;
    *allele = 1 + (int)pcg32_bounded(rng, 5);
    return true;
}

static ga_stop_reason never_agree(void *ctx, ga_stop_reason own)
{
    counter *c = ctx;
    c->calls++;
    /* the run goes on while this island alone converged, until the budget */
    return own == GA_STOP_CONVERGED ? GA_STOP_NONE : own;
}

static ga *small_ga(counter *c, long evals)
{
    ga_problem p;
    memset(&p, 0, sizeof p);
    p.ctx = c;
    p.ngenes = 4;
    p.path_alleles = alleles;
    p.npath_alleles = 5;
    p.new_random_allele = new_allele;
    p.evaluate = eval_sum;
    p.agree_stop = never_agree;
    ga_options o;
    ga_options_default(&o);
    o.population = 10;
    o.max_evals = evals;
    o.patience = 1;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_RANDOM_GA, 3, &err);
    cr_assert(g, "%s", err.msg);
    return g;
}

Test(islands, immigrants_replace_the_worst_and_agreement_overrides_convergence)
{
    counter c = { 0 };
    ga *g = small_ga(&c, 190);   /* 10 + 20 generations of 9: the last one whole */
    wh_error err;
    cr_assert(ga_run(g, &err), "%s", err.msg);
    cr_expect_eq(ga_get_stop_reason(g), GA_STOP_EVALS, "converging alone does not stop an island");
    cr_expect_eq(ga_evals(g), 190);
    cr_expect_gt(c.calls, 2, "asked after every generation");

    int genes[2][4] = { { 9, 9, 9, 9 }, { 8, 8, 8, 8 } };
    ga_indiv in[2] = { { .genes = genes[0], .fitness = 36 }, { .genes = genes[1], .fitness = 32 } };
    ga_immigrate(g, in, 2);
    int out_genes[3][4];
    ga_indiv out[3] = { { .genes = out_genes[0] }, { .genes = out_genes[1] }, { .genes = out_genes[2] } };
    int valid;
    ga_population(g, &valid);
    cr_assert_geq(valid, 2);
    int k = ga_emigrants(g, out, 3);
    cr_assert_eq(k, valid < 3 ? valid : 3);
    cr_expect_float_eq(out[0].fitness, 36, 1e-12, "the immigrant ranks first");
    cr_expect_eq(out[0].genes[0], 9);
    cr_expect_float_eq(out[1].fitness, 32, 1e-12);
    if (k > 2) cr_expect_leq(out[2].fitness, 32);
    cr_expect_lt(ga_best(g)->fitness, 36, "an immigrant is not this island's own best");
    ga_free(g);
}
