/*
 * Raw attach records -> a timeline in the foreign-timeline vocabulary
 * (timeline/SPANS.md, "Foreign timelines").
 *
 * Pass 1 (rawread.c) reads every *.rec file of the raw directory into flat
 * arrays (device operations, API calls, host records, state runs).  Pass 2 links:
 *   - a driver call made inside a runtime call on the same thread is that
 *     runtime call's child (only the runtime call becomes a span);
 *   - each device operation finds the call that issued it through the
 *     (pid, correlation id) maps (memcpy: its runtime correlation id first),
 *     a child driver call standing for its runtime parent; the operation's
 *     `corr` arg is that call's id and `launch_lane` its thread's lane;
 *   - a call is synchronizing when its name says so (cuda_sync list below)
 *     or a CUPTI synchronization record carries its id.
 * Pass 3 opens the lanes (threads sorted by tid, then device streams) and
 * appends the spans.  Every runtime call, and every driver call not made
 * inside one, becomes a span; api_min_ns (default 0) can thin a huge
 * capture by dropping calls shorter than it that neither launch, copy nor
 * synchronize.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/imap.h"
#include "../../common/paths.h"
#include "convert_int.h"

void gs_attach_convert_opts_defaults(gs_attach_convert_opts *o)
{
    o->api_min_ns = 0;
}

/* ---- linking ------------------------------------------------------------------ */

static int cmp_api(const void *a, const void *b)
{
    const gs_attach_call *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e > y->e ? -1 : 1;   /* the enclosing call first */
    return (int)y->rt - (int)x->rt;
}

/* A call's key in the maps of correlation ids: (process, correlation id). */
static int64_t ckey(int32_t pid, uint32_t corr)
{
    return (int64_t)((uint64_t)(uint32_t)pid << 32 | corr);
}

/* The call of key k in m (an index into the calls), -1 when none. */
static int32_t call_of(const gs_imap *m, int64_t k)
{
    int64_t v;
    return gs_imap_get(m, k, &v) ? (int32_t)v : -1;
}

/* Calls that block the host until device work is done (timeline/SPANS.md,
 * "Host spans"): the explicit synchronizations, frees, and every
 * non-Async memcpy. */
static const char *const sync_names[] = {
    "cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaStreamSynchronize",
    "cudaEventSynchronize", "cudaFree", "cudaFreeHost", "cuCtxSynchronize",
    "cuStreamSynchronize", "cuEventSynchronize",
};

static int is_sync_name(const char *n)
{
    for (size_t i = 0; i < sizeof sync_names / sizeof sync_names[0]; i++)
        if (!strcmp(n, sync_names[i]))
            return 1;
    if (strstr(n, "Async"))
        return 0;
    return !strncmp(n, "cudaMemcpy", 10) || !strncmp(n, "cuMemcpy", 8) ||
           !strncmp(n, "cuMemFree", 9);
}

/* The call a device operation or sync record names: a driver call inside a
 * runtime call stands for the runtime call. */
static int32_t resolve_call(const gs_attach_raw *c, const gs_imap *rt, const gs_imap *drv, int32_t pid,
                            uint32_t rtcorr, uint32_t corr)
{
    int32_t a = rtcorr ? call_of(rt, ckey(pid, rtcorr)) : -1;
    if (a < 0)
        a = call_of(rt, ckey(pid, corr));
    if (a < 0) {
        a = call_of(drv, ckey(pid, corr));
        if (a >= 0 && c->api.v[a].parent >= 0)
            a = c->api.v[a].parent;
    }
    return a;
}

/* ---- emission ----------------------------------------------------------------- */

typedef struct lane_map {
    uint32_t *tid;
    gs_tl_lane **lane;
    size_t n, cap;
} lane_map;

static gs_tl_lane *thread_lane(lane_map *lm, uint32_t tid)
{
    size_t lo = 0, hi = lm->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (lm->tid[mid] < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < lm->n && lm->tid[lo] == tid ? lm->lane[lo] : NULL;
}

static gs_tl_lane *lane_cb(void *ctx, uint32_t tid)
{
    return thread_lane(ctx, tid);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static const char *copy_name(const gs_attach_op *o, int *pageable)
{
    *pageable = 0;
    if (o->type == GS_AOP_MEMSET)
        return "memset";
    /* CUpti_ActivityMemcpyKind: 1 HtoD 2 DtoH 3 HtoA 4 AtoH 5 AtoA 6 AtoD 7 DtoA
     * 8 DtoD 9 HtoH 10 PtoP; CUpti_ActivityMemoryKind 1 = pageable. */
    switch (o->copy_kind) {
    case 1:
    case 3:
        *pageable = o->src == 1;
        return gs_vocab_name(GS_V_H2D);
    case 2:
    case 4:
        *pageable = o->dst == 1;
        return gs_vocab_name(GS_V_D2H);
    case 9:
        *pageable = o->src == 1 || o->dst == 1;
        return "h2h";
    case 10:
        return "p2p";
    default:
        return "d2d";
    }
}

static int api_emitted(const gs_attach_call *a, int64_t min_ns)
{
    if (!a->rt && a->parent >= 0)
        return 0;
    int64_t len;   /* times are within timeline/limits.h (rawread.c): no overflow */
    return a->linked || a->sync || (gs_tl_sub(&len, a->e, a->s) && len >= min_ns);
}

static gs_status build(gs_timeline *tl, gs_attach_raw *c, const gs_attach_convert_opts *o, gs_err *err)
{
    gs_status st = GS_OK;
    gs_imap rt = {0}, drv = {0};
    lane_map lm = {0};
    uint32_t *tids = NULL;

    if (c->api.n > 1)   /* a raw folder without API records has no array at all */
        qsort(c->api.v, c->api.n, sizeof *c->api.v, cmp_api);
    /* Driver calls nested in a runtime call of the same thread. */
    for (size_t i = 0, cur = (size_t)-1; i < c->api.n; i++) {
        gs_attach_call *a = &c->api.v[i];
        if (i && a->tid != c->api.v[i - 1].tid)
            cur = (size_t)-1;
        if (a->rt) {
            cur = i;
        } else if (cur != (size_t)-1 && c->api.v[cur].s <= a->s && a->e <= c->api.v[cur].e) {
            a->parent = (int32_t)cur;
        }
    }
    if (!gs_imap_init(&rt, c->api.n) || !gs_imap_init(&drv, c->api.n)) {
        st = GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < c->api.n; i++) {
        gs_attach_call *a = &c->api.v[i];
        (void)gs_imap_add(a->rt ? &rt : &drv, ckey(a->pid, a->corr), (int64_t)i);   /* sized: cannot fail */
        a->sync = is_sync_name(a->name);
    }
    for (size_t i = 0; i < c->api.n; i++) {
        gs_attach_call *a = &c->api.v[i];
        if (!a->rt && a->parent >= 0 && a->sync)
            c->api.v[a->parent].sync = 1;
    }
    for (size_t i = 0; i < c->syncs.n; i++) {
        int32_t a = resolve_call(c, &rt, &drv, c->syncs.v[i].pid, 0, c->syncs.v[i].corr);
        if (a >= 0)
            c->api.v[a].sync = 1;
    }
    int multi_pid = 0;
    for (size_t i = 0; i < c->ops.n; i++) {
        gs_attach_op *d = &c->ops.v[i];
        d->api = resolve_call(c, &rt, &drv, d->pid, d->type == GS_AOP_COPY ? d->rtcorr : 0, d->corr);
        if (d->api >= 0)
            c->api.v[d->api].linked = 1;
        multi_pid |= d->pid != c->ops.v[0].pid;
    }

    /* Thread lanes, sorted by tid. */
    size_t nt = 0, capt = c->api.n + c->host.n + 1 + gs_attach_wake_ntids(c);
    tids = malloc(capt * 2 * sizeof *tids);
    if (!tids) {
        st = GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < c->api.n; i++)
        if (api_emitted(&c->api.v[i], o->api_min_ns))
            tids[nt++] = c->api.v[i].tid;
    for (size_t i = 0; i < c->host.n; i++) {
        tids[nt++] = c->host.v[i].tid;
        if (c->host.v[i].kind == 'W' && c->host.v[i].owner)
            tids[nt++] = c->host.v[i].owner;
    }
    gs_attach_wake_tids(c, tids, &nt);
    if (nt > 1)
        qsort(tids, nt, sizeof *tids, cmp_u32);
    size_t nu = 0;
    for (size_t i = 0; i < nt; i++)
        if (!nu || tids[nu - 1] != tids[i])
            tids[nu++] = tids[i];
    lm.tid = tids;
    lm.lane = calloc(nu + 1, sizeof *lm.lane);
    lm.n = nu;
    if (!lm.lane) {
        st = GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nu; i++) {
        const char *comm = NULL;
        for (size_t k = 0; k < c->comms.n; k++)   /* the last name a thread had */
            if (c->comms.v[k].tid == tids[i])
                comm = c->comms.v[k].comm;
        char name[128];
        if (comm && *comm)
            snprintf(name, sizeof name, "thread/%u %s", tids[i], comm);
        else
            snprintf(name, sizeof name, "thread/%u", tids[i]);
        lm.lane[i] = gs_tl_lane_open(tl, name, GS_ROLE_THREAD, -1, -1);
    }
    c->st.threads = (long)nu;

    /* Device lanes, opened in order of first use. */
    struct dl {
        int32_t pid;
        uint32_t dev, stream;
        gs_tl_lane *lane;
    } *dls = NULL;
    size_t ndl = 0, capdl = 0;
    for (size_t i = 0; i < c->ops.n; i++) {
        gs_attach_op *d = &c->ops.v[i];
        size_t k = 0;
        while (k < ndl && !(dls[k].pid == d->pid && dls[k].dev == d->dev && dls[k].stream == d->stream))
            k++;
        if (k == ndl) {
            if (!gs_grow(&dls, &capdl, ndl, sizeof *dls, 256)) {
                st = GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
                free(dls);
                goto done;
            }
            char name[96];
            if (multi_pid)
                snprintf(name, sizeof name, "gpu%u/p%d.stream%u", d->dev, (int)d->pid, d->stream);
            else
                snprintf(name, sizeof name, "gpu%u/stream%u", d->dev, d->stream);
            dls[ndl] = (struct dl){d->pid, d->dev, d->stream,
                                   gs_tl_lane_open(tl, name, GS_ROLE_DEVICE, (int32_t)d->dev,
                                                   (int32_t)d->stream)};
            ndl++;
        }
        char args[160];
        int n = 0;
        const gs_attach_call *a = d->api >= 0 ? &c->api.v[d->api] : NULL;
        gs_tl_lane *ll = a ? thread_lane(&lm, a->tid) : NULL;
        uint32_t corr = a ? a->corr : d->corr;
        if (d->type == GS_AOP_KERNEL) {
            n = snprintf(args, sizeof args, "corr=%u", corr);
            if (ll)
                snprintf(args + n, sizeof args - (size_t)n, ";launch_lane=%d", (int)gs_tl_lane_id(ll));
            gs_tl_span(dls[k].lane, GS_SPAN_KERNEL, d->name, -1, -1, d->s, d->e, 0, args);
        } else {
            int pageable;
            const char *nm = copy_name(d, &pageable);
            n = snprintf(args, sizeof args, "bytes=%" PRIu64 ";pageable=%d;corr=%u", d->bytes,
                         pageable, corr);
            if (ll)
                snprintf(args + n, sizeof args - (size_t)n, ";launch_lane=%d", (int)gs_tl_lane_id(ll));
            gs_tl_span(dls[k].lane, GS_SPAN_COPY, nm, -1, -1, d->s, d->e, 0, args);
        }
    }
    free(dls);

    for (size_t i = 0; i < c->api.n; i++) {
        const gs_attach_call *a = &c->api.v[i];
        if (!api_emitted(a, o->api_min_ns))
            continue;
        char name[160], args[32];
        snprintf(name, sizeof name, "%s:%s", a->sync ? "cuda_sync" : "cuda", a->name);
        snprintf(args, sizeof args, "corr=%u", a->corr);
        gs_tl_span(thread_lane(&lm, a->tid), GS_SPAN_STEP, name, -1, -1, a->s, a->e, 0, args);
        c->st.api_spans++;
        c->st.syncs += a->sync;
    }
    for (size_t i = 0; i < c->host.n; i++) {
        const gs_attach_hrec *h = &c->host.v[i];
        gs_tl_lane *l = thread_lane(&lm, h->tid);
        char name[200], args[160];
        switch (h->kind) {
        case 'W': {
            snprintf(name, sizeof name, "mutex:0x%" PRIx64, h->addr);
            gs_tl_lane *hl = h->owner ? thread_lane(&lm, h->owner) : NULL;
            gs_tl_lock_wait(l, name, hl ? gs_tl_lane_id(hl) : -1, -1, -1, h->s, h->e);
            break;
        }
        case 'L':
            snprintf(name, sizeof name, "mutex:0x%" PRIx64, h->addr);
            gs_tl_span(l, GS_SPAN_LOCK_HOLD, name, -1, -1, h->s, h->e, 0, NULL);
            break;
        case 'T':
            gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_MALLOC_TRIM), -1, -1, h->s, h->e, 0,
                       gs_attach_trim_args(c, h, args, sizeof args));
            break;
        case 'N':
            snprintf(name, sizeof name, "nvtx:%s", h->name);
            gs_tl_span(l, GS_SPAN_STEP, name, -1, -1, h->s, h->e, 0, NULL);
            break;
        case 'P':
            snprintf(name, sizeof name, "state:%s", h->name);
            snprintf(args, sizeof args, "wchan=%s", h->detail);
            gs_tl_span(l, GS_SPAN_STEP, name, -1, -1, h->s, h->e, 0, args);
            break;
        default:
            break;
        }
    }
    st = gs_attach_wake_emit(tl, c, lane_cb, &lm, err);
done:
    gs_imap_free(&rt);
    gs_imap_free(&drv);
    free(lm.lane);
    free(tids);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void meta_long(gs_timeline *tl, const char *k, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    gs_timeline_meta_set(tl, k, b);
}

gs_status gs_attach_convert(gs_timeline **out, gs_attach_stats *stats, const char *raw_dir,
                            const gs_attach_convert_opts *o, gs_err *err)
{
    *out = NULL;
    gs_attach_convert_opts defo;
    if (!o) {
        gs_attach_convert_opts_defaults(&defo);
        o = &defo;
    }
    gs_attach_raw *c = calloc(1, sizeof *c);
    if (!c)
        return GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
    gs_strmap_init(&c->strs);
    c->strs.own = 1;
    gs_status st = GS_OK;
    gs_timeline *tl = NULL;
    char **names = NULL;
    size_t nn = 0, capn = 0;
    DIR *d = opendir(raw_dir);
    if (!d) {
        st = gs_err_set(err, GS_ERR_IO, "attach", raw_dir, "%s", strerror(errno));
        goto done;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".rec"))
            continue;
        if (!gs_grow(&names, &capn, nn, sizeof *names, 256) ||
            !(names[nn] = strdup(e->d_name))) {
            closedir(d);
            st = GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
            goto done;
        }
        nn++;
    }
    closedir(d);
    if (!nn) {
        st = gs_err_set(err, GS_ERR_FORMAT, "attach", raw_dir, "no *.rec files (not an attach capture)");
        goto done;
    }
    qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 0; i < nn && st == GS_OK; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", raw_dir, names[i]);
        st = gs_attach_read_file(c, path,
                                 !strcmp(names[i], "sched.rec")     ? GS_ARAW_SCHED
                                 : !strcmp(names[i], "sampler.rec") ? GS_ARAW_SAMPLER
                                                                    : GS_ARAW_LIB,
                                 err);
    }
    if (st != GS_OK)
        goto done;
    if ((st = gs_timeline_create(&tl)) != GS_OK) {
        GS_ERR(err, st, "attach", "cannot create a timeline");
        goto done;
    }
    if ((st = build(tl, c, o, err)) != GS_OK)
        goto done;
    gs_timeline_meta_set(tl, "source", "attach");
    char up[2100], rel[2100];
    snprintf(up, sizeof up, "%s/..", raw_dir);
    gs_path_rel(rel, sizeof rel, raw_dir, up);
    gs_timeline_meta_set(tl, "source.file", rel);
    gs_timeline_meta_set(tl, "backend", "attach");
    if (c->info[0])
        gs_timeline_meta_set(tl, "attach.info", c->info);
    for (int i = 0; i < 16; i++)
        if (c->devname[i][0]) {
            char k[32];
            snprintf(k, sizeof k, "device.%d.name", i);
            gs_timeline_meta_set(tl, k, c->devname[i]);
        }
    meta_long(tl, "attach.files", c->st.files);
    meta_long(tl, "attach.kernels", c->st.kernels);
    meta_long(tl, "attach.copies", c->st.copies + c->st.memsets);
    meta_long(tl, "attach.api_calls", c->st.api_calls);
    meta_long(tl, "attach.api_spans", c->st.api_spans);
    meta_long(tl, "attach.lock_waits", c->st.lock_waits);
    meta_long(tl, "attach.state_runs", c->st.state_runs);
    meta_long(tl, "attach.threads", c->st.threads);
    meta_long(tl, "attach.cupti_dropped", c->st.dropped);
    meta_long(tl, "attach.truncated", c->st.truncated);
    meta_long(tl, "attach.untimed", c->st.untimed);
    meta_long(tl, "attach.cupti", c->st.cupti_on);
done:
    if (stats)
        *stats = c->st;
    if (st != GS_OK) {
        gs_timeline_destroy(tl);
        tl = NULL;
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    gs_attach_ctx_free(c);
    free(c);
    *out = tl;
    return st;
}
