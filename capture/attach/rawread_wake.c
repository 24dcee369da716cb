/*
 * Reading the wake-up records of attach raw files (capture/attach/attach.h:
 * B U Q A from the libraries, J from the sampler, and sched.rec) into the
 * arrays of wake_int.h.  Kept apart from rawread.c: parse_line hands these
 * record types over whole.  Malformed lines are errors naming file:line.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
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

gs_status gs_attach_parse_wake(gs_attach_raw *c, char t, char *line, const char *path,
                               long lineno, int32_t pid, gs_err *err)
{
    struct gs_attach_wraw *w = gs_attach_wraw_get(c);
    if (!w)
        return GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
    int32_t file = (int32_t)c->st.files;
    int n = 0;
    char kind[16];
    switch (t) {
    case 'B': {
        long long s, e;
        unsigned tid, st;
        unsigned long long addr;
        int res, k;
        if (sscanf(line, "%lld %lld %u %15s %llx %d %u%n", &s, &e, &tid, kind, &addr, &res, &st,
                   &n) != 7 || line[n] || e < s || s < 0 || (k = kind_of(kind)) < 0 ||
            k == GS_AW_OFFCPU)
            return bad(err, path, lineno);
        gs_aw_wait v = {s, e, -1, pid, res, file, tid, 0, addr, st, 0, -1, (uint8_t)k,
                        GS_AM_INTERPOSE, 0, 0, NULL};
        GS_ATTACH_PUSH(c, w->waits, v);
        c->st.waits++;
        return GS_OK;
    }
    case 'U': {
        long long tt, word;
        unsigned tid, st;
        unsigned long long addr;
        int woken, k;
        if (sscanf(line, "%lld %u %15s %llx %d %lld %u%n", &tt, &tid, kind, &addr, &woken, &word,
                   &st, &n) != 7 || line[n] || tt < 0 || (k = kind_of(kind)) < 0 ||
            k == GS_AW_OFFCPU || woken < -2)
            return bad(err, path, lineno);
        gs_aw_wake v = {tt, word, pid, file, woken, 0, tid, st, addr, (uint8_t)k, GS_AU_EVENT};
        GS_ATTACH_PUSH(c, w->wakes, v);
        c->st.wakes++;
        return GS_OK;
    }
    case 'Q': {
        unsigned id;
        if (sscanf(line, "%u%n", &id, &n) != 1 || !id || (line[n] && line[n] != ' '))
            return bad(err, path, lineno);
        static char frames[4096];
        shorten_frames(w, frames, sizeof frames, line[n] ? line + n + 1 : "");
        const char *f = gs_attach_intern(c, frames[0] ? frames : "?");
        gs_aw_stack v = {file, id, 0, f};
        GS_ATTACH_PUSH(c, w->stacks, v);
        c->st.stacks++;
        return GS_OK;
    }
    case 'A': {
        long long tt;
        unsigned tid, id;
        if (sscanf(line, "%lld %u %u%n", &tt, &tid, &id, &n) != 3 || line[n] || tt < 0)
            return bad(err, path, lineno);
        gs_aw_astack v = {tt, tid, id, 0, file};
        GS_ATTACH_PUSH(c, w->astacks, v);
        return GS_OK;
    }
    case 'J': {
        long long s, e;
        int p;
        unsigned tid;
        long kb, sys;
        if (sscanf(line, "%lld %lld %d %u %ld %ld%n", &s, &e, &p, &tid, &kb, &sys, &n) != 6 ||
            line[n] || e < s || s < 0 || kb < 0 || sys < 0)
            return bad(err, path, lineno);
        gs_aw_mem v = {s, e, p, tid, kb, sys};
        GS_ATTACH_PUSH(c, w->mems, v);
        c->st.mem_releases++;
        return GS_OK;
    }
    default:
        return bad(err, path, lineno);
    }
}

static gs_status sched_line(gs_attach_raw *c, struct gs_attach_wraw *w, char *line,
                            const char *path, long lineno, gs_err *err)
{
    int n = 0;
    switch (line[0]) {
    case 'i':
        snprintf(w->why, sizeof w->why, "%s", line[1] == ' ' ? line + 2 : "");
        return GS_OK;
    case 's': {
        long long t, state;
        unsigned cpu, prev, next;
        if (sscanf(line + 1, " %lld %u %u %lld %u%n", &t, &cpu, &prev, &state, &next, &n) != 5 ||
            line[1 + n] || t < 0)
            return bad(err, path, lineno);
        gs_aw_sw v = {t, state, prev, next};
        GS_ATTACH_PUSH(c, w->sws, v);
        c->st.sched_events++;
        return GS_OK;
    }
    case 'w': {
        long long t;
        unsigned waker, wakee;
        int irq;
        if (sscanf(line + 1, " %lld %u %u %d%n", &t, &waker, &wakee, &irq, &n) != 4 ||
            line[1 + n] || t < 0 || (irq != 0 && irq != 1))
            return bad(err, path, lineno);
        gs_aw_wk v = {t, waker, wakee, irq};
        GS_ATTACH_PUSH(c, w->wks, v);
        c->st.sched_events++;
        return GS_OK;
    }
    case 'l':
        if (sscanf(line + 1, " %ld%n", &w->lost, &n) != 1 || line[1 + n])
            return bad(err, path, lineno);
        c->st.sched_lost = w->lost;
        return GS_OK;
    default:
        return bad(err, path, lineno);
    }
}

gs_status gs_attach_read_sched(gs_attach_raw *c, const char *path, gs_err *err)
{
    struct gs_attach_wraw *w = gs_attach_wraw_get(c);
    if (!w)
        return GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory");
    FILE *f = fopen(path, "r");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "attach", path, "%s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t k;
    long lineno = 0;
    gs_status st = GS_OK;
    c->st.files++;
    while ((k = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[k - 1] != '\n') {
            c->st.truncated++;
            break;
        }
        line[--k] = '\0';
        c->st.lines++;
        if (lineno == 1) {
            char mech[32];
            int n = 0;
            if (sscanf(line, "Z gsched 1 %31s%n", mech, &n) != 1 || line[n] ||
                (strcmp(mech, "sched_tracepoints") && strcmp(mech, "interposition"))) {
                char where[2100];
                snprintf(where, sizeof where, "%s:1", path);
                st = gs_err_set(err, GS_ERR_FORMAT, "attach", where,
                                "expected the header line \"Z gsched 1 MECH\"");
                break;
            }
            snprintf(w->mech, sizeof w->mech, "%s", mech);
            continue;
        }
        if ((st = sched_line(c, w, line, path, lineno, err)) != GS_OK)
            break;
        if (c->oom) {
            st = GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory reading %s", path);
            break;
        }
    }
    free(line);
    fclose(f);
    return st;
}
