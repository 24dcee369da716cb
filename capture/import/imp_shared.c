/*
 * What the import parsers share (contract in import.h and imp_internal.h):
 * skip accounting, the options' defaults, lanes by name, and the small
 * number and name helpers (microseconds to nanoseconds, kernel and CUDA API
 * names, where-strings for messages).  Below the parsers and the front
 * door (import.c): nothing here calls either.
 *
 * Threads: none of its own; a report, a lane map and a timeline belong to
 * one import at a time.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "../../common/strmap.h"
#include "imp_internal.h"

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
