/*
 * Reading the wake-up records of attach raw files (capture/attach/attach.h:
 * B U Q A from the libraries, J from the sampler, and sched.rec) into the
 * arrays of wake_int.h.  Kept apart from rawread.c: parse_line hands these
 * record types over whole.  Malformed lines are errors naming file:line.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wake_int.h"

const char *const gs_aw_kind_names[GS_AW_KINDS] = {"futex", "cond", "gil", "rwlock", "sem",
                                                   "offcpu"};

struct gs_attach_wraw *gs_attach_wraw_get(gs_attach_raw *c)
{
    if (!c->w && !(c->w = calloc(1, sizeof *c->w)))
        c->oom = 1;
    return c->w;
}

void gs_attach_wake_free(gs_attach_raw *c)
{
    struct gs_attach_wraw *w = c->w;
    if (!w)
        return;
    free(w->waits.v);
    free(w->wakes.v);
    free(w->stacks.v);
    free(w->astacks.v);
    free(w->mems.v);
    free(w->sws.v);
    free(w->wks.v);
    free(w->gstack);
    gs_elfsym_destroy(w->elf);
    free(w);
    c->w = NULL;
}

int gs_attach_is_wake_rec(char t)
{
    return t == 'B' || t == 'U' || t == 'Q' || t == 'A' || t == 'J';
}

static int kind_of(const char *s)
{
    for (int k = 0; k < GS_AW_KINDS; k++)
        if (!strcmp(s, gs_aw_kind_names[k]))
            return k;
    return -1;
}

static gs_status bad(gs_err *err, const char *path, long lineno)
{
    char where[2100];
    snprintf(where, sizeof where, "%s:%ld", path, lineno);
    return gs_err_set(err, GS_ERR_FORMAT, "attach", where,
                      "malformed record (the raw format is in capture/attach/attach.h)");
}

/* A frame "/path/of/object+0xOFF" named from the object's symbol table
 * (elfsym.c) into nm, else "object+0xOFF" (the file's base name). */
static const char *object_frame(struct gs_attach_wraw *w, const char *frame, char *nm, size_t n)
{
    const char *plus = strstr(frame, "+0x");
    if (frame[0] != '/' || !plus)
        return frame;
    char path[400];
    snprintf(path, sizeof path, "%.*s", (int)(plus - frame), frame);
    uint64_t off = strtoull(plus + 3, NULL, 16);
    if (!w->elf)
        w->elf = gs_elfsym_create();
    const char *name = w->elf ? gs_elfsym_lookup(w->elf, path, off) : NULL;
    if (name)
        snprintf(nm, n, "%s", name);
    else   /* path starts with '/' */
        snprintf(nm, n, "%s%s", strrchr(path, '/') + 1, plus);
    return nm;
}

/* A frame list with unexported frames named from their object files and
 * Itanium-mangled names shortened (Rust's trailing "::h<16 hex>" hash
 * dropped). */
static void shorten_frames(struct gs_attach_wraw *w, char *out, size_t n, const char *in)
{
    size_t len = 0;
    out[0] = '\0';
    while (*in && len + 1 < n) {
        size_t fl = strcspn(in, ";");
        char frame[512], nm[512], obj[512];
        snprintf(frame, sizeof frame, "%.*s", (int)(fl < 511 ? fl : 511), in);
        const char *f = object_frame(w, frame, obj, sizeof obj);
        if (f[0] == '_' && f[1] == 'Z') {
            gs_attach_kernel_name(nm, sizeof nm, f);
            size_t k = strlen(nm);
            if (k > 19 && !strncmp(nm + k - 19, "::h", 3) &&
                strspn(nm + k - 16, "0123456789abcdef") == 16)
                nm[k - 19] = '\0';
            f = nm;
        }
        int w = snprintf(out + len, n - len, "%s%s", len ? ";" : "", f);
        if (w < 0 || (size_t)w >= n - len)
            break;
        len += (size_t)w;
        in += fl;
        if (*in == ';')
            in++;
    }
}

/* line split into exactly k fields f[0..k-1]. */
static int fields(char *line, char **f, int k)
{
    char *rest;
    return gs_attach_split(line, f, k, &rest) && !*rest;
}

/* A signed field x within [lo, hi], else GS_ERR_FORMAT naming file:line. */
static gs_status in_range(gs_err *err, const char *path, long lineno, const char *field,
                          int64_t x, int64_t lo, int64_t hi)
{
    if (x >= lo && x <= hi)
        return GS_OK;
    char where[2100];
    snprintf(where, sizeof where, "%s:%ld", path, lineno);
    return gs_err_set(err, GS_ERR_FORMAT, "attach", where, "%s %lld is outside %lld..%lld", field,
                      (long long)x, (long long)lo, (long long)hi);
}

#define RANGE(x, lo, hi, name)                                                         \
    do {                                                                               \
        gs_status st_ = in_range(err, path, lineno, name, x, lo, hi);                  \
        if (st_ != GS_OK)                                                              \
            return st_;                                                                \
    } while (0)

/* Times of host records are CLOCK_MONOTONIC (no CUPTI offset); every
 * number is checked against the field it goes to (timeline/limits.h for
 * times, 32 bits for thread and stack ids), as rawread.c does. */
gs_status gs_attach_parse_wake(gs_attach_raw *c, char t, char *line, const char *path,
                               long lineno, int32_t pid, gs_err *err)
{
    struct gs_attach_wraw *w = gs_attach_wraw_get(c);
    if (!w)
        return GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
    int32_t file = (int32_t)c->st.files;
    char *f[8];
    uint64_t u[8];
    int64_t ts, te, x, y;
    int k;
    switch (t) {
    case 'B': {   /* START END TID KIND ADDR RESULT STACK */
        if (!fields(line, f, 7) || !gs_attach_u64(f[0], &u[0]) || !gs_attach_u64(f[1], &u[1]) ||
            !gs_attach_u64(f[2], &u[2]) || (k = kind_of(f[3])) < 0 || k == GS_AW_OFFCPU ||
            !gs_attach_u64(f[4], &u[4]) || !gs_attach_u64(f[5], &u[5]) ||
            !gs_attach_u64(f[6], &u[6]) || u[1] < u[0])
            return bad(err, path, lineno);
        GS_ATTACH_TIMES(ts, te, 0);
        GS_ATTACH_FIT(2, UINT32_MAX, "thread id");
        GS_ATTACH_FIT(5, INT32_MAX, "result");
        GS_ATTACH_FIT(6, UINT32_MAX, "stack id");
        gs_aw_wait v = {ts, te, -1, pid, (int32_t)u[5], file, (uint32_t)u[2], 0, u[4],
                        (uint32_t)u[6], 0, -1, (uint8_t)k, GS_AM_INTERPOSE, 0, 0, NULL};
        GS_ATTACH_PUSH(c, w->waits, v);
        c->st.waits++;
        return GS_OK;
    }
    case 'U': {   /* T TID KIND ADDR WOKEN WORD STACK */
        if (!fields(line, f, 7) || !gs_attach_u64(f[0], &u[0]) || !gs_attach_u64(f[1], &u[1]) ||
            (k = kind_of(f[2])) < 0 || k == GS_AW_OFFCPU || !gs_attach_u64(f[3], &u[3]) ||
            !gs_attach_i64(f[4], &x) || !gs_attach_i64(f[5], &y) || !gs_attach_u64(f[6], &u[6]))
            return bad(err, path, lineno);
        if (!gs_attach_time(u[0], 0, &ts))
            return gs_attach_bad_time(err, path, lineno, u[0], 0);
        GS_ATTACH_FIT(1, UINT32_MAX, "thread id");
        RANGE(x, -2, INT32_MAX, "woken count");
        RANGE(y, -1, UINT32_MAX, "futex word");
        GS_ATTACH_FIT(6, UINT32_MAX, "stack id");
        gs_aw_wake v = {ts, y, pid, file, (int32_t)x, 0, (uint32_t)u[1], (uint32_t)u[6], u[3],
                        (uint8_t)k, GS_AU_EVENT};
        GS_ATTACH_PUSH(c, w->wakes, v);
        c->st.wakes++;
        return GS_OK;
    }
    case 'Q': {   /* ID FRAMES */
        char *rest;
        if (!gs_attach_split(line, f, 1, &rest) || !gs_attach_u64(f[0], &u[0]) || !u[0])
            return bad(err, path, lineno);
        GS_ATTACH_FIT(0, UINT32_MAX, "stack id");
        static char frames[4096];
        shorten_frames(w, frames, sizeof frames, rest);
        const char *fr = gs_attach_intern(c, frames[0] ? frames : "?");
        gs_aw_stack v = {file, (uint32_t)u[0], 0, fr};
        GS_ATTACH_PUSH(c, w->stacks, v);
        c->st.stacks++;
        return GS_OK;
    }
    case 'A': {   /* T TID STACK */
        if (!fields(line, f, 3) || !gs_attach_nums(f, 3, u))
            return bad(err, path, lineno);
        if (!gs_attach_time(u[0], 0, &ts))
            return gs_attach_bad_time(err, path, lineno, u[0], 0);
        GS_ATTACH_FIT(1, UINT32_MAX, "thread id");
        GS_ATTACH_FIT(2, UINT32_MAX, "stack id");
        gs_aw_astack v = {ts, (uint32_t)u[1], (uint32_t)u[2], 0, file};
        GS_ATTACH_PUSH(c, w->astacks, v);
        return GS_OK;
    }
    case 'J': {   /* START END PID TID RSS_DROP_KB SYS_SAMPLES */
        if (!fields(line, f, 6) || !gs_attach_nums(f, 6, u) || u[1] < u[0])
            return bad(err, path, lineno);
        GS_ATTACH_TIMES(ts, te, 0);
        GS_ATTACH_FIT(2, INT32_MAX, "pid");
        GS_ATTACH_FIT(3, UINT32_MAX, "thread id");
        GS_ATTACH_FIT(4, LONG_MAX, "resident set drop (KiB)");
        GS_ATTACH_FIT(5, LONG_MAX, "samples");
        gs_aw_mem v = {ts, te, (int32_t)u[2], (uint32_t)u[3], (long)u[4], (long)u[5]};
        GS_ATTACH_PUSH(c, w->mems, v);
        c->st.mem_releases++;
        return GS_OK;
    }
    default:
        return bad(err, path, lineno);
    }
}

/* sched.rec's records after the header (format in attach.h). */
static gs_status sched_line(gs_attach_raw *c, struct gs_attach_wraw *w, char *line,
                            const char *path, long lineno, gs_err *err)
{
    char *f[6];
    uint64_t u[6];
    int64_t ts, state;
    if (line[0] && line[0] != 'i' && line[1] != ' ')
        return bad(err, path, lineno);
    switch (line[0]) {
    case 'i':
        snprintf(w->why, sizeof w->why, "%s", line[1] == ' ' ? line + 2 : "");
        return GS_OK;
    case 's': {   /* T CPU PREV PREV_STATE NEXT */
        if (!fields(line + 2, f, 5) || !gs_attach_nums(f, 3, u) || !gs_attach_i64(f[3], &state) ||
            !gs_attach_u64(f[4], &u[4]))
            return bad(err, path, lineno);
        if (!gs_attach_time(u[0], 0, &ts))
            return gs_attach_bad_time(err, path, lineno, u[0], 0);
        GS_ATTACH_FIT(1, UINT32_MAX, "cpu");
        GS_ATTACH_FIT(2, UINT32_MAX, "thread id");
        GS_ATTACH_FIT(4, UINT32_MAX, "thread id");
        gs_aw_sw v = {ts, state, (uint32_t)u[2], (uint32_t)u[4]};
        GS_ATTACH_PUSH(c, w->sws, v);
        c->st.sched_events++;
        return GS_OK;
    }
    case 'w': {   /* T WAKER WAKEE IRQ */
        if (!fields(line + 2, f, 4) || !gs_attach_nums(f, 4, u) || u[3] > 1)
            return bad(err, path, lineno);
        if (!gs_attach_time(u[0], 0, &ts))
            return gs_attach_bad_time(err, path, lineno, u[0], 0);
        GS_ATTACH_FIT(1, UINT32_MAX, "thread id");
        GS_ATTACH_FIT(2, UINT32_MAX, "thread id");
        gs_aw_wk v = {ts, (uint32_t)u[1], (uint32_t)u[2], (int)u[3]};
        GS_ATTACH_PUSH(c, w->wks, v);
        c->st.sched_events++;
        return GS_OK;
    }
    case 'l':   /* LOST */
        if (!fields(line + 2, f, 1) || !gs_attach_nums(f, 1, u))
            return bad(err, path, lineno);
        GS_ATTACH_FIT(0, LONG_MAX, "lost events");
        w->lost = (long)u[0];
        c->st.sched_lost = w->lost;
        return GS_OK;
    default:
        return bad(err, path, lineno);
    }
}

gs_status gs_attach_sched_line(gs_attach_raw *c, char *line, const char *path, long lineno,
                               gs_err *err)
{
    struct gs_attach_wraw *w = gs_attach_wraw_get(c);
    if (!w)
        return GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
    if (lineno > 1)
        return sched_line(c, w, line, path, lineno, err);
    char mech[32];
    int n = 0;
    if (sscanf(line, "Z gsched 1 %31s%n", mech, &n) != 1 || line[n] ||
        (strcmp(mech, "sched_tracepoints") && strcmp(mech, "interposition"))) {
        char where[2100];
        snprintf(where, sizeof where, "%s:1", path);
        return gs_err_set(err, GS_ERR_FORMAT, "attach", where,
                          "expected the header line \"Z gsched 1 MECH\"");
    }
    snprintf(w->mech, sizeof w->mech, "%s", mech);
    return GS_OK;
}
