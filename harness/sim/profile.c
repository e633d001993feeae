/*
 * profile.c — the machine profile of the sim backend: built-in defaults
 * (an A100-like GPU, the same values as harness/profiles/default.json) and
 * loading a JSON profile that overrides any subset of them.
 */
#include "harness/sim/sim.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *const class_names[SIM_NCLASSES] = {
    "alu", "fma", "fp64", "sfu", "idiv", "fdiv", "ddiv", "ctrl", "warp", "bar",
    "global", "local", "const", "shared", "atom"
};

const char *sim_class_name(sim_class c)
{
    return (unsigned)c < SIM_NCLASSES ? class_names[c] : "?";
}

void sim_profile_default(sim_profile *p)
{
    static const sim_cost costs[SIM_NCLASSES] = {
        [SIM_C_ALU] = { 2, 4 },     [SIM_C_FMA] = { 2, 4 },     [SIM_C_FP64] = { 4, 8 },
        [SIM_C_SFU] = { 8, 18 },    [SIM_C_IDIV] = { 20, 60 },  [SIM_C_FDIV] = { 10, 40 },
        [SIM_C_DDIV] = { 40, 120 }, [SIM_C_CTRL] = { 1, 4 },    [SIM_C_WARP] = { 2, 24 },
        [SIM_C_BAR] = { 1, 20 },    [SIM_C_GLOBAL] = { 1, 200 }, [SIM_C_LOCAL] = { 1, 32 },
        [SIM_C_CONST] = { 1, 8 },   [SIM_C_SHARED] = { 1, 24 }, [SIM_C_ATOM] = { 1, 250 },
    };
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "a100-like");
    snprintf(p->description, sizeof p->description,
             "built-in A100-like profile (108 SMs, 1410 MHz)");
    p->clock_mhz = 1410;
    p->sms = PTX_DEFAULT_NSMID;
    p->schedulers = 4;
    p->max_threads_per_sm = 2048;
    p->max_warps_per_sm = PTX_DEFAULT_NWARPID;
    p->max_blocks_per_sm = 32;
    p->shared_per_sm = 167936;
    memcpy(p->cls, costs, sizeof costs);
    p->sector_bytes = 32;
    p->lsu_cycles_per_sector = 0.25;
    p->dram_latency = 250;
    p->l2_sectors_per_cycle = 160;
    p->dram_sectors_per_cycle = 34.5;
    p->l1_ways = 4;
    p->l2_ways = 16;
    p->shared_banks = 32;
    p->bank_bytes = 4;
    p->shared_cycles_per_wavefront = 1;
    p->const_cycles_per_address = 1;
    p->atomic_cycles_per_op = 1;
    p->atomic_unit_bytes = 4;
    p->shared_atomic_cycles_per_op = 2;
    p->divergence_cycles = 2;
    p->block_launch_cycles = 150;
    p->kernel_launch_cycles = 500;
    p->window_cycles = 1000;
    p->stack_bytes = 1024;
}

/* ---- loading ------------------------------------------------------------ */

typedef enum { K_DOUBLE, K_INT, K_U64 } kind;

typedef struct {
    const char *key;
    kind k;
    size_t off;
    double lo, hi;
} field;

#define F(key, k, member, lo, hi) { key, k, offsetof(sim_profile, member), lo, hi }

static const field sm_fields[] = {
    F("count", K_INT, sms, 1, 100000),
    F("schedulers", K_INT, schedulers, 1, 64),
    F("max_threads", K_INT, max_threads_per_sm, 32, 1 << 20),
    F("max_warps", K_INT, max_warps_per_sm, 1, 1 << 15),
    F("max_blocks", K_INT, max_blocks_per_sm, 1, 1 << 15),
    F("shared_bytes", K_U64, shared_per_sm, 0, 1e12),
};

static const field memory_fields[] = {
    F("sector_bytes", K_INT, sector_bytes, 4, 4096),
    F("lsu_cycles_per_sector", K_DOUBLE, lsu_cycles_per_sector, 0, 1e6),
    F("dram_latency", K_DOUBLE, dram_latency, 0, 1e9),
    F("l2_sectors_per_cycle", K_DOUBLE, l2_sectors_per_cycle, 1e-6, 1e9),
    F("dram_sectors_per_cycle", K_DOUBLE, dram_sectors_per_cycle, 1e-6, 1e9),
    F("l1_bytes", K_U64, l1_bytes, 0, 1e12),
    F("l1_ways", K_INT, l1_ways, 1, 1024),
    F("l1_latency", K_DOUBLE, l1_latency, 0, 1e6),
    F("l2_bytes", K_U64, l2_bytes, 0, 1e12),
    F("l2_ways", K_INT, l2_ways, 1, 1024),
    F("shared_banks", K_INT, shared_banks, 1, 1024),
    F("bank_bytes", K_INT, bank_bytes, 1, 64),
    F("shared_cycles_per_wavefront", K_DOUBLE, shared_cycles_per_wavefront, 0, 1e6),
    F("const_cycles_per_address", K_DOUBLE, const_cycles_per_address, 0, 1e6),
    F("atomic_cycles_per_op", K_DOUBLE, atomic_cycles_per_op, 0, 1e6),
    F("atomic_unit_bytes", K_INT, atomic_unit_bytes, 4, 4096),
    F("shared_atomic_cycles_per_op", K_DOUBLE, shared_atomic_cycles_per_op, 0, 1e6),
};

static const field control_fields[] = {
    F("divergence_cycles", K_DOUBLE, divergence_cycles, 0, 1e6),
    F("block_launch_cycles", K_DOUBLE, block_launch_cycles, 0, 1e9),
    F("kernel_launch_cycles", K_DOUBLE, kernel_launch_cycles, 0, 1e9),
    F("window_cycles", K_DOUBLE, window_cycles, 1, 1e9),
    F("stack_bytes", K_U64, stack_bytes, 0, 1 << 24),
};

static bool bad(wh_error *err, const char *path, const char *jpath, const char *fmt, const char *what)
{
    wh_error_set(err, WH_ERR_USER, path, 0, 0, fmt, what);
    wh_error_set_path(err, jpath);
    return false;
}

static bool set_number(const char *path, const char *jpath, json_t *v, const field *f,
                       sim_profile *p, wh_error *err)
{
    if (!json_is_number(v))
        return bad(err, path, jpath, "expected a number for \"%s\"", f->key);
    double d = json_number_value(v);
    if (d < f->lo || d > f->hi) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "\"%s\" = %g is outside [%g, %g]",
                     f->key, d, f->lo, f->hi);
        wh_error_set_path(err, jpath);
        return false;
    }
    char *base = (char *)p + f->off;
    if (f->k == K_DOUBLE) {
        memcpy(base, &d, sizeof d);
    } else {
        if (d != (double)(int64_t)d)
            return bad(err, path, jpath, "expected an integer for \"%s\"", f->key);
        if (f->k == K_INT) {
            int i = (int)d;
            memcpy(base, &i, sizeof i);
        } else {
            uint64_t u = (uint64_t)d;
            memcpy(base, &u, sizeof u);
        }
    }
    return true;
}

static bool load_group(const char *path, const char *group, json_t *obj, const field *fs, int n,
                       sim_profile *p, wh_error *err)
{
    char jpath[256];
    snprintf(jpath, sizeof jpath, "$.%s", group);
    if (!json_is_object(obj))
        return bad(err, path, jpath, "expected an object for \"%s\"", group);
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        snprintf(jpath, sizeof jpath, "$.%s.%s", group, key);
        int i;
        for (i = 0; i < n; i++)
            if (!strcmp(fs[i].key, key))
                break;
        if (i == n) {
            char known[512] = "";
            for (int j = 0; j < n; j++) {
                strncat(known, fs[j].key, sizeof known - strlen(known) - 1);
                if (j + 1 < n)
                    strncat(known, ", ", sizeof known - strlen(known) - 1);
            }
            wh_error_set(err, WH_ERR_USER, path, 0, 0, "unknown key \"%s\" (expected one of: %s%s)",
                         key, known, !strcmp(group, "control") ? ", reconvergence" : "");
            wh_error_set_path(err, jpath);
            return false;
        }
        if (!set_number(path, jpath, v, &fs[i], p, err))
            return false;
    }
    return true;
}

static bool load_costs(const char *path, json_t *obj, sim_profile *p, wh_error *err)
{
    if (!json_is_object(obj))
        return bad(err, path, "$.costs", "expected an object for \"%s\"", "costs");
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        char jpath[256];
        snprintf(jpath, sizeof jpath, "$.costs.%s", key);
        int c;
        for (c = 0; c < SIM_NCLASSES; c++)
            if (!strcmp(class_names[c], key))
                break;
        if (c == SIM_NCLASSES)
            return bad(err, path, jpath,
                       "unknown instruction class \"%s\" (expected alu, fma, fp64, sfu, idiv, fdiv, "
                       "ddiv, ctrl, warp, bar, global, local, const, shared, atom)", key);
        if (!json_is_object(v))
            return bad(err, path, jpath, "expected {\"issue\": N, \"latency\": N} for \"%s\"", key);
        const char *k2;
        json_t *v2;
        json_object_foreach(v, k2, v2) {
            char jp2[300];
            snprintf(jp2, sizeof jp2, "%s.%s", jpath, k2);
            double *dst;
            if (!strcmp(k2, "issue"))
                dst = &p->cls[c].issue;
            else if (!strcmp(k2, "latency"))
                dst = &p->cls[c].latency;
            else
                return bad(err, path, jp2, "unknown key \"%s\" (expected issue, latency)", k2);
            if (!json_is_number(v2) || json_number_value(v2) < 0 || json_number_value(v2) > 1e9)
                return bad(err, path, jp2, "expected a number in [0, 1e9] for \"%s\"", k2);
            *dst = json_number_value(v2);
        }
    }
    return true;
}

bool sim_profile_load(const char *path, sim_profile *p, wh_error *err)
{
    sim_profile_default(p);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        wh_error_set(err, WH_ERR_USER, path, je.line > 0 ? je.line : 0, je.column > 0 ? je.column : 0,
                     "cannot read the machine profile: %s", je.text);
        return false;
    }
    bool ok = true;
    if (!json_is_object(root)) {
        ok = bad(err, path, "$", "expected a JSON object%s", "");
        goto done;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        char jpath[256];
        snprintf(jpath, sizeof jpath, "$.%s", key);
        if (!strcmp(key, "name") || !strcmp(key, "description")) {
            if (!json_is_string(v)) {
                ok = bad(err, path, jpath, "expected a string for \"%s\"", key);
                goto done;
            }
            if (!strcmp(key, "name"))
                snprintf(p->name, sizeof p->name, "%s", json_string_value(v));
            else
                snprintf(p->description, sizeof p->description, "%s", json_string_value(v));
        } else if (!strcmp(key, "clock_mhz")) {
            if (!json_is_number(v) || json_number_value(v) <= 0 || json_number_value(v) > 1e6) {
                ok = bad(err, path, jpath, "expected a positive number (MHz) for \"%s\"", key);
                goto done;
            }
            p->clock_mhz = json_number_value(v);
        } else if (!strcmp(key, "sm")) {
            ok = load_group(path, key, v, sm_fields, (int)(sizeof sm_fields / sizeof *sm_fields), p, err);
        } else if (!strcmp(key, "memory")) {
            ok = load_group(path, key, v, memory_fields,
                            (int)(sizeof memory_fields / sizeof *memory_fields), p, err);
        } else if (!strcmp(key, "control")) {
            json_t *rc = json_is_object(v) ? json_object_get(v, "reconvergence") : NULL;
            if (rc) {
                const char *mode = json_is_string(rc) ? json_string_value(rc) : "";
                if (!strcmp(mode, "ipdom")) {
                    p->reconverge_merge = 0;
                } else if (!strcmp(mode, "ipdom+merge")) {
                    p->reconverge_merge = 1;
                } else {
                    ok = bad(err, path, "$.control.reconvergence",
                             "expected \"ipdom\" or \"ipdom+merge\" for \"%s\"", "reconvergence");
                    goto done;
                }
                json_t *copy = json_deep_copy(v);
                json_object_del(copy, "reconvergence");
                ok = load_group(path, key, copy, control_fields,
                                (int)(sizeof control_fields / sizeof *control_fields), p, err);
                json_decref(copy);
            } else {
                ok = load_group(path, key, v, control_fields,
                                (int)(sizeof control_fields / sizeof *control_fields), p, err);
            }
        } else if (!strcmp(key, "costs")) {
            ok = load_costs(path, v, p, err);
        } else if (!strcmp(key, "calibration")) {
            /* what `warphunt calibrate` measured, kept with the values fitted from it */
            if (!json_is_object(v))
                ok = bad(err, path, jpath, "expected an object for \"%s\"", key);
        } else {
            ok = bad(err, path, jpath,
                     "unknown key \"%s\" (expected one of: name, description, clock_mhz, sm, costs, "
                     "memory, control, calibration)", key);
        }
        if (!ok)
            goto done;
    }
    if (p->max_warps_per_sm * 32 < p->max_threads_per_sm)
        p->max_threads_per_sm = p->max_warps_per_sm * 32;
done:
    json_decref(root);
    return ok;
}
