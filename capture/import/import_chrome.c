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
 *
 * Files (imp_chrome_int.h): this one is the driver (the walk over the
 * events, the top level, the lanes after pass 1, the entry points);
 * imp_chrome_kineto.c reads Kineto/Perfetto events (pass 1's index, pass
 * 2's spans); imp_chrome_fields.c reads members' values with their limit
 * checks, and gapscope's own events.
 */
#define _GNU_SOURCE   /* memmem */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../common/grow.h"
#include "../../common/json.h"
#include "imp_chrome_int.h"

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
    ch_kineto_index(c, f);
}

static gs_json *parse_slice(chrome *c, const char *st, size_t n);

/* An event's fields (the text st[0, n) at line) in the pass's handler;
 * gapscope's own events (pass 2) go through ch_own_event with their tree. */
static void apply_fields(chrome *c, const ev_fields *f, const char *st, size_t n, long line,
                         int pass)
{
    if (pass == 1) {
        index_event(c, f, st, n, line);
    } else if (ch_kineto_event(c, f, line)) {
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
            ch_skip(c, "malformed event (not a JSON object)", line);
    } else if (pass == 2 && c->own) {
        ch_own_event(c, ev, line);
    } else {
        ev_fields f;
        ch_fields_of_tree(&f, ev);
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
 * category or "ac2g" (ch_kineto_index needs one of them; a backslash, which
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
                ch_skip(c, "file ends inside traceEvents (truncated; events before the cut were imported)",
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
                ch_skip(c, w->too_big ? "event larger than 1 GiB (rest of the file skipped)"
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
            ch_skip(c, "expected ',' or ']' after an event (rest of traceEvents skipped)", w->line);
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
        ch_fail_line(c, line, "expected an integer number of ns in", "baseTimeNanoseconds/t0_ns");
        return 0;
    }
    if (!ch_in_limits(c, line, GS_TLV_TIME, v))
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
        const char *gen = ch_jstr(v, "generator");
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
                ch_own_lane_open(c, ev, c->mline[i]);
            else if (perr.status == GS_ERR_NOMEM)
                c->oom = 1;
            gs_json_free(ev);
        }
        return;
    }
    for (size_t i = 0; i < c->n_p1; i++) {
        gs_tl_lane *l = ch_thread_lane(c, c->p1_pid[i], c->p1_tid[i]);
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
    imp_scan_level_init(&c.scan_args, ch_field_key + F_TOP, F_ALL - F_TOP, -1, NULL);
    imp_scan_level_init(&c.scan_top, ch_field_key, F_TOP, F_ARGS, &c.scan_args);
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
        ch_skip(&c, "B event without a matching E event", c.open[i].line);
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
    ch_strtab_free(&c.thread_names);
    gs_imap_free(&c.corr_lane);
    gs_imap_free(&c.flow_src);
    gs_imap_free(&c.flow_dst);
    gs_imap_free(&c.own_lane);
    gs_imap_free(&c.p1_idx);
    gs_arena_free(&c.arena);
    free(c.scratch);
    gs_imap_free(&c.lane_idx);
    free(c.lane_of);
    ch_strtab_free(&c.kernel_names);
    ch_strtab_free(&c.api_names);
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
