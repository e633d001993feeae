/*
 * print.c — human, Graphviz DOT and JSON views of a parsed module, and
 * instructions formatted back to PTX text (for messages).
 */
#include "ptx/internal.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <string.h>

/* ---- instructions as text ------------------------------------------------ */

typedef struct {
    char *buf;
    size_t size, n;
} sbuf;

static void sb_printf(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *s, const char *fmt, ...)
{
    if (s->n + 1 >= s->size) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s->buf + s->n, s->size - s->n, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    s->n += (size_t)k;
    if (s->n >= s->size) s->n = s->size - 1;
}

static const char *sym_name(const ptx_module *m, const ptx_function *f, const ptx_symref *r)
{
    if (r->name) return r->name;
    switch (r->kind) {
    case PTX_SYM_MODULE_VAR: return m->vars[r->index].name;
    case PTX_SYM_LOCAL_VAR: return f->vars[r->index].name;
    case PTX_SYM_PARAM: return f->params[r->index].name;
    case PTX_SYM_RET: return f->rets[r->index].name;
    case PTX_SYM_FUNC: return m->funcs[r->index].name;
    case PTX_SYM_BRANCHTARGETS: return f->btargets[r->index].name;
    default: return "?";
    }
}

static void format_operand(sbuf *s, const ptx_module *m, const ptx_function *f, const ptx_operand *o)
{
    if (o->neg) sb_printf(s, "!");
    switch (o->kind) {
    case PTX_OPD_REG:
        sb_printf(s, "%s", o->reg >= 0 && o->reg < f->nregs ? f->regs[o->reg].name : "?");
        break;
    case PTX_OPD_SPECIAL:
        if (o->sreg == PTX_SREG_PM || o->sreg == PTX_SREG_ENVREG || o->sreg == PTX_SREG_RESERVED_SMEM_OFFSET)
            sb_printf(s, "%s%d", ptx_sreg_name(o->sreg), o->sreg_index);
        else if (o->sreg == PTX_SREG_PM64)
            sb_printf(s, "%%pm%d_64", o->sreg_index);
        else
            sb_printf(s, "%s", ptx_sreg_name(o->sreg));
        if (o->sreg_comp >= 0) sb_printf(s, ".%c", "xyzw"[o->sreg_comp & 3]);
        break;
    case PTX_OPD_IMM_INT:
        sb_printf(s, "%" PRId64, o->ival);
        break;
    case PTX_OPD_IMM_FLOAT:
        if (o->fwidth == 64) sb_printf(s, "0d%016" PRIX64, o->f64bits);
        else if (o->fwidth == 32) sb_printf(s, "0f%08" PRIX32, o->f32bits);
        else sb_printf(s, "%.17g", o->fval);
        break;
    case PTX_OPD_ADDR:
        sb_printf(s, "[");
        if (o->reg >= 0) {
            sb_printf(s, "%s", o->reg < f->nregs ? f->regs[o->reg].name : "?");
            if (o->ival) sb_printf(s, "+%" PRId64, o->ival);
        } else if (o->sym.kind != PTX_SYM_NONE) {
            sb_printf(s, "%s", sym_name(m, f, &o->sym));
            if (o->ival) sb_printf(s, "+%" PRId64, o->ival);
        } else {
            sb_printf(s, "%" PRId64, o->ival);
        }
        for (int i = 0; i < o->nelems; i++) {
            sb_printf(s, ", ");
            format_operand(s, m, f, &o->elems[i]);
        }
        sb_printf(s, "]");
        break;
    case PTX_OPD_VEC:
    case PTX_OPD_LIST:
        sb_printf(s, o->kind == PTX_OPD_VEC ? "{" : "(");
        for (int i = 0; i < o->nelems; i++) {
            if (i) sb_printf(s, ", ");
            format_operand(s, m, f, &o->elems[i]);
        }
        sb_printf(s, o->kind == PTX_OPD_VEC ? "}" : ")");
        break;
    case PTX_OPD_LABEL:
        sb_printf(s, "%s", o->sym.name ? o->sym.name : "?");
        break;
    case PTX_OPD_SYMBOL:
        sb_printf(s, "%s", sym_name(m, f, &o->sym));
        if (o->ival) sb_printf(s, "+%" PRId64, o->ival);
        break;
    case PTX_OPD_SINK:
        sb_printf(s, "_");
        break;
    default:
        sb_printf(s, "?");
        break;
    }
}

void ptx_format_instr(const ptx_module *m, const ptx_function *f, const ptx_instr *ins, char *buf, size_t size)
{
    if (!size) return;
    buf[0] = '\0';
    sbuf s = { buf, size, 0 };
    if (ins->guard >= 0)
        sb_printf(&s, "@%s%s ", ins->guard_neg ? "!" : "", ins->guard < f->nregs ? f->regs[ins->guard].name : "?");
    sb_printf(&s, "%s", ins->opcode);
    for (int i = 0; i < ins->nmods; i++) sb_printf(&s, ".%s", ins->mods[i]);
    for (int i = 0; i < ins->nops; i++) {
        const ptx_operand *o = &ins->ops[i];
        if (o->pipe) sb_printf(&s, "|");
        else sb_printf(&s, i ? ", " : " ");
        format_operand(&s, m, f, o);
    }
}

/* ---- summary ------------------------------------------------------------ */

static const char *param_type_text(const ptx_param *q, char *buf, size_t size)
{
    int esz = ptx_type_size(q->type) * q->vec;
    if (esz < 1) esz = 1;
    if (q->is_array)
        snprintf(buf, size, ".%s[%" PRIu64 "]", ptx_type_name(q->type), q->size / (uint64_t)esz);
    else if (q->vec > 1)
        snprintf(buf, size, ".v%d.%s", q->vec, ptx_type_name(q->type));
    else
        snprintf(buf, size, ".%s", ptx_type_name(q->type));
    return buf;
}

static int count_loops_depth(const ptx_function *f)
{
    int d = 0;
    for (int i = 0; i < f->nloops; i++)
        if (f->loops[i].depth > d) d = f->loops[i].depth;
    return d;
}

void ptx_print_summary(FILE *out, const ptx_module *m)
{
    fprintf(out, "%s: PTX %d.%d, target %s, %d-bit addresses, %d kernel(s), %d function(s), %d module variable(s)\n",
            m->name, m->version_major, m->version_minor, m->target && m->target[0] ? m->target : "?",
            m->address_size, m->nkernels, m->nfuncs - m->nkernels, m->nvars);
    for (int i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        fprintf(out, "  .%s %s: %" PRIu64 " bytes, align %d%s%s\n", ptx_space_name(v->space), v->name, v->size,
                v->align, v->unsized ? " (unsized)" : "", v->init ? ", initialized" : "");
    }
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_function *f = &m->funcs[i];
        fprintf(out, "\n%s %s (line %d)%s\n", f->is_entry ? "kernel" : "function", f->name, f->line,
                f->has_body ? "" : " [declaration only]");
        fprintf(out, "  params: %d (%" PRIu64 " bytes)\n", f->nparams, f->param_bytes);
        char tb[64];
        for (int k = 0; k < f->nparams; k++) {
            const ptx_param *q = &f->params[k];
            fprintf(out, "    %-3d %-40s %-12s offset %-4" PRIu64 " size %-4" PRIu64 " align %d%s\n", k, q->name,
                    param_type_text(q, tb, sizeof tb), q->offset, q->size, q->align, q->is_ptr ? " ptr" : "");
        }
        if (f->nrets) {
            fprintf(out, "  returns: %d\n", f->nrets);
            for (int k = 0; k < f->nrets; k++)
                fprintf(out, "    %-3d %-40s %s\n", k, f->rets[k].name, param_type_text(&f->rets[k], tb, sizeof tb));
        }
        if (!f->has_body) continue;
        int by_type[PTX_T_COUNT] = { 0 };
        for (int r = 0; r < f->nregs; r++) by_type[f->regs[r].type]++;
        fprintf(out, "  registers: %d (", f->nregs);
        bool first = true;
        for (int t = 0; t < PTX_T_COUNT; t++) {
            if (!by_type[t]) continue;
            fprintf(out, "%s%s %d", first ? "" : ", ", ptx_type_name((ptx_type)t), by_type[t]);
            first = false;
        }
        fprintf(out, ")\n");
        int unknown = 0;
        for (int k = 0; k < f->ninstrs; k++) unknown += f->instrs[k].op == PTX_OP_UNKNOWN;
        fprintf(out, "  instructions: %d", f->ninstrs);
        if (unknown) fprintf(out, " (%d with an opcode not decoded)", unknown);
        fprintf(out, "\n");
        int unreach = 0;
        for (int b = 0; b < f->nblocks; b++) unreach += !f->blocks[b].reachable;
        fprintf(out, "  blocks: %d", f->nblocks);
        if (unreach) fprintf(out, " (%d unreachable)", unreach);
        fprintf(out, "\n  conditional branches: %d (%d legs)\n", f->nbranches, 2 * f->nbranches);
        fprintf(out, "  loops: %d (max depth %d)\n", f->nloops, count_loops_depth(f));
        int nlocal = 0;
        for (int k = 0; k < f->nvars; k++) nlocal += f->vars[k].space != PTX_SPACE_PARAM;
        if (nlocal) {
            fprintf(out, "  local variables: %d\n", nlocal);
            for (int k = 0; k < f->nvars; k++) {
                const ptx_var *v = &f->vars[k];
                if (v->space == PTX_SPACE_PARAM) continue;
                fprintf(out, "    .%s %s: %" PRIu64 " bytes\n", ptx_space_name(v->space), v->name, v->size);
            }
        }
    }
}

/* ---- CFG ------------------------------------------------------------------ */

static void print_block_ref(FILE *out, int b)
{
    if (b == PTX_BLOCK_EXIT) fprintf(out, "EXIT");
    else if (b < 0) fprintf(out, "-");
    else fprintf(out, "B%d", b);
}

void ptx_print_cfg(FILE *out, const ptx_module *m)
{
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_function *f = &m->funcs[i];
        if (!f->has_body) continue;
        fprintf(out, "%s %s: %d blocks, %d conditional branches, %d loops\n", f->is_entry ? "kernel" : "function",
                f->name, f->nblocks, f->nbranches, f->nloops);
        for (int b = 0; b < f->nblocks; b++) {
            const ptx_block *bl = &f->blocks[b];
            fprintf(out, "  B%-3d instrs %d-%d  lines %d-%d  succ", b, bl->first, bl->first + bl->count - 1,
                    bl->line_first, bl->line_last);
            if (!bl->nsucc && !bl->exits) fprintf(out, " none");
            for (int k = 0; k < bl->nsucc; k++) fprintf(out, " B%d", bl->succ[k]);
            if (bl->exits) fprintf(out, " EXIT");
            fprintf(out, "  idom ");
            print_block_ref(out, bl->idom);
            fprintf(out, "  ipdom ");
            print_block_ref(out, bl->ipdom);
            if (bl->cond_branch) {
                fprintf(out, "  branch(taken ");
                print_block_ref(out, bl->taken);
                fprintf(out, ", fallthrough ");
                print_block_ref(out, bl->fallthrough);
                fprintf(out, ")");
            }
            if (bl->loop_header) {
                for (int l = 0; l < f->nloops; l++)
                    if (f->loops[l].header == b)
                        fprintf(out, "  loop-header L%d(depth %d, %d blocks)", l, f->loops[l].depth,
                                f->loops[l].nblocks);
            }
            if (bl->loop >= 0 && !bl->loop_header) fprintf(out, "  in L%d", bl->loop);
            if (!bl->reachable) fprintf(out, "  unreachable");
            fprintf(out, "\n");
        }
        for (int l = 0; l < f->nloops; l++) {
            const ptx_loop *L = &f->loops[l];
            fprintf(out, "  L%d header B%d depth %d parent ", l, L->header, L->depth);
            if (L->parent < 0) fprintf(out, "-");
            else fprintf(out, "L%d", L->parent);
            fprintf(out, " latches");
            for (int k = 0; k < L->nlatches; k++) fprintf(out, " B%d", L->latches[k]);
            fprintf(out, " blocks");
            for (int k = 0; k < L->nblocks; k++) fprintf(out, " B%d", L->blocks[k]);
            fprintf(out, "\n");
        }
        fprintf(out, "\n");
    }
}

/* ---- DOT ------------------------------------------------------------------ */

static void dot_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void ptx_print_dot(FILE *out, const ptx_module *m)
{
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_function *f = &m->funcs[i];
        if (!f->has_body) continue;
        fprintf(out, "digraph ");
        dot_string(out, f->name);
        fprintf(out, " {\n  node [shape=box, fontname=\"monospace\"];\n");
        fprintf(out, "  label=");
        dot_string(out, f->name);
        fprintf(out, ";\n");
        for (int b = 0; b < f->nblocks; b++) {
            const ptx_block *bl = &f->blocks[b];
            fprintf(out, "  B%d [label=\"B%d\\ninstr %d-%d\\nlines %d-%d%s\"%s%s];\n", b, b, bl->first,
                    bl->first + bl->count - 1, bl->line_first, bl->line_last,
                    bl->loop_header ? "\\nloop header" : "", bl->cond_branch ? ", shape=diamond" : "",
                    bl->reachable ? "" : ", style=dashed");
        }
        fprintf(out, "  EXIT [shape=doublecircle];\n");
        for (int b = 0; b < f->nblocks; b++) {
            const ptx_block *bl = &f->blocks[b];
            for (int k = 0; k < bl->nsucc; k++) {
                int s = bl->succ[k];
                const char *lab = "";
                if (bl->cond_branch) lab = s == bl->taken ? " [label=\"T\"]" : " [label=\"F\"]";
                bool back = bl->loop >= 0 && ptx_dominates(f, s, b);
                fprintf(out, "  B%d -> B%d%s%s;\n", b, s, lab, back ? " [style=bold]" : "");
            }
            if (bl->exits) fprintf(out, "  B%d -> EXIT;\n", b);
        }
        fprintf(out, "}\n");
    }
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *function_json(const ptx_function *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "params", json_integer(f->nparams));
    json_object_set_new(o, "registers", json_integer(f->nregs));
    json_object_set_new(o, "instructions", json_integer(f->ninstrs));
    json_object_set_new(o, "blocks", json_integer(f->nblocks));
    json_object_set_new(o, "branches", json_integer(f->nbranches));
    json_object_set_new(o, "loops", json_integer(f->nloops));
    json_object_set_new(o, "line", json_integer(f->line));
    json_object_set_new(o, "param_bytes", json_integer((json_int_t)f->param_bytes));
    json_t *pl = json_array();
    for (int k = 0; k < f->nparams; k++) {
        const ptx_param *q = &f->params[k];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(q->name));
        json_object_set_new(j, "type", json_string(ptx_type_name(q->type)));
        json_object_set_new(j, "size", json_integer((json_int_t)q->size));
        json_object_set_new(j, "offset", json_integer((json_int_t)q->offset));
        json_object_set_new(j, "align", json_integer(q->align));
        json_object_set_new(j, "array", json_boolean(q->is_array));
        json_object_set_new(j, "ptr", json_boolean(q->is_ptr));
        json_array_append_new(pl, j);
    }
    json_object_set_new(o, "param_list", pl);
    return o;
}

int ptx_print_json(FILE *out, const ptx_module *m)
{
    json_t *root = json_object();
    json_object_set_new(root, "file", json_string(m->name));
    char ver[32];
    snprintf(ver, sizeof ver, "%d.%d", m->version_major, m->version_minor);
    json_object_set_new(root, "version", json_string(ver));
    json_object_set_new(root, "target", json_string(m->target ? m->target : ""));
    json_object_set_new(root, "address_size", json_integer(m->address_size));
    json_t *ks = json_array(), *fs = json_array();
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_function *f = &m->funcs[i];
        if (f->is_entry) json_array_append_new(ks, function_json(f));
        else if (f->has_body) json_array_append_new(fs, function_json(f));
    }
    json_object_set_new(root, "kernels", ks);
    json_object_set_new(root, "functions", fs);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (rc == 0 && fputc('\n', out) == EOF) rc = -1;
    return rc == 0 ? 0 : -1;
}

const ptx_instr *ptx_instr_at_line(const ptx_module *m, int line)
{
    for (int f = 0; f < m->nfuncs; f++)
        for (int i = 0; i < m->funcs[f].ninstrs; i++)
            if (m->funcs[f].instrs[i].line == line)
                return &m->funcs[f].instrs[i];
    return NULL;
}

bool ptx_source_of(const ptx_module *m, const ptx_instr *ins, char *buf, size_t size)
{
    if (size)
        buf[0] = 0;
    if (!ins || ins->src_line <= 0 || ins->src_file < 0 || ins->src_file >= m->nsrc_files ||
        !m->src_files[ins->src_file])
        return false;
    int n = snprintf(buf, size, "%s:%d", m->src_files[ins->src_file], ins->src_line);
    bool called = ins->call_line > 0 && ins->call_file >= 0 && ins->call_file < m->nsrc_files &&
                  m->src_files[ins->call_file];
    if (called && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " (inlined at %s:%d)", m->src_files[ins->call_file], ins->call_line);
    return true;
}
