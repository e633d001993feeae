/*
 * test_struct_arrays.c — arrays inside struct fields ("count" on a field):
 * laid out as C lays out `int keys[4]`, each element a field of its own
 * ("keys[0]" ...) with the field's range; mistakes refused with their
 * place; a kernel scanning a node's keys up to its count gets one path per
 * count from the symbolic stage and its search fills the whole node.
 */
#include <criterion/criterion.h>

#include "core/spec.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPEC "tests/specs/node_scan.json"

Test(struct_arrays, an_array_field_is_laid_out_as_c_does)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    const wh_param *p = &s->params[0];
    cr_assert_eq(p->nfields, 1 + 4 + 1);
    cr_expect_str_eq(p->fields[0].name, "nkeys");
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "keys[%d]", k);
        cr_expect_str_eq(p->fields[1 + k].name, name);
        cr_expect_eq(p->fields[1 + k].offset, 4 + 4 * (size_t)k);
        cr_expect(p->fields[1 + k].has_range, "each element keeps the field's range");
    }
    cr_expect_str_eq(p->fields[5].name, "leaf");
    cr_expect_eq(p->fields[5].offset, 20);
    cr_expect_eq(p->elem_size, 24, "sizeof(struct node): 21 bytes padded to 4");
    wh_spec_free(s);
}

static void expect_refused(const char *fields, const char *msg, const char *path)
{
    char json[1024], dir[64];
    bool scalar = strstr(fields, "value") != NULL;
    snprintf(json, sizeof json, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],"
             "\"params\":[{\"name\":\"v\",\"kind\":\"%s\",\"type\":\"struct\",%s\"fields\":[%s]}]}",
             scalar ? "scalar" : "buffer", scalar ? "" : "\"count\":4,\"role\":\"input\",", fields);
    wh_error err;
    wh_spec *s = ts_temp_spec(json, dir, &err);
    cr_expect_null(s, "%s was accepted", fields);
    wh_spec_free(s);
    cr_expect(strstr(err.msg, msg), "%s: %s", fields, err.msg);
    cr_expect_str_eq(err.path, path, "%s", fields);
    ts_rmtree(dir);
}

Test(struct_arrays, mistakes_are_refused_with_their_place)
{
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":0}", "expected an integer from 1 to 4096",
                   "$.params[0].fields[0].count");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\"},{\"name\":\"b\",\"type\":\"i32\",\"count\":\"n\"}",
                   "expected an integer from 1 to 4096", "$.params[0].fields[1].count");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":4000},{\"name\":\"b\",\"type\":\"i32\",\"count\":100}",
                   "a struct of 4100 fields (array elements counted); at most 4096", "$.params[0]");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":2,\"value\":1}",
                   "unknown key \"count\" (expected one of: name, type, value)", "$.params[0].fields[0]");
    expect_refused("{\"name\":\"a\",\"type\":\"i32\",\"count\":2},{\"name\":\"a\",\"type\":\"u8\"}",
                   "duplicate field \"a\"", "$.params[0].fields[1]");
}

/* The loop runs nkeys times over keys[]: one path per count (0..4) and
 * thread, every atom replayed on the sim; the search fills nodes. */
Test(struct_arrays, the_symbolic_stage_and_the_search_see_every_element)
{
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    char cache[64];
    gen_result *r = ts_explore(s, 20, cache);
    cr_expect_eq(r->npaths, 25, "5 counts x 5 counts for the two threads (%d paths)", r->npaths);
    cr_expect_eq(r->atoms_invalid, 0, "every atom follows its path on the sim");
    gen_result_free(r);
    ts_rmtree(cache);
    /* a warp runs as long as its fullest node: the best input has one in
     * every warp */
    wh_image *best = ts_hunt_best(s, "random-ga", "200");
    for (uint64_t w = 0; w < best->bufs[0].count / 32; w++) {
        bool full = false;
        for (uint64_t e = 32 * w; e < 32 * (w + 1); e++)
            full |= wh_value_get_int(WH_I32, best->bufs[0].data + e * s->params[0].elem_size) == 4;
        cr_expect(full, "warp %llu of the best input has a node with 4 keys", (unsigned long long)w);
    }
    wh_image_free(best);
    wh_spec_free(s);
}
