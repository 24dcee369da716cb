/*
 * The import front door: format names and sniffing, skip accounting, the
 * dispatch to the per-format parsers, and the helpers they share (lanes by
 * name, an int64 map, number and name clean-up).  See import.h.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "../../common/outfile.h"
#include "../../common/strmap.h"
#include "imp_internal.h"

static const char *const format_names[] = {GS_IMPORT_FORMAT_TABLE(GS_XT_COL2)};
_Static_assert(sizeof format_names / sizeof format_names[0] == GS_IMPORT_FORMAT_COUNT,
               "format table");

const char *gs_import_format_name(gs_import_format f)
{
    return (unsigned)f < GS_IMPORT_FORMAT_COUNT ? format_names[f] : "?";
}

int gs_import_format_from_name(gs_import_format *out, const char *name)
{
    int i = gs_xt_index(format_names, GS_IMPORT_FORMAT_COUNT, name);
    if (i >= 0) {
        *out = (gs_import_format)i;
        return 1;
    }
    if (!strcmp(name, "daemon_log") || !strcmp(name, "log")) {
        *out = GS_IMPORT_DAEMON_LOG;
        return 1;
    }
    if (!strcmp(name, "kineto") || !strcmp(name, "perfetto") || !strcmp(name, "json")) {
        *out = GS_IMPORT_CHROME;
        return 1;
    }
    if (!strcmp(name, "sqlite")) {
        *out = GS_IMPORT_NSYS;
        return 1;
    }
    return 0;
}

static int has_at(const uint8_t *d, size_t len, size_t i, const char *s)
{
    size_t n = strlen(s);
    return i + n <= len && !memcmp(d + i, s, n);
}

gs_import_format gs_import_sniff(const uint8_t *d, size_t len)
{
    if (has_at(d, len, 0, "SQLite format 3"))
        return len >= 16 && d[15] == 0 ? GS_IMPORT_NSYS : GS_IMPORT_AUTO;
    size_t i = 0;
    if (has_at(d, len, 0, "\xef\xbb\xbf"))
        i = 3;
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
        i++;
    if (i < len && (d[i] == '{' || d[i] == '['))
        return GS_IMPORT_CHROME;
    /* A daemon log: one of its line kinds near the start. */
    size_t lim = len < 65536 ? len : 65536;
    for (size_t k = 0; k < lim; k++) {
        if (k && d[k - 1] != '\n' && d[k - 1] != ' ' && d[k - 1] != 'm')
            continue;
        if (has_at(d, lim, k, "TIMELINE,") || has_at(d, lim, k, "CUZK_TIMING:") ||
            has_at(d, lim, k, "GPU_TIMING ") || has_at(d, lim, k, "FIN_TIMING "))
            return GS_IMPORT_DAEMON_LOG;
    }
    return GS_IMPORT_AUTO;
}

/* ---- skip accounting --------------------------------------------------------- */

void gs_import_report_init(gs_import_report *rep)
{
    memset(rep, 0, sizeof *rep);
}

void gs_import_skip(gs_import_report *rep, const char *reason, const char *where)
{
    if (!rep)
        return;
    for (size_t i = 0; i < rep->n_skipped; i++)
        if (!strcmp(rep->skipped[i].reason, reason)) {
            rep->skipped[i].count++;
            return;
        }
    if (rep->n_skipped == GS_IMPORT_MAX_REASONS) {
        gs_import_reason *r = &rep->skipped[GS_IMPORT_MAX_REASONS - 1];
        snprintf(r->reason, sizeof r->reason, "%s", "other reasons");
        r->count++;
        return;
    }
    gs_import_reason *r = &rep->skipped[rep->n_skipped++];
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    snprintf(r->first, sizeof r->first, "%s", where ? where : "");
    r->count = 1;
}

uint64_t gs_import_skipped_total(const gs_import_report *rep)
{
    uint64_t t = 0;
    for (size_t i = 0; i < rep->n_skipped; i++)
        t += rep->skipped[i].count;
    return t;
}

void gs_import_options_defaults(gs_import_options *o)
{
    o->device = 0;
}

/* ---- dispatch ------------------------------------------------------------------- */

gs_status gs_import_bytes(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                          size_t len, const char *name, gs_import_format fmt,
                          const gs_import_options *opt, gs_err *err)
{
    gs_import_options defs;
    if (!opt) {
        gs_import_options_defaults(&defs);
        opt = &defs;
    }
    if (fmt == GS_IMPORT_AUTO)
        fmt = gs_import_sniff(data, len);
    switch (fmt) {
    case GS_IMPORT_CHROME:
        return gs_import_chrome(tl, rep, data, len, name, err);
    case GS_IMPORT_NSYS:
        return gs_import_nsys(tl, rep, data, len, name, err);
    case GS_IMPORT_DAEMON_LOG:
        return gs_import_daemon_log(tl, rep, data, len, name, opt, err);
    default: {
        char where[600];
        imp_where_off(where, sizeof where, name, 0);
        return gs_err_set(err, GS_ERR_FORMAT, "import", where,
                          "unknown format (expected Chrome/Kineto trace JSON, an Nsight "
                          "Systems SQLite export or a daemon log with TIMELINE/GPU_TIMING/"
                          "FIN_TIMING/CUZK_TIMING lines; --format names it)");
    }
    }
}

gs_status gs_import_file(gs_timeline *tl, gs_import_report *rep, const char *path,
                         gs_import_format fmt, const gs_import_options *opt, gs_err *err)
{
    if (fmt == GS_IMPORT_AUTO || fmt == GS_IMPORT_CHROME || fmt == GS_IMPORT_NSYS ||
        fmt == GS_IMPORT_DAEMON_LOG) {
        FILE *f = fopen(path, "rb");
        if (!f)
            return gs_err_set(err, GS_ERR_IO, "input", path, "cannot open: %s", strerror(errno));
        uint8_t head[65536];
        size_t n = fread(head, 1, sizeof head, f);
        gs_import_format sniffed = fmt == GS_IMPORT_AUTO ? gs_import_sniff(head, n) : fmt;
        gs_status st = GS_OK;
        int done = 1;
        if (sniffed == GS_IMPORT_CHROME && fseek(f, 0, SEEK_SET) == 0)
            st = gs_import_chrome_file(tl, rep, f, path, err);
        else if (sniffed == GS_IMPORT_NSYS && n >= 100 && !memcmp(head, "SQLite format 3", 16))
            st = gs_import_nsys_path(tl, rep, path, err);
        else if (sniffed == GS_IMPORT_DAEMON_LOG && fseek(f, 0, SEEK_SET) == 0)
            st = gs_import_daemon_log_file(tl, rep, f, path, opt, err);
        else
            done = 0;
        fclose(f);
        if (done)
            return st;
        if (fmt == GS_IMPORT_AUTO)
            fmt = sniffed;
    }
    char *buf;
    size_t len;
    gs_status st = gs_read_file(&buf, &len, path, err);
    if (st != GS_OK)
        return st;
    st = gs_import_bytes(tl, rep, (const uint8_t *)buf, len, path, fmt, opt, err);
    free(buf);
    return st;
}

/* ---- lanes by name ------------------------------------------------------------------ */

void imp_lanes_init(imp_lanes *m, gs_timeline *tl)
{
    memset(m, 0, sizeof *m);
    m->tl = tl;
}

void imp_lanes_free(imp_lanes *m)
{
    if (m->names)
        gs_strmap_free(m->names);
    free(m->names);
    free(m->lane);
    memset(m, 0, sizeof *m);
}

gs_tl_lane *imp_lane(imp_lanes *m, const char *name, gs_role role, int32_t device,
                     int32_t stream)
{
    if (m->oom)
        return NULL;
    if (!m->names) {
        if (!(m->names = malloc(sizeof *m->names)))
            goto oom;
        gs_strmap_init(m->names);
        m->names->own = 1;
    }
    int added;
    const char *stored;
    uint64_t id = gs_strmap_get(m->names, name, 0, &added, &stored);
    if (!id)
        goto oom;
    if (!added)
        return m->lane[id - 1];
    if (!gs_grow(&m->lane, &m->cap, id - 1, sizeof *m->lane, 64) ||
        !(m->lane[id - 1] = gs_tl_lane_open(m->tl, name, role, device, stream)))
        goto oom;
    return m->lane[id - 1];
oom:
    m->oom = 1;   /* every later lookup fails too */
    return NULL;
}

/* ---- small text helpers ------------------------------------------------------------------ */

void imp_where_line(char *buf, size_t n, const char *name, long line)
{
    snprintf(buf, n, "%s:%ld", name, line);
}

void imp_where_off(char *buf, size_t n, const char *name, uint64_t off)
{
    snprintf(buf, n, "%s+%llu", name, (unsigned long long)off);
}

int imp_us_to_ns(const char *text, int64_t *out)
{
    const char *p = text;
    int neg = 0, big = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
        return 0;
    int64_t whole = 0;
    for (; isdigit((unsigned char)*p); p++)
        if (!big && (__builtin_mul_overflow(whole, 10, &whole) ||
                     __builtin_add_overflow(whole, *p - '0', &whole)))
            big = 1;
    int64_t frac = 0;
    int digits = 0;
    if (*p == '.') {
        p++;
        for (; isdigit((unsigned char)*p); p++, digits++)
            if (digits < 3)
                frac = frac * 10 + (*p - '0');
        /* more than 3 fractional digits: finer than a nanosecond, dropped */
    }
    for (int d = digits < 3 ? digits : 3; d < 3; d++)
        frac *= 10;
    if (*p == 'e' || *p == 'E') {
        char *e;
        double v = strtod(text, &e);
        if (*e || !(v == v))
            return 0;
        if (v >= 9.2e15 || v <= -9.2e15)
            return -1;
        *out = (int64_t)(v * 1000.0 + (v < 0 ? -0.5 : 0.5));
        return 1;
    }
    if (*p)
        return 0;
    int64_t ns;
    if (big || __builtin_mul_overflow(whole, 1000, &ns) || __builtin_add_overflow(ns, frac, &ns))
        return -1;
    *out = neg ? -ns : ns;
    return 1;
}

void imp_kernel_name(char *out, size_t n, const char *full)
{
    if (n > 97)
        n = 97;   /* at most 96 bytes */
    const char *s = full;
    while (*s == ' ')
        s++;
    /* Drop a leading return type ("void ", "void __cuda_...") of a
     * demangled signature: the first space before any '<' or '('. */
    const char *sp = strchr(s, ' '), *lt = strpbrk(s, "<(");
    if (sp && (!lt || sp < lt) && strncmp(s, "(anonymous", 10))
        s = sp + 1;
    size_t k = 0;
    int depth = 0;
    for (const char *p = s; *p && k + 1 < n; p++) {
        if (*p == '<') {
            depth++;
            continue;
        }
        if (*p == '>') {
            if (depth)
                depth--;
            continue;
        }
        if (depth)
            continue;
        if (*p == '(' && p != s && strncmp(p, "(anonymous namespace)", 21))
            break;
        out[k++] = (unsigned char)*p < 0x20 ? '_' : *p;
    }
    while (k && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
    if (!k)
        snprintf(out, n, "%s", "kernel");
}

void imp_set_source(gs_timeline *tl, const char *source, const char *name)
{
    const char *had = gs_timeline_meta_get(tl, "source");
    if (had && *had && !strstr(had, source)) {
        /* files of several sources: "import:chrome+import:daemon_log" */
        size_t n = strlen(had) + strlen(source) + 2;
        char *v = malloc(n);
        if (v) {
            snprintf(v, n, "%s+%s", had, source);
            gs_timeline_meta_set(tl, "source", v);
            free(v);
        }
    } else if (!had || !*had) {
        gs_timeline_meta_set(tl, "source", source);
    }
    const char *prev = gs_timeline_meta_get(tl, "source.file");
    if (!prev || !*prev) {
        gs_timeline_meta_set(tl, "source.file", name);
        return;
    }
    size_t n = strlen(prev) + strlen(name) + 2;
    char *v = malloc(n);
    if (!v)
        return;
    snprintf(v, n, "%s;%s", prev, name);
    gs_timeline_meta_set(tl, "source.file", v);
    free(v);
}

void imp_api_name(char *out, size_t n, const char *api)
{
    snprintf(out, n, "%s", api);
    char *v = strrchr(out, '_');
    if (v && v[1] == 'v' && isdigit((unsigned char)v[2])) {
        char *q = v + 2;
        while (isdigit((unsigned char)*q))
            q++;
        if (!*q)
            *v = '\0';
    }
}

int imp_api_is_sync(const char *api)
{
    static const char *const exact[] = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
        "cudaThreadSynchronize", "cudaFree", "cudaFreeHost", "cudaFreeArray",
        "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuMemFree",
        "cuMemFreeHost", "cuMemFree_v2",
    };
    char a[128];
    imp_api_name(a, sizeof a, api);
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(a, exact[i]))
            return 1;
    if ((!strncmp(a, "cudaMemcpy", 10) || !strncmp(a, "cuMemcpy", 8)) && !strstr(a, "Async"))
        return 1;
    return 0;
}
