/*
 * Chrome Trace Event JSON writer (timeline.json), read by Perfetto
 * (ui.perfetto.dev) and chrome://tracing.  Format reference: "Trace Event
 * Format", Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU.
 *
 * Layout:
 *   object form {"traceEvents": [...], "displayTimeUnit": "ns", "metadata": {...}};
 *   pid 1 = the host process (one thread track per host lane, tid = lane id + 1),
 *   pid 100 + d = GPU d (one thread track per device lane / stream);
 *   "M" events name processes and threads and order the tracks;
 *   spans are "X" complete events, ts/dur in microseconds with three
 *   decimals (exact nanoseconds) relative to t0 = the first span's start
 *   (metadata t0_ns gives the absolute CLOCK_MONOTONIC value);
 *   counters are "C" events, marks are "i" instant events;
 *   flows (tl_flows.c): "s" at the source span's start, "f" with bp "e" at
 *   the destination's; "launch" joins each device span with a job to the
 *   prove_start span of the same device, job and partition that started
 *   last before it, "lock" a lock's release (the holder's hold) to its
 *   acquire (the waiter's hold after the wait).
 *
 * Reading it back (capture/import, "gapscope" generator): thread_name args
 * carry each lane's role, device and stream; span args carry job, part,
 * flags, holder (name, and holder_lane = its lane id), value (when not 0),
 * cpu_ns (with flag 8) and the span's args as members ("k=v" segments), or
 * verbatim as gs_args when the members cannot carry them exactly.  So every
 * field of a span comes back (a counter is a "C" event: its time and value
 * are all it has, gs_span_invalid), except bytes that are not UTF-8
 * (U+FFFD, as in every JSON gapscope writes); of the timeline, the dropped
 * count and meta keys that collide with the writer's own (generator,
 * t0_ns, dropped_spans) do not come back.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "tl_internal.h"


static void put_us(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* "k=v;k=v" as JSON members (values as strings). */
static void put_args(FILE *f, const char *args)
{
    const char *p = args;
    int idx = 0;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *seg = strndup(p, len);
        if (seg && *seg) {
            char *eq = strchr(seg, '=');
            char keybuf[32];
            const char *key = seg, *val = "";
            if (eq) {
                *eq = '\0';
                val = eq + 1;
            } else {
                snprintf(keybuf, sizeof keybuf, "arg%d", idx);
                key = keybuf;
                val = seg;
            }
            fputc(',', f);
            gs_json_str(f, key);
            fputc(':', f);
            gs_json_str(f, val);
        }
        free(seg);
        idx++;
        p += len + (end ? 1 : 0);
    }
}

/* 1 when put_args's members read back as exactly args: empty, or
 * "k=v;k=v" with no empty segment, each with '=' and a key that is none
 * of the writer's own (else the args are also written verbatim as
 * "gs_args"). */
static int args_canonical(const char *args)
{
    static const char *const own[] = {"job", "part", "flags", "holder", "holder_lane",
                                      "value", "cpu_ns", "gs_args"};
    if (!*args)
        return 1;
    for (const char *p = args;;) {
        const char *end = strchr(p, ';'), *eq = strchr(p, '=');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!len || !eq || (size_t)(eq - p) >= len)
            return 0;
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            if ((size_t)(eq - p) == strlen(own[i]) && !strncmp(p, own[i], strlen(own[i])))
                return 0;
        if (!end)
            return 1;
        p = end + 1;
    }
}

static void meta_event(FILE *f, const char *what, int pid, int tid, const char *key,
                       const char *sval, long ival)
{
    fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d", what, pid);
    if (tid >= 0)
        fprintf(f, ",\"tid\":%d", tid);
    fprintf(f, ",\"args\":{\"%s\":", key);
    if (sval)
        gs_json_str(f, sval);
    else
        fprintf(f, "%ld", ival);
    fputs("}}", f);
}

static void write_names(FILE *f, gs_timeline *tl)
{
    fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"host\"}}", f);
    meta_event(f, "process_sort_index", GS_TL_PID_HOST, -1, "sort_index", NULL, 0);
    size_t nl = gs_timeline_lane_count(tl);
    int32_t seen_dev[64];
    int n_seen = 0;
    for (size_t i = 0; i < nl; i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, (int32_t)i);
        int pid = gs_tl_lane_pid(L);
        if (L->role == GS_ROLE_DEVICE) {
            int dup = 0;
            for (int k = 0; k < n_seen; k++)
                dup |= seen_dev[k] == L->device;
            if (!dup && n_seen < 64) {
                seen_dev[n_seen++] = L->device;
                char key[64], name[512];
                snprintf(key, sizeof key, "device.%d.name", (int)L->device);
                const char *dn = gs_timeline_meta_get(tl, key);
                snprintf(name, sizeof name, "GPU %d%s%s", (int)L->device, dn ? ": " : "",
                         dn ? dn : "");
                meta_event(f, "process_name", pid, -1, "name", name, 0);
                meta_event(f, "process_sort_index", pid, -1, "sort_index", NULL, pid);
            }
        }
        /* The lane's role, device and stream ride along for the importer
         * (capture/import reads timeline.json back to the same lanes). */
        fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
                   "\"args\":{\"name\":", pid, (int)L->id + 1);
        gs_json_str(f, L->name);
        fprintf(f, ",\"role\":\"%s\",\"device\":%d,\"stream\":%d}}", gs_role_name(L->role),
                (int)L->device, (int)L->stream);
        long order = L->role == GS_ROLE_DEVICE ? L->stream : (long)L->role * 1000 + L->id;
        meta_event(f, "thread_sort_index", pid, L->id + 1, "sort_index", NULL, order);
    }
}

static void write_span(FILE *f, gs_timeline *tl, const gs_span *s, int64_t t0)
{
    const gs_lane_info *L = gs_timeline_lane(tl, s->lane);
    int pid = gs_tl_lane_pid(L), tid = L->id + 1;
    if (s->kind == GS_SPAN_COUNTER) {
        fputs(",\n{\"ph\":\"C\",\"name\":", f);
        gs_json_str(f, s->name);
        fprintf(f, ",\"pid\":%d,\"tid\":%d,\"ts\":", pid, tid);
        put_us(f, s->start_ns - t0);
        fprintf(f, ",\"args\":{\"value\":%.17g}}", isfinite(s->value) ? s->value : 0.0);
        return;
    }
    int instant = s->kind == GS_SPAN_MARK && s->end_ns == s->start_ns;
    fprintf(f, ",\n{\"ph\":\"%s\",\"name\":", instant ? "i\",\"s\":\"t" : "X");
    gs_json_str(f, s->name);
    fprintf(f, ",\"cat\":\"%s%s\",\"pid\":%d,\"tid\":%d,\"ts\":",
            gs_span_kind_name((gs_span_kind)s->kind),
            s->flags & GS_SPAN_F_INJECTED ? ",injected" : "", pid, tid);
    put_us(f, s->start_ns - t0);
    if (!instant) {
        fputs(",\"dur\":", f);
        put_us(f, s->end_ns - s->start_ns);
    }
    fprintf(f, ",\"args\":{\"job\":%d,\"part\":%d,\"flags\":%u", (int)s->job, (int)s->part,
            (unsigned)s->flags);
    if (s->holder >= 0) {
        const gs_lane_info *H = gs_timeline_lane(tl, s->holder);
        fputs(",\"holder\":", f);
        gs_json_str(f, H ? H->name : "?");
        fprintf(f, ",\"holder_lane\":%d", (int)s->holder);
    }
    if (s->value != 0 && isfinite(s->value))
        fprintf(f, ",\"value\":%.17g", s->value);
    if (s->flags & GS_SPAN_F_CPU)
        fprintf(f, ",\"cpu_ns\":%lld", (long long)s->cpu_ns);
    if (!args_canonical(s->args)) {
        fputs(",\"gs_args\":", f);
        gs_json_str(f, s->args);
    }
    put_args(f, s->args);
    fputs("}}", f);
}

/* A flow as an "s" event inside its source span (at the source's start)
 * and an "f" event binding to the destination span's start. */
static void write_flow(FILE *f, gs_timeline *tl, const gs_span *sp, const gs_tl_flow_in *fw,
                       int64_t t0)
{
    const char *what = fw->kind == GS_TL_FLOW_LOCK ? "lock" : "launch";
    const gs_lane_info *S = gs_timeline_lane(tl, sp[fw->src].lane);
    const gs_lane_info *D = gs_timeline_lane(tl, sp[fw->dst].lane);
    fprintf(f, ",\n{\"ph\":\"s\",\"name\":\"%s\",\"cat\":\"flow\",\"id\":%llu,"
               "\"pid\":%d,\"tid\":%d,\"ts\":", what, (unsigned long long)fw->id, gs_tl_lane_pid(S),
            (int)S->id + 1);
    put_us(f, sp[fw->src].start_ns - t0);
    fprintf(f, "}");
    fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"%s\",\"cat\":\"flow\",\"id\":%llu,"
               "\"pid\":%d,\"tid\":%d,\"ts\":", what, (unsigned long long)fw->id, gs_tl_lane_pid(D),
            (int)D->id + 1);
    put_us(f, sp[fw->dst].start_ns - t0);
    fprintf(f, "}");
}

gs_status gs_timeline_write_chrome(gs_timeline *tl, const char *path, gs_err *err)
{
    size_t n;
    const gs_span *sp;
    gs_status cst = gs_tl_spans_to_write(&sp, &n, tl, "timeline json", path, err);
    if (cst != GS_OK)
        return cst;
    gs_tl_flows fl;
    if (gs_tl_flows_build(&fl, tl, sp, n) != GS_OK)
        return gs_err_set(err, GS_ERR_NOMEM, "timeline json", path, "out of memory");
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK) {
        gs_tl_flows_free(&fl);
        return st;
    }
    FILE *f = o.f;
    int64_t t0 = n ? sp[0].start_ns : 0;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
    write_names(f, tl);
    size_t cur = 0;
    for (size_t i = 0; i < n; i++) {
        write_span(f, tl, &sp[i], t0);
        const gs_tl_flow_in *fw = gs_tl_flow_into(&fl, &cur, i, i);
        if (fw)
            write_flow(f, tl, sp, fw, t0);
    }
    fputs("\n],\n\"metadata\":{\"generator\":\"gapscope\"", f);
    fprintf(f, ",\"t0_ns\":%lld,\"dropped_spans\":%llu", (long long)t0,
            (unsigned long long)gs_timeline_dropped(tl));
    for (size_t i = 0; i < gs_timeline_meta_count(tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(tl, i, &k, &v);
        fputc(',', f);
        gs_json_str(f, k);
        fputc(':', f);
        gs_json_str(f, v);
    }
    fputs("}}\n", f);
    gs_tl_flows_free(&fl);
    return gs_out_close(&o, 1, err);
}
