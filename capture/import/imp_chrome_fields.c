/*
 * The Chrome importer's values and fields (imp_chrome_int.h): the string
 * tables of one import, the readers of one member's value (from a parsed
 * tree or from the field scan's text) with the checks against
 * timeline/limits.h that make an out-of-range value fail the import, and
 * gapscope's own timeline.json: its lanes (thread_name M events, roles
 * from args or, in older files, from the lane names) and its events
 * (spans, marks and counters with their flags, holders and args).
 *
 * Called by import_chrome.c and imp_chrome_kineto.c; calls neither.  The
 * state is the caller's chrome struct; one import on one thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "../../common/json.h"
#include "imp_chrome_int.h"

/* ---- per-import state ----------------------------------------------------------- */

int ch_strtab_put(strtab *t, int64_t key, const char *v)
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

const char *ch_strtab_get(const strtab *t, int64_t key)
{
    int64_t i;
    return gs_imap_get(&t->idx, key, &i) ? t->s[i] : NULL;
}

void ch_strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    gs_imap_free(&t->idx);
}

void ch_skip(chrome *c, const char *reason, long line)
{
    char where[600];
    imp_where_line(where, sizeof where, c->name, line);
    gs_import_skip(c->rep, reason, where);
}

/* ---- field access ------------------------------------------------------------------ */

static jv jget(const gs_json *o, const char *k)
{
    const gs_json *v = gs_json_get(o, k);
    return v ? (jv){(int)v->type, v->text} : (jv){-1, NULL};
}

const char *ch_vstr(jv v)
{
    return v.type == GS_JSON_STRING ? v.text : NULL;
}

/* An integer (number, or a string holding one): 1 read, 0 absent or not
 * an integer, -1 an integer beyond int64 (strtoll would saturate). */
int ch_vint_r(jv v, int64_t *out)
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

const char *ch_jstr(const gs_json *o, const char *k)
{
    return ch_vstr(jget(o, k));
}

static int jint(const gs_json *o, const char *k, int64_t *out)
{
    return ch_vint_r(jget(o, k), out) == 1;
}

/* A value outside timeline/limits.h at line: the import fails (exit 2). */
int ch_in_limits(chrome *c, long line, gs_tl_value v, int64_t x)
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

void ch_fail_line(chrome *c, long line, const char *what, const char *key)
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
    return v.type == GS_JSON_NUMBER && ch_vint_r(v, out) == 1;
}

/* An integer member k that feeds the timeline: 1 read (and in lim's range
 * when lim >= 0), 0 absent or not an integer, -1 out of range (the import
 * fails).  One check per field, as timeline/limits.h asks. */
int ch_vval(chrome *c, jv v, const char *k, int lim, int64_t *out, long line)
{
    int64_t x;
    int r = ch_vint_r(v, &x);
    if (r < 0) {
        ch_fail_line(c, line, "integer beyond 64 bits in", k);
        return -1;
    }
    if (!r)
        return 0;
    if (lim >= 0 && !ch_in_limits(c, line, (gs_tl_value)lim, x))
        return -1;
    *out = x;
    return 1;
}

static int jval(chrome *c, const gs_json *o, const char *k, int lim, int64_t *out, long line)
{
    return ch_vval(c, jget(o, k), k, lim, out, line);
}

/* pid/tid: a number, or a string ending in one ("stream 7" as some
 * exporters write device tracks). */
int ch_vid(jv v, int64_t *out)
{
    if (ch_vint_r(v, out) == 1)
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
int ch_vus(chrome *c, jv v, const char *k, int64_t *out, long line)
{
    if (v.type != GS_JSON_NUMBER || !v.text)
        return 0;
    int r = imp_us_to_ns(v.text, out);
    if (r < 0 && line >= 0)
        ch_fail_line(c, line, "time beyond +-2^63 ns in", k);
    return r;
}

static int jus(chrome *c, const gs_json *o, const char *k, int64_t *out, long line)
{
    return ch_vus(c, jget(o, k), k, out, line);
}

const char *const ch_field_key[F_ALL] = {
    "ph", "name", "cat", "pid", "tid", "ts", "dur", "id", "args",
    "name", "correlation", "device", "stream", "bytes"};

void ch_fields_of_tree(ev_fields *f, const gs_json *ev)
{
    for (int i = 0; i < F_TOP; i++)
        f->v[i] = jget(ev, ch_field_key[i]);
    const gs_json *args = gs_json_get(ev, "args");
    for (int i = F_TOP; i < F_ALL; i++)
        f->v[i] = jget(args, ch_field_key[i]);
}

/* base + t (+ d) as a time in range; 0 (the import fails) otherwise. */
int ch_time_at(chrome *c, long line, int64_t base, int64_t t, int64_t *out)
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
void ch_own_lane_open(chrome *c, const gs_json *ev, long line)
{
    int64_t pid, tid;
    const gs_json *args = gs_json_get(ev, "args");
    const char *nm = ch_jstr(args, "name"), *rn = ch_jstr(args, "role");
    if (!jint(ev, "pid", &pid) || !jint(ev, "tid", &tid) || !nm)
        return;
    int64_t have;
    if (gs_imap_get(&c->own_lane, ch_key2(pid, tid), &have))
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
    if (!ch_in_limits(c, line, GS_TLV_DEVICE, dev) || !ch_in_limits(c, line, GS_TLV_STREAM, stream))
        return;
    if (role == GS_ROLE_DEVICE && dev < 0) {
        ch_fail_line(c, line, "a device lane without a device >= 0:", nm);
        return;
    }
    gs_tl_lane *l = gs_tl_lane_open(c->tl, nm, role, (int32_t)dev, (int32_t)stream);
    if (!gs_grow(&c->own_lanes, &c->cap_own_lanes, c->n_own, sizeof *c->own_lanes, 32) ||
        !gs_grow(&c->own_ids, &c->cap_own_ids, c->n_own, sizeof *c->own_ids, 32)) {
        c->oom = 1;
        return;
    }
    if (!l || !gs_imap_put(&c->own_lane, ch_key2(pid, tid), (int64_t)c->n_own) ||
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
    const char *raw = ch_jstr(args, "gs_args");
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
        ch_fail_line(c, line, "a value that is not a finite number in", "value");
        return 0;
    }
    *out = v->number;
    return 1;
}

void ch_own_event(chrome *c, const gs_json *ev, long line)
{
    const char *ph = ch_jstr(ev, "ph"), *name = ch_jstr(ev, "name");
    if (!ph || !strcmp(ph, "M") || !strcmp(ph, "s") || !strcmp(ph, "f")) {
        c->rep->ignored++;
        return;
    }
    int64_t pid, tid, ts, dur = 0, li, x;
    if (!jint(ev, "pid", &pid) || !jint(ev, "tid", &tid) ||
        !gs_imap_get(&c->own_lane, ch_key2(pid, tid), &li)) {
        ch_skip(c, "event on a track with no thread_name", line);
        return;
    }
    int r = jus(c, ev, "ts", &ts, line);
    if (r < 0)
        return;
    if (!name || !r) {
        ch_skip(c, "event without name or numeric ts", line);
        return;
    }
    if (!ch_time_at(c, line, c->base_ns, ts, &ts))
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
        const char *hn = ch_jstr(args, "holder");
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
                    ch_skip(c, "complete event without a non-negative dur", line);
                return;
            }
            if (!ch_time_at(c, line, ts, dur, &s.end_ns))
                return;
            char cat[64];
            const char *ct = ch_jstr(ev, "cat");
            snprintf(cat, sizeof cat, "%s", ct ? ct : "step");
            char *comma = strchr(cat, ',');
            if (comma)
                *comma = '\0';
            gs_span_kind kind;
            if (!gs_span_kind_from_name(&kind, cat)) {
                ch_skip(c, "unknown span kind in cat", line);
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
        ch_fail_line(c, line, why, name);
    else {
        gs_tl_span_full(lane, &s);
        c->rep->used++;
    }
    free(a);
}
