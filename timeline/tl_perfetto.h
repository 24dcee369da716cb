/*
 * Internals of the Perfetto writer (timeline_perfetto.c: the pass over the
 * spans; pf_write.c: packets, interning, track descriptors).  Field numbers
 * are Perfetto's (perfetto_trace.proto beside this file declares them).
 */
#ifndef GS_TL_PERFETTO_H
#define GS_TL_PERFETTO_H

#include <stdio.h>

#include "pbwrite.h"
#include "tl_internal.h"

enum {
    PF_TRACE_PACKET = 1,          /* Trace.packet */
    /* TracePacket */
    PF_CLOCK_SNAPSHOT = 6, PF_TIMESTAMP = 8, PF_SEQ_ID = 10, PF_TRACK_EVENT = 11,
    PF_INTERNED_DATA = 12, PF_SEQ_FLAGS = 13, PF_TS_CLOCK_ID = 58, PF_DEFAULTS = 59,
    PF_TRACK_DESCRIPTOR = 60,
    PF_SEQ_CLEARED = 1, PF_SEQ_NEEDS = 2,
    /* ClockSnapshot (clocks = 1, primary_trace_clock = 2) and its Clock */
    PF_CS_CLOCKS = 1, PF_CS_PRIMARY = 2,
    PF_CK_ID = 1, PF_CK_TS = 2, PF_CK_INCREMENTAL = 3,
    PF_CLOCK_MONOTONIC = 3, PF_CLOCK_SEQ = 64,   /* 64..127: sequence-scoped clocks */
    /* TracePacketDefaults */
    PF_DEF_TS_CLOCK_ID = 58,
    /* InternedData (each entry: iid = 1, name = 2) */
    PF_INT_CATS = 1, PF_INT_NAMES = 2, PF_INT_ANAMES = 3,
    /* TrackDescriptor */
    PF_TD_UUID = 1, PF_TD_NAME = 2, PF_TD_PROCESS = 3, PF_TD_THREAD = 4, PF_TD_PARENT = 5,
    PF_TD_COUNTER = 8,
    /* ProcessDescriptor / ThreadDescriptor */
    PF_PD_PID = 1, PF_PD_SORT = 3, PF_PD_NAME = 6,
    PF_THD_PID = 1, PF_THD_TID = 2, PF_THD_SORT = 3, PF_THD_NAME = 5,
    /* TrackEvent */
    PF_TE_CATEGORY_IIDS = 3, PF_TE_ANNOTATIONS = 4, PF_TE_TYPE = 9, PF_TE_NAME_IID = 10,
    PF_TE_TRACK = 11, PF_TE_COUNTER = 30, PF_TE_DOUBLE_COUNTER = 44,
    /* flow ids as varints (flow_ids_old / terminating_flow_ids_old, which
     * trace_processor reads beside the fixed64 flow_ids 47 / 48): 4 bytes
     * for an id below 2^28 instead of 10 */
    PF_TE_FLOW_IDS = 36, PF_TE_TERM_FLOW_IDS = 42,
    PF_SLICE_BEGIN = 1, PF_SLICE_END = 2, PF_INSTANT = 3, PF_COUNTER = 4,
    /* DebugAnnotation */
    PF_DA_NAME_IID = 1, PF_DA_INT = 4, PF_DA_DOUBLE = 5, PF_DA_STRING = 6,
};

#define PW_SEQ 1            /* the main sequence; device utilisation: PW_SEQ_UTIL + d */
#define PW_SEQ_UTIL 2
#define PW_NEW_MAX 32

/* The writer's output and interning state. */
typedef struct pw {
    FILE *f;
    gs_pb out;                 /* packets not yet written to f */
    gs_strmap names, cats, anames;
    int64_t ts_shift;          /* added to every time (0 unless a time is negative) */
    int64_t last_ts;           /* the main sequence's clock: times are deltas from it */
    uint64_t next_uuid;
    int oom, io_err;
} pw;

/* Strings a packet interns for the first time (written in its interned_data). */
typedef struct pw_new {
    int n;
    uint32_t field[PW_NEW_MAX];
    uint64_t iid[PW_NEW_MAX];
    const char *s[PW_NEW_MAX];
} pw_new;

void pw_init(pw *w, FILE *f);
void pw_deinit(pw *w);
/* Writes what is buffered to f (sets io_err on a short write). */
void pw_flush(pw *w);

/* The main sequence's first packet: incremental state cleared, and a
 * sequence-scoped clock whose packets' timestamps are deltas from the
 * previous one, anchored at t0 in CLOCK_MONOTONIC (the trace's clock). */
void pw_start(pw *w, int64_t t0);
/* A main-sequence packet: begin (with a timestamp when has_ts; times must
 * not decrease, one that does is written absolute), fields, end. */
void pw_packet_begin(pw *w, int has_ts, int64_t ts);
/* A packet of sequence seq with an absolute CLOCK_MONOTONIC time. */
void pw_packet_abs(pw *w, uint32_t seq, int64_t ts);
void pw_packet_end(pw *w);
/* The interned id of s in table `which` (PF_INT_*), noted in nw when new;
 * s's address must keep its contents while w lives (pw_intern_x with
 * stable 0 for a scratch buffer). */
uint64_t pw_intern(pw *w, pw_new *nw, int which, const char *s);
uint64_t pw_intern_x(pw *w, pw_new *nw, int which, const char *s, int stable);
/* The packet's interned_data for the strings in nw (nothing when none). */
void pw_interned(pw *w, const pw_new *nw);

/* Track descriptors (each its own packet); return the new track's uuid. */
uint64_t pw_process_track(pw *w, int pid, const char *name, int sort);
uint64_t pw_thread_track(pw *w, uint64_t parent, int pid, int tid, const char *name, int sort);
/* A named track (counter when counter != 0) under parent. */
uint64_t pw_named_track(pw *w, uint64_t parent, const char *name, int counter);

/* Debug annotations of a track event. */
void pw_arg_int(pw *w, uint64_t name_iid, int64_t v);
void pw_arg_double(pw *w, uint64_t name_iid, double v);
void pw_arg_str(pw *w, uint64_t name_iid, const char *v, size_t n);

/* Whole events (each its own packet; seq 0: the main sequence). */
void pw_counter_event(pw *w, uint32_t seq, uint64_t track, int64_t ts, double v);
void pw_end_event(pw *w, uint64_t track, int64_t ts);
/* A span's args "k=v;k=v": pw_args_names interns the keys (a segment
 * without '=' is argN) into iids (at most max; returns how many), then
 * pw_args_annotations writes the values as string annotations. */
int pw_args_names(pw *w, pw_new *nw, const char *args, uint64_t *iids, int max);
void pw_args_annotations(pw *w, const char *args, uint64_t *iids, int n_iids);

/*
 * Device utilisation counters (pf_util.c): per device, the percentage of
 * each window of the run (GS_PW_UTIL_BINS windows, at least 1 us each)
 * during which any of its streams ran an operation, written as a value
 * when it changes, on the device's own sequence (PW_SEQ_UTIL + index).
 */
#define GS_PW_UTIL_BINS 20000
typedef struct pw_util_dev {
    int32_t dev;
    uint64_t uuid;
    int open;                  /* [cs, ce) is the current union of operations */
    int64_t cs, ce, bin, acc;  /* the bin being filled and its busy ns */
    double last;               /* the last value written (-1: none) */
} pw_util_dev;
typedef struct pw_util {
    pw_util_dev *d;
    size_t n;
    int64_t t0, width;
} pw_util;
void pw_util_init(pw_util *u, int64_t t_first, int64_t t_last);
/* An operation [s, e) of device dev starting (in start order); parent is
 * the device's process track.  0 when out of memory. */
int pw_util_op(pw *w, pw_util *u, int32_t dev, uint64_t parent, int64_t s, int64_t e);
/* Writes every device's last values. */
void pw_util_finish(pw *w, pw_util *u);
void pw_util_free(pw_util *u);

#endif
