/*
 * proto.h — the messages between the cuda backend and its worker
 * process (internal to harness/).
 *
 * The parent (the search) and the worker (the only process that touches
 * the GPU) talk over a socketpair with framed messages:
 *
 *   header: u32 magic "WHCU", u32 type, u64 payload length; then the payload.
 *
 *   parent -> worker   SETUP   once per worker: library, device, PTX, entry,
 *                              cold-L2 flag, parameter kinds/roles/sizes
 *   worker -> parent   READY   harness_cuda_info (device, clocks, driver...)
 *                      ERROR   text; the worker exits after sending it
 *   parent -> worker   RUN     launch shape, dynamic shared bytes, warm-up
 *                              count, timed launches (repetitions),
 *                              want-outputs, then per parameter its
 *                              byte count and, when the worker must (re)load
 *                              it, its bytes (input/fixed buffers, scalars)
 *   worker -> parent   PROGRESS (empty) after each launch but the last: the
 *                              watchdog gives every launch its own deadline
 *                      RESULT  status, restart flag, time (us), message, the
 *                              times of the timed launches, and with
 *                              want-outputs the output buffers' bytes
 *                      ERROR   a failure of the tool (not of the kernel)
 *
 * Both ends are the same program (the worker is fork()ed, never exec()ed),
 * so numbers travel in host byte order.  Every read checks bounds: a short
 * or malformed payload is a protocol error, never an overrun.
 */
#ifndef WH_HARNESS_CUDA_PROTO_H
#define WH_HARNESS_CUDA_PROTO_H

#include "harness/cuda/cuda.h"
#include "harness/harness.h"
#include "ptx/ptx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WH_CUDA_MAGIC 0x55434857u     /* "WHCU" in memory on little-endian */
/* Largest payload accepted (a guard against a corrupt header). */
#define WH_CUDA_MAX_PAYLOAD (((uint64_t)1) << 40)

enum {
    WH_CUDA_MSG_SETUP = 1,
    WH_CUDA_MSG_READY = 2,
    WH_CUDA_MSG_RUN = 3,
    WH_CUDA_MSG_RESULT = 4,
    WH_CUDA_MSG_ERROR = 5,
    WH_CUDA_MSG_PROGRESS = 6
};

typedef enum {
    WH_IO_OK = 0,
    WH_IO_EOF,          /* the peer closed (or died) */
    WH_IO_TIMEOUT,      /* the deadline passed */
    WH_IO_ERROR         /* a system call failed, or the stream is malformed */
} wh_cuda_io;

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t wh_cuda_now_ms(void);
/* A deadline `seconds` from now; seconds <= 0 means none (-1). */
int64_t wh_cuda_deadline(double seconds);

/* Write / read exactly n bytes before the deadline (-1: none).  Writes
 * never raise SIGPIPE: a closed peer is WH_IO_EOF. */
wh_cuda_io wh_cuda_write_all(int fd, const void *p, size_t n, int64_t deadline_ms);
wh_cuda_io wh_cuda_read_all(int fd, void *p, size_t n, int64_t deadline_ms);

/* One framed message.  recv allocates *payload (free() it; NULL when the
 * length is 0) and refuses lengths above max_len (WH_IO_ERROR). */
wh_cuda_io wh_cuda_send(int fd, uint32_t type, const void *payload, size_t len, int64_t deadline_ms);
wh_cuda_io wh_cuda_recv(int fd, uint32_t *type, unsigned char **payload, size_t *len,
                        uint64_t max_len, int64_t deadline_ms);
const char *wh_cuda_io_name(wh_cuda_io r);

/* --- building and reading payloads ------------------------------------ */

typedef struct {
    unsigned char *data;
    size_t len, cap;
    bool oom;           /* an allocation failed: the content is incomplete */
} wh_cuda_wbuf;

void wh_cuda_put(wh_cuda_wbuf *b, const void *p, size_t n);
void wh_cuda_put_u32(wh_cuda_wbuf *b, uint32_t v);
void wh_cuda_put_u64(wh_cuda_wbuf *b, uint64_t v);
void wh_cuda_put_f64(wh_cuda_wbuf *b, double v);
/* u32 length (with the NUL) then the bytes and a NUL. */
void wh_cuda_put_str(wh_cuda_wbuf *b, const char *s);
void wh_cuda_wbuf_free(wh_cuda_wbuf *b);

typedef struct {
    const unsigned char *p;
    size_t len, pos;
    bool bad;           /* a read ran past the end or found a malformed field */
} wh_cuda_rbuf;

void wh_cuda_rbuf_init(wh_cuda_rbuf *r, const void *p, size_t len);
uint32_t wh_cuda_get_u32(wh_cuda_rbuf *r);
uint64_t wh_cuda_get_u64(wh_cuda_rbuf *r);
double wh_cuda_get_f64(wh_cuda_rbuf *r);
/* A pointer to the next n bytes inside the payload (NULL and bad if short). */
const unsigned char *wh_cuda_get_bytes(wh_cuda_rbuf *r, uint64_t n);
/* A NUL-terminated string inside the payload (NULL and bad if malformed). */
const char *wh_cuda_get_str(wh_cuda_rbuf *r);

/* --- the messages --------------------------------------------------------- */

/* One kernel parameter as the worker sees it. */
typedef struct {
    const char *name;
    wh_param_kind kind;         /* WH_BUFFER or WH_SCALAR */
    wh_role role;               /* buffers: input / output / fixed */
    uint32_t size;              /* scalars: value bytes (1..WH_CUDA_SCALAR_MAX); buffers: element bytes */
    bool global;                /* a module variable (cuModuleGetGlobal), not a kernel parameter */
    ptx_texture tex;            /* a texture object parameter at the launch (ndims > 0): the
                                   worker makes the texture the kernel gets the handle of */
    ptx_tensor_map tmap;        /* a tensor map parameter at the launch (rank > 0): the worker
                                   encodes the map of the buffer the kernel gets by value */
} wh_cuda_param;

/* The largest scalar (a struct passed by value) the backend passes: the
 * driver's classic limit on all of a kernel's parameters together. */
#define WH_CUDA_SCALAR_MAX 4096u

typedef struct {
    const char *libcuda;        /* path for dlopen; "" = the default */
    int device;
    int device_rotate;          /* the ordinal used: (device + device_rotate) mod the count */
    bool cold_l2;
    const char *entry;
    const char *ptx;            /* NUL-terminated PTX text */
    size_t ptx_len;             /* without the NUL */
    int nparams;
    const wh_cuda_param *params;
} wh_cuda_setup;

/* One parameter's content in a RUN request. */
typedef struct {
    uint64_t bytes;             /* buffer size, or the scalar's size */
    const unsigned char *data;  /* NULL: not sent (outputs; inputs unchanged since the last RUN) */
} wh_cuda_arg;

typedef struct {
    unsigned grid[3], block[3];
    uint64_t shared_bytes;
    int warmup;                 /* untimed launches before the timed ones */
    int reps;                   /* timed launches (repetitions), 1..WH_CUDA_MAX_BATCH; 0 means 1 */
    bool want_outputs;          /* send the output buffers back */
    bool want_all;              /* with want_outputs: every buffer, inputs and fixed too */
    int nparams;
    const wh_cuda_arg *args;    /* nparams entries */
    /* Worker side only (not encoded): the engine calls it after every
     * launch that completed but the last, which restarts the watchdog. */
    void (*progress)(void *ctx);
    void *progress_ctx;
} wh_cuda_request;

/* The most timed launches one RUN asks for: a request's repetitions
 * share one round trip to the worker (its ~40 us were most of a
 * repetition's cost on an H100). */
#define WH_CUDA_MAX_BATCH 256

typedef struct {
    harness_status status;
    bool restart;               /* the worker exits after this reply (poisoned context) */
    double time_us;             /* the last timed launch; 0 unless status == OK */
    int ntimes;                 /* timed launches done, 0..reps (0: only time_us, one) */
    double times[WH_CUDA_MAX_BATCH];   /* their times (us), in order */
    char message[1024];
    bool lost;                  /* parent side only: the worker was gone before the
                                   request reached it; nothing ran (not encoded) */
} wh_cuda_result;

void wh_cuda_setup_encode(const wh_cuda_setup *s, wh_cuda_wbuf *b);
/* Strings point into the payload; *params_out is allocated (free it). */
bool wh_cuda_setup_decode(const unsigned char *p, size_t len, wh_cuda_setup *s,
                          wh_cuda_param **params_out, char *why, size_t n);

void wh_cuda_request_encode(const wh_cuda_request *rq, wh_cuda_wbuf *b);
/* args: caller's array of `nparams` entries (the count must match);
 * data pointers point into the payload. */
bool wh_cuda_request_decode(const unsigned char *p, size_t len, int nparams, wh_cuda_request *rq,
                            wh_cuda_arg *args, char *why, size_t n);

/* outputs[i] != NULL: send rq->args[i].bytes bytes of it as parameter i's result. */
void wh_cuda_result_encode(const wh_cuda_result *res, const wh_cuda_request *rq,
                           unsigned char *const *outputs, wh_cuda_wbuf *b);
/* Output data for parameter i is copied to dest[i] when dest[i] is not NULL
 * (its size must be dest_bytes[i]); data for a NULL dest is skipped. */
bool wh_cuda_result_decode(const unsigned char *p, size_t len, wh_cuda_result *res, int nparams,
                           unsigned char *const *dest, const uint64_t *dest_bytes, char *why,
                           size_t n);

void wh_cuda_info_encode(const harness_cuda_info *info, wh_cuda_wbuf *b);
bool wh_cuda_info_decode(const unsigned char *p, size_t len, harness_cuda_info *info);

#endif
