/*
 * test_input_cli.c — `warphunt input`: a saved input exported as CSV and
 * .npy imports back to the same bytes; show lists every buffer; --set
 * fills by expression; and every bad file or value is refused with the
 * file, line or element that is wrong.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/image.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void tmpdir(char *dir)
{
    strcpy(dir, "/tmp/wh_input_XXXXXX");
    cr_assert(mkdtemp(dir));
}

/* `warphunt input ARGS...`, stderr into dir/err.txt; returns the status. */
static int input_cmd(const char *dir, const char *const *args, int n)
{
    char err[300];
    snprintf(err, sizeof err, "%s/err.txt", dir);
    return ts_run_cmd(cmd_input, "input", args, n, NULL, err);
}

static const char *stderr_of(const char *dir)
{
    char err[300];
    snprintf(err, sizeof err, "%s/err.txt", dir);
    return ts_read_text(err);
}

/* The bytes of a file (malloc'ed), its size in *n. */
static unsigned char *file_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)size + 1);
    cr_assert_eq(fread(b, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return b;
}

static void expect_same_file(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *x = file_bytes(a, &na), *y = file_bytes(b, &nb);
    cr_expect(na == nb && memcmp(x, y, na) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

static const char *const bfs_inputs[] = { "nodes", "edges", "mask", "visited" };

static void round_trip(const char *format)
{
    char dir[64], a[128], ex[128], b[128], from[4][300];
    tmpdir(dir);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(ex, sizeof ex, "%s/exported", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    const char *make[] = { "import", "kernels/bfs1.json", "-o", a, "--random", "7", "--quiet" };
    cr_assert_eq(input_cmd(dir, make, 7), 0, "%s", stderr_of(dir));
    const char *exp[] = { "export", a, "--format", format, "-o", ex, "--quiet" };
    cr_assert_eq(input_cmd(dir, exp, 7), 0, "%s", stderr_of(dir));
    /* files named by buffer: --from FILE finds the buffer from the name */
    const char *imp[16] = { "import", "kernels/bfs1.json", "-o", b, "--quiet" };
    int n = 5;
    for (int k = 0; k < 4; k++) {
        snprintf(from[k], sizeof from[k], "%s/%s.%s", ex, bfs_inputs[k], format);
        imp[n++] = "--from";
        imp[n++] = from[k];
    }
    cr_assert_eq(input_cmd(dir, imp, n), 0, "%s", stderr_of(dir));
    for (int k = 0; k < 4; k++) {
        char pa[300], pb[300];
        snprintf(pa, sizeof pa, "%s/%s.bin", a, bfs_inputs[k]);
        snprintf(pb, sizeof pb, "%s/%s.bin", b, bfs_inputs[k]);
        expect_same_file(pa, pb);
    }
    ts_rmtree(dir);
}

Test(input_cli, csv_export_imports_back_to_the_same_bytes)
{
    round_trip("csv");
}

Test(input_cli, npy_export_imports_back_to_the_same_bytes)
{
    round_trip("npy");
}

Test(input_cli, show_json_lists_every_buffer_with_its_range)
{
    char dir[64], a[128], out[300];
    tmpdir(dir);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    const char *make[] = { "import", "kernels/bfs1.json", "-o", a, "--set", "nodes.n_edges=i%9", "--quiet" };
    cr_assert_eq(input_cmd(dir, make, 7), 0, "%s", stderr_of(dir));
    const char *show[] = { "show", a, "--json", "--limit", "3" };
    cr_assert_eq(ts_run_cmd(cmd_input, "input", show, 5, out, NULL), 0);
    json_t *doc = ts_load_json(out);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "kernel")), "bfs1");
    json_t *bufs = json_object_get(doc, "buffers");
    cr_assert_eq(json_array_size(bufs), 7, "every parameter");
    json_t *nodes = json_array_get(bufs, 0);
    cr_expect_str_eq(json_string_value(json_object_get(nodes, "name")), "nodes");
    cr_expect_eq(json_integer_value(json_object_get(nodes, "count")), 1024);
    json_t *first = json_object_get(nodes, "first");
    cr_assert_eq(json_array_size(first), 3, "--limit 3");
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(first, 2), "n_edges")), 2);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(first, 2), "start")), 16, "start = i*degree");
    json_t *n_edges = json_array_get(json_object_get(nodes, "fields"), 1);
    cr_expect_str_eq(json_string_value(json_object_get(n_edges, "name")), "n_edges");
    cr_expect(json_is_integer(json_object_get(n_edges, "min")), "an integer field's range in integers");
    cr_expect_eq(json_integer_value(json_object_get(n_edges, "min")), 0);
    cr_expect_eq(json_integer_value(json_object_get(n_edges, "max")), 8, "i%%9 over 1024 nodes");
    json_t *updating = json_array_get(bufs, 3);
    cr_expect(json_is_false(json_object_get(updating, "saved")), "outputs are not saved");
    json_decref(doc);
    ts_rmtree(dir);
}

/* sssp_relax's distances as a relaxation state: a ring of unit edges
 * from node 0, distances 0, 1, ..., the first 100 nodes in the frontier;
 * show counts the nodes reached, the source and the frontier. */
Test(input_cli, show_says_what_a_shortest_path_state_holds)
{
    char dir[64], a[128], out[300];
    tmpdir(dir);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    const char *make[] = { "import", "kernels/corpus/sssp_relax.json", "-o", a, "--set", "degree=1",
                           "--set", "edges=(i+1)%N", "--set", "weights=1", "--set", "dist=i",
                           "--set", "frontier=1-min(i/100,1)", "--quiet" };
    cr_assert_eq(input_cmd(dir, make, 15), 0, "%s", stderr_of(dir));
    const char *show[] = { "show", a, "--json", "--limit", "1" };
    cr_assert_eq(ts_run_cmd(cmd_input, "input", show, 5, out, NULL), 0);
    json_t *doc = ts_load_json(out), *dist = json_array_get(json_object_get(doc, "buffers"), 5);
    cr_expect_str_eq(json_string_value(json_object_get(dist, "structure")), "shortest_paths");
    json_t *paths = json_object_get(dist, "paths");
    cr_expect_eq(json_integer_value(json_object_get(paths, "reached")), 16384);
    cr_expect_eq(json_integer_value(json_object_get(paths, "source")), 0);
    cr_expect_eq(json_integer_value(json_object_get(paths, "frontier")), 100);
    json_decref(doc);
    ts_rmtree(dir);
}

Test(input_cli, set_fills_every_element_by_expression)
{
    char dir[64], a[128];
    tmpdir(dir);
    snprintf(a, sizeof a, "%s/a", dir);
    const char *make[] = { "import", "artificial", "-o", a, "--set", "values=(i*37)%1001", "--quiet" };
    cr_assert_eq(input_cmd(dir, make, 7), 0, "%s", stderr_of(dir));
    wh_error err;
    wh_spec *s = wh_spec_load("kernels/artificial.json", &err);
    wh_image *img = wh_image_load(s, a, &err);
    cr_assert(img, "%s", err.msg);
    for (uint64_t i = 0; i < img->bufs[0].count; i++)
        cr_assert_eq(wh_value_get_int(WH_I32, img->bufs[0].data + 4 * i), (int64_t)((i * 37) % 1001), "element %llu",
                     (unsigned long long)i);
    wh_image_free(img);
    wh_spec_free(s);
    ts_rmtree(dir);
}

/* A float buffer takes a number for every element (the spec's expressions
 * are integers; a held-out kernel's author had to write a CSV for x0 = 0),
 * an integer expression still, and a number outside its domain is
 * refused by element. */
Test(input_cli, set_gives_a_float_buffer_a_number)
{
    char dir[64], a[128];
    tmpdir(dir);
    snprintf(a, sizeof a, "%s/a", dir);
    const char *make[] = { "import", "kernels/holdout/newton_roots.json", "-o", a, "--set", "x0=-2.5e-1",
                           "--set", "coef=i%3", "--quiet" };
    cr_assert_eq(input_cmd(dir, make, 9), 0, "%s", stderr_of(dir));
    wh_error err;
    wh_spec *s = wh_spec_load("kernels/holdout/newton_roots.json", &err);
    cr_assert(s, "%s", err.msg);
    wh_image *img = wh_image_load(s, a, &err);
    cr_assert(img, "%s", err.msg);
    int x0 = wh_image_find(img, "x0"), coef = wh_image_find(img, "coef");
    for (uint64_t i = 0; i < img->bufs[x0].count; i++)
        cr_assert_eq(wh_value_get_float(WH_F32, img->bufs[x0].data + 4 * i), -0.25, "x0[%llu]", (unsigned long long)i);
    cr_expect_eq(wh_value_get_float(WH_F32, img->bufs[coef].data + 4 * 5), 2.0, "coef[5] = 5 %% 3");
    wh_image_free(img);
    wh_spec_free(s);
    const char *outside[] = { "import", "kernels/holdout/newton_roots.json", "-o", a, "--set", "x0=10.5" };
    cr_expect_neq(input_cmd(dir, outside, 6), 0);
    cr_expect(strstr(stderr_of(dir), "input \"x0\" element 0 is 10.5 (domain [-10, 10])"), "%s", stderr_of(dir));
    ts_rmtree(dir);
}

/* An input made with a relative spec path shows from another working
 * directory: the manifest keeps the spec's real path beside the path as
 * given (a held-out kernel's user met `input export` failing there). */
Test(input_cli, an_input_shows_from_another_directory)
{
    char dir[64], a[128];
    tmpdir(dir);
    snprintf(a, sizeof a, "%s/a", dir);
    const char *make[] = { "import", "kernels/artificial.json", "-o", a, "--quiet" };
    cr_assert_eq(input_cmd(dir, make, 5), 0, "%s", stderr_of(dir));
    cr_assert_eq(chdir(dir), 0);
    const char *show[] = { "show", a };
    cr_expect_eq(input_cmd(dir, show, 2), 0, "%s", stderr_of(dir));
    ts_rmtree(dir);
}

/* A running sum the user does not give (a CSR graph's row starts) is
 * computed from the summands they give; one they give is checked. */
Test(input_cli, a_running_sum_not_given_is_computed_from_its_summands)
{
    char dir[64], a[128];
    tmpdir(dir);
    snprintf(a, sizeof a, "%s/a", dir);
    const char *make[] = { "import", "tests/specs/csr_bfs.json", "-o", a, "--random", "7",
                           "--set", "nodes.n_edges=i%3", "--quiet" };
    cr_assert_eq(input_cmd(dir, make, 9), 0, "%s", stderr_of(dir));
    wh_error err;
    wh_spec *s = wh_spec_load("tests/specs/csr_bfs.json", &err);
    cr_assert(s, "%s", err.msg);
    wh_image *img = wh_image_load(s, a, &err);
    cr_assert(img, "%s", err.msg);
    const wh_buffer *nodes = &img->bufs[0];
    int64_t run = 0;
    for (uint64_t e = 0; e < nodes->count; e++) {
        const unsigned char *el = nodes->data + e * nodes->param->elem_size;
        cr_assert_eq(wh_value_get_int(WH_I32, el + nodes->param->fields[0].offset), run, "start of node %llu",
                     (unsigned long long)e);
        cr_assert_eq(wh_value_get_int(WH_I32, el + nodes->param->fields[1].offset), (int64_t)(e % 3));
        run += (int64_t)(e % 3);
    }
    wh_image_free(img);
    wh_spec_free(s);

    const char *too_many[] = { "import", "tests/specs/csr_bfs.json", "-o", a, "--set", "nodes.n_edges=32" };
    cr_expect_eq(input_cmd(dir, too_many, 6), 1);
    cr_expect(strstr(stderr_of(dir), "totals 8192, past the range's high end 2048"), "%s", stderr_of(dir));
    const char *given[] = { "import", "kernels/corpus/sssp_relax.json", "-o", a, "--set", "degree=1",
                            "--set", "row_start=i+1" };
    cr_expect_eq(input_cmd(dir, given, 8), 1, "a running sum given is checked, not recomputed");
    cr_expect(strstr(stderr_of(dir), "element 0 is 1, not 0 (the sum before it)"), "%s", stderr_of(dir));
    ts_rmtree(dir);
}

static void expect_refused(const char *dir, const char *const *args, int n, const char *says)
{
    cr_expect_eq(input_cmd(dir, args, n), 1, "%s: a user error", args[n - 1]);
    const char *text = stderr_of(dir);
    cr_expect(strstr(text, says), "expected \"%s\" in: %s", says, text);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

/* A .npy v1.0 of n little-endian values of dtype descr (elem bytes each). */
static void write_npy(const char *path, const char *descr, const void *data, size_t n, size_t elem)
{
    char dict[128];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr, n);
    size_t pad = 64 - (10 + (size_t)len + 1) % 64, hlen = (size_t)len + pad + 1;
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)(hlen & 0xff), f);
    fputc((int)(hlen >> 8), f);
    fputs(dict, f);
    for (size_t k = 0; k < pad; k++) fputc(' ', f);
    fputc('\n', f);
    fwrite(data, elem, n, f);
    fclose(f);
}

Test(input_cli, bad_files_and_values_are_refused_with_where_and_what)
{
    char dir[64], a[128], csv[128], npy[128], hdr[128];
    tmpdir(dir);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(csv, sizeof csv, "%s/values.csv", dir);
    snprintf(npy, sizeof npy, "%s/values.npy", dir);
    snprintf(hdr, sizeof hdr, "%s/nodes.csv", dir);

    write_text(csv, "values\n1\n2\n3\n");
    const char *rows[] = { "import", "artificial", "-o", a, "--from", csv };
    expect_refused(dir, rows, 6, "3 rows, but input \"values\" has 32768 elements");

    write_text(csv, "values\n1\nabc\n");
    expect_refused(dir, rows, 6, "values.csv:3:1: \"abc\" is not an integer");

    static int32_t numbers[32768];
    for (int i = 0; i < 32768; i++) numbers[i] = i % 1000;
    numbers[17] = 5000;
    write_npy(npy, "<i4", numbers, 32768, 4);
    const char *dom[] = { "import", "artificial", "-o", a, "--from", npy };
    expect_refused(dir, dom, 6, "element 17 is 5000 (domain [0, 1000])");

    static float floats[32768];
    write_npy(npy, "<f4", floats, 32768, 4);
    expect_refused(dir, dom, 6, "holds floats");

    static int64_t wide[32768];
    wide[3] = (int64_t)1 << 40;
    write_npy(npy, "<i8", wide, 32768, 8);
    expect_refused(dir, dom, 6, "element 3 is 1099511627776, which does not fit");

    write_text(hdr, "start,weight\n0,1\n");
    const char *field[] = { "import", "kernels/bfs1.json", "-o", a, "--from", hdr };
    expect_refused(dir, field, 6, "header column \"weight\"");

    const char *big[] = { "import", "artificial", "-o", a, "--set", "values=i" };
    expect_refused(dir, big, 6, "element 1001 is 1001 (domain [0, 1000])");
    const char *out[] = { "import", "artificial", "-o", a, "--set", "result=1" };
    expect_refused(dir, out, 6, "outputs are zeroed");
    const char *whole[] = { "import", "kernels/bfs1.json", "-o", a, "--set", "nodes=1" };
    expect_refused(dir, whole, 6, "name one field");
    cr_expect(access(a, F_OK) != 0, "nothing saved by a refused import");
    ts_rmtree(dir);
}
