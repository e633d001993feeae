/*
 * collective.c — instructions whose result depends on other lanes or
 * warps: shfl, vote, match, redux, elect, and barriers.
 *
 * Barriers (bar/barrier .sync/.arrive/.red): a warp's arrival counts for
 * the whole warp; a barrier without a thread count completes when every
 * warp of the block that has not exited has arrived.  A .sync/.red barrier
 * executed by only part of a warp's live lanes (divergence) stops the run
 * with a fault; barriers that can never complete are reported as a
 * deadlock by the scheduler (run.c).
 */
#include "harness/sim/sim.h"

#include <string.h>

/* ---- warp-wide operations ---------------------------------------------------- */

void sim_shfl(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    const sim_opd *ao = &in->src[0];
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1), c = sim_operand(R, w, in, 2);
    uint64_t *stage = R->tmp[0];
    uint32_t pv = 0;
    SIM_LANES(m, l) {
        bool ok;
        int j = ptx_shfl_source((ptx_shfl_mode)in->mode, (int)l, (uint32_t)SIM_V(b, l), (uint32_t)SIM_V(c, l), &ok);
        stage[l] = ao->kind == SIM_OPD_REG ? w->r[(size_t)ao->slot * SIM_WARP + (size_t)j] : SIM_V(a, j);
        if (ok)
            pv |= 1u << l;
    }
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_LANES(m, l) d[l] = stage[l];
    sim_write_pred(w, in->dstp, m, pv);
}

static uint32_t member_mask(sim_run *R, sim_warp *w, const sim_instr *in, int i, uint32_t m)
{
    if (!(in->flags & PTX_F_SYNC) || i >= in->nsrc)
        return m;
    sim_src s = sim_operand(R, w, in, i);
    return m & (uint32_t)SIM_V(s, sim_first_lane(m));
}

void sim_vote(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    uint32_t part = member_mask(R, w, in, 1, m);
    uint32_t a = sim_pred_operand(w, in, 0) & part;
    if (in->mode == PTX_VOTE_BALLOT) {
        uint64_t *d = sim_dst(R, w, in, 0);
        SIM_LANES(m, l) d[l] = a;
        return;
    }
    bool r;
    switch (in->mode) {
    case PTX_VOTE_ALL: r = a == part; break;
    case PTX_VOTE_ANY: r = a != 0; break;
    default: r = a == 0 || a == part; break;   /* uni */
    }
    sim_write_pred(w, in->dst[0], m, r ? 0xffffffffu : 0);
}

void sim_match(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    uint32_t part = member_mask(R, w, in, 1, m);
    sim_src a = sim_operand(R, w, in, 0);
    bool wide = ptx_type_bits((ptx_type)in->ty) == 64;
    uint64_t *d = sim_dst(R, w, in, 0);
    uint64_t *stage = R->tmp[0];
    bool all_eq = true;
    uint64_t v0 = 0;
    bool first = true;
    SIM_LANES(part, l) {
        uint64_t v = wide ? SIM_V(a, l) : (uint32_t)SIM_V(a, l);
        if (first) {
            v0 = v;
            first = false;
        } else if (v != v0) {
            all_eq = false;
        }
    }
    SIM_LANES(m, l) {
        uint64_t v = wide ? SIM_V(a, l) : (uint32_t)SIM_V(a, l);
        uint32_t mk = 0;
        if (in->mode == PTX_MATCH_ANY) {
            for (uint32_t k = 0; k < SIM_WARP; k++)
                if ((part >> k) & 1) {
                    uint64_t u = wide ? SIM_V(a, k) : (uint32_t)SIM_V(a, k);
                    if (u == v)
                        mk |= 1u << k;
                }
        } else {
            mk = all_eq ? part : 0;
        }
        stage[l] = mk;
    }
    SIM_LANES(m, l) d[l] = stage[l];
    sim_write_pred(w, in->dstp, m, all_eq ? 0xffffffffu : 0);
}

void sim_redux(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    uint32_t part = member_mask(R, w, in, 1, m);
    sim_src a = sim_operand(R, w, in, 0);
    bool sg = ptx_type_is_signed((ptx_type)in->ty);
    uint64_t acc = 0;
    bool first = true;
    SIM_LANES(part, l) {
        uint32_t v = (uint32_t)SIM_V(a, l);
        if (first) {
            acc = v;
            first = false;
            continue;
        }
        switch (in->aop) {
        case PTX_AOP_ADD: acc = (uint32_t)(acc + v); break;
        case PTX_AOP_AND: acc &= v; break;
        case PTX_AOP_OR: acc |= v; break;
        case PTX_AOP_XOR: acc ^= v; break;
        case PTX_AOP_MIN:
            acc = sg ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc);
            break;
        case PTX_AOP_MAX:
            acc = sg ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc);
            break;
        default: break;
        }
    }
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_LANES(m, l) d[l] = acc;
}

void sim_elect(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src s = sim_operand(R, w, in, 0);
    uint32_t part = m & (uint32_t)SIM_V(s, sim_first_lane(m));
    uint32_t leader = (uint32_t)sim_first_lane(part);
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_LANES(m, l) d[l] = leader;
    sim_write_pred(w, in->dstp, m, part ? (1u << leader) : 0);
}

/* ---- barriers ---------------------------------------------------------------- */

void sim_barrier_check(sim_run *R, sim_block *b, int id)
{
    sim_barrier *bar = &b->bars[id];
    if (!bar->arrived)
        return;
    int expected = bar->expected ? bar->expected : b->live_warps;
    if (bar->arrived < expected)
        return;
    double rel = bar->tmax + R->prof->cls[SIM_C_BAR].latency;
    for (int i = 0; i < b->nwarps; i++) {
        sim_warp *w = &b->warps[i];
        if (w->state != SIM_W_BARRIER || w->bar_id != id)
            continue;
        w->state = SIM_W_READY;
        w->bar_id = -1;
        if (bar->aop && w->bar_dst >= 0) {
            uint32_t m = w->bar_mask;
            if (w->bar_dst_pred) {
                bool r = bar->aop == PTX_AOP_AND ? bar->all : bar->any != 0;
                sim_write_pred(w, w->bar_dst, m, r ? 0xffffffffu : 0);
            } else {
                uint64_t *d = &w->r[(size_t)w->bar_dst * SIM_WARP];
                SIM_LANES(m, l) d[l] = bar->popc;
            }
            w->ready[w->bar_dst + (w->bar_dst_pred ? w->fn->nslots : 0)] = rel;
        }
        sim_warp_ready_next(R, w, rel);
    }
    memset(bar, 0, sizeof *bar);
    sim_sm *sm = &R->sms[b->sm];
    for (int k = 0; k < R->prof->schedulers; k++)
        sm->sched[k].dirty = true;
}

void sim_cluster_barrier_check(sim_run *R, sim_block *b)
{
    if (!b->cluster_arrived || b->cluster_arrived < b->live_warps)
        return;
    b->cluster_phases++;
    b->cluster_arrived = 0;
    double rel = b->cluster_tmax + R->prof->cls[SIM_C_BAR].latency;
    for (int i = 0; i < b->nwarps; i++) {
        sim_warp *w = &b->warps[i];
        if (w->state != SIM_W_BARRIER || w->bar_id != SIM_CLUSTER_BARRIER || w->cluster_arrivals > b->cluster_phases)
            continue;
        w->state = SIM_W_READY;
        w->bar_id = -1;
        sim_warp_ready_next(R, w, rel);
    }
    sim_sm *sm = &R->sms[b->sm];
    for (int k = 0; k < R->prof->schedulers; k++)
        sm->sched[k].dirty = true;
}

/* barrier.cluster.arrive / .wait in a cluster of one block (the sim runs
 * no other: ptx_one_block_clusters): a split barrier over the block's live
 * warps, the k-th arrival of each warp in phase k; a wait passes once its
 * warp's last arrival's phase has completed (at once when it has).  Warps
 * arrive whole: a diverged warp is not modelled. */
static bool cluster_bar(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m, double t)
{
    sim_block *b = w->blk;
    if (m != w->live) {
        char where[256];
        sim_where(R, w, in, where, sizeof where);
        sim_stop(R, HARNESS_UNSUPPORTED, "unsupported barrier.cluster under divergence at %s: warp %d of block "
                 "(%u,%u,%u) reaches it with lanes 0x%08x while its lanes 0x%08x are elsewhere (warps arrive "
                 "whole here)", where, w->index, b->ctaid[0], b->ctaid[1], b->ctaid[2], m, w->live & ~m);
        return false;
    }
    if (in->mode == PTX_BAR_CLUSTER_ARRIVE) {
        w->cluster_arrivals++;
        b->cluster_tmax = b->cluster_arrived++ ? sim_dmax(b->cluster_tmax, t) : t;
        sim_cluster_barrier_check(R, b);
    } else if (w->cluster_arrivals > b->cluster_phases) {
        w->state = SIM_W_BARRIER;
        w->bar_id = SIM_CLUSTER_BARRIER;
        w->next_issue = SIM_INF;
    }
    return true;
}

bool sim_mapa(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0), rank = sim_operand(R, w, in, 1);
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_LANES(m, l) {
        uint32_t r = (uint32_t)SIM_V(rank, l);
        if (r != 0) {
            char where[256], thr[128];
            sim_where(R, w, in, where, sizeof where);
            sim_thread_desc(R, w, (int)l, thr, sizeof thr);
            sim_stop(R, HARNESS_FAULT, "mapa to block rank %u at %s by thread %s: the cluster has one block "
                     "(rank 0)", r, where, thr);
            return false;
        }
        d[l] = SIM_V(a, l);
    }
    return true;
}

bool sim_bar(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m, double t)
{
    if (in->mode == PTX_BAR_CLUSTER_ARRIVE || in->mode == PTX_BAR_CLUSTER_WAIT)
        return cluster_bar(R, w, in, m, t);
    bool red = in->mode == PTX_BAR_RED;
    int fl = sim_first_lane(m);
    int id = 0, count = 0;
    if (in->nsrc >= 1) {
        sim_src a = sim_operand(R, w, in, 0);
        id = (int)(uint32_t)SIM_V(a, fl);
    }
    int ncount = red ? in->nsrc - 2 : in->nsrc - 1;
    if (ncount >= 1) {
        sim_src b = sim_operand(R, w, in, 1);
        count = (int)(uint32_t)SIM_V(b, fl);
    }
    char where[256], thr[128];
    if (id < 0 || id >= SIM_MAX_BARRIERS) {
        sim_where(R, w, in, where, sizeof where);
        sim_stop(R, HARNESS_FAULT, "barrier id %d out of range [0, 15] at %s", id, where);
        return false;
    }
    if (in->mode != PTX_BAR_ARRIVE && m != w->live) {
        sim_where(R, w, in, where, sizeof where);
        sim_thread_desc(R, w, fl, thr, sizeof thr);
        sim_stop(R, HARNESS_FAULT, "barrier under divergence at %s: warp %d of block (%u,%u,%u) reaches "
                 "barrier %d with lanes 0x%08x while its lanes 0x%08x are elsewhere (first thread %s)",
                 where, w->index, w->blk->ctaid[0], w->blk->ctaid[1], w->blk->ctaid[2], id, m,
                 w->live & ~m, thr);
        return false;
    }
    sim_block *b = w->blk;
    sim_barrier *bar = &b->bars[id];
    if (bar->arrived == 0) {
        bar->expected = count > 0 ? (count + SIM_WARP - 1) / SIM_WARP : 0;
        bar->tmax = t;
        bar->aop = red ? in->aop : 0;
        bar->popc = 0;
        bar->any = 0;
        bar->all = true;
    }
    bar->arrived++;
    bar->tmax = sim_dmax(bar->tmax, t);
    if (red) {
        uint32_t c = sim_pred_operand(w, in, in->nsrc - 1) & m;
        bar->popc += (uint32_t)sim_popc(c);
        bar->any |= c;
        if (c != m)
            bar->all = false;
        w->bar_dst = in->dst[0];
        w->bar_dst_pred = in->dst_pred[0];
        w->bar_mask = m;
    } else {
        w->bar_dst = -1;
    }
    if (in->mode != PTX_BAR_ARRIVE) {
        w->state = SIM_W_BARRIER;
        w->bar_id = id;
        w->next_issue = SIM_INF;
    }
    sim_barrier_check(R, b, id);
    return true;
}

