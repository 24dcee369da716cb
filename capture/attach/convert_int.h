/*
 * Internals of the attach converter shared by rawread.c (reading raw
 * records into flat arrays) and convert.c (linking them and building the
 * timeline).  Not a public interface.
 */
#ifndef GS_ATTACH_CONVERT_INT_H
#define GS_ATTACH_CONVERT_INT_H

#include <stdint.h>
#include <stdlib.h>

#include "../../common/grow.h"
#include "../../common/strmap.h"
#include "attach.h"

#define GS_ATTACH_KNAME_MAX 96   /* shortened kernel names (timeline/SPANS.md) */

enum { GS_AOP_KERNEL, GS_AOP_COPY, GS_AOP_MEMSET };

typedef struct gs_attach_op {
    int64_t s, e;
    int32_t pid;
    uint32_t dev, stream, corr, rtcorr;
    uint8_t type, copy_kind, src, dst;
    uint64_t bytes;
    const char *name;
    int32_t api;              /* linked call, -1 none */
} gs_attach_op;

typedef struct gs_attach_call {
    int64_t s, e;
    int32_t pid;
    uint32_t tid, corr, cbid;
    uint8_t rt, sync, linked;
    int32_t parent;           /* enclosing runtime call of a driver call, -1 */
    const char *name;
} gs_attach_call;

typedef struct gs_attach_hrec {
    int64_t s, e;
    uint32_t tid, owner;
    int32_t pid;
    char kind;                /* W L T N P */
    uint64_t addr;
    const char *name;         /* N: range; P: state; */
    const char *detail;       /* P: syscall/wchan */
} gs_attach_hrec;

typedef struct gs_attach_sync {
    int32_t pid;
    uint32_t corr;
} gs_attach_sync;

typedef struct gs_attach_comm {
    uint32_t tid;
    const char *comm;
} gs_attach_comm;

#define GS_ATTACH_VEC(T)        \
    struct {          \
        T *v;         \
        size_t n, cap; \
    }

struct gs_attach_wraw;   /* waits, wakes, stacks, scheduler events (convert_wake.c) */

typedef struct gs_attach_raw {
    GS_ATTACH_VEC(gs_attach_op) ops;
    GS_ATTACH_VEC(gs_attach_call) api;
    GS_ATTACH_VEC(gs_attach_hrec) host;
    GS_ATTACH_VEC(gs_attach_sync) syncs;
    GS_ATTACH_VEC(gs_attach_comm) comms;
    gs_strmap strs;           /* interned strings (owned: `own` set at creation) */
    char devname[16][128];
    char info[1024];
    gs_attach_stats st;
    int oom;
    struct gs_attach_wraw *w;   /* NULL until a B U Q A J record or sched.rec is read */
} gs_attach_raw;

#define GS_ATTACH_PUSH(c, vec, val)                                                            \
    do {                                                                             \
        if (!gs_grow(&(vec).v, &(vec).cap, (vec).n, sizeof *(vec).v, 256)) {                 \
            (c)->oom = 1;                                                            \
            break;                                                                   \
        }                                                                            \
        (vec).v[(vec).n++] = (val);                                                  \
    } while (0)

/* The raw files of a folder: a library's p<pid>-<t0>[-audit].rec, the
 * sampler's sampler.rec, the scheduler's sched.rec (attach.h). */
enum { GS_ARAW_LIB, GS_ARAW_SAMPLER, GS_ARAW_SCHED };
/* Reads one raw file of that kind into c. */
gs_status gs_attach_read_file(gs_attach_raw *c, const char *path, int kind, gs_err *err);
/* s interned in c's string table (c->oom set, "" returned, when out of memory). */
const char *gs_attach_intern(gs_attach_raw *c, const char *s);
/* Frees what c holds (not c). */
void gs_attach_ctx_free(gs_attach_raw *c);

/* ---- field parsing (rawread.c; rawread_wake.c reads its records with it) ---- */

/* Splits the first k space-separated fields of line into f[0..k-1] (each
 * NUL-terminated in place); *rest gets what follows (the name field, may
 * be ""); returns 0 when fewer than k fields. */
int gs_attach_split(char *line, char **f, int k, char **rest);
/* An unsigned number (decimal, or 0x hex), a signed decimal one: 1 and
 * *out, else 0 (empty, trailing characters, a sign, out of range). */
int gs_attach_u64(const char *s, uint64_t *out);
int gs_attach_i64(const char *s, int64_t *out);
/* Parses fields f[0..k-1] as unsigned into u[]; 0 on a bad one. */
int gs_attach_nums(char **f, int k, uint64_t *u);
/* A raw time (CLOCK_MONOTONIC ns, or CUPTI's clock plus off) as a
 * timeline time: 0 when it does not fit timeline/limits.h (the caller
 * reports file:line; the add cannot overflow). */
int gs_attach_time(uint64_t raw, int64_t off, int64_t *out);
/* A value outside the range of the field it goes to: GS_ERR_FORMAT naming
 * file:line (nothing is narrowed to a smaller type on the way). */
gs_status gs_attach_too_big(gs_err *err, const char *path, long lineno, const char *field,
                            uint64_t v, uint64_t max);
/* A time outside timeline/limits.h after its offset: GS_ERR_FORMAT naming file:line. */
gs_status gs_attach_bad_time(gs_err *err, const char *path, long lineno, uint64_t raw, int64_t off);

/* In a record parser with locals u[] (the parsed fields), err, path and
 * lineno: returns the error when u[i] exceeds max (GS_ATTACH_FIT), or when
 * u[0], u[1] plus off are not timeline times (GS_ATTACH_TIMES, into s, e). */
#define GS_ATTACH_FIT(i, max, name)                                                       \
    do {                                                                                  \
        if (u[i] > (uint64_t)(max))                                                       \
            return gs_attach_too_big(err, path, lineno, name, u[i], (uint64_t)(max));     \
    } while (0)
#define GS_ATTACH_TIMES(s, e, off)                                                        \
    do {                                                                                  \
        if (!gs_attach_time(u[0], off, &(s)))                                             \
            return gs_attach_bad_time(err, path, lineno, u[0], off);                      \
        if (!gs_attach_time(u[1], off, &(e)))                                             \
            return gs_attach_bad_time(err, path, lineno, u[1], off);                      \
    } while (0)

/* ---- wake-up edges (rawread_wake.c, convert_wake.c) ---- */

/* 1 for the record types rawread_wake.c reads (B U Q A J). */
int gs_attach_is_wake_rec(char t);
/* Parses one such record (fields after "X "); file: the file's number
 * (stack ids are per file); pid: its header's pid. */
gs_status gs_attach_parse_wake(gs_attach_raw *c, char t, char *line, const char *path,
                               long lineno, int32_t pid, gs_err *err);
/* One line of sched.rec: the header "Z gsched 1 MECH" (lineno 1), then i,
 * s, w, l records. */
gs_status gs_attach_sched_line(gs_attach_raw *c, char *line, const char *path, long lineno,
                               gs_err *err);
/* Frees c->w. */
void gs_attach_wake_free(gs_attach_raw *c);

/* Number of thread ids the wake part may add to the lane list, and adds
 * them to tids[*n..] (for lanes before emission). */
size_t gs_attach_wake_ntids(const gs_attach_raw *c);
void gs_attach_wake_tids(const gs_attach_raw *c, uint32_t *tids, size_t *n);
/* Pairs waits with wakes, applies scheduler edges, and appends the wait,
 * hold and memory-release spans and the stack/mechanism metadata
 * (timeline/SPANS.md, "Foreign timelines"); lane_of maps a tid to its lane. */
gs_status gs_attach_wake_emit(gs_timeline *tl, gs_attach_raw *c,
                              gs_tl_lane *(*lane_of)(void *ctx, uint32_t tid), void *ctx,
                              gs_err *err);
/* Args of a malloc_trim span ("stack=N" when its stack is known, else ""). */
const char *gs_attach_trim_args(const gs_attach_raw *c, const gs_attach_hrec *h, char *buf,
                                size_t n);

#endif
