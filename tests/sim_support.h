/*
 * sim_support.h — helpers shared by the sim backend tests (tests/test_sim_*.c),
 * no tests of its own: a `simcase` (spec, image, sim harness, result)
 * loaded from a spec file with a PCG32-filled image, run and checked for
 * HARNESS_OK, its buffers and scalars read by name; a loop over seeds;
 * temporary directories for hand-written PTX and specs.  Every helper fails
 * the calling test through Criterion's asserts (or skips it when the PTX
 * has not been built).  Names: sc_* work on a simcase, tsim_* are the rest
 * (sim_* is the backend's own prefix).
 */
#ifndef WH_TESTS_SIM_SUPPORT_H
#define WH_TESTS_SIM_SUPPORT_H

#include "core/image.h"
#include "core/spec.h"
#include "harness/harness.h"
#include "ptx/ptx.h"
#include "tests/support.h"      /* ts_rmtree, and the other helpers of every test */

#include <stdbool.h>
#include <stdint.h>

/* Random inputs (PCG32 seeds 1..SIM_SEEDS) per kernel in the corpus tests. */
#define SIM_SEEDS 3

/* The spec of corpus kernel tests/ptx/NAME.cu, and of bundled kernel kernels/NAME.cu. */
#define SIM_CORPUS(name) "tests/specs/sim_" name ".json"
#define SIM_KERNEL(name) "kernels/" name ".json"

typedef struct {
    wh_spec *spec;
    wh_image *img;         /* the spec's full launch */
    harness *h;            /* the sim backend */
    harness_result res;    /* the last sc_run / sc_measure */
    wh_error err;          /* why sc_attach failed */
    uint64_t seed;         /* the seed sc_open filled the image with */
} simcase;

/* ---- building blocks ---------------------------------------------------------------- */

/* Zero c, load the spec at `path` and give it a zeroed image of its full
 * launch (no harness yet).  With `need_ptx` the test is skipped when the
 * spec's PTX has not been built. */
void sc_load(simcase *c, const char *path, bool need_ptx);

/* Replace c's image by a fresh, zeroed one. */
void sc_new_image(simcase *c);

/* Fill c's image with random inputs from PCG32 (seed, stream). */
void sc_fill(simcase *c, uint64_t seed, uint64_t stream);

/* Options of the sim tests: quiet; outputs copied back when asked. */
harness_options sc_options(bool want_outputs);

/* Open the sim backend on c->spec; false (c->err says why) when it fails. */
bool sc_attach(simcase *c, const harness_options *o);

/* Run c `reps` times into c->res: the call must succeed, the status is the
 * caller's to check. */
void sc_measure(simcase *c, int reps);

/* ---- the usual case ------------------------------------------------------------------- */

/* Load `path` (skipped without PTX), fill the image from PCG32 (seed, 17),
 * open the sim with the outputs (every buffer with all_buffers) copied back. */
void sc_open(simcase *c, const char *path, uint64_t seed, bool all_buffers);

/* The seed loop:
 *     simcase c = { 0 };
 *     while (sc_seeds(&c, path, n, false)) { ... }
 * opens c with seeds 1..n in turn (c.seed), closing the one before; after
 * the last it closes (and zeroes) c and is false, so another loop may follow. */
bool sc_seeds(simcase *c, const char *path, uint64_t nseeds, bool all_buffers);

/* One run; asserts HARNESS_OK and a positive cycle count. */
void sc_run(simcase *c);

/* Free everything c holds (also after a failed sc_attach) and zero it. */
void sc_close(simcase *c);

/* A buffer's data / element count, a scalar's value, by name (asserted to exist). */
void *sc_buf(simcase *c, const char *name);
uint64_t sc_count(simcase *c, const char *name);
int64_t sc_int(simcase *c, const char *name);

/* Threads in c's launch. */
uint64_t sc_threads(const simcase *c);

/* ---- temporary files ------------------------------------------------------------------ */

/* mkdtemp(template) (ending in XXXXXX), asserted. */
void tsim_mkdtemp(char *template_path);

/* Write `text` to DIR/NAME. */
void tsim_write(const char *dir, const char *name, const char *text);

/* A kernel `ptx` (entry k) with the spec text `spec` (naming "k.ptx")
 * in a fresh temporary directory, run once on the sim: the status, its
 * message in msg, and, when out is given, the first out_bytes of output
 * buffer `buf`. */
harness_status tsim_run_once(const char *ptx, const char *spec, const char *buf, void *out, size_t out_bytes,
                             char *msg, size_t n);

/* The spec DIR/STEM.json and the PTX DIR/STEM.ptx, asserted to load. */
void tsim_load_pair(const char *dir, const char *stem, wh_spec **spec, ptx_module **mod);

/* ---- references ------------------------------------------------------------------------- */

/* brev.b32 / __brev: the bits of v reversed. */
uint32_t tsim_brev32(uint32_t v);

#endif
