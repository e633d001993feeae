/*
 * test_ptx_parse.c — the PTX parser on nvcc output (the bundled kernels and
 * the test corpus, when `make ptx` has built them), on module-level
 * declarations, and on the decoded form of specific instructions.
 */
#include <criterion/criterion.h>

#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ptx/ptx.h"

/* ---- helpers ---------------------------------------------------------- */

static ptx_module *parse_ok(const char *text)
{
    wh_error e;
    wh_error_clear(&e);
    ptx_module *m = ptx_parse_string(text, "test.ptx", &e);
    if (!m) {
        char buf[2048];
        wh_error_format(&e, buf, sizeof buf);
        cr_assert_fail("parse failed: %s", buf);
    }
    return m;
}

/* Sorted list of the .ptx files in DIR; returns the count, -1 when DIR is missing. */
static int list_ptx(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    *out = NULL;
    if (!d) return -1;
    int n = 0, cap = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".ptx")) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            v = realloc(v, sizeof(char *) * (size_t)cap);
        }
        size_t need = strlen(dir) + l + 2;
        v[n] = malloc(need);
        snprintf(v[n], need, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    *out = v;
    return n;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

static bool operand_ok(const ptx_module *m, const ptx_function *f, const ptx_operand *o)
{
    switch (o->kind) {
    case PTX_OPD_REG:
        return o->reg >= 0 && o->reg < f->nregs;
    case PTX_OPD_ADDR:
        if (o->reg >= f->nregs) return false;
        break;
    case PTX_OPD_LABEL:
        return o->label >= 0 && o->label < f->nlabels && o->label_instr >= 0 && o->label_instr <= f->ninstrs;
    case PTX_OPD_SYMBOL:
        if (o->sym.kind == PTX_SYM_MODULE_VAR) return o->sym.index < m->nvars;
        if (o->sym.kind == PTX_SYM_FUNC) return o->sym.index < m->nfuncs;
        if (o->sym.kind == PTX_SYM_LOCAL_VAR) return o->sym.index < f->nvars;
        if (o->sym.kind == PTX_SYM_PARAM) return o->sym.index < f->nparams;
        if (o->sym.kind == PTX_SYM_RET) return o->sym.index < f->nrets;
        return o->sym.kind == PTX_SYM_BRANCHTARGETS;
    default:
        break;
    }
    for (int i = 0; i < o->nelems; i++)
        if (!operand_ok(m, f, &o->elems[i])) return false;
    return true;
}

/* Structural invariants every parsed function must satisfy. */
static void check_module(const char *path, const ptx_module *m)
{
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_function *f = &m->funcs[i];
        if (!f->has_body) continue;
        int covered = 0;
        for (int b = 0; b < f->nblocks; b++) {
            const ptx_block *bl = &f->blocks[b];
            cr_expect_eq(bl->first, covered, "%s %s: B%d does not follow its predecessor", path, f->name, b);
            covered += bl->count;
            cr_expect(bl->count >= 1);
            for (int k = 0; k < bl->nsucc; k++) {
                int s = bl->succ[k];
                cr_assert(s >= 0 && s < f->nblocks);
                bool back = false;
                for (int q = 0; q < f->blocks[s].npred; q++) back |= f->blocks[s].pred[q] == b;
                cr_expect(back, "%s %s: edge B%d->B%d missing from the predecessors", path, f->name, b, s);
            }
            cr_expect(bl->ipdom == PTX_BLOCK_EXIT || (bl->ipdom >= 0 && bl->ipdom < f->nblocks));
            if (b == 0) cr_expect_eq(bl->idom, -1);
            else if (bl->reachable) cr_expect(bl->idom >= 0 && ptx_dominates(f, bl->idom, b));
        }
        cr_expect_eq(covered, f->ninstrs, "%s %s: blocks do not cover the instructions", path, f->name);
        for (int k = 0; k < f->ninstrs; k++) {
            const ptx_instr *ins = &f->instrs[k];
            cr_expect(ins->block >= 0 && ins->block < f->nblocks);
            cr_expect(ins->line > 0);
            cr_expect(ins->guard < f->nregs);
            for (int q = 0; q < ins->nops; q++)
                cr_expect(operand_ok(m, f, &ins->ops[q]), "%s %s: bad operand %d of instruction at line %d", path,
                          f->name, q, ins->line);
            if (ins->op == PTX_OP_CALL && ins->callee >= 0)
                cr_expect_eq(ins->ncall_args, m->funcs[ins->callee].nparams);
        }
        for (int l = 0; l < f->nloops; l++) {
            cr_expect(ptx_loop_contains(f, l, f->loops[l].header));
            cr_expect(f->blocks[f->loops[l].header].loop_header);
        }
    }
}

static void parse_corpus(const char *dir)
{
    char **files;
    int n = list_ptx(dir, &files);
    if (n < 0) cr_skip_test("%s is missing: run `make ptx` first", dir);
    cr_expect(n >= 1, "no .ptx file in %s", dir);
    int kernels = 0;
    for (int i = 0; i < n; i++) {
        wh_error e;
        wh_error_clear(&e);
        ptx_module *m = ptx_parse_file(files[i], &e);
        char buf[2048];
        wh_error_format(&e, buf, sizeof buf);
        cr_expect_not_null(m, "%s: %s", files[i], buf);
        if (!m) continue;
        cr_expect(m->nkernels >= 1, "%s: no kernel", files[i]);
        kernels += m->nkernels;
        cr_expect_eq(m->address_size, 64);
        cr_expect(m->version_major >= 7);
        check_module(files[i], m);
        ptx_module_free(m);
    }
    cr_log_info("%s: %d files, %d kernels", dir, n, kernels);
    free_list(files, n);
}

/* ---- corpus ------------------------------------------------------------ */

Test(ptx_parse, every_bundled_kernel_parses)
{
    parse_corpus("build/ptx/kernels");
}

Test(ptx_parse, every_corpus_kernel_parses)
{
    parse_corpus("build/ptx/tests/ptx");
}

Test(ptx_parse, every_hand_written_file_parses)
{
    parse_corpus("tests/ptx_hand");
}

/* Formatting each instruction back to text gives its source line (modulo
 * whitespace, `+0` offsets, and multi-line / multi-statement lines). */
static void squeeze(const char *s, char *o, size_t size)
{
    size_t j = 0;
    for (; *s && j + 1 < size; s++)
        if (!isspace((unsigned char)*s)) o[j++] = *s;
    o[j] = '\0';
}

static void roundtrip_file(const char *path, int *checked)
{
    wh_error e;
    ptx_module *m = ptx_parse_file(path, &e);
    cr_assert_not_null(m, "%s", path);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char **lines = NULL;
    int n = 0, cap = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            lines = realloc(lines, sizeof(char *) * (size_t)cap);
        }
        lines[n++] = strdup(line);
    }
    fclose(f);
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_function *fn = &m->funcs[i];
        for (int k = 0; k < fn->ninstrs; k++) {
            const ptx_instr *ins = &fn->instrs[k];
            if (ins->op == PTX_OP_CALL || ins->line > n) continue;
            char src[4096], fmt[4096], got[4096];
            squeeze(lines[ins->line - 1], src, sizeof src);
            char *c = strstr(src, "//");
            if (c) *c = '\0';
            if (src[0] == '{') memmove(src, src + 1, strlen(src));
            char *semi = strchr(src, ';');
            if (!semi || semi[1] != '\0') continue; /* several statements on the line */
            *semi = '\0';
            for (char *q; (q = strstr(src, "+0]"));) memmove(q, q + 2, strlen(q + 2) + 1);
            ptx_format_instr(m, fn, ins, fmt, sizeof fmt);
            squeeze(fmt, got, sizeof got);
            cr_expect_str_eq(got, src, "%s:%d", path, ins->line);
            (*checked)++;
        }
    }
    for (int i = 0; i < n; i++) free(lines[i]);
    free(lines);
    ptx_module_free(m);
}

Test(ptx_parse, instructions_format_back_to_their_source)
{
    int checked = 0;
    const char *dirs[] = { "build/ptx/kernels", "build/ptx/tests/ptx", "tests/ptx_hand" };
    for (int d = 0; d < 3; d++) {
        char **files;
        int n = list_ptx(dirs[d], &files);
        for (int i = 0; i < n; i++) roundtrip_file(files[i], &checked);
        if (n > 0) free_list(files, n);
    }
    cr_expect(checked > 0);
}

/* ---- module-level declarations ------------------------------------------- */

static const char *module_text =
    "//\n// Generated by hand\n//\n"
    ".version 7.8\n"
    ".target sm_75, debug\n"
    ".address_size 64\n"
    "\n"
    ".global .align 4 .b8 gtab[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3};\n"
    ".const .align 4 .f32 cf[3] = {0f3F800000, 2.5, -3};\n"
    ".global .align 8 .u64 gptr = generic(gtab)+4;\n"
    ".global .u32 g2d[2][3];\n"
    ".extern .shared .align 16 .b8 dyn[];\n"
    ".shared .align 4 .u32 sh_count;\n"
    "\n"
    ".func  (.param .b32 func_retval0) helper(\n"
    "\t.param .b32 helper_param_0,\n"
    "\t.param .align 8 .b8 helper_param_1[16]\n"
    ");\n"
    "\n"
    ".visible .entry kern(\n"
    "\t.param .u64 .ptr .global .align 4 kern_param_0,\n"
    "\t.param .u32 kern_param_1,\n"
    "\t.param .align 8 .b8 kern_param_2[24],\n"
    "\t.param .u8 kern_param_3\n"
    ")\n"
    ".maxntid 256, 1, 1\n"
    ".minnctapersm 2\n"
    ".maxnreg 64\n"
    "{\n"
    "\t.local .align 16 .b8 \t__local_depot0[32];\n"
    "\t.reg .b64 \t%SP;\n"
    "\t.reg .pred \t%p<3>;\n"
    "\t.reg .b16 \t%rs<2>;\n"
    "\t.reg .b32 \t%r<10>;\n"
    "\t.reg .f32 \t%f<4>;\n"
    "\t.reg .b64 \t%rd<5>;\n"
    "\t.shared .align 4 .b8 tile[1024];\n"
    "\t.loc\t1 12 3\n"
    "\tmov.u64 \t%SP, __local_depot0;\n"
    "\tmov.u32 \t%r1, %tid.x;\n"
    "\tmov.u32 \t%r2, %ntid.y;\n"
    "\tmov.u32 \t%r3, %ctaid.z;\n"
    "\tmov.u32 \t%r4, %laneid;\n"
    "\tmov.u64 \t%rd1, %clock64;\n"
    "\tmov.u32 \t%r5, %lanemask_lt;\n"
    "\tmov.u32 \t%r6, tile;\n"
    "\tmov.u64 \t%rd2, gtab;\n"
    "\tld.param.u32 \t%r7, [kern_param_2+8];\n"
    "\t{ // callseq 0, 0\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 \t[param0+0], %r7;\n"
    "\t.param .align 8 .b8 param1[16];\n"
    "\tst.param.b32 \t[param1+0], %r7;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), \n\thelper, \n\t(\n\tparam0, \n\tparam1\n\t);\n"
    "\tld.param.b32 \t%r8, [retval0+0];\n"
    "\t} // callseq 0\n"
    "\t{ .reg .pred p; setp.ne.u32 p, %r8, 0; selp.u32 %r9, 1, 0, p; }\n"
    "\t{ .reg .pred p; setp.eq.u32 p, %r8, 0; selp.u32 %r9, 1, 0, p; }\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".func  (.param .b32 func_retval0) helper(\n"
    "\t.param .b32 helper_param_0,\n"
    "\t.param .align 8 .b8 helper_param_1[16]\n"
    ")\n"
    "{\n"
    "\t.reg .b32 \t%r<3>;\n"
    "\tld.param.u32 \t%r1, [helper_param_0];\n"
    "\tld.param.u32 \t%r2, [helper_param_1+4];\n"
    "\tadd.s32 \t%r1, %r1, %r2;\n"
    "\tst.param.b32 \t[func_retval0+0], %r1;\n"
    "\tret;\n"
    "}\n"
    "\t.file\t1 \"/tmp/x.cu\"\n"
    "\t.section\t.debug_str\n"
    "\t{\n"
    "$L__info_string0:\n"
    ".b8 95,90,78,51,0\n"
    "\t}\n"
    "@@DWARF .section .debug_abbrev, \"\", @progbits\n"
    "@@DWARF .byte 1\n";

Test(ptx_parse, module_header_and_variables)
{
    ptx_module *m = parse_ok(module_text);
    cr_expect_eq(m->version_major, 7);
    cr_expect_eq(m->version_minor, 8);
    cr_expect_str_eq(m->target, "sm_75");
    cr_expect_eq(m->ntargets, 2);
    cr_expect_str_eq(m->targets[1], "debug");
    cr_expect_eq(m->address_size, 64);
    cr_expect_eq(m->nvars, 6);

    const ptx_var *g = ptx_find_var(m, "gtab");
    cr_assert_not_null(g);
    cr_expect_eq(g->space, PTX_SPACE_GLOBAL);
    cr_expect_eq(g->type, PTX_T_B8);
    cr_expect_eq(g->align, 4);
    cr_expect_eq(g->size, 16);
    cr_assert_not_null(g->init);
    const uint8_t want[16] = { 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0 };
    cr_expect_arr_eq(g->init, want, 16);

    const ptx_var *c = ptx_find_var(m, "cf");
    cr_assert_not_null(c);
    cr_expect_eq(c->space, PTX_SPACE_CONST);
    cr_expect_eq(c->size, 12);
    float fv[3];
    memcpy(fv, c->init, 12);
    cr_expect_eq(fv[0], 1.0f);
    cr_expect_eq(fv[1], 2.5f);
    cr_expect_eq(fv[2], -3.0f);

    const ptx_var *gp = ptx_find_var(m, "gptr");
    cr_assert_not_null(gp);
    cr_expect_eq(gp->nrelocs, 1);
    cr_expect(gp->relocs[0].generic);
    cr_expect_eq(gp->relocs[0].addend, 4);
    cr_expect_eq(gp->relocs[0].sym.kind, PTX_SYM_MODULE_VAR);
    cr_expect_str_eq(m->vars[gp->relocs[0].sym.index].name, "gtab");

    const ptx_var *g2 = ptx_find_var(m, "g2d");
    cr_expect_eq(g2->count, 6);
    cr_expect_eq(g2->size, 24);
    cr_expect_null(g2->init);

    const ptx_var *d = ptx_find_var(m, "dyn");
    cr_assert_not_null(d);
    cr_expect(d->unsized);
    cr_expect_eq(d->size, 0);
    cr_expect_eq(d->space, PTX_SPACE_SHARED);
    cr_expect_eq(d->linkage, PTX_LINK_EXTERN);
    cr_expect_eq(d->align, 16);
    ptx_module_free(m);
}

Test(ptx_parse, functions_params_registers)
{
    ptx_module *m = parse_ok(module_text);
    cr_expect_eq(m->nfuncs, 2); /* helper's declaration and definition merge */
    cr_expect_eq(m->nkernels, 1);
    const ptx_function *k = ptx_find_kernel(m, "kern");
    cr_assert_not_null(k);
    cr_expect_null(ptx_find_kernel(m, "helper"));
    cr_expect(k->is_entry);
    cr_expect_eq(k->linkage, PTX_LINK_VISIBLE);
    cr_expect_eq(k->nparams, 4);
    cr_expect(k->params[0].is_ptr);
    cr_expect_eq(k->params[0].ptr_space, PTX_SPACE_GLOBAL);
    cr_expect_eq(k->params[0].ptr_align, 4);
    cr_expect_eq(k->params[0].size, 8);
    cr_expect_eq(k->params[0].offset, 0);
    cr_expect_eq(k->params[1].offset, 8);
    cr_expect_eq(k->params[1].type, PTX_T_U32);
    cr_expect(k->params[2].is_array);
    cr_expect_eq(k->params[2].align, 8);
    cr_expect_eq(k->params[2].offset, 16);
    cr_expect_eq(k->params[2].size, 24);
    cr_expect_eq(k->params[3].offset, 40);
    cr_expect_eq(k->params[3].size, 1);
    cr_expect_eq(k->param_bytes, 41);
    cr_expect_eq(k->maxntid[0], 256);
    cr_expect_eq(k->maxntid[1], 1);
    cr_expect_eq(k->minnctapersm, 2);
    cr_expect_eq(k->maxnreg, 64);

    /* %SP + %p<3> + %rs<2> + %r<10> + %f<4> + %rd<5> + two scoped `p` */
    cr_expect_eq(k->nregs, 1 + 3 + 2 + 10 + 4 + 5 + 2);
    int r9 = ptx_find_reg(k, "%r9");
    cr_assert(r9 >= 0);
    cr_expect_eq(k->regs[r9].type, PTX_T_B32);
    cr_expect_eq(k->regs[r9].bits, 32);
    cr_expect_eq(ptx_find_reg(k, "%r10"), -1);
    int p0 = ptx_find_reg(k, "%p0");
    cr_assert(p0 >= 0);
    cr_expect_eq(k->regs[p0].type, PTX_T_PRED);
    cr_expect_eq(k->regs[p0].bits, 1);

    /* local variables: depot, tile, three call-site params */
    cr_expect_eq(k->nvars, 5);
    int t = ptx_find_local_var(k, "tile");
    cr_assert(t >= 0);
    cr_expect_eq(k->vars[t].space, PTX_SPACE_SHARED);
    cr_expect_eq(k->vars[t].size, 1024);
    int pv = ptx_find_local_var(k, "param1");
    cr_assert(pv >= 0);
    cr_expect_eq(k->vars[pv].space, PTX_SPACE_PARAM);
    cr_expect_eq(k->vars[pv].align, 8);

    const ptx_function *h = ptx_find_function(m, "helper");
    cr_assert_not_null(h);
    cr_expect(!h->is_entry);
    cr_expect(h->has_body);
    cr_expect_eq(h->nrets, 1);
    cr_expect_str_eq(h->rets[0].name, "func_retval0");
    cr_expect_eq(h->nparams, 2);
    cr_expect_eq(h->params[1].offset, 8);
    cr_expect_eq(h->ninstrs, 5);
    ptx_module_free(m);
}

Test(ptx_parse, operands_special_registers_symbols)
{
    ptx_module *m = parse_ok(module_text);
    const ptx_function *k = ptx_find_kernel(m, "kern");
    const ptx_instr *in = k->instrs;
    /* mov.u64 %SP, __local_depot0 */
    cr_expect_eq(in[0].op, PTX_OP_MOV);
    cr_expect_eq(in[0].ops[1].kind, PTX_OPD_SYMBOL);
    cr_expect_eq(in[0].ops[1].sym.kind, PTX_SYM_LOCAL_VAR);
    cr_expect_eq(in[0].src_file, 1);
    cr_expect_eq(in[0].src_line, 12);
    struct { int i; ptx_sreg s; int comp; } sr[] = {
        { 1, PTX_SREG_TID, 0 }, { 2, PTX_SREG_NTID, 1 }, { 3, PTX_SREG_CTAID, 2 },
        { 4, PTX_SREG_LANEID, -1 }, { 5, PTX_SREG_CLOCK64, -1 }, { 6, PTX_SREG_LANEMASK_LT, -1 },
    };
    for (size_t q = 0; q < sizeof sr / sizeof sr[0]; q++) {
        const ptx_operand *o = &in[sr[q].i].ops[1];
        cr_expect_eq(o->kind, PTX_OPD_SPECIAL, "instr %d", sr[q].i);
        cr_expect_eq(o->sreg, sr[q].s, "instr %d", sr[q].i);
        cr_expect_eq(o->sreg_comp, sr[q].comp, "instr %d", sr[q].i);
    }
    /* mov.u32 %r6, tile ; mov.u64 %rd2, gtab */
    cr_expect_eq(in[7].ops[1].sym.kind, PTX_SYM_LOCAL_VAR);
    cr_expect_str_eq(in[7].ops[1].sym.name, "tile");
    cr_expect_eq(in[8].ops[1].sym.kind, PTX_SYM_MODULE_VAR);
    cr_expect_str_eq(in[8].ops[1].sym.name, "gtab");
    /* ld.param.u32 %r7, [kern_param_2+8] */
    const ptx_operand *a = &in[9].ops[1];
    cr_expect_eq(a->kind, PTX_OPD_ADDR);
    cr_expect_eq(a->reg, -1);
    cr_expect_eq(a->sym.kind, PTX_SYM_PARAM);
    cr_expect_eq(a->sym.index, 2);
    cr_expect_eq(a->ival, 8);
    cr_expect_eq(in[9].space, PTX_SPACE_PARAM);
    /* call.uni (retval0), helper, (param0, param1) */
    const ptx_instr *call = NULL;
    for (int i = 0; i < k->ninstrs; i++)
        if (k->instrs[i].op == PTX_OP_CALL) call = &k->instrs[i];
    cr_assert_not_null(call);
    cr_expect(call->flags & PTX_F_UNI);
    cr_expect_eq(call->callee, ptx_function_index(m, "helper"));
    cr_expect_eq(call->ncall_rets, 1);
    cr_expect_eq(call->ncall_args, 2);
    cr_expect_eq(call->call_args[1].kind, PTX_OPD_SYMBOL);
    cr_expect_eq(call->call_args[1].sym.kind, PTX_SYM_LOCAL_VAR);
    cr_expect_str_eq(k->vars[call->call_args[1].sym.index].name, "param1");
    cr_expect_str_eq(k->vars[call->call_rets[0].sym.index].name, "retval0");
    /* two scoped `p` registers are distinct */
    int n = k->ninstrs;
    const ptx_instr *s1 = &k->instrs[n - 5], *s2 = &k->instrs[n - 3];
    cr_expect_eq(s1->op, PTX_OP_SETP);
    cr_expect_eq(s2->op, PTX_OP_SETP);
    cr_expect_neq(s1->ops[0].reg, s2->ops[0].reg);
    cr_expect_str_eq(k->regs[s1->ops[0].reg].name, "p");
    cr_expect_eq(k->instrs[n - 4].ops[3].reg, s1->ops[0].reg);
    ptx_module_free(m);
}

/* ---- immediates and decoded forms ------------------------------------------ */

#define KHEAD                                                           \
    ".version 8.0\n.target sm_80\n.address_size 64\n"                   \
    ".visible .entry k(.param .u64 k_param_0)\n{\n"                     \
    "\t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<16>;\n"   \
    "\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f64 %fd<4>;\n"

static const ptx_instr *one(ptx_module **mp, const char *body, int index)
{
    char text[8192];
    snprintf(text, sizeof text, "%s%s\tret;\n}\n", KHEAD, body);
    *mp = parse_ok(text);
    const ptx_function *k = ptx_find_kernel(*mp, "k");
    cr_assert_not_null(k);
    cr_assert(index < k->ninstrs);
    return &k->instrs[index];
}

Test(ptx_decode, float_immediates_are_exact)
{
    ptx_module *m;
    const ptx_instr *i = one(&m, "\tadd.f32 %f1, %f2, 0f3F800000;\n", 0);
    cr_expect_eq(i->op, PTX_OP_ADD);
    cr_expect_eq(i->type, PTX_T_F32);
    cr_expect_eq(i->ops[2].kind, PTX_OPD_IMM_FLOAT);
    cr_expect_eq(i->ops[2].f32bits, 0x3F800000u);
    cr_expect_eq(i->ops[2].fval, 1.0);
    cr_expect_eq(i->ops[2].fwidth, 32);
    ptx_module_free(m);

    i = one(&m, "\tmov.f64 %fd1, 0d400921FB54442D18;\n", 0);
    cr_expect_eq(i->ops[1].f64bits, 0x400921FB54442D18ull);
    cr_expect_eq(i->ops[1].fwidth, 64);
    cr_expect(i->ops[1].fval > 3.14159 && i->ops[1].fval < 3.1416);
    ptx_module_free(m);

    /* NaN and -0 bit patterns survive */
    i = one(&m, "\tmov.f32 %f1, 0f7FC00001;\n\tmov.f32 %f2, 0f80000000;\n\tmov.f32 %f3, 1.5;\n", 0);
    cr_expect_eq(i[0].ops[1].f32bits, 0x7FC00001u);
    cr_expect_eq(i[1].ops[1].f32bits, 0x80000000u);
    cr_expect_eq(i[2].ops[1].f32bits, 0x3FC00000u);
    cr_expect_eq(i[2].ops[1].fwidth, 0);
    ptx_module_free(m);
}

Test(ptx_decode, integer_immediates)
{
    ptx_module *m;
    const ptx_instr *i = one(&m,
                             "\tmov.u32 %r1, 0xFFFFFFFF;\n"
                             "\tmov.u32 %r2, -1;\n"
                             "\tmov.u32 %r3, 017;\n"
                             "\tmov.u32 %r4, 0b101;\n"
                             "\tmov.u32 %r5, 42U;\n"
                             "\tmov.b64 %rd1, 0x8000000000000000;\n"
                             "\tadd.s32 %r6, %r1, -2147483648;\n",
                             0);
    cr_expect_eq(i[0].ops[1].ival, 0xFFFFFFFFll);
    cr_expect_eq(i[1].ops[1].ival, -1);
    cr_expect_eq(i[2].ops[1].ival, 15);
    cr_expect_eq(i[3].ops[1].ival, 5);
    cr_expect_eq(i[4].ops[1].ival, 42);
    cr_expect_eq((uint64_t)i[5].ops[1].ival, 0x8000000000000000ull);
    cr_expect_eq(i[6].ops[2].ival, -2147483648ll);
    ptx_module_free(m);
}

Test(ptx_decode, setp_with_bool_op_and_two_destinations)
{
    ptx_module *m;
    const ptx_instr *i = one(&m,
                             "\tsetp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;\n"
                             "\tsetp.gtu.f32 %p1, %f1, %f2;\n"
                             "\tsetp.nan.f64 %p2, %fd1, %fd2;\n"
                             "\tsetp.hi.u32 %p3, %r1, 7;\n",
                             0);
    cr_expect_eq(i[0].op, PTX_OP_SETP);
    cr_expect_eq(i[0].cmp, PTX_CMP_LT);
    cr_expect_eq(i[0].boolop, PTX_BOOL_AND);
    cr_expect_eq(i[0].type, PTX_T_S32);
    cr_expect(i[0].flags & PTX_F_PAIR);
    cr_expect_eq(i[0].nops, 5);
    cr_expect(i[0].ops[1].pipe);
    cr_expect_eq(i[0].ops[0].kind, PTX_OPD_REG);
    cr_expect_eq(i[0].ops[1].kind, PTX_OPD_REG);
    cr_expect(i[0].ops[4].neg);
    cr_expect_eq(i[1].cmp, PTX_CMP_GTU);
    cr_expect_eq(i[1].boolop, PTX_BOOL_NONE);
    cr_expect_eq(i[2].cmp, PTX_CMP_NAN);
    cr_expect_eq(i[3].cmp, PTX_CMP_HI);
    cr_expect_eq(i[3].flags & PTX_F_HI, 0);
    ptx_module_free(m);
}

Test(ptx_decode, memory_and_atomics)
{
    ptx_module *m;
    const ptx_instr *i = one(&m,
                             "\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];\n"
                             "\tatom.global.add.u32 %r1, [%rd1], %r2;\n"
                             "\tatom.shared.cas.b32 %r1, [%r3+-4], %r2, %r4;\n"
                             "\tred.global.add.f32 [%rd1], %f1;\n"
                             "\tld.global.nc.u32 %r5, [%rd2];\n"
                             "\tld.volatile.shared.u32 %r5, [%r3];\n"
                             "\tst.local.v2.u32 [%rd3], {%r1, _};\n"
                             "\tatom.acq_rel.gpu.global.exch.b64 %rd4, [%rd1], %rd5;\n"
                             "\tcvta.to.global.u64 %rd6, %rd1;\n"
                             "\tld.global.L1::no_allocate.L2::128B.u32 %r6, [%rd1];\n",
                             0);
    cr_expect_eq(i[0].op, PTX_OP_LD);
    cr_expect_eq(i[0].space, PTX_SPACE_GLOBAL);
    cr_expect_eq(i[0].vec, 4);
    cr_expect_eq(i[0].type, PTX_T_F32);
    cr_expect_eq(i[0].ops[0].kind, PTX_OPD_VEC);
    cr_expect_eq(i[0].ops[0].nelems, 4);
    cr_expect_eq(i[0].ops[1].ival, 16);
    cr_expect_eq(i[1].op, PTX_OP_ATOM);
    cr_expect_eq(i[1].aop, PTX_AOP_ADD);
    cr_expect_eq(i[1].type, PTX_T_U32);
    cr_expect_eq(i[1].space, PTX_SPACE_GLOBAL);
    cr_expect_eq(i[2].aop, PTX_AOP_CAS);
    cr_expect_eq(i[2].space, PTX_SPACE_SHARED);
    cr_expect_eq(i[2].ops[1].ival, -4);
    cr_expect_eq(i[2].nops, 4);
    cr_expect_eq(i[3].op, PTX_OP_RED);
    cr_expect_eq(i[3].aop, PTX_AOP_ADD);
    cr_expect(i[4].flags & PTX_F_NC);
    cr_expect(i[5].flags & PTX_F_VOLATILE);
    cr_expect_eq(i[5].sem, PTX_SEM_VOLATILE);
    cr_expect_eq(i[6].ops[1].elems[1].kind, PTX_OPD_SINK);
    cr_expect_eq(i[7].sem, PTX_SEM_ACQ_REL);
    cr_expect_eq(i[7].scope, PTX_SCOPE_GPU);
    cr_expect_eq(i[7].aop, PTX_AOP_EXCH);
    cr_expect_eq(i[8].op, PTX_OP_CVTA);
    cr_expect(i[8].flags & PTX_F_TO);
    cr_expect_eq(i[8].space, PTX_SPACE_GLOBAL);
    /* cache hints stay in the generic form only */
    cr_expect_eq(i[9].nmods, 4);
    cr_expect_str_eq(i[9].mods[1], "L1::no_allocate");
    cr_expect_eq(i[9].type, PTX_T_U32);
    ptx_module_free(m);
}

Test(ptx_decode, warp_level_primitives)
{
    ptx_module *m;
    const ptx_instr *i = one(&m,
                             "\tshfl.sync.bfly.b32 %r1|%p1, %r2, %r3, %r4, %r5;\n"
                             "\tshfl.sync.idx.b32 %r1, %r2, 0, 31, -1;\n"
                             "\tvote.sync.ballot.b32 %r6, %p1, -1;\n"
                             "\tvote.sync.all.pred %p2, %p1, -1;\n"
                             "\tmatch.any.sync.b32 %r7, %r2, -1;\n"
                             "\tactivemask.b32 %r8;\n"
                             "\tredux.sync.add.u32 %r9, %r2, -1;\n"
                             "\tbar.warp.sync -1;\n"
                             "\tbar.sync 0;\n"
                             "\tbarrier.sync.aligned 1, 64;\n"
                             "\tbar.red.popc.u32 %r10, 0, %p1;\n"
                             "\tmembar.gl;\n"
                             "\tfence.acq_rel.cta;\n"
                             "\tshfl.sync.bfly.b32 %r11, %r2, 16, 31, -1;\n",
                             0);
    cr_expect_eq(i[0].op, PTX_OP_SHFL);
    cr_expect_eq(i[0].mode, PTX_SHFL_BFLY);
    cr_expect(i[0].flags & PTX_F_SYNC);
    cr_expect(i[0].flags & PTX_F_PAIR);
    cr_expect_eq(i[0].nops, 6);
    cr_expect_eq(i[1].mode, PTX_SHFL_IDX);
    cr_expect_eq(i[1].nops, 5);
    cr_expect_eq(i[1].ops[4].ival, -1);
    cr_expect_eq(i[2].op, PTX_OP_VOTE);
    cr_expect_eq(i[2].mode, PTX_VOTE_BALLOT);
    cr_expect_eq(i[3].mode, PTX_VOTE_ALL);
    cr_expect_eq(i[3].type, PTX_T_PRED);
    cr_expect_eq(i[4].op, PTX_OP_MATCH);
    cr_expect_eq(i[4].mode, PTX_MATCH_ANY);
    cr_expect_eq(i[5].op, PTX_OP_ACTIVEMASK);
    cr_expect_eq(i[6].op, PTX_OP_REDUX);
    cr_expect_eq(i[6].aop, PTX_AOP_ADD);
    cr_expect_eq(i[7].op, PTX_OP_BAR_WARP);
    cr_expect_eq(i[8].op, PTX_OP_BAR);
    cr_expect_eq(i[8].mode, PTX_BAR_SYNC);
    cr_expect(i[8].flags & PTX_F_ALIGNED);
    cr_expect_eq(i[9].op, PTX_OP_BAR);
    cr_expect_eq(i[9].nops, 2);
    cr_expect_eq(i[10].mode, PTX_BAR_RED);
    cr_expect_eq(i[10].aop, PTX_AOP_POPC);
    cr_expect_eq(i[11].op, PTX_OP_MEMBAR);
    cr_expect_eq(i[11].scope, PTX_SCOPE_GPU);
    cr_expect_eq(i[12].op, PTX_OP_FENCE);
    cr_expect_eq(i[12].sem, PTX_SEM_ACQ_REL);
    cr_expect_eq(i[12].scope, PTX_SCOPE_CTA);
    cr_expect_eq(i[13].op, PTX_OP_SHFL);
    cr_expect_eq(i[13].mode, PTX_SHFL_BFLY);
    cr_expect_eq(i[13].nops, 5);
    cr_expect_eq(i[13].flags & PTX_F_PAIR, 0);
    cr_expect_eq(i[13].ops[2].kind, PTX_OPD_IMM_INT);
    cr_expect_eq(i[13].ops[2].ival, 16);
    cr_expect_eq(i[13].ops[3].ival, 31);
    cr_expect_eq(i[13].ops[4].ival, -1);
    ptx_module_free(m);
}

Test(ptx_decode, arithmetic_modes_and_flags)
{
    ptx_module *m;
    const ptx_instr *i = one(&m,
                             "\tmul.wide.s32 %rd1, %r1, 4;\n"
                             "\tmul.hi.u32 %r2, %r1, %r3;\n"
                             "\tmad.lo.s32 %r4, %r1, %r2, %r3;\n"
                             "\tmad.rn.f32 %f1, %f2, %f3, %f4;\n"
                             "\tfma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4;\n"
                             "\tcvt.rzi.s32.f32 %r5, %f1;\n"
                             "\tcvt.rn.f16.f32 %rs1, %f1;\n"
                             "\tsin.approx.ftz.f32 %f5, %f1;\n"
                             "\tdiv.full.f32 %f6, %f1, %f2;\n"
                             "\tshf.l.wrap.b32 %r6, %r1, %r2, %r3;\n"
                             "\tlop3.b32 %r7, %r1, %r2, %r3, 0x96;\n"
                             "\tprmt.b32.f4e %r8, %r1, %r2, %r3;\n"
                             "\ttestp.finite.f32 %p1, %f1;\n"
                             "\tadd.cc.u32 %r9, %r1, %r2;\n"
                             "\taddc.u32 %r10, %r1, %r2;\n"
                             "\tselp.b32 %r11, 1, 0, %p1;\n"
                             "\tslct.s32.f32 %r12, %r1, %r2, %f1;\n"
                             "\tdp4a.u32.s32 %r13, %r1, %r2, %r3;\n"
                             "\tbfind.shiftamt.u32 %r14, %r1;\n"
                             "\tmax.NaN.f32 %f7, %f1, %f2;\n"
                             "\tnanosleep.u32 100;\n"
                             "\tfoo.bar.baz %r1, [%rd1], {%r2, %r3};\n",
                             0);
    cr_expect_eq(i[0].op, PTX_OP_MUL);
    cr_expect(i[0].flags & PTX_F_WIDE);
    cr_expect_eq(i[0].type, PTX_T_S32);
    cr_expect(i[1].flags & PTX_F_HI);
    cr_expect(i[2].flags & PTX_F_LO);
    cr_expect_eq(i[2].op, PTX_OP_MAD);
    cr_expect_eq(i[3].op, PTX_OP_MAD);
    cr_expect_eq(i[3].rnd, PTX_RND_RN);
    cr_expect_eq(i[4].op, PTX_OP_FMA);
    cr_expect_eq(i[4].flags & (PTX_F_FTZ | PTX_F_SAT), PTX_F_FTZ | PTX_F_SAT);
    cr_expect_eq(i[5].op, PTX_OP_CVT);
    cr_expect_eq(i[5].rnd, PTX_RND_RZI);
    cr_expect_eq(i[5].type, PTX_T_S32);
    cr_expect_eq(i[5].type2, PTX_T_F32);
    cr_expect_eq(i[6].type, PTX_T_F16);
    cr_expect_eq(i[6].type2, PTX_T_F32);
    cr_expect_eq(i[7].op, PTX_OP_SIN);
    cr_expect(i[7].flags & PTX_F_APPROX);
    cr_expect(i[8].flags & PTX_F_FULL);
    cr_expect_eq(i[9].op, PTX_OP_SHF);
    cr_expect(i[9].flags & PTX_F_LEFT);
    cr_expect(i[9].flags & PTX_F_WRAP);
    cr_expect_eq(i[10].op, PTX_OP_LOP3);
    cr_expect_eq(i[10].ops[4].ival, 0x96);
    cr_expect_eq(i[11].mode, PTX_PRMT_F4E);
    cr_expect_eq(i[12].mode, PTX_TESTP_FINITE);
    cr_expect(i[13].flags & PTX_F_CC);
    cr_expect_eq(i[14].op, PTX_OP_ADDC);
    cr_expect_eq(i[15].op, PTX_OP_SELP);
    cr_expect_eq(i[16].type2, PTX_T_F32);
    cr_expect_eq(i[17].op, PTX_OP_DP4A);
    cr_expect_eq(i[17].type2, PTX_T_S32);
    cr_expect(i[18].flags & PTX_F_SHIFTAMT);
    cr_expect(i[19].flags & PTX_F_NAN);
    cr_expect_eq(i[20].op, PTX_OP_NANOSLEEP);
    /* an unknown opcode keeps its generic form */
    cr_expect_eq(i[21].op, PTX_OP_UNKNOWN);
    cr_expect_str_eq(i[21].opcode, "foo");
    cr_expect_eq(i[21].nmods, 2);
    cr_expect_eq(i[21].nops, 3);
    cr_expect_eq(i[21].ops[2].kind, PTX_OPD_VEC);
    ptx_module_free(m);
}

Test(ptx_decode, branches_guards_and_labels)
{
    ptx_module *m;
    const ptx_instr *i = one(&m,
                             "\tsetp.eq.u32 %p1, %r1, 0;\n"
                             "\t@!%p1 bra $L__BB0_2;\n"
                             "\tmov.u32 %r2, 1;\n"
                             "$L__BB0_2:\n"
                             "\t@%p1 bra.uni $L__BB0_2;\n",
                             0);
    cr_expect_eq(i[1].op, PTX_OP_BRA);
    cr_expect(i[1].guard >= 0);
    cr_expect(i[1].guard_neg);
    cr_expect_eq(i[1].target_instr, 3);
    cr_expect_eq(i[1].ops[0].kind, PTX_OPD_LABEL);
    cr_expect_eq(i[1].ops[0].label_block, 2);
    cr_expect(!i[3].guard_neg);
    cr_expect(i[3].flags & PTX_F_UNI);
    const ptx_function *k = ptx_find_kernel(m, "k");
    int l = ptx_find_label(k, "$L__BB0_2");
    cr_assert(l >= 0);
    cr_expect_eq(k->labels[l].instr, 3);
    cr_expect_eq(k->labels[l].block, 2);
    char buf[128];
    ptx_format_instr(m, k, &i[1], buf, sizeof buf);
    cr_expect_str_eq(buf, "@!%p1 bra $L__BB0_2");
    ptx_module_free(m);
}

Test(ptx_decode, tex_and_call_forms)
{
    const char *text =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
        "\t.param .b64 vprintf_param_1\n)\n;\n"
        ".func noargs()\n{\n\tret;\n}\n"
        ".visible .entry k(.param .u64 k_param_0)\n{\n"
        "\t.reg .b32 %r<4>;\n\t.reg .f32 %f<5>;\n\t.reg .b64 %rd<3>;\n"
        "\ttex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];\n"
        "\tcall.uni noargs, ();\n"
        "\t{\n\t.param .b64 param0;\n\t.param .b64 param1;\n\t.param .b32 retval0;\n"
        "\tcall.uni (retval0), vprintf, (param0, param1);\n\t}\n"
        "\tprototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
        "\t{\n\t.param .b32 param0;\n\t.param .b32 retval0;\n"
        "\tcall (retval0), %rd2, (param0), prototype_1;\n\t}\n"
        "\tret;\n}\n";
    ptx_module *m = parse_ok(text);
    const ptx_function *k = ptx_find_kernel(m, "k");
    cr_assert_not_null(k);
    const ptx_function *vp = ptx_find_function(m, "vprintf");
    cr_assert_not_null(vp);
    cr_expect(!vp->has_body);
    cr_expect_eq(vp->linkage, PTX_LINK_EXTERN);
    cr_expect_eq(k->instrs[0].op, PTX_OP_TEX);
    cr_expect_eq(k->instrs[0].mode, PTX_TEX_1D);
    cr_expect_eq(k->instrs[0].type, PTX_T_F32);
    cr_expect_eq(k->instrs[0].type2, PTX_T_S32);
    cr_expect_eq(k->instrs[0].ops[1].kind, PTX_OPD_ADDR);
    cr_expect_eq(k->instrs[0].ops[1].nelems, 1);
    cr_expect_eq(k->instrs[1].callee, ptx_function_index(m, "noargs"));
    cr_expect_eq(k->instrs[1].ncall_args, 0);
    cr_expect_eq(k->instrs[2].callee, ptx_function_index(m, "vprintf"));
    cr_expect_eq(k->instrs[3].op, PTX_OP_CALL);
    cr_expect_eq(k->instrs[3].callee, -1);
    cr_expect_eq(k->instrs[3].ops[1].kind, PTX_OPD_REG);
    cr_expect_eq(k->instrs[3].ncall_args, 1);
    ptx_module_free(m);
}

/* `.file N "path"` names what `.loc N LINE COL` refers to: each
 * instruction's CUDA source line, for messages. */
Test(ptx_parse, file_and_loc_give_the_cuda_source_line)
{
    ptx_module *m = parse_ok(".version 7.0\n.target sm_80\n.address_size 64\n"
                             "\t.file\t1 \"/src/k.cu\"\n"
                             "\t.file\t3 \"/src/h.cuh\", 1700000000, 42\n"
                             ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
                             "\tmov.u32 %r1, 1;\n"
                             "\t.loc\t1 17 5\n"
                             "\tadd.u32 %r2, %r1, 1;\n"
                             "\t.loc\t3 4 1\n"
                             "\tadd.u32 %r3, %r2, 1;\n"
                             "\t.loc\t2 9 1\n"
                             "\tret;\n}\n");
    const ptx_function *f = &m->funcs[0];
    char buf[256];
    cr_expect_not(ptx_source_of(m, &f->instrs[0], buf, sizeof buf), "no .loc yet");
    cr_expect_str_eq(buf, "");
    cr_expect(ptx_source_of(m, &f->instrs[1], buf, sizeof buf));
    cr_expect_str_eq(buf, "/src/k.cu:17");
    cr_expect(ptx_source_of(m, &f->instrs[2], buf, sizeof buf));
    cr_expect_str_eq(buf, "/src/h.cuh:4");
    cr_expect_not(ptx_source_of(m, &f->instrs[3], buf, sizeof buf), "file 2 is not declared");
    ptx_module_free(m);
}

/* Code inlined from a function (CUDA's atomicAdd, in its own header)
 * carries `inlined_at` the call's line: the message names both, the
 * kernel's line being the one its author can act on. */
Test(ptx_parse, loc_inlined_at_names_the_call_too)
{
    ptx_module *m = parse_ok(".version 7.0\n.target sm_80\n.address_size 64\n"
                             "\t.file\t1 \"/src/k.cu\"\n"
                             "\t.file\t2 \"/cuda/include/sm_20_atomic_functions.hpp\"\n"
                             ".visible .entry k(.param .u64 a)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<3>;\n"
                             "\t.loc\t1 76 5\n"
                             "\tld.param.u64 %rd1, [a];\n"
                             "\t.loc\t2 84 3, function_name $L__info_string0, inlined_at 1 76 5\n"
                             "\tatom.global.add.f32 %f2, [%rd1], %f1;\n"
                             "\t.loc\t1 77 5\n"
                             "\tret;\n}\n"
                             "\t.section\t.debug_str\n\t{\n$L__info_string0:\n\t.b8 95,0\n\t}\n");
    const ptx_function *f = &m->funcs[0];
    char buf[256];
    cr_expect(ptx_source_of(m, &f->instrs[0], buf, sizeof buf));
    cr_expect_str_eq(buf, "/src/k.cu:76");
    cr_expect(ptx_source_of(m, &f->instrs[1], buf, sizeof buf));
    cr_expect_str_eq(buf, "/cuda/include/sm_20_atomic_functions.hpp:84 (inlined at /src/k.cu:76)");
    cr_expect(ptx_source_of(m, &f->instrs[2], buf, sizeof buf));
    cr_expect_str_eq(buf, "/src/k.cu:77", "a .loc without inlined_at ends it");
    ptx_module_free(m);
}
