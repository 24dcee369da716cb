/*
 * Perfetto protobuf writer (timeline.perfetto-trace): Perfetto's own trace
 * format (a Trace message: length-delimited TracePackets), TrackEvent
 * flavour, read by ui.perfetto.dev and trace_processor.  The fields used
 * are declared in perfetto_trace.proto beside this file, with Perfetto's
 * published field numbers; timeline/README.md describes the layout.
 *
 * Why no protobuf library: the encoding needed is five wire-format
 * primitives (pbwrite.c).  Debian's libprotobuf-c would add protoc-c
 * generated code, a library every machine that captures must have (the
 * GPU machines build from source and cannot install packages) and a heap
 * object per message; the hand-written encoder streams packets straight
 * into the output buffer.
 *
 * Layout: one packet sequence with interned event names, categories and
 * annotation names.  Tracks: a process per host (pid 1) and per GPU
 * (pid 100 + d), a thread track per lane (tid = lane id + 1, as in
 * timeline.json), a counter track per (process, counter name), a derived
 * "gpu<d> util %" counter per device (pf_util.c) and a "gapscope run"
 * track whose one instant carries the run's meta.  Spans are SLICE_BEGIN /
 * SLICE_END pairs (TrackEvent has no complete events), marks are instants,
 * counters COUNTER events; flows (tl_flows.c) are flow ids on the source's
 * BEGIN and terminating flow ids on the destination's BEGIN, as varints
 * (TrackEvent fields 36 and 42; the fixed64 47 and 48 cost 10 bytes an
 * id, which alone would take the file past a quarter of timeline.json's
 * size on an engine-shaped run: bench/RESULTS.md).
 *
 * Times: CLOCK_MONOTONIC is the trace clock; the main sequence's packets
 * carry deltas from the previous packet (a sequence-scoped incremental
 * clock, pf_write.c), 1-4 bytes instead of 6-8.
 *
 * One pass over the sorted spans: ENDs wait in a min-heap and are written
 * when time passes them, so packets come out in time order, and a lane's
 * slices nest (spans of one start are taken longest first).  A span that
 * would cross a slice still open on its lane goes to an overlap track of
 * that lane, so nothing is lost.  Memory: the flow tables, the heap (open
 * slices), per-lane stacks and one packet buffer; spans are not copied.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "tl_perfetto.h"


typedef struct { int64_t *end; size_t n, cap; uint64_t uuid; } level;
typedef struct { level *lev; int nlev; uint64_t proc; } lane_st;
typedef struct { int pid; const char *name; uint64_t uuid; } ctr_st;
typedef struct { int64_t ts; uint64_t seq; int32_t lane; int32_t lev; uint32_t depth; } item;

typedef struct {
    pw w;
    gs_timeline *tl;
    const gs_span *sp;
    gs_tl_flows fl;
    lane_st *lanes;
    size_t n_lanes;
    pw_util util;
    ctr_st *ctrs;
    size_t n_ctrs, cap_ctrs;
    item *heap;
    size_t n_heap, cap_heap;
    uint64_t seq, host_uuid;
    size_t cur_in, cur_out;    /* flow cursors (gs_tl_flow_into) */
} pf;

/* ---- the heap of pending ENDs ------------------------------------------------------- */

static int item_lt(const item *a, const item *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    if (a->depth != b->depth)
        return a->depth > b->depth;   /* inner slices end first */
    return a->seq < b->seq;
}

static int heap_push(pf *p, item it)
{
    if (!gs_grow(&p->heap, &p->cap_heap, p->n_heap, sizeof *p->heap, 256))
        return 0;
    it.seq = p->seq++;
    size_t i = p->n_heap++;
    while (i > 0 && item_lt(&it, &p->heap[(i - 1) / 2])) {
        p->heap[i] = p->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    p->heap[i] = it;
    return 1;
}

static item heap_pop(pf *p)
{
    item top = p->heap[0], last = p->heap[--p->n_heap];
    size_t i = 0, n = p->n_heap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && item_lt(&p->heap[c + 1], &p->heap[c]))
            c++;
        if (!item_lt(&p->heap[c], &last))
            break;
        p->heap[i] = p->heap[c];
        i = c;
    }
    if (n)
        p->heap[i] = last;
    return top;
}

/* ---- events ------------------------------------------------------------------------ */

/* Writes every pending END at or before t. */
static void drain(pf *p, int64_t t)
{
    while (p->n_heap && p->heap[0].ts <= t) {
        item it = heap_pop(p);
        level *L = &p->lanes[it.lane].lev[it.lev];
        L->n--;
        pw_end_event(&p->w, L->uuid, it.ts);
    }
}

static uint64_t counter_track(pf *p, const gs_span *s, const gs_lane_info *L)
{
    int pid = gs_tl_lane_pid(L);
    for (size_t i = 0; i < p->n_ctrs; i++)
        if (p->ctrs[i].pid == pid && !strcmp(p->ctrs[i].name, s->name))
            return p->ctrs[i].uuid;
    if (!gs_grow(&p->ctrs, &p->cap_ctrs, p->n_ctrs, sizeof *p->ctrs, 16)) {
        p->w.oom = 1;
        return 0;
    }
    uint64_t uuid = pw_named_track(&p->w, p->lanes[s->lane].proc, s->name, 1);
    p->ctrs[p->n_ctrs++] = (ctr_st){pid, s->name, uuid};
    return uuid;
}

/* The level of lane at which a slice [s, e) nests (a new overlap track when
 * none does); -1 when out of memory. */
static int nest_level(pf *p, int32_t lane, int64_t e)
{
    lane_st *ls = &p->lanes[lane];
    int j = 0;
    while (j < ls->nlev && ls->lev[j].n && ls->lev[j].end[ls->lev[j].n - 1] < e)
        j++;
    if (j == ls->nlev) {
        level *nl = realloc(ls->lev, (size_t)(j + 1) * sizeof *nl);
        if (!nl)
            return -1;
        ls->lev = nl;
        char name[300];
        snprintf(name, sizeof name, "%s (overlapping %d)", gs_timeline_lane(p->tl, lane)->name, j);
        ls->lev[j] = (level){NULL, 0, 0, pw_named_track(&p->w, ls->proc, name, 0)};
        ls->nlev++;
    }
    level *L = &ls->lev[j];
    if (!gs_grow(&L->end, &L->cap, L->n, sizeof *L->end, 8))
        return -1;
    return j;
}

static int is_device_op(const gs_span *s)
{
    return s->kind == GS_SPAN_KERNEL || s->kind == GS_SPAN_COPY;
}

static int span_event(pf *p, size_t g, size_t i)
{
    const gs_span *s = &p->sp[i];
    const gs_lane_info *L = gs_timeline_lane(p->tl, s->lane);
    if (s->kind == GS_SPAN_COUNTER) {
        uint64_t track = counter_track(p, s, L);
        pw_counter_event(&p->w, 0, track, s->start_ns, s->value);
        return track != 0;
    }
    int instant = s->kind == GS_SPAN_MARK && s->end_ns == s->start_ns;
    if (L->role == GS_ROLE_DEVICE && is_device_op(s) &&
        !pw_util_op(&p->w, &p->util, L->device, p->lanes[s->lane].proc, s->start_ns, s->end_ns))
        return 0;
    int lev = 0;
    if (!instant && (lev = nest_level(p, s->lane, s->end_ns)) < 0)
        return 0;
    level *T = &p->lanes[s->lane].lev[lev];
    /* Interned strings first: they go into this packet's interned_data. */
    pw_new nw = {0};
    uint64_t name = pw_intern(&p->w, &nw, PF_INT_NAMES, s->name);
    uint64_t cat = pw_intern(&p->w, &nw, PF_INT_CATS, gs_span_kind_name((gs_span_kind)s->kind));
    uint64_t inj = s->flags & GS_SPAN_F_INJECTED ? pw_intern(&p->w, &nw, PF_INT_CATS, "injected") : 0;
    uint64_t a_job = s->job >= 0 ? pw_intern(&p->w, &nw, PF_INT_ANAMES, "job") : 0;
    uint64_t a_part = s->part >= 0 ? pw_intern(&p->w, &nw, PF_INT_ANAMES, "part") : 0;
    uint64_t a_flags = s->flags ? pw_intern(&p->w, &nw, PF_INT_ANAMES, "flags") : 0;
    uint64_t a_holder = s->holder >= 0 ? pw_intern(&p->w, &nw, PF_INT_ANAMES, "holder") : 0;
    uint64_t a_value = s->value != 0 && isfinite(s->value)
                           ? pw_intern(&p->w, &nw, PF_INT_ANAMES, "value") : 0;
    uint64_t a_cpu = s->flags & GS_SPAN_F_CPU ? pw_intern(&p->w, &nw, PF_INT_ANAMES, "cpu_ns") : 0;
    uint64_t a_args[16];
    int n_args = pw_args_names(&p->w, &nw, s->args, a_args, 16);
    pw_packet_begin(&p->w, 1, s->start_ns);
    pw_interned(&p->w, &nw);
    gs_pb_begin(&p->w.out, PF_TRACK_EVENT);
    gs_pb_u64(&p->w.out, PF_TE_TYPE, instant ? PF_INSTANT : PF_SLICE_BEGIN);
    gs_pb_u64(&p->w.out, PF_TE_TRACK, T->uuid);
    gs_pb_u64(&p->w.out, PF_TE_NAME_IID, name);
    gs_pb_u64(&p->w.out, PF_TE_CATEGORY_IIDS, cat);
    if (inj)
        gs_pb_u64(&p->w.out, PF_TE_CATEGORY_IIDS, inj);
    uint64_t first;
    uint32_t nout = gs_tl_flows_from(&p->fl, &p->cur_out, g, i, &first);
    for (uint32_t k = 0; k < nout; k++)
        gs_pb_u64(&p->w.out, PF_TE_FLOW_IDS, first + k);
    const gs_tl_flow_in *fin = gs_tl_flow_into(&p->fl, &p->cur_in, g, i);
    if (fin)
        gs_pb_u64(&p->w.out, PF_TE_TERM_FLOW_IDS, fin->id);
    if (a_job)
        pw_arg_int(&p->w, a_job, s->job);
    if (a_part)
        pw_arg_int(&p->w, a_part, s->part);
    if (a_flags)
        pw_arg_int(&p->w, a_flags, s->flags);
    if (a_holder) {
        const gs_lane_info *H = gs_timeline_lane(p->tl, s->holder);
        const char *hn = H ? H->name : "?";
        pw_arg_str(&p->w, a_holder, hn, strlen(hn));
    }
    if (a_value)
        pw_arg_double(&p->w, a_value, s->value);
    if (a_cpu)
        pw_arg_int(&p->w, a_cpu, s->cpu_ns);
    pw_args_annotations(&p->w, s->args, a_args, n_args);
    gs_pb_end(&p->w.out);
    pw_packet_end(&p->w);
    if (instant)
        return 1;
    T->end[T->n] = s->end_ns;
    return heap_push(p, (item){s->end_ns, 0, s->lane, lev, (uint32_t)T->n++});
}

/* The tracks known up front: processes, one per lane, the run's own. */
static int declare_tracks(pf *p)
{
    p->host_uuid = pw_process_track(&p->w, GS_TL_PID_HOST, "host", 1);
    p->n_lanes = gs_timeline_lane_count(p->tl);
    p->lanes = calloc(p->n_lanes + 1, sizeof *p->lanes);
    uint64_t *gpu = calloc(p->n_lanes + 1, sizeof *gpu);
    if (!p->lanes || !gpu) {
        free(gpu);
        return 0;
    }
    for (size_t i = 0; i < p->n_lanes; i++) {
        const gs_lane_info *L = gs_timeline_lane(p->tl, (int32_t)i);
        int pid = gs_tl_lane_pid(L);
        uint64_t proc = p->host_uuid;
        if (L->role == GS_ROLE_DEVICE) {
            size_t k = 0;   /* the first lane of this device made its process */
            while (k < i && gs_tl_lane_pid(gs_timeline_lane(p->tl, (int32_t)k)) != pid)
                k++;
            if (k == i) {
                char key[64], name[512];
                snprintf(key, sizeof key, "device.%d.name", (int)L->device);
                const char *dn = gs_timeline_meta_get(p->tl, key);
                snprintf(name, sizeof name, "GPU %d%s%s", (int)L->device, dn ? ": " : "",
                         dn ? dn : "");
                gpu[i] = pw_process_track(&p->w, pid, name, pid);
            }
            proc = gpu[k];
        }
        int order = L->role == GS_ROLE_DEVICE ? L->stream : (int)L->role * 1000 + L->id;
        uint64_t t = pw_thread_track(&p->w, proc, pid, L->id + 1, L->name, order);
        p->lanes[i].proc = proc;
        p->lanes[i].lev = calloc(1, sizeof *p->lanes[i].lev);
        if (!p->lanes[i].lev) {
            free(gpu);
            return 0;
        }
        p->lanes[i].lev[0].uuid = t;
        p->lanes[i].nlev = 1;
    }
    free(gpu);
    return 1;
}

/* The run's meta as annotations of one instant on the "gapscope run" track. */
static void run_meta(pf *p, int64_t t0)
{
    uint64_t track = pw_named_track(&p->w, 0, "gapscope run", 0);
    size_t nm = gs_timeline_meta_count(p->tl);
    char dropped[32], t0s[32];
    snprintf(dropped, sizeof dropped, "%llu", (unsigned long long)gs_timeline_dropped(p->tl));
    snprintf(t0s, sizeof t0s, "%lld", (long long)t0);
    const char *fixed[][2] = {{"generator", "gapscope"}, {"t0_ns", t0s}, {"dropped_spans", dropped}};
    for (size_t i = 0; i < 3 + nm; i += PW_NEW_MAX - 2) {
        pw_new nw = {0};
        uint64_t ev = pw_intern(&p->w, &nw, PF_INT_NAMES, "gapscope run");
        uint64_t iid[PW_NEW_MAX];
        const char *val[PW_NEW_MAX];
        size_t k = 0;
        for (size_t j = i; j < 3 + nm && k < PW_NEW_MAX - 2; j++, k++) {
            const char *key = j < 3 ? fixed[j][0] : NULL;
            if (j < 3)
                val[k] = fixed[j][1];
            else
                gs_timeline_meta_at(p->tl, j - 3, &key, &val[k]);
            iid[k] = pw_intern(&p->w, &nw, PF_INT_ANAMES, key);
        }
        pw_packet_begin(&p->w, 1, t0);
        pw_interned(&p->w, &nw);
        gs_pb_begin(&p->w.out, PF_TRACK_EVENT);
        gs_pb_u64(&p->w.out, PF_TE_TYPE, PF_INSTANT);
        gs_pb_u64(&p->w.out, PF_TE_TRACK, track);
        gs_pb_u64(&p->w.out, PF_TE_NAME_IID, ev);
        for (size_t j = 0; j < k; j++)
            pw_arg_str(&p->w, iid[j], val[j], strlen(val[j]));
        gs_pb_end(&p->w.out);
        pw_packet_end(&p->w);
    }
}

gs_status gs_timeline_write_perfetto(gs_timeline *tl, const char *path, gs_err *err)
{
    size_t n;
    const gs_span *sp;
    gs_status cst = gs_tl_spans_to_write(&sp, &n, tl, "timeline perfetto", path, err);
    if (cst != GS_OK)
        return cst;
    pf p;
    memset(&p, 0, sizeof p);
    p.tl = tl;
    p.sp = sp;
    if (gs_tl_flows_build(&p.fl, tl, sp, n) != GS_OK)
        return gs_err_set(err, GS_ERR_NOMEM, "timeline perfetto", path, "out of memory");
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK) {
        gs_tl_flows_free(&p.fl);
        return st;
    }
    pw_init(&p.w, o.f);
    int64_t t0 = n ? sp[0].start_ns : 0;
    /* TracePacket.timestamp is unsigned: a timeline reaching below 0 is
     * shifted to start at 0 (t0_ns in the run's meta keeps the origin). */
    p.w.ts_shift = t0 < 0 ? -t0 : 0;
    int64_t t_last = t0;
    for (size_t i = 0; i < n; i++)
        t_last = sp[i].end_ns > t_last ? sp[i].end_ns : t_last;
    pw_util_init(&p.util, t0, t_last);
    pw_start(&p.w, t0);
    int ok = declare_tracks(&p);
    if (ok)
        run_meta(&p, t0);
    for (size_t g = 0; ok && g < n;) {
        /* A group of spans with one start, longest first: parents open first. */
        size_t h = g;
        while (h < n && sp[h].start_ns == sp[g].start_ns)
            h++;
        drain(&p, sp[g].start_ns);
        for (size_t i = h; ok && i > g; i--)
            ok = span_event(&p, g, i - 1);
        g = h;
    }
    if (ok) {
        drain(&p, INT64_MAX);
        pw_util_finish(&p.w, &p.util);
    }
    pw_flush(&p.w);
    ok = ok && !p.w.oom;
    int io = p.w.io_err;
    for (size_t i = 0; i < p.n_lanes && p.lanes; i++) {
        for (int j = 0; j < p.lanes[i].nlev; j++)
            free(p.lanes[i].lev[j].end);
        free(p.lanes[i].lev);
    }
    free(p.lanes);
    pw_util_free(&p.util);
    free(p.ctrs);
    free(p.heap);
    pw_deinit(&p.w);
    gs_tl_flows_free(&p.fl);
    if (!ok) {
        gs_out_close(&o, 0, NULL);
        return gs_err_set(err, GS_ERR_NOMEM, "timeline perfetto", path, "out of memory");
    }
    if (io) {
        gs_out_close(&o, 0, NULL);
        return gs_err_set(err, GS_ERR_IO, "timeline perfetto", path, "write failed");
    }
    return gs_out_close(&o, 1, err);
}
