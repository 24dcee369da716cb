/*
 * Chrome Trace Event JSON importer: torch.profiler / Kineto exports
 * (`export_chrome_trace`), Perfetto-style JSON, and gapscope's own
 * timeline.json.
 *
 * Reading.  The input is streamed, not parsed whole: a window onto the
 * file (imp_win.c: 8 MiB at a time, never the whole file) is walked with a
 * string-aware bracket scanner, the top level (object form with
 * "traceEvents", or the bare array form) and then each event, which is
 * parsed on its own with the project's JSON reader (common/json.h).  So
 * memory holds the span table and one window, a malformed event is
 * skipped (counted, with its line) without losing the rest, and a
 * truncated file (a profiler killed mid-write) imports every complete
 * event before the cut.
 *
 * Passes over the events: (1) the top level and, in the same walk, the
 * thread names (M events; gapscope's own thread_name events are kept as
 * text, few), the thread of every CUDA runtime/driver call by correlation
 * id and the ac2g flow ends, without opening lanes: whether the file is
 * gapscope's own (metadata.generator, written after the events) is known
 * only at the end; then the lanes of the threads it saw, in the order it
 * saw them; (2) spans, read again from the start of traceEvents.  Pass 1
 * reads only events that can matter to it: each event is cut 64 bytes at
 * a time (imp_cut.c) and read only when one of its strings is a word
 * pass 1 acts on.  Kineto writes GPU events with pid = device and
 * tid = stream, args device/stream/correlation; CPU events with pid/tid of
 * the process/thread; ts and dur in microseconds with up to 3 decimals,
 * relative to baseTimeNanoseconds in current versions (absolute in older
 * ones): both are read exactly to the nanosecond from the number text.
 *
 * Mapping (timeline/SPANS.md, "Foreign timelines"): cat kernel -> KERNEL on
 * gpu<dev>/stream<s> (args corr, launch_lane); gpu_memcpy -> COPY h2d/d2h/
 * d2d/h2h/p2p with bytes and pageable from "Memcpy HtoD (Pageable ->
 * Device)"; gpu_memset -> COPY memset; cuda_runtime / cuda_driver -> STEP
 * cuda:<api> or cuda_sync:<api> on thread/<tid>; cpu_op -> cpu_op:<name>;
 * python_function -> py:<name>; user_annotation -> nvtx:<name>; other
 * complete events on numeric pid/tid -> STEP <name> on the thread.  Older
 * Kineto category names (Kernel, Memcpy, Memset, Runtime, Operator,
 * Python) map the same way.  gpu_user_annotation, cuda_sync (device-side
 * sync records), overhead and trace spans carry no device work: ignored.
 *
 * gapscope's timeline.json (metadata.generator == "gapscope") maps back to
 * its lanes (roles from the lane names), kinds (cat), flags, holders and
 * args, in the writer's time base (metadata.t0_ns).
 */
#define _GNU_SOURCE   /* memmem */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../common/grow.h"
#include "../../common/hash.h"
#include "../../common/json.h"
#include "imp_internal.h"

/* ---- per-import state ----------------------------------------------------------- */

typedef struct strtab {
    gs_imap idx;            /* key -> index into s */
    char **s;
    size_t n, cap;
} strtab;

static int strtab_put(strtab *t, int64_t key, const char *v)
{
    int64_t i;
    char *c = strdup(v);
    if (!c)
        return 0;
    if (gs_imap_get(&t->idx, key, &i)) {
        free(t->s[i]);
        t->s[i] = c;
        return 1;
    }
    if (!gs_grow(&t->s, &t->cap, t->n, sizeof *t->s, 32)) {
        free(c);
        return 0;
    }
    t->s[t->n] = c;
    if (!gs_imap_put(&t->idx, key, (int64_t)t->n)) {
        free(c);
        return 0;
    }
    t->n++;
    return 1;
}

static const char *strtab_get(const strtab *t, int64_t key)
{
    int64_t i;
    return gs_imap_get(&t->idx, key, &i) ? t->s[i] : NULL;
}

static void strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    gs_imap_free(&t->idx);
}

typedef struct open_ev {
    int64_t key;             /* key2(pid, tid) */
    int64_t ts;
    long line;
    gs_json *ev;             /* owned */
} open_ev;

typedef struct chrome {
    gs_timeline *tl;
    gs_import_report *rep;
    const char *name;
    gs_err *err;
    imp_lanes lanes;
    int own;                 /* gapscope's timeline.json */
    int64_t base_ns;         /* added to every ts */
    strtab thread_names;     /* key(pid, tid) -> name */
    gs_imap corr_lane;      /* correlation -> pass-1 thread (index into p1_*) */
    gs_imap flow_src;       /* ac2g flow id -> pass-1 thread */
    gs_imap p1_idx;         /* key2(pid, tid) -> pass-1 thread */
    int64_t *p1_pid, *p1_tid;
    int64_t *p1_lane;        /* lane id of each pass-1 thread, once opened */
    size_t n_p1, cap_p1_pid, cap_p1_tid, cap_p1_lane;
    gs_arena arena;          /* the event being read (the tree reader) */
    imp_scan_level scan_top, scan_args;   /* the field scan's keys (ev_fields) */
    imp_cut_words p1_words;  /* strings that make an event matter to pass 1 */
    char *scratch;           /* the field scan's values, NUL-terminated */
    size_t cap_scratch;
    int tree_only;           /* GS_IMPORT_JSON_TREE set: every event through the tree reader */
    gs_imap lane_idx;       /* lane key -> index into lane_of */
    gs_tl_lane **lane_of;
    size_t n_lane_of, cap_lane_of;
    strtab kernel_names;     /* hash of a kernel's full name -> its span name */
    strtab api_names;        /* hash of a CUDA API call's name -> its span name */
    char **mtext;            /* thread_name M events, as text (gapscope's own format) */
    long *mline;
    size_t n_m, cap_mtext, cap_mline;
    gs_imap flow_dst;       /* key(pid, tid, ts) -> flow id */
    /* gapscope's own format */
    gs_imap own_lane;       /* tid -> lane id */
    gs_tl_lane **own_lanes;  /* by lane id (of this import) */
    int32_t *own_ids;
    size_t n_own, cap_own_lanes, cap_own_ids;
    gs_imap own_tid;        /* tid -> index into own_lanes (holder_lane) */
    open_ev *open;           /* B events waiting for their E */
    size_t n_open, cap_open;
    int oom;
    int failed;              /* a value outside timeline/limits.h: err is set */
} chrome;

static int64_t key2(int64_t pid, int64_t tid)
{
    return (int64_t)((uint64_t)pid * 0x100000001b3ull ^ (uint64_t)tid * 0x9e3779b97f4a7c15ull);
}

static int64_t key3(int64_t pid, int64_t tid, int64_t ts)
{
    return key2(key2(pid, tid), ts);
}

static void skip(chrome *c, const char *reason, long line)
{
    char where[600];
    imp_where_line(where, sizeof where, c->name, line);
    gs_import_skip(c->rep, reason, where);
}

/* ---- field access ------------------------------------------------------------------ */

/* A member's value as the readers below need it: its GS_JSON_* type (-1
 * absent) and text (strings decoded, numbers as written; else NULL).  It
 * comes from a parsed tree (jget) or from the field scan (ev_fields). */
typedef struct {
    int type;
    const char *text;
} jv;

static jv jget(const gs_json *o, const char *k)
{
    const gs_json *v = gs_json_get(o, k);
    return v ? (jv){(int)v->type, v->text} : (jv){-1, NULL};
}

static const char *vstr(jv v)
{
    return v.type == GS_JSON_STRING ? v.text : NULL;
}

/* An integer (number, or a string holding one): 1 read, 0 absent or not
 * an integer, -1 an integer beyond int64 (strtoll would saturate). */
static int vint_r(jv v, int64_t *out)
{
    if ((v.type != GS_JSON_NUMBER && v.type != GS_JSON_STRING) || !v.text)
        return 0;
    char *e;
    errno = 0;
    long long x = strtoll(v.text, &e, 10);
    if (e == v.text || *e)
        return 0;
    if (errno == ERANGE)
        return -1;
    *out = x;
    return 1;
}

static const char *jstr(const gs_json *o, const char *k)
{
    return vstr(jget(o, k));
}

static int jint(const gs_json *o, const char *k, int64_t *out)
{
    return vint_r(jget(o, k), out) == 1;
}

/* A value outside timeline/limits.h at line: the import fails (exit 2). */
static int in_limits(chrome *c, long line, gs_tl_value v, int64_t x)
{
    if (gs_tl_in_range(v, x))
        return 1;
    if (!c->failed) {
        char where[600];
        imp_where_line(where, sizeof where, c->name, line);
        gs_tl_check(c->err, "import chrome", where, v, x);
        c->failed = 1;
    }
    return 0;
}

static void fail_line(chrome *c, long line, const char *what, const char *key)
{
    if (c->failed)
        return;
    char where[600];
    imp_where_line(where, sizeof where, c->name, line);
    gs_err_set(c->err, GS_ERR_FORMAT, "import chrome", where, "%s \"%s\"", what, key);
    c->failed = 1;
}

/* A number member that gapscope's writer put in args (a string member of
 * the same name is one of the span's own args, not the writer's). */
static int jown(const gs_json *args, const char *k, int64_t *out)
{
    jv v = jget(args, k);
    return v.type == GS_JSON_NUMBER && vint_r(v, out) == 1;
}

/* An integer member k that feeds the timeline: 1 read (and in lim's range
 * when lim >= 0), 0 absent or not an integer, -1 out of range (the import
 * fails).  One check per field, as timeline/limits.h asks. */
static int vval(chrome *c, jv v, const char *k, int lim, int64_t *out, long line)
{
    int64_t x;
    int r = vint_r(v, &x);
    if (r < 0) {
        fail_line(c, line, "integer beyond 64 bits in", k);
        return -1;
    }
    if (!r)
        return 0;
    if (lim >= 0 && !in_limits(c, line, (gs_tl_value)lim, x))
        return -1;
    *out = x;
    return 1;
}

static int jval(chrome *c, const gs_json *o, const char *k, int lim, int64_t *out, long line)
{
    return vval(c, jget(o, k), k, lim, out, line);
}

/* pid/tid: a number, or a string ending in one ("stream 7" as some
 * exporters write device tracks). */
static int vid(jv v, int64_t *out)
{
    if (vint_r(v, out) == 1)
        return 1;
    if (v.type != GS_JSON_STRING || !v.text)
        return 0;
    size_t n = strlen(v.text);
    size_t i = n;
    while (i > 0 && isdigit((unsigned char)v.text[i - 1]))
        i--;
    if (i == n || n - i > 12)
        return 0;
    *out = strtoll(v.text + i, NULL, 10);
    return 1;
}

/* A time in microseconds as ns: 1 read, 0 absent or not a number, -1
 * beyond the range a time or a difference of two times can take (the
 * import fails when line >= 0). */
static int vus(chrome *c, jv v, const char *k, int64_t *out, long line)
{
    if (v.type != GS_JSON_NUMBER || !v.text)
        return 0;
    int r = imp_us_to_ns(v.text, out);
    if (r < 0 && line >= 0)
        fail_line(c, line, "time beyond +-2^63 ns in", k);
    return r;
}

static int jus(chrome *c, const gs_json *o, const char *k, int64_t *out, long line)
{
    return vus(c, jget(o, k), k, out, line);
}

/* The members a Kineto/Perfetto event is read by: from the field scan
 * (imp_scan.c) or, for an event the scan leaves to the tree reader, from
 * its tree (fields_of_tree). */
enum { F_PH, F_NAME, F_CAT, F_PID, F_TID, F_TS, F_DUR, F_ID, F_ARGS, F_TOP,
       A_NAME = F_TOP, A_CORR, A_DEVICE, A_STREAM, A_BYTES, F_ALL };
static const char *const field_key[F_ALL] = {
    "ph", "name", "cat", "pid", "tid", "ts", "dur", "id", "args",
    "name", "correlation", "device", "stream", "bytes"};
typedef struct {
    jv v[F_ALL];
} ev_fields;

static void fields_of_tree(ev_fields *f, const gs_json *ev)
{
    for (int i = 0; i < F_TOP; i++)
        f->v[i] = jget(ev, field_key[i]);
    const gs_json *args = gs_json_get(ev, "args");
    for (int i = F_TOP; i < F_ALL; i++)
        f->v[i] = jget(args, field_key[i]);
}

#define FSTR(f, i) vstr((f)->v[i])
#define FVAL(c, f, i, lim, out, line) vval(c, (f)->v[i], field_key[i], lim, out, line)
#define FUS(c, f, i, out, line) vus(c, (f)->v[i], field_key[i], out, line)
#define FID(f, i, out) vid((f)->v[i], out)

/* base + t (+ d) as a time in range; 0 (the import fails) otherwise. */
static int time_at(chrome *c, long line, int64_t base, int64_t t, int64_t *out)
{
    if (gs_tl_time_add(out, base, t))
        return 1;
    if (!c->failed) {
        char where[600];
        imp_where_line(where, sizeof where, c->name, line);
        gs_err_set(c->err, GS_ERR_FORMAT, "import chrome", where,
                   "time %lld + %lld ns is outside +-(2^62 - 1) ns (timeline/limits.h)",
                   (long long)base, (long long)t);
        c->failed = 1;
    }
    return 0;
}

static int ieq(const char *a, const char *b)
{
    return a && !strcasecmp(a, b);
}

/* ---- gapscope's own timeline.json --------------------------------------------------- */

static gs_role role_of_name(const char *n, const char **device)
{
    *device = NULL;
    if (!strncmp(n, "driver", 6))
        return GS_ROLE_DRIVER;
    if (!strncmp(n, "synth/", 6))
        return GS_ROLE_SYNTH;
    if (!strncmp(n, "gpu_worker/", 11)) {
        *device = n + 11;
        return GS_ROLE_GPU_WORKER;
    }
    if (!strncmp(n, "finalizer/", 10))
        return GS_ROLE_FINALIZER;
    if (!strncmp(n, "background/", 11))
        return GS_ROLE_BACKGROUND;
    if (!strncmp(n, "thread/", 7))
        return GS_ROLE_THREAD;
    return GS_ROLE_OTHER;
}

/* The leading integer of text (as older timeline.json lane names carry a
 * device or stream number); def when there is none. */
static int64_t lead_int(const char *text, int64_t def)
{
    if (!text || !isdigit((unsigned char)*text))
        return def;
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    return errno == ERANGE ? INT64_MAX : v;
}

/* A thread_name M event: one lane.  Files written since timeline/limits.h
 * carry the lane's role, device and stream in args; older ones are read
 * from the lane name and the track (pid >= 100: GPU pid - 100). */
static void own_lane_open(chrome *c, const gs_json *ev, long line)
{
    int64_t pid, tid;
    const gs_json *args = gs_json_get(ev, "args");
    const char *nm = jstr(args, "name"), *rn = jstr(args, "role");
    if (!jint(ev, "pid", &pid) || !jint(ev, "tid", &tid) || !nm)
        return;
    int64_t have;
    if (gs_imap_get(&c->own_lane, key2(pid, tid), &have))
        return;
    gs_role role;
    int64_t dev = -1, stream = -1;
    if (rn && gs_role_from_name(&role, rn)) {
        if (jval(c, args, "device", GS_TLV_DEVICE, &dev, line) < 0 ||
            jval(c, args, "stream", GS_TLV_STREAM, &stream, line) < 0)
            return;
    } else if (pid >= 100) {
        role = GS_ROLE_DEVICE;
        dev = pid - 100;
        const char *st = strstr(nm, "/stream");
        stream = st ? lead_int(st + 7, tid) : tid;
    } else {
        const char *d;
        role = role_of_name(nm, &d);
        dev = lead_int(d, -1);
    }
    if (!in_limits(c, line, GS_TLV_DEVICE, dev) || !in_limits(c, line, GS_TLV_STREAM, stream))
        return;
    if (role == GS_ROLE_DEVICE && dev < 0) {
        fail_line(c, line, "a device lane without a device >= 0:", nm);
        return;
    }
    gs_tl_lane *l = gs_tl_lane_open(c->tl, nm, role, (int32_t)dev, (int32_t)stream);
    if (!gs_grow(&c->own_lanes, &c->cap_own_lanes, c->n_own, sizeof *c->own_lanes, 32) ||
        !gs_grow(&c->own_ids, &c->cap_own_ids, c->n_own, sizeof *c->own_ids, 32)) {
        c->oom = 1;
        return;
    }
    if (!l || !gs_imap_put(&c->own_lane, key2(pid, tid), (int64_t)c->n_own) ||
        !gs_imap_put(&c->own_tid, tid, (int64_t)c->n_own)) {
        c->oom = 1;
        return;
    }
    c->own_ids[c->n_own] = gs_tl_lane_id(l);
    c->own_lanes[c->n_own++] = l;
}

static int own_key(const char *k)
{
    static const char *const keys[] = {"job", "part", "flags", "holder", "holder_lane",
                                       "value", "cpu_ns", "gs_args"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(k, keys[i]))
            return 1;
    return 0;
}

/* The span's args: the writer's verbatim "gs_args" when it wrote one (args
 * its members cannot carry exactly), else the members other than its own
 * keys as "k=v;k=v".  malloc'd; NULL when out of memory. */
static char *own_args(const gs_json *args)
{
    const char *raw = jstr(args, "gs_args");
    if (raw)
        return strdup(raw);
    size_t n = 1;
    for (size_t i = 0; args && args->type == GS_JSON_OBJECT && i < args->n; i++)
        if (!own_key(args->keys[i]) && args->items[i].text)
            n += strlen(args->keys[i]) + strlen(args->items[i].text) + 2;
    char *out = malloc(n);
    if (!out)
        return NULL;
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; args && args->type == GS_JSON_OBJECT && i < args->n; i++) {
        const char *key = args->keys[i], *v = args->items[i].text;
        if (own_key(key) || !v)
            continue;
        k += (size_t)snprintf(out + k, n - k, "%s%s=%s", k ? ";" : "", key, v);
    }
    return out;
}

/* A finite number in args (or 0 when absent); 0 returned: the import fails. */
static int own_value(chrome *c, const gs_json *args, double *out, long line)
{
    const gs_json *v = gs_json_get(args, "value");
    *out = 0;
    if (!v || v->type != GS_JSON_NUMBER)
        return 1;
    if (!gs_tl_value_ok(v->number)) {
        fail_line(c, line, "a value that is not a finite number in", "value");
        return 0;
    }
    *out = v->number;
    return 1;
}

static void own_event(chrome *c, const gs_json *ev, long line)
{
    const char *ph = jstr(ev, "ph"), *name = jstr(ev, "name");
    if (!ph || !strcmp(ph, "M") || !strcmp(ph, "s") || !strcmp(ph, "f")) {
        c->rep->ignored++;
        return;
    }
    int64_t pid, tid, ts, dur = 0, li, x;
    if (!jint(ev, "pid", &pid) || !jint(ev, "tid", &tid) ||
        !gs_imap_get(&c->own_lane, key2(pid, tid), &li)) {
        skip(c, "event on a track with no thread_name", line);
        return;
    }
    int r = jus(c, ev, "ts", &ts, line);
    if (r < 0)
        return;
    if (!name || !r) {
        skip(c, "event without name or numeric ts", line);
        return;
    }
    if (!time_at(c, line, c->base_ns, ts, &ts))
        return;
    gs_tl_lane *lane = c->own_lanes[li];
    const gs_json *args = gs_json_get(ev, "args");
    gs_span s = {.start_ns = ts, .end_ns = ts, .holder = -1, .job = -1, .part = -1,
                 .kind = GS_SPAN_COUNTER, .name = name, .args = ""};
    if (!own_value(c, args, &s.value, line))
        return;
    if (strcmp(ph, "C")) {
        int64_t job = -1, part = -1, flags = 0, cpu = 0;
        if (jval(c, args, "job", GS_TLV_JOB, &job, line) < 0 ||
            jval(c, args, "part", GS_TLV_PART, &part, line) < 0 ||
            jval(c, args, "flags", GS_TLV_FLAGS, &flags, line) < 0 ||
            (jown(args, "cpu_ns", &x) && jval(c, args, "cpu_ns", GS_TLV_COUNT, &cpu, line) < 0))
            return;
        s.job = (int32_t)job;
        s.part = (int32_t)part;
        s.flags = (uint16_t)flags;
        s.cpu_ns = cpu;
        /* The holder: by track (holder_lane, the writer's lane id), else by
         * name (files from before holder_lane; names of one run are unique). */
        const char *hn = jstr(args, "holder");
        if (jown(args, "holder_lane", &x) && x < INT64_MAX &&
            gs_imap_get(&c->own_tid, x + 1, &li)) {
            s.holder = c->own_ids[li];
        } else {
            for (size_t i = 0; hn && i < c->n_own && s.holder < 0; i++) {
                const gs_lane_info *hi = gs_timeline_lane(c->tl, c->own_ids[i]);
                if (hi && !strcmp(hi->name, hn))
                    s.holder = c->own_ids[i];
            }
        }
        if (!strcmp(ph, "i") || !strcmp(ph, "I")) {
            s.kind = GS_SPAN_MARK;
        } else {
            if (strcmp(ph, "X") || (r = jus(c, ev, "dur", &dur, line)) <= 0 || dur < 0) {
                if (r >= 0)
                    skip(c, "complete event without a non-negative dur", line);
                return;
            }
            if (!time_at(c, line, ts, dur, &s.end_ns))
                return;
            char cat[64];
            const char *ct = jstr(ev, "cat");
            snprintf(cat, sizeof cat, "%s", ct ? ct : "step");
            char *comma = strchr(cat, ',');
            if (comma)
                *comma = '\0';
            gs_span_kind kind;
            if (!gs_span_kind_from_name(&kind, cat)) {
                skip(c, "unknown span kind in cat", line);
                return;
            }
            s.kind = (uint16_t)kind;
        }
    }
    char *a = s.kind == GS_SPAN_COUNTER ? strdup("") : own_args(args);
    if (!a) {
        c->oom = 1;
        return;
    }
    s.args = a;
    const char *why = gs_span_invalid(c->tl, &s);
    if (why)
        fail_line(c, line, why, name);
    else {
        gs_tl_span_full(lane, &s);
        c->rep->used++;
    }
    free(a);
}

/* ---- Kineto / generic ---------------------------------------------------------------- */

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

static gs_tl_lane *thread_lane(chrome *c, int64_t pid, int64_t tid)
{
    gs_tl_lane *hit = lane_cached(c, key2(pid, tid));
    if (hit)
        return hit;
    char nm[300];
    const char *tn = strtab_get(&c->thread_names, key2(pid, tid));
    if (tn && *tn)
        snprintf(nm, sizeof nm, "thread/%lld %s", (long long)tid, tn);
    else
        snprintf(nm, sizeof nm, "thread/%lld", (long long)tid);
    return lane_remember(c, key2(pid, tid), imp_lane(&c->lanes, nm, GS_ROLE_THREAD, -1, -1));
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
    if (gs_imap_get(&c->p1_idx, key2(pid, tid), &i))
        return i;
    if (!gs_grow(&c->p1_pid, &c->cap_p1_pid, c->n_p1, sizeof *c->p1_pid, 16) ||
        !gs_grow(&c->p1_tid, &c->cap_p1_tid, c->n_p1, sizeof *c->p1_tid, 16) ||
        !gs_grow(&c->p1_lane, &c->cap_p1_lane, c->n_p1, sizeof *c->p1_lane, 16))
        return -1;
    if (!gs_imap_put(&c->p1_idx, key2(pid, tid), (int64_t)c->n_p1))
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
static void kineto_index(chrome *c, const ev_fields *f)
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
            if (!strtab_put(&c->thread_names, key2(pid, tid), nmbuf))
                c->oom = 1;
        }
        return;
    }
    if (!has_tid)
        return;
    const char *cat = FSTR(f, F_CAT);
    if (!strcmp(ph, "X") && classify(cat) == EV_API) {
        int64_t corr;
        if (vint_r(f->v[A_CORR], &corr) == 1) {
            int64_t t = p1_ref(c, pid, tid);
            if (t < 0 || !gs_imap_put(&c->corr_lane, corr, t))
                c->oom = 1;
        }
        return;
    }
    if ((!strcmp(ph, "s") || !strcmp(ph, "f")) && ieq(cat, "ac2g")) {
        int64_t id, ts;
        if (vint_r(f->v[F_ID], &id) != 1 || FUS(c, f, F_TS, &ts, -1) != 1)
            return;
        if (!strcmp(ph, "s")) {
            int64_t t = p1_ref(c, pid, tid);
            if (t < 0 || !gs_imap_put(&c->flow_src, id, t))
                c->oom = 1;
        } else if (!gs_imap_put(&c->flow_dst, key3(pid, tid, ts), id)) {
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
    const char *known = strtab_get(&c->api_names, (int64_t)h);
    if (known)
        return known;
    char api[128];
    imp_api_name(api, sizeof api, name);
    snprintf(buf, n, "%s%s", imp_api_is_sync(api) ? "cuda_sync:" : "cuda:", api);
    if (!strtab_put(&c->api_names, (int64_t)h, buf))
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
        skip(c, "complete event without a name", line);
        return;
    }
    if (!FID(f, F_PID, &pid) || !FID(f, F_TID, &tid)) {
        skip(c, "complete event with a non-numeric pid or tid", line);
        return;
    }
    int64_t start, end;
    if (!time_at(c, line, c->base_ns, ts, &start) || !time_at(c, line, start, dur, &end))
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
            !in_limits(c, line, GS_TLV_DEVICE, dev) || !in_limits(c, line, GS_TLV_STREAM, stream))
            return;
        if (dev < 0) {
            fail_line(c, line, "a device event needs a device >= 0:", name);
            return;
        }
        if (!(has_corr && gs_imap_get(&c->corr_lane, corr, &launch)) &&
            gs_imap_get(&c->flow_dst, key3(pid, tid, ts), &id))
            gs_imap_get(&c->flow_src, id, &launch);
        launch = p1_lane_of(c, launch);
        int64_t dkey = key2(dev ^ 0x5bd1e995, stream) ^ 0x27d4eb2f165667c5ll;
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
            const char *shortn = strtab_get(&c->kernel_names, (int64_t)h);
            if (shortn) {
                sn = shortn;
            } else {
                imp_kernel_name(sname, sizeof sname, name);
                if (!strtab_put(&c->kernel_names, (int64_t)h, sname))
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
    gs_tl_lane *lane = thread_lane(c, pid, tid);
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
static int kineto_event(chrome *c, const ev_fields *f, long line)
{
    const char *ph = FSTR(f, F_PH);
    int64_t ts, dur, pid, tid;
    if (!ph) {
        skip(c, "event without ph", line);
        return 0;
    }
    if (!strcmp(ph, "X")) {
        int r1 = FUS(c, f, F_TS, &ts, line), r2 = FUS(c, f, F_DUR, &dur, line);
        if (r1 < 0 || r2 < 0)
            return 0;
        if (!r1 || !r2 || dur < 0) {
            skip(c, "complete event without numeric ts and non-negative dur", line);
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
        skip(c, "B/E event without numeric ts, pid and tid", line);
        return 0;
    }
    int64_t key = key2(pid, tid);
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
                fail_line(c, line, "time beyond +-2^63 ns from its B event in", "ts");
            else if (ts >= b.ts) {
                ev_fields bf;
                fields_of_tree(&bf, b.ev);
                kineto_complete(c, &bf, b.ts, d, b.line);
            }
            else
                skip(c, "E event before its B event", line);
            gs_json_free(b.ev);
            return 0;
        }
    skip(c, "E event without a matching B event", line);
    return 0;
}

/* ---- driver -------------------------------------------------------------------------- */

/* A thread_name M event kept as text for gapscope's own format. */
static void keep_mtext(chrome *c, const char *st, size_t n, long line)
{
    if (!gs_grow(&c->mtext, &c->cap_mtext, c->n_m, sizeof *c->mtext, 32) ||
        !gs_grow(&c->mline, &c->cap_mline, c->n_m, sizeof *c->mline, 32)) {
        c->oom = 1;
        return;
    }
    char *t = strndup(st, n);
    if (!t) {
        c->oom = 1;
        return;
    }
    c->mtext[c->n_m] = t;
    c->mline[c->n_m++] = line;
}

/* Pass 1 parses an event only when its text can hold something it
 * indexes: an M event ("M"), a runtime/driver call (cat runtime, driver,
 * any case), an ac2g flow end.  One pass over the bytes. */
static int maybe_indexed(const char *st, size_t n)
{
    for (const char *p = st, *e = st + n; p < e; p++) {
        switch (*p) {
        case 'M':
            if (p > st && p + 1 < e && p[-1] == '"' && p[1] == '"')
                return 1;
            break;
        case 'u': case 'U':
            if (e - p >= 6 && !strncasecmp(p, "untime", 6))
                return 1;
            break;
        case 'r': case 'R':
            if (e - p >= 5 && !strncasecmp(p, "river", 5))
                return 1;
            break;
        case '2':
            if (p > st && e - p >= 2 && (p[-1] | 0x20) == 'c' && (p[1] | 0x20) == 'g')
                return 1;
            break;
        default:
            break;
        }
    }
    return 0;
}

static void index_event(chrome *c, const ev_fields *f, const char *st, size_t n, long line)
{
    const char *ph = FSTR(f, F_PH), *what = FSTR(f, F_NAME);
    if (ph && what && !strcmp(ph, "M") && !strcmp(what, "thread_name"))
        keep_mtext(c, st, n, line);
    kineto_index(c, f);
}

static gs_json *parse_slice(chrome *c, const char *st, size_t n);

/* An event's fields (the text st[0, n) at line) in the pass's handler;
 * gapscope's own events (pass 2) go through own_event with their tree. */
static void apply_fields(chrome *c, const ev_fields *f, const char *st, size_t n, long line,
                         int pass)
{
    if (pass == 1) {
        index_event(c, f, st, n, line);
    } else if (kineto_event(c, f, line)) {
        /* a B event, kept until its E event: its own tree, off the arena */
        gs_json *keep = parse_slice(c, st, n);
        c->open[c->n_open - 1].ev = keep;
        if (!keep)
            c->n_open--;
    }
}

/* One parsed event (ev NULL: not JSON) in the pass's handler. */
static void apply_event(chrome *c, gs_json *ev, const char *st, size_t n, long line, int pass)
{
    if (!ev || ev->type != GS_JSON_OBJECT) {
        if (pass == 2)
            skip(c, "malformed event (not a JSON object)", line);
    } else if (pass == 2 && c->own) {
        own_event(c, ev, line);
    } else {
        ev_fields f;
        fields_of_tree(&f, ev);
        apply_fields(c, &f, st, n, line, pass);
    }
}

/* The field scan's values as NUL-terminated text in c->scratch; 0 when out
 * of memory. */
static int fields_of_scan(chrome *c, ev_fields *f, const imp_sval *sv)
{
    size_t need = 0;
    for (int i = 0; i < F_ALL; i++)
        need += sv[i].type == GS_JSON_STRING || sv[i].type == GS_JSON_NUMBER ? sv[i].n + 1 : 0;
    if (need > c->cap_scratch) {
        size_t cap = need * 2 > 4096 ? need * 2 : 4096;
        char *ns = realloc(c->scratch, cap);
        if (!ns)
            return 0;
        c->scratch = ns;
        c->cap_scratch = cap;
    }
    char *o = c->scratch;
    for (int i = 0; i < F_ALL; i++) {
        f->v[i] = (jv){sv[i].type, NULL};
        if (sv[i].type != GS_JSON_STRING && sv[i].type != GS_JSON_NUMBER)
            continue;
        memcpy(o, sv[i].s, sv[i].n);
        o[sv[i].n] = '\0';
        f->v[i].text = o;
        o += sv[i].n + 1;
    }
    return 1;
}

/* The event object at the window's position read by the field scan (the
 * window refilled while it runs past its end): 1 with its fields, its
 * text and line, consumed; 0 (nothing consumed) when the scan leaves it
 * to the tree reader. */
static int scan_in_place(chrome *c, imp_win *w, ev_fields *f, const char **st, size_t *n,
                         long *line)
{
    imp_sval sv[F_ALL];
    for (;;) {
        size_t used;
        long lines;
        int r = imp_scan_object(sv, &c->scan_top, w->s, w->end, &used, &lines);
        if (r == IMP_SCAN_OK) {
            if (!fields_of_scan(c, f, sv)) {
                c->oom = 1;
                return 0;
            }
            *st = w->s;
            *n = used;
            *line = w->line;
            w->line += lines;
            w->s += used;
            return 1;
        }
        if (r == IMP_SCAN_SLOW || !imp_win_fill(w, w->s))
            return 0;
    }
}

/* Pass 2's fast path: the object at the window's position parsed where it
 * lies (no separate scan to cut it), the window refilled while the object
 * runs past its end.  0 (nothing consumed) when it does not parse: the
 * caller cuts the value and reports it as usual. */
static int parse_in_place(chrome *c, imp_win *w, gs_json **ev, const char **st, size_t *n,
                          long *line)
{
    gs_err perr;
    for (;;) {
        size_t used;
        int lines, short_input;
        gs_err_clear(&perr);
        gs_arena_reset(&c->arena);
        if (gs_json_parse_prefix_in(&c->arena, ev, w->s, (size_t)(w->end - w->s), c->name, &perr,
                                    &used, &lines, &short_input) == GS_OK) {
            *st = w->s;
            *n = used;
            *line = w->line;
            w->line += lines;
            w->s += used;
            return 1;
        }
        if (perr.status == GS_ERR_NOMEM || !short_input || !imp_win_fill(w, w->s))
            return 0;
    }
}

/* The event st[0, n) read by the tree reader (into the arena) and given
 * to the pass's handler; not JSON: ev NULL. */
static void tree_event(chrome *c, const char *st, size_t n, long line, int pass)
{
    gs_err perr;
    gs_json *ev = NULL;
    gs_err_clear(&perr);
    gs_arena_reset(&c->arena);
    if (gs_json_parse_in(&c->arena, &ev, st, n, c->name, &perr) != GS_OK)
        ev = NULL;
    if (perr.status == GS_ERR_NOMEM)
        c->oom = 1;
    else
        apply_event(c, ev, st, n, line, pass);
}

/* Pass 1's fast path: the object at the window's position cut (imp_cut.c,
 * the window refilled while it runs past its end) and read only when one
 * of its strings is a word pass 1 acts on: "M" (ph), a runtime/driver
 * category or "ac2g" (kineto_index needs one of them; a backslash, which
 * may spell one, also counts).  1 with *hit, its text and line, consumed;
 * 0 (nothing consumed) at the end of the input. */
static int cut_in_place(chrome *c, imp_win *w, int *hit, const char **st, size_t *n, long *line)
{
    for (;;) {
        size_t used;
        long lines;
        if (imp_cut_value(w->s, w->end, &c->p1_words, &used, &lines, hit)) {
            *st = w->s;
            *n = used;
            *line = w->line;
            w->line += lines;
            w->s += used;
            return 1;
        }
        if (!imp_win_fill(w, w->s))
            return 0;
    }
}

/* A cut event pass 1 may act on, read as the walk reads it: by the field
 * scan, else (what the scan leaves to it) by the tree reader. */
static void index_cut(chrome *c, const char *st, size_t n, long line)
{
    imp_sval sv[F_ALL];
    ev_fields f;
    size_t used;
    long lines;
    if (imp_scan_object(sv, &c->scan_top, st, st + n, &used, &lines) == IMP_SCAN_OK) {
        if (!fields_of_scan(c, &f, sv))
            c->oom = 1;
        else
            apply_fields(c, &f, st, n, line, 1);
        return;
    }
    if (maybe_indexed(st, n))
        tree_event(c, st, n, line, 1);
}

/* Walks the events of the array whose '[' was consumed, calling the pass's
 * handler for each parsed event; stops at ']' (not consumed) or at the end
 * of the input (a truncated file; reported once, in the last pass). */
static void walk_events(chrome *c, imp_win *w, int pass, int report_cut)
{
    for (;;) {
        int ch = imp_win_ws(w);
        if (ch < 0) {
            if (report_cut)
                skip(c, "file ends inside traceEvents (truncated; events before the cut were imported)",
                     w->line);
            return;
        }
        if (ch == ']')
            return;
        const char *st;
        size_t n;
        long line;
        gs_json *ev = NULL;
        ev_fields f;
        int hit;
        if (pass == 1 && ch == '{' && !c->tree_only && cut_in_place(c, w, &hit, &st, &n, &line)) {
            if (hit)
                index_cut(c, st, n, line);
            goto next;
        }
        if (ch == '{' && !c->tree_only && !(pass == 2 && c->own) &&
            scan_in_place(c, w, &f, &st, &n, &line)) {
            apply_fields(c, &f, st, n, line, pass);
            goto next;
        }
        if (c->oom)
            return;
        if (pass == 2 && ch == '{' && parse_in_place(c, w, &ev, &st, &n, &line)) {
            apply_event(c, ev, st, n, line, pass);
            goto next;
        }
        if (!imp_win_value(w, &st, &n, &line)) {
            if (report_cut)
                skip(c, w->too_big ? "event larger than 1 GiB (rest of the file skipped)"
                                   : "truncated event at the end of the file", w->line);
            c->oom |= w->oom;
            return;
        }
        if (pass == 2 || maybe_indexed(st, n))   /* else nothing for pass 1 */
            tree_event(c, st, n, line, pass);
    next:
        if (c->oom || c->failed)
            return;
        ch = imp_win_ws(w);
        if (ch == ',') {
            w->s++;
            continue;
        }
        if (ch == ']' || ch < 0)
            continue;   /* the end, or the cut reported above */
        if (report_cut)
            skip(c, "expected ',' or ']' after an event (rest of traceEvents skipped)", w->line);
        return;
    }
}

static gs_status fail_at(chrome *c, long line, const char *what)
{
    char where[600];
    imp_where_line(where, sizeof where, c->name, line);
    return gs_err_set(c->err, GS_ERR_FORMAT, "import chrome", where, "%s", what);
}

/* baseTimeNanoseconds (Kineto) or metadata.t0_ns (gapscope): an integer
 * time in timeline/limits.h's range, added to every ts.  0: the import
 * fails (c->failed). */
static int base_time(chrome *c, const char *text, long line)
{
    char *e;
    errno = 0;
    long long v = text ? strtoll(text, &e, 10) : 0;
    if (!text || e == text || *e || errno == ERANGE) {
        fail_line(c, line, "expected an integer number of ns in", "baseTimeNanoseconds/t0_ns");
        return 0;
    }
    if (!in_limits(c, line, GS_TLV_TIME, v))
        return 0;
    c->base_ns = v;
    return 1;
}

/* Parses one top-level value with the JSON reader. */
static gs_json *parse_slice(chrome *c, const char *st, size_t n)
{
    gs_json *v = NULL;
    gs_err perr;
    gs_err_clear(&perr);
    if (gs_json_parse(&v, st, n, c->name, &perr) != GS_OK) {
        if (perr.status == GS_ERR_NOMEM)
            c->oom = 1;
        return NULL;
    }
    return v;
}

/* A top-level member other than traceEvents. */
static void top_member(chrome *c, const char *key, const char *vs, size_t vn, long kline)
{
    if (!strcmp(key, "baseTimeNanoseconds")) {
        gs_json *v = parse_slice(c, vs, vn);
        if (v && v->type == GS_JSON_NUMBER)
            base_time(c, v->text, kline);
        gs_json_free(v);
    } else if (!strcmp(key, "metadata")) {
        gs_json *v = parse_slice(c, vs, vn);
        const char *gen = jstr(v, "generator");
        if (gen && !strcmp(gen, "gapscope")) {
            c->own = 1;
            int t0 = 0;   /* the writer's own keys come first: later ones are meta */
            for (size_t i = 0; i < v->n && !c->failed; i++) {
                const char *k = v->keys[i], *val = v->items[i].text;
                if (!strcmp(k, "t0_ns") && !t0++)
                    base_time(c, val, v->items[i].line + kline - 1);
                else if (val && strcmp(k, "generator") && strcmp(k, "dropped_spans"))
                    gs_timeline_meta_set(c->tl, strcmp(k, "source") ? k : "source.original", val);
            }
        }
        gs_json_free(v);
    }
}

/* Pass 1 over the top level (the events walked inside it); the place of
 * traceEvents' first event in *off / *line. */
static gs_status top_level(chrome *c, imp_win *w, uint64_t *off, long *line)
{
    if (w->end - w->s >= 3 && !memcmp(w->s, "\xef\xbb\xbf", 3))
        w->s += 3;
    int ch = imp_win_ws(w), have_events = 0;
    if (ch == '[') {
        w->s++;
        *off = imp_win_off(w);
        *line = w->line;
        walk_events(c, w, 1, 0);
        return GS_OK;
    }
    if (ch != '{')
        return fail_at(c, w->line, "expected a JSON object with \"traceEvents\" or an array of "
                                   "trace events");
    w->s++;
    for (;;) {
        ch = imp_win_ws(w);
        if (ch < 0 || ch == '}' || c->oom || c->failed)
            break;
        const char *ks, *vs;
        size_t kn, vn;
        long kline, vline;
        if (ch != '"' || !imp_win_value(w, &ks, &kn, &kline))
            return fail_at(c, w->line, "expected a string key in the top-level object");
        char key[64] = "";
        if (kn >= 2 && kn - 2 < sizeof key) {
            memcpy(key, ks + 1, kn - 2);
            key[kn - 2] = '\0';
        }
        if (imp_win_ws(w) != ':')
            return fail_at(c, w->line, "expected ':' after a top-level key");
        w->s++;
        ch = imp_win_ws(w);
        if (!strcmp(key, "traceEvents") && ch == '[') {
            w->s++;
            *off = imp_win_off(w);
            *line = w->line;
            have_events = 1;
            walk_events(c, w, 1, 0);
            if (imp_win_ws(w) != ']')
                break;   /* truncated or malformed: pass 2 reports it */
            w->s++;
        } else {
            if (!imp_win_value(w, &vs, &vn, &vline))
                break;   /* truncated: the events walk reports it */
            top_member(c, key, vs, vn, kline);
        }
        if (imp_win_ws(w) == ',')
            w->s++;
    }
    if (!have_events && !c->oom)
        return fail_at(c, 1, "no \"traceEvents\" array in the top-level object");
    return GS_OK;
}

/* After pass 1: the lanes of gapscope's own threads, or of the threads
 * that made CUDA calls and flows, in the order pass 1 met them. */
static void open_lanes(chrome *c)
{
    gs_err perr;
    if (c->own) {
        for (size_t i = 0; i < c->n_m && !c->oom; i++) {
            gs_json *ev = NULL;
            gs_err_clear(&perr);
            if (gs_json_parse(&ev, c->mtext[i], strlen(c->mtext[i]), c->name, &perr) == GS_OK)
                own_lane_open(c, ev, c->mline[i]);
            else if (perr.status == GS_ERR_NOMEM)
                c->oom = 1;
            gs_json_free(ev);
        }
        return;
    }
    for (size_t i = 0; i < c->n_p1; i++) {
        gs_tl_lane *l = thread_lane(c, c->p1_pid[i], c->p1_tid[i]);
        if (!l) {
            c->oom = 1;
            return;
        }
        c->p1_lane[i] = gs_tl_lane_id(l);
    }
}

static gs_status chrome_run(gs_timeline *tl, gs_import_report *rep, imp_win *w, const char *name,
                            gs_err *err)
{
    chrome c;
    memset(&c, 0, sizeof c);
    c.tl = tl;
    c.rep = rep;
    c.name = name;
    c.err = err;
    imp_lanes_init(&c.lanes, tl);
    gs_arena_init(&c.arena);
    imp_scan_level_init(&c.scan_args, field_key + F_TOP, F_ALL - F_TOP, -1, NULL);
    imp_scan_level_init(&c.scan_top, field_key, F_TOP, F_ARGS, &c.scan_args);
    static const char *const p1_words[] = {"M", "cuda_runtime", "cuda_driver", "runtime",
                                           "driver", "ac2g"};
    imp_cut_words_init(&c.p1_words, p1_words, 6, 0x3e);   /* all but "M" in any case */
    /* GS_IMPORT_JSON_TREE: the reader before the field scan, for tests
     * and the fuzz target that hold the two to the same answers. */
    const char *tree = getenv("GS_IMPORT_JSON_TREE");
    c.tree_only = tree && *tree && strcmp(tree, "0");
    gs_status st = GS_OK;
    if (!gs_imap_init(&c.thread_names.idx, 0) || !gs_imap_init(&c.corr_lane, 0) ||
        !gs_imap_init(&c.flow_src, 0) || !gs_imap_init(&c.flow_dst, 0) ||
        !gs_imap_init(&c.own_lane, 0) || !gs_imap_init(&c.p1_idx, 0) ||
        !gs_imap_init(&c.lane_idx, 0) || !gs_imap_init(&c.kernel_names.idx, 0) ||
        !gs_imap_init(&c.api_names.idx, 0) || !gs_imap_init(&c.own_tid, 0)) {
        st = gs_err_set(err, GS_ERR_NOMEM, "import chrome", name, "out of memory");
        goto done;
    }
    uint64_t off = 0;
    long line = 1;
    if ((st = top_level(&c, w, &off, &line)) != GS_OK)
        goto done;
    if (!c.oom && !c.failed)
        open_lanes(&c);
    if (!c.oom && !c.failed && !imp_win_seek(w, off, line) && w->io) {
        st = gs_err_set(err, GS_ERR_IO, "import chrome", name, "cannot read the file again");
        goto done;
    }
    if (!c.oom && !c.failed)
        walk_events(&c, w, 2, 1);
    if (c.failed) {
        st = err && err->status ? err->status : GS_ERR_FORMAT;
        goto done;
    }
    for (size_t i = 0; i < c.n_open; i++)
        skip(&c, "B event without a matching E event", c.open[i].line);
    if (w->io) {
        st = gs_err_set(err, GS_ERR_IO, "import chrome", name, "read error");
        goto done;
    }
    if (c.oom || c.lanes.oom || w->oom) {
        st = gs_err_set(err, GS_ERR_NOMEM, "import chrome", name, "out of memory");
        goto done;
    }
    imp_set_source(tl, "import:chrome", name);
done:
    imp_lanes_free(&c.lanes);
    strtab_free(&c.thread_names);
    gs_imap_free(&c.corr_lane);
    gs_imap_free(&c.flow_src);
    gs_imap_free(&c.flow_dst);
    gs_imap_free(&c.own_lane);
    gs_imap_free(&c.p1_idx);
    gs_arena_free(&c.arena);
    free(c.scratch);
    gs_imap_free(&c.lane_idx);
    free(c.lane_of);
    strtab_free(&c.kernel_names);
    strtab_free(&c.api_names);
    gs_imap_free(&c.own_tid);
    free(c.own_lanes);
    free(c.own_ids);
    free(c.p1_pid);
    free(c.p1_tid);
    free(c.p1_lane);
    for (size_t i = 0; i < c.n_m; i++)
        free(c.mtext[i]);
    free(c.mtext);
    free(c.mline);
    for (size_t i = 0; i < c.n_open; i++)
        gs_json_free(c.open[i].ev);
    free(c.open);
    return st;
}

gs_status gs_import_chrome(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                           size_t len, const char *name, gs_err *err)
{
    imp_win w;
    imp_win_mem(&w, (const char *)data, len);
    return chrome_run(tl, rep, &w, name, err);
}

gs_status gs_import_chrome_file(gs_timeline *tl, gs_import_report *rep, FILE *f,
                                const char *name, gs_err *err)
{
    imp_win w;
    if (!imp_win_file(&w, f) && (w.oom || w.io)) {
        imp_win_free(&w);
        return w.oom ? gs_err_set(err, GS_ERR_NOMEM, "import chrome", name, "out of memory")
                     : gs_err_set(err, GS_ERR_IO, "import chrome", name, "read error");
    }
    gs_status st = chrome_run(tl, rep, &w, name, err);
    imp_win_free(&w);
    return st;
}
