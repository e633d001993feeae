/*
 * proto.c — framing and payloads of the parent/worker protocol.
 */
#include "harness/cuda/proto.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int64_t wh_cuda_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t wh_cuda_deadline(double seconds)
{
    if (!(seconds > 0))
        return -1;
    if (seconds > 1e9)
        seconds = 1e9;
    return wh_cuda_now_ms() + (int64_t)(seconds * 1000.0 + 0.5);
}

/* Wait until fd is ready for `events`; WH_IO_OK, TIMEOUT or ERROR. */
static wh_cuda_io wait_fd(int fd, short events, int64_t deadline_ms)
{
    for (;;) {
        int timeout = -1;
        if (deadline_ms >= 0) {
            int64_t left = deadline_ms - wh_cuda_now_ms();
            if (left <= 0)
                left = 0;
            timeout = left > INT_MAX ? INT_MAX : (int)left;
        }
        struct pollfd p = { .fd = fd, .events = events, .revents = 0 };
        int r = poll(&p, 1, timeout);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return WH_IO_ERROR;
        }
        if (r == 0) {
            if (deadline_ms >= 0 && wh_cuda_now_ms() >= deadline_ms)
                return WH_IO_TIMEOUT;
            continue;
        }
        /* POLLHUP / POLLERR: let the read or write report it. */
        return WH_IO_OK;
    }
}

wh_cuda_io wh_cuda_write_all(int fd, const void *p, size_t n, int64_t deadline_ms)
{
    const unsigned char *c = p;
    while (n > 0) {
        wh_cuda_io w = wait_fd(fd, POLLOUT, deadline_ms);
        if (w != WH_IO_OK)
            return w;
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == ENOTSOCK)
            k = write(fd, c, n);     /* a pipe (tests): the caller handles SIGPIPE */
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            if (errno == EPIPE || errno == ECONNRESET)
                return WH_IO_EOF;
            return WH_IO_ERROR;
        }
        c += k;
        n -= (size_t)k;
    }
    return WH_IO_OK;
}

wh_cuda_io wh_cuda_read_all(int fd, void *p, size_t n, int64_t deadline_ms)
{
    unsigned char *c = p;
    while (n > 0) {
        wh_cuda_io w = wait_fd(fd, POLLIN, deadline_ms);
        if (w != WH_IO_OK)
            return w;
        ssize_t k = read(fd, c, n);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            if (errno == ECONNRESET)
                return WH_IO_EOF;
            return WH_IO_ERROR;
        }
        if (k == 0)
            return WH_IO_EOF;
        c += k;
        n -= (size_t)k;
    }
    return WH_IO_OK;
}

typedef struct {
    uint32_t magic, type;
    uint64_t len;
} msg_header;

wh_cuda_io wh_cuda_send(int fd, uint32_t type, const void *payload, size_t len, int64_t deadline_ms)
{
    msg_header h = { WH_CUDA_MAGIC, type, len };
    wh_cuda_io r = wh_cuda_write_all(fd, &h, sizeof h, deadline_ms);
    if (r == WH_IO_OK && len > 0)
        r = wh_cuda_write_all(fd, payload, len, deadline_ms);
    return r;
}

wh_cuda_io wh_cuda_recv(int fd, uint32_t *type, unsigned char **payload, size_t *len,
                        uint64_t max_len, int64_t deadline_ms)
{
    *payload = NULL;
    *len = 0;
    msg_header h;
    wh_cuda_io r = wh_cuda_read_all(fd, &h, sizeof h, deadline_ms);
    if (r != WH_IO_OK)
        return r;
    if (h.magic != WH_CUDA_MAGIC || h.len > max_len || h.len > SIZE_MAX)
        return WH_IO_ERROR;
    *type = h.type;
    if (h.len == 0)
        return WH_IO_OK;
    unsigned char *p = malloc((size_t)h.len);
    if (!p)
        return WH_IO_ERROR;
    r = wh_cuda_read_all(fd, p, (size_t)h.len, deadline_ms);
    if (r != WH_IO_OK) {
        free(p);
        return r;
    }
    *payload = p;
    *len = (size_t)h.len;
    return WH_IO_OK;
}

const char *wh_cuda_io_name(wh_cuda_io r)
{
    switch (r) {
    case WH_IO_OK: return "ok";
    case WH_IO_EOF: return "peer closed the connection";
    case WH_IO_TIMEOUT: return "timed out";
    case WH_IO_ERROR: return "I/O or protocol error";
    }
    return "?";
}

/* --- payload building ------------------------------------------------------ */

void wh_cuda_put(wh_cuda_wbuf *b, const void *p, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) {
            if (cap > SIZE_MAX / 2) {
                b->oom = true;
                return;
            }
            cap *= 2;
        }
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            b->oom = true;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void wh_cuda_put_u32(wh_cuda_wbuf *b, uint32_t v) { wh_cuda_put(b, &v, sizeof v); }
void wh_cuda_put_u64(wh_cuda_wbuf *b, uint64_t v) { wh_cuda_put(b, &v, sizeof v); }
void wh_cuda_put_f64(wh_cuda_wbuf *b, double v) { wh_cuda_put(b, &v, sizeof v); }

void wh_cuda_put_str(wh_cuda_wbuf *b, const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s) + 1;
    wh_cuda_put_u32(b, (uint32_t)n);
    wh_cuda_put(b, s, n);
}

void wh_cuda_wbuf_free(wh_cuda_wbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void wh_cuda_rbuf_init(wh_cuda_rbuf *r, const void *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->pos = 0;
    r->bad = false;
}

const unsigned char *wh_cuda_get_bytes(wh_cuda_rbuf *r, uint64_t n)
{
    if (r->bad || n > r->len - r->pos) {
        r->bad = true;
        return NULL;
    }
    const unsigned char *p = r->p + r->pos;
    r->pos += (size_t)n;
    return p;
}

/* A short read leaves *v as the caller set it (0) and marks r bad. */
static void get_into(wh_cuda_rbuf *r, void *v, size_t n)
{
    const unsigned char *p = wh_cuda_get_bytes(r, n);
    if (p)
        memcpy(v, p, n);
}

uint32_t wh_cuda_get_u32(wh_cuda_rbuf *r) { uint32_t v = 0; get_into(r, &v, sizeof v); return v; }
uint64_t wh_cuda_get_u64(wh_cuda_rbuf *r) { uint64_t v = 0; get_into(r, &v, sizeof v); return v; }
double wh_cuda_get_f64(wh_cuda_rbuf *r) { double v = 0; get_into(r, &v, sizeof v); return v; }

const char *wh_cuda_get_str(wh_cuda_rbuf *r)
{
    uint32_t n = wh_cuda_get_u32(r);
    if (r->bad || n == 0) {
        r->bad = true;
        return NULL;
    }
    const unsigned char *p = wh_cuda_get_bytes(r, n);
    if (!p || p[n - 1] != 0 || memchr(p, 0, n) != p + n - 1) {
        r->bad = true;
        return NULL;
    }
    return (const char *)p;
}

/* --- SETUP ---------------------------------------------------------------- */

/* A texture parameter's description: ndims (0: none), then its fields. */
static void put_texture(wh_cuda_wbuf *b, const ptx_texture *t)
{
    wh_cuda_put_u32(b, (uint32_t)t->ndims);
    if (!t->ndims)
        return;
    for (int k = 0; k < 3; k++) {
        wh_cuda_put_u64(b, (uint64_t)t->dims[k]);
        wh_cuda_put_u32(b, (uint32_t)t->address[k]);
    }
    wh_cuda_put_u64(b, (uint64_t)t->layers);
    wh_cuda_put_u32(b, (uint32_t)t->filter_linear | (uint32_t)t->normalized_coords << 1 |
                           (uint32_t)t->read_normalized << 2 | (uint32_t)t->linear_memory << 3 |
                           (uint32_t)t->chan_float << 4 | (uint32_t)t->chan_signed << 5 | (uint32_t)t->surface << 6 |
                           (uint32_t)t->gather << 7 | (uint32_t)t->cube << 8);
    wh_cuda_put_u32(b, (uint32_t)t->channels);
    wh_cuda_put_u32(b, (uint32_t)t->chan_bytes);
    wh_cuda_put_u32(b, (uint32_t)t->levels | (uint32_t)t->mip_linear << 8);
}

static void get_texture(wh_cuda_rbuf *r, ptx_texture *t)
{
    memset(t, 0, sizeof *t);
    uint32_t nd = wh_cuda_get_u32(r);
    if (!nd)
        return;
    t->ndims = (int)nd;
    for (int k = 0; k < 3; k++) {
        t->dims[k] = (int64_t)wh_cuda_get_u64(r);
        t->address[k] = (int)wh_cuda_get_u32(r);
        if (t->dims[k] < 1 || t->dims[k] > INT32_MAX || t->address[k] > WH_TEX_ADDRESS_LAST)
            r->bad = true;
    }
    t->layers = (int64_t)wh_cuda_get_u64(r);
    if (t->layers < 0 || t->layers > 65535)
        r->bad = true;
    uint32_t f = wh_cuda_get_u32(r);
    t->filter_linear = f & 1;
    t->normalized_coords = f >> 1 & 1;
    t->read_normalized = f >> 2 & 1;
    t->linear_memory = f >> 3 & 1;
    t->chan_float = f >> 4 & 1;
    t->chan_signed = f >> 5 & 1;
    t->surface = f >> 6 & 1;
    t->gather = f >> 7 & 1;
    t->cube = f >> 8 & 1;
    t->channels = (int)wh_cuda_get_u32(r);
    t->chan_bytes = (int)wh_cuda_get_u32(r);
    uint32_t levels = wh_cuda_get_u32(r);
    if (nd > 3 || (t->channels != 1 && t->channels != 2 && t->channels != 4) ||
        (t->chan_bytes != 1 && t->chan_bytes != 2 && t->chan_bytes != 4) ||
        !ptx_tex_set_levels(t, (int)(levels & 0xff), levels >> 8 & 1))
        r->bad = true;
    t->texel_bytes = t->channels * t->chan_bytes;
}

static void put_tensor_map(wh_cuda_wbuf *b, const ptx_tensor_map *t)
{
    wh_cuda_put_u32(b, (uint32_t)t->rank);
    if (!t->rank)
        return;
    for (int k = 0; k < WH_TMAP_MAX_RANK; k++) {
        wh_cuda_put_u64(b, (uint64_t)t->dims[k]);
        wh_cuda_put_u32(b, (uint32_t)t->box[k]);
    }
    wh_cuda_put_u32(b, (uint32_t)t->elem_bytes | (uint32_t)t->type << 8 | (uint32_t)t->swizzle << 16 |
                           (uint32_t)t->oob_nan << 24);
}

static void get_tensor_map(wh_cuda_rbuf *r, ptx_tensor_map *t)
{
    memset(t, 0, sizeof *t);
    uint32_t rank = wh_cuda_get_u32(r);
    if (!rank)
        return;
    t->rank = (int)rank;
    for (int k = 0; k < WH_TMAP_MAX_RANK; k++) {
        t->dims[k] = (int64_t)wh_cuda_get_u64(r);
        t->box[k] = (int)wh_cuda_get_u32(r);
        if (t->dims[k] < 1 || t->dims[k] > (1ll << 32) || t->box[k] < 1 || t->box[k] > WH_TMAP_MAX_BOX)
            r->bad = true;
    }
    uint32_t f = wh_cuda_get_u32(r);
    t->elem_bytes = (int)(f & 0xff);
    t->type = (int)(f >> 8 & 0xff);
    t->swizzle = (int)(f >> 16 & 0xff);
    t->oob_nan = f >> 24 & 1;
    if (rank > WH_TMAP_MAX_RANK || t->type >= WH_STRUCT || t->swizzle > WH_SWIZZLE_LAST ||
        (t->elem_bytes != 1 && t->elem_bytes != 2 && t->elem_bytes != 4 && t->elem_bytes != 8))
        r->bad = true;
}

void wh_cuda_setup_encode(const wh_cuda_setup *s, wh_cuda_wbuf *b)
{
    wh_cuda_put_str(b, s->libcuda);
    wh_cuda_put_u32(b, (uint32_t)s->device);
    wh_cuda_put_u32(b, (uint32_t)s->device_rotate);
    wh_cuda_put_u32(b, s->cold_l2 ? 1u : 0u);
    wh_cuda_put_str(b, s->entry);
    /* PTX: u64 length, bytes, NUL */
    wh_cuda_put_u64(b, (uint64_t)s->ptx_len);
    wh_cuda_put(b, s->ptx, s->ptx_len);
    wh_cuda_put(b, "", 1);
    wh_cuda_put_u32(b, (uint32_t)s->nparams);
    for (int i = 0; i < s->nparams; i++) {
        const wh_cuda_param *p = &s->params[i];
        wh_cuda_put_str(b, p->name);
        wh_cuda_put_u32(b, (uint32_t)p->kind);
        wh_cuda_put_u32(b, (uint32_t)p->role);
        wh_cuda_put_u32(b, p->size);
        wh_cuda_put_u32(b, p->global ? 1u : 0u);
        put_texture(b, &p->tex);
        put_tensor_map(b, &p->tmap);
    }
}

bool wh_cuda_setup_decode(const unsigned char *p, size_t len, wh_cuda_setup *s,
                          wh_cuda_param **params_out, char *why, size_t n)
{
    memset(s, 0, sizeof *s);
    *params_out = NULL;
    wh_cuda_rbuf r;
    wh_cuda_rbuf_init(&r, p, len);
    s->libcuda = wh_cuda_get_str(&r);
    s->device = (int)wh_cuda_get_u32(&r);
    s->device_rotate = (int)wh_cuda_get_u32(&r);
    s->cold_l2 = wh_cuda_get_u32(&r) != 0;
    s->entry = wh_cuda_get_str(&r);
    uint64_t ptx_len = wh_cuda_get_u64(&r);
    const unsigned char *ptx = r.bad || ptx_len == UINT64_MAX ? NULL : wh_cuda_get_bytes(&r, ptx_len + 1);
    if (ptx && ptx[ptx_len] != 0)
        r.bad = true;
    s->ptx = (const char *)ptx;
    s->ptx_len = (size_t)ptx_len;
    uint32_t np = wh_cuda_get_u32(&r);
    if (r.bad || np > 1u << 20) {
        snprintf(why, n, "malformed SETUP message");
        return false;
    }
    wh_cuda_param *params = np ? calloc(np, sizeof *params) : NULL;
    if (np && !params) {
        snprintf(why, n, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < np; i++) {
        params[i].name = wh_cuda_get_str(&r);
        uint32_t kind = wh_cuda_get_u32(&r), role = wh_cuda_get_u32(&r);
        params[i].size = wh_cuda_get_u32(&r);
        uint32_t global = wh_cuda_get_u32(&r);
        if (kind > WH_SCALAR || role > WH_ROLE_FIXED || global > 1 || (global && kind != WH_BUFFER))
            r.bad = true;
        params[i].global = global != 0;
        params[i].kind = (wh_param_kind)kind;
        params[i].role = (wh_role)role;
        if (kind == WH_SCALAR && (params[i].size == 0 || params[i].size > WH_CUDA_SCALAR_MAX))
            r.bad = true;
        get_texture(&r, &params[i].tex);
        get_tensor_map(&r, &params[i].tmap);
    }
    if (r.bad || r.pos != r.len) {
        free(params);
        snprintf(why, n, "malformed SETUP message (parameters)");
        return false;
    }
    s->nparams = (int)np;
    s->params = params;
    *params_out = params;
    return true;
}

/* --- RUN ------------------------------------------------------------------ */

void wh_cuda_request_encode(const wh_cuda_request *rq, wh_cuda_wbuf *b)
{
    for (int k = 0; k < 3; k++) wh_cuda_put_u32(b, rq->grid[k]);
    for (int k = 0; k < 3; k++) wh_cuda_put_u32(b, rq->block[k]);
    wh_cuda_put_u64(b, rq->shared_bytes);
    wh_cuda_put_u32(b, (uint32_t)(rq->warmup < 0 ? 0 : rq->warmup));
    wh_cuda_put_u32(b, (uint32_t)(rq->reps < 1 ? 1 : rq->reps));
    wh_cuda_put_u32(b, (rq->want_outputs ? 1u : 0u) | (rq->want_all ? 2u : 0u));
    wh_cuda_put_u32(b, (uint32_t)rq->nparams);
    for (int i = 0; i < rq->nparams; i++) {
        const wh_cuda_arg *a = &rq->args[i];
        wh_cuda_put_u64(b, a->bytes);
        wh_cuda_put_u32(b, a->data ? 1u : 0u);
        if (a->data)
            wh_cuda_put(b, a->data, (size_t)a->bytes);
    }
}

bool wh_cuda_request_decode(const unsigned char *p, size_t len, int nparams, wh_cuda_request *rq,
                            wh_cuda_arg *args, char *why, size_t n)
{
    memset(rq, 0, sizeof *rq);
    wh_cuda_rbuf r;
    wh_cuda_rbuf_init(&r, p, len);
    for (int k = 0; k < 3; k++) rq->grid[k] = wh_cuda_get_u32(&r);
    for (int k = 0; k < 3; k++) rq->block[k] = wh_cuda_get_u32(&r);
    rq->shared_bytes = wh_cuda_get_u64(&r);
    rq->warmup = (int)(wh_cuda_get_u32(&r) & 0x7fffffff);
    uint32_t reps = wh_cuda_get_u32(&r);
    if (reps < 1 || reps > WH_CUDA_MAX_BATCH)
        r.bad = true;
    rq->reps = (int)reps;
    uint32_t flags = wh_cuda_get_u32(&r);
    rq->want_outputs = (flags & 1u) != 0;
    rq->want_all = (flags & 2u) != 0;
    if (flags > 3u)
        r.bad = true;
    uint32_t np = wh_cuda_get_u32(&r);
    if (r.bad || (int)np != nparams) {
        snprintf(why, n, "malformed RUN message (%u parameters, expected %d)", np, nparams);
        return false;
    }
    for (int i = 0; i < nparams; i++) {
        args[i].bytes = wh_cuda_get_u64(&r);
        uint32_t has = wh_cuda_get_u32(&r);
        args[i].data = has ? wh_cuda_get_bytes(&r, args[i].bytes) : NULL;
        if (has > 1)
            r.bad = true;
    }
    if (r.bad || r.pos != r.len) {
        snprintf(why, n, "malformed RUN message (parameter data)");
        return false;
    }
    rq->nparams = nparams;
    rq->args = args;
    return true;
}

/* --- RESULT --------------------------------------------------------------- */

void wh_cuda_result_encode(const wh_cuda_result *res, const wh_cuda_request *rq,
                           unsigned char *const *outputs, wh_cuda_wbuf *b)
{
    wh_cuda_put_u32(b, (uint32_t)res->status);
    wh_cuda_put_u32(b, res->restart ? 1u : 0u);
    wh_cuda_put_f64(b, res->time_us);
    int nt = res->ntimes < 0 ? 0 : res->ntimes > WH_CUDA_MAX_BATCH ? WH_CUDA_MAX_BATCH : res->ntimes;
    wh_cuda_put_u32(b, (uint32_t)nt);
    for (int k = 0; k < nt; k++)
        wh_cuda_put_f64(b, res->times[k]);
    char msg[sizeof res->message];
    memcpy(msg, res->message, sizeof msg);
    msg[sizeof msg - 1] = 0;
    wh_cuda_put_str(b, msg);
    uint32_t nout = 0;
    for (int i = 0; outputs && rq && i < rq->nparams; i++)
        if (outputs[i])
            nout++;
    wh_cuda_put_u32(b, nout);
    for (int i = 0; outputs && rq && i < rq->nparams; i++) {
        if (!outputs[i])
            continue;
        wh_cuda_put_u32(b, (uint32_t)i);
        wh_cuda_put_u64(b, rq->args[i].bytes);
        wh_cuda_put(b, outputs[i], (size_t)rq->args[i].bytes);
    }
}

bool wh_cuda_result_decode(const unsigned char *p, size_t len, wh_cuda_result *res, int nparams,
                           unsigned char *const *dest, const uint64_t *dest_bytes, char *why,
                           size_t n)
{
    memset(res, 0, sizeof *res);
    wh_cuda_rbuf r;
    wh_cuda_rbuf_init(&r, p, len);
    uint32_t st = wh_cuda_get_u32(&r);
    res->restart = wh_cuda_get_u32(&r) != 0;
    res->time_us = wh_cuda_get_f64(&r);
    uint32_t nt = wh_cuda_get_u32(&r);
    if (nt > WH_CUDA_MAX_BATCH)
        r.bad = true;
    for (uint32_t k = 0; !r.bad && k < nt; k++)
        res->times[k] = wh_cuda_get_f64(&r);
    res->ntimes = r.bad ? 0 : (int)nt;
    const char *msg = wh_cuda_get_str(&r);
    if (msg)
        snprintf(res->message, sizeof res->message, "%s", msg);
    if (st > HARNESS_UNSUPPORTED)
        r.bad = true;
    res->status = (harness_status)st;
    uint32_t nout = wh_cuda_get_u32(&r);
    for (uint32_t k = 0; !r.bad && k < nout; k++) {
        uint32_t i = wh_cuda_get_u32(&r);
        uint64_t bytes = wh_cuda_get_u64(&r);
        const unsigned char *d = wh_cuda_get_bytes(&r, bytes);
        if (r.bad || (int)i >= nparams) {
            r.bad = true;
            break;
        }
        if (dest && dest[i]) {
            if (bytes != dest_bytes[i]) {
                snprintf(why, n, "RESULT carries %llu bytes for parameter %u, expected %llu",
                         (unsigned long long)bytes, i, (unsigned long long)dest_bytes[i]);
                return false;
            }
            if (bytes)
                memcpy(dest[i], d, (size_t)bytes);
        }
    }
    if (r.bad || r.pos != r.len) {
        snprintf(why, n, "malformed RESULT message");
        return false;
    }
    return true;
}

/* --- READY ---------------------------------------------------------------- */

/* Both ends are the same binary (fork without exec): the struct travels as is. */
void wh_cuda_info_encode(const harness_cuda_info *info, wh_cuda_wbuf *b)
{
    wh_cuda_put(b, info, sizeof *info);
}

bool wh_cuda_info_decode(const unsigned char *p, size_t len, harness_cuda_info *info)
{
    if (len != sizeof *info)
        return false;
    memcpy(info, p, sizeof *info);
    info->name[sizeof info->name - 1] = 0;
    info->libcuda[sizeof info->libcuda - 1] = 0;
    info->timing[sizeof info->timing - 1] = 0;
    return true;
}
