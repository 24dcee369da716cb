/*
 * Internals of the scheduler-tracepoint capture (sched.c: the probe and
 * the format files; sched_collect.c: the rings and sched.rec).  Not a
 * public interface; the format parsers are exposed for the tests.
 */
#ifndef GS_ATTACH_SCHED_INT_H
#define GS_ATTACH_SCHED_INT_H

#include <stddef.h>

/* Where the fields sit in the raw tracepoint records. */
typedef struct gs_sched_layout {
    unsigned switch_id, waking_id;
    int prev_pid_off, prev_state_off, prev_state_size, next_pid_off, wake_pid_off, flags_off;
    char waking_name[16];   /* sched_waking, or sched_wakeup */
} gs_sched_layout;

/* Fills L from tracefs (mounted, or a private mount in a child); why gets
 * where the layout came from, or why there is none.  1 when found. */
int gs_sched_layout_get(gs_sched_layout *L, char *why, size_t n);

/* The "ID: N" of a tracefs format file; 1 when found. */
int gs_sched_format_id(const char *fmt, unsigned *id);
/* Offset and size of field `name` ("field:pid_t prev_pid;\toffset:24;\tsize:4;..."). */
int gs_sched_format_field(const char *fmt, const char *name, int *off, int *size);

/* Interrupt-context bits of common_flags (TRACE_FLAG_NMI, _HARDIRQ, _SOFTIRQ). */
#define GS_SCHED_IRQ_FLAGS 0x58

#endif
