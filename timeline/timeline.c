/*
 * The timeline model's capture side (timeline.h).
 *
 * Design.  Each lane is a separately allocated object whose address never
 * changes; it owns a singly linked list of span chunks and an arena of
 * strings (common/arena.h, GS_TL_ARENA-byte chunks).  A lane's span chunks
 * grow as it does: GS_TL_CHUNK spans doubling while under 1 MiB, then 4 MiB
 * blocks on transparent huge pages, mapped and unmapped whole (gs_big_map,
 * common/bigmem.h): a 4.6M-span import touched 400 MB of span and string
 * chunks a 4 KiB page fault at a time, a second of system time in this VM
 * (bench/RESULTS.md); and blocks from malloc's heap stayed there after
 * the timeline was destroyed, unused by the report that followed.
 * chunk_alloc / chunk_free pick malloc or a mapping by size.  Its one writer thread appends
 * without any lock: it fills the tail chunk and links a new chunk when the
 * tail is full.  The timeline's mutex protects only the lane table (opening
 * a lane may grow it) and the meta key/values.  Readers run after capture
 * has stopped, so they walk the chunks with no synchronisation beyond the
 * join that ended the writers.
 *
 * Names repeat ("prove_start" thousands of times), so each lane keeps a
 * small direct-mapped cache of the strings it has copied: a repeated name
 * costs a hash and a strcmp instead of arena space.
 *
 * Lock order: the timeline mutex is a leaf (nothing is called under it that
 * takes another lock).
 */
#define _POSIX_C_SOURCE 200809L
#include "tl_internal.h"
#include "../common/arena.h"
#include "../common/bigmem.h"
#include "../common/clock.h"
#include "../common/grow.h"
#include "../common/hash.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define GS_TL_CHUNK 1024
#define GS_TL_ARENA 65536
#define GS_TL_INTERN 128
#define GS_TL_BLOCK_MAX ((size_t)4 << 20)   /* the largest chunk: two huge pages */
#define GS_TL_SMALL_MAX ((size_t)1 << 20)   /* chunks under this double */

typedef struct span_chunk {
    struct span_chunk *next;
    size_t n, cap;
    gs_span s[];
} span_chunk;
#define GS_TL_CHUNK_MAX ((GS_TL_BLOCK_MAX - sizeof(span_chunk)) / sizeof(gs_span))

struct gs_tl_lane {
    gs_timeline *tl;
    gs_lane_info info;
    span_chunk *head, *tail;   /* written by the lane's one writer */
    size_t n;
    gs_arena arena;
    const char *intern[GS_TL_INTERN];
};

typedef struct meta_kv {
    char *key, *value;
} meta_kv;

struct gs_timeline {
    pthread_mutex_t mu;        /* protects lanes, n_lanes, cap_lanes, meta */
    gs_tl_lane **lanes;
    size_t n_lanes, cap_lanes;
    meta_kv *meta;
    size_t n_meta, cap_meta;
    atomic_uint_fast64_t dropped;
    gs_span *sorted;           /* sorted view, rebuilt when n_sorted is stale */
    size_t n_sorted;
};

static const char *const role_names[] = {GS_ROLE_TABLE(GS_XT_COL2)};
_Static_assert(sizeof role_names / sizeof role_names[0] == GS_ROLE_COUNT, "role table");
static const char *const kind_names[] = {GS_SPAN_KIND_TABLE(GS_XT_COL2)};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == GS_SPAN_KIND_COUNT, "kind table");

GS_XT_DEFINE_NAMES_OR(gs_role, gs_role, role_names, GS_ROLE_COUNT, "?")
GS_XT_DEFINE_NAMES_OR(gs_span_kind, gs_span_kind, kind_names, GS_SPAN_KIND_COUNT, "?")

gs_status gs_timeline_create(gs_timeline **out)
{
    gs_timeline *tl = calloc(1, sizeof *tl);
    *out = NULL;
    if (!tl)
        return GS_ERR_NOMEM;
    if (pthread_mutex_init(&tl->mu, NULL) != 0) {
        free(tl);
        return GS_ERR_INTERNAL;
    }
    atomic_init(&tl->dropped, 0);
    *out = tl;
    return GS_OK;
}

static void *chunk_alloc(size_t bytes)
{
    return bytes < GS_TL_SMALL_MAX ? malloc(bytes) : gs_big_map(bytes);
}

static void chunk_free(void *p, size_t bytes)
{
    if (bytes < GS_TL_SMALL_MAX)
        free(p);
    else
        gs_big_unmap(p, bytes);
}

#define SPAN_CHUNK_BYTES(cap) (sizeof(span_chunk) + (cap) * sizeof(gs_span))

static void lane_free(gs_tl_lane *l)
{
    for (span_chunk *c = l->head, *nx; c; c = nx) {
        nx = c->next;
        chunk_free(c, SPAN_CHUNK_BYTES(c->cap));
    }
    gs_arena_free(&l->arena);
    free((char *)l->info.name);
    free(l);
}

void gs_timeline_destroy(gs_timeline *tl)
{
    if (!tl)
        return;
    for (size_t i = 0; i < tl->n_lanes; i++)
        lane_free(tl->lanes[i]);
    free(tl->lanes);
    for (size_t i = 0; i < tl->n_meta; i++) {
        free(tl->meta[i].key);
        free(tl->meta[i].value);
    }
    free(tl->meta);
    free(tl->sorted);
    pthread_mutex_destroy(&tl->mu);
    free(tl);
}

/* ---- metadata (under the mutex) ------------------------------------- */

void gs_timeline_meta_set(gs_timeline *tl, const char *key, const char *value)
{
    if (!tl || !key)
        return;
    char *v = strdup(value ? value : "");
    if (!v) {
        atomic_fetch_add(&tl->dropped, 1);
        return;
    }
    pthread_mutex_lock(&tl->mu);
    for (size_t i = 0; i < tl->n_meta; i++)
        if (!strcmp(tl->meta[i].key, key)) {
            free(tl->meta[i].value);
            tl->meta[i].value = v;
            pthread_mutex_unlock(&tl->mu);
            return;
        }
    char *k = strdup(key);
    if (!k || !gs_grow(&tl->meta, &tl->cap_meta, tl->n_meta, sizeof *tl->meta, 16)) {
        free(k);
        free(v);
        atomic_fetch_add(&tl->dropped, 1);
        pthread_mutex_unlock(&tl->mu);
        return;
    }
    tl->meta[tl->n_meta++] = (meta_kv){k, v};
    pthread_mutex_unlock(&tl->mu);
}

const char *gs_timeline_meta_get(const gs_timeline *tl, const char *key)
{
    gs_timeline *m = (gs_timeline *)tl;
    const char *r = NULL;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->n_meta; i++)
        if (!strcmp(m->meta[i].key, key)) {
            r = m->meta[i].value;
            break;
        }
    pthread_mutex_unlock(&m->mu);
    return r;
}

const char *gs_timeline_foreign_source(const gs_timeline *tl)
{
    const char *src = gs_timeline_meta_get(tl, "source");
    return src && (!strncmp(src, "attach", 6) || !strncmp(src, "import", 6)) ? src : NULL;
}

size_t gs_timeline_meta_count(const gs_timeline *tl)
{
    return tl->n_meta;
}

void gs_timeline_meta_at(const gs_timeline *tl, size_t i, const char **key, const char **value)
{
    *key = i < tl->n_meta ? tl->meta[i].key : NULL;
    *value = i < tl->n_meta ? tl->meta[i].value : NULL;
}

/* ---- lanes ------------------------------------------------------------ */

gs_tl_lane *gs_tl_lane_open(gs_timeline *tl, const char *name, gs_role role,
                            int32_t device, int32_t stream)
{
    if (!tl)
        return NULL;
    gs_tl_lane *l = calloc(1, sizeof *l);
    char *nm = strdup(name ? name : "");
    if (!l || !nm)
        goto fail;
    l->tl = tl;
    l->info = (gs_lane_info){.role = role, .device = device, .stream = stream, .name = nm};
    pthread_mutex_lock(&tl->mu);
    if (!gs_grow(&tl->lanes, &tl->cap_lanes, tl->n_lanes, sizeof *tl->lanes, 32)) {
        pthread_mutex_unlock(&tl->mu);
        goto fail;
    }
    l->info.id = (int32_t)tl->n_lanes;
    tl->lanes[tl->n_lanes++] = l;
    pthread_mutex_unlock(&tl->mu);
    return l;
fail:
    free(nm);
    free(l);
    return NULL;
}

int32_t gs_tl_lane_id(const gs_tl_lane *lane)
{
    return lane ? lane->info.id : -1;
}

void gs_tl_lane_set_process(gs_tl_lane *lane, int32_t process)
{
    if (lane && process >= 0)
        lane->info.process = process;
}

gs_tl_lane *gs_tl_lane_by_id(gs_timeline *tl, int32_t id)
{
    return id >= 0 && (size_t)id < tl->n_lanes ? tl->lanes[id] : NULL;
}

size_t gs_timeline_lane_count(const gs_timeline *tl)
{
    return tl->n_lanes;
}

const gs_lane_info *gs_timeline_lane(const gs_timeline *tl, int32_t id)
{
    return id >= 0 && (size_t)id < tl->n_lanes ? &tl->lanes[id]->info : NULL;
}

/* ---- appending (lane writer only, no lock) ---------------------------- */

static const char *lane_str(gs_tl_lane *l, const char *s)
{
    if (!s || !*s)
        return "";
    size_t slot = (size_t)(gs_fnv1a(s) % GS_TL_INTERN);
    if (l->intern[slot] && !strcmp(l->intern[slot], s))
        return l->intern[slot];
    size_t len = strlen(s) + 1;
    char *p = gs_arena_alloc(&l->arena, len, GS_TL_ARENA);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    l->intern[slot] = p;
    return p;
}

void gs_tl_append_raw(gs_tl_lane *l, const gs_span *s)
{
    if (!l)
        return;
    span_chunk *c = l->tail;
    if (!c || c->n == c->cap) {
        size_t cap = !c ? GS_TL_CHUNK
                     : (c->cap * 2) * sizeof(gs_span) < GS_TL_SMALL_MAX ? c->cap * 2 : GS_TL_CHUNK_MAX;
        span_chunk *nc = chunk_alloc(SPAN_CHUNK_BYTES(cap));
        if (!nc) {
            atomic_fetch_add(&l->tl->dropped, 1);
            return;
        }
        nc->next = NULL;
        nc->n = 0;
        nc->cap = cap;
        if (c)
            c->next = nc;
        else
            l->head = nc;
        l->tail = c = nc;
    }
    const char *name = lane_str(l, s->name);
    const char *args = lane_str(l, s->args);
    if (!name || !args) {
        atomic_fetch_add(&l->tl->dropped, 1);
        return;
    }
    gs_span *d = &c->s[c->n];
    *d = *s;
    d->lane = l->info.id;
    d->name = name;
    d->args = args;
    c->n++;
    l->n++;
}

void gs_tl_span_full(gs_tl_lane *lane, const gs_span *s)
{
    gs_tl_append_raw(lane, s);
}

void gs_tl_span(gs_tl_lane *lane, gs_span_kind kind, const char *name,
                int32_t job, int32_t part, int64_t start_ns, int64_t end_ns,
                uint16_t flags, const char *args)
{
    if (!lane)
        return;
    gs_span s = {.start_ns = start_ns, .end_ns = end_ns < start_ns ? start_ns : end_ns,
                 .holder = -1, .job = job, .part = part, .kind = (uint16_t)kind,
                 .flags = (uint16_t)(flags & ~GS_SPAN_F_CPU), .name = name, .args = args};
    if (gs_vt_virtual())
        s.flags |= GS_SPAN_F_MODELLED;
    gs_tl_append_raw(lane, &s);
}

void gs_tl_span_cpu(gs_tl_lane *lane, gs_span_kind kind, const char *name,
                    int32_t job, int32_t part, int64_t start_ns, int64_t end_ns,
                    uint16_t flags, const char *args, int64_t cpu_ns)
{
    if (!lane)
        return;
    gs_span s = {.start_ns = start_ns, .end_ns = end_ns < start_ns ? start_ns : end_ns,
                 .holder = -1, .job = job, .part = part, .kind = (uint16_t)kind,
                 .flags = (uint16_t)(cpu_ns >= 0 ? flags | GS_SPAN_F_CPU : flags & ~GS_SPAN_F_CPU),
                 .name = name, .args = args, .cpu_ns = cpu_ns >= 0 ? cpu_ns : 0};
    if (gs_vt_virtual())
        s.flags |= GS_SPAN_F_MODELLED;
    gs_tl_append_raw(lane, &s);
}

void gs_tl_lock_wait(gs_tl_lane *lane, const char *lock, int32_t holder,
                     int32_t job, int32_t part, int64_t start_ns, int64_t end_ns)
{
    if (!lane)
        return;
    gs_span s = {.start_ns = start_ns, .end_ns = end_ns < start_ns ? start_ns : end_ns,
                 .holder = holder, .job = job, .part = part,
                 .kind = GS_SPAN_LOCK_WAIT, .name = lock};
    if (gs_vt_virtual())
        s.flags |= GS_SPAN_F_MODELLED;
    gs_tl_append_raw(lane, &s);
}

void gs_tl_wait(gs_tl_lane *lane, const char *lock, int32_t holder, int64_t start_ns,
                int64_t end_ns, const char *args)
{
    if (!lane)
        return;
    gs_span s = {.start_ns = start_ns, .end_ns = end_ns < start_ns ? start_ns : end_ns,
                 .holder = holder, .job = -1, .part = -1, .kind = GS_SPAN_LOCK_WAIT,
                 .name = lock, .args = args};
    if (gs_vt_virtual())
        s.flags |= GS_SPAN_F_MODELLED;
    gs_tl_append_raw(lane, &s);
}

void gs_tl_counter(gs_tl_lane *lane, const char *name, int64_t t_ns, double value)
{
    if (!lane)
        return;
    gs_span s = {.start_ns = t_ns, .end_ns = t_ns, .holder = -1, .job = -1, .part = -1,
                 .kind = GS_SPAN_COUNTER, .value = value, .name = name};
    gs_tl_append_raw(lane, &s);
}

/* ---- reading ------------------------------------------------------------ */

uint64_t gs_timeline_dropped(const gs_timeline *tl)
{
    return atomic_load(&((gs_timeline *)tl)->dropped);
}

void gs_tl_set_dropped(gs_timeline *tl, uint64_t n)
{
    atomic_store(&tl->dropped, n);
}

size_t gs_tl_span_total(const gs_timeline *tl)
{
    size_t total = 0;
    for (size_t i = 0; i < tl->n_lanes; i++)
        total += tl->lanes[i]->n;
    return total;
}

/* The lane's spans in append order, a chunk at a time (tl_sort.c). */
const gs_span *gs_tl_lane_segment(const gs_timeline *tl, int32_t lane, void **it, size_t *n)
{
    const gs_tl_lane *l = gs_timeline_lane(tl, lane) ? tl->lanes[lane] : NULL;
    const span_chunk *c = !l ? NULL : *it ? ((const span_chunk *)*it)->next : l->head;
    *it = (void *)c;
    *n = c ? c->n : 0;
    return c ? c->s : NULL;
}

size_t gs_tl_lane_size(const gs_timeline *tl, int32_t lane)
{
    return gs_timeline_lane(tl, lane) ? tl->lanes[lane]->n : 0;
}

const gs_span *gs_timeline_spans(gs_timeline *tl, size_t *n)
{
    size_t total = gs_tl_span_total(tl);
    if (tl->sorted && total == tl->n_sorted) {
        *n = total;
        return tl->sorted;
    }
    free(tl->sorted);
    tl->sorted = NULL;
    tl->n_sorted = 0;
    *n = 0;
    if (total == 0 || !(tl->sorted = gs_tl_sort_spans(tl, total)))
        return NULL;
    tl->n_sorted = total;
    *n = total;
    return tl->sorted;
}
