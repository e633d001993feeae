/*
 * mbarrier.c — an mbarrier object's 8 bytes and what each operation does
 * to them: one definition for the emulator and the symbolic executor (so
 * that atoms replay).
 *
 * The ISA leaves the object opaque; ours: bits 0..19 the arrivals the
 * current phase still waits for, 20..39 the arrivals a phase expects,
 * 40..61 the phase's transaction count (bytes of asynchronous copies
 * still expected: expect_tx adds, complete_tx takes away; two's
 * complement, kept within the ISA's +-(2^20 - 1)), bit 63 the phase's
 * parity.  A phase completes when its pending arrivals are zero and its
 * transaction count is zero (an arrival with .noComplete never completes
 * one): the parity flips and the pending count starts again from the
 * expected one.  A state token is the object as the arrival found it.
 */
#include "ptx/internal.h"

#define COUNT_MASK 0xfffffull
#define TX_SHIFT 40
#define TX_BITS 22
#define TX_MASK ((1ull << TX_BITS) - 1)
#define TX_LIMIT ((1ll << 20) - 1)
#define PHASE (1ull << 63)

typedef struct {
    uint64_t pending, expected, phase;
    int64_t tx;
} mbar;

static mbar unpack(uint64_t obj)
{
    uint64_t raw = obj >> TX_SHIFT & TX_MASK;
    int64_t tx = raw & (1ull << (TX_BITS - 1)) ? (int64_t)raw - (int64_t)(1ull << TX_BITS) : (int64_t)raw;
    return (mbar){ obj & COUNT_MASK, obj >> 20 & COUNT_MASK, obj & PHASE, tx };
}

static uint64_t pack(mbar b)
{
    return b.pending | b.expected << 20 | ((uint64_t)b.tx & TX_MASK) << TX_SHIFT | b.phase;
}

int ptx_mbar_addr_operand(const ptx_instr *in)
{
    switch (in->mode) {
    case PTX_MBAR_INIT: case PTX_MBAR_INVAL: case PTX_MBAR_EXPECT_TX: case PTX_MBAR_COMPLETE_TX: return 0;
    case PTX_MBAR_PENDING_COUNT: return -1;
    default: return 1;
    }
}

uint64_t ptx_mbar_init(uint64_t count)
{
    count &= COUNT_MASK;
    return pack((mbar){ count, count, 0, 0 });
}

/* The phase completes if nothing is pending any more. */
static bool maybe_complete(mbar *b, bool allowed)
{
    if (!allowed || b->pending != 0 || b->tx != 0) return false;
    b->phase ^= PHASE;
    b->pending = b->expected;
    return true;
}

static const char *add_tx(mbar *b, int64_t bytes)
{
    if (bytes < -TX_LIMIT || bytes > TX_LIMIT || b->tx + bytes < -TX_LIMIT || b->tx + bytes > TX_LIMIT)
        return "the transaction count leaves its range (+-(2^20 - 1) bytes)";
    b->tx += bytes;
    return NULL;
}

const char *ptx_mbar_apply(int mode, uint32_t flags, uint64_t obj, uint64_t arg, uint64_t *out, bool *completed)
{
    mbar b = unpack(obj);
    const char *why = NULL;
    *completed = false;
    switch (mode) {
    case PTX_MBAR_EXPECT_TX:
        why = add_tx(&b, (int64_t)(uint32_t)arg);
        break;
    case PTX_MBAR_COMPLETE_TX:
        if (!(why = add_tx(&b, -(int64_t)(uint32_t)arg))) *completed = maybe_complete(&b, true);
        break;
    default: {   /* arrive, arrive_drop */
        uint64_t cnt = flags & PTX_F_EXPECT_TX ? 1 : arg & 0xffffffffull;
        if (flags & PTX_F_EXPECT_TX && (why = add_tx(&b, (int64_t)(uint32_t)arg)) != NULL) break;
        if (cnt > b.pending || (mode == PTX_MBAR_ARRIVE_DROP && cnt > b.expected))
            return "more arrivals than the phase waits for";
        if (mode == PTX_MBAR_ARRIVE_DROP) b.expected -= cnt;
        b.pending -= cnt;
        *completed = maybe_complete(&b, !(flags & PTX_F_NOCOMPLETE));
        break;
    }
    }
    if (why) return why;
    *out = pack(b);
    return NULL;
}

bool ptx_mbar_phase_done(uint32_t flags, uint64_t obj, uint64_t token)
{
    uint64_t waited = flags & PTX_F_PARITY ? (token & 1) << 63 : token & PHASE;
    return (obj & PHASE) != waited;
}

uint32_t ptx_mbar_pending(uint64_t token)
{
    return (uint32_t)(token & COUNT_MASK);
}
