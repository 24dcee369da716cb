/*
 * Reading attach raw records (capture/attach/attach.h) into the flat arrays
 * of convert_int.h: one pass per file, one record per line, with the
 * kernel-name shortening and string interning on the way.  Malformed lines
 * are errors naming file:line; a last line without its newline (a crash)
 * is skipped and counted; device and API records without timestamps are
 * dropped and counted.  Every number is checked against the field it goes
 * to (timeline/limits.h for times, devices and streams; 32 bits for ids):
 * one beyond is an error naming file:line, never narrowed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_int.h"

/* ---- kernel names ------------------------------------------------------------- */


void gs_attach_kernel_name(char *out, size_t n, const char *m)
{
    size_t len = 0;
    if (!n)
        return;
    out[0] = '\0';
    if (!m)
        return;
    if (m[0] == '_' && m[1] == 'Z') {
        const char *p = m + 2;
        int nested = 0;
        if (*p == 'N') {
            nested = 1;
            p++;
            while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O')
                p++;
        }
        for (;;) {
            const char *part = NULL;
            size_t plen = 0;
            if (p[0] == 'S' && p[1] == 't') {
                part = "std";
                plen = 3;
                p += 2;
            } else if (*p >= '1' && *p <= '9') {
                char *e;
                unsigned long k = strtoul(p, &e, 10);
                if (strnlen(e, k) < k)
                    break;
                part = e;
                plen = k;
                p = e + k;
                if (plen == 12 && !strncmp(part, "_GLOBAL__N_1", 12)) {
                    part = "(anonymous namespace)";
                    plen = strlen(part);
                }
            } else {
                break;
            }
            if (len && len + 2 < n) {
                out[len++] = ':';
                out[len++] = ':';
            }
            for (size_t i = 0; i < plen && len + 1 < n; i++)
                out[len++] = part[i];
            out[len] = '\0';
            if (!nested)
                break;
        }
        if (len)
            goto cap;
    }
    /* Not mangled (extern "C", Triton) or not understood: up to '(' or '<'. */
    for (size_t i = 0; m[i] && m[i] != '(' && (m[i] != '<' || i == 0) && len + 1 < n; i++)
        out[len++] = m[i];
    out[len] = '\0';
cap:
    if (len > GS_ATTACH_KNAME_MAX && n > GS_ATTACH_KNAME_MAX)
        out[GS_ATTACH_KNAME_MAX] = '\0';
}



const char *gs_attach_intern(gs_attach_raw *c, const char *s)
{
    int added;
    const char *k;
    if (!gs_strmap_get(&c->strs, s, 0, &added, &k)) {
        c->oom = 1;
        return "";
    }
    return k;
}

/* ---- parsing ------------------------------------------------------------------ */

int gs_attach_split(char *line, char **f, int k, char **rest)
{
    char *p = line;
    for (int i = 0; i < k; i++) {
        if (!*p)
            return 0;
        f[i] = p;
        while (*p && *p != ' ')
            p++;
        if (*p)
            *p++ = '\0';
    }
    if (rest)
        *rest = p;
    return 1;
}

int gs_attach_u64(const char *s, uint64_t *out)
{
    if (!*s)
        return 0;
    char *e;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 0);
    if (*e || errno || *s == '-')
        return 0;
    *out = v;
    return 1;
}

int gs_attach_i64(const char *s, int64_t *out)
{
    if (!*s)
        return 0;
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (*e || errno)
        return 0;
    *out = v;
    return 1;
}

int gs_attach_nums(char **f, int k, uint64_t *u)
{
    for (int i = 0; i < k; i++)
        if (!gs_attach_u64(f[i], &u[i]))
            return 0;
    return 1;
}

/* where = "path:line" */
static gs_status fmt_err(gs_err *err, const char *path, long lineno, const char *what)
{
    char where[2100];
    snprintf(where, sizeof where, "%s:%ld", path, lineno);
    return gs_err_set(err, GS_ERR_FORMAT, "attach", where, "%s", what);
}

/* CUPTI returns records of work still in flight at a forced flush with
 * zero (or all-ones) timestamps: they are dropped and counted. */
static int untimed(gs_attach_raw *c, const uint64_t *u)
{
    if (u[0] && u[1] && u[1] >= u[0] && u[0] != UINT64_MAX && u[1] - u[0] < (uint64_t)1 << 50)
        return 0;
    c->st.untimed++;
    return 1;
}

int gs_attach_time(uint64_t raw, int64_t off, int64_t *out)
{
    return raw <= (uint64_t)INT64_MAX && gs_tl_time_add(out, (int64_t)raw, off);
}

gs_status gs_attach_too_big(gs_err *err, const char *path, long lineno, const char *field,
                            uint64_t v, uint64_t max)
{
    char where[2100];
    snprintf(where, sizeof where, "%s:%ld", path, lineno);
    return gs_err_set(err, GS_ERR_FORMAT, "attach", where, "%s %llu is outside 0..%llu", field,
                      (unsigned long long)v, (unsigned long long)max);
}

gs_status gs_attach_bad_time(gs_err *err, const char *path, long lineno, uint64_t raw, int64_t off)
{
    char where[2100];
    snprintf(where, sizeof where, "%s:%ld", path, lineno);
    return gs_err_set(err, GS_ERR_FORMAT, "attach", where,
                      "time %llu + offset %lld ns is outside +-(2^62 - 1) ns (timeline/limits.h)",
                      (unsigned long long)raw, (long long)off);
}

static gs_status parse_line(gs_attach_raw *c, char *line, const char *path, long lineno, int32_t *pid,
                            int64_t *off, gs_err *err)
{
    char *f[12], *rest;
    uint64_t u[12];
    int64_t ts, te;
    char t = line[0];
    if (!t || line[1] != ' ')
        goto bad;
    line += 2;
    if (gs_attach_is_wake_rec(t))
        return gs_attach_parse_wake(c, t, line, path, lineno, *pid, err);
    switch (t) {
    case 'H':
        if (!gs_attach_split(line, f, 5, &rest) || strcmp(f[0], "gsattach") || strcmp(f[1], "1") ||
            !gs_attach_nums(f + 2, 3, u))
            goto bad;
        GS_ATTACH_FIT(0, INT32_MAX, "pid");
        *pid = (int32_t)u[0];
        *off = 0;
        return GS_OK;
    case 'I':
        if (strstr(line, "cupti=on"))
            c->st.cupti_on = 1;
        if (strlen(c->info) + strlen(line) + 3 < sizeof c->info) {
            if (c->info[0])
                strcat(c->info, "; ");
            strcat(c->info, line);
        }
        return GS_OK;
    case 'O': {
        int64_t o;
        if (!gs_attach_split(line, f, 1, NULL) || !gs_attach_i64(f[0], &o))
            goto bad;
        *off = o;
        return GS_OK;
    }
    case 'K':     /* kernel: start end device context stream corr name */
    case 'M':     /* copy: ... corr runtime-corr copy-kind src-kind dst-kind bytes */
    case 'S': {   /* memset: ... corr bytes */
        int k = t == 'K' ? 6 : t == 'M' ? 11 : 8;
        if (!gs_attach_split(line, f, k, t == 'K' ? &rest : NULL) || !gs_attach_nums(f, k, u) ||
            (t == 'K' && !*rest))
            goto bad;
        if (untimed(c, u))
            return GS_OK;
        GS_ATTACH_TIMES(ts, te, *off);
        GS_ATTACH_FIT(2, GS_TL_DEVICE_MAX, "device");
        GS_ATTACH_FIT(4, INT32_MAX, "stream");
        GS_ATTACH_FIT(5, UINT32_MAX, "correlation id");
        gs_attach_op o = {ts, te, *pid, (uint32_t)u[2],
                    (uint32_t)u[4], (uint32_t)u[5], 0, GS_AOP_KERNEL, 0, 0, 0, 0, NULL, -1};
        if (t == 'K') {
            char nm[GS_ATTACH_KNAME_MAX + 8];
            gs_attach_kernel_name(nm, sizeof nm, rest);
            o.name = gs_attach_intern(c, nm[0] ? nm : "kernel");
            c->st.kernels++;
        } else if (t == 'M') {
            GS_ATTACH_FIT(6, UINT32_MAX, "runtime correlation id");
            GS_ATTACH_FIT(7, UINT8_MAX, "copy kind");
            GS_ATTACH_FIT(8, UINT8_MAX, "source memory kind");
            GS_ATTACH_FIT(9, UINT8_MAX, "destination memory kind");
            GS_ATTACH_FIT(10, INT64_MAX, "bytes");
            o.rtcorr = (uint32_t)u[6];
            o.type = GS_AOP_COPY;
            o.copy_kind = (uint8_t)u[7];
            o.src = (uint8_t)u[8];
            o.dst = (uint8_t)u[9];
            o.bytes = u[10];
            c->st.copies++;
        } else {
            GS_ATTACH_FIT(6, INT64_MAX, "bytes");
            o.type = GS_AOP_MEMSET;
            o.bytes = u[6];
            c->st.memsets++;
        }
        GS_ATTACH_PUSH(c, c->ops, o);
        return GS_OK;
    }
    case 'Y': {
        if (!gs_attach_split(line, f, 6, NULL) || !gs_attach_nums(f, 6, u))
            goto bad;
        GS_ATTACH_FIT(4, UINT32_MAX, "correlation id");
        gs_attach_sync y = {*pid, (uint32_t)u[4]};
        GS_ATTACH_PUSH(c, c->syncs, y);
        return GS_OK;
    }
    case 'R':
    case 'D': {
        if (!gs_attach_split(line, f, 5, &rest) || !gs_attach_nums(f, 5, u) || !*rest)
            goto bad;
        if (untimed(c, u))   /* CUPTI's in-flight records: as device records */
            return GS_OK;
        GS_ATTACH_TIMES(ts, te, *off);
        GS_ATTACH_FIT(2, UINT32_MAX, "thread id");
        GS_ATTACH_FIT(3, UINT32_MAX, "correlation id");
        GS_ATTACH_FIT(4, UINT32_MAX, "callback id");
        char nm[128];
        size_t k = 0;
        for (; rest[k] && k + 1 < sizeof nm; k++)
            nm[k] = rest[k];
        nm[k] = '\0';
        /* cudaLaunchKernel_v7000 -> cudaLaunchKernel */
        char *v = strstr(nm, "_v");
        if (v && v[2] >= '0' && v[2] <= '9' && strspn(v + 2, "0123456789") == strlen(v + 2))
            *v = '\0';
        gs_attach_call a = {ts, te, *pid, (uint32_t)u[2],
                     (uint32_t)u[3], (uint32_t)u[4], t == 'R', 0, 0, -1, gs_attach_intern(c, nm)};
        GS_ATTACH_PUSH(c, c->api, a);
        c->st.api_calls++;
        return GS_OK;
    }
    case 'V':
        if (!gs_attach_split(line, f, 1, &rest) || !gs_attach_nums(f, 1, u))
            goto bad;
        if (u[0] < 16)
            snprintf(c->devname[u[0]], sizeof c->devname[0], "%s", rest);
        return GS_OK;
    case 'W':
    case 'L':
    case 'T':
    case 'N': {
        int k = t == 'W' ? 5 : 3;
        if (t == 'L' || t == 'T')
            k = 4;
        if (!gs_attach_split(line, f, k, &rest) || !gs_attach_u64(f[0], &u[0]) || !gs_attach_u64(f[1], &u[1]) ||
            !gs_attach_u64(f[2], &u[2]) || u[1] < u[0])
            goto bad;
        GS_ATTACH_TIMES(ts, te, 0);
        GS_ATTACH_FIT(2, UINT32_MAX, "thread id");
        gs_attach_hrec h = {ts, te, (uint32_t)u[2], 0, *pid, t, 0, NULL, NULL};
        if (t == 'W' || t == 'L') {
            if (!gs_attach_u64(f[3], &h.addr))
                goto bad;
            if (t == 'W') {
                if (!gs_attach_u64(f[4], &u[4]))
                    goto bad;
                GS_ATTACH_FIT(4, UINT32_MAX, "owner thread id");
                h.owner = (uint32_t)u[4];
                c->st.lock_waits++;
            }
        } else if (t == 'T') {
            c->st.trims++;
        } else {
            if (!*rest)
                goto bad;
            h.name = gs_attach_intern(c, rest);
            c->st.nvtx++;
        }
        GS_ATTACH_PUSH(c, c->host, h);
        return GS_OK;
    }
    case 'X':
        if (!gs_attach_split(line, f, 2, NULL) || !gs_attach_nums(f, 2, u))
            goto bad;
        GS_ATTACH_FIT(1, INT64_MAX, "dropped count");
        if (__builtin_add_overflow(c->st.dropped, (long)u[1], &c->st.dropped))
            return gs_attach_too_big(err, path, lineno, "dropped count (summed)", u[1], (uint64_t)LONG_MAX);
        return GS_OK;
    case 'F':
    case 'E':
    case 'G':
        return GS_OK;
    case 'P': {
        if (!gs_attach_split(line, f, 6, NULL) || !gs_attach_nums(f, 4, u) || u[1] < u[0])
            goto bad;
        int known = 0;
        for (int s = 0; s < GS_TS_COUNT; s++)
            known |= !strcmp(f[4], gs_tstate_name((gs_tstate)s));
        if (!known)
            goto bad;
        GS_ATTACH_TIMES(ts, te, 0);
        GS_ATTACH_FIT(2, INT32_MAX, "pid");
        GS_ATTACH_FIT(3, UINT32_MAX, "thread id");
        gs_attach_hrec h = {ts, te, (uint32_t)u[3], 0, (int32_t)u[2], 'P', 0,
                      gs_attach_intern(c, f[4]), gs_attach_intern(c, f[5])};
        GS_ATTACH_PUSH(c, c->host, h);
        c->st.state_runs++;
        return GS_OK;
    }
    case 'C': {
        if (!gs_attach_split(line, f, 2, &rest) || !gs_attach_nums(f, 2, u))
            goto bad;
        GS_ATTACH_FIT(1, UINT32_MAX, "thread id");
        gs_attach_comm cr = {(uint32_t)u[1], gs_attach_intern(c, rest)};
        GS_ATTACH_PUSH(c, c->comms, cr);
        return GS_OK;
    }
    default:
        break;
    }
bad:
    return fmt_err(err, path, lineno,
                   "malformed record (the raw format is in capture/attach/attach.h)");
}

gs_status gs_attach_read_file(gs_attach_raw *c, const char *path, int kind, gs_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "attach", path, "%s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t k;
    long lineno = 0;
    int32_t pid = -1;
    int64_t off = 0;
    gs_status st = GS_OK;
    c->st.files++;
    while ((k = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[k - 1] != '\n') {
            c->st.truncated++;   /* cut by a crash: the last line only */
            break;
        }
        line[--k] = '\0';
        if (lineno == 1 && kind == GS_ARAW_LIB && line[0] != 'H') {
            st = fmt_err(err, path, 1, "expected the header line \"H gsattach 1 ...\"");
            break;
        }
        if (lineno == 1 && kind == GS_ARAW_SAMPLER && line[0] != 'G') {
            st = fmt_err(err, path, 1, "expected the sampler header line \"G T0 HZ\"");
            break;
        }
        c->st.lines++;
        st = kind == GS_ARAW_SCHED ? gs_attach_sched_line(c, line, path, lineno, err)
                                   : parse_line(c, line, path, lineno, &pid, &off, err);
        if (st != GS_OK)
            break;
        if (c->oom) {
            st = GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory reading %s", path);
            break;
        }
    }
    if (st == GS_OK && lineno == 0 && kind != GS_ARAW_SCHED)
        c->st.truncated++;   /* an empty file: the process died before its header */
    free(line);
    fclose(f);
    return st;
}

void gs_attach_ctx_free(gs_attach_raw *c)
{
    gs_strmap_free(&c->strs);
    free(c->ops.v);
    free(c->api.v);
    free(c->host.v);
    free(c->syncs.v);
    free(c->comms.v);
    gs_attach_wake_free(c);
}
