/*
 * internal.h — types shared by the files of symexec/ (not public).
 *
 * Z3 reference counting: the context is created with Z3_mk_context_rc.
 * Every AST held past the current instruction (registers, memory bytes,
 * path constraints, models) owns one reference.  Temporaries made while
 * executing one instruction go through `sx_zk()`, which takes a reference and
 * records it in a scratch list released by `sx_z_release()` at the end of the
 * instruction.
 */
#ifndef WH_SYMEXEC_INTERNAL_H
#define WH_SYMEXEC_INTERNAL_H

#include "symexec/symexec.h"
#include "core/clock.h"
#include "core/pcg32.h"

#include <z3.h>

#include <stdbool.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Z3 helpers (z3util.c)                                               */
/* ------------------------------------------------------------------ */

typedef struct {
    Z3_context c;
    Z3_sort bool_s, bv[129];     /* bv[w]: created lazily */
    Z3_sort fp32, fp64, idx_s, byte_s, arr_s;
    Z3_ast rm[5];                /* RNE RTZ RTN RTP RNA */
    Z3_ast tru, fls;
    Z3_ast *tmp; int ntmp, captmp;
    bool failed;
    char errmsg[256];
} sx_z;

enum { SX_RM_RNE, SX_RM_RTZ, SX_RM_RTN, SX_RM_RTP, SX_RM_RNA };

bool sx_z_init(sx_z *z, wh_error *err);
void sx_z_fini(sx_z *z);
/* Keep a temporary until sx_z_release (NULL-safe: records the Z3 error). */
Z3_ast sx_zk(sx_z *z, Z3_ast a);
void sx_z_release(sx_z *z);
/* Long-lived reference management. */
void sx_z_inc(sx_z *z, Z3_ast a);
void sx_z_dec(sx_z *z, Z3_ast a);
Z3_sort sx_z_bvs(sx_z *z, int w);
Z3_ast sx_z_num(sx_z *z, uint64_t v, int w);
Z3_ast sx_z_bool(sx_z *z, bool b);
bool sx_z_is_value(sx_z *z, Z3_ast a);
bool sx_z_get_u64(sx_z *z, Z3_ast a, uint64_t *v);
/* 1 true, 0 false, -1 not a constant. */
int sx_z_bool_value(sx_z *z, Z3_ast a);
int sx_z_width(sx_z *z, Z3_ast a);           /* bv width, fp width, 1 for Bool */
bool sx_z_is_bool(sx_z *z, Z3_ast a);
bool sx_z_is_fp(sx_z *z, Z3_ast a);
bool sx_z_is_bv(sx_z *z, Z3_ast a);
/* Simplify `a` when every argument of its top application is a value. */
Z3_ast sx_z_fold(sx_z *z, Z3_ast a);
Z3_ast sx_z_simplify(sx_z *z, Z3_ast a);
/* Conversions between bit-vectors, Bools and floats. */
Z3_ast sx_z_to_bv(sx_z *z, Z3_ast a);                  /* any -> bv of natural width */
Z3_ast sx_z_resize(sx_z *z, Z3_ast a, int w, bool sext);/* bv -> bv of width w */
Z3_ast sx_z_as_bv(sx_z *z, Z3_ast a, int w);           /* any -> bv w (zero-ext/trunc) */
Z3_ast sx_z_as_fp(sx_z *z, Z3_ast a, int w);           /* any -> fp32/fp64 (bit reinterpretation) */
Z3_ast sx_z_as_bool(sx_z *z, Z3_ast a);                /* Bool, or bv != 0 */
Z3_ast sx_z_not(sx_z *z, Z3_ast a);
Z3_ast sx_z_and2(sx_z *z, Z3_ast a, Z3_ast b);
Z3_ast sx_z_or2(sx_z *z, Z3_ast a, Z3_ast b);
Z3_ast sx_z_ite(sx_z *z, Z3_ast c, Z3_ast a, Z3_ast b);
Z3_ast sx_z_extract(sx_z *z, Z3_ast a, int hi, int lo);
Z3_ast sx_z_concat(sx_z *z, Z3_ast hi, Z3_ast lo);
Z3_ast sx_z_eq(sx_z *z, Z3_ast a, Z3_ast b);

/* ------------------------------------------------------------------ */
/* Persistent lists (plist.c): shared prefixes, appended at the tail   */
/* ------------------------------------------------------------------ */

typedef struct sx_node {
    int rc;
    int len;                 /* nodes from the root, this one included */
    struct sx_node *up;
    Z3_ast ast;              /* path constraints: owns a reference */
    int32_t a, b, c, d;      /* payload of decisions / visits; path
                              * constraints: a = 1 when this one or one
                              * above it has float subterms */
} sx_node;

sx_node *sx_node_push(sx_node *up, Z3_ast ast, int32_t a, int32_t b, int32_t c, int32_t d);
sx_node *sx_node_ref(sx_node *n);
void sx_node_unref(sx_z *z, sx_node *n);
/* Nodes root-first into a fresh array of n->len pointers. */
sx_node **sx_node_array(sx_node *n, int *count);

/* ------------------------------------------------------------------ */
/* Static memory layout (layout.c)                                     */
/* ------------------------------------------------------------------ */

typedef enum {
    SX_R_PARAMBUF,   /* a buffer kernel parameter */
    SX_R_GLOBALVAR,  /* module .global / .const variable */
    SX_R_SHARED,     /* .shared variable (static or extern dynamic) */
    SX_R_LOCAL       /* per-thread: .local, .param variables of functions */
} sx_region_kind;


typedef struct {
    char *name;
    sx_region_kind kind;
    ptx_space space;         /* GLOBAL (const too), SHARED or LOCAL */
    uint64_t base, size;     /* in its space (LOCAL: per thread offset) */
    int thread;              /* LOCAL: owner; else -1 */
    int param;               /* spec param index (a buffer or a spec global), or -1 */
    bool input;              /* initial content symbolic (its first input_bytes) */
    uint64_t input_bytes;    /* input: bytes the symbols cover; init (or zero) past them */
    const uint8_t *init;     /* initial bytes (size), NULL: zero */
    uint8_t *init_own;       /* init when the region owns it (a fixed spec global) */
    int first_sym;           /* input: symbol of element 0 field 0 */
    int nfields;             /* input: fields per element */
    uint64_t elem_size;
} sx_region;

typedef struct {
    char *name;              /* "values[3]", "nodes[2].start" */
    int region, param, field;
    uint64_t elem, offset;   /* offset of the field in the region */
    int bytes;
    wh_type type;
    Z3_ast ast;              /* bv constant, or NULL when the domain is one value */
    uint64_t value;          /* the value when ast is NULL */
    Z3_ast domain;           /* its domain assumption or NULL */
    uint64_t low;            /* bit pattern of the low end of its domain */
} sx_symbol;

/* Z3 AST id of a symbol's constant, for lookups by AST. */
typedef struct {
    unsigned id;
    int sym;
} sx_symid;

/* Where a function-scope symbol lives for each thread. */
typedef struct {
    int *param_region;       /* [k * X + t] (non-entry functions) */
    int *ret_region;         /* [k * X + t] */
    int *var_region;         /* [v * X + t]: LOCAL / PARAM / SHARED vars */
} sx_func_layout;

/* ------------------------------------------------------------------ */
/* State (state.c)                                                     */
/* ------------------------------------------------------------------ */

#define SX_PAGE 64

typedef struct sx_regpage {
    int rc;
    Z3_ast v[SX_PAGE];
} sx_regpage;

typedef struct {
    int func;
    int pc;
    int nregs;
    sx_regpage **pages;      /* (nregs + SX_PAGE - 1) / SX_PAGE */
    int *loop_iter;          /* [nloops]: iterations of each loop */
    int block;               /* current block */
    int call_instr;          /* in the caller: the call instruction, -1 */
} sx_frame;

/* TS_MBAR: at an mbarrier test_wait or try_wait whose phase has not
 * completed; it runs the wait again once an arrival completes a phase.
 * TS_ATOM: at an atomic, waiting for the other threads of its warp to stop;
 * TS_ATOM_DONE: ran its warp's atomic, waiting for the rest of the group
 * to run theirs (search.c, "atomics in lane order"). */
typedef enum { TS_RUN = 0, TS_BARRIER, TS_WARP, TS_EXITED, TS_MBAR, TS_ATOM, TS_ATOM_DONE } sx_tstatus;

typedef struct {
    sx_frame *fr; int nfr, capfr;
    sx_tstatus status;
    uint64_t instrs;
    sx_node *dec;            /* decisions: a=func b=instr c=taken d=interval */
    sx_node *vis;            /* block visits: a=depth<<16|func b=block c=count d=interval */
    int vis_count;           /* instructions in the current visit so far */
    int wait_func, wait_pc;  /* the barrier, collective or atomic it waits at */
    bool atom_pass;          /* released to run the atomic it waits at */
    Z3_ast bar_val;          /* bar.red: the thread's predicate (owned), or NULL */
} sx_thread;

/* A byte of memory: concrete (t == NULL) or byte `idx` of term t. */
typedef struct {
    Z3_ast t;
    uint8_t idx;             /* little-endian byte index in t */
    uint8_t n;               /* t's width in bytes */
    uint8_t conc;            /* value when t == NULL */
    uint8_t fp;              /* t is a float term */
} sx_byte;

typedef struct {
    int rc;
    sx_byte *bytes;          /* NULL: the region's initial content */
    Z3_ast arr;              /* array (bv64 -> bv8) of the content, or NULL */
    bool array_mode;         /* content lives in arr only */
    int sym_stores;          /* stores at symbolic offsets so far (see memory.c) */
    /* offsets of a large region this state wrote, the first
     * SX_ALIAS_CANDIDATES of them (memory.c) */
    uint64_t written[SX_ALIAS_CANDIDATES];
    int nwritten;
} sx_mem;

typedef struct sx_watchdog sx_watchdog;

typedef struct sx_state {
    int X;
    sx_thread *th;
    int cur;                 /* running thread */
    int interval;
    int nmem;
    sx_mem **mem;            /* per region (copy on write) */
    sx_node *pc;             /* path constraints */
    Z3_model model;          /* satisfies domains and pc */
    uint8_t *legs;           /* bitset over the engine's legs */
    bool uf;
    int new_leg;             /* uncovered leg taken when created, or -1 */
    long seq;                /* creation order */
    char *note;              /* cut / error reason */
    sx_path_kind end;        /* how it ended */
    bool over;               /* ended (done, cut or error) */
    bool fp;                 /* its terms involve symbolic floating point */
    bool barrier_div;        /* threads disagreed on a barrier: an error path */
    int array_ops;           /* loads and stores at symbolic offsets (memory.c) */
    bool concolic;           /* since a give-up: follows its model (fork.c) */
    int witness_misses;      /* witness searches that found none (witness.c) */
    uint64_t heap_used;      /* bytes of the device heap malloc handed out */
} sx_state;

/* ------------------------------------------------------------------ */
/* Engine                                                              */
/* ------------------------------------------------------------------ */

struct sx_engine {
    const wh_spec *spec;
    const ptx_module *mod;
    const ptx_function *entry;
    int entry_idx;
    sx_options opt;
    int X, max_iter;
    sx_z z;
    Z3_solver solver;
    struct sx_watchdog *dog;             /* watchdog.c */
    int interrupted;                     /* solver calls the watchdog cut */
    int isolated;                        /* checks run in a child (isolate.c) */
    bool distrust;                       /* a check has ended unknown: see "trust" in solver.c */
    bool fp_slow;                        /* an FP check took SX_FP_SLOW_MS: later ones are isolated (solver.c) */
    int memouts;                         /* of them, for Z3's memory (or not started) */
    uint64_t mem_limit;                  /* bytes of Z3 allocations; 0: none */
    sx_node **sync; int nsync, capsync;  /* constraints asserted, one scope each */
    Z3_solver msolver;                   /* for models after the search */
    Z3_model *first_model;               /* per path: its seed-0 model, the first
                                            witness of its other seeds (model.c) */
    wh_image *img;                       /* the X-thread image: fixed data, scalars */
    sx_region *regions; int nregions;
    sx_symbol *syms; int nsyms;
    sx_symid *symids; int nsymids;         /* sorted by id */
    Z3_ast domains;                      /* conjunction of the symbols' domains and
                                            of the structured buffers' structure */
    Z3_ast structure;                    /* the structure alone (part of every path
                                            formula), or NULL */
    uint8_t *params; uint64_t nparam_bytes; /* kernel parameter space */
    ptx_texture *tex;                    /* per spec param: its texture at the X-thread
                                            launch (ndims 0: none) */
    int *tex_region;                     /* per spec param: a texture's texel region, or -1 */
    ptx_tensor_map *tmap;                /* per spec param: its tensor map at the X-thread
                                            launch (rank 0: none) */
    int *tmap_region;                    /* per spec param: a tensor map's tensor region, or -1 */
    int heap_region;                     /* the device heap (malloc), or -1 */
    int *call_targets, ncall_targets;    /* what an indirect call may call: the functions whose
                                            address the module takes, in module order */
    int *scalar_sym;                     /* per spec param: the symbol of a searched
                                            scalar (read by ld.param), else -1 */
    sx_func_layout *fl;                  /* per function */
    uint64_t local_size, shared_size;
    int **leg_of;                        /* [func][block]: first leg (taken), -1 */
    sx_leg *legs; int nlegs;
    bool *covered;
    bool *func_used;                     /* entry and its callees */
    sx_state **work; int nwork, capwork;
    pcg32 rng;
    long seq;
    double t0;
    /* saturation (sx_options.saturation_s): what the search had found when
     * it last found something new, and when */
    struct { double at; int legs, paths; uint64_t warp_instr; double brdiv; } gain;
    long checks;
    double solver_s;
    long forks;
    long giveups;            /* see sx_result.giveups */
    long witnesses;          /* see sx_result.witnesses */
    long pinned;             /* see sx_result.pinned */
    long word_cases;         /* see sx_result.word_cases */
    sx_result *res;
    wh_error *err;
    bool fatal;
    struct { char name[48]; Z3_func_decl decl; } ufs[32];  /* .approx ops */
    Z3_ast *forms;                       /* formula of each recorded path */
    bool *form_fp;                       /* ... has float subterms */
    long abandoned;                      /* states dropped at the worklist cap */
    unsigned timeout_ms;                 /* the solver's current per-check timeout */
    unsigned model_query_ms;             /* sx_model_limits: per model check, 0: none */
    double model_deadline;               /* ... and no model check past this, 0: none */
    struct sx_refuted *refuted;          /* queries found unsatisfiable (solver.c) */
    int nrefuted, caprefuted;
    int *refuted_head;                   /* hash buckets of refuted, -1 ends a chain */
    int nufs;
    struct sx_follow *follow;            /* sx_extend's decisions (extend.c), else NULL */
};

/* Instruction execution context. */
typedef struct {
    sx_engine *e;
    sx_state *s;
    int t;
    sx_thread *th;
    sx_frame *fr;
    const ptx_function *f;
    const ptx_instr *ins;
    int pc;
    Z3_ast guard;            /* symbolic guard, NULL when unconditional */
    int next_pc;             /* set by control flow; -1: pc + 1 */
    bool stop;               /* thread stops (barrier, warp op, exit) */
    bool dead;               /* path ended (error, cut) */
} sx_cx;

/* ------------------------------------------------------------------ */
/* Functions shared between files                                      */
/* ------------------------------------------------------------------ */

/* layout.c */
bool sx_layout_build(sx_engine *e, wh_error *err);
/* A model of the domains built without the solver (every input at the low
 * end of its domain), or NULL when it does not satisfy them. */
Z3_model sx_layout_low_model(sx_engine *e);
/* A model giving each symbol the value img (an image of the engine's X
 * threads) holds, or the low end of its domain when img is NULL; domains
 * not checked. */
Z3_model sx_layout_input_model(sx_engine *e, const wh_image *img);
/* A region's generic address (the semantics contract's map). */
uint64_t sx_layout_generic(const sx_region *r);
/* The symbol whose constant is `a`, or -1. */
int sx_layout_symbol_of(const sx_engine *e, Z3_ast a);
void sx_layout_free(sx_engine *e);
int sx_layout_find(const sx_engine *e, ptx_space space, int thread, uint64_t addr);
int sx_layout_nearest(const sx_engine *e, ptx_space space, int thread, uint64_t addr);

/* state.c */
sx_state *sx_state_new(sx_engine *e);
sx_state *sx_state_clone(sx_engine *e, const sx_state *s);
void sx_state_free(sx_engine *e, sx_state *s);
Z3_ast sx_reg_get(sx_engine *e, const sx_frame *fr, int r);
void sx_reg_set(sx_engine *e, sx_frame *fr, int r, Z3_ast v);
bool sx_frame_push(sx_engine *e, sx_thread *th, int func, int call_instr);
void sx_frame_pop(sx_engine *e, sx_thread *th);
void sx_state_note(sx_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sx_state_add_pc(sx_engine *e, sx_state *s, Z3_ast c);
/* Do the state's path constraints have float subterms? */
bool sx_state_pc_float(const sx_state *s);
void sx_state_set_model(sx_engine *e, sx_state *s, Z3_model m);

/* memory.c */
bool sx_mem_load(sx_cx *cx, ptx_space space, Z3_ast addr, int nbytes, Z3_ast *out);
/* Ends the path with an error where the emulator faults (an access outside
 * every buffer, a misaligned one), with `what` as its issue and note. */
void sx_fault_path(sx_cx *cx, const char *what);
bool sx_mem_store(sx_cx *cx, ptx_space space, Z3_ast addr, int nbytes, Z3_ast val);
void sx_mem_release(sx_engine *e, int region, sx_mem *m);
/* Copy the first n bytes of region src into region dst (call arguments). */
bool sx_mem_copy(sx_engine *e, sx_state *s, int dst, int src, uint64_t n);
/* n bytes at offset off of a region (a call's argument or result): a
 * term, or NULL past the region's end; and a write, false past it. */
Z3_ast sx_mem_read(sx_engine *e, sx_state *s, int region, uint64_t off, int n);
bool sx_mem_write(sx_engine *e, sx_state *s, int region, uint64_t off, int n, Z3_ast val);
/* Zero the first n bytes of region dst (a call's result). */
bool sx_mem_zero(sx_engine *e, sx_state *s, int dst, uint64_t n);

/* solver.c */
/* Is pc(s) && extra satisfiable?  1 yes (model in *m, referenced), 0 no,
 * -1 unknown/error.  extra may be NULL. */
/* Parameters of the engine's solver, once, after it is made. */
void sx_solver_configure(sx_engine *e);
int sx_solver_check(sx_engine *e, const sx_state *s, Z3_ast extra, Z3_model *m);
/* c, which a check found implied by s's path (its negation infeasible),
 * joins the path once e->distrust is set ("trust" in solver.c). */
void sx_solver_implied(sx_engine *e, sx_state *s, Z3_ast c);

/* watchdog.c: Z3_interrupt on a solver call that runs past its deadline,
 * or while Z3's allocations are past mem_limit bytes (0: no limit)
 * (NULL watchdog: none, every call unbounded but by Z3's timeout) */
typedef enum { SX_CUT_NONE, SX_CUT_TIME, SX_CUT_MEMORY } sx_cut;
sx_watchdog *sx_watchdog_new(Z3_context c, uint64_t mem_limit);
void sx_watchdog_free(sx_watchdog *w);
void sx_watchdog_arm(sx_watchdog *w, unsigned ms);
/* Why the context was interrupted, SX_CUT_NONE when it was not. */
sx_cut sx_watchdog_disarm(sx_watchdog *w);
/* Has Z3 allocated more than limit bytes (0: no limit)? */
bool sx_z3_memory_over(uint64_t limit);
void sx_solver_reset_sync(sx_engine *e);
/* Release the remembered refutations (engine teardown). */
void sx_solver_forget_refuted(sx_engine *e);
/* isolate.c: check s in a child process killed at `deadline` (wh_clock_s);
 * with m, the model (referenced, symbols' values only) when satisfiable.
 * 1: answered (*r, Z3_L_UNDEF when the child failed), -1: killed at the
 * deadline (*r = Z3_L_UNDEF), 0: no child could be made (check here). */
int sx_isolated_check(sx_engine *e, Z3_solver s, double deadline, Z3_model *m, Z3_lbool *r);
/* Value of `a` in the state's model. */
Z3_ast sx_model_value(sx_engine *e, Z3_model m, Z3_ast a);

/* ceval.c: a Boolean formula compiled for evaluation at concrete values of
 * its symbols (place[symbol index]: where vals holds its value, -1 for a
 * symbol the caller has no value for); NULL when it holds anything the
 * program cannot evaluate as Z3 would (then ask Z3).  Evaluation answers
 * what Z3_model_eval would in a model of exactly those values. */
typedef struct sx_cprog sx_cprog;
sx_cprog *sx_cprog_compile(const sx_engine *e, Z3_ast f, const int *place);
bool sx_cprog_eval(sx_cprog *p, const uint64_t *vals);
void sx_cprog_free(sx_cprog *p);
/* Model text of the input symbols mentioned, "values[0]=7 values[1]=3". */
char *sx_model_inputs_text(sx_engine *e, Z3_model m);

/* exec.c */
/* Run one instruction of the state's current thread. */
bool sx_exec_step(sx_engine *e, sx_state *s);
bool sx_exec_fail(sx_cx *cx, wh_error_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Z3_ast sx_opd_get(sx_cx *cx, int i, ptx_type t);
/* the value of operand o (a register, immediate, special register or symbol) */
Z3_ast sx_opd_value(sx_cx *cx, const ptx_operand *o, ptx_type t);
Z3_ast sx_opd_get_fp(sx_cx *cx, int i, ptx_type t);
Z3_ast sx_opd_get_pred(sx_cx *cx, int i);
bool sx_opd_set(sx_cx *cx, int i, Z3_ast v, ptx_type t);
bool sx_reg_write(sx_cx *cx, int r, Z3_ast v);
/* A context for thread t of state s at its current instruction. */
void sx_cx_init(sx_cx *cx, sx_engine *e, sx_state *s, int t);
Z3_ast sx_opd_addr(sx_cx *cx, const ptx_operand *o, ptx_space *space);

/* exec_int.c / exec_float.c / exec_mem.c / exec_ctrl.c / exec_warp.c:
 * each returns 1 handled, 0 not its opcode, -1 failure. */
int sx_exec_int(sx_cx *cx);
/* setp/set: combine with the predicate operand `cop` (and/or/xor), write
 * the destination(s). */
int sx_finish_compare(sx_cx *cx, Z3_ast r, int cop);
int sx_exec_float(sx_cx *cx);
/* exec_float.c: a float comparison of two terms of one float sort (NULL
 * and the path failed for a comparison floats do not have); a float term of
 * sort `st` (f32 or f64) to integer type dt by the instruction's integer
 * rounding, saturating, NaN -> 0. */
Z3_ast sx_float_compare(sx_cx *cx, ptx_cmp cmp, Z3_ast a, Z3_ast b);
/* fold a new term; a symbolic float term sends the state's checks to the
 * FP solver */
Z3_ast sx_fold_fp(sx_cx *cx, Z3_ast a);
Z3_ast sx_float_to_int(sx_cx *cx, Z3_ast a, ptx_type st, ptx_type dt);
/* exec_half.c: f16 / bf16 scalar and packed forms (sx_exec_float asks it
 * first; same return convention). */
int sx_exec_half(sx_cx *cx);
int sx_exec_mem(sx_cx *cx);
/* exec_mem.c: the value an atomic (or sured) operation `op` of type t
 * leaves at a location holding `old` with operands b (and c, cas); NULL
 * and the path failed for an operation the engine lacks. */
Z3_ast sx_atom_value(sx_cx *cx, ptx_atomop op, ptx_type t, Z3_ast old, Z3_ast b, Z3_ast c);
int sx_exec_tex(sx_cx *cx);
int sx_exec_ctrl(sx_cx *cx);
/* exec_brx.c: brx.idx (forks one state per feasible target). */
int sx_exec_brx(sx_cx *cx);
/* A choice among n outcomes by a symbolic 32-bit index (exec_brx.c): one
 * state per feasible outcome k < n, each with `index == k` on its path,
 * and a fault when `index >= n` is feasible.  take follows outcome k (it
 * may set cx->stop, as a call does; -1: failure), cuts (or NULL) says
 * whether k continues a loop past its bound, fault records the error
 * path.  1 done, -1 failure. */
typedef struct {
    int n;
    int (*take)(sx_cx *cx, int k, void *arg);
    bool (*cuts)(const sx_cx *cx, int k, void *arg);
    void (*fault)(sx_cx *cx, Z3_ast cond, Z3_model m, uint64_t idx, void *arg);
    void *arg;
} sx_multiway;
int sx_fork_multiway(sx_cx *cx, Z3_ast idx, const sx_multiway *mw);

/* An input (a model, referenced) under which the domains, the structure,
 * s's path and `side` all hold, found by sampling around s's model
 * (witness.c); NULL when the tries find none (which proves nothing; s
 * counts the miss, and stops searching after a few). */
Z3_model sx_witness_find(sx_engine *e, sx_state *s, Z3_ast side);
/* exec_warp.c: 1 when the instruction is a warp collective (the thread
 * stops and waits for its warp), 0 otherwise. */
int sx_exec_warp_stop(sx_cx *cx);
/* Run the collectives every waiting thread stopped at. */
bool sx_warp_collectives(sx_engine *e, sx_state *s);
/* ptx_shfl_source over terms: the source lane (8-bit, 0..31) that lane
 * `lane` reads for lane operand b and clamp operand c, and in *in_range
 * whether it lies in the segment (Bool).  Temporaries (sx_zk). */
Z3_ast sx_shfl_source_term(sx_z *z, ptx_shfl_mode mode, int lane, Z3_ast b, Z3_ast c, Z3_ast *in_range);

/* exec_ctrl.c */
void sx_enter_block(sx_engine *e, sx_state *s, int t, int block);
bool sx_exec_return(sx_cx *cx);
/* All threads wait or exited: release the barrier, report divergence. */
bool sx_barrier_release(sx_engine *e, sx_state *s);
/* Nothing runs and a thread waits on an mbarrier phase: no arrival can
 * complete it (the GPU would spin forever); the path ends as an error. */
void sx_mbarrier_deadlock(sx_engine *e, sx_state *s);
void sx_advance_pc(sx_cx *cx);

/* fork.c */
/* Decide a symbolic condition for the current state: returns the side it
 * follows (1: cond holds, 0: it does not) or -1 on failure.  When both
 * sides are feasible the state forks: the copy gets the other side's
 * constraint and model, `apply(copy's context, side, arg)` is run on it and
 * it is queued (or recorded as a cut path when cut[side] says that side
 * goes past the loop bound).  prefer: the side the current state should
 * follow (-1: the one reaching an uncovered leg first, leg[side] giving
 * the leg index of each side or -1; ties broken at random). */
typedef void (*fork_apply_fn)(sx_cx *cx, bool side, void *arg);
typedef struct {
    fork_apply_fn apply;
    void *arg;
    int prefer;              /* -1, 0 or 1 */
    int leg[2];              /* leg of side 0 / side 1, or -1 */
    bool cut[2];             /* taking that side passes the loop bound */
    const char *cut_note[2];
} sx_fork;
int sx_fork_on(sx_cx *cx, Z3_ast cond, const sx_fork *fk);

/* cases.c: a condition over floats that reach the inputs only through
 * selects, rewritten as an equivalent condition without floats (a
 * temporary), or `a` itself. */
Z3_ast sx_cases_defloat(sx_engine *e, Z3_ast a);
/* Does `a` have a float subterm (true too when it is too large to tell)? */
bool sx_cases_has_float(sx_engine *e, Z3_ast a);

/* search.c */
void sx_work_push(sx_engine *e, sx_state *s);
/* An engine for the spec's entry that records its paths in res (freed by
 * sx_engine_free, or by sx_result_free once res->priv holds it). */
sx_engine *sx_engine_new(const wh_spec *spec, const ptx_module *mod, const sx_options *opt, sx_result *res,
                         wh_error *err);
void sx_engine_free(sx_engine *e);
/* Run s until it ends (recorded as a path, s freed) or the budget is spent
 * (s back on the worklist); false on a fatal error. */
bool sx_run_state(sx_engine *e, sx_state *s);

/* model.c: a symbol's value in an image of the engine's X threads, its
 * write, and the thread that owns its element in `input` (an image of the
 * X threads: an owner by rows reads its row pointer; -1: a shared input,
 * or an element no thread owns). */
uint64_t sx_symbol_read(const sx_symbol *s, const wh_param *p, const wh_image *img);
void sx_symbol_write(const sx_symbol *s, const wh_param *p, wh_image *img, uint64_t v);
int sx_symbol_owner(const sx_engine *e, const sx_symbol *s, const wh_image *input);

/* extend.c (sx_extend): while e->follow is set, fork.c notes each branch
 * decision of the followed state (the side not taken, the path before it)
 * and an unsigned div or rem of symbolic operands takes the quotient the
 * followed input computes (the term, or NULL: the exact one). */
void sx_follow_note(sx_engine *e, const sx_state *s, int thread, Z3_ast other);
Z3_ast sx_follow_divrem(sx_cx *cx, Z3_ast a, Z3_ast b, int w, bool rem);

/* interval.c: unsigned bounds [lo, hi] of a bit-vector term of at most 64
 * bits, from its structure and the input domains (an over-approximation;
 * false when nothing useful is known). */
bool sx_interval_of(sx_engine *e, Z3_ast a, uint64_t *lo, uint64_t *hi);
/* How many low bits of a bit-vector term are zero whatever the inputs (0
 * when its structure does not tell). */
int sx_low_zero_bits(sx_engine *e, Z3_ast a);

/* metrics.c */
bool sx_metrics_record(sx_engine *e, sx_state *s);
void sx_path_free(sx_path *p);

/* coverage.c */
bool sx_coverage_build(sx_engine *e, wh_error *err);
void sx_coverage_free(sx_engine *e);
int sx_leg_index(const sx_engine *e, int func, int block, bool taken);
void sx_leg_mark(sx_engine *e, sx_state *s, int leg);

/* search.c: record an issue (one per kind and line) */
void sx_issue_add(sx_engine *e, sx_issue_kind kind, int line, int thread,
               const char *cond, Z3_model model, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

#endif
