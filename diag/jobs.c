/*
 * jobs.csv and job statistics (jobs.h).
 *
 *   # gapscope jobs v1
 *   id,kind,partitions,status,verified,intended_ns,submitted_ns,done_ns,error
 *
 * error is the last field, quoted RFC 4180 style when it holds , or ";
 * line breaks in it are written as spaces (one record per line).
 */
#define _POSIX_C_SOURCE 200809L
#include "jobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "../common/grow.h"
#include "../common/outfile.h"
#include "../common/stats.h"

#define JOBS_HEADER "id,kind,partitions,status,verified,intended_ns,submitted_ns,done_ns,error"

gs_status gs_jobs_write_csv(const char *path, const gs_job_record *jobs, size_t n, gs_err *err)
{
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK)
        return st;
    fputs("# gapscope jobs v1\n" JOBS_HEADER "\n", o.f);
    for (size_t i = 0; i < n; i++) {
        const gs_job_record *j = &jobs[i];
        fprintf(o.f, "%llu,%s,%u,%s,%d,%lld,%lld,%lld,", (unsigned long long)j->id,
                j->kind[0] ? j->kind : "unknown", (unsigned)j->partitions,
                j->status[0] ? j->status : "pending", j->verified, (long long)j->intended_ns,
                (long long)j->submitted_ns, (long long)j->done_ns);
        int quote = strpbrk(j->error, ",\"") != NULL;
        if (quote)
            fputc('"', o.f);
        for (const char *p = j->error; *p; p++) {
            if (*p == '"')
                fputc('"', o.f);
            fputc(*p == '\n' || *p == '\r' ? ' ' : *p, o.f);
        }
        if (quote)
            fputc('"', o.f);
        fputc('\n', o.f);
    }
    return gs_out_close(&o, 1, err);
}

static int field_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (!*s || *e || errno || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* Splits one line into at most 9 fields (the last may be quoted). */
static int split(char *line, char **f)
{
    int k = 0;
    char *p = line;
    while (k < 8) {
        f[k++] = p;
        p = strchr(p, ',');
        if (!p)
            return k;
        *p++ = '\0';
    }
    if (*p == '"') {
        char *w = p, *r = p + 1;
        for (;;) {
            if (!*r)
                return -1;
            if (*r == '"') {
                if (r[1] == '"') {
                    *w++ = '"';
                    r += 2;
                    continue;
                }
                if (r[1])
                    return -1;
                break;
            }
            *w++ = *r++;
        }
        *w = '\0';
    }
    f[k++] = p;
    return k;
}

gs_status gs_jobs_read_csv(gs_job_record **out, size_t *n, const char *path, gs_err *err)
{
    char *buf = NULL, where[4200];
    size_t len, cap = 0, line_no = 0;
    gs_job_record *v = NULL;
    int header = 0;
    *out = NULL;
    *n = 0;
    gs_status st = gs_read_file(&buf, &len, path, err);
    if (st != GS_OK)
        return st;
    if (strlen(buf) != len) {   /* the lines after a NUL would be lost silently */
        for (const char *c = buf; *c; c++)
            line_no += *c == '\n';
        snprintf(where, sizeof where, "%s:%zu", path, line_no + 1);
        st = gs_err_set(err, GS_ERR_FORMAT, "jobs csv", where, "NUL byte (not a jobs.csv)");
        goto fail;
    }
    for (char *line = buf, *next; line && *line; line = next) {
        line_no++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        snprintf(where, sizeof where, "%s:%zu", path, line_no);
        if (!l || line[0] == '#')
            continue;
        if (!header) {
            if (strcmp(line, JOBS_HEADER)) {
                st = gs_err_set(err, GS_ERR_FORMAT, "jobs csv", where, "expected header '%s'",
                                JOBS_HEADER);
                goto fail;
            }
            header = 1;
            continue;
        }
        char *f[9];
        int64_t id, parts, ver, a, b, c;
        if (split(line, f) != 9) {
            st = gs_err_set(err, GS_ERR_FORMAT, "jobs csv", where, "expected 9 fields");
            goto fail;
        }
        if (!field_i64(f[0], 0, INT64_MAX, &id) || !field_i64(f[2], 0, UINT32_MAX, &parts) ||
            !field_i64(f[4], -1, 1, &ver) || !field_i64(f[5], -1, INT64_MAX, &a) ||
            !field_i64(f[6], -1, INT64_MAX, &b) || !field_i64(f[7], -1, INT64_MAX, &c) ||
            !*f[1] || strlen(f[1]) >= 32 || !*f[3] || strlen(f[3]) >= 32) {
            st = gs_err_set(err, GS_ERR_FORMAT, "jobs csv", where,
                            "bad field (id, kind, partitions, status, verified -1..1, times >= -1)");
            goto fail;
        }
        if (!gs_grow(&v, &cap, *n, sizeof *v, 64)) {
            st = gs_err_set(err, GS_ERR_NOMEM, "jobs csv", path, "out of memory");
            goto fail;
        }
        gs_job_record *j = &v[(*n)++];
        memset(j, 0, sizeof *j);
        j->id = (uint64_t)id;
        snprintf(j->kind, sizeof j->kind, "%s", f[1]);
        j->partitions = (uint32_t)parts;
        snprintf(j->status, sizeof j->status, "%s", f[3]);
        j->verified = (int)ver;
        j->intended_ns = a;
        j->submitted_ns = b;
        j->done_ns = c;
        snprintf(j->error, sizeof j->error, "%s", f[8]);
    }
    if (!header) {
        snprintf(where, sizeof where, "%s:%zu", path, line_no ? line_no : 1);
        st = gs_err_set(err, GS_ERR_FORMAT, "jobs csv", where, "no header line");
        goto fail;
    }
    free(buf);
    *out = v;
    return GS_OK;
fail:
    free(buf);
    free(v);
    *n = 0;
    return st;
}

void gs_job_stats_from_records(gs_job_stats *st, const gs_job_record *jobs, size_t n)
{
    memset(st, 0, sizeof *st);
    snprintf(st->source, sizeof st->source, "jobs.csv");
    st->submitted = (long)n;
    double *lat = malloc((n + 1) * sizeof *lat);
    for (size_t i = 0; i < n; i++) {
        const gs_job_record *j = &jobs[i];
        if (!strcmp(j->status, "ok"))
            st->completed++;
        else if (!strcmp(j->status, "pending"))
            st->pending++;
        else
            st->failed++;
        st->verified += j->verified == 1;
    }
    /* Latency per kind, in first-seen kind order. */
    for (size_t i = 0; i < n && lat; i++) {
        size_t k;
        for (k = 0; k < st->n_kinds; k++)
            if (!strcmp(st->kinds[k].kind, jobs[i].kind))
                break;
        if (k < st->n_kinds || st->n_kinds == GS_JOB_MAX_KINDS)
            continue;
        gs_kind_latency *L = &st->kinds[st->n_kinds++];
        snprintf(L->kind, sizeof L->kind, "%s", jobs[i].kind);
        size_t m = 0;
        double sum = 0;
        for (size_t j = i; j < n; j++) {
            const gs_job_record *r = &jobs[j];
            int64_t from = r->intended_ns >= 0 ? r->intended_ns : r->submitted_ns;
            if (strcmp(r->kind, L->kind) || strcmp(r->status, "ok") || from < 0 ||
                r->done_ns < from)
                continue;
            lat[m] = (double)(r->done_ns - from) * 1e-9;
            sum += lat[m++];
        }
        qsort(lat, m, sizeof *lat, gs_cmp_double);
        L->count = m;
        if (m) {
            L->mean_s = sum / (double)m;
            L->p50_s = gs_percentile(lat, m, 50);
            L->p90_s = gs_percentile(lat, m, 90);
            L->p99_s = gs_percentile(lat, m, 99);
            L->max_s = lat[m - 1];
        }
    }
    free(lat);
}

void gs_job_stats_from_timeline(gs_job_stats *st, gs_timeline *tl)
{
    memset(st, 0, sizeof *st);
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    long submit = 0, done = 0, ok = 0, ver = 0;
    for (size_t i = 0; i < n; i++) {
        if (sp[i].kind != GS_SPAN_MARK)
            continue;
        if (gs_vocab_is(sp[i].name, GS_V_SUBMIT))
            submit++;
        else if (gs_vocab_is(sp[i].name, GS_V_JOB_DONE)) {
            done++;
            ok += strstr(sp[i].args, "status=ok") != NULL;
            ver += strstr(sp[i].args, "verified=1") != NULL;
        }
    }
    snprintf(st->source, sizeof st->source, "%s", submit || done ? "timeline" : "none");
    st->submitted = submit ? submit : -1;
    st->completed = done ? ok : -1;
    st->failed = done ? done - ok : -1;
    st->verified = done ? ver : -1;
    st->pending = submit && done ? submit - done : -1;
}
