/*
 * spans.csv: the canonical, loss-free form of a timeline (format in
 * timeline/README.md, "spans.csv").
 *
 *   # gapscope timeline v1
 *   # meta <key>=<value>          key escapes \\ \n \r \= ; value \\ \n \r
 *   # lane <id>,<role>,<device>,<stream>,<name>   name escaped like a value
 *   # process <lane id>,<process> only for lanes of process != 0 (merged runs)
 *   # dropped <n>                 only when spans were dropped in capture
 *   start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args[,cpu_ns]
 *   <one row per span, sorted by (start, end, lane)>
 *
 * cpu_ns (the CPU time a step consumed) is written only when some span has
 * GS_SPAN_F_CPU, so timelines without CPU times keep the 11-column form
 * older readers know; a row's cpu_ns is non-empty exactly when its flags
 * carry GS_SPAN_F_CPU (the reader checks).
 *
 * name and args are RFC 4180 fields: quoted (with "" for ") when they hold
 * a comma, quote, CR or LF; a quoted field may span lines.  value is
 * written with 17 significant digits, so doubles round-trip exactly.
 * Other "#" lines are comments.  The reader checks every field and reports
 * the first problem as GS_ERR_FORMAT at "path:line".  The writer is
 * tl_csv_write.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "tl_internal.h"

#define CSV_FIELDS 11
#define CSV_FIELDS_CPU 12

/* ---- reader --------------------------------------------------------------- */

typedef struct {
    const char *path;
    const char *p, *end;
    size_t line;
    gs_err *err;
    char *fld[CSV_FIELDS_CPU];
    size_t cap[CSV_FIELDS_CPU];
    int n_fields;      /* of the header: CSV_FIELDS or CSV_FIELDS_CPU */
} reader;

static gs_status bad(reader *r, size_t line, const char *fmt, const char *detail)
{
    char where[4200];
    snprintf(where, sizeof where, "%s:%zu", r->path, line);
    return gs_err_set(r->err, GS_ERR_FORMAT, "timeline csv", where, fmt, detail);
}

static int fld_put(reader *r, int k, size_t *len, char c)
{
    if (!gs_grow(&r->fld[k], &r->cap[k], *len + 1, 1, 64))   /* c and the NUL */
        return 0;
    r->fld[k][(*len)++] = c;
    r->fld[k][*len] = '\0';
    return 1;
}

/* Parses one RFC 4180 record at r->p into r->fld; advances past its end of
 * line.  Returns the field count, or -1 (error set). */
static int parse_record(reader *r)
{
    size_t start_line = r->line;
    int k = 0;
    for (;;) {
        if (k == CSV_FIELDS_CPU) {
            bad(r, start_line, "%s", "more than 12 fields");
            return -1;
        }
        size_t len = 0;
        if (!fld_put(r, k, &len, 'x'))
            goto nomem;
        len = 0;
        r->fld[k][0] = '\0';
        if (r->p < r->end && *r->p == '"') {
            r->p++;
            for (;;) {
                if (r->p >= r->end) {
                    bad(r, start_line, "%s", "unterminated quoted field");
                    return -1;
                }
                char c = *r->p++;
                if (c == '"') {
                    if (r->p < r->end && *r->p == '"')
                        r->p++;
                    else
                        break;
                } else if (c == '\n') {
                    r->line++;
                }
                if (!fld_put(r, k, &len, c))
                    goto nomem;
            }
            if (r->p < r->end && *r->p != ',' && *r->p != '\n' && *r->p != '\r') {
                bad(r, r->line, "%s", "text after a closing quote");
                return -1;
            }
        } else {
            while (r->p < r->end && *r->p != ',' && *r->p != '\n' && *r->p != '\r') {
                if (*r->p == '"') {
                    bad(r, r->line, "%s", "quote inside an unquoted field");
                    return -1;
                }
                if (!fld_put(r, k, &len, *r->p++))
                    goto nomem;
            }
        }
        k++;
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == '\r')
            r->p++;
        if (r->p < r->end && *r->p == '\n') {
            r->p++;
            r->line++;
        } else if (r->p < r->end) {
            bad(r, r->line, "%s", "stray carriage return");
            return -1;
        }
        return k;
    }
nomem:
    gs_err_set(r->err, GS_ERR_NOMEM, "timeline csv", r->path, "out of memory");
    return -1;
}

/* A value outside timeline/limits.h: GS_ERR_FORMAT at path:line. */
static gs_status range(reader *r, size_t line, gs_tl_value v, int64_t x)
{
    char where[4200];
    snprintf(where, sizeof where, "%s:%zu", r->path, line);
    return gs_tl_check(r->err, "timeline csv", where, v, x);
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!*s)
        return 0;
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (*e || errno || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* Unescapes \\ \n \r \= in place; stops at an unescaped '=' when stop_eq
 * (returns the rest after it via *rest).  Returns 0 on a bad escape. */
static int unescape(char *s, int stop_eq, char **rest)
{
    char *w = s;
    if (rest)
        *rest = NULL;
    for (char *p = s; *p; p++) {
        if (*p == '\\') {
            p++;
            if (*p == '\\')
                *w++ = '\\';
            else if (*p == 'n')
                *w++ = '\n';
            else if (*p == 'r')
                *w++ = '\r';
            else if (*p == '=' && stop_eq)
                *w++ = '=';
            else
                return 0;
        } else if (stop_eq && *p == '=') {
            *w = '\0';
            *rest = p + 1;
            return 1;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    return !stop_eq;
}

static gs_status comment_line(reader *r, gs_timeline *tl, char *line)
{
    if (!strncmp(line, "# meta ", 7)) {
        char *val;
        if (!unescape(line + 7, 1, &val) || !unescape(val, 0, NULL))
            return bad(r, r->line, "%s", "meta line needs key=value with valid escapes");
        gs_timeline_meta_set(tl, line + 7, val);
    } else if (!strncmp(line, "# lane ", 7)) {
        char *f[5], *p = line + 7;
        for (int i = 0; i < 4; i++) {
            f[i] = p;
            p = strchr(p, ',');
            if (!p)
                return bad(r, r->line, "%s", "lane line needs id,role,device,stream,name");
            *p++ = '\0';
        }
        f[4] = p;
        int64_t id, dev, str;
        gs_role role;
        if (!parse_i64(f[0], 0, INT32_MAX, &id) || (size_t)id != gs_timeline_lane_count(tl))
            return bad(r, r->line, "lane id '%s' out of order", f[0]);
        if (!gs_role_from_name(&role, f[1]))
            return bad(r, r->line, "unknown lane role '%s'", f[1]);
        if (!parse_i64(f[2], INT64_MIN, INT64_MAX, &dev) || !parse_i64(f[3], INT64_MIN, INT64_MAX, &str))
            return bad(r, r->line, "%s", "lane device/stream must be integers");
        gs_status st = range(r, r->line, GS_TLV_DEVICE, dev);
        if (st == GS_OK)
            st = range(r, r->line, GS_TLV_STREAM, str);
        if (st != GS_OK)
            return st;
        if (role == GS_ROLE_DEVICE && dev < 0)
            return bad(r, r->line, "%s", "a device lane needs a device >= 0");
        if (!unescape(f[4], 0, NULL))
            return bad(r, r->line, "%s", "bad escape in lane name");
        if (!gs_tl_lane_open(tl, f[4], role, (int32_t)dev, (int32_t)str))
            return gs_err_set(r->err, GS_ERR_NOMEM, "timeline csv", r->path, "out of memory");
    } else if (!strncmp(line, "# process ", 10)) {
        char *comma = strchr(line + 10, ',');
        int64_t id, proc;
        if (!comma)
            return bad(r, r->line, "%s", "process line needs <lane id>,<process>");
        *comma = '\0';
        if (!parse_i64(line + 10, 0, INT32_MAX, &id) || (size_t)id >= gs_timeline_lane_count(tl))
            return bad(r, r->line, "process line names lane '%s', not declared before it", line + 10);
        if (!parse_i64(comma + 1, 0, INT32_MAX, &proc))
            return bad(r, r->line, "%s", "process must be an integer >= 0");
        gs_tl_lane_set_process(gs_tl_lane_by_id(tl, (int32_t)id), (int32_t)proc);
    } else if (!strncmp(line, "# dropped ", 10)) {
        int64_t d;
        if (!parse_i64(line + 10, 0, INT64_MAX, &d))
            return bad(r, r->line, "%s", "dropped count must be a non-negative integer");
        gs_tl_set_dropped(tl, (uint64_t)d);
    }
    return GS_OK;
}

static gs_status data_row(reader *r, gs_timeline *tl, size_t line)
{
    char **f = r->fld;
    int64_t a, b, lane, job, part, flags, holder, cpu = 0;
    gs_span_kind kind;
    gs_status st;
    if (!parse_i64(f[0], INT64_MIN, INT64_MAX, &a) || !parse_i64(f[1], INT64_MIN, INT64_MAX, &b))
        return bad(r, line, "%s", "start_ns/end_ns must be integers");
    if ((st = range(r, line, GS_TLV_TIME, a)) != GS_OK || (st = range(r, line, GS_TLV_TIME, b)) != GS_OK)
        return st;
    if (b < a)
        return bad(r, line, "%s", "end_ns before start_ns");
    if (!parse_i64(f[2], 0, (int64_t)gs_timeline_lane_count(tl) - 1, &lane))
        return bad(r, line, "lane '%s' is not a declared lane id", f[2]);
    if (!gs_span_kind_from_name(&kind, f[3]))
        return bad(r, line, "unknown span kind '%s'", f[3]);
    if (!parse_i64(f[5], INT64_MIN, INT64_MAX, &job) || !parse_i64(f[6], INT64_MIN, INT64_MAX, &part))
        return bad(r, line, "%s", "job/part must be integers");
    if ((st = range(r, line, GS_TLV_JOB, job)) != GS_OK || (st = range(r, line, GS_TLV_PART, part)) != GS_OK)
        return st;
    if (!parse_i64(f[7], INT64_MIN, INT64_MAX, &flags))
        return bad(r, line, "flags '%s' must be an integer", f[7]);
    if ((st = range(r, line, GS_TLV_FLAGS, flags)) != GS_OK)
        return st;
    if (!parse_i64(f[8], -1, (int64_t)gs_timeline_lane_count(tl) - 1, &holder))
        return bad(r, line, "holder '%s' is not -1 or a declared lane id", f[8]);
    char *e;
    errno = 0;
    double v = strtod(f[9], &e);
    if (!*f[9] || *e)
        return bad(r, line, "value '%s' is not a number", f[9]);
    if (!gs_tl_value_ok(v))
        return bad(r, line, "value '%s' is not a finite number (timeline/limits.h)", f[9]);
    int has_cpu = r->n_fields == CSV_FIELDS_CPU && *f[11];
    if (has_cpu != ((flags & GS_SPAN_F_CPU) != 0))
        return bad(r, line, "%s", has_cpu ? "cpu_ns given but flags lack the CPU bit (8)"
                                          : "flags carry the CPU bit (8) but cpu_ns is empty");
    if (has_cpu && !parse_i64(f[11], 0, INT64_MAX, &cpu))
        return bad(r, line, "cpu_ns '%s' must be an integer >= 0", f[11]);
    gs_span s = {.start_ns = a, .end_ns = b, .lane = (int32_t)lane, .holder = (int32_t)holder,
                 .job = (int32_t)job, .part = (int32_t)part, .kind = (uint16_t)kind,
                 .flags = (uint16_t)flags, .value = v, .name = f[4], .args = f[10],
                 .cpu_ns = cpu};
    const char *why = gs_span_invalid(tl, &s);
    if (why)
        return bad(r, line, "span with %s", why);
    size_t before = gs_timeline_dropped(tl);
    gs_tl_append_raw(gs_tl_lane_by_id(tl, (int32_t)lane), &s);
    if (gs_timeline_dropped(tl) != before)
        return gs_err_set(r->err, GS_ERR_NOMEM, "timeline csv", r->path, "out of memory");
    return GS_OK;
}

gs_status gs_timeline_read_csv(gs_timeline **out, const char *path, gs_err *err)
{
    reader r = {.path = path, .line = 1, .err = err};
    gs_timeline *tl = NULL;
    char *buf = NULL, *line = NULL;
    size_t len;
    int header = 0;
    *out = NULL;
    gs_status st = gs_read_file(&buf, &len, path, err);
    if (st != GS_OK)
        return st;
    if (strlen(buf) != len) {
        st = bad(&r, 1, "%s", "file contains a NUL byte (not a spans.csv)");
        goto fail;
    }
    st = gs_timeline_create(&tl);
    if (st != GS_OK)
        goto fail;
    r.p = buf;
    r.end = buf + len;
    while (r.p < r.end) {
        if (*r.p == '#') {
            const char *nl = memchr(r.p, '\n', (size_t)(r.end - r.p));
            size_t l = nl ? (size_t)(nl - r.p) : (size_t)(r.end - r.p);
            free(line);
            line = strndup(r.p, l);
            if (!line) {
                st = gs_err_set(err, GS_ERR_NOMEM, "timeline csv", path, "out of memory");
                goto fail;
            }
            if (l && line[l - 1] == '\r')
                line[l - 1] = '\0';
            if ((st = comment_line(&r, tl, line)) != GS_OK)
                goto fail;
            r.p += l + (nl ? 1 : 0);
            r.line++;
            continue;
        }
        size_t rec_line = r.line;
        if (*r.p == '\n' || (*r.p == '\r' && r.p + 1 < r.end && r.p[1] == '\n')) {
            r.p += *r.p == '\r' ? 2 : 1;
            r.line++;
            continue;
        }
        int k = parse_record(&r);
        if (k < 0) {
            st = err && err->status ? err->status : GS_ERR_FORMAT;
            goto fail;
        }
        if (!header) {
            static const char *const names[CSV_FIELDS] = {
                "start_ns", "end_ns", "lane", "kind", "name", "job",
                "part", "flags", "holder", "value", "args"};
            int ok = k == CSV_FIELDS || (k == CSV_FIELDS_CPU && !strcmp(r.fld[11], "cpu_ns"));
            for (int i = 0; ok && i < CSV_FIELDS; i++)
                ok = !strcmp(r.fld[i], names[i]);
            if (!ok) {
                st = bad(&r, rec_line, "%s", "expected the header line '" GS_TL_CSV_HEADER "' (or it with ',cpu_ns')");
                goto fail;
            }
            header = 1;
            r.n_fields = k;
            continue;
        }
        if (k != r.n_fields) {
            char d[64];
            if (k > r.n_fields)
                snprintf(d, sizeof d, "more than %d fields", r.n_fields);
            else
                snprintf(d, sizeof d, "expected %d fields, found %d", r.n_fields, k);
            st = bad(&r, rec_line, "%s", d);
            goto fail;
        }
        if ((st = data_row(&r, tl, rec_line)) != GS_OK)
            goto fail;
    }
    if (!header) {
        st = bad(&r, r.line, "%s", "no header line (not a spans.csv)");
        goto fail;
    }
    for (int i = 0; i < CSV_FIELDS_CPU; i++)
        free(r.fld[i]);
    free(line);
    free(buf);
    *out = tl;
    return GS_OK;
fail:
    for (int i = 0; i < CSV_FIELDS_CPU; i++)
        free(r.fld[i]);
    free(line);
    free(buf);
    gs_timeline_destroy(tl);
    return st;
}
