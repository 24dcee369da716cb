/*
 * Internals of the launcher rule shared by attrib_launcher.c (lane states,
 * the launcher, the rule's table) and attrib_chain.c (waits followed
 * through their holders and wakers).  Not a public interface.
 */
#ifndef GS_DIAG_LAUNCHER_INT_H
#define GS_DIAG_LAUNCHER_INT_H

#include "../common/imap.h"
#include "attrib.h"

/* Lane state codes, in precedence order (diag/README.md, "Attribution of
 * foreign timelines"). */
enum {
    ST_NONE,
    ST_LOCK_WAIT,
    ST_TRIM,
    ST_MEMREL,
    ST_H2D_PAGEABLE,
    ST_CUDA_SYNC,
    ST_FUTEX,
    ST_IO,
    ST_SLEEP,
    ST_RUNNABLE,
    ST_COMPUTE,
};

typedef struct lseg {
    int64_t t0, t1;
    int code;
    int32_t span;     /* ST_LOCK_WAIT: the wait; ST_COMPUTE: innermost nvtx range;
                         ST_TRIM, ST_MEMREL: the malloc_trim / memory_release span; else -1 */
} lseg;

typedef struct lstate {
    int built;
    lseg *v;
    size_t n, cap;
} lstate;

typedef struct devop {
    int32_t device;
    int64_t start;
    uint32_t span;
} devop;

typedef struct hold {
    const char *lock;
    int64_t start, end;
    int32_t lane, proc;
} hold;

typedef struct detail {
    gs_cause cause;
    char *text;
} detail;

struct gs_launcher {
    const gs_span *sp;
    size_t n_sp;
    const gs_lane_info *const *info;
    size_t n_lanes;
    lstate *st;           /* per lane, built on first use */
    uint32_t *by_lane;    /* host state spans bucketed by lane (counting sort) */
    size_t *lane_off;     /* lane l's spans: by_lane[lane_off[l] .. lane_off[l + 1]) */
    devop *ops;           /* device operations sorted by (device, start, span) */
    size_t n_ops;
    int32_t *launcher;    /* per device op: launcher lane, -2 not yet resolved, -1 none */
    hold *holds;          /* LOCK_HOLD spans sorted by (process, lock, start) */
    size_t n_holds;
    gs_imap corr_lane;    /* ckey(process, corr) -> lane of the cuda:* call */
    gs_imap pageable;     /* ckeys of COPY spans with pageable=1 */
    detail *det;
    size_t n_det, cap_det;
    /* attrib_chain.c: where the last event wait asked about turns into a
     * lock's wait (a wait spanning several gaps is probed once). */
    int32_t lock_part_wait;   /* -1: none yet */
    int64_t lock_part_from;
};


/* attrib_launcher.c */
int gs_ln_build_lane(gs_launcher *L, int32_t lane);
const lseg *gs_ln_state_at(const lstate *S, int64_t t, int64_t *next);
/* The LOCK_HOLD of `lock` in process proc covering t, or NULL; *next = the
 * start of that lock's next hold in proc after t (INT64_MAX when none). */
const hold *gs_ln_hold_at(const gs_launcher *L, int32_t proc, const char *lock, int64_t t,
                          int64_t *next);
int32_t gs_ln_intern(gs_launcher *L, gs_cause cause, const char *text);
int gs_ln_arg_i64(const char *args, const char *key, int64_t *out);
/* The value of `key` in "k=v;k=v" args into out (n bytes); 0 when absent. */
int gs_ln_arg_str(const char *args, const char *key, char *out, size_t n);

/* attrib_chain.c: pieces of [p, q), while lane `self` waits in `wait`
 * (a LOCK_WAIT span), following the wait's holder or waker and, when that
 * thread itself waits, its holder or waker, up to GS_CHAIN_MAX hops; 0
 * when out of memory. */
#define GS_CHAIN_MAX 8
int gs_ln_chain_pieces(gs_launcher *L, int32_t self, int32_t wait, int64_t p, int64_t q,
                       gs_gap_piece **pieces, size_t *n, size_t *cap);

#endif
