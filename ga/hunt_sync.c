/*
 * hunt_sync.c — islands without MPI (--sync-dir DIR): hunts started on
 * their own, on one machine or on several that share DIR, exchange their
 * best individuals through files, as AFL++'s instances share a queue.
 *
 * Every --migrate-every G generations a hunt writes its --migrants M best
 * to DIR/ID.mig (whole, by a rename) and reads every other *.mig there:
 * of those written since it last read them, it takes the M best in place
 * of its worst.  Nobody waits for anybody: a hunt that stops, dies or
 * starts late changes nothing for the others, and the runs do not repeat
 * for a seed.  Only files of the same gene layout are taken (a key over
 * the spec's hash, the strategy, the gene count and the alleles): genes
 * mean the same input only there, so hunts that share a directory should
 * share the spec, the strategy and the explore cache (--results).
 *
 * A file: a head (magic, layout key, generation, writer's evaluations)
 * then one message of migrants.c's format.
 */
#include "core/alloc.h"
#include "core/hash.h"
#include "core/results.h"
#include "ga/hunt_internal.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYNC_MAGIC "WHSYNC1"
#define SYNC_SUFFIX ".mig"

typedef struct {
    char magic[8];
    uint64_t layout;
    int64_t generation;
    int64_t evals;
} sync_head;

/* A peer's file as last taken. */
typedef struct hunt_sync_peer {
    char id[HUNT_SYNC_ID_MAX + 1];
    int64_t generation;
} sync_peer;

static bool id_char_ok(char c)
{
    return c == '-' || c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

bool hunt_sync_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > HUNT_SYNC_ID_MAX || id[0] == '.') return false;
    for (size_t i = 0; i < n; i++)
        if (!id_char_ok(id[i])) return false;
    return true;
}

static uint64_t layout_key(const hunt *h, int ngenes)
{
    uint64_t k = wh_fnv1a(0, h->spec->hash, strlen(h->spec->hash));
    int32_t head[3] = { (int32_t)h->opt.strategy, ngenes, h->nalleles };
    k = wh_fnv1a(k, head, sizeof head);
    return h->alleles ? wh_fnv1a(k, h->alleles, (size_t)h->nalleles * sizeof *h->alleles) : k;
}

static bool write_own(const hunt *h, int generation, const unsigned char *msg, size_t n, uint64_t key,
                      wh_error *err)
{
    char path[1400], tmp[1400];
    snprintf(path, sizeof path, "%s/%s" SYNC_SUFFIX, h->opt.sync_dir, h->opt.sync_id);
    snprintf(tmp, sizeof tmp, "%s/.%s" SYNC_SUFFIX ".tmp", h->opt.sync_dir, h->opt.sync_id);
    sync_head head = { SYNC_MAGIC, key, generation, ga_evals(h->g) };
    /* a file of this name before this hunt's first write: another hunt's */
    struct stat st;
    if (h->migrations == 0 && !h->opt.resume_dir && stat(path, &st) == 0 && !h->opt.quiet)
        fprintf(stderr, "hunt: --sync-dir: %s exists before this hunt wrote it: does another hunt use "
                "--sync-id %s? (they would overwrite each other's file)\n", path, h->opt.sync_id);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(&head, sizeof head, 1, f) == 1 && fwrite(msg, 1, n, f) == n;
    ok = (f && fclose(f) == 0) && ok && rename(tmp, path) == 0;
    if (!ok) wh_error_set(err, WH_ERR_USER, path, 0, 0, "--sync-dir: cannot write the migrants file");
    return ok;
}

/* The peer's last taken generation, found or added (NULL when the table is full). */
static sync_peer *peer_of(hunt *h, const char *id)
{
    for (int i = 0; i < h->nsync_peers; i++)
        if (!strcmp(h->sync_peers[i].id, id)) return &h->sync_peers[i];
    if (h->nsync_peers == HUNT_SYNC_PEERS_MAX) return NULL;
    if (!h->sync_peers) h->sync_peers = wh_xcalloc(HUNT_SYNC_PEERS_MAX, sizeof *h->sync_peers);
    sync_peer *p = &h->sync_peers[h->nsync_peers++];
    snprintf(p->id, sizeof p->id, "%s", id);
    p->generation = -1;
    return p;
}

/* The start of a file, up to max + 1 bytes (so that a longer file shows). */
static unsigned char *read_file(const char *path, size_t max, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = wh_xmalloc(max + 1);
    *n = fread(buf, 1, max + 1, f);
    fclose(f);
    return buf;
}

/* One peer's file: its migrants appended to a when it is new, of this
 * layout, and well formed; any other file is said once and not taken. */
static void take_peer(hunt *h, const char *id, uint64_t key, int m, int ngenes, hunt_arrivals *a)
{
    sync_peer *p = peer_of(h, id);
    if (!p) return;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s" SYNC_SUFFIX, h->opt.sync_dir, id);
    size_t n = 0, max = sizeof(sync_head) + hunt_migrants_bytes(m, ngenes);
    unsigned char *buf = read_file(path, max, &n);
    if (!buf) return;   /* gone since the directory was read */
    sync_head head;
    bool ours = n >= sizeof head && (memcpy(&head, buf, sizeof head), !memcmp(head.magic, SYNC_MAGIC, 8)) &&
                head.layout == key && n <= max;
    int before = a->n;
    if (ours && head.generation > p->generation)
        ours = hunt_migrants_unpack(buf + sizeof head, n - sizeof head, a, ngenes);
    if (ours && a->n > before) p->generation = head.generation;
    for (int i = before; i < a->n; i++) a->from[i] = -1;
    if (!ours && p->generation != -2 && !h->opt.quiet)
        fprintf(stderr, "hunt: --sync-dir: %s is not of this hunt's gene layout (another spec, strategy or "
                "pool?): not taken\n", path);
    if (!ours) p->generation = -2;   /* said once */
    free(buf);
}

/* Every other *.mig of the directory, new since last read: the m best,
 * kept as they come in a (room for 2 m), so that memory does not grow
 * with the number of peers. */
static void take_peers(hunt *h, uint64_t key, int m, int ngenes, hunt_arrivals *a)
{
    DIR *d = opendir(h->opt.sync_dir);
    struct dirent *e;
    size_t suffix = strlen(SYNC_SUFFIX);
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len <= suffix || strcmp(e->d_name + len - suffix, SYNC_SUFFIX)) continue;
        char id[HUNT_SYNC_ID_MAX + 1];
        if (len - suffix > HUNT_SYNC_ID_MAX) continue;
        snprintf(id, sizeof id, "%.*s", (int)(len - suffix), e->d_name);
        if (!strcmp(id, h->opt.sync_id)) continue;
        take_peer(h, id, key, m, ngenes, a);
        if (a->n > m) {
            hunt_migrants_rank(a);
            a->n = m;
        }
    }
    if (d) closedir(d);
}

/* A resumed run's own --sync-dir and name, unless given again. */
static void recall(hunt *h)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/run.json", h->opt.resume_dir);
    json_t *doc = json_load_file(path, 0, NULL), *opt = json_object_get(doc, "options");
    const char *dir = json_string_value(json_object_get(opt, "sync_dir"));
    const char *id = json_string_value(json_object_get(opt, "sync_id"));
    if (!h->opt.sync_dir && dir) snprintf(h->sync_dir, sizeof h->sync_dir, "%s", dir), h->opt.sync_dir = h->sync_dir;
    if (!h->opt.sync_id && id) snprintf(h->sync_id, sizeof h->sync_id, "%s", id), h->opt.sync_id = h->sync_id;
    json_decref(doc);
}

/* host-pid, with the host's characters that a name may not hold as '-' */
static void default_id(char *out, size_t n)
{
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    snprintf(out, n, "%.40s-%ld", host, (long)getpid());
    for (char *c = out; *c; c++)
        if (!id_char_ok(*c)) *c = '-';
    if (out[0] == '.') out[0] = '-';
}

bool hunt_sync_prepare(hunt *h, wh_error *err)
{
    if (h->opt.resume_dir) recall(h);
    if (!h->opt.sync_dir) return true;
    if (hunt_islands_many(h)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--sync-dir is for hunts started without mpirun (under mpirun "
                     "the islands exchange through MPI)");
        return false;
    }
    if (!h->opt.sync_id) default_id(h->sync_id, sizeof h->sync_id);
    else if (h->opt.sync_id != h->sync_id) snprintf(h->sync_id, sizeof h->sync_id, "%s", h->opt.sync_id);
    if (!hunt_sync_id_ok(h->sync_id)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--sync-id '%s': a name of 1 to %d characters from "
                     "[A-Za-z0-9._-], not starting with a dot", h->sync_id, HUNT_SYNC_ID_MAX);
        return false;
    }
    h->opt.sync_id = h->sync_id;
    return wh_make_dirs(h->opt.sync_dir, err);
}

bool hunt_sync_migrate(hunt *h, int generation, wh_error *err)
{
    int every = h->opt.migrate_every > 0 ? h->opt.migrate_every : HUNT_DEFAULT_MIGRATE_EVERY;
    if (!h->opt.sync_dir || h->opt.strategy == GA_RANDOM || ga_get_stop_reason(h->g) != GA_STOP_NONE ||
        generation == 0 || generation % every || generation == h->restored_generation)
        return true;
    int m = h->opt.migrants > 0 ? h->opt.migrants : HUNT_DEFAULT_MIGRANTS;
    int ngenes = h->lay.ngenes + hunt_edit_genes(h);
    int cap = 2 * m;
    size_t slots = (size_t)m + (size_t)cap;
    ga_indiv *ind = wh_xcalloc(slots, sizeof *ind);
    int *genes = wh_xcalloc(slots * (size_t)ngenes, sizeof *genes);
    for (size_t i = 0; i < slots; i++) ind[i].genes = genes + i * (size_t)ngenes;
    hunt_arrivals a = { ind + m, wh_xcalloc((size_t)cap, sizeof(int)), 0, cap };
    int k = ga_emigrants(h->g, ind, m);
    size_t n = hunt_migrants_bytes(k, ngenes);
    unsigned char *msg = wh_xmalloc(n);
    hunt_migrants_pack(ind, k, -1, ngenes, msg);
    uint64_t key = layout_key(h, ngenes);
    bool ok = write_own(h, generation, msg, n, key, err);
    if (ok) {
        take_peers(h, key, m, ngenes, &a);
        ga_immigrate(h->g, a.ind, a.n);
        hunt_log_migration(h, generation, ind, k, &a);
        h->migrations++;
        h->immigrants += a.n;
    }
    free(msg);
    free(a.from);
    free(genes);
    free(ind);
    return ok;
}

void hunt_sync_free(hunt *h)
{
    free(h->sync_peers);
    h->sync_peers = NULL;
    h->nsync_peers = 0;
}
