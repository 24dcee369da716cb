/*
 * The Chrome importer's Kineto/Perfetto events (imp_chrome_int.h): the
 * lanes of threads and device streams (each name formatted once, then
 * found by key), the category of an event, pass 1's index (thread names,
 * the thread of each CUDA runtime/driver call by correlation id, the ac2g
 * flow ends) and pass 2's spans: kernels, copies and memsets on
 * gpu<dev>/stream<s> with their launching thread's lane, CUDA API calls,
 * CPU ops, Python functions and annotations on the thread's lane, B/E
 * pairs matched per thread (the mapping: import_chrome.c's opening
 * comment).
 *
 * Called by import_chrome.c; calls imp_chrome_fields.c, nothing above it.
 * The state is the caller's chrome struct; one import on one thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../common/grow.h"
#include "../../common/hash.h"
#include "../../common/json.h"
#include "imp_chrome_int.h"

static int ieq(const char *a, const char *b)
{
    return a && !strcasecmp(a, b);
}

/* Lanes met before, by key (a thread's or a device stream's): the name
 * formatting and lookup once per lane, not once per event.  Pass 1 opens
 * lanes only after every thread name is known, so a lane's name is final. */
static gs_tl_lane *lane_cached(chrome *c, int64_t key)
{
    int64_t i;
    return gs_imap_get(&c->lane_idx, key, &i) ? c->lane_of[i] : NULL;
}

static gs_tl_lane *lane_remember(chrome *c, int64_t key, gs_tl_lane *l)
{
    if (!l)
        return NULL;
    if (!gs_grow(&c->lane_of, &c->cap_lane_of, c->n_lane_of, sizeof *c->lane_of, 64))
        return l;   /* uncached, still right */
    if (gs_imap_put(&c->lane_idx, key, (int64_t)c->n_lane_of))
        c->lane_of[c->n_lane_of++] = l;
    return l;
}

gs_tl_lane *ch_thread_lane(chrome *c, int64_t pid, int64_t tid)
{
    gs_tl_lane *hit = lane_cached(c, ch_key2(pid, tid));
    if (hit)
        return hit;
    char nm[300];
    const char *tn = ch_strtab_get(&c->thread_names, ch_key2(pid, tid));
    if (tn && *tn)
        snprintf(nm, sizeof nm, "thread/%lld %s", (long long)tid, tn);
    else
        snprintf(nm, sizeof nm, "thread/%lld", (long long)tid);
    return lane_remember(c, ch_key2(pid, tid), imp_lane(&c->lanes, nm, GS_ROLE_THREAD, -1, -1));
}

typedef enum { EV_IGNORE, EV_KERNEL, EV_MEMCPY, EV_MEMSET, EV_API, EV_CPU_OP, EV_PY, EV_NVTX,
               EV_HOST } ev_class;

static ev_class classify(const char *cat)
{
    static const struct {
        const char *name;
        ev_class cls;
    } cats[] = {
        {"kernel", EV_KERNEL}, {"cuda_kernel", EV_KERNEL}, {"concurrent_kernel", EV_KERNEL},
        {"gpu_memcpy", EV_MEMCPY}, {"memcpy", EV_MEMCPY},
        {"gpu_memset", EV_MEMSET}, {"memset", EV_MEMSET},
        {"cuda_runtime", EV_API}, {"cuda_driver", EV_API}, {"runtime", EV_API},
        {"driver", EV_API},
        {"cpu_op", EV_CPU_OP}, {"operator", EV_CPU_OP},
        {"python_function", EV_PY}, {"python", EV_PY},
        {"user_annotation", EV_NVTX},
        {"gpu_user_annotation", EV_IGNORE}, {"cuda_sync", EV_IGNORE}, {"overhead", EV_IGNORE},
        {"trace", EV_IGNORE}, {"ac2g", EV_IGNORE}, {"fwdbwd", EV_IGNORE}, {"flow", EV_IGNORE},
        {"cpu_instant_event", EV_IGNORE},
    };
    if (!cat || !*cat)
        return EV_HOST;
    size_t n = strlen(cat);
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)   /* case-insensitive */
        if (n == strlen(cats[i].name) && (cat[0] | 0x20) == cats[i].name[0] &&
            !strcasecmp(cat, cats[i].name))
            return cats[i].cls;
    return EV_HOST;
}

/* The pass-1 index of thread (pid, tid), first seen first; -1 when out of memory. */
static int64_t p1_ref(chrome *c, int64_t pid, int64_t tid)
{
    int64_t i;
    if (gs_imap_get(&c->p1_idx, ch_key2(pid, tid), &i))
        return i;
    if (!gs_grow(&c->p1_pid, &c->cap_p1_pid, c->n_p1, sizeof *c->p1_pid, 16) ||
        !gs_grow(&c->p1_tid, &c->cap_p1_tid, c->n_p1, sizeof *c->p1_tid, 16) ||
        !gs_grow(&c->p1_lane, &c->cap_p1_lane, c->n_p1, sizeof *c->p1_lane, 16))
        return -1;
    if (!gs_imap_put(&c->p1_idx, ch_key2(pid, tid), (int64_t)c->n_p1))
        return -1;
    c->p1_pid[c->n_p1] = pid;
    c->p1_tid[c->n_p1] = tid;
    c->p1_lane[c->n_p1] = -1;
    return (int64_t)c->n_p1++;
}

/* The launching thread's lane of a pass-1 thread index (-1: none). */
static int64_t p1_lane_of(const chrome *c, int64_t idx)
{
    return idx >= 0 && (size_t)idx < c->n_p1 ? c->p1_lane[idx] : -1;
}

/* Pass 1: thread names, correlation -> thread, flows. */
void ch_kineto_index(chrome *c, const ev_fields *f)
{
    const char *ph = FSTR(f, F_PH);
    int64_t pid, tid;
    if (!ph || !FID(f, F_PID, &pid))
        return;
    int has_tid = FID(f, F_TID, &tid);
    if (!strcmp(ph, "M")) {
        const char *what = FSTR(f, F_NAME), *nm = FSTR(f, A_NAME);
        if (what && nm && has_tid && !strcmp(what, "thread_name")) {
            char clean[128];
            size_t k = 0;
            for (const char *p = nm; *p && k + 1 < sizeof clean; p++)
                clean[k++] = (unsigned char)*p < 0x20 ? ' ' : *p;
            clean[k] = '\0';
            /* Kineto names threads "thread 1234 (python)": keep the name only. */
            const char *par = strchr(clean, '(');
            char nmbuf[128];
            if (!strncmp(clean, "thread ", 7) && par) {
                snprintf(nmbuf, sizeof nmbuf, "%s", par + 1);
                char *q = strrchr(nmbuf, ')');
                if (q)
                    *q = '\0';
            } else {
                snprintf(nmbuf, sizeof nmbuf, "%s", clean);
            }
            if (!ch_strtab_put(&c->thread_names, ch_key2(pid, tid), nmbuf))
                c->oom = 1;
        }
        return;
    }
    if (!has_tid)
        return;
    const char *cat = FSTR(f, F_CAT);
    if (!strcmp(ph, "X") && classify(cat) == EV_API) {
        int64_t corr;
        if (ch_vint_r(f->v[A_CORR], &corr) == 1) {
            int64_t t = p1_ref(c, pid, tid);
            if (t < 0 || !gs_imap_put(&c->corr_lane, corr, t))
                c->oom = 1;
        }
        return;
    }
    if ((!strcmp(ph, "s") || !strcmp(ph, "f")) && ieq(cat, "ac2g")) {
        int64_t id, ts;
        if (ch_vint_r(f->v[F_ID], &id) != 1 || FUS(c, f, F_TS, &ts, -1) != 1)
            return;
        if (!strcmp(ph, "s")) {
            int64_t t = p1_ref(c, pid, tid);
            if (t < 0 || !gs_imap_put(&c->flow_src, id, t))
                c->oom = 1;
        } else if (!gs_imap_put(&c->flow_dst, ch_key3(pid, tid, ts), id)) {
            c->oom = 1;
        }
    }
}

static void copy_kind(const char *name, const char **kind, int *pageable)
{
    *kind = "d2d";
    *pageable = strstr(name, "Pageable") != NULL;
    const char *p = strstr(name, "Memcpy ");
    if (!p)
        return;
    p += 7;
    if (!strncmp(p, "HtoD", 4) || !strncmp(p, "HtoA", 4))
        *kind = "h2d";
    else if (!strncmp(p, "DtoH", 4) || !strncmp(p, "AtoH", 4))
        *kind = "d2h";
    else if (!strncmp(p, "HtoH", 4))
        *kind = "h2h";
    else if (!strncmp(p, "PtoP", 4))
        *kind = "p2p";
}

static void clip_name(char *out, size_t n, const char *prefix, const char *name)
{
    size_t k = (size_t)snprintf(out, n, "%s", prefix);
    for (const char *p = name; *p && k + 1 < n && k < 200; p++)
        out[k++] = (unsigned char)*p < 0x20 ? ' ' : *p;
    out[k < n ? k : n - 1] = '\0';
}

/* Appends "key=v" to a (room n; *k bytes so far), after a ';' unless it
 * is the first: what snprintf "%s%s=%lld" wrote, without its cost per
 * event. */
static void put_arg(char *a, size_t n, size_t *k, const char *key, int64_t v)
{
    char d[24];
    int nd = sizeof d;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        d[--nd] = (char)('0' + u % 10);
    while ((u /= 10));
    if (v < 0)
        d[--nd] = '-';
    size_t kl = strlen(key), dl = sizeof d - (size_t)nd;
    if (*k + 1 + kl + 1 + dl + 1 > n)
        return;   /* not reached: a holds a few numbers */
    if (*k)
        a[(*k)++] = ';';
    memcpy(a + *k, key, kl);
    *k += kl;
    a[(*k)++] = '=';
    memcpy(a + *k, d + nd, dl);
    *k += dl;
    a[*k] = '\0';
}

/* The span name of a CUDA API call ("cuda:" or "cuda_sync:" and the name
 * without its version suffix), once per distinct name (by its hash). */
static const char *api_span_name(chrome *c, const char *name, char *buf, size_t n)
{
    uint64_t h = gs_fnv1a(name);
    const char *known = ch_strtab_get(&c->api_names, (int64_t)h);
    if (known)
        return known;
    char api[128];
    imp_api_name(api, sizeof api, name);
    snprintf(buf, n, "%s%s", imp_api_is_sync(api) ? "cuda_sync:" : "cuda:", api);
    if (!ch_strtab_put(&c->api_names, (int64_t)h, buf))
        c->oom = 1;
    return buf;
}

/* Pass 2: spans. */
/* A complete event (X, or a B/E pair) with its start ts and dur in ns. */
static void kineto_complete(chrome *c, const ev_fields *f, int64_t ts, int64_t dur, long line)
{
    const char *cat = FSTR(f, F_CAT), *name = FSTR(f, F_NAME);
    ev_class cls = classify(cat);
    if (cls == EV_IGNORE) {
        c->rep->ignored++;
        return;
    }
    int64_t pid, tid;
    if (!name) {
        ch_skip(c, "complete event without a name", line);
        return;
    }
    if (!FID(f, F_PID, &pid) || !FID(f, F_TID, &tid)) {
        ch_skip(c, "complete event with a non-numeric pid or tid", line);
        return;
    }
    int64_t start, end;
    if (!ch_time_at(c, line, c->base_ns, ts, &start) || !ch_time_at(c, line, start, dur, &end))
        return;
    int64_t corr = -1;
    int has_corr = FVAL(c, f, A_CORR, -1, &corr, line);
    if (has_corr < 0)
        return;
    char sname[256], a[256];
    const char *sn = sname;
    if (cls == EV_KERNEL || cls == EV_MEMCPY || cls == EV_MEMSET) {
        int64_t dev = pid, stream = tid, launch = -1, bytes = -1, id;
        /* Kineto: pid = device, tid = stream, unless args say otherwise. */
        if (FVAL(c, f, A_DEVICE, -1, &dev, line) < 0 || FVAL(c, f, A_STREAM, -1, &stream, line) < 0 ||
            !ch_in_limits(c, line, GS_TLV_DEVICE, dev) || !ch_in_limits(c, line, GS_TLV_STREAM, stream))
            return;
        if (dev < 0) {
            ch_fail_line(c, line, "a device event needs a device >= 0:", name);
            return;
        }
        if (!(has_corr && gs_imap_get(&c->corr_lane, corr, &launch)) &&
            gs_imap_get(&c->flow_dst, ch_key3(pid, tid, ts), &id))
            gs_imap_get(&c->flow_src, id, &launch);
        launch = p1_lane_of(c, launch);
        int64_t dkey = ch_key2(dev ^ 0x5bd1e995, stream) ^ 0x27d4eb2f165667c5ll;
        gs_tl_lane *lane = lane_cached(c, dkey);
        if (!lane) {
            char ln[64];
            snprintf(ln, sizeof ln, "gpu%lld/stream%lld", (long long)dev, (long long)stream);
            lane = lane_remember(c, dkey, imp_lane(&c->lanes, ln, GS_ROLE_DEVICE, (int32_t)dev,
                                                   (int32_t)stream));
        }
        if (!lane) {
            c->oom = 1;
            return;
        }
        size_t k = 0;
        a[0] = '\0';
        gs_span_kind kind = GS_SPAN_COPY;
        if (cls == EV_KERNEL) {
            kind = GS_SPAN_KERNEL;
            /* Kernel names repeat: shortened once per distinct name (by its hash). */
            uint64_t h = gs_fnv1a(name);
            const char *shortn = ch_strtab_get(&c->kernel_names, (int64_t)h);
            if (shortn) {
                sn = shortn;
            } else {
                imp_kernel_name(sname, sizeof sname, name);
                if (!ch_strtab_put(&c->kernel_names, (int64_t)h, sname))
                    c->oom = 1;
            }
        } else {
            const char *ck = "memset";
            int pageable = 0;
            if (cls == EV_MEMCPY)
                copy_kind(name, &ck, &pageable);
            sn = ck;
            if (FVAL(c, f, A_BYTES, -1, &bytes, line) < 0)
                return;
            put_arg(a, sizeof a, &k, "bytes", bytes);
            put_arg(a, sizeof a, &k, "pageable", pageable);
        }
        if (has_corr)
            put_arg(a, sizeof a, &k, "corr", corr);
        if (launch >= 0)
            put_arg(a, sizeof a, &k, "launch_lane", launch);
        gs_tl_span(lane, kind, sn, -1, -1, start, end, 0, a);
        c->rep->used++;
        return;
    }
    gs_tl_lane *lane = ch_thread_lane(c, pid, tid);
    if (!lane) {
        c->oom = 1;
        return;
    }
    a[0] = '\0';
    switch (cls) {
    case EV_API: {
        sn = api_span_name(c, name, sname, sizeof sname);
        size_t k = 0;
        if (has_corr)
            put_arg(a, sizeof a, &k, "corr", corr);
        break;
    }
    case EV_CPU_OP: clip_name(sname, sizeof sname, "cpu_op:", name); break;
    case EV_PY: clip_name(sname, sizeof sname, "py:", name); break;
    case EV_NVTX: clip_name(sname, sizeof sname, "nvtx:", name); break;
    default: clip_name(sname, sizeof sname, "", name); break;
    }
    gs_tl_span(lane, GS_SPAN_STEP, sn, -1, -1, start, end, 0, a);
    c->rep->used++;
}

/* Pass 2: spans.  Returns 1 when it keeps ev (an open B event). */
int ch_kineto_event(chrome *c, const ev_fields *f, long line)
{
    const char *ph = FSTR(f, F_PH);
    int64_t ts, dur, pid, tid;
    if (!ph) {
        ch_skip(c, "event without ph", line);
        return 0;
    }
    if (!strcmp(ph, "X")) {
        int r1 = FUS(c, f, F_TS, &ts, line), r2 = FUS(c, f, F_DUR, &dur, line);
        if (r1 < 0 || r2 < 0)
            return 0;
        if (!r1 || !r2 || dur < 0) {
            ch_skip(c, "complete event without numeric ts and non-negative dur", line);
            return 0;
        }
        kineto_complete(c, f, ts, dur, line);
        return 0;
    }
    if (strcmp(ph, "B") && strcmp(ph, "E")) {
        c->rep->ignored++;   /* M, i, C, s, f, ...: nothing for the timeline */
        return 0;
    }
    int r = FUS(c, f, F_TS, &ts, line);
    if (r < 0)
        return 0;
    if (!r || !FID(f, F_PID, &pid) || !FID(f, F_TID, &tid)) {
        ch_skip(c, "B/E event without numeric ts, pid and tid", line);
        return 0;
    }
    int64_t key = ch_key2(pid, tid);
    if (!strcmp(ph, "B")) {
        if (!gs_grow(&c->open, &c->cap_open, c->n_open, sizeof *c->open, 16)) {
            c->oom = 1;
            return 0;
        }
        c->open[c->n_open++] = (open_ev){key, ts, line, NULL};   /* the caller keeps its tree */
        return 1;
    }
    for (size_t i = c->n_open; i > 0; i--)
        if (c->open[i - 1].key == key) {
            open_ev b = c->open[i - 1];
            memmove(&c->open[i - 1], &c->open[i], (c->n_open - i) * sizeof *c->open);
            c->n_open--;
            int64_t d;
            if (ts >= b.ts && !gs_tl_sub(&d, ts, b.ts))
                ch_fail_line(c, line, "time beyond +-2^63 ns from its B event in", "ts");
            else if (ts >= b.ts) {
                ev_fields bf;
                ch_fields_of_tree(&bf, b.ev);
                kineto_complete(c, &bf, b.ts, d, b.line);
            }
            else
                ch_skip(c, "E event before its B event", line);
            gs_json_free(b.ev);
            return 0;
        }
    ch_skip(c, "E event without a matching B event", line);
    return 0;
}
