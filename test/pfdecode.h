/*
 * A decoder of timeline.perfetto-trace for tests (header-only, test code):
 * a protobuf wire-format reader written from the encoding spec, separately
 * from timeline/pbwrite.c, that rebuilds what a Perfetto reader would show:
 * slices per track (BEGIN/END matched as a stack), instants, counter
 * values, tracks by kind, and flows (each id must leave one event and end
 * at one other).  Field numbers: timeline/perfetto_trace.proto.
 */
#ifndef GS_TEST_PFDECODE_H
#define GS_TEST_PFDECODE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/outfile.h"

typedef struct { int32_t lane; int64_t start, end; const char *name; } pf_slice;

enum { PFT_PROCESS, PFT_THREAD, PFT_COUNTER, PFT_NAMED };
typedef struct {
    uint64_t uuid;
    int kind;
    int32_t lane;           /* thread tracks and their overlap tracks, else -1 */
    char name[300];         /* thread name or track name */
    pf_slice *open;         /* slices begun, not ended (a stack) */
    size_t n_open, cap_open;
} pf_track;

typedef struct {
    char error[200];
    pf_slice *slices;
    size_t n_slices, cap_slices;
    size_t n_counter_values, unbalanced, threads, processes, counter_tracks, util_tracks,
        overlap_tracks, flows, flows_bad;
    int has_meta, sorted;
    pf_track *tracks;
    size_t n_tracks;
    char **names;                  /* interned event names by iid */
    size_t n_names;
    uint64_t *src, *dst;           /* flow ids seen leaving / ending */
    size_t n_src, n_dst;
    int64_t last_ts;               /* the main sequence's (1) clock */
    int incremental;               /* its clock 64 is incremental (a ClockSnapshot said so) */
    int64_t last_util;
} pf_trace;

typedef struct { const uint8_t *p, *e; } pf_rd;

static int pf_varint(pf_rd *r, uint64_t *v)
{
    *v = 0;
    for (int s = 0; s < 64 && r->p < r->e; s += 7) {
        uint8_t b = *r->p++;
        *v |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

/* One field: its number, and its varint / fixed64 value or its bytes. */
static int pf_field(pf_rd *r, uint32_t *num, uint64_t *v, pf_rd *sub)
{
    uint64_t key;
    if (!pf_varint(r, &key))
        return 0;
    *num = (uint32_t)(key >> 3);
    switch (key & 7) {
    case 0:
        return pf_varint(r, v);
    case 1:
        if (r->e - r->p < 8)
            return 0;
        *v = 0;
        for (int i = 0; i < 8; i++)
            *v |= (uint64_t)r->p[i] << (8 * i);
        r->p += 8;
        return 1;
    case 2:
        if (!pf_varint(r, v) || (uint64_t)(r->e - r->p) < *v)
            return 0;
        sub->p = r->p;
        sub->e = r->p + *v;
        r->p += *v;
        return 1;
    default:
        return 0;
    }
}

static void pf_fail(pf_trace *t, const char *what)
{
    if (!t->error[0])
        snprintf(t->error, sizeof t->error, "%s", what);
}

static void pf_copy(char *out, size_t n, pf_rd s)
{
    snprintf(out, n, "%.*s", (int)(s.e - s.p), (const char *)s.p);
}

static pf_track *pf_track_of(pf_trace *t, uint64_t uuid)
{
    for (size_t i = 0; i < t->n_tracks; i++)
        if (t->tracks[i].uuid == uuid)
            return &t->tracks[i];
    return NULL;
}

static void pf_descriptor(pf_trace *t, pf_rd r)
{
    pf_track k;
    memset(&k, 0, sizeof k);
    k.kind = PFT_NAMED;
    k.lane = -1;
    uint32_t f, g;
    uint64_t v, w;
    pf_rd sub, s2;
    while (r.p < r.e && pf_field(&r, &f, &v, &sub)) {
        if (f == 1)
            k.uuid = v;
        else if (f == 2)
            pf_copy(k.name, sizeof k.name, sub);
        else if (f == 3)
            k.kind = PFT_PROCESS;
        else if (f == 8)
            k.kind = PFT_COUNTER;
        else if (f == 4) {
            k.kind = PFT_THREAD;
            while (sub.p < sub.e && pf_field(&sub, &g, &w, &s2)) {
                if (g == 2)
                    k.lane = (int32_t)w - 1;
                else if (g == 5)
                    pf_copy(k.name, sizeof k.name, s2);
            }
        }
    }
    t->threads += k.kind == PFT_THREAD;
    t->processes += k.kind == PFT_PROCESS;
    if (k.kind == PFT_COUNTER && strstr(k.name, " util %"))
        t->util_tracks++;
    else
        t->counter_tracks += k.kind == PFT_COUNTER;
    t->has_meta |= !strcmp(k.name, "gapscope run");
    const char *ov = strstr(k.name, " (overlapping ");
    if (ov) {   /* the lane whose thread track bears the name before the suffix */
        t->overlap_tracks++;
        for (size_t i = 0; i < t->n_tracks; i++)
            if (t->tracks[i].kind == PFT_THREAD &&
                strlen(t->tracks[i].name) == (size_t)(ov - k.name) &&
                !strncmp(t->tracks[i].name, k.name, (size_t)(ov - k.name)))
                k.lane = t->tracks[i].lane;
    }
    pf_track *nt = realloc(t->tracks, (t->n_tracks + 1) * sizeof *nt);
    if (!nt)
        return pf_fail(t, "out of memory");
    t->tracks = nt;
    t->tracks[t->n_tracks++] = k;
}

static void pf_interned(pf_trace *t, pf_rd r)
{
    uint32_t f, g;
    uint64_t v, w;
    pf_rd sub, s2;
    while (r.p < r.e && pf_field(&r, &f, &v, &sub)) {
        if (f != 2)
            continue;
        uint64_t iid = 0;
        char name[300] = "";
        while (sub.p < sub.e && pf_field(&sub, &g, &w, &s2)) {
            if (g == 1)
                iid = w;
            else if (g == 2)
                pf_copy(name, sizeof name, s2);
        }
        if (iid != t->n_names + 1)
            return pf_fail(t, "event name iids not 1, 2, 3, ...");
        char **nn = realloc(t->names, (t->n_names + 1) * sizeof *nn);
        char *copy = malloc(strlen(name) + 1);
        if (nn)
            t->names = nn;
        if (!nn || !copy) {
            free(copy);
            return pf_fail(t, "out of memory");
        }
        memcpy(copy, name, strlen(name) + 1);
        nn[t->n_names] = copy;
        t->n_names++;
    }
}

static int pf_push_id(uint64_t **v, size_t *n, uint64_t id)
{
    uint64_t *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return 0;
    nv[(*n)++] = id;
    *v = nv;
    return 1;
}

static void pf_event(pf_trace *t, pf_rd r, int64_t ts)
{
    uint32_t f;
    uint64_t v, type = 0, track = 0, name = 0;
    pf_rd sub;
    while (r.p < r.e && pf_field(&r, &f, &v, &sub)) {
        if (f == 9)
            type = v;
        else if (f == 11)
            track = v;
        else if (f == 10)
            name = v;
        else if ((f == 36 || f == 47) && !pf_push_id(&t->src, &t->n_src, v))
            return pf_fail(t, "out of memory");
        else if ((f == 42 || f == 48) && !pf_push_id(&t->dst, &t->n_dst, v))
            return pf_fail(t, "out of memory");
    }
    pf_track *k = pf_track_of(t, track);
    if (!k)
        return pf_fail(t, "event on an undeclared track");
    if (type == 4) {
        if (k->kind != PFT_COUNTER)
            return pf_fail(t, "counter value on a track that is no counter");
        if (!strstr(k->name, " util %"))
            t->n_counter_values++;
        return;
    }
    if (type == 3 && !strcmp(k->name, "gapscope run"))
        return;
    const char *nm = name >= 1 && name <= t->n_names ? t->names[name - 1] : NULL;
    if (type == 1 || type == 3) {
        if (!nm)
            return pf_fail(t, "slice without an interned name");
        pf_slice s = {k->lane, ts, ts, nm};
        if (type == 3) {
            if (gs_grow(&t->slices, &t->cap_slices, t->n_slices, sizeof *t->slices, 256))
                t->slices[t->n_slices++] = s;
            return;
        }
        if (gs_grow(&k->open, &k->cap_open, k->n_open, sizeof *k->open, 8))
            k->open[k->n_open++] = s;
        return;
    }
    if (type != 2)
        return pf_fail(t, "unknown event type");
    if (!k->n_open) {
        t->unbalanced++;
        return;
    }
    pf_slice s = k->open[--k->n_open];
    s.end = ts;
    if (gs_grow(&t->slices, &t->cap_slices, t->n_slices, sizeof *t->slices, 256))
        t->slices[t->n_slices++] = s;
}

static int pf_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Decodes a whole trace; 0 only when the file cannot be read (a malformed
 * file is reported in t->error). */
static int pf_decode_file(pf_trace *t, const char *path)
{
    memset(t, 0, sizeof *t);
    t->sorted = 1;
    char *buf;
    size_t len;
    gs_err err;
    if (gs_read_file(&buf, &len, path, &err) != GS_OK)
        return 0;
    pf_rd r = {(const uint8_t *)buf, (const uint8_t *)buf + len};
    uint32_t f, g;
    uint64_t v, w;
    pf_rd pk, sub;
    while (r.p < r.e) {
        if (!pf_field(&r, &f, &v, &pk) || f != 1) {
            pf_fail(t, "not a Trace of packets");
            break;
        }
        int64_t ts = 0;
        int has_ts = 0, clock = 0;
        uint64_t seq = 0;
        pf_rd ev = {NULL, NULL}, in = {NULL, NULL};
        while (pk.p < pk.e && pf_field(&pk, &g, &w, &sub)) {
            if (g == 8) {
                ts = (int64_t)w;
                has_ts = 1;
            } else if (g == 58) {
                clock = (int)w;
            } else if (g == 10) {
                seq = w;
            } else if (g == 6) {   /* ClockSnapshot: clock 64 incremental from its timestamp */
                uint32_t h;
                uint64_t x;
                pf_rd c, c2;
                while (sub.p < sub.e && pf_field(&sub, &h, &x, &c)) {
                    uint64_t id = 0, at = 0, inc = 0;
                    uint32_t h2;
                    while (h == 1 && c.p < c.e && pf_field(&c, &h2, &x, &c2)) {
                        id = h2 == 1 ? x : id;
                        at = h2 == 2 ? x : at;
                        inc = h2 == 3 ? x : inc;
                    }
                    if (id == 64 && inc) {
                        t->incremental = 1;
                        t->last_ts = (int64_t)at;
                    }
                }
            } else if (g == 60) {
                pf_descriptor(t, sub);
            } else if (g == 12) {
                in = sub;
            } else if (g == 11) {
                ev = sub;
            }
        }
        if (pk.p != pk.e)
            pf_fail(t, "malformed packet");
        if (in.p)
            pf_interned(t, in);
        if (ev.p) {
            if (!has_ts)
                pf_fail(t, "track event without a timestamp");
            if (seq == 1 && clock != 3) {
                if (!t->incremental)
                    pf_fail(t, "main sequence without its incremental clock");
                ts += t->last_ts;   /* a delta from the previous packet */
            }
            if (seq == 1 && ts < t->last_ts)
                t->sorted = 0;
            if (seq == 1)
                t->last_ts = ts;
            else if (seq < 2 || clock != 3)
                pf_fail(t, "a utilisation packet not on its own sequence in MONOTONIC");
            pf_event(t, ev, ts);
        }
    }
    for (size_t i = 0; i < t->n_tracks; i++)
        t->unbalanced += t->tracks[i].n_open;
    if (t->n_src)
        qsort(t->src, t->n_src, sizeof *t->src, pf_cmp_u64);
    if (t->n_dst)
        qsort(t->dst, t->n_dst, sizeof *t->dst, pf_cmp_u64);
    t->flows = t->n_src;
    for (size_t i = 0; i < t->n_src || i < t->n_dst; i++)
        t->flows_bad += i >= t->n_src || i >= t->n_dst || t->src[i] != t->dst[i] ||
                        (i && t->src[i] == t->src[i - 1]);
    free(buf);
    return 1;
}

static void pf_trace_free(pf_trace *t)
{
    for (size_t i = 0; i < t->n_tracks; i++)
        free(t->tracks[i].open);
    for (size_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->tracks);
    free(t->names);
    free(t->slices);
    free(t->src);
    free(t->dst);
}

#endif
