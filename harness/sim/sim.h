/*
 * sim.h — the sim backend's internal structures (the files of harness/sim/ only).
 *
 * Three layers, each in its own files:
 *   - the machine profile (profile.c): costs and sizes of the modelled GPU;
 *   - the program (decode.c): the kernel and every function it calls,
 *     pre-decoded once at open time into compact sim_instr arrays with
 *     operands resolved to register slots, immediates to 64-bit patterns,
 *     symbols to addresses, branches to targets and reconvergence points;
 *   - the run (run.c, step.c, exec.c, float.c, mem.c,
 *     timing.c): all mutable state of one launch in one sim_run struct,
 *     created per harness_measure call: global memory regions, SMs,
 *     resident blocks, warps with their register files, SIMT stacks and
 *     call frames, and the timing state.  No global mutable state.
 *   - the instrumentation (explain.c), off unless harness_explain asks:
 *     per instruction and per warp, what issued and where cycles went.
 *
 * Registers: one 64-bit value per lane, laid out [slot][lane], so a warp
 * instruction loops over 32 consecutive words.  A register holds its
 * value in its low bits; a reader uses the low bits of its own type
 * (upper bits are don't-care).  Predicates are 32-bit lane masks.
 *
 * Address map of the emulated device (generic addresses, 64 bits):
 *   0x0000_1000_0000_0000 + off   shared window (off < 2^32), per block
 *   0x0000_2000_0000_0000 + off   local window, per thread
 *   0x0000_3000_0000_0000 + off   const bank
 *   0x0000_7f00_0000_0000 + i<<36 global region i: spec buffer i (in
 *                                 parameter order), then the module's
 *                                 .global variables
 * Global and generic addresses of global memory are the same.  State-space
 * addresses of shared, local, const and param memory are offsets.
 */
#ifndef WH_HARNESS_SIM_H
#define WH_HARNESS_SIM_H

#include "core/alloc.h"
#include "core/image.h"
#include "core/spec.h"
#include "harness/backend.h"
#include "harness/harness.h"
#include "ptx/ptx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SIM_WARP 32
#define SIM_MAX_BARRIERS 16
#define SIM_CLUSTER_BARRIER SIM_MAX_BARRIERS   /* bar_id of a warp waiting at barrier.cluster.wait */
#define SIM_CALL_BYTES 16   /* stack a call takes besides the callee's locals */
#define SIM_INF 1e300

/* ------------------------------------------------------------------------ */
/* Machine profile (profile.c)                                              */
/* ------------------------------------------------------------------------ */

/* Timing classes of instructions. */
typedef enum {
    SIM_C_ALU,      /* integer, logic, shifts, compare, select, mov, cvt */
    SIM_C_FMA,      /* f32 add/mul/fma/min/max, f16 */
    SIM_C_FP64,     /* f64 add/mul/fma/min/max and f64 conversions */
    SIM_C_SFU,      /* .approx transcendentals: rcp sqrt rsqrt sin cos lg2 ex2 tanh */
    SIM_C_IDIV,     /* integer div/rem (a subroutine on the GPU) */
    SIM_C_FDIV,     /* f32 IEEE div/sqrt/rcp (.rn/.rz/.rm/.rp) */
    SIM_C_DDIV,     /* f64 div/sqrt/rcp */
    SIM_C_CTRL,     /* bra, call, ret, exit, nop-like */
    SIM_C_WARP,     /* shfl, vote, match, redux, activemask */
    SIM_C_BAR,      /* bar/barrier, membar, fence */
    SIM_C_GLOBAL,   /* global and generic loads/stores */
    SIM_C_LOCAL,    /* local loads/stores */
    SIM_C_CONST,    /* const and param loads */
    SIM_C_SHARED,   /* shared loads/stores */
    SIM_C_ATOM,     /* atomics and reductions */
    SIM_NCLASSES
} sim_class;

typedef struct {
    double issue;     /* cycles the instruction occupies its pipe */
    double latency;   /* cycles until its result can be used */
} sim_cost;

typedef struct {
    char name[64];
    char description[256];
    double clock_mhz;
    int sms;
    int schedulers;               /* warp schedulers (sub-partitions) per SM */
    int max_threads_per_sm, max_warps_per_sm, max_blocks_per_sm;
    uint64_t shared_per_sm;       /* bytes */
    sim_cost cls[SIM_NCLASSES];
    /* memory (latencies of loads are the class latencies) */
    int sector_bytes;             /* 32 */
    double lsu_cycles_per_sector; /* SM load/store unit throughput */
    double dram_latency;          /* extra for a sector's first touch (DRAM) */
    double l2_sectors_per_cycle;  /* device-wide bandwidths */
    double dram_sectors_per_cycle;
    /* sector caches (cache.c), 0 bytes: none.  Without an L2 every buffer
     * stays in an L2 large enough after its first touch; a global load that
     * may use the L1 (not .cg/.cv/volatile) hits there in l1_latency */
    uint64_t l1_bytes, l2_bytes;
    int l1_ways, l2_ways;
    double l1_latency;
    int shared_banks, bank_bytes;
    double shared_cycles_per_wavefront;
    double const_cycles_per_address;
    double atomic_cycles_per_op;  /* same-address service time at L2 */
    int atomic_unit_bytes;        /* global atomics queue per unit of this many bytes (4: per word) */
    double shared_atomic_cycles_per_op;
    /* control */
    double divergence_cycles;     /* extra at a divergent branch */
    double block_launch_cycles;
    double kernel_launch_cycles;
    double window_cycles;         /* SMs advance in lockstep windows */
    int reconverge_merge;         /* 1: siblings run lowest pc first and merge (see step.c) */
    uint64_t stack_bytes;         /* per-thread stack when calls recurse */
} sim_profile;

void sim_profile_default(sim_profile *p);
bool sim_profile_load(const char *path, sim_profile *p, wh_error *err);
const char *sim_class_name(sim_class c);

/* ------------------------------------------------------------------------ */
/* Pre-decoded program (decode.c)                                         */
/* ------------------------------------------------------------------------ */

typedef enum {
    SIM_OPD_NONE = 0,
    SIM_OPD_REG,      /* slot */
    SIM_OPD_PRED,     /* pred slot, neg */
    SIM_OPD_IMM,      /* imm (bits of the operand's type) */
    SIM_OPD_SREG,     /* sreg, comp */
    SIM_OPD_LOCALSYM  /* frame local base + imm (address of a function .local) */
} sim_opd_kind;

typedef struct {
    uint8_t kind;
    uint8_t neg;
    uint8_t sreg;
    int8_t comp;
    int32_t slot;
    uint64_t imm;
} sim_opd;

/* Operations beyond ptx_opcode (sim_instr.op uses both ranges). */
enum {
    SIM_OP_UNSUPPORTED = PTX_OP_COUNT + 1,
    SIM_OP_END,        /* falling off the end of a function: ret / exit */
    SIM_OP_PACK,       /* mov d, {a, b, ...} */
    SIM_OP_UNPACK,     /* mov {a, b, ...}, s */
    SIM_OP_NOP,        /* prefetch, membar, fence, pmevent, bar.warp.sync ... */
    SIM_OP_PMOV,       /* predicate logic: mov/and/or/xor/not on .pred */
    SIM_OP_VPRINTF,    /* call to the external vprintf: no output, returns 0 */
    SIM_OP_ASSERTFAIL, /* call to the external __assertfail (a failed assert): fault */
    SIM_OP_MALLOC,     /* call to the external malloc: a block of the device heap, or NULL */
    SIM_OP_FREE,       /* call to the external free: nothing (the heap is not reused) */
    SIM_OP_COUNT
};

/* Address of a memory operand: base register (or none) + offset, where
 * the offset may be relative to the frame's local base. */
typedef struct {
    int32_t base;      /* slot or -1 */
    bool local_rel;    /* offset is relative to the frame's local base */
    uint64_t off;
} sim_addr;

typedef struct {
    uint16_t op;       /* ptx_opcode or SIM_OP_* */
    uint8_t cls;       /* sim_class */
    int8_t pipe;       /* sim_class_pipe(cls): its issue pipe, -1 for the SM's memory units */
    uint8_t ty, ty2;   /* ptx_type */
    uint8_t space;     /* ptx_space of ld/st/atom/cvta... */
    uint8_t vec;       /* elements of a vector access */
    uint8_t size;      /* bytes of one element of a memory access */
    uint8_t mode, rnd, cmp, boolop, aop;
    uint8_t nsrc, ndst;
    bool l1;           /* a global load that may use the L1 (no .cg, .cv or volatile) */
    bool guard_neg;
    int32_t guard;     /* pred slot or -1 */
    uint32_t flags;    /* PTX_F_* */
    int32_t dst[4];    /* slots (pred slots for .pred destinations), -1 = sink; sust: the
                          slots of the values it stores (it has no destination) */
    bool dst_pred[4];
    int32_t dstp;      /* second predicate destination `d|p`, or -1 */
    sim_opd src[4];
    sim_addr addr;
    int32_t target;    /* bra: target pc */
    int32_t rpc;       /* bra/brx: reconvergence pc */
    int32_t callee;    /* call: module function index */
    int32_t btargets;  /* brx.idx: index in ptx_function.btargets */
    sim_opd *cargs;    /* call: ncargs arguments, then ncrets results */
    uint8_t ncargs, ncrets;
    /* scoreboard: slots read (values; preds as nslots + pred slot) and written */
    uint8_t ndeps, nouts;
    int32_t deps[10];
    int32_t outs[6];
    int32_t pidx;      /* index of the ptx_instr in its function, -1 for none */
} sim_instr;

typedef struct {
    bool used;                 /* reachable from the entry */
    const ptx_function *pf;
    int index;                 /* in ptx_module.funcs */
    sim_instr *code;           /* ninstrs + 1 (SIM_OP_END at the end) */
    int ncode;
    int nslots, npreds;
    int *slot;                 /* ptx reg -> slot (values) or pred slot */
    uint32_t local_bytes;      /* this function's .local frame */
    uint32_t *var_off;         /* per ptx var: local offset / param-area offset */
    /* per-lane param area: [params][rets][call-site .param vars] */
    uint32_t param_bytes, ret_off, vars_off, area_bytes;
} sim_func;

typedef struct {
    const char *name;
    uint64_t base, size;
    int param;                 /* spec param index (a buffer or a spec global), or -1 */
    int var;                   /* module var index, or -1 (and param -1: the device heap) */
} sim_region_decl;

/* The device heap device-side malloc allocates from: CUDA's default size
 * (cudaLimitMallocHeapSize), a region of its own after the module's
 * .global variables when the kernel can call malloc. */
#define SIM_HEAP_BYTES ((uint64_t)8 << 20)

typedef struct {
    const wh_spec *spec;
    const ptx_module *m;
    const char *file;          /* basename of the PTX, for messages */
    int entry;
    sim_func *funcs;           /* one per module function */
    int nfuncs;
    bool recursive;
    /* shared memory: module vars and the kernel's own */
    uint64_t *mvar_off;        /* per module var: offset in its space (shared/const/local) */
    uint64_t static_shared;    /* bytes before the dynamic shared area */
    uint64_t dyn_shared_off;   /* where `extern .shared x[]` lives */
    /* const bank (initializers); a run whose image fills .const globals
     * reads its own copy */
    uint8_t *cbank;
    uint64_t cbank_size;
    bool cbank_from_image;     /* some spec global is a .const variable */
    /* module .local (rare) and the per-thread local size without recursion */
    uint64_t module_local;
    uint64_t local_size;
    /* global regions: spec buffers (by param), then module .global vars
     * (a spec global's region has both its param and its var) */
    sim_region_decl *regions;
    int nregions;
    int *region_of_param;      /* spec param -> region, or -1 (scalar, .const global) */
    int *var_of_param;         /* spec param -> module var (its globals), or -1 */
    int heap_region;           /* the device heap's region, or -1 (no malloc reachable) */
    bool *address_taken;       /* per function: what an indirect call may reach (ptx_memmap) */
    uint64_t *kparam_off;      /* spec param -> offset in the kernel param space */
    uint64_t kparam_bytes;
    sim_profile prof;
    char device[160];
    harness_branch_fn on_branch;
    void *branch_ctx;
    uint64_t step_limit;
    uint64_t local_limit;      /* bytes of local memory the resident warps may take */
    bool all_buffers;          /* copy back every buffer, not only outputs */
    struct sim_region *mcache; /* device memory kept between runs (nregions), reused */
    struct sim_cache **caches; /* the L1's and the L2's arrays kept between runs (cache.c) */
    struct sim_bcache *bcache; /* retired blocks kept between runs, reused */
} sim_prog;

/* Blocks (with their warps, frames and local memory) of one launch shape. */
typedef struct sim_bcache {
    struct sim_block **b;
    int n, cap;
    int warps;
    uint64_t shared, local;
} sim_bcache;

/* layout.c: reachable functions (F->used), module and function memory */
void sim_layout_program(sim_prog *P, int entry);
void sim_layout_function(sim_prog *P, sim_func *F);
/* a module variable's address in its own state space */
uint64_t sim_mvar_addr(const sim_prog *P, int v);
/* the generic-address window of a state space (0 for global) */
uint64_t sim_window_of(ptx_space s);
uint64_t sim_local_size(const sim_prog *P, int entry);

/* decode.c */
bool sim_load(sim_prog *prog, const wh_spec *spec, const ptx_module *m, int entry, wh_error *err);
void sim_prog_free(sim_prog *prog);
/* "ld.global.v4.f32" */
void sim_instr_text(const sim_prog *P, const sim_func *F, const sim_instr *in, char *buf, size_t size);
/* slots.c: registers -> slots (F->slot, nslots, npreds): dense first,
 * then shared by registers whose live ranges do not overlap */
void sim_assign_slots(sim_func *F);
void sim_compact_slots(sim_func *F);

/* ------------------------------------------------------------------------ */
/* Run state (run.c and friends)                                        */
/* ------------------------------------------------------------------------ */

typedef struct {
    const sim_func *fn;
    size_t rcap, pcap, dcap, acap;   /* capacities kept across calls */
    uint64_t *r;               /* nslots * 32 */
    uint32_t *p;               /* npreds */
    double *ready;             /* nslots + npreds */
    uint8_t *area;             /* per-lane param area: lane * area_bytes */
    uint64_t local_base;       /* frame's base in the thread's local memory */
    int stack_base;            /* SIMT depth of the frame's bottom entry */
    uint32_t ret_mask;         /* lanes that executed ret */
    int call_pc;               /* caller pc of the call (for return values) */
} sim_frame;

typedef enum { SIM_W_READY = 0, SIM_W_BARRIER, SIM_W_DONE } sim_wstate;

struct sim_block;

typedef struct sim_warp {
    struct sim_block *blk;
    int index;                 /* warp index in its block */
    int sched;                 /* scheduler of its SM */
    int order;                 /* residency order on the SM (GTO "oldest") */
    uint32_t live;             /* lanes that exist and have not exited */
    sim_wstate state;
    ptx_simt_stack simt;       /* ptx/simt.c: the reconvergence model */
    sim_frame *frames;
    int nframes, fcap;
    /* the current frame, cached */
    const sim_func *fn;
    const sim_instr *code;
    uint64_t *r;
    uint32_t *p;
    double *ready;
    uint8_t *local;            /* 32 * local_size bytes: lane-major */
    uint32_t cc;               /* carry flags (add.cc ...), one bit per lane */
    double now;                /* issue time of the instruction executing */
    double resume;             /* earliest issue of the next instruction that its own
                                  predecessor allows (branch latency, barrier release),
                                  before its operands: explain.c splits stalls with it */
    double next_issue;         /* earliest issue of the next instruction */
    double mem_done;           /* completion of its outstanding memory operations */
    double async_done;         /* completion of its cp.async copies */
    double finish;
    int bar_id;
    uint32_t bar_mask;         /* lanes at the barrier (bar.red) */
    int bar_dst;               /* bar.red destination slot / pred slot */
    bool bar_dst_pred;
    uint32_t bar_pred;         /* bar.red: lanes whose predicate is true */
    uint8_t bar_aop;
    uint64_t cluster_arrivals; /* barrier.cluster.arrive's so far: its last one's phase */
} sim_warp;

typedef struct {
    int arrived;               /* warps arrived */
    int expected;              /* warps expected; 0 = all live warps */
    double tmax;               /* latest arrival */
    int aop;                   /* bar.red operation of this round, 0 none */
    uint32_t popc, any;        /* reductions */
    bool all;
} sim_barrier;

typedef struct sim_block {
    unsigned ctaid[3];
    uint64_t linear;
    int sm;
    int nwarps, live_warps;
    unsigned nthreads;
    sim_warp *warps;
    uint8_t *shared;
    uint64_t shared_size;
    sim_barrier bars[SIM_MAX_BARRIERS];
    /* barrier.cluster of a one-block cluster: warps arrived in the current
     * phase, phases completed, the latest arrival */
    int cluster_arrived;
    uint64_t cluster_phases;
    double cluster_tmax;
    double start, finish;
    bool done;
} sim_block;

enum { SIM_PIPE_ALU, SIM_PIPE_FMA, SIM_PIPE_FP64, SIM_PIPE_SFU, SIM_PIPE_CTRL, SIM_NPIPES };

typedef struct {
    double dispatch;                 /* next free dispatch cycle */
    double pipe[SIM_NPIPES];
    sim_warp **warps;
    int nwarps, cap;
    sim_warp *greedy;
    sim_warp *pick;                  /* cached choice */
    double cand;                     /* its issue time; SIM_INF if none */
    bool dirty;
} sim_sched;

typedef struct {
    int id;
    sim_block **blocks;              /* resident */
    int nblocks, bcap;
    int threads, warps;
    uint64_t shared;
    sim_sched *sched;
    double lsu_free, mio_free;
    double finish;
    int order_next;
} sim_sm;

typedef struct sim_region {
    uint8_t *data;
    uint64_t size;
    uint8_t *touched;                /* one bit per sector: first touch goes to DRAM */
    double *afree;                   /* per 4-byte word: atomic unit free time (lazy) */
    uint64_t dcap, tcap, acap;       /* allocated bytes of data, touched, afree */
} sim_region;

/* A device-wide bandwidth in time bins: requests may arrive out of time
 * order (SMs advance in windows), so capacity is booked per bin.  Only a
 * sliding window of SIM_BW_MAX_BINS bins is kept, so that memory does not
 * grow with simulated time; a request older than the window is booked at
 * its start. */
#define SIM_BW_MAX_BINS ((size_t)1 << 20)
typedef struct {
    double *used;                    /* bins [base, base + n) */
    size_t base, n;
    double bin;                      /* cycles per bin */
    double cap;                      /* sectors per bin */
} sim_bw;



/* What the memory cost functions (timing.c) found for the access they
 * priced last: explain.c reads it after each instruction.  Plain stores,
 * so that an uninstrumented run pays nothing to keep it. */
typedef struct {
    int sectors;                     /* global: distinct 32-byte sectors */
    int local_sectors;               /* local: distinct 32-byte sectors (words interleaved across lanes) */
    int wavefronts;                  /* shared: wavefronts (bank-conflict degree) */
    double atomic_wait;              /* atomics: lane-cycles behind same-address operations */
} sim_access;

typedef struct sim_explain sim_explain;
typedef struct sim_locations sim_locations;

typedef struct sim_run {
    const sim_prog *prog;
    const sim_profile *prof;
    const wh_image *img;
    wh_launch launch;
    unsigned bthreads;               /* threads per block */
    int bwarps;                      /* warps per block */
    uint64_t nblocks_total;
    uint64_t next_block;             /* blocks not yet dispatched start here */
    uint64_t heap_used;              /* bytes of the device heap malloc has handed out */
    sim_region *regions;
    uint8_t *kparam;
    ptx_texture *tex;                /* per spec param: its texture at this launch (ndims 0: none) */
    ptx_tensor_map *tmap;            /* per spec param: its tensor map at this launch (rank 0: none) */
    const uint8_t *cbank;            /* the program's, or cbank_own */
    uint8_t *cbank_own;              /* the const bank with the image's .const globals */
    uint64_t shared_size;            /* per block */
    uint64_t local_size;             /* per thread */
    int residency;                   /* blocks per SM */
    sim_sm *sms;
    sim_bw l2, dram;
    struct sim_cache *l1, *l2c;      /* this run's caches, NULL: none */
    double end_time;
    sim_block **pool;                /* retired blocks, reused by dispatch */
    int npool, poolcap;
    uint64_t warp_instr, lane_instr;
    uint64_t step_limit;
    struct sim_explain *ex;          /* instrumentation (explain.c); NULL: none, no cost */
    struct sim_locations *loc;       /* location counters (locations.c); NULL: none, no cost */
    sim_access acc;
    harness_status status;
    char message[1024];
    uint64_t scratch[4][SIM_WARP];   /* special-register operands */
    uint64_t sink[SIM_WARP];         /* writes to `_` */
    uint64_t tmp[8][SIM_WARP];       /* shfl/vector staging */
} sim_run;

/* run.c */
void sim_block_free(struct sim_block *b);
/* copy_back: 0 nothing, 1 role-output buffers, 2 every buffer; ex: the
 * instrumentation to fill (explain.c), loc: the location counters
 * (locations.c), NULL for none */
bool sim_execute(const sim_prog *prog, wh_image *img, int copy_back, struct sim_explain *ex,
                 struct sim_locations *loc, harness_run *out, wh_error *err);

/* step.c: one warp instruction (functional + timing); false on a stop.
 * sim_step_exec is the step itself; sim_step also feeds the
 * instrumentation when the run has one. */
bool sim_step(sim_run *R, sim_sm *sm, sim_warp *w);
bool sim_step_exec(sim_run *R, sim_sm *sm, sim_warp *w);

/* locations.c: the counters behind harness_options.want_locations.
 * sim_row_bases numbers every instruction of the used functions (row_base
 * per function, -1 unused; NULL: count only) and returns how many. */
int sim_row_bases(const sim_prog *P, int *row_base);
/* counters into out (sim_row_bases(P) * HARNESS_LOCATION_KINDS, zeroed
 * here), and per thread of launch */
sim_locations *sim_locations_new(const sim_prog *P, const wh_launch *launch, double *out);
void sim_locations_free(sim_locations *L);
bool sim_locations_step(sim_run *R, sim_sm *sm, sim_warp *w);
/* The thread active for the most warp instructions (the first such) and
 * how many; -1 and 0 when no thread was active for any.  Ends the counts. */
void sim_locations_busiest(sim_locations *L, int64_t *thread, uint64_t *work);
/* "file.ptx:45 opcode (kind)" of location loc (backend op) */
bool sim_location_name(const void *impl, int loc, char *buf, size_t size);

/* explain.c: the instrumentation behind harness_explain */
struct sim_explain *sim_explain_new(const sim_prog *P);
void sim_explain_free(struct sim_explain *ex);
/* rows count one warp alone (its linear index), -1: every warp (the default) */
void sim_explain_only_warp(struct sim_explain *ex, int64_t warp);
/* at the run's start (launch shape known) and end (before it is freed) */
void sim_explain_begin(struct sim_explain *ex, const sim_run *R);
void sim_explain_end(struct sim_explain *ex, const sim_run *R);
/* one warp instruction, instrumented: sim_step_exec with the counting around it */
bool sim_explain_step(sim_run *R, sim_sm *sm, sim_warp *w);
/* the report of the run (out->status ... filled by the caller) */
bool sim_explain_report(const struct sim_explain *ex, harness_explain_report *out, wh_error *err);
void sim_warp_ready_next(sim_run *R, sim_warp *w, double t);
void sim_stop(sim_run *R, harness_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "tid=(x,y,z) ctaid=(x,y,z)" of a lane */
void sim_thread_desc(const sim_run *R, const sim_warp *w, int lane, char *buf, size_t size);
/* "file.ptx:123" of an instruction of the warp's current function */
void sim_where(const sim_run *R, const sim_warp *w, const sim_instr *in, char *buf, size_t size);

/* simt.c: the SIMT stack, frames, calls, divergent branches */
bool sim_warp_init(sim_run *R, sim_block *b, sim_warp *w, int index);
void sim_warp_free(sim_warp *w);
/* pop finished stack entries (and merge siblings under ipdom+merge) */
void sim_simt_normalize(sim_run *R, sim_warp *w, double t);
/* lanes r leave the frame (ret) or the kernel (exit_kernel) */
void sim_retire_lanes(sim_run *R, sim_warp *w, uint32_t r, bool exit_kernel);
/* lanes m call module function `callee` (the instruction's, or an
 * indirect call's target for them) */
bool sim_call(sim_run *R, sim_warp *w, const sim_instr *in, int pc, uint32_t m, int callee);
/* An indirect call: the function the first of lanes m calls, and *group,
 * the lanes of m that call it too; -1 (run stopped: a fault) when a
 * target is no function with a body or its parameters do not match. */
int sim_indirect_callee(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m, uint32_t *group);
void sim_trace_branch(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t active, uint32_t taken);
void sim_diverge(sim_warp *w, int target, int fall, int rpc, uint32_t t_mask, uint32_t n_mask, bool merge);
bool sim_brx(sim_run *R, sim_warp *w, const sim_instr *in, int pc, uint32_t active, uint32_t m, double *extra);
/* a lane's `size` bytes at `off` of a frame's param area; NULL out of range */
uint8_t *sim_area_ptr(const sim_run *R, const sim_frame *f, bool kernel_frame, uint64_t off, uint32_t lane,
                      uint32_t size);

/* collective.c: lanes and warps together */
void sim_shfl(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
void sim_vote(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
void sim_match(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
void sim_redux(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
void sim_elect(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
bool sim_bar(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m, double t);
/* A cluster barrier phase completes once every live warp arrived. */
void sim_cluster_barrier_check(sim_run *R, sim_block *b);
/* mapa in a cluster of one block: rank 0 is the block's own address;
 * false (a fault) for any other rank. */
bool sim_mapa(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
void sim_barrier_check(sim_run *R, sim_block *b, int id);

/* Operand access: a source is 32 lane values, read as SIM_V(src, lane);
 * m is 31 when lanes may differ (a register), 0 when one value was
 * broadcast to all 32 (an immediate, a uniform special register).  Every
 * source holding 32 values is what lets the full-warp loops vectorise. */
typedef struct {
    const uint64_t *p;
    uint32_t m;
} sim_src;
#define SIM_V(s, l) ((s).p[l])

sim_src sim_operand_slow(sim_run *R, const sim_warp *w, const sim_instr *in, int i);
/* Source operand i: a register inline (most operands), the rest in exec.c. */
static inline sim_src sim_operand(sim_run *R, const sim_warp *w, const sim_instr *in, int i)
{
    const sim_opd *o = &in->src[i];
    if (o->kind == SIM_OPD_REG)
        return (sim_src){ &w->r[(size_t)o->slot * SIM_WARP], SIM_WARP - 1 };
    return sim_operand_slow(R, w, in, i);
}
/* Predicate operand i as a lane mask (negation applied; immediates 0 / all). */
uint32_t sim_pred_operand(const sim_warp *w, const sim_instr *in, int i);

static inline uint64_t *sim_dst(sim_run *R, sim_warp *w, const sim_instr *in, int k)
{
    int32_t d = in->dst[k];
    return d >= 0 ? &w->r[(size_t)d * SIM_WARP] : R->sink;
}

static inline void sim_write_pred(sim_warp *w, int32_t slot, uint32_t m, uint32_t val)
{
    if (slot >= 0)
        w->p[slot] = (w->p[slot] & ~m) | (val & m);
}

/* the lowest lane of a mask (0 for none) */
static inline int sim_first_lane(uint32_t m)
{
    return m ? __builtin_ctz(m) : 0;
}

static inline int sim_popc(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (int)((((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

/* Lanes loop: `l` takes each set bit of m in increasing order. */
#define SIM_LANES(m, l) \
    for (uint32_t _lm = (m), l = 0; _lm && ((l = (uint32_t)__builtin_ctz(_lm)), 1); _lm &= _lm - 1)

/* d[l] = EXPR for the lanes l of m.  With all 32 lanes active, one loop
 * over every lane into a local array (which cannot alias the sources, so
 * the compiler vectorises it) and one copy; else lane by lane.  EXPR must
 * be pure: it is evaluated for every lane of the full warp. */
#define SIM_MAP(m, d, l, EXPR) \
    do { \
        uint64_t *_md = (d); \
        if ((m) == UINT32_MAX) { \
            uint64_t _mt[SIM_WARP]; \
            for (uint32_t l = 0; l < SIM_WARP; l++) \
                _mt[l] = (EXPR); \
            memcpy(_md, _mt, sizeof _mt); \
        } else { \
            SIM_LANES(m, l) _md[l] = (EXPR); \
        } \
    } while (0)

/* exec.c: ALU semantics; false for an op it does not handle */
bool sim_exec_alu(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
uint64_t sim_sreg_value(const sim_run *R, const sim_warp *w, int sreg, int comp, int lane);

/* float.c: float arithmetic, comparisons, conversions */
bool sim_exec_float(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
bool sim_exec_cvt(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m);
uint64_t sim_cvt_value(const sim_instr *in, uint64_t a);
uint64_t sim_float_imm(double v, ptx_type t);
/* Value of a float register of type t as a double (f16, bf16, f32, f64). */
double sim_float_get(ptx_type t, uint64_t bits);
bool sim_fcmp(int cmp, double a, double b);
uint16_t sim_half_from_double(double x, int rnd);
double sim_half_to_double(uint16_t h);

/* mem.c: loads, stores, atomics, cvta; false on a stop */
bool sim_exec_mem(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                  double *done);

/* timing.c: the cost model.  Each cost function takes the issue time
 * and the accesses of the active lanes (addr[i], bytes[i]) and returns the
 * time the data is available (loads) or the operation complete. */
/* l1: the access may use the L1 (a load without .cg, .cv, volatile) */
double sim_cost_global(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, const uint32_t *bytes,
                       int n, bool l1);
double sim_cost_local(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, const uint32_t *bytes,
                      const uint8_t *lane, int n);
double sim_cost_const(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, int n);
double sim_cost_shared(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, const uint32_t *bytes,
                       int n);
double sim_cost_atomic(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, int n, bool shared);
void sim_bw_init(sim_bw *b, double bin, double per_cycle);

/* cache.c: set-associative sector caches, least recently used out */
#define SIM_SECTORS_PER_LINE 4
typedef struct sim_cache {
    uint64_t *tag;                   /* line + 1 */
    uint8_t *sectors;                /* the line's sectors present, a bit each */
    uint32_t *epoch, *used;          /* the run that filled a way; its last access */
    uint64_t sets;
    int ways, copies;                /* copies: one per SM for the L1 */
    uint32_t now, tick;
} sim_cache;
/* *slot's arrays (or new ones of this shape) emptied for a run; NULL, and
 * *slot freed, when bytes is 0 */
sim_cache *sim_cache_for_run(sim_cache **slot, uint64_t bytes, int ways, int sector_bytes, int copies);
/* Is `sector` in copy `copy`?  A miss puts it there. */
bool sim_cache_access(sim_cache *c, int copy, uint64_t sector);
void sim_cache_free(sim_cache *c);
/* Book `amount` sectors from time t on; returns when the last is served. */
double sim_bw_take(sim_bw *b, double t, double amount);


static inline double sim_dmax(double a, double b)
{
    return a > b ? a : b;
}

/* Issue of warp w's next instruction (the model in timing.c's header):
 * its issue time, with the scheduler's dispatch slot and the pipe booked. */
static inline double sim_issue(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in)
{
    sim_sched *s = &sm->sched[w->sched];
    double t = sim_dmax(w->next_issue, s->dispatch);
    int pipe = in->pipe;
    if (pipe >= 0)
        t = sim_dmax(t, s->pipe[pipe]);
    s->dispatch = t + 1;
    if (pipe >= 0)
        s->pipe[pipe] = t + R->prof->cls[in->cls].issue;
    w->now = t;
    return t;
}
void sim_bw_free(sim_bw *b);
int sim_class_pipe(int cls);

#endif
