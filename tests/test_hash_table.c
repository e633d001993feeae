/*
 * test_hash_table.c — input buffers that hold an open-addressing hash
 * table with linear probing ("hash_table"): the key hashes against
 * Murmur3's published finalizer and their inverses, the spec refusing what
 * cannot be a table, the projection (a table left as it is, broken keys
 * rehomed at their slot so occupancy stays, excess keys emptied evenly,
 * a key with no rehoming in its range emptied), the check naming each
 * kind of break, random tables built as inserts build them, and the
 * symbolic stage solving only tables (tests/specs/hash_probe.json).
 */
#include <criterion/criterion.h>

#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "gen/explore.h"
#include "tests/support.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    char dir[64];
    wh_spec *spec;
    wh_image *img;
} slots;

/* A spec of one u32 input buffer of n slots in [lo, hi] whose
 * "hash_table" member is `table`; an image of it when it loads. */
static bool open_slots(slots *b, int n, const char *type, long long lo, long long hi, const char *table,
                       wh_error *err)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
             "\"constants\":{\"N\":%d},\"params\":[{\"name\":\"keys\",\"kind\":\"buffer\",\"type\":\"%s\","
             "\"count\":\"N\",\"role\":\"input\",\"range\":[%lld,%lld],\"hash_table\":%s}]}",
             n, type, lo, hi, table);
    b->spec = ts_temp_spec_image(json, b->dir, &b->img, err);
    return b->img != NULL;
}

static void close_slots(slots *b)
{
    wh_image_free(b->img);
    wh_spec_free(b->spec);
    ts_rmtree(b->dir);
}

static int64_t key(const slots *b, uint64_t i)
{
    return wh_value_get_int(b->spec->params[0].type, b->img->bufs[0].data + i * b->spec->params[0].elem_size);
}

static void set_key(slots *b, uint64_t i, int64_t v)
{
    wh_value_set_int(b->spec->params[0].type, b->img->bufs[0].data + i * b->spec->params[0].elem_size, v);
}

/* A u32 key whose fmix32 home among n slots is `home` (the m-th such). */
static int64_t key_homed(uint32_t home, uint32_t n, uint32_t m)
{
    return wh_key_unhash(WH_HASH_FMIX32, m * n + home);
}

static uint64_t home(uint64_t k, uint64_t n)
{
    return wh_key_hash_of(WH_HASH_FMIX32, (uint32_t)k) % n;
}

/* Murmur3's fmix32 at published-algorithm values (computed from its
 * definition), and both hashes' inverses over random words. */
Test(hash_table, the_key_hashes_are_fmix32_and_the_identity_and_invert)
{
    cr_expect_eq(wh_key_hash_of(WH_HASH_FMIX32, 0), 0u);
    cr_expect_eq(wh_key_hash_of(WH_HASH_FMIX32, 1), 0x514e28b7u);
    cr_expect_eq(wh_key_hash_of(WH_HASH_FMIX32, 42), 0x087fcd5cu);
    cr_expect_eq(wh_key_hash_of(WH_HASH_FMIX32, 0xdeadbeefu), 0x0de5c6a9u);
    cr_expect_eq(wh_key_hash_of(WH_HASH_IDENTITY, 77), 77u);
    pcg32 rng;
    pcg32_seed(&rng, 5, 1);
    for (int k = 0; k < 10000; k++) {
        uint32_t x = pcg32_next(&rng);
        cr_assert_eq(wh_key_unhash(WH_HASH_FMIX32, wh_key_hash_of(WH_HASH_FMIX32, x)), x, "x = %u", x);
        cr_assert_eq(wh_key_hash_of(WH_HASH_FMIX32, wh_key_unhash(WH_HASH_FMIX32, x)), x, "x = %u", x);
        cr_assert_eq(wh_key_unhash(WH_HASH_IDENTITY, x), x);
    }
}

Test(hash_table, the_spec_refuses_what_cannot_be_a_table)
{
    static const struct {
        const char *type, *table, *says;
    } bad[] = {
        { "f32", "{\"hash\":\"fmix32\"}", "keys are 32-bit integers" },
        { "u64", "{\"hash\":\"fmix32\"}", "keys are 32-bit integers (u32 or i32), not u64" },
        { "u32", "{\"hash\":\"md5\"}", "\"hash\" is \"fmix32\"" },
        { "u32", "{}", "\"hash\" is \"fmix32\"" },
        { "u32", "{\"hash\":\"fmix32\",\"empty\":-1}", "-1 is not a u32" },
        { "u32", "{\"hash\":\"fmix32\",\"key\":\"k\"}", "this buffer's elements are the keys" },
        { "u32", "{\"hash\":\"fmix32\",\"probes\":3}", "unknown key \"probes\"" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        slots b;
        wh_error err;
        bool ok = open_slots(&b, 8, bad[k].type, 0, bad[k].type[0] == 'f' ? 1 : 100, bad[k].table, &err);
        cr_expect_not(ok, "case %zu loads", k);
        cr_expect(strstr(err.msg, bad[k].says), "case %zu: %s", k, err.msg);
        cr_expect(strstr(err.path, ".hash_table"), "case %zu: %s", k, err.path);
        close_slots(&b);
    }
    slots b;
    wh_error err;
    cr_expect_not(open_slots(&b, 8, "u32", 1, 100, "{\"hash\":\"fmix32\"}", &err), "empty 0 outside [1, 100]");
    cr_expect(strstr(err.msg, "the empty marker 0 is outside the key's range [1, 100]"), "%s", err.msg);
    close_slots(&b);
}

/* Keys placed as inserts place them are left as they are; so is an empty
 * table (the low end) and a random one (inserts of random keys). */
Test(hash_table, a_table_is_left_as_it_is)
{
    slots b;
    wh_error err;
    cr_assert(open_slots(&b, 64, "u32", 0, 4294967295LL, "{\"hash\":\"fmix32\",\"max_probes\":4,\"max_keys\":40}",
                         &err), "%s", err.msg);
    for (uint64_t i = 0; i < 64; i++) cr_assert_eq(key(&b, i), 0, "the low end is an empty table");
    /* a cluster wrapping past the last slot: homes 62, 62, 63, 0 */
    set_key(&b, 62, key_homed(62, 64, 1));
    set_key(&b, 63, key_homed(62, 64, 2));
    set_key(&b, 0, key_homed(63, 64, 1));
    set_key(&b, 1, key_homed(0, 64, 1));
    set_key(&b, 10, key_homed(10, 64, 3));
    unsigned char before[64 * 4];
    memcpy(before, b.img->bufs[0].data, sizeof before);
    cr_expect(wh_image_check_structure(b.img, 0, &err), "%s", err.msg);
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    cr_expect_eq(memcmp(before, b.img->bufs[0].data, sizeof before), 0);
    pcg32 rng;
    pcg32_seed(&rng, 7, 3);
    int sizes = 0;
    for (int r = 0; r < 20; r++) {
        cr_assert(wh_image_fill_random(b.img, &rng, &err), "%s", err.msg);
        cr_expect(wh_image_check_structure(b.img, 0, &err), "random table %d: %s", r, err.msg);
        int n = 0;
        for (uint64_t i = 0; i < 64; i++) n += key(&b, i) != 0;
        cr_expect_leq(n, 40);
        sizes += n;
        memcpy(before, b.img->bufs[0].data, sizeof before);
        cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
        cr_expect_eq(memcmp(before, b.img->bufs[0].data, sizeof before), 0, "random table %d changed", r);
    }
    /* 40 random keys inserted with at most 4 probes: a few find no slot */
    cr_expect_gt(sizes, 20 * 30, "random tables hold %d keys in all", sizes);
    close_slots(&b);
}

/* A key too far from its home, one past an empty slot and a second copy
 * are each replaced by a key homed at their own slot: the occupied slots
 * stay occupied, the keys that kept the table stay as they are. */
Test(hash_table, broken_keys_are_rehomed_at_their_slot)
{
    slots b;
    wh_error err;
    cr_assert(open_slots(&b, 32, "u32", 0, 4294967295LL, "{\"hash\":\"fmix32\",\"max_probes\":4}", &err), "%s",
              err.msg);
    int64_t a = key_homed(4, 32, 5), far = key_homed(20, 32, 1), gap = key_homed(8, 32, 2);
    set_key(&b, 4, a);
    set_key(&b, 5, a);        /* twice: the copy is replaced */
    set_key(&b, 6, key_homed(5, 32, 9));   /* home 5, slot 5 occupied: kept */
    set_key(&b, 26, far);     /* home 20: 6 slots away, more than 3 */
    set_key(&b, 10, gap);     /* home 8, slot 9 empty */
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_structure(b.img, 0, &err), "%s", err.msg);
    cr_expect_eq(key(&b, 4), a);
    cr_expect_eq(key(&b, 6), key_homed(5, 32, 9));
    for (uint64_t i = 0; i < 32; i++) {
        bool was = i == 4 || i == 5 || i == 6 || i == 26 || i == 10;
        cr_expect_eq(key(&b, i) != 0, was, "slot %llu", (unsigned long long)i);
    }
    cr_expect_neq(key(&b, 5), a);
    cr_expect_eq(home((uint64_t)key(&b, 5), 32), 5u);
    cr_expect_eq(home((uint64_t)key(&b, 26), 32), 26u);
    cr_expect_eq(home((uint64_t)key(&b, 10), 32), 10u);
    close_slots(&b);
}

/* More keys than max_keys: the excess emptied evenly (every other key of a
 * full table at half load), and the rest rehomed as needed. */
Test(hash_table, excess_keys_are_emptied_evenly)
{
    slots b;
    wh_error err;
    cr_assert(open_slots(&b, 16, "u32", 0, 4294967295LL,
                         "{\"hash\":\"fmix32\",\"max_probes\":2,\"max_keys\":\"N/2\"}", &err), "%s", err.msg);
    for (uint64_t i = 0; i < 16; i++) set_key(&b, i, key_homed((uint32_t)i, 16, 1));
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_expect(strstr(err.msg, "16 keys, more than max_keys 8"), "%s", err.msg);
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_structure(b.img, 0, &err), "%s", err.msg);
    for (uint64_t i = 0; i < 16; i++)
        cr_expect_eq(key(&b, i) != 0, i % 2 == 1, "slot %llu", (unsigned long long)i);
    close_slots(&b);
}

/* i32 keys of a narrow range under the identity hash: a slot no key of
 * the range can call home is emptied rather than given a key out of range. */
Test(hash_table, a_key_that_cannot_be_rehomed_in_range_is_emptied)
{
    slots b;
    wh_error err;
    cr_assert(open_slots(&b, 16, "i32", -1, 5, "{\"hash\":\"identity\",\"empty\":-1,\"max_probes\":2}", &err),
              "%s", err.msg);
    for (uint64_t i = 0; i < 16; i++) cr_assert_eq(key(&b, i), -1, "the low end is empty");
    set_key(&b, 3, 3);     /* home 3: kept */
    set_key(&b, 4, 3);     /* a copy: rehomed to 4 */
    set_key(&b, 12, 2);    /* home 2: too far, and no key in [0, 5] has home 12 */
    cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
    cr_expect(wh_image_check_domains(b.img, &err), "%s", err.msg);
    cr_expect_eq(key(&b, 3), 3);
    cr_expect_eq(key(&b, 4), 4);
    cr_expect_eq(key(&b, 12), -1);
    close_slots(&b);
}

Test(hash_table, a_broken_table_is_named)
{
    slots b;
    wh_error err;
    cr_assert(open_slots(&b, 32, "u32", 0, 4294967295LL, "{\"hash\":\"fmix32\",\"max_probes\":3}", &err), "%s",
              err.msg);
    int64_t k = key_homed(7, 32, 4);
    set_key(&b, 10, k);
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    char want[160];
    snprintf(want, sizeof want, "input \"keys\" (\"hash_table\"): slot 10 holds key %lld, whose home is slot 7: more "
             "than max_probes - 1 = 2 slots after it", (long long)k);
    cr_expect(strstr(err.msg, want), "%s", err.msg);
    cr_expect_str_eq(err.path, "$.params[0].hash_table");
    set_key(&b, 10, 0);
    set_key(&b, 9, k);
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    cr_expect(strstr(err.msg, "but slot 7 on its way is empty"), "%s", err.msg);
    set_key(&b, 7, k);
    set_key(&b, 8, key_homed(8, 32, 1));
    cr_expect_not(wh_image_check_structure(b.img, 0, &err));
    snprintf(want, sizeof want, "key %lld is in slots 7 and 9", (long long)k);
    cr_expect(strstr(err.msg, want), "%s", err.msg);
    set_key(&b, 9, 0);
    cr_expect(wh_image_check_structure(b.img, 0, &err), "%s", err.msg);
    close_slots(&b);
}

/* The symbolic stage assumes the table: every atom hash_probe's stage
 * solves is a table (its solver would otherwise pick any keys for the
 * slots its lookups pass). */
static bool atom_is_table(const wh_image *img, int p, void *ctx, wh_error *err)
{
    for (uint64_t i = 0; i < img->bufs[p].count; i++) *(int *)ctx += ((const uint32_t *)img->bufs[p].data)[i] != 0;
    return wh_image_check_hash_table(img, p, err);
}

Test(hash_table, the_symbolic_stage_solves_only_tables, .timeout = 240)
{
    int occupied = 0;
    ts_check_atoms("tests/specs/hash_probe.json", "build/ptx/tests/ptx/hash_probe.ptx", 8, "keys", atom_is_table,
                   &occupied);
    cr_expect_gt(occupied, 0, "no atom's lookup passes an occupied slot");
}

/* Struct slots: "key" names the key field, and the projection changes
 * keys only (a slot's value stays, and a slot emptied keeps it too). */
Test(hash_table, struct_slots_project_their_key_field_only)
{
    char dir[64];
    wh_image *img;
    wh_error err;
    wh_spec *spec = ts_temp_spec_image(
        "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],\"params\":[{\"name\":\"slots\","
        "\"kind\":\"buffer\",\"type\":\"struct\",\"count\":16,\"role\":\"input\",\"fields\":["
        "{\"name\":\"val\",\"type\":\"i32\",\"range\":[0,1000]},{\"name\":\"key\",\"type\":\"u32\"}],"
        "\"hash_table\":{\"hash\":\"fmix32\",\"key\":\"key\",\"max_probes\":2}}]}",
        dir, &img, &err);
    cr_assert(img, "%s", err.msg);
    const wh_param *p = &spec->params[0];
    for (uint64_t i = 0; i < 16; i++) {
        unsigned char *e = img->bufs[0].data + i * p->elem_size;
        wh_value_set_int(WH_I32, e + p->fields[0].offset, (int64_t)(100 + i));
        wh_value_set_int(WH_U32, e + p->fields[1].offset, i % 3 ? key_homed((uint32_t)(i + 5) % 16, 16, 1) : 0);
    }
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    cr_expect(wh_image_check_structure(img, 0, &err), "%s", err.msg);
    for (uint64_t i = 0; i < 16; i++) {
        const unsigned char *e = img->bufs[0].data + i * p->elem_size;
        int64_t k = wh_value_get_int(WH_U32, e + p->fields[1].offset);
        cr_expect_eq(wh_value_get_int(WH_I32, e + p->fields[0].offset), (int64_t)(100 + i));
        cr_expect_eq(k != 0, i % 3 != 0, "slot %llu", (unsigned long long)i);
        if (k) cr_expect_eq(home((uint64_t)k, 16), i, "slot %llu: its key homes far away", (unsigned long long)i);
    }
    wh_image_free(img);
    wh_spec_free(spec);
    ts_rmtree(dir);
}

/* The statistics input show prints: keys, and the longest run of occupied
 * slots, a run past the last slot going on from slot 0. */
Test(hash_table, stats_count_keys_and_the_longest_run_across_the_end)
{
    slots b;
    wh_error err;
    cr_assert(open_slots(&b, 8, "u32", 0, 100, "{\"hash\":\"identity\"}", &err), "%s", err.msg);
    uint64_t keys, run;
    wh_hash_table_stats(&b.img->bufs[0], &keys, &run);
    cr_expect(keys == 0 && run == 0);
    const int occupied[] = { 6, 7, 0, 1, 3 };
    for (int k = 0; k < 5; k++) set_key(&b, (uint64_t)occupied[k], 9);
    wh_hash_table_stats(&b.img->bufs[0], &keys, &run);
    cr_expect_eq(keys, 5);
    cr_expect_eq(run, 4, "slots 6, 7, 0, 1: %llu", (unsigned long long)run);
    for (uint64_t i = 0; i < 8; i++) set_key(&b, i, 9);
    wh_hash_table_stats(&b.img->bufs[0], &keys, &run);
    cr_expect(keys == 8 && run == 8, "a full table: %llu keys, run %llu", (unsigned long long)keys,
              (unsigned long long)run);
    close_slots(&b);
}

/* The definition, slot by slot: every key within max_probes - 1 of its
 * home, each slot on its way occupied by another key. */
static bool table_by_definition(const slots *b, uint64_t n, uint64_t probes)
{
    for (uint64_t i = 0; i < n; i++) {
        int64_t k = key(b, i);
        if (k == 0) continue;
        uint64_t h = home((uint64_t)k, n), d = (i + n - h) % n;
        if (d >= probes) return false;
        for (uint64_t j = 0; j < d; j++)
            if (key(b, (h + j) % n) == 0 || key(b, (h + j) % n) == k) return false;
    }
    return true;
}

/* 2000 random small tables, keys homed near their slots with many copies
 * and ways around the last slot: the check agrees with the definition,
 * and the projection makes a table, keeps every occupied slot occupied
 * (any u32 may be a key) and leaves its result as it is. */
Test(hash_table, the_check_and_the_projection_agree_with_the_definition)
{
    pcg32 rng;
    pcg32_seed(&rng, 11, 5);
    int agreed = 0, broken = 0;
    for (int r = 0; r < 2000; r++) {
        uint32_t n = 4 + pcg32_bounded(&rng, 29), probes = 1 + pcg32_bounded(&rng, n);
        char table[96];
        snprintf(table, sizeof table, "{\"hash\":\"fmix32\",\"max_probes\":%u}", probes);
        slots b;
        wh_error err;
        cr_assert(open_slots(&b, (int)n, "u32", 0, 4294967295LL, table, &err), "%s", err.msg);
        uint32_t fill = pcg32_bounded(&rng, 101);
        for (uint32_t i = 0; i < n; i++)
            if (pcg32_bounded(&rng, 100) < fill)
                set_key(&b, i, key_homed((i + n - pcg32_bounded(&rng, 4)) % n, n, 1 + pcg32_bounded(&rng, 3)));
        bool want = table_by_definition(&b, n, probes);
        broken += !want;
        agreed += wh_image_check_hash_table(b.img, 0, &err) == want;
        bool was[40];
        for (uint32_t i = 0; i < n; i++) was[i] = key(&b, i) != 0;
        cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
        cr_expect(table_by_definition(&b, n, probes), "table %d not a table after the projection", r);
        for (uint32_t i = 0; i < n; i++) cr_expect_eq(key(&b, i) != 0, was[i], "table %d slot %u", r, i);
        unsigned char after[40 * 4];
        memcpy(after, b.img->bufs[0].data, n * 4);
        cr_assert(wh_image_restructure(b.img, &err), "%s", err.msg);
        cr_expect_eq(memcmp(after, b.img->bufs[0].data, n * 4), 0, "table %d moved on a second projection", r);
        close_slots(&b);
    }
    cr_expect_eq(agreed, 2000);
    cr_expect_gt(broken, 600, "only %d of the tables drawn were broken", broken);
}
