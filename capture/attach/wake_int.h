/*
 * Internals of the attach converter's wake-up part, shared by
 * rawread_wake.c (records -> arrays) and convert_wake.c (pairing and
 * emission).  Not a public interface.
 */
#ifndef GS_ATTACH_WAKE_INT_H
#define GS_ATTACH_WAKE_INT_H

#include "convert_int.h"

/* Wait kinds (the lock name's prefix in the timeline). */
enum { GS_AW_FUTEX, GS_AW_COND, GS_AW_GIL, GS_AW_RWLOCK, GS_AW_SEM, GS_AW_OFFCPU, GS_AW_KINDS };
/* How the wait was seen, and how its waker was found. */
enum { GS_AM_INTERPOSE, GS_AM_SAMPLER, GS_AM_SCHED };
/* What the wait is for (args wait=): a lock, an event (work, a signal), the GIL. */
enum { GS_AU_LOCK, GS_AU_EVENT, GS_AU_GIL };

typedef struct gs_aw_wait {
    int64_t s, e, wake_t;       /* wake_t: -1 unknown */
    int32_t pid, result, file;
    uint32_t tid, waker;        /* waker 0: unknown */
    uint64_t addr;
    uint32_t stack, wstack;     /* per-file ids until resolved, then global (0 none) */
    int32_t wfile;              /* the waker's file (its stack id's scope) */
    uint8_t kind, mech, wmech, use;
    const char *detail;         /* GS_AW_OFFCPU: the syscall the sampler saw */
} gs_aw_wait;

typedef struct gs_aw_wake {
    int64_t t, word;            /* word: the futex word after the wake, -1 not read */
    int32_t pid, file, woken, cap;
    uint32_t tid, stack;
    uint64_t addr;
    uint8_t kind;
    uint8_t use;                /* GS_AU_LOCK / GS_AU_EVENT of its (pid, addr) futex word */
} gs_aw_wake;

typedef struct gs_aw_stack {
    int32_t file;
    uint32_t id, gid;
    const char *frames;         /* interned, names shortened */
} gs_aw_stack;

typedef struct gs_aw_astack {   /* A: the stack of a malloc_trim */
    int64_t t;
    uint32_t tid, id, gid;
    int32_t file;
} gs_aw_astack;

typedef struct gs_aw_mem {      /* J: memory released */
    int64_t s, e;
    int32_t pid;
    uint32_t tid;
    long kb, sys;
} gs_aw_mem;

typedef struct gs_aw_sw {       /* s: a context switch */
    int64_t t, state;
    uint32_t prev, next;
} gs_aw_sw;

typedef struct gs_aw_wk {       /* w: a wake-up issued */
    int64_t t;
    uint32_t waker, wakee;
    int irq;
} gs_aw_wk;

/* elfsym.c: function names from object files' own symbol tables. */
typedef struct gs_elfsym gs_elfsym;
gs_elfsym *gs_elfsym_create(void);
void gs_elfsym_destroy(gs_elfsym *e);
/* The function at offset off from path's load base, or NULL (the file's
 * string, valid until gs_elfsym_destroy). */
const char *gs_elfsym_lookup(gs_elfsym *e, const char *path, uint64_t off);

struct gs_attach_wraw {
    GS_ATTACH_VEC(gs_aw_wait) waits;
    GS_ATTACH_VEC(gs_aw_wake) wakes;
    GS_ATTACH_VEC(gs_aw_stack) stacks;
    GS_ATTACH_VEC(gs_aw_astack) astacks;
    GS_ATTACH_VEC(gs_aw_mem) mems;
    GS_ATTACH_VEC(gs_aw_sw) sws;
    GS_ATTACH_VEC(gs_aw_wk) wks;
    char mech[32];              /* from sched.rec's header */
    char why[256];
    long lost;
    const char **gstack;        /* global stack id - 1 -> frames */
    size_t n_gstack;
    gs_elfsym *elf;             /* objects opened to name frames, NULL until needed */
};

extern const char *const gs_aw_kind_names[GS_AW_KINDS];
#define OFFCPU_MIN_NS 50000     /* an off-CPU stretch shorter is not a wait */
#define WAIT_MIN_NS 10000       /* waits shorter are counted, not drawn */

/* convert_wake.c: stacks resolved, GIL waits merged, sampler waits added,
 * waits sorted by (tid, start) with their use, wakes sorted by (pid, addr,
 * t), waits paired by address.  0 when out of memory. */
int gs_aw_prepare(gs_attach_raw *c, struct gs_attach_wraw *w);
/* 1 when a wait of tid among the first n (sorted) waits overlaps [s, e). */
int gs_aw_covered(const struct gs_attach_wraw *w, size_t n, uint32_t tid, int64_t s, int64_t e);
uint8_t gs_aw_use(const struct gs_attach_wraw *w, const gs_aw_wait *v);
/* Sorts the waits by (tid, start); the index of tid's first wait among
 * the first n (sorted) waits. */
void gs_aw_sort_waits(struct gs_attach_wraw *w);
size_t gs_aw_first_of(const struct gs_attach_wraw *w, size_t n, uint32_t tid);
/* qsort that leaves fewer than two elements alone (an empty vector's
 * array is NULL, which qsort may not be given). */
void gs_aw_qsort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* c->w, allocated on first use (NULL when out of memory: c->oom set). */
struct gs_attach_wraw *gs_attach_wraw_get(gs_attach_raw *c);

#endif
