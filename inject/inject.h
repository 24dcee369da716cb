/*
 * Internals of libgsattach.so, the library `gapscope attach` puts into the
 * program it runs (LD_PRELOAD for the host side, CUDA_INJECTION64_PATH for
 * CUPTI, NVTX_INJECTION64_PATH for NVTX).  Nothing here is linked into
 * gapscope itself; the raw record format it writes is the contract with
 * capture/attach/convert.c and is documented in capture/attach/attach.h.
 *
 * The library is inert unless GS_ATTACH_DIR names a directory: every
 * interposer then only forwards to the real function.
 *
 * Output: one file per process image, GS_ATTACH_DIR/p<pid>-<t0>.rec,
 * appended line by line through one in-memory buffer guarded by a spin
 * lock (never a pthread mutex: pthread_mutex_lock is interposed).  The
 * buffer is written out when it fills, when its oldest line is older than
 * 100 ms at the next append, by the flusher thread (CUDA processes), at
 * exit, on a fatal signal and on a flush request from `gapscope attach`
 * (a generation counter in GS_ATTACH_DIR/ctl).  A forked child starts its
 * own file and drops the parent's pending lines (the parent writes them).
 */
#ifndef GS_ATTACH_INJECT_H
#define GS_ATTACH_INJECT_H

#include <stddef.h>
#include <stdint.h>

#define GSI_EXPORT __attribute__((visibility("default")))

/* 1 once GS_ATTACH_DIR was found and the output file opened. */
int gsi_enabled(void);
/* 1 when GS_ATTACH_DIR was found (the audit copy opens its file lazily). */
int gsi_active(void);
/* 1 while the calling thread is inside gsi_emit (a signal handler's
 * interposed call must not record then). */
int gsi_busy(void);
/* Idempotent initialisation (constructor, InitializeInjection). */
void gsi_init(void);
/* CLOCK_MONOTONIC in ns (the time base of gapscope's timelines). */
uint64_t gsi_now(void);
/* Linux thread id of the caller (cached per thread). */
uint32_t gsi_tid(void);
/* Appends one line (printf format, '\n' added); lines longer than 2 KiB
 * are cut (names are the last field, so only a name is shortened). */
void gsi_emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes the buffer out now (blocking on the spin lock). */
void gsi_flush(void);
/* The flush-request generation written by `gapscope attach` (0 if none). */
uint64_t gsi_flush_request(void);
/* Milliseconds between periodic flushes (GS_ATTACH_FLUSH_MS, default 500). */
unsigned gsi_flush_ms(void);
/* Called by the CUPTI part once it is set up: registers its flush with the
 * exit path and installs fatal-signal handlers where none are set. */
void gsi_on_cupti_ready(void (*cupti_flush)(void));

/* The audit copy (libgsaudit.so, LD_AUDIT) initialises with this instead
 * of gsi_init: its file, p<pid>-<t0>-audit.rec, is opened at its first
 * record and reopened in a forked child.  gsi_is_audit_copy says which copy
 * runs (1 only in libgsaudit.so). */
void gsi_init_audit(void);
int gsi_is_audit_copy(void);
/* Called in a forked child (inject_wait.c resets its tables). */
void gsi_wait_fork_child(void);

/* ---- stacks (inject_stack.c) ---- */
/* The caller's user stack as a stack id (1..): the frames outside this
 * library, deduplicated; a new stack is written once as a Q record
 * (symbolized with dladdr) before its id is returned.  0 when stacks are
 * off (GS_ATTACH_STACKS=0), the table is full, or the thread is already
 * inside the library.  Takes a backtrace (microseconds): callers use it
 * for waits above GS_ATTACH_STACK_MIN_US, trims, and rate-limited wakes. */
uint32_t gsi_stack_id(void);
/* A one-frame stack: the return address caller (symbolized with dladdr). */
uint32_t gsi_stack_id_caller(void *caller);
/* Waits at least this long get a stack (ns; GS_ATTACH_STACK_MIN_US,
 * default 1000 us). */
uint64_t gsi_stack_min_ns(void);
/* Loads the unwinder once (libgcc_s), outside any interposed call. */
void gsi_stack_init(void);
/* Forgets the parent's stack ids in a forked child. */
void gsi_stack_fork_child(void);

/* ---- the malloc_trim record (T, and A with its stack) ---- */
/* Called when malloc_trim (started at t0) returned: takes the caller's
 * stack (caller NULL: a backtrace; else that one return address), then
 * writes "T t0 t1 tid result" (t1 = now, so the span covers what the
 * wrapper added) and "A t1 tid stack". */
void gsi_emit_trim(uint64_t t0, int result, void *caller);

/* Copies s into out (at most n-1 bytes), replacing control characters by
 * spaces, so a name is always one field at the end of one line. */
void gsi_clean(char *out, size_t n, const char *s);

#endif
