/*
 * The ranges of every value the timeline model holds, defined once.  Each
 * reader that feeds the model (spans.csv, the Chrome/Kineto, nsys and
 * daemon-log importers, attach raw records, traces and scenario files)
 * checks its input against these before building a span, so whatever
 * gapscope accepts it can also write and read back: nothing is narrowed
 * to a smaller type on the way, and no arithmetic on accepted times
 * overflows.
 *
 *   value      range                    why
 *   time       -(2^62-1) .. 2^62-1 ns   the difference of any two times and
 *                                       the length of any union of spans
 *                                       fit in an int64 (about 146 years)
 *   device     -1 .. 4095               -1: none (host lanes); a device
 *                                       lane's device is >= 0
 *   stream     -1 .. 2^31-1             -1: none (host lanes)
 *   job        -1 .. 2^31-1             -1: none (int32 in gs_span)
 *   partition  -1 .. 2^31-1             -1: none (int32 in gs_span)
 *   flags      0 .. 65535               uint16 in gs_span (GS_SPAN_F_*)
 *   count      0 .. 2^63-1              cpu_ns, dropped spans, bytes
 *   value      finite doubles           counter samples (no NaN, no inf:
 *                                       JSON has neither)
 *
 * A reader reports a value out of range as GS_ERR_FORMAT naming its file
 * and position (gs_tl_check); times it offsets or subtracts go through
 * gs_tl_time_add (refuses a sum that overflows or leaves the time range)
 * and gs_tl_sub (refuses a difference that overflows).  Pure functions, thread safe.
 */
#ifndef GS_TL_LIMITS_H
#define GS_TL_LIMITS_H

#include <stdint.h>

#include "../common/status.h"

#define GS_TL_TIME_LIMIT_NS INT64_C(0x3fffffffffffffff)
#define GS_TL_DEVICE_MAX 4095

/* X(enum, name, lo, hi) */
#define GS_TL_VALUE_TABLE(X)                                                        \
    X(GS_TLV_TIME, "time", -GS_TL_TIME_LIMIT_NS, GS_TL_TIME_LIMIT_NS)          \
    X(GS_TLV_DEVICE, "device", -1, GS_TL_DEVICE_MAX)                                \
    X(GS_TLV_STREAM, "stream", -1, INT32_MAX)                                       \
    X(GS_TLV_JOB, "job", -1, INT32_MAX)                                             \
    X(GS_TLV_PART, "partition", -1, INT32_MAX)                                      \
    X(GS_TLV_FLAGS, "flags", 0, 0xffff)                                             \
    X(GS_TLV_COUNT, "count", 0, INT64_MAX)
typedef enum { GS_TL_VALUE_TABLE(GS_XT_ID) GS_TLV_COUNT_ } gs_tl_value;

const char *gs_tl_value_name(gs_tl_value v);
int64_t gs_tl_value_min(gs_tl_value v);
int64_t gs_tl_value_max(gs_tl_value v);
/* 1 when x is in v's range. */
int gs_tl_in_range(gs_tl_value v, int64_t x);

/* GS_OK when x is in v's range; else GS_ERR_FORMAT "<what> @ <where>: <name>
 * <x> is outside <lo>..<hi> (timeline/limits.h)" (where: "file:line",
 * "file+offset", ...). */
gs_status gs_tl_check(gs_err *err, const char *what, const char *where, gs_tl_value v, int64_t x);

/* A time offset: *out = a + b when that neither overflows nor leaves the
 * time range; returns 1 then, else 0 (*out untouched). */
int gs_tl_time_add(int64_t *out, int64_t a, int64_t b);
/* A difference (a duration, or a time less an offset): *out = a - b when
 * that does not overflow an int64; returns 1 then, else 0.  The
 * difference of two times in range always fits. */
int gs_tl_sub(int64_t *out, int64_t a, int64_t b);

/* 1 when d is a value the model holds (finite). */
int gs_tl_value_ok(double d);

#endif
