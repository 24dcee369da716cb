/*
 * The production daemon's log (formats: shared/DOMAIN.md, "What a
 * production daemon's log holds"), rebuilt into an engine-shaped timeline
 * so the engine's attribution applies (timeline/SPANS.md, "Foreign timelines").
 *
 * Lines used (everything else is counted as ignored):
 *   TIMELINE,<offset_ms>,<event>,<job_id>,<k=v,...>   SYNTH_START/END,
 *       GPU_QUEUE, GPU_PICKUP, GPU_START, GPU_END (integer ms since the
 *       engine started: the timeline's time base);
 *   <RFC 3339 µs timestamp>  INFO <target>: GPU_TIMING ... / FIN_TIMING ...
 *       k=v ...  (tracing; ANSI colour codes stripped, Some(3) -> 3);
 *   CUZK_TIMING: k=v ...   (no timestamp; ordered by their place).
 *
 * Clocks.  Tracing timestamps are wall-clock UTC; the TIMELINE offsets
 * count from the engine's start.  The offset between them is the median,
 * over partitions, of (timestamp of the worker's GPU_TIMING hot_path line -
 * its GPU_START offset): the daemon logs hot_path right before GPU_START.
 * Without any such pair, tracing-derived spans cannot be placed and are
 * skipped (counted).
 *
 * CUZK lines.  The C++ prover prints them inside prove_start, without a
 * worker or partition; each field group (pre_lock_cpu/mutex_wait,
 * gpu_total, mutex_held/total_start_fn, b_g2_msm) goes to the oldest
 * partition between its GPU_START and GPU_END lines that lacks that group
 * (the per-GPU mutex serializes the GPU part, so the orders agree).
 *
 * Rebuilt spans (flag APPROX on inferred device spans; meta
 * timeline.approximate=1):
 *   synth/<i>          synth [SYNTH_START, SYNTH_END) (lanes assigned greedily)
 *   gpu_worker/<d>.<w> queue_wait [previous GPU_END, GPU_QUEUE of the partition
 *                      picked), handoff from there to GPU_PICKUP;
 *                      status_check, fail_check, mark_busy from hot_path
 *                      (ending at its timestamp), each lock step split into
 *                      LOCK_WAIT tracker (while a finalizer's hold covers
 *                      its start, holder = that finalizer) + LOCK_HOLD
 *                      (without hot_path: one step pickup_to_start;
 *                      without it and GPU_PICKUP, the queue wait runs up to
 *                      GPU_START);
 *                      prove_start [GPU_START, GPU_END) holding host_prep
 *                      [GPU_START, + pre_lock_cpu_ms), LOCK_WAIT device_mutex
 *                      (+ mutex_wait_ms), and prove_finish for the tail
 *                      after the device work when b_g2_msm_ms says the CPU
 *                      G2 MSM held GPU_END back.  Without the pre_lock line
 *                      the acquisition is mutex_held_ms before the end of
 *                      total_start_fn_ms (host_prep up to it);
 *   gpu_worker/<d>.<w>/prep  a partition prepared ahead (GPU_START before
 *                      the same worker's previous GPU_END: a prep thread, or
 *                      prove_start's CPU part overlapping the device work
 *                      before it): its checks, host_prep and ready_wait (the
 *                      wait for the worker, not a device mutex) go here, and
 *                      its acquisition is never before that GPU_END; the
 *                      worker lane gets handoff [previous GPU_END, acquisition)
 *                      and prove_start from the acquisition;
 *   gpu<d>/stream0     KERNEL prove [lock acquired, + gpu_total_ms) APPROX
 *                      (without gpu_total_ms: up to GPU_END, args
 *                      from=gpu_end);
 *   finalizer/<i>      from FIN_TIMING finalizer partition (ending at its
 *                      timestamp): prove_finish, buffer_release, LOCK_WAIT
 *                      tracker, LOCK_HOLD tracker, and malloc_trim inside
 *                      the hold (FIN_TIMING malloc_trim); a trim outside
 *                      any hold goes to background/trim.
 * All GPU work is put on one device (gs_import_options.device): the log
 * does not say which GPU a worker drives.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "../../common/hash.h"
#include "../../common/stats.h"
#include "imp_internal.h"

#define MS 1000000LL
#define UNSET INT64_MIN

typedef struct kv {
    char key[48];
    char val[64];
} kv;

#define MAX_KV 24
typedef struct fields {
    kv f[MAX_KV];
    int n;
} fields;

static const char *fget(const fields *fs, const char *k)
{
    for (int i = 0; i < fs->n; i++)
        if (!strcmp(fs->f[i].key, k))
            return fs->f[i].val;
    return NULL;
}

static int fnum(const fields *fs, const char *k, double *out)
{
    const char *v = fget(fs, k);
    if (!v || !*v)
        return 0;
    char *e;
    double x = strtod(v, &e);
    if (*e || !isfinite(x) || x < 0 || x > 1e9)
        return 0;
    *out = x;
    return 1;
}

static int fint(const fields *fs, const char *k, int64_t *out)
{
    const char *v = fget(fs, k);
    if (!v || !*v)
        return 0;
    char *e;
    long long x = strtoll(v, &e, 10);
    if (*e || x < 0 || x > 1000000000LL)
        return 0;
    *out = x;
    return 1;
}

/* Adds "key=value" tokens separated by sep; Some(x) -> x, quotes dropped. */
static void parse_kv(fields *fs, const char *s, char sep)
{
    while (*s && fs->n < MAX_KV) {
        while (*s == sep || *s == ' ')
            s++;
        const char *eq = NULL, *p = s;
        while (*p && *p != sep) {
            if (*p == '=' && !eq)
                eq = p;
            p++;
        }
        if (eq && eq > s) {
            kv *k = &fs->f[fs->n];
            size_t kl = (size_t)(eq - s) < sizeof k->key - 1 ? (size_t)(eq - s) : sizeof k->key - 1;
            memcpy(k->key, s, kl);
            k->key[kl] = '\0';
            const char *v = eq + 1, *ve = p;
            if (ve - v >= 6 && !strncmp(v, "Some(", 5) && ve[-1] == ')') {
                v += 5;
                ve--;
            }
            if (ve - v >= 2 && *v == '"' && ve[-1] == '"') {
                v++;
                ve--;
            }
            size_t vl = (size_t)(ve - v) < sizeof k->val - 1 ? (size_t)(ve - v) : sizeof k->val - 1;
            memcpy(k->val, v, vl);
            k->val[vl] = '\0';
            if (strcmp(k->val, "None"))
                fs->n++;
        }
        s = p;
    }
}

/* A job id of the log that is a job number the timeline holds (decimal,
 * 0..2^31-1: timeline/limits.h); 0 for any other id (jobs are then
 * numbered 1, 2, ... instead). */
static int job_id(const char *s, int64_t *out)
{
    if (!isdigit((unsigned char)s[0]))
        return 0;
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (*e || errno == ERANGE || !gs_tl_in_range(GS_TLV_JOB, v))
        return 0;
    *out = v;
    return 1;
}

/* ---- partitions ----------------------------------------------------------------- */

typedef struct part {
    char job[64];
    int32_t part;            /* -1: monolithic */
    int64_t synth_start, synth_end, queue, pickup, start, end;   /* ns, UNSET */
    double synth_ms;
    int64_t worker;
    long start_line;
    int has_hot, has_prelock, has_gpu, has_held, has_g2;
    int64_t hot_utc;
    double status_ms, fail_ms, mark_ms;
    double pre_lock_ms, mutex_wait_ms, ntt_msm_h_ms, batch_add_ms, tail_ms, gpu_total_ms;
    double mutex_held_ms, total_start_fn_ms, b_g2_ms;
    char kind[24];
    int32_t job_num;         /* the job id as a number (numeric ids kept, else 1, 2, ...) */
} part;

typedef struct fin {
    int64_t t_utc;
    double finish_ms, drop_ms, wait_ms, process_ms, total_ms;
    long line;
} fin;

typedef struct trim {
    int64_t t_utc;
    double ms;
    char job[64];
    int32_t part;
} trim;

typedef struct hotp {
    int64_t utc;
    int64_t worker, partition;   /* partition -1 unknown */
    double status_ms, fail_ms, mark_ms;
} hotp;

typedef struct dlog {
    gs_import_report *rep;
    const char *name;
    part *p;
    size_t n, cap;
    fin *f;
    size_t nf, capf;
    trim *t;
    size_t nt, capt;
    hotp *pending;           /* hot_path lines waiting for their GPU_START */
    size_t npend, cappend;
    size_t *open;            /* partitions between GPU_START and GPU_END, in order */
    size_t nopen, capopen;
    gs_imap index;          /* part_key(job, part) -> index into p */
    uint64_t recognized;
    int oom;
} dlog;

static void skip(dlog *d, const char *reason, long line)
{
    char where[600];
    imp_where_line(where, sizeof where, d->name, line);
    gs_import_skip(d->rep, reason, where);
}

static int64_t part_key(const char *job, int32_t p)
{
    uint64_t h = gs_fnv1a_step(gs_fnv1a(job), (uint32_t)p);
    return (int64_t)(h & 0x7fffffffffffffffull);
}

static part *find_part(dlog *d, const char *job, int32_t p, int create)
{
    int64_t k = part_key(job, p), i;
    if (gs_imap_get(&d->index, k, &i) && d->p[i].part == p && !strcmp(d->p[i].job, job))
        return &d->p[i];
    if (gs_imap_get(&d->index, k, &i))   /* a hash collision: search */
        for (size_t j = 0; j < d->n; j++)
            if (d->p[j].part == p && !strcmp(d->p[j].job, job))
                return &d->p[j];
    if (!create)
        return NULL;
    if (!gs_grow(&d->p, &d->cap, d->n, sizeof *d->p, 64)) {
        d->oom = 1;
        return NULL;
    }
    if (!gs_imap_get(&d->index, k, &i) && !gs_imap_put(&d->index, k, (int64_t)d->n)) {
        d->oom = 1;
        return NULL;
    }
    part *x = &d->p[d->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->job, sizeof x->job, "%s", job);
    x->part = p;
    x->synth_start = x->synth_end = x->queue = x->pickup = x->start = x->end = UNSET;
    x->worker = -1;
    return x;
}

/* ---- line kinds -------------------------------------------------------------------- */

static void timeline_line(dlog *d, char *line, long ln)
{
    char *fld[4];
    int nf = 0;
    char *s = line;
    const char *detail = "";
    while (nf < 4) {
        fld[nf++] = s;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
        if (nf == 4)
            detail = s;
    }
    if (nf < 4) {
        skip(d, "TIMELINE line with fewer than 4 fields", ln);
        return;
    }
    char *e;
    long long off = strtoll(fld[1], &e, 10);
    if (e == fld[1] || *e || off < 0 || off > 1000000000000LL) {
        skip(d, "TIMELINE line with a non-numeric offset_ms", ln);
        return;
    }
    const char *ev = fld[2], *job = fld[3];
    fields fs = {0};
    parse_kv(&fs, detail, ',');
    int64_t pt = -1, w = -1;
    int mono = strstr(detail, "monolithic") != NULL;
    if (!fint(&fs, "partition", &pt) && !mono && fget(&fs, "partition")) {
        skip(d, "TIMELINE line with a malformed partition", ln);
        return;
    }
    fint(&fs, "worker", &w);
    int64_t t = (int64_t)off * MS;
    int known = !strcmp(ev, "SYNTH_START") || !strcmp(ev, "SYNTH_END") ||
                !strcmp(ev, "GPU_QUEUE") || !strcmp(ev, "GPU_PICKUP") ||
                !strcmp(ev, "GPU_START") || !strcmp(ev, "GPU_END");
    if (!known) {
        d->rep->ignored++;
        return;
    }
    part *p = find_part(d, job, (int32_t)pt, 1);
    if (!p)
        return;
    d->recognized++;
    const char *kind = fget(&fs, "kind");
    if (kind)
        snprintf(p->kind, sizeof p->kind, "%s", kind);
    if (!strcmp(ev, "SYNTH_START")) {
        p->synth_start = t;
    } else if (!strcmp(ev, "SYNTH_END")) {
        p->synth_end = t;
        fnum(&fs, "synth_ms", &p->synth_ms);
    } else if (!strcmp(ev, "GPU_QUEUE")) {
        p->queue = t;
    } else if (!strcmp(ev, "GPU_PICKUP")) {
        p->pickup = t;
        if (w >= 0)
            p->worker = w;
    } else if (!strcmp(ev, "GPU_START")) {
        p->start = t;
        p->start_line = ln;
        if (w >= 0)
            p->worker = w;
        /* The worker's hot_path line, logged just before. */
        for (size_t i = 0; i < d->npend; i++)
            if (d->pending[i].worker == p->worker &&
                (d->pending[i].partition < 0 || d->pending[i].partition == p->part)) {
                p->has_hot = 1;
                p->hot_utc = d->pending[i].utc;
                p->status_ms = d->pending[i].status_ms;
                p->fail_ms = d->pending[i].fail_ms;
                p->mark_ms = d->pending[i].mark_ms;
                d->pending[i] = d->pending[--d->npend];
                break;
            }
        if (!gs_grow(&d->open, &d->capopen, d->nopen, sizeof *d->open, 64)) {
            d->oom = 1;
            return;
        }
        d->open[d->nopen++] = (size_t)(p - d->p);
    } else {   /* GPU_END */
        p->end = t;
        if (w >= 0)
            p->worker = w;
        for (size_t i = 0; i < d->nopen; i++)
            if (d->open[i] == (size_t)(p - d->p)) {
                memmove(&d->open[i], &d->open[i + 1], (d->nopen - i - 1) * sizeof *d->open);
                d->nopen--;
                break;
            }
    }
}

static void cuzk_line(dlog *d, const char *body, long ln)
{
    fields fs = {0};
    parse_kv(&fs, body, ' ');
    double a, b;
    int group;
    if (fnum(&fs, "pre_lock_cpu_ms", &a) && fnum(&fs, "mutex_wait_ms", &b))
        group = 0;
    else if (fnum(&fs, "gpu_total_ms", &a))
        group = 1;
    else if (fnum(&fs, "mutex_held_ms", &a) && fnum(&fs, "total_start_fn_ms", &b))
        group = 2;
    else if (fnum(&fs, "b_g2_msm_ms", &a))
        group = 3;
    else if (fget(&fs, "ntt_msm_h_ms") || fget(&fs, "batch_add_ms") || fget(&fs, "prep_msm_ms") ||
             fget(&fs, "split_vectors_ms") || fget(&fs, "async_dealloc_ms") ||
             fget(&fs, "tail_msm_ms")) {
        /* Stage detail: kept on the partition that next reports gpu_total. */
        double x;
        part *p = NULL;
        for (size_t i = 0; i < d->nopen && !p; i++)
            if (!d->p[d->open[i]].has_gpu)
                p = &d->p[d->open[i]];
        if (p) {
            if (fnum(&fs, "ntt_msm_h_ms", &x))
                p->ntt_msm_h_ms = x;
            if (fnum(&fs, "batch_add_ms", &x))
                p->batch_add_ms = x;
        }
        d->recognized++;
        d->rep->ignored++;
        return;
    } else {
        skip(d, "CUZK_TIMING line without a known field group", ln);
        return;
    }
    d->recognized++;
    part *p = NULL;
    for (size_t i = 0; i < d->nopen && !p; i++) {
        part *c = &d->p[d->open[i]];
        int has = group == 0 ? c->has_prelock : group == 1 ? c->has_gpu : group == 2 ? c->has_held
                                                                                     : c->has_g2;
        if (!has)
            p = c;
    }
    if (!p) {
        skip(d, "CUZK_TIMING line outside any GPU_START..GPU_END", ln);
        return;
    }
    if (group == 0) {
        p->has_prelock = 1;
        p->pre_lock_ms = a;
        p->mutex_wait_ms = b;
    } else if (group == 1) {
        p->has_gpu = 1;
        p->gpu_total_ms = a;
        double x;
        if (fnum(&fs, "tail_msm_ms", &x))
            p->tail_ms = x;
        if (fnum(&fs, "ntt_msm_h_ms", &x))
            p->ntt_msm_h_ms = x;
    } else if (group == 2) {
        p->has_held = 1;
        p->mutex_held_ms = a;
        p->total_start_fn_ms = b;
    } else {
        p->has_g2 = 1;
        p->b_g2_ms = a;
    }
}

/* Days since 1970-01-01 of a civil date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* An RFC 3339 timestamp at s (ns since the epoch); *end after it.  0 if none. */
static int parse_rfc3339(const char *s, int64_t *ns, const char **end)
{
    int y, mo, da, h, mi, se, n = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &da, &h, &mi, &se, &n) != 6 || n != 19)
        return 0;
    /* 1970..2200 keeps every derived time inside int64 nanoseconds. */
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 ||
        se > 60)
        return 0;
    const char *p = s + 19;
    int64_t frac = 0;
    int digits = 0;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++, digits++)
            if (digits < 9)
                frac = frac * 10 + (*p - '0');
    for (int k = digits < 9 ? digits : 9; k < 9; k++)
        frac *= 10;
    int64_t tz = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1])) {
        int th = 0, tm = 0;
        if (sscanf(p + 1, "%2d:%2d", &th, &tm) != 2 || th > 23 || tm > 59)
            return 0;
        tz = (*p == '+' ? 1 : -1) * (int64_t)(th * 3600 + tm * 60);
        p += 6;
    }
    int64_t secs = days_from_civil(y, mo, da) * 86400 + h * 3600 + mi * 60 + se - tz;
    *ns = secs * 1000000000LL + frac;
    *end = p;
    return 1;
}

static void tracing_line(dlog *d, const char *line, long ln)
{
    int64_t utc;
    const char *rest;
    const char *g = strstr(line, "GPU_TIMING "), *f = strstr(line, "FIN_TIMING ");
    const char *msg = g ? g : f;
    if (!parse_rfc3339(line, &utc, &rest)) {
        skip(d, "GPU_TIMING/FIN_TIMING line without an RFC 3339 timestamp", ln);
        return;
    }
    fields fs = {0};
    parse_kv(&fs, msg, ' ');
    if (g && strstr(msg, "hot_path")) {
        int64_t w, pt = -1;
        double st, fc, mb;
        if (!fint(&fs, "worker_id", &w) || !fnum(&fs, "status_ms", &st) ||
            !fnum(&fs, "fail_check_ms", &fc) || !fnum(&fs, "mark_busy_ms", &mb)) {
            skip(d, "GPU_TIMING hot_path line without worker_id/status_ms/fail_check_ms/mark_busy_ms",
                 ln);
            return;
        }
        fint(&fs, "partition", &pt);
        if (!gs_grow(&d->pending, &d->cappend, d->npend, sizeof *d->pending, 64)) {
            d->oom = 1;
            return;
        }
        d->pending[d->npend++] = (hotp){utc, w, pt, st, fc, mb};
        d->recognized++;
    } else if (g) {
        d->recognized++;   /* spawn_blocking / prove_start returned: not needed */
        d->rep->ignored++;
    } else if (strstr(msg, "malloc_trim")) {
        double ms;
        int64_t pt = -1;
        if (!fnum(&fs, "malloc_trim_ms", &ms)) {
            skip(d, "FIN_TIMING malloc_trim line without malloc_trim_ms", ln);
            return;
        }
        fint(&fs, "partition", &pt);
        if (!gs_grow(&d->t, &d->capt, d->nt, sizeof *d->t, 64)) {
            d->oom = 1;
            return;
        }
        trim *t = &d->t[d->nt++];
        t->t_utc = utc;
        t->ms = ms;
        t->part = (int32_t)pt;
        snprintf(t->job, sizeof t->job, "%s", fget(&fs, "job_id") ? fget(&fs, "job_id") : "");
        d->recognized++;
    } else if (strstr(msg, "finalizer")) {
        fin x = {utc, 0, 0, 0, 0, 0, ln};
        if (!fnum(&fs, "finish_ms", &x.finish_ms) || !fnum(&fs, "drop_res_ms", &x.drop_ms) ||
            !fnum(&fs, "lock_wait_ms", &x.wait_ms) || !fnum(&fs, "process_ms", &x.process_ms)) {
            skip(d, "FIN_TIMING finalizer line without finish_ms/drop_res_ms/lock_wait_ms/process_ms",
                 ln);
            return;
        }
        fnum(&fs, "total_ms", &x.total_ms);
        if (!gs_grow(&d->f, &d->capf, d->nf, sizeof *d->f, 64)) {
            d->oom = 1;
            return;
        }
        d->f[d->nf++] = x;
        d->recognized++;
    } else {
        d->recognized++;
        d->rep->ignored++;
    }
}

/* Removes ANSI escape sequences (ESC [ ... final byte) and CRs in place. */
static void strip_ansi(char *s)
{
    char *o = s;
    for (char *p = s; *p;) {
        if (*p == 0x1b) {
            p++;
            if (*p == '[') {
                p++;
                while (*p && !(*p >= 0x40 && *p <= 0x7e))
                    p++;
                if (*p)
                    p++;
            }
            continue;
        }
        if (*p == '\r') {
            p++;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
}

/* The log a line at a time through the window w (the whole input in
 * memory, or a window onto the file): memory holds what the lines built
 * (the partitions), never the file. */
static void read_log(dlog *d, imp_win *w)
{
    char buf[4096];
    const char *line;
    size_t l;
    while (!d->oom && imp_win_line(w, sizeof buf - 1, &line, &l)) {
        long ln = w->line - 1;
        if (!line) {
            skip(d, "line longer than 4095 bytes", ln);
            continue;
        }
        memcpy(buf, line, l);
        buf[l] = '\0';
        if (memchr(buf, '\0', l)) {
            skip(d, "line with a NUL byte", ln);
            continue;
        }
        strip_ansi(buf);
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        char *c;
        if (!strncmp(s, "TIMELINE,", 9))
            timeline_line(d, s, ln);
        else if ((c = strstr(s, "CUZK_TIMING:")))
            cuzk_line(d, c + 12, ln);
        else if (strstr(s, "GPU_TIMING ") || strstr(s, "FIN_TIMING "))
            tracing_line(d, s, ln);
        else if (*s)
            d->rep->ignored++;
    }
}

static void dlog_free(dlog *d)
{
    gs_imap_free(&d->index);
    free(d->p);
    free(d->f);
    free(d->t);
    free(d->pending);
    free(d->open);
}

/* ---- the timeline ------------------------------------------------------------------- */

/* Median of (hot_path utc - GPU_START offset): UTC -> timeline ns. */
static int clock_offset(const dlog *d, int64_t *delta)
{
    int64_t *v = malloc((d->n + 1) * sizeof *v);
    size_t m = 0;
    if (!v)
        return 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->p[i].has_hot && d->p[i].start != UNSET)
            v[m++] = d->p[i].hot_utc - d->p[i].start;
    if (m)
        qsort(v, m, sizeof *v, gs_cmp_i64);
    if (m)
        *delta = v[m / 2];
    free(v);
    return m > 0;
}

typedef struct iv {
    int64_t a, b;
    size_t idx;
} iv;

static int cmp_iv(const void *pa, const void *pb)
{
    const iv *x = pa, *y = pb;
    return (x->a > y->a) - (x->a < y->a);
}

/* Greedy lane assignment of intervals (sorted by start): lane[i] per interval. */
static int assign_lanes(iv *v, size_t n, int *lane, int *n_lanes)
{
    int64_t *free_at = malloc((n + 1) * sizeof *free_at);
    if (!free_at)
        return 0;
    int L = 0;
    qsort(v, n, sizeof *v, cmp_iv);
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        while (k < L && free_at[k] > v[i].a)
            k++;
        if (k == L)
            L++;
        free_at[k] = v[i].b;
        lane[i] = k;
    }
    free(free_at);
    *n_lanes = L;
    return 1;
}

static int64_t ms_ns(double ms) { return (int64_t)llround(ms * 1e6); }

typedef struct wend {
    int64_t worker, end;
} wend;

static int cmp_wend(const void *pa, const void *pb)
{
    const wend *a = pa, *b = pb;
    if (a->worker != b->worker)
        return (a->worker > b->worker) - (a->worker < b->worker);
    return (a->end > b->end) - (a->end < b->end);
}

typedef struct hold_iv {
    int64_t a, b;
    int32_t lane;            /* lane id */
    int lane_no;             /* i of finalizer/<i> */
} hold_iv;

static int cmp_hold_iv(const void *pa, const void *pb)
{
    const hold_iv *x = pa, *y = pb;
    return (x->a > y->a) - (x->a < y->a);
}

/* utc - delta within +-1e18 ns (31 years) of the TIMELINE base. */
static int in_range(int64_t utc, int64_t delta)
{
    int64_t t = utc - delta;   /* |utc|, |delta| < 8.3e18 by construction: no overflow */
    return t > -1000000000000000000LL && t < 1000000000000000000LL;
}

/* The hold covering t (holds sorted by start; holds of one mutex do not
 * overlap, so looking back a few from the last start <= t finds it). */
static const hold_iv *hold_covering(const hold_iv *h, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (h[mid].a <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k > 0 && lo - k < 64; k--)
        if (h[k - 1].b > t)
            return &h[k - 1];
    return NULL;
}

/* The last GPU_END of worker w at or before t (ends sorted by cmp_wend),
 * UNSET when none. */
static int64_t prev_end(const wend *ends, size_t n, int64_t w, int64_t t)
{
    size_t lo = 0, hi = n;
    wend key = {w, t};
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cmp_wend(&ends[mid], &key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && ends[lo - 1].worker == w ? ends[lo - 1].end : UNSET;
}

/* The hot_path steps of p on lane l (status_check, then fail_check and
 * mark_busy, each a tracker LOCK_WAIT while a finalizer's hold covers its
 * start + LOCK_HOLD), ending at the hot_path timestamp; without that line,
 * one pickup_to_start step from GPU_PICKUP.  Returns the pickup (the
 * earlier of GPU_PICKUP and status_check's start), UNSET when unknown. */
static int64_t emit_checks(gs_tl_lane *l, const part *p, int32_t job, int32_t pt, int aligned,
                           int64_t delta, const hold_iv *holds, size_t nh)
{
    int64_t pick = p->pickup;
    char args[64];
    if (!(p->has_hot && aligned)) {
        if (pick != UNSET && p->start > pick)
            gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_PICKUP_TO_START), job, pt, pick, p->start, 0, "approx=1");
        return pick;
    }
    int64_t te = p->hot_utc - delta;
    if (te > p->start)
        te = p->start;
    int64_t me = te, ms_ = me - ms_ns(p->mark_ms), fe = ms_, fs = fe - ms_ns(p->fail_ms);
    int64_t ss = fs - ms_ns(p->status_ms);
    if (pick == UNSET || pick > ss)
        pick = ss;
    gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_STATUS_CHECK), job, pt, ss, fs, 0, "approx=1");
    const char *what[2] = {gs_vocab_name(GS_V_FAIL_CHECK), gs_vocab_name(GS_V_MARK_BUSY)};
    int64_t a[2] = {fs, ms_}, b[2] = {fe, me};
    for (int z = 0; z < 2; z++) {
        int64_t ws = a[z], we = a[z];
        int32_t holder = -1;
        const hold_iv *hc = hold_covering(holds, nh, ws);
        if (hc) {
            we = hc->b < b[z] ? hc->b : b[z];
            holder = hc->lane;
        }
        if (we > ws)
            gs_tl_lock_wait(l, gs_vocab_name(GS_V_TRACKER), holder, job, pt, ws, we);
        snprintf(args, sizeof args, "what=%s;approx=1", what[z]);
        gs_tl_span(l, GS_SPAN_LOCK_HOLD, gs_vocab_name(GS_V_TRACKER), job, pt, we, b[z], 0, args);
        gs_tl_span(l, GS_SPAN_STEP, what[z], job, pt, a[z], b[z], 0, "approx=1");
    }
    return pick;
}

static gs_status build(dlog *d, gs_timeline *tl, const gs_import_options *opt, gs_err *err)
{
    imp_lanes lanes;
    imp_lanes_init(&lanes, tl);
    gs_status st = GS_OK;
    int64_t delta = 0;
    int aligned = clock_offset(d, &delta);
    size_t cap = d->n + d->nf + 1;
    iv *v = malloc(cap * sizeof *v);
    int *lane_of = malloc(cap * sizeof *lane_of);
    hold_iv *holds = malloc((d->nf + 1) * sizeof *holds);
    wend *ends = NULL;
    gs_imap w_end, w_prep_free;   /* per worker: latest GPU_END, last acquisition */
    int maps = gs_imap_init(&w_end, 0) + gs_imap_init(&w_prep_free, 0);
    size_t nh = 0;
    char nm[128], args[256];
    if (!v || !lane_of || !holds || maps != 2)
        goto nomem;
    /* Job numbers: the log's ids when all are job numbers the timeline
     * holds, else 1, 2, ... in order of first appearance. */
    int numeric = 1;
    int64_t x;
    for (size_t i = 0; i < d->n; i++)
        numeric &= job_id(d->p[i].job, &x);
    for (size_t i = 0, next = 1; i < d->n; i++) {
        d->p[i].job_num = -1;
        if (numeric && job_id(d->p[i].job, &x)) {
            d->p[i].job_num = (int32_t)x;
            continue;
        }
        for (size_t k = 0; k < i && d->p[i].job_num < 0; k++)
            if (!strcmp(d->p[k].job, d->p[i].job))
                d->p[i].job_num = d->p[k].job_num;
        if (d->p[i].job_num < 0)
            d->p[i].job_num = (int32_t)next++;
    }
    if (!aligned && (d->nf || d->nt))
        gs_import_skip(d->rep, "FIN_TIMING lines not placed: no GPU_TIMING hot_path line pairs "
                               "the tracing clock with TIMELINE offsets", d->name);
    /* Tracing times far from the TIMELINE base (a corrupt timestamp) are
     * dropped so every span stays well inside timeline/limits.h's time range. */
    if (aligned) {
        size_t k = 0;
        for (size_t i = 0; i < d->nf; i++)
            if (in_range(d->f[i].t_utc, delta))
                d->f[k++] = d->f[i];
            else
                gs_import_skip(d->rep, "tracing timestamp far from the TIMELINE clock", d->name);
        d->nf = k;
        k = 0;
        for (size_t i = 0; i < d->nt; i++)
            if (in_range(d->t[i].t_utc, delta))
                d->t[k++] = d->t[i];
            else
                gs_import_skip(d->rep, "tracing timestamp far from the TIMELINE clock", d->name);
        d->nt = k;
        for (size_t i = 0; i < d->n; i++)
            if (d->p[i].has_hot && !in_range(d->p[i].hot_utc, delta)) {
                d->p[i].has_hot = 0;
                gs_import_skip(d->rep, "tracing timestamp far from the TIMELINE clock", d->name);
            }
    }
    /* Synthesis. */
    size_t m = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->p[i].synth_start != UNSET && d->p[i].synth_end != UNSET &&
            d->p[i].synth_end >= d->p[i].synth_start)
            v[m++] = (iv){d->p[i].synth_start, d->p[i].synth_end, i};
    int nl;
    if (!assign_lanes(v, m, lane_of, &nl))
        goto nomem;
    for (size_t k = 0; k < m; k++) {
        const part *p = &d->p[v[k].idx];
        snprintf(nm, sizeof nm, "synth/%d", lane_of[k]);
        gs_tl_lane *l = imp_lane(&lanes, nm, GS_ROLE_SYNTH, -1, -1);
        if (!l)
            goto nomem;
        snprintf(args, sizeof args, "job_id=%s;approx=1", p->job);
        gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_SYNTH), p->job_num, p->part, v[k].a, v[k].b, 0, args);
        d->rep->used++;
    }
    /* Finalizers (tracing clock). */
    m = 0;
    for (size_t i = 0; aligned && i < d->nf; i++) {
        const fin *f = &d->f[i];
        int64_t e = f->t_utc - delta;
        int64_t s = e - ms_ns(f->process_ms + f->wait_ms + f->drop_ms + f->finish_ms);
        if (f->total_ms > 0 && e - ms_ns(f->total_ms) < s)
            s = e - ms_ns(f->total_ms);
        v[m++] = (iv){s, e, i};
    }
    if (!assign_lanes(v, m, lane_of, &nl))
        goto nomem;
    for (size_t k = 0; k < m; k++) {
        const fin *f = &d->f[v[k].idx];
        snprintf(nm, sizeof nm, "finalizer/%d", lane_of[k]);
        gs_tl_lane *l = imp_lane(&lanes, nm, GS_ROLE_FINALIZER, opt->device, -1);
        if (!l)
            goto nomem;
        int64_t he = v[k].b, hs = he - ms_ns(f->process_ms), ws = hs - ms_ns(f->wait_ms);
        int64_t ds = ws - ms_ns(f->drop_ms), fs = ds - ms_ns(f->finish_ms);
        /* total_ms may cover more than the four parts (work between them):
         * the finish then starts total_ms before the end. */
        if (f->total_ms > 0 && v[k].b - ms_ns(f->total_ms) < fs)
            fs = v[k].b - ms_ns(f->total_ms);
        gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_PROVE_FINISH), -1, -1, fs, fs + ms_ns(f->finish_ms), 0,
                   "approx=1");
        gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_BUFFER_RELEASE), -1, -1, ds, ws, 0, "approx=1");
        gs_tl_lock_wait(l, gs_vocab_name(GS_V_TRACKER), -1, -1, -1, ws, hs);
        gs_tl_span(l, GS_SPAN_LOCK_HOLD, gs_vocab_name(GS_V_TRACKER), -1, -1, hs, he, 0,
                   "what=process_result;approx=1");
        holds[nh++] = (hold_iv){hs, he, gs_tl_lane_id(l), lane_of[k]};
        d->rep->used++;
    }
    qsort(holds, nh, sizeof *holds, cmp_hold_iv);
    /* malloc_trim: inside the hold that covers it, else a background lane. */
    for (size_t i = 0; aligned && i < d->nt; i++) {
        const trim *t = &d->t[i];
        int64_t e = t->t_utc - delta, s = e - ms_ns(t->ms);
        gs_tl_lane *l = NULL;
        /* Holds are sorted by start (v is): the hold containing [s, e)
         * within a millisecond of slack, looking back from the last one
         * starting before s + 1 ms. */
        size_t lo = 0, hi = nh;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (holds[mid].a <= s + MS)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k > 0 && lo - k < 64 && !l; k--)
            if (s >= holds[k - 1].a - MS && e <= holds[k - 1].b + MS) {
                snprintf(nm, sizeof nm, "finalizer/%d", holds[k - 1].lane_no);
                if (!(l = imp_lane(&lanes, nm, GS_ROLE_FINALIZER, opt->device, -1)))
                    goto nomem;
            }
        if (!l && !(l = imp_lane(&lanes, "background/trim", GS_ROLE_BACKGROUND, -1, -1)))
            goto nomem;
        part *p = find_part(d, t->job, t->part, 0);
        snprintf(args, sizeof args, "job_id=%s;approx=1", t->job);
        gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_MALLOC_TRIM), p ? p->job_num : -1, t->part, s, e, 0,
                   args);
        d->rep->used++;
    }
    /* GPU workers and the device, per worker in GPU_START order. */
    snprintf(nm, sizeof nm, "gpu%d/stream0", (int)opt->device);
    gs_tl_lane *dev = imp_lane(&lanes, nm, GS_ROLE_DEVICE, opt->device, 0);
    if (!dev)
        goto nomem;
    m = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->p[i].start != UNSET)
            v[m++] = (iv){d->p[i].start, d->p[i].end, i};
    qsort(v, m, sizeof *v, cmp_iv);
    size_t n_ends = 0;
    ends = malloc((d->n + 1) * sizeof *ends);
    if (!ends)
        goto nomem;
    for (size_t i = 0; i < d->n; i++)
        if (d->p[i].end != UNSET)
            ends[n_ends++] = (wend){d->p[i].worker >= 0 ? d->p[i].worker : 0, d->p[i].end};
    qsort(ends, n_ends, sizeof *ends, cmp_wend);
    uint64_t from_end = 0, no_end = 0;
    for (size_t k = 0; k < m; k++) {
        part *p = &d->p[v[k].idx];
        int32_t job = p->job_num, pt = p->part;
        int64_t w = p->worker >= 0 ? p->worker : 0;
        snprintf(nm, sizeof nm, "gpu_worker/%d.%lld", (int)opt->device, (long long)w);
        gs_tl_lane *l = imp_lane(&lanes, nm, GS_ROLE_GPU_WORKER, opt->device, -1);
        if (!l)
            goto nomem;
        /* The device-mutex acquisition: after pre_lock_cpu_ms + mutex_wait_ms;
         * without that line, mutex_held_ms before prove_start's end (held
         * from the acquisition to the end of total_start_fn_ms); else at
         * GPU_START.  cpu_end: where the CPU prep ends and the wait begins. */
        int64_t acq = p->start, cpu_end = p->start;
        if (p->has_prelock) {
            cpu_end = p->start + ms_ns(p->pre_lock_ms);
            acq = cpu_end + ms_ns(p->mutex_wait_ms);
        } else if (p->has_held && p->total_start_fn_ms > p->mutex_held_ms) {
            acq = cpu_end = p->start + ms_ns(p->total_start_fn_ms - p->mutex_held_ms);
        }
        /* Prepared ahead: GPU_START before this worker's previous GPU_END
         * (a prep thread, or prove_start's CPU part overlapping the device
         * work of the partition before).  Its steps up to the acquisition go
         * to the worker's prep lane, as the engine draws engine.prep = ahead,
         * and its wait there is for the worker's turn (ready_wait), not a
         * device mutex: the worker lane keeps one partition at a time. */
        int64_t busy_until = UNSET, prep_free = UNSET;
        gs_imap_get(&w_end, w, &busy_until);
        gs_imap_get(&w_prep_free, w, &prep_free);
        int ahead = busy_until != UNSET && busy_until > p->start;
        gs_tl_lane *pl = l;
        if (ahead && acq < busy_until) {
            /* The worker takes it only after its previous GPU_END; without
             * pre_lock_cpu_ms the prep is taken to end there, the rest is
             * the wait for the worker. */
            if (!p->has_prelock)
                cpu_end = busy_until;
            acq = busy_until;
        }
        if (ahead && !p->has_prelock && cpu_end > busy_until)
            cpu_end = busy_until;
        if (ahead) {
            snprintf(nm, sizeof nm, "gpu_worker/%d.%lld/prep", (int)opt->device, (long long)w);
            if (!(pl = imp_lane(&lanes, nm, GS_ROLE_GPU_WORKER, opt->device, -1)))
                goto nomem;
        }
        int64_t pick = emit_checks(pl, p, job, pt, aligned, delta, holds, nh);
        /* No pickup line at all: the worker had it by GPU_START. */
        if (pick == UNSET)
            pick = p->start;
        int64_t q = p->queue != UNSET && p->queue < pick ? p->queue : pick;
        if (ahead) {
            /* The prep thread waited on an empty queue from its last hand-over
             * until this partition was queued; the worker went from its
             * previous GPU_END to the acquisition (hand-over of a partition
             * already prepared). */
            if (prep_free != UNSET && q > prep_free)
                gs_tl_span(pl, GS_SPAN_STEP, gs_vocab_name(GS_V_QUEUE_WAIT), -1, -1, prep_free, q, 0, "approx=1");
            int64_t prev = prev_end(ends, n_ends, w, acq);
            if (prev != UNSET && acq > prev)
                gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_HANDOFF), -1, -1, prev, acq, 0, "approx=1");
        } else {
            /* Between the previous GPU_END (also of partitions whose GPU_START
             * came before the log did) and the pickup: waiting on an empty
             * queue until this partition was queued, then hand-off work (the
             * queue held it, so the worker was busy elsewhere in its loop). */
            int64_t prev = prev_end(ends, n_ends, w, p->start);
            if (prev != UNSET && pick > prev) {
                if (q > prev)
                    gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_QUEUE_WAIT), -1, -1, prev, q, 0, "approx=1");
                if (pick > (q > prev ? q : prev))
                    gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_HANDOFF), -1, -1, q > prev ? q : prev, pick, 0,
                               "approx=1");
            }
        }
        int64_t end = p->end;
        if (end == UNSET) {
            if (!p->has_held) {
                no_end++;
                continue;
            }
            end = p->start + ms_ns(p->total_start_fn_ms);
        }
        if (end < p->start || end < acq) {
            no_end++;
            continue;
        }
        snprintf(args, sizeof args, "job_id=%s;approx=1", p->job);
        gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_PROVE_START), job, pt, ahead ? acq : p->start, end, 0, args);
        if (cpu_end > p->start)
            gs_tl_span(pl, GS_SPAN_STEP, gs_vocab_name(GS_V_HOST_PREP), job, pt, p->start, cpu_end, 0, "approx=1");
        if (ahead && acq > cpu_end)
            gs_tl_span(pl, GS_SPAN_STEP, gs_vocab_name(GS_V_READY_WAIT), job, pt, cpu_end, acq, 0, "approx=1");
        else if (p->has_prelock)
            gs_tl_lock_wait(l, gs_vocab_name(GS_V_DEVICE_MUTEX), -1, job, pt, cpu_end, acq);
        if (!gs_imap_put(&w_end, w, busy_until != UNSET && busy_until > end ? busy_until : end) ||
            !gs_imap_put(&w_prep_free, w, acq))
            goto nomem;
        int64_t busy_end;
        if (p->has_gpu) {
            busy_end = acq + ms_ns(p->gpu_total_ms);
            snprintf(args, sizeof args,
                     "approx=1;job_id=%s;ntt_msm_h_ms=%.3f;batch_add_ms=%.3f;tail_msm_ms=%.3f;"
                     "gpu_total_ms=%.3f", p->job, p->ntt_msm_h_ms, p->batch_add_ms, p->tail_ms,
                     p->gpu_total_ms);
        } else {
            busy_end = end;
            from_end++;
            snprintf(args, sizeof args, "approx=1;job_id=%s;from=gpu_end", p->job);
        }
        if (busy_end > acq) {
            gs_tl_span(dev, GS_SPAN_KERNEL, "prove", job, pt, acq, busy_end, GS_SPAN_F_APPROX, args);
            d->rep->used++;
        }
        if (p->has_g2 && p->b_g2_ms > 0 && end > busy_end) {
            int64_t gs = end - ms_ns(p->b_g2_ms);
            if (gs < busy_end)
                gs = busy_end;
            gs_tl_span(l, GS_SPAN_STEP, gs_vocab_name(GS_V_PROVE_FINISH), job, pt, gs, end, 0,
                       "approx=1;cpu_g2=1");
        }
    }
    if (from_end) {
        snprintf(args, sizeof args, "%llu", (unsigned long long)from_end);
        gs_timeline_meta_set(tl, "import.daemon_log.busy_until_gpu_end", args);
    }
    if (no_end)
        gs_import_skip(d->rep, "GPU_START without GPU_END or CUZK total_start_fn_ms (no device span)",
                       d->name);
    if (lanes.oom)
        goto nomem;
    gs_timeline_meta_set(tl, "timeline.approximate", "1");
    snprintf(args, sizeof args, "%s", aligned ? "tracing UTC aligned on GPU_TIMING hot_path / GPU_START"
                                              : "TIMELINE offsets only");
    gs_timeline_meta_set(tl, "import.daemon_log.clock", args);
    goto done;
nomem:
    st = gs_err_set(err, GS_ERR_NOMEM, "import daemon log", d->name, "out of memory");
done:
    gs_imap_free(&w_end);
    gs_imap_free(&w_prep_free);
    imp_lanes_free(&lanes);
    free(v);
    free(lane_of);
    free(holds);
    free(ends);
    return st;
}

/* Reads the log from w (a file when f, else data[0, len)). */
static gs_status parse_all(dlog *d, FILE *f, const uint8_t *data, size_t len, const char *name,
                           gs_import_report *rep, gs_err *err)
{
    memset(d, 0, sizeof *d);
    d->rep = rep;
    d->name = name;
    if (!gs_imap_init(&d->index, 0))
        return gs_err_set(err, GS_ERR_NOMEM, "import daemon log", name, "out of memory");
    imp_win w;
    if (f)
        imp_win_file(&w, f);
    else
        imp_win_mem(&w, (const char *)data, len);
    read_log(d, &w);
    int io = w.io, oom = w.oom;
    imp_win_free(&w);
    if (io)
        return gs_err_set(err, GS_ERR_IO, "import daemon log", name, "read error");
    if (d->oom || oom)
        return gs_err_set(err, GS_ERR_NOMEM, "import daemon log", name, "out of memory");
    if (!d->recognized) {
        char where[600];
        imp_where_line(where, sizeof where, name, 1);
        return gs_err_set(err, GS_ERR_FORMAT, "import daemon log", where,
                          "no daemon log lines (TIMELINE,<ms>,<event>,... / GPU_TIMING / "
                          "FIN_TIMING / CUZK_TIMING:) in the file");
    }
    return GS_OK;
}

static gs_status daemon_log(gs_timeline *tl, gs_import_report *rep, FILE *f, const uint8_t *data,
                            size_t len, const char *name, const gs_import_options *opt,
                            gs_err *err)
{
    gs_import_options defs;
    if (!opt) {
        gs_import_options_defaults(&defs);
        opt = &defs;
    }
    dlog d;
    gs_status st = parse_all(&d, f, data, len, name, rep, err);
    if (st == GS_OK)
        st = build(&d, tl, opt, err);
    if (st == GS_OK)
        imp_set_source(tl, "import:daemon_log", name);
    dlog_free(&d);
    return st;
}

gs_status gs_import_daemon_log(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                               size_t len, const char *name, const gs_import_options *opt,
                               gs_err *err)
{
    return daemon_log(tl, rep, NULL, data, len, name, opt, err);
}

gs_status gs_import_daemon_log_file(gs_timeline *tl, gs_import_report *rep, FILE *f,
                                    const char *name, const gs_import_options *opt, gs_err *err)
{
    return daemon_log(tl, rep, f, NULL, 0, name, opt, err);
}

/* ---- the job mix -------------------------------------------------------------------- */

static gs_status daemon_jobs(gs_log_job **jobs, size_t *n, gs_import_report *rep, FILE *f,
                             const uint8_t *data, size_t len, const char *name, gs_err *err)
{
    *jobs = NULL;
    *n = 0;
    dlog d;
    gs_status st = parse_all(&d, f, data, len, name, rep, err);
    gs_log_job *out = NULL;
    size_t no = 0;
    if (st != GS_OK)
        goto done;
    out = calloc(d.n + 1, sizeof *out);
    double *synth = calloc(d.n + 1, sizeof *synth);
    if (!out || !synth) {
        free(synth);
        st = gs_err_set(err, GS_ERR_NOMEM, "import daemon log", name, "out of memory");
        goto done;
    }
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < d.n; i++) {
        const part *p = &d.p[i];
        int64_t first = UNSET;
        int64_t cand[4] = {p->synth_start, p->queue, p->pickup, p->start};
        for (int k = 0; k < 4; k++)
            if (cand[k] != UNSET && (first == UNSET || cand[k] < first))
                first = cand[k];
        if (first == UNSET)
            continue;
        if (first < t0)
            t0 = first;
        size_t j = 0;
        while (j < no && strcmp(out[j].log_id, p->job))
            j++;
        if (j == no) {
            snprintf(out[no].log_id, sizeof out[no].log_id, "%s", p->job);
            out[no].t_ns = first;
            no++;
        } else if (first < out[j].t_ns) {
            out[j].t_ns = first;
        }
        /* distinct partitions: p is unique per (job, part) */
        out[j].partitions++;
        if (p->synth_ms > synth[j])
            synth[j] = p->synth_ms;
        if (p->synth_start != UNSET && p->synth_end != UNSET &&
            (double)(p->synth_end - p->synth_start) / 1e6 > synth[j])
            synth[j] = (double)(p->synth_end - p->synth_start) / 1e6;
        if (p->kind[0])
            snprintf(out[j].kind, sizeof out[j].kind, "%s", p->kind);
    }
    /* Sort by first event (stable: insertion order of ties kept). */
    for (size_t i = 1; i < no; i++)
        for (size_t k = i; k > 0 && out[k].t_ns < out[k - 1].t_ns; k--) {
            gs_log_job x = out[k];
            out[k] = out[k - 1];
            out[k - 1] = x;
            double y = synth[k];
            synth[k] = synth[k - 1];
            synth[k - 1] = y;
        }
    int numeric = 1;
    int64_t x;
    for (size_t i = 0; i < no; i++)
        numeric &= job_id(out[i].log_id, &x);
    for (size_t i = 0; i < no; i++) {
        out[i].t_ns -= t0;
        out[i].id = numeric && job_id(out[i].log_id, &x) ? (uint64_t)x : (uint64_t)(i + 1);
        if (!out[i].kind[0]) {
            out[i].kind_inferred = 1;
            const char *k = out[i].partitions == 10   ? "porep_c2"
                            : out[i].partitions == 16 ? "snap_deals"
                            : synth[i] >= 2000        ? "window_post"
                                                      : "winning_post";
            snprintf(out[i].kind, sizeof out[i].kind, "%s", k);
        }
    }
    free(synth);
    *jobs = out;
    *n = no;
    out = NULL;
done:
    free(out);
    dlog_free(&d);
    return st;
}

gs_status gs_import_daemon_jobs(gs_log_job **jobs, size_t *n, gs_import_report *rep,
                                const uint8_t *data, size_t len, const char *name, gs_err *err)
{
    return daemon_jobs(jobs, n, rep, NULL, data, len, name, err);
}

gs_status gs_import_daemon_jobs_path(gs_log_job **jobs, size_t *n, gs_import_report *rep,
                                     const char *path, gs_err *err)
{
    *jobs = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "input", path, "cannot open: %s", strerror(errno));
    gs_status st = daemon_jobs(jobs, n, rep, f, NULL, 0, path, err);
    fclose(f);
    return st;
}
