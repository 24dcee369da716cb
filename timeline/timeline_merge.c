/*
 * Merging captures into one timeline (tl_merge.h): lanes appended with their
 * process, devices renumbered, times shifted, lane references remapped.
 * Called by diag's run-directory merge (gapscope merge).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_merge.h"
#include "tl_internal.h"

/* args with every "launch_lane=<id>" shifted by base; NULL when nothing
 * changes (the caller keeps the original). */
static const char *remap_args(char **buf, size_t *cap, const char *args, int32_t base)
{
    static const char key[] = "launch_lane=";
    const char *p = strstr(args, key);
    if (!p || base == 0)
        return NULL;
    size_t need = strlen(args) + 64;
    if (need > *cap) {
        char *nb = realloc(*buf, need);
        if (!nb)
            return NULL;
        *buf = nb;
        *cap = need;
    }
    char *w = *buf;
    const char *r = args;
    while ((p = strstr(r, key))) {
        int at_field = p == args || p[-1] == ';';
        p += sizeof key - 1;
        memcpy(w, r, (size_t)(p - r));
        w += p - r;
        char *e;
        long long id = strtoll(p, &e, 10);
        if (at_field && e != p && id >= 0) {
            w += sprintf(w, "%lld", id + base);
            r = e;
        } else {
            r = p;
        }
    }
    strcpy(w, r);
    return *buf;
}

/* Device renumbering of one capture: its device ids in ascending order
 * get next, next + 1, ...  map[i] pairs (old, new). */
typedef struct {
    int32_t old, new_id;
} devmap;

static size_t map_devices(devmap *m, const gs_timeline *tl, int32_t *next)
{
    size_t n = 0;
    for (size_t l = 0; l < gs_timeline_lane_count(tl); l++) {
        const gs_lane_info *L = gs_timeline_lane(tl, (int32_t)l);
        if (L->role != GS_ROLE_DEVICE)
            continue;
        size_t k = 0;
        while (k < n && m[k].old != L->device)
            k++;
        if (k == n)
            m[n++].old = L->device;
    }
    for (size_t i = 1; i < n; i++)   /* ascending old ids */
        for (size_t k = i; k > 0 && m[k].old < m[k - 1].old; k--) {
            devmap t = m[k];
            m[k] = m[k - 1];
            m[k - 1] = t;
        }
    for (size_t i = 0; i < n; i++)
        m[i].new_id = (*next)++;
    return n;
}

static int32_t new_device(const devmap *m, size_t n, int32_t old)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].old == old)
            return m[i].new_id;
    return old;   /* -1 (serves every device of its process) stays */
}

/* Lanes and meta of capture k. */
static int merge_head(gs_timeline *out, const gs_tl_merge_in *in, int32_t k, const devmap *m,
                      size_t nm)
{
    gs_timeline *tl = in->tl;
    char key[512], val[512];
    for (size_t l = 0; l < gs_timeline_lane_count(tl); l++) {
        const gs_lane_info *L = gs_timeline_lane(tl, (int32_t)l);
        char *name = malloc(strlen(in->label) + strlen(L->name) + 2);
        if (!name)
            return 0;
        sprintf(name, "%s:%s", in->label, L->name);
        gs_tl_lane *nl = gs_tl_lane_open(out, name, L->role, new_device(m, nm, L->device), L->stream);
        free(name);
        if (!nl)
            return 0;
        gs_tl_lane_set_process(nl, k);
    }
    for (size_t i = 0; i < gs_timeline_meta_count(tl); i++) {
        const char *mk, *mv;
        gs_timeline_meta_at(tl, i, &mk, &mv);
        int d;
        char rest[64];
        if (sscanf(mk, "device.%d.%63s", &d, rest) == 2 && !strcmp(rest, "name")) {
            snprintf(key, sizeof key, "device.%d.name", (int)new_device(m, nm, d));
            gs_timeline_meta_set(out, key, mv);
        }
        if (!strcmp(mk, GS_TL_META_DROPPED))
            continue;
        snprintf(key, sizeof key, "process.%d.%s", (int)k, mk);
        gs_timeline_meta_set(out, key, mv);
    }
    snprintf(key, sizeof key, "process.%d.label", (int)k);
    gs_timeline_meta_set(out, key, in->label);
    snprintf(key, sizeof key, "process.%d.offset_ns", (int)k);
    snprintf(val, sizeof val, "%" PRId64, in->offset_ns);
    gs_timeline_meta_set(out, key, val);
    size_t len = 0;
    val[0] = '\0';
    for (size_t i = 0; i < nm && len + 24 < sizeof val; i++)
        len += (size_t)snprintf(val + len, sizeof val - len, "%s%d=%d", i ? "," : "",
                                (int)m[i].old, (int)m[i].new_id);
    snprintf(key, sizeof key, "process.%d.devices", (int)k);
    gs_timeline_meta_set(out, key, val);
    return 1;
}

gs_status gs_timeline_merge(gs_timeline **out, const gs_tl_merge_in *in, size_t n, gs_err *err)
{
    gs_timeline *m = NULL;
    devmap *dm = NULL;
    char *buf = NULL;
    size_t cap = 0;
    gs_status st = gs_timeline_create(&m);
    *out = NULL;
    if (st != GS_OK)
        return gs_err_set(err, st, "merge", "timeline", "out of memory");
    int32_t next_dev = 0;
    uint64_t dropped = 0;
    for (size_t k = 0; k < n; k++) {
        int32_t base = (int32_t)gs_timeline_lane_count(m);
        size_t nl = gs_timeline_lane_count(in[k].tl), ns;
        free(dm);
        if (!(dm = malloc((nl + 1) * sizeof *dm)))
            goto nomem;
        size_t nm = map_devices(dm, in[k].tl, &next_dev);
        if (!merge_head(m, &in[k], (int32_t)k, dm, nm))
            goto nomem;
        const gs_span *sp = gs_timeline_spans(in[k].tl, &ns);
        if (!sp && ns)
            goto nomem;
        for (size_t i = 0; i < ns; i++) {
            gs_span s = sp[i];
            int64_t off = in[k].offset_ns;
            if ((off > 0 && (s.start_ns > GS_TL_TIME_LIMIT_NS - off || s.end_ns > GS_TL_TIME_LIMIT_NS - off)) ||
                (off < 0 && (s.start_ns < -GS_TL_TIME_LIMIT_NS - off || s.end_ns < -GS_TL_TIME_LIMIT_NS - off))) {
                st = gs_err_set(err, GS_ERR_RANGE, "merge", in[k].label,
                                "offset %" PRId64 " ns puts a span outside +-(2^62 - 1) ns", off);
                goto fail;
            }
            s.start_ns += off;
            s.end_ns += off;
            if (s.holder >= 0)
                s.holder += base;
            const char *a = remap_args(&buf, &cap, s.args, base);
            if (a)
                s.args = a;
            gs_tl_append_raw(gs_tl_lane_by_id(m, base + s.lane), &s);
        }
        dropped += gs_timeline_dropped(in[k].tl);
    }
    char b[32];
    snprintf(b, sizeof b, "%zu", n);
    gs_timeline_meta_set(m, "merge.processes", b);
    gs_timeline_meta_set(m, "source", "merge");
    gs_tl_set_dropped(m, dropped + gs_timeline_dropped(m));
    *out = m;
    m = NULL;
fail:
    free(dm);
    free(buf);
    gs_timeline_destroy(m);
    return st;
nomem:
    st = gs_err_set(err, GS_ERR_NOMEM, "merge", "timeline", "out of memory");
    goto fail;
}
