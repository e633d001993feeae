/*
 * test_scale.c — the scaler: atoms land on the right threads, a last gene
 * is cut short when X does not divide N, unsliced inputs get their own
 * gene, and no choice of genes can produce an out-of-domain input.
 */
#include <criterion/criterion.h>

#include "gen/gen.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

static wh_spec *load(const char *path)
{
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_assert(s, "%s: %s %s", path, err.path, err.msg);
    return s;
}

/* An X-thread atom of `artificial` whose values are vals[0..x). */
static int add_values_atom(gen_pool *pool, const int32_t *vals)
{
    wh_error err;
    wh_launch l = wh_launch_threads((unsigned)pool->x);
    wh_image *img = wh_image_new(pool->spec, &l, &err);
    cr_assert(img, "%s", err.msg);
    memcpy(img->bufs[0].data, vals, 4 * (size_t)pool->x);
    int id = gen_pool_add(pool, img, GEN_ATOM_PATH, 0, true, &err);
    cr_assert_geq(id, 0, "%s", err.msg);
    wh_image_free(img);
    return id;
}

static int32_t value_at(const wh_image *img, uint64_t i)
{
    return (int32_t)wh_value_get_int(WH_I32, img->bufs[0].data + 4 * i);
}

Test(scale, artificial_2_15_threads_from_x2_atoms)
{
    wh_spec *s = load("kernels/artificial.json");
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, 2, &err), "%s", err.msg);
    int32_t a[2] = { 7, 8 }, b[2] = { 100, 200 };
    int ia = add_values_atom(&pool, a), ib = add_values_atom(&pool, b);
    wh_launch full = wh_spec_launch_full(s);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, 2, &lay, &err));
    cr_expect_eq(lay.threads, 32768);
    cr_expect_eq(lay.thread_genes, 16384);
    cr_expect_not(lay.has_shared);
    int genes[16384];
    for (int g = 0; g < 16384; g++) genes[g] = (g % 3 == 0) ? ia : ib;
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
    for (int g = 0; g < 16384; g++) {
        const int32_t *src = g % 3 == 0 ? a : b;
        cr_assert_eq(value_at(img, 2 * (uint64_t)g), src[0], "gene %d thread 0", g);
        cr_assert_eq(value_at(img, 2 * (uint64_t)g + 1), src[1], "gene %d thread 1", g);
    }
    cr_expect(wh_image_check_domains(img, &err), "%s", err.msg);
    wh_image_free(img);
    gen_pool_free(&pool);
    wh_spec_free(s);
}

Test(scale, last_gene_cut_short_when_x_does_not_divide_n)
{
    wh_spec *s = load("kernels/artificial.json");
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, 3, &err), "%s", err.msg);
    int32_t a[3] = { 1, 2, 3 }, b[3] = { 4, 5, 6 };
    int ia = add_values_atom(&pool, a), ib = add_values_atom(&pool, b);
    wh_launch full = wh_spec_launch_full(s);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, 3, &lay, &err));
    cr_expect_eq(lay.thread_genes, 10923, "ceil(32768 / 3)");
    int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
    for (int g = 0; g < lay.ngenes; g++) genes[g] = ia;
    genes[lay.ngenes - 1] = ib;
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
    /* 32768 = 3 * 10922 + 2: the last gene places b[0], b[1] and drops b[2]. */
    cr_expect_eq(value_at(img, 32765), 3);
    cr_expect_eq(value_at(img, 32766), 4);
    cr_expect_eq(value_at(img, 32767), 5);
    free(genes);
    wh_image_free(img);
    gen_pool_free(&pool);
    wh_spec_free(s);
}

Test(scale, shared_inputs_get_a_gene_of_their_own)
{
    wh_spec *s = load("tests/specs/full.json");
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, 2, &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 1, 2);
    int r0 = gen_pool_add_random(&pool, &rng, true, &err), r1 = gen_pool_add_random(&pool, &rng, true, &err);
    cr_assert(r0 >= 0 && r1 >= 0, "%s", err.msg);
    wh_launch full = wh_spec_launch_full(s);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, 2, &lay, &err));
    cr_expect(lay.has_shared, "`table` has no per_thread");
    cr_expect_eq(lay.ngenes, lay.thread_genes + 1);
    int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
    for (int g = 0; g < lay.thread_genes; g++) genes[g] = r0;
    genes[lay.thread_genes] = r1;
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
    int table = wh_image_find(img, "table");
    cr_assert_eq(memcmp(img->bufs[table].data, gen_pool_atom_data(&pool, r1, table), 16 * 4), 0,
                 "the shared gene's atom supplies the table");
    free(genes);
    wh_image_free(img);
    gen_pool_free(&pool);
    wh_spec_free(s);
}

Test(scale, index_dependent_domains_follow_the_thread)
{
    wh_spec *s = load("kernels/bfs1.json");
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, 2, &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 3, 4);
    int r = gen_pool_add_random(&pool, &rng, true, &err);
    cr_assert_geq(r, 0, "%s", err.msg);
    wh_launch full = wh_spec_launch_full(s);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, 2, &lay, &err));
    int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
    int nodes = wh_image_find(img, "nodes");
    size_t esz = s->params[nodes].elem_size;
    for (uint64_t i = 0; i < img->bufs[nodes].count; i++)
        cr_assert_eq(wh_value_get_int(WH_I32, img->bufs[nodes].data + i * esz), (int64_t)i * 8,
                     "node %llu starts at i*degree", (unsigned long long)i);
    cr_expect(wh_image_check_domains(img, &err), "%s", err.msg);
    free(genes);
    wh_image_free(img);
    gen_pool_free(&pool);
    wh_spec_free(s);
}

/* Property: over random pools, random gene choices and random strides,
 * every scaled image respects every domain (including ranges over `i` and
 * over `threads`). */
Test(scale, domains_hold_for_any_gene_choice)
{
    static const char *const specs[] = { "tests/specs/full.json", "kernels/bfs1.json", "kernels/artificial.json" };
    for (int k = 0; k < 3; k++) {
        wh_spec *s = load(specs[k]);
        wh_error err;
        for (int x = 2; x <= 4; x++) {
            gen_pool pool;
            cr_assert(gen_pool_init(&pool, s, x, &err), "%s", err.msg);
            pcg32 rng;
            pcg32_seed(&rng, (uint64_t)(k * 10 + x), 7);
            for (int a = 0; a < 6; a++) cr_assert_geq(gen_pool_add_random(&pool, &rng, true, &err), 0, "%s", err.msg);
            wh_launch full = wh_spec_launch_full(s);
            gen_layout lay;
            cr_assert(gen_layout_make(s, &full, x, &lay, &err));
            wh_image *img = wh_image_new(s, &full, &err);
            cr_assert_geq(gen_layout_add_tiling(&lay, img, &err), 1, "%s", err.msg);
            int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
            for (int round = 0; round < 10; round++) {
                for (int g = 0; g < lay.ngenes; g++) genes[g] = (int)pcg32_bounded(&rng, (uint32_t)pool.natoms);
                /* half the rounds plain, half with a random stride */
                if (lay.tiling_gene >= 0)
                    genes[lay.tiling_gene] = round % 2 ? (int)pcg32_bounded(&rng, (uint32_t)lay.ntilings) : 0;
                cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
                cr_assert(wh_image_check_domains(img, &err), "%s X=%d round %d: %s", specs[k], x, round, err.msg);
            }
            free(genes);
            wh_image_free(img);
            gen_pool_free(&pool);
        }
        wh_spec_free(s);
    }
}

Test(scale, bad_gene_is_an_error_not_a_crash)
{
    wh_spec *s = load("kernels/artificial.json");
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, 2, &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 1, 1);
    gen_pool_add_random(&pool, &rng, true, &err);
    wh_launch full = wh_spec_launch_full(s);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, 2, &lay, &err));
    int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
    genes[5] = 3;
    wh_image *img = wh_image_new(s, &full, &err);
    cr_expect_not(gen_scale(&pool, &lay, genes, img, &err));
    cr_expect(strstr(err.msg, "gene 5 chooses atom 3 of 1"), "%s", err.msg);
    free(genes);
    wh_image_free(img);
    gen_pool_free(&pool);
    wh_spec_free(s);
}

Test(scale, pool_save_load_round_trip)
{
    wh_spec *s = load("tests/specs/full.json");
    wh_error err;
    gen_pool a, b;
    cr_assert(gen_pool_init(&a, s, 2, &err) && gen_pool_init(&b, s, 2, &err));
    pcg32 rng;
    pcg32_seed(&rng, 5, 5);
    /* every third atom with shared inputs, as the shared gene draws them */
    for (int i = 0; i < 100; i++) cr_assert_geq(gen_pool_add_random(&a, &rng, i % 3 == 0, &err), 0);
    cr_assert_gt(a.shared_bytes, 0, "the spec has shared inputs");
    cr_expect_eq(a.nshared, 34);
    a.atoms[3].origin = GEN_ATOM_PATH;
    a.atoms[3].path = 12;
    a.atoms[3].valid = false;
    char path[] = "/tmp/wh_pool_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    int keep = a.natoms;
    a.natoms = 60;
    cr_assert(gen_pool_save(&a, path, 0, &err), "%s", err.msg);
    a.natoms = keep;
    cr_assert(gen_pool_save(&a, path, 60, &err), "append: %s", err.msg);
    cr_assert(gen_pool_load(&b, path, &err), "%s", err.msg);
    cr_expect_eq(b.natoms, 100);
    cr_expect_eq(b.atoms[3].path, 12);
    cr_expect_not(b.atoms[3].valid);
    cr_expect_eq(memcmp(a.data, b.data, 100 * a.thread_bytes), 0);
    cr_expect_eq(b.nshared, 34);
    cr_expect_eq(memcmp(a.sdata, b.sdata, 34 * a.shared_bytes), 0);
    for (int i = 0; i < 100; i++) cr_expect_eq(b.atoms[i].shared >= 0, i % 3 == 0, "atom %d", i);
    /* a torn last record is ignored */
    FILE *f = fopen(path, "ab");
    fwrite("torn", 1, 4, f);
    fclose(f);
    gen_pool_free(&b);
    cr_assert(gen_pool_init(&b, s, 2, &err));
    cr_assert(gen_pool_load(&b, path, &err), "%s", err.msg);
    cr_expect_eq(b.natoms, 100);
    gen_pool c;
    cr_assert(gen_pool_init(&c, s, 3, &err));
    cr_expect_not(gen_pool_load(&c, path, &err), "X differs");
    cr_expect(strstr(err.msg, "another X"), "%s", err.msg);
    unlink(path);
    gen_pool_free(&a);
    gen_pool_free(&b);
    gen_pool_free(&c);
    wh_spec_free(s);
}

/* Stride tiling: gene group g's values are the atom's plus g * 2^(t-1),
 * wrapping inside the domain [0, 1000] of `artificial`; t = 0 is plain. */
Test(scale, stride_tiling_shifts_every_gene_group)
{
    wh_spec *s = load("kernels/artificial.json");
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, 2, &err), "%s", err.msg);
    int32_t a[2] = { 7, 990 };
    int ia = add_values_atom(&pool, a);
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, 2, &lay, &err));
    cr_expect_eq(lay.tiling_gene, -1);
    /* 1001 values: strides 1, 2, ..., 512 */
    cr_assert_eq(gen_layout_add_tiling(&lay, img, &err), 11, "%s", err.msg);
    cr_expect_eq(lay.tiling_gene, 16384);
    cr_expect_eq(lay.ngenes, 16385);
    cr_expect_eq(gen_tiling_stride(0), 0);
    cr_expect_eq(gen_tiling_stride(10), 512);
    int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
    for (int g = 0; g < lay.thread_genes; g++) genes[g] = ia;
    for (int t = 0; t < lay.ntilings; t++) {
        genes[lay.tiling_gene] = t;
        cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
        uint64_t stride = gen_tiling_stride(t);
        for (uint64_t g = 0; g < 16384; g += 97)
            for (int k = 0; k < 2; k++)
                cr_assert_eq(value_at(img, 2 * g + (uint64_t)k), (int32_t)((a[k] + g * stride) % 1001),
                             "stride %llu, gene %llu, thread %d", (unsigned long long)stride,
                             (unsigned long long)g, k);
    }
    genes[lay.tiling_gene] = 11;
    cr_expect_not(gen_scale(&pool, &lay, genes, img, &err));
    cr_expect(strstr(err.msg, "chooses tiling 11 of 11"), "%s", err.msg);
    free(genes);
    wh_image_free(img);
    gen_pool_free(&pool);
    wh_spec_free(s);
}

/* The tiling gene's range follows the widest integer domain of the
 * per-thread inputs. */
Test(scale, tiling_values_follow_the_domains)
{
    static const struct { const char *spec; int ntilings; } cases[] = {
        { "kernels/gt_paths32.json", 9 },   /* [0, 255]: strides 1 .. 128 */
        { "kernels/gt_hash.json", 25 },     /* [1, 2^24 - 1]: strides 1 .. 2^23 */
        { "kernels/gt_gather.json", 19 },   /* [0, 8 * 32768 - 1]: strides 1 .. 2^17 */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        wh_spec *s = load(cases[c].spec);
        wh_error err;
        wh_launch full = wh_spec_launch_full(s);
        wh_image *img = wh_image_new(s, &full, &err);
        gen_layout lay;
        cr_assert(gen_layout_make(s, &full, 2, &lay, &err));
        cr_expect_eq(gen_layout_add_tiling(&lay, img, &err), cases[c].ntilings, "%s", cases[c].spec);
        cr_expect_eq(lay.ngenes, lay.thread_genes + 1);
        wh_image_free(img);
        wh_spec_free(s);
    }
}

/* Random atoms of a pool that knows the full launch span its domains: on
 * hunt_gather_small (idx in [0, 8N-1]) X = 2 atoms alone would give idx in
 * [0, 15]; with gen_pool_set_full the scaled values cover the whole range,
 * and every scaled input stays in its domain. */
Test(scale, random_atoms_span_the_full_launch_domain)
{
    wh_spec *s = load("tests/specs/hunt_gather_small.json");
    wh_error err;
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, 2, &lay, &err), "%s", err.msg);
    int64_t words = 8 * (int64_t)lay.threads;
    /* pass 0: stored atoms in the X-thread domain; 1: stored atoms across the
     * full launch; 2: seeded alleles (nothing stored), across it too */
    for (int pass = 0; pass < 3; pass++) {
        gen_pool pool;
        cr_assert(gen_pool_init(&pool, s, 2, &err), "%s", err.msg);
        if (pass) gen_pool_set_full(&pool, img);
        pcg32 rng;
        pcg32_seed(&rng, 9, 9);
        int *genes = malloc((size_t)lay.ngenes * sizeof *genes);
        for (int g = 0; g < lay.ngenes; g++) {
            genes[g] = pass == 2 ? gen_seeded_allele(pcg32_next(&rng)) : gen_pool_add_random(&pool, &rng, true, &err);
            cr_assert(pass == 2 || genes[g] >= 0, "%s", err.msg);
        }
        if (pass == 2) cr_expect_eq(pool.natoms, 0, "seeded alleles store nothing");
        cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
        cr_expect(wh_image_check_domains(img, &err), "%s", err.msg);
        int64_t hi = 0;
        for (uint64_t i = 0; i < lay.threads; i++)
            if (value_at(img, i) > hi) hi = value_at(img, i);
        if (pass)
            cr_expect_gt(hi, words / 2, "full-domain random atoms reach %lld of %lld", (long long)hi,
                         (long long)words - 1);
        else
            cr_expect_leq(hi, 15, "X-domain random atoms stay in [0, 15]: %lld", (long long)hi);
        free(genes);
        gen_pool_free(&pool);
    }
    wh_image_free(img);
    wh_spec_free(s);
}

/* A random atom drawn for a thread gene has no shared inputs (they would
 * cost memory for nothing); carried to the shared gene by a mutation, it
 * leaves the shared inputs at the low end of their domains. */
Test(scale, an_atom_without_shared_inputs_leaves_them_low)
{
    wh_spec *s = load("tests/specs/full.json");
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, 2, &err), "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 3, 4);
    int with = gen_pool_add_random(&pool, &rng, true, &err), without = gen_pool_add_random(&pool, &rng, false, &err);
    cr_assert(with >= 0 && without >= 0, "%s", err.msg);
    cr_expect_eq(pool.nshared, 1);
    wh_launch full = wh_spec_launch_full(s);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, 2, &lay, &err));
    cr_assert(lay.has_shared);
    int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
    for (int g = 0; g < lay.ngenes; g++) genes[g] = without;
    wh_image *img = wh_image_new(s, &full, &err), *low = wh_image_new(s, &full, &err);
    cr_assert(wh_image_fill_random(img, &rng, &err));
    cr_assert(gen_scale(&pool, &lay, genes, img, &err), "%s", err.msg);
    cr_assert(wh_image_check_domains(img, &err), "%s", err.msg);
    int shared = 0;
    for (int p = 0; p < img->nbufs; p++) {
        if (s->params[p].role != WH_ROLE_INPUT || s->params[p].per_thread) continue;
        cr_assert(wh_image_fill_low(low, p, &err));
        cr_expect_eq(memcmp(img->bufs[p].data, low->bufs[p].data, img->bufs[p].bytes), 0, "%s", s->params[p].name);
        cr_expect_null(gen_pool_atom_data(&pool, without, p));
        cr_expect_not_null(gen_pool_atom_data(&pool, with, p));
        shared++;
    }
    cr_expect_gt(shared, 0);
    free(genes);
    wh_image_free(img);
    wh_image_free(low);
    gen_pool_free(&pool);
    wh_spec_free(s);
}

/* Elements of input buffer p that differ between two images. */
static uint64_t elements_differing(const wh_image *a, const wh_image *b, int p)
{
    size_t es = a->bufs[p].param->elem_size;
    uint64_t n = 0;
    for (uint64_t e = 0; e < a->bufs[p].count; e++)
        n += memcmp(a->bufs[p].data + e * es, b->bufs[p].data + e * es, es) != 0;
    return n;
}

/* A random full-size input taken apart into genes (gen_unscale) and tiled
 * back (gen_scale); returns the two images' differing elements per input
 * buffer in diff[] (which must hold nparams). */
static void unscale_round_trip(const char *spec_path, bool tiling, uint64_t seed, uint64_t *diff)
{
    wh_spec *s = load(spec_path);
    wh_error err;
    gen_pool pool;
    cr_assert(gen_pool_init(&pool, s, s->sym_threads[0], &err), "%s", err.msg);
    wh_launch full = wh_spec_launch_full(s);
    wh_image *given = wh_image_new(s, &full, &err), *back = wh_image_new(s, &full, &err);
    cr_assert(given && back, "%s", err.msg);
    gen_layout lay;
    cr_assert(gen_layout_make(s, &full, pool.x, &lay, &err), "%s", err.msg);
    if (tiling) cr_assert_geq(gen_layout_add_tiling(&lay, given, &err), 1, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, seed, 9);
    cr_assert(wh_image_fill_random(given, &rng, &err), "%s", err.msg);
    int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
    int before = pool.natoms;
    cr_assert(gen_unscale(&pool, &lay, given, genes, &err), "%s", err.msg);
    cr_expect_eq(pool.natoms - before, lay.thread_genes + (lay.has_shared ? 1 : 0), "one atom per gene");
    for (int a = before; a < pool.natoms; a++) cr_expect_eq(pool.atoms[a].origin, GEN_ATOM_SEED);
    if (lay.tiling_gene >= 0) cr_expect_eq(genes[lay.tiling_gene], 0, "plain tiling");
    cr_assert(gen_scale(&pool, &lay, genes, back, &err), "%s", err.msg);
    for (int p = 0; p < s->nparams; p++)
        diff[p] = s->params[p].role == WH_ROLE_INPUT ? elements_differing(given, back, p) : 0;
    free(genes);
    wh_image_free(given);
    wh_image_free(back);
    gen_pool_free(&pool);
    wh_spec_free(s);
}

/* Inputs whose domains depend on the element (bfs1's start = i*degree),
 * on the launch (edges in [0, threads-1], wider than any X-thread
 * domain), with a tiling gene, and with a shared input of fixed size. */
Test(scale, unscale_then_scale_gives_back_any_input_the_layout_states)
{
    static const char *const specs[] = { "kernels/bfs1.json", "tests/specs/full.json", "kernels/artificial.json",
                                         "kernels/corpus/cdf_search.json" };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint64_t diff[64] = { 0 };
            unscale_round_trip(specs[k], seed == 2, seed, diff);
            for (int p = 0; p < 64; p++) cr_expect_eq(diff[p], 0, "%s seed %llu: parameter %d differs in %llu elements",
                                                     specs[k], (unsigned long long)seed, p, (unsigned long long)diff[p]);
        }
}

/* A shared input sized by the launch (structure_none's a, threads + 1
 * elements; md_cutoff's neighList was one until session 27 made it owned):
 * the layout repeats its first X-thread elements, so a random one cannot
 * be stated, and the round trip says so, while the rest stays exact. */
Test(scale, unscale_cannot_state_a_shared_input_that_does_not_repeat)
{
    const char *spec = "tests/specs/structure_none.json";
    wh_spec *s = load(spec);
    int a = -1;
    for (int p = 0; p < s->nparams; p++)
        if (!strcmp(s->params[p].name, "a")) a = p;
    cr_assert_geq(a, 0);
    cr_assert_eq(s->params[a].per_thread, 0, "a is shared");
    wh_spec_free(s);
    uint64_t diff[64] = { 0 };
    unscale_round_trip(spec, false, 5, diff);
    cr_expect_gt(diff[a], 0, "a random a is not a repetition of its first elements");
    for (int p = 0; p < 64; p++)
        if (p != a) cr_expect_eq(diff[p], 0, "parameter %d", p);
}

/* Seeded alleles (negative ids) store nothing: the scaler draws their
 * values from the seed, the same every time, across the full launch's
 * domains, shared inputs included, and never outside a domain. */
Test(scale, seeded_alleles_draw_the_same_values_every_time_within_the_domains)
{
    static const char *const specs[] = { "tests/specs/hunt_gather_small.json", "tests/specs/full.json",
                                         "kernels/bfs1.json" };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        wh_spec *s = load(specs[k]);
        wh_error err;
        wh_launch full = wh_spec_launch_full(s);
        wh_image *a = wh_image_new(s, &full, &err), *b = wh_image_new(s, &full, &err), *c = wh_image_new(s, &full, &err);
        cr_assert(a && b && c, "%s", err.msg);
        gen_pool pool;
        cr_assert(gen_pool_init(&pool, s, 2, &err), "%s", err.msg);
        gen_pool_set_full(&pool, a);
        gen_layout lay;
        cr_assert(gen_layout_make(s, &full, 2, &lay, &err), "%s", err.msg);
        int *genes = malloc((size_t)lay.ngenes * sizeof *genes), *other = malloc((size_t)lay.ngenes * sizeof *other);
        for (int g = 0; g < lay.ngenes; g++) {
            genes[g] = gen_seeded_allele(1000u + (uint32_t)g * 7919u);
            other[g] = gen_seeded_allele(5u + (uint32_t)g);
            cr_assert_lt(genes[g], 0);
        }
        cr_assert(gen_scale(&pool, &lay, genes, a, &err), "%s", err.msg);
        cr_assert(gen_scale(&pool, &lay, genes, b, &err), "%s", err.msg);
        cr_assert(gen_scale(&pool, &lay, other, c, &err), "%s", err.msg);
        cr_expect_eq(pool.natoms, 0, "%s: nothing stored", specs[k]);
        cr_expect(wh_image_check_domains(a, &err), "%s: %s", specs[k], err.msg);
        cr_expect(wh_image_check_domains(c, &err), "%s: %s", specs[k], err.msg);
        for (int p = 0; p < s->nparams; p++) {
            if (s->params[p].role != WH_ROLE_INPUT) continue;
            cr_expect_eq(elements_differing(a, b, p), 0, "%s parameter %d: the same seeds, the same values", specs[k], p);
            cr_expect_gt(elements_differing(a, c, p), 0, "%s parameter %d: other seeds, other values", specs[k], p);
        }
        free(genes);
        free(other);
        gen_pool_free(&pool);
        wh_image_free(a);
        wh_image_free(b);
        wh_image_free(c);
        wh_spec_free(s);
    }
}

/* gen_thread_atom: one thread's per-thread inputs in an atom, and that
 * atom on every thread gene gives them to every thread (a pair per thread
 * in gcd_steps, 32 bytes per thread in fsm_lexer). */
Test(scale, a_thread_atom_gives_one_threads_input_to_every_thread)
{
    static const char *const specs[] = { "kernels/holdout/gcd_steps.json", "kernels/corpus/fsm_lexer.json" };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        wh_spec *s = load(specs[k]);
        wh_error err;
        gen_pool pool;
        cr_assert(gen_pool_init(&pool, s, s->sym_threads[0], &err), "%s", err.msg);
        wh_launch full = wh_spec_launch_full(s);
        wh_image *given = wh_image_new(s, &full, &err), *out = wh_image_new(s, &full, &err);
        cr_assert(given && out, "%s", err.msg);
        gen_layout lay;
        cr_assert(gen_layout_make(s, &full, pool.x, &lay, &err), "%s", err.msg);
        pcg32 rng;
        pcg32_seed(&rng, 3, 9);
        cr_assert(wh_image_fill_random(given, &rng, &err), "%s", err.msg);
        uint64_t thread = lay.threads / 2 + 7;
        int atom = gen_thread_atom(&pool, &lay, given, thread, &err);
        cr_assert_geq(atom, 0, "%s", err.msg);
        cr_expect_eq(gen_thread_atom(&pool, &lay, given, lay.threads, &err), -1, "past the last thread");
        int *genes = calloc((size_t)lay.ngenes, sizeof *genes);
        for (int g = 0; g < lay.ngenes; g++) genes[g] = g == lay.tiling_gene ? 0 : atom;
        cr_assert(gen_scale(&pool, &lay, genes, out, &err), "%s", err.msg);
        int checked = 0;
        for (int p = 0; p < s->nparams; p++) {
            const wh_param *par = &s->params[p];
            if (par->role != WH_ROLE_INPUT || !par->per_thread) continue;
            size_t es = par->elem_size;
            for (uint64_t t = 0; t < lay.threads; t++)
                for (uint64_t j = 0; j < (uint64_t)par->per_thread; j++) {
                    const unsigned char *want = given->bufs[p].data + wh_owned_elem(par, &full, thread, j) * es;
                    const unsigned char *got = out->bufs[p].data + wh_owned_elem(par, &full, t, j) * es;
                    cr_assert(!memcmp(want, got, es), "%s: %s of thread %llu, element %llu", specs[k], par->name,
                              (unsigned long long)t, (unsigned long long)j);
                }
            checked++;
        }
        cr_expect_geq(checked, 1, "%s has a per-thread input", specs[k]);
        free(genes);
        wh_image_free(given);
        wh_image_free(out);
        gen_pool_free(&pool);
        wh_spec_free(s);
    }
}
