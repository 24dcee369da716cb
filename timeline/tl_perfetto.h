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
    PF_TIMESTAMP = 8, PF_SEQ_ID = 10, PF_TRACK_EVENT = 11, PF_INTERNED_DATA = 12,
    PF_SEQ_FLAGS = 13, PF_TRACK_DESCRIPTOR = 60,
    PF_SEQ_CLEARED = 1, PF_SEQ_NEEDS = 2,
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
    PF_TE_TRACK = 11, PF_TE_DOUBLE_COUNTER = 44, PF_TE_FLOW_IDS = 47, PF_TE_TERM_FLOW_IDS = 48,
    PF_SLICE_BEGIN = 1, PF_SLICE_END = 2, PF_INSTANT = 3, PF_COUNTER = 4,
    /* DebugAnnotation */
    PF_DA_NAME_IID = 1, PF_DA_INT = 4, PF_DA_DOUBLE = 5, PF_DA_STRING = 6,
};

#define PW_SEQ 1
#define PW_NEW_MAX 24

/* The writer's output and interning state. */
typedef struct pw {
    FILE *f;
    gs_pb out;                 /* packets not yet written to f */
    gs_tl_strmap names, cats, anames;
    int first;                 /* the next packet is the sequence's first */
    int64_t ts_shift;          /* added to every time (0 unless a time is negative) */
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

/* A packet: begin (with a timestamp when has_ts), fields, end. */
void pw_packet_begin(pw *w, int has_ts, int64_t ts);
void pw_packet_end(pw *w);
/* The interned id of s in table `which` (PF_INT_*), noted in nw when new. */
uint64_t pw_intern(pw *w, pw_new *nw, int which, const char *s);
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

/* Whole events (each its own packet). */
void pw_counter_event(pw *w, uint64_t track, int64_t ts, double v);
void pw_end_event(pw *w, uint64_t track, int64_t ts);
/* A span's args "k=v;k=v": pw_args_names interns the keys (a segment
 * without '=' is argN) into iids (at most max; returns how many), then
 * pw_args_annotations writes the values as string annotations. */
int pw_args_names(pw *w, pw_new *nw, const char *args, uint64_t *iids, int max);
void pw_args_annotations(pw *w, const char *args, uint64_t *iids, int n_iids);

#endif
