/*
 * The Chrome Trace Event importer's parts (internal to capture/import):
 *
 *   import_chrome.c       the driver: the streaming walk over the events
 *                         (two passes), the top level, the lanes opened
 *                         after pass 1, gs_import_chrome(_file);
 *   imp_chrome_kineto.c   Kineto/Perfetto events: the pass-1 index (thread
 *                         names, correlations, flows) and pass 2's spans;
 *   imp_chrome_fields.c   the per-import string tables, the readers of one
 *                         member's value with their limit checks, and
 *                         gapscope's own timeline.json events.
 *
 * Calls run one way: the driver calls both, the Kineto part calls the
 * fields part, the fields part neither.  All state of one import is the
 * chrome struct below, owned by the driver (chrome_run sets it up and
 * frees it); the parts keep none of their own.  One import runs on one
 * thread; imports on different threads share nothing.
 */
#ifndef GS_IMP_CHROME_INT_H
#define GS_IMP_CHROME_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/json.h"
#include "imp_internal.h"

/* ---- per-import state ----------------------------------------------------------- */

/* Strings by int64 key; each value strdup'd, a key put again replaces it. */
typedef struct strtab {
    gs_imap idx;            /* key -> index into s */
    char **s;
    size_t n, cap;
} strtab;

/* Puts a copy of v at key: 1, 0 when out of memory. */
int ch_strtab_put(strtab *t, int64_t key, const char *v);
/* The string at key (owned by t), NULL when none. */
const char *ch_strtab_get(const strtab *t, int64_t key);
/* Frees the strings and the index (t's storage is the caller's). */
void ch_strtab_free(strtab *t);

typedef struct open_ev {
    int64_t key;             /* ch_key2(pid, tid) */
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
    gs_imap p1_idx;         /* ch_key2(pid, tid) -> pass-1 thread */
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

/* The map keys of a thread (pid, tid) and of a thread's instant (pid, tid, ts). */
static inline int64_t ch_key2(int64_t pid, int64_t tid)
{
    return (int64_t)((uint64_t)pid * 0x100000001b3ull ^ (uint64_t)tid * 0x9e3779b97f4a7c15ull);
}

static inline int64_t ch_key3(int64_t pid, int64_t tid, int64_t ts)
{
    return ch_key2(ch_key2(pid, tid), ts);
}

/* Counts an event skipped for reason at line in the import report. */
void ch_skip(chrome *c, const char *reason, long line);

/* ---- field access (imp_chrome_fields.c) --------------------------------------------- */

/* A member's value as the readers below need it: its GS_JSON_* type (-1
 * absent) and text (strings decoded, numbers as written; else NULL).  It
 * comes from a parsed tree (jget) or from the field scan (ev_fields). */
typedef struct {
    int type;
    const char *text;
} jv;

/* A string's text, NULL for any other type. */
const char *ch_vstr(jv v);
/* An integer (number, or a string holding one): 1 read, 0 absent or not
 * an integer, -1 an integer beyond int64 (strtoll would saturate). */
int ch_vint_r(jv v, int64_t *out);
/* Member k of o as a string (NULL when absent, not a string, or o NULL). */
const char *ch_jstr(const gs_json *o, const char *k);
/* A value outside timeline/limits.h at line: the import fails (exit 2);
 * 1 when x is in v's range. */
int ch_in_limits(chrome *c, long line, gs_tl_value v, int64_t x);
/* Fails the import (the first failure wins) with `what "key"` at line. */
void ch_fail_line(chrome *c, long line, const char *what, const char *key);
/* An integer member k that feeds the timeline: 1 read (and in lim's range
 * when lim >= 0), 0 absent or not an integer, -1 out of range (the import
 * fails). */
int ch_vval(chrome *c, jv v, const char *k, int lim, int64_t *out, long line);
/* pid/tid: a number, or a string ending in one; 1 read, 0 not. */
int ch_vid(jv v, int64_t *out);
/* A time in microseconds as ns: 1 read, 0 absent or not a number, -1
 * beyond the range a time or a difference of two times can take (the
 * import fails when line >= 0). */
int ch_vus(chrome *c, jv v, const char *k, int64_t *out, long line);
/* base + t (+ d) as a time in range; 0 (the import fails) otherwise. */
int ch_time_at(chrome *c, long line, int64_t base, int64_t t, int64_t *out);

/* The members a Kineto/Perfetto event is read by: from the field scan
 * (imp_scan.c) or, for an event the scan leaves to the tree reader, from
 * its tree (ch_fields_of_tree).  ch_field_key names them: F_* the event's
 * own members, A_* those of its "args". */
enum { F_PH, F_NAME, F_CAT, F_PID, F_TID, F_TS, F_DUR, F_ID, F_ARGS, F_TOP,
       A_NAME = F_TOP, A_CORR, A_DEVICE, A_STREAM, A_BYTES, F_ALL };
extern const char *const ch_field_key[F_ALL];
typedef struct {
    jv v[F_ALL];
} ev_fields;

/* The fields of a parsed event (its texts point into ev's tree). */
void ch_fields_of_tree(ev_fields *f, const gs_json *ev);

#define FSTR(f, i) ch_vstr((f)->v[i])
#define FVAL(c, f, i, lim, out, line) ch_vval(c, (f)->v[i], ch_field_key[i], lim, out, line)
#define FUS(c, f, i, out, line) ch_vus(c, (f)->v[i], ch_field_key[i], out, line)
#define FID(f, i, out) ch_vid((f)->v[i], out)

/* ---- gapscope's own timeline.json (imp_chrome_fields.c) ----------------------------- */

/* A thread_name M event: opens its lane (once per pid/tid). */
void ch_own_lane_open(chrome *c, const gs_json *ev, long line);
/* Pass 2: one event of gapscope's own format as a span, counter or mark. */
void ch_own_event(chrome *c, const gs_json *ev, long line);

/* ---- Kineto / generic (imp_chrome_kineto.c) ----------------------------------------- */

/* The lane of thread (pid, tid) ("thread/<tid> <name>"), opened when new;
 * NULL when out of memory. */
gs_tl_lane *ch_thread_lane(chrome *c, int64_t pid, int64_t tid);
/* Pass 1: thread names, correlation -> thread, flows. */
void ch_kineto_index(chrome *c, const ev_fields *f);
/* Pass 2: spans.  Returns 1 when it keeps ev (an open B event: the caller
 * stores its tree in c->open[c->n_open - 1].ev). */
int ch_kineto_event(chrome *c, const ev_fields *f, long line);

#endif
