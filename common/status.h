/*
 * gs_status: the one error vocabulary of gapscope's boundaries (parsers,
 * file formats, engine, drivers, CUDA).  Arithmetic never fails and never
 * returns a status.
 *
 * Detail lives in the object that failed: a gs_err carried by a job, a
 * context or a caller.  First error wins; the message reads
 * "what @ file:line: detail" (file:line of the *input* when there is one,
 * else of the source).
 */
#ifndef GS_STATUS_H
#define GS_STATUS_H

#include <stddef.h>

#include "xtable.h"

/* X(name, message) */
#define GS_STATUS_TABLE(X)                                              \
    X(GS_OK,            "ok")                                           \
    X(GS_ERR_NOMEM,     "out of memory")                                \
    X(GS_ERR_IO,        "input/output error")                           \
    X(GS_ERR_FORMAT,    "malformed input")                              \
    X(GS_ERR_RANGE,     "value out of range")                           \
    X(GS_ERR_CURVE,     "unsupported curve")                            \
    X(GS_ERR_POINT,     "point not on curve or not in subgroup")        \
    X(GS_ERR_MISMATCH,  "inputs do not match each other")               \
    X(GS_ERR_ARG,       "bad argument")                                 \
    X(GS_ERR_UNSAT,     "constraint system not satisfied")              \
    X(GS_ERR_VERIFY,    "proof does not verify")                        \
    X(GS_ERR_CUDA,      "CUDA error")                                   \
    X(GS_ERR_NODEV,     "no CUDA device")                               \
    X(GS_ERR_UNSUPPORTED, "not supported by this build")                \
    X(GS_ERR_CANCELLED, "cancelled")                                    \
    X(GS_ERR_STATE,     "invalid state")                                \
    X(GS_ERR_INJECTED,  "injected failure")                             \
    X(GS_ERR_INTERNAL,  "internal error")

typedef enum { GS_STATUS_TABLE(GS_XT_ID) GS_STATUS_COUNT } gs_status;

/* Name ("GS_ERR_FORMAT") and message ("malformed input") of a status. */
const char *gs_status_name(gs_status s);
const char *gs_status_message(gs_status s);

/*
 * An error record owned by whatever failed.  gs_err_set keeps the first
 * error: later calls on a record that already holds one do nothing, and
 * return the status that is already there so `return gs_err_set(...)`
 * propagates the first cause.
 */
#define GS_ERR_MSG_MAX 512
typedef struct gs_err {
    gs_status status;
    char msg[GS_ERR_MSG_MAX];
} gs_err;

void gs_err_clear(gs_err *e);
/* what: short noun ("zkey"); where: "file:line" or "file@offset"; fmt: detail. */
gs_status gs_err_set(gs_err *e, gs_status s, const char *what,
                     const char *where, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Convenience: where = this source position. */
#define GS_ERR(e, s, what, ...) \
    gs_err_set((e), (s), (what), __FILE__ ":" GS_STR(__LINE__), __VA_ARGS__)
#define GS_STR_(x) #x
#define GS_STR(x) GS_STR_(x)

#endif
