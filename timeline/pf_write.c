/*
 * The Perfetto writer's output side (tl_perfetto.h): packets of the one
 * sequence, interning of names, categories and annotation names (an entry
 * goes into the interned_data of the first packet that uses it, as
 * Perfetto's own SDK does), and the track descriptors.  Packets collect in
 * a buffer written out a megabyte at a time.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tl_perfetto.h"

#define OUT_FLUSH (1u << 20)

void pw_init(pw *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    gs_pb_init(&w->out);
    gs_strmap_init(&w->names);
    gs_strmap_init(&w->cats);
    gs_strmap_init(&w->anames);
    w->anames.own = 1;   /* span args keys live in scratch buffers */
    w->next_uuid = 1;
}

void pw_deinit(pw *w)
{
    gs_pb_deinit(&w->out);
    gs_strmap_free(&w->names);
    gs_strmap_free(&w->cats);
    gs_strmap_free(&w->anames);
}

void pw_flush(pw *w)
{
    if (w->out.oom)
        w->oom = 1;
    if (w->out.len && fwrite(w->out.buf, 1, w->out.len, w->f) != w->out.len)
        w->io_err = 1;
    gs_pb_reset(&w->out);
}

void pw_start(pw *w, int64_t t0)
{
    w->last_ts = t0 + w->ts_shift;
    gs_pb_begin(&w->out, PF_TRACE_PACKET);
    gs_pb_u64(&w->out, PF_SEQ_ID, PW_SEQ);
    gs_pb_u64(&w->out, PF_SEQ_FLAGS, PF_SEQ_CLEARED);
    gs_pb_begin(&w->out, PF_CLOCK_SNAPSHOT);
    gs_pb_begin(&w->out, PF_CS_CLOCKS);
    gs_pb_u64(&w->out, PF_CK_ID, PF_CLOCK_SEQ);
    gs_pb_u64(&w->out, PF_CK_TS, (uint64_t)w->last_ts);
    gs_pb_u64(&w->out, PF_CK_INCREMENTAL, 1);
    gs_pb_end(&w->out);
    gs_pb_begin(&w->out, PF_CS_CLOCKS);
    gs_pb_u64(&w->out, PF_CK_ID, PF_CLOCK_MONOTONIC);
    gs_pb_u64(&w->out, PF_CK_TS, (uint64_t)w->last_ts);
    gs_pb_end(&w->out);
    gs_pb_u64(&w->out, PF_CS_PRIMARY, PF_CLOCK_MONOTONIC);
    gs_pb_end(&w->out);
    gs_pb_begin(&w->out, PF_DEFAULTS);
    gs_pb_u64(&w->out, PF_DEF_TS_CLOCK_ID, PF_CLOCK_SEQ);
    gs_pb_end(&w->out);
    pw_packet_end(w);
}

void pw_packet_begin(pw *w, int has_ts, int64_t ts)
{
    gs_pb_begin(&w->out, PF_TRACE_PACKET);
    if (has_ts) {
        int64_t t = ts + w->ts_shift;
        if (t >= w->last_ts) {
            gs_pb_u64(&w->out, PF_TIMESTAMP, (uint64_t)(t - w->last_ts));
            w->last_ts = t;
        } else {   /* out of order: absolute, leaving the sequence's clock alone */
            gs_pb_u64(&w->out, PF_TIMESTAMP, (uint64_t)t);
            gs_pb_u64(&w->out, PF_TS_CLOCK_ID, PF_CLOCK_MONOTONIC);
        }
    }
    gs_pb_u64(&w->out, PF_SEQ_ID, PW_SEQ);
    gs_pb_u64(&w->out, PF_SEQ_FLAGS, PF_SEQ_NEEDS);
}

void pw_packet_abs(pw *w, uint32_t seq, int64_t ts)
{
    gs_pb_begin(&w->out, PF_TRACE_PACKET);
    gs_pb_u64(&w->out, PF_TIMESTAMP, (uint64_t)(ts + w->ts_shift));
    gs_pb_u64(&w->out, PF_TS_CLOCK_ID, PF_CLOCK_MONOTONIC);
    gs_pb_u64(&w->out, PF_SEQ_ID, seq);
}

void pw_packet_end(pw *w)
{
    gs_pb_end(&w->out);
    if (w->out.len >= OUT_FLUSH)
        pw_flush(w);
}

uint64_t pw_intern(pw *w, pw_new *nw, int which, const char *s)
{
    return pw_intern_x(w, nw, which, s, 1);
}

uint64_t pw_intern_x(pw *w, pw_new *nw, int which, const char *s, int stable)
{
    int added = 0;
    const char *stored = s;
    gs_strmap *m = which == PF_INT_NAMES ? &w->names
                    : which == PF_INT_CATS ? &w->cats : &w->anames;
    uint64_t iid = gs_strmap_get(m, s, stable, &added, &stored);
    if (!iid) {
        w->oom = 1;
        return 0;
    }
    if (added) {
        if (nw->n == PW_NEW_MAX) {
            w->oom = 1;   /* callers intern at most a span's annotation names */
            return iid;
        }
        nw->field[nw->n] = (uint32_t)which;
        nw->iid[nw->n] = iid;
        nw->s[nw->n++] = stored;
    }
    return iid;
}

void pw_interned(pw *w, const pw_new *nw)
{
    if (!nw->n)
        return;
    gs_pb_begin(&w->out, PF_INTERNED_DATA);
    for (int i = 0; i < nw->n; i++) {
        gs_pb_begin(&w->out, nw->field[i]);
        gs_pb_u64(&w->out, 1, nw->iid[i]);
        gs_pb_str(&w->out, 2, nw->s[i]);
        gs_pb_end(&w->out);
    }
    gs_pb_end(&w->out);
}

/* ---- track descriptors ---------------------------------------------------------- */

static uint64_t track_begin(pw *w, uint64_t parent)
{
    uint64_t uuid = w->next_uuid++;
    pw_packet_begin(w, 0, 0);
    gs_pb_begin(&w->out, PF_TRACK_DESCRIPTOR);
    gs_pb_u64(&w->out, PF_TD_UUID, uuid);
    if (parent)
        gs_pb_u64(&w->out, PF_TD_PARENT, parent);
    return uuid;
}

static void track_end(pw *w)
{
    gs_pb_end(&w->out);
    pw_packet_end(w);
}

uint64_t pw_process_track(pw *w, int pid, const char *name, int sort)
{
    uint64_t uuid = track_begin(w, 0);
    gs_pb_begin(&w->out, PF_TD_PROCESS);
    gs_pb_i64(&w->out, PF_PD_PID, pid);
    gs_pb_i64(&w->out, PF_PD_SORT, sort);
    gs_pb_str(&w->out, PF_PD_NAME, name);
    gs_pb_end(&w->out);
    track_end(w);
    return uuid;
}

uint64_t pw_thread_track(pw *w, uint64_t parent, int pid, int tid, const char *name, int sort)
{
    uint64_t uuid = track_begin(w, parent);
    gs_pb_begin(&w->out, PF_TD_THREAD);
    gs_pb_i64(&w->out, PF_THD_PID, pid);
    gs_pb_i64(&w->out, PF_THD_TID, tid);
    gs_pb_i64(&w->out, PF_THD_SORT, sort);
    gs_pb_str(&w->out, PF_THD_NAME, name);
    gs_pb_end(&w->out);
    track_end(w);
    return uuid;
}

uint64_t pw_named_track(pw *w, uint64_t parent, const char *name, int counter)
{
    uint64_t uuid = track_begin(w, parent);
    gs_pb_str(&w->out, PF_TD_NAME, name);
    if (counter) {
        gs_pb_begin(&w->out, PF_TD_COUNTER);
        gs_pb_end(&w->out);
    }
    track_end(w);
    return uuid;
}

/* ---- debug annotations ---------------------------------------------------------- */

void pw_arg_int(pw *w, uint64_t name_iid, int64_t v)
{
    gs_pb_begin(&w->out, PF_TE_ANNOTATIONS);
    gs_pb_u64(&w->out, PF_DA_NAME_IID, name_iid);
    gs_pb_i64(&w->out, PF_DA_INT, v);
    gs_pb_end(&w->out);
}

void pw_arg_double(pw *w, uint64_t name_iid, double v)
{
    gs_pb_begin(&w->out, PF_TE_ANNOTATIONS);
    gs_pb_u64(&w->out, PF_DA_NAME_IID, name_iid);
    gs_pb_double(&w->out, PF_DA_DOUBLE, v);
    gs_pb_end(&w->out);
}

void pw_arg_str(pw *w, uint64_t name_iid, const char *v, size_t n)
{
    gs_pb_begin(&w->out, PF_TE_ANNOTATIONS);
    gs_pb_u64(&w->out, PF_DA_NAME_IID, name_iid);
    gs_pb_bytes(&w->out, PF_DA_STRING, v, n);
    gs_pb_end(&w->out);
}

/* ---- events ------------------------------------------------------------------------ */

void pw_counter_event(pw *w, uint32_t seq, uint64_t track, int64_t ts, double v)
{
    if (seq)
        pw_packet_abs(w, seq, ts);
    else
        pw_packet_begin(w, 1, ts);
    gs_pb_begin(&w->out, PF_TRACK_EVENT);
    gs_pb_u64(&w->out, PF_TE_TYPE, PF_COUNTER);
    gs_pb_u64(&w->out, PF_TE_TRACK, track);
    if (!isfinite(v))
        v = 0.0;
    if (v > -9e15 && v < 9e15 && v == (double)(int64_t)v)   /* integral: a varint */
        gs_pb_i64(&w->out, PF_TE_COUNTER, (int64_t)v);
    else
        gs_pb_double(&w->out, PF_TE_DOUBLE_COUNTER, v);
    gs_pb_end(&w->out);
    pw_packet_end(w);
}

void pw_end_event(pw *w, uint64_t track, int64_t ts)
{
    pw_packet_begin(w, 1, ts);
    gs_pb_begin(&w->out, PF_TRACK_EVENT);
    gs_pb_u64(&w->out, PF_TE_TYPE, PF_SLICE_END);
    gs_pb_u64(&w->out, PF_TE_TRACK, track);
    gs_pb_end(&w->out);
    pw_packet_end(w);
}

/* "k=v;k=v" as string annotations (a segment without '=' is argN). */
/* v[0..n) as an integer when it is one written canonically (so it reads
 * back as the same text): optional '-', no leading zero, <= 18 digits. */
static int canonical_int(const char *v, size_t n, int64_t *out)
{
    size_t i = n && v[0] == '-';
    if (i == n || n - i > 18 || (v[i] == '0' && n - i > 1) || (i && v[i] == '0'))
        return 0;
    int64_t x = 0;
    for (size_t k = i; k < n; k++) {
        if (v[k] < '0' || v[k] > '9')
            return 0;
        x = x * 10 + (v[k] - '0');
    }
    *out = i ? -x : x;
    return 1;
}

void pw_args_annotations(pw *w, const char *args, uint64_t *iids, int n_iids)
{
    const char *q = args;
    for (int k = 0; *q && k < n_iids;) {
        const char *end = strchr(q, ';'), *eq = strchr(q, '=');
        size_t len = end ? (size_t)(end - q) : strlen(q);
        const char *val = eq && eq < q + len ? eq + 1 : q;
        size_t vn = len - (size_t)(val - q);
        int64_t x;
        if (len && canonical_int(val, vn, &x))
            pw_arg_int(w, iids[k++], x);
        else if (len)
            pw_arg_str(w, iids[k++], val, vn);
        q += len + (end ? 1 : 0);
    }
}

/* Interns the annotation names of s's args; returns how many (<= max). */
int pw_args_names(pw *w, pw_new *nw, const char *args, uint64_t *iids, int max)
{
    int k = 0;
    char key[64];
    for (const char *q = args; *q && k < max;) {
        const char *end = strchr(q, ';'), *eq = strchr(q, '=');
        size_t len = end ? (size_t)(end - q) : strlen(q);
        if (len) {
            size_t kl = eq && eq < q + len ? (size_t)(eq - q) : 0;
            if (kl && kl < sizeof key) {
                memcpy(key, q, kl);
                key[kl] = '\0';
            } else {
                snprintf(key, sizeof key, "arg%d", k);
            }
            iids[k++] = pw_intern_x(w, nw, PF_INT_ANAMES, key, 0);
        }
        q += len + (end ? 1 : 0);
    }
    return k;
}

