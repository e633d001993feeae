/*
 * hunt_migrate.c — migration between the islands of a run: every
 * --migrate-every G generations each island sends its --migrants M best
 * measured individuals, and takes, by --topology, the previous island's
 * (ring) or the M best of every other island's (all) in place of its
 * worst.  Each migration is logged in the island's migrations.csv.
 *
 * The messages' format is migrants.c's.
 */
#include "core/alloc.h"
#include "core/clock.h"
#include "ga/hunt_internal.h"
#include "ga/islands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* all: every other island's message, the m best kept as they come (a has
 * room for 2 m: memory does not grow with the islands). */
static bool receive_all(hunt *h, const unsigned char *buf, size_t n, int m, int ngenes, hunt_arrivals *a,
                        bool *readable, wh_error *err)
{
    int size = wh_islands_size(h->opt.islands), self = hunt_island_rank(h);
    size_t *sizes = wh_xcalloc((size_t)size, sizeof *sizes);
    void *got = NULL;
    bool ok = wh_islands_all(h->opt.islands, buf, n, &got, sizes, err);
    size_t off = 0;
    for (int r = 0; ok && *readable && r < size; off += sizes[r], r++) {
        if (r == self || sizes[r] == 0) continue;   /* 0: a lost island's */
        *readable = hunt_migrants_unpack((const unsigned char *)got + off, sizes[r], a, ngenes);
        if (a->n > m) {
            hunt_migrants_rank(a);
            a->n = m;
        }
    }
    free(got);
    free(sizes);
    return ok;
}

/* What this island takes, as the topology delivers it. */
static bool receive(hunt *h, const unsigned char *buf, size_t n, int m, int ngenes, hunt_arrivals *a, wh_error *err)
{
    bool readable = true, ok;
    if (h->opt.topology == HUNT_TOPOLOGY_ALL) {
        ok = receive_all(h, buf, n, m, ngenes, a, &readable, err);
    } else {
        void *got = NULL;
        size_t got_n = 0;
        ok = wh_islands_ring(h->opt.islands, buf, n, &got, &got_n, err);
        /* nothing when the previous island is lost */
        if (ok && got_n > 0) readable = hunt_migrants_unpack(got, got_n, a, ngenes);
        free(got);
    }
    if (ok && !readable)
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "island %d received a migration it cannot read "
                     "(islands with different gene layouts?)", hunt_island_rank(h));
    return ok && readable;
}

/* ---- migrations.csv --------------------------------------------------------- */

#define MIGRATIONS_HEADER "generation,direction,island,fitness,eval\n"

static void log_row(FILE *f, int generation, const char *direction, int island, const ga_indiv *m)
{
    fprintf(f, "%d,%s,%d,%.17g,%lld\n", generation, direction, island, m->fitness, (long long)m->eval_index);
}

void hunt_log_migration(hunt *h, int generation, const ga_indiv *out, int k, const hunt_arrivals *a)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/migrations.csv", h->dir);
    FILE *f = fopen(path, "a");
    if (!f) {
        if (!h->opt.quiet && h->migrations == 0) fprintf(stderr, "hunt: cannot write %s\n", path);
        return;
    }
    if (ftell(f) == 0) fputs(MIGRATIONS_HEADER, f);
    for (int i = 0; i < k; i++) log_row(f, generation, "sent", hunt_island_rank(h), &out[i]);
    for (int i = 0; i < a->n; i++) log_row(f, generation, "received", a->from[i], &a->ind[i]);
    fclose(f);
}

void hunt_migrations_truncate(const hunt *h, int generation)
{
    char path[1100], tmp[1200], line[512];
    snprintf(path, sizeof path, "%s/migrations.csv", h->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *in = fopen(path, "r");
    if (!in) return;
    FILE *out = fopen(tmp, "w");
    while (out && fgets(line, sizeof line, in)) {
        int g;
        /* the header, and the rows up to the checkpoint's generation */
        if (sscanf(line, "%d,", &g) != 1 || g <= generation) fputs(line, out);
    }
    fclose(in);
    if (out && fclose(out) == 0) rename(tmp, path);
}

/* ---- a migration -------------------------------------------------------------- */

static bool exchange(hunt *h, int generation, int m, int ngenes, ga_indiv *out, hunt_arrivals *a, wh_error *err)
{
    int k = ga_emigrants(h->g, out, m);
    size_t n = hunt_migrants_bytes(k, ngenes);
    unsigned char *buf = wh_xmalloc(n);
    hunt_migrants_pack(out, k, hunt_island_rank(h), ngenes, buf);
    bool ok = receive(h, buf, n, m, ngenes, a, err);
    free(buf);
    if (!ok) return false;
    ga_immigrate(h->g, a->ind, a->n);
    hunt_log_migration(h, generation, out, k, a);
    h->migrations++;
    h->immigrants += a->n;
    return true;
}

bool hunt_islands_migrate(hunt *h, int generation, wh_error *err)
{
    int every = h->opt.migrate_every > 0 ? h->opt.migrate_every : HUNT_DEFAULT_MIGRATE_EVERY;
    /* islands stop together, so all of them skip the last call alike; a
     * resumed island's first call repeats the generation its checkpoint
     * ended, whose migration is in the checkpoint already */
    if (!hunt_islands_many(h) || h->opt.strategy == GA_RANDOM || ga_get_stop_reason(h->g) != GA_STOP_NONE ||
        generation == 0 || generation % every || generation == h->restored_generation)
        return true;
    int m = h->opt.migrants > 0 ? h->opt.migrants : HUNT_DEFAULT_MIGRANTS;
    int ngenes = h->lay.ngenes + hunt_edit_genes(h);
    /* all: room for the m best so far and the next island's m */
    int cap = h->opt.topology == HUNT_TOPOLOGY_ALL ? 2 * m : m;
    size_t slots = (size_t)m + (size_t)cap;
    ga_indiv *ind = wh_xcalloc(slots, sizeof *ind);
    int *genes = wh_xcalloc(slots * (size_t)ngenes, sizeof *genes);
    for (size_t i = 0; i < slots; i++) ind[i].genes = genes + i * (size_t)ngenes;
    hunt_arrivals a = { ind + m, wh_xcalloc((size_t)cap, sizeof(int)), 0, cap };
    double t0 = wh_clock_s();
    bool ok = exchange(h, generation, m, ngenes, ind, &a, err);
    h->comm_s += wh_clock_s() - t0;
    free(a.from);
    free(genes);
    free(ind);
    return ok;
}
