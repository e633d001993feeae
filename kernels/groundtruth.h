/*
 * groundtruth.h — the known worst and best inputs of the ground-truth
 * kernels, built as each kernel's header comment describes them.
 *
 * Shared by tests/test_groundtruth.c (on the sim: the known worst is
 * slower than the best and than random inputs) and
 * bench/bench_groundtruth.c (the same inputs timed on any backend, a GPU
 * included, beside the searches' results).  Header-only: a table and the
 * functions that fill one input buffer element by element.
 */
#ifndef WH_KERNELS_GROUNDTRUTH_H
#define WH_KERNELS_GROUNDTRUTH_H

#include "core/image.h"

#include <stdint.h>

/* Sets element i (of the buffer being filled) at `at`. */
typedef void (*gt_fill_fn)(uint64_t i, void *at);

typedef struct {
    const char *spec;
    const char *input;          /* the input buffer the fill functions build */
    gt_fill_fn worst, best;
} gt_kernel;

static inline void gt_fill_7(uint64_t i, void *at) { (void)i; wh_value_set_int(WH_I32, at, 7); }
static inline void gt_fill_0(uint64_t i, void *at) { (void)i; wh_value_set_int(WH_I32, at, 0); }
static inline void gt_fill_64(uint64_t i, void *at) { (void)i; wh_value_set_int(WH_I32, at, 64); }
static inline void gt_fill_tid(uint64_t i, void *at) { wh_value_set_int(WH_I32, at, (int64_t)i); }
static inline void gt_fill_tid_mod32(uint64_t i, void *at) { wh_value_set_int(WH_I32, at, (int64_t)(i % 32)); }
static inline void gt_fill_tid_mod1024(uint64_t i, void *at) { wh_value_set_int(WH_I32, at, (int64_t)(i % 1024)); }
static inline void gt_fill_stride8(uint64_t i, void *at) { wh_value_set_int(WH_I32, at, (int64_t)(8 * i)); }
/* gt_hash: distinct keys, all with one home slot / each with its own. */
static inline void gt_fill_same_home(uint64_t i, void *at) { wh_value_set_int(WH_U32, at, (int64_t)(5 + 4096 * (i + 1))); }
static inline void gt_fill_distinct_home(uint64_t i, void *at) { wh_value_set_int(WH_U32, at, (int64_t)(i + 1)); }

static const gt_kernel gt_kernels[] = {
    { "kernels/artificial.json", "values", gt_fill_7, gt_fill_0 },
    { "kernels/fig1b.json", "input", gt_fill_7, gt_fill_0 },
    { "kernels/gt_paths32.json", "sel", gt_fill_tid_mod32, gt_fill_0 },
    { "kernels/gt_loop.json", "n", gt_fill_64, gt_fill_0 },
    { "kernels/gt_atomic.json", "key", gt_fill_0, gt_fill_tid_mod1024 },
    { "kernels/gt_gather.json", "idx", gt_fill_stride8, gt_fill_tid },
    { "kernels/gt_bank.json", "col", gt_fill_0, gt_fill_tid_mod32 },
    { "kernels/gt_hash.json", "key", gt_fill_same_home, gt_fill_distinct_home },
};
#define GT_KERNELS ((int)(sizeof gt_kernels / sizeof gt_kernels[0]))

/* Fill buffer p of img with `fill`, then check the image's value domains. */
static inline bool gt_fill(wh_image *img, int p, gt_fill_fn fill, wh_error *err)
{
    wh_buffer *b = &img->bufs[p];
    for (uint64_t i = 0; i < b->count; i++)
        fill(i, b->data + i * b->param->elem_size);
    return wh_image_check_domains(img, err);
}

#endif
