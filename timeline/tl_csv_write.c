/*
 * spans.csv's writer (the format: timeline_csv.c and timeline/README.md).
 *
 * Rows are formatted into a buffer by hand and written a buffer at a time:
 * at ten million rows, stdio's per-call locking and printf's format
 * parsing (and its floating-point path for a value that is almost always
 * 0) were most of the write.  The bytes are those printf would write:
 * integers in decimal, the value with 17 significant digits ("%.17g",
 * formatted by snprintf except for integers below 2^53, printed as such),
 * name and args as RFC 4180 fields.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

#define OBUF 65536

typedef struct {
    FILE *f;
    size_t n;
    char b[OBUF];
} obuf;

static void ob_flush(obuf *o)
{
    if (o->n)
        fwrite(o->b, 1, o->n, o->f);
    o->n = 0;
}

static void ob_put(obuf *o, const char *s, size_t n)
{
    if (o->n + n > OBUF) {
        ob_flush(o);
        if (n > OBUF) {
            fwrite(s, 1, n, o->f);
            return;
        }
    }
    memcpy(o->b + o->n, s, n);
    o->n += n;
}

static void ob_c(obuf *o, char c)
{
    if (o->n == OBUF)
        ob_flush(o);
    o->b[o->n++] = c;
}

static void ob_i64(obuf *o, int64_t v)
{
    char d[24];
    int k = sizeof d;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        d[--k] = (char)('0' + u % 10);
    while ((u /= 10));
    if (v < 0)
        d[--k] = '-';
    ob_put(o, d + k, sizeof d - (size_t)k);
}

/* "%.17g" of v. */
static void ob_g17(obuf *o, double v)
{
    if (v == 0 && !signbit(v)) {
        ob_c(o, '0');
        return;
    }
    if (v != 0 && fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v) {
        ob_i64(o, (int64_t)v);   /* under 2^53, all 17 digits an integer has */
        return;
    }
    char d[40];
    int n = snprintf(d, sizeof d, "%.17g", v);
    ob_put(o, d, (size_t)n);
}

static void put_escaped(obuf *o, const char *s, int is_key)
{
    for (; *s; s++) {
        if (*s == '\\')
            ob_put(o, "\\\\", 2);
        else if (*s == '\n')
            ob_put(o, "\\n", 2);
        else if (*s == '\r')
            ob_put(o, "\\r", 2);
        else if (is_key && *s == '=')
            ob_put(o, "\\=", 2);
        else
            ob_c(o, *s);
    }
}

/* An RFC 4180 field: quoted when it holds a comma, quote, CR or LF. */
static void put_field(obuf *o, const char *s)
{
    size_t n = strcspn(s, ",\"\r\n");
    if (!s[n]) {
        ob_put(o, s, n);
        return;
    }
    ob_c(o, '"');
    for (; *s; s++) {
        if (*s == '"')
            ob_c(o, '"');
        ob_c(o, *s);
    }
    ob_c(o, '"');
}

static void put_int(obuf *o, const char *before, int64_t v)
{
    ob_put(o, before, strlen(before));
    ob_i64(o, v);
}

gs_status gs_timeline_write_csv(gs_timeline *tl, const char *path, gs_err *err)
{
    gs_outfile of;
    size_t n;
    const gs_span *sp;
    gs_status st = gs_tl_spans_to_write(&sp, &n, tl, "timeline csv", path, err);
    if (st != GS_OK)
        return st;
    obuf *o = malloc(sizeof *o);
    if (!o)
        return gs_err_set(err, GS_ERR_NOMEM, "timeline csv", path, "out of memory");
    st = gs_out_open(&of, path, err);
    if (st != GS_OK) {
        free(o);
        return st;
    }
    o->f = of.f;
    o->n = 0;
    ob_put(o, "# gapscope timeline v1\n", 23);
    for (size_t i = 0; i < gs_timeline_meta_count(tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(tl, i, &k, &v);
        ob_put(o, "# meta ", 7);
        put_escaped(o, k, 1);
        ob_c(o, '=');
        put_escaped(o, v, 0);
        ob_c(o, '\n');
    }
    for (size_t i = 0; i < gs_timeline_lane_count(tl); i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, (int32_t)i);
        put_int(o, "# lane ", L->id);
        ob_c(o, ',');
        ob_put(o, gs_role_name(L->role), strlen(gs_role_name(L->role)));
        put_int(o, ",", L->device);
        put_int(o, ",", L->stream);
        ob_c(o, ',');
        put_escaped(o, L->name, 0);
        ob_c(o, '\n');
    }
    for (size_t i = 0; i < gs_timeline_lane_count(tl); i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, (int32_t)i);
        if (L->process) {
            put_int(o, "# process ", L->id);
            put_int(o, ",", L->process);
            ob_c(o, '\n');
        }
    }
    if (gs_timeline_dropped(tl)) {
        ob_put(o, "# dropped ", 10);
        char d[24];
        int k = snprintf(d, sizeof d, "%llu\n", (unsigned long long)gs_timeline_dropped(tl));
        ob_put(o, d, (size_t)k);
    }
    int cpu = 0;
    for (size_t i = 0; i < n && !cpu; i++)
        cpu = (sp[i].flags & GS_SPAN_F_CPU) != 0;
    const char *hdr = cpu ? GS_TL_CSV_HEADER ",cpu_ns\n" : GS_TL_CSV_HEADER "\n";
    ob_put(o, hdr, strlen(hdr));
    for (size_t i = 0; i < n; i++) {
        const gs_span *s = &sp[i];
        ob_i64(o, s->start_ns);
        put_int(o, ",", s->end_ns);
        put_int(o, ",", s->lane);
        ob_c(o, ',');
        const char *kn = gs_span_kind_name((gs_span_kind)s->kind);
        ob_put(o, kn, strlen(kn));
        ob_c(o, ',');
        put_field(o, s->name);
        put_int(o, ",", s->job);
        put_int(o, ",", s->part);
        put_int(o, ",", s->flags);
        put_int(o, ",", s->holder);
        ob_c(o, ',');
        ob_g17(o, s->value);
        ob_c(o, ',');
        put_field(o, s->args);
        if (cpu && (s->flags & GS_SPAN_F_CPU))
            put_int(o, ",", s->cpu_ns);
        else if (cpu)
            ob_c(o, ',');
        ob_c(o, '\n');
    }
    ob_flush(o);
    free(o);
    return gs_out_close(&of, 1, err);
}
