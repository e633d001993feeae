/*
 * migrants.c — individuals on the move between islands, as bytes: what
 * MPI carries (hunt_migrate.c) and what --sync-dir's files hold
 * (hunt_sync.c).
 *
 * A message is a count, then per migrant a fixed head (fitness,
 * evaluation, input hash, status, the island it left) and its genes as
 * 32-bit integers, in the host's byte order (the islands of a run share
 * one binary).  Genes mean the same input on every island (hunt_islands.c
 * says why), so they travel as they are.
 */
#include "ga/hunt_internal.h"

#include <string.h>

/* One migrant's head; its genes follow. */
typedef struct {
    double fitness;
    int64_t eval_index;
    uint64_t input_hash;
    int32_t status;
    int32_t island;
} migrant_head;

static size_t migrant_bytes(int ngenes)
{
    return sizeof(migrant_head) + (size_t)ngenes * sizeof(int32_t);
}

size_t hunt_migrants_bytes(int k, int ngenes)
{
    return sizeof(int32_t) + (size_t)k * migrant_bytes(ngenes);
}

void hunt_migrants_pack(const ga_indiv *m, int k, int island, int ngenes, unsigned char *buf)
{
    int32_t count = k;
    memcpy(buf, &count, sizeof count);
    unsigned char *p = buf + sizeof count;
    for (int i = 0; i < k; i++, p += migrant_bytes(ngenes)) {
        migrant_head head = { m[i].fitness, m[i].eval_index, m[i].input_hash, m[i].status, island };
        memcpy(p, &head, sizeof head);
        for (int j = 0; j < ngenes; j++) {
            int32_t v = m[i].genes[j];
            memcpy(p + sizeof head + (size_t)j * sizeof v, &v, sizeof v);
        }
    }
}

bool hunt_migrants_unpack(const unsigned char *buf, size_t n, hunt_arrivals *a, int ngenes)
{
    int32_t count;
    if (n < sizeof count) return false;
    memcpy(&count, buf, sizeof count);
    if (count < 0 || count > a->cap - a->n || n != hunt_migrants_bytes(count, ngenes)) return false;
    const unsigned char *p = buf + sizeof count;
    for (int i = 0; i < count; i++, p += migrant_bytes(ngenes)) {
        migrant_head head;
        memcpy(&head, p, sizeof head);
        ga_indiv *m = &a->ind[a->n];
        m->fitness = head.fitness;
        m->status = head.status;
        m->eval_index = head.eval_index;
        m->input_hash = head.input_hash;
        m->seed = 0;
        for (int j = 0; j < ngenes; j++) {
            int32_t v;
            memcpy(&v, p + sizeof head + (size_t)j * sizeof v, sizeof v);
            m->genes[j] = v;
        }
        a->from[a->n++] = head.island;
    }
    return true;
}

void hunt_migrants_rank(hunt_arrivals *a)
{
    for (int i = 1; i < a->n; i++) {
        ga_indiv x = a->ind[i];
        int xf = a->from[i], j = i;
        for (; j > 0 && a->ind[j - 1].fitness < x.fitness; j--) {
            a->ind[j] = a->ind[j - 1];
            a->from[j] = a->from[j - 1];
        }
        a->ind[j] = x;
        a->from[j] = xf;
    }
}
