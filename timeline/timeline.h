/*
 * The timeline model: every host span, lock wait/hold, injected delay,
 * counter sample and device stage of a run, in one time base
 * (CLOCK_MONOTONIC nanoseconds, gs_now_ns()).  Everything gapscope captures
 * (engine runs, replays, model-device runs) lands here, and analysis,
 * charts and reports read only this model.
 *
 * Capture.  A thread opens a lane once (gs_tl_lane_open takes the timeline's
 * mutex) and then appends to it with no lock: a lane has exactly one writer
 * thread at a time.  Spans are appended when they end (start and end both
 * known).  Device stages are appended to a device lane (role
 * GS_ROLE_DEVICE, with device and stream numbers) by the host thread that
 * learned their times from the backend; a device lane too has one writer.
 * Strings passed to the append calls (name, args) are copied into the
 * lane's own arena, so callers may pass stack buffers.
 *
 * Reading.  After capture has stopped (no writer is active),
 * gs_timeline_spans() gives all spans sorted by (start, end).  A timeline
 * can be saved as spans.csv (the canonical, loss-free form: gs_timeline_
 * write_csv/read_csv round-trip exactly) and as Chrome Trace Event JSON for
 * Perfetto (write-only).
 *
 * Ownership: gs_timeline_create/destroy; lanes and spans belong to the
 * timeline.  Thread safety: lane_open, meta_set and the append calls may be
 * called concurrently (each thread on its own lane); everything else only
 * when capture has stopped.
 */
#ifndef GS_TIMELINE_H
#define GS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "limits.h"
#include "vocab.h"

/* Lane roles.  X(enum, name) */
#define GS_ROLE_TABLE(X)                  \
    X(GS_ROLE_DRIVER, "driver")           \
    X(GS_ROLE_SYNTH, "synth")             \
    X(GS_ROLE_GPU_WORKER, "gpu_worker")   \
    X(GS_ROLE_FINALIZER, "finalizer")     \
    X(GS_ROLE_BACKGROUND, "background")   \
    X(GS_ROLE_DEVICE, "device")           \
    X(GS_ROLE_OTHER, "other")             \
    X(GS_ROLE_THREAD, "thread")
typedef enum { GS_ROLE_TABLE(GS_XT_ID) GS_ROLE_COUNT } gs_role;

/* Span kinds.  X(enum, name) */
#define GS_SPAN_KIND_TABLE(X)                 \
    X(GS_SPAN_STEP, "step")                   \
    X(GS_SPAN_LOCK_WAIT, "lock_wait")         \
    X(GS_SPAN_LOCK_HOLD, "lock_hold")         \
    X(GS_SPAN_INJECTED, "injected")           \
    X(GS_SPAN_KERNEL, "kernel")               \
    X(GS_SPAN_COPY, "copy")                   \
    X(GS_SPAN_COUNTER, "counter")             \
    X(GS_SPAN_MARK, "mark")
typedef enum { GS_SPAN_KIND_TABLE(GS_XT_ID) GS_SPAN_KIND_COUNT } gs_span_kind;

/* Span flags. */
#define GS_SPAN_F_INJECTED 0x1u   /* the work in this span was injected by a scenario */
#define GS_SPAN_F_MODELLED 0x2u   /* modelled, not measured: a model device stage, or any span
                                     of a modelled run (its times come from a virtual clock) */
#define GS_SPAN_F_FAILED   0x4u   /* the step failed */
#define GS_SPAN_F_CPU      0x8u   /* cpu_ns holds the CPU time the step used */
#define GS_SPAN_F_APPROX   0x10u  /* inferred, not measured (an imported daemon log's device busy spans) */

const char *gs_role_name(gs_role r);
int gs_role_from_name(gs_role *out, const char *name);
const char *gs_span_kind_name(gs_span_kind k);
int gs_span_kind_from_name(gs_span_kind *out, const char *name);

typedef struct gs_timeline gs_timeline;
typedef struct gs_tl_lane gs_tl_lane;

/*
 * One span.  For GS_SPAN_LOCK_WAIT, `holder` is the lane id that held the
 * lock when the wait began (-1 unknown) and `name` is the lock ("tracker",
 * "gpu_queue", "device_mutex").  For GS_SPAN_LOCK_HOLD, name is the lock too
 * and `args` says what was done under it.  For GS_SPAN_COUNTER, start == end
 * and `value` holds the sample (e.g. name "gpu_queue_depth").  For device
 * spans (KERNEL, COPY), name is the stage ("ntt", "msm_h", "h2d", ...).
 * job and part are -1 where they do not apply.
 */
typedef struct gs_span {
    int64_t start_ns, end_ns;
    int32_t lane;        /* lane id, index into the timeline's lanes */
    int32_t holder;      /* lock waits: holder lane id, else -1 */
    int32_t job, part;
    uint16_t kind;       /* gs_span_kind */
    uint16_t flags;      /* GS_SPAN_F_* */
    double value;        /* counters; 0 otherwise */
    const char *name;    /* owned by the timeline */
    const char *args;    /* "key=value;key=value" or "", owned by the timeline */
    /* With GS_SPAN_F_CPU: CPU nanoseconds the step consumed, over every
     * thread that worked for it (the lane's thread, CLOCK_THREAD_CPUTIME_ID,
     * plus pool helpers on its behalf: gs_task_cpu_ns).  Else 0. */
    int64_t cpu_ns;
} gs_span;

/* The ranges of every field (times within +-(2^62 - 1) ns, device, stream,
 * job, partition, flags, counts) are in limits.h.  read_csv and every
 * importer refuse a value outside them (GS_ERR_FORMAT naming the file and
 * position); gs_analyze refuses a time outside them in a timeline built in
 * memory (GS_ERR_RANGE). */

typedef struct gs_lane_info {
    int32_t id;
    gs_role role;
    int32_t device;      /* GPU index for device lanes and GPU workers, else -1 */
    int32_t stream;      /* device lanes: stream number, else -1 */
    const char *name;    /* "gpu_worker/0.1", "gpu0/stream0", "synth/3" */
    /* The capture (process, or host) the lane belongs to: 0 in a capture
     * of one program; a merged timeline (gs_timeline_merge) numbers its
     * captures 0, 1, ...  Analysis relates lanes of one process only
     * (locks, correlation ids, GPU workers serving device -1). */
    int32_t process;
} gs_lane_info;

gs_status gs_timeline_create(gs_timeline **out);
void gs_timeline_destroy(gs_timeline *tl);

/* Run metadata (build fingerprint, backend, device, scenario settings):
 * key/value strings, last set wins; written with the timeline.  meta_get's
 * pointer is valid until the key is set again or the timeline destroyed;
 * meta_count/meta_at only once capture has stopped. */
void gs_timeline_meta_set(gs_timeline *tl, const char *key, const char *value);
const char *gs_timeline_meta_get(const gs_timeline *tl, const char *key);
/* The source of a timeline of a program gapscope did not run (meta source
 * beginning attach or import: attach, import:chrome, a merge of them), or
 * NULL for an engine run. */
const char *gs_timeline_foreign_source(const gs_timeline *tl);
size_t gs_timeline_meta_count(const gs_timeline *tl);
void gs_timeline_meta_at(const gs_timeline *tl, size_t i, const char **key, const char **value);

/* Opens a lane (returns NULL only when out of memory). */
gs_tl_lane *gs_tl_lane_open(gs_timeline *tl, const char *name, gs_role role,
                            int32_t device, int32_t stream);
int32_t gs_tl_lane_id(const gs_tl_lane *lane);
/* Sets the lane's process (gs_lane_info.process; >= 0). */
void gs_tl_lane_set_process(gs_tl_lane *lane, int32_t process);

/* Appends; a NULL lane is a no-op, so instrumentation can be switched off.
 * args may be NULL.  Returns nothing: capture never fails a run (if memory
 * runs out the timeline counts dropped spans and says so in its metadata). */
void gs_tl_span(gs_tl_lane *lane, gs_span_kind kind, const char *name,
                int32_t job, int32_t part, int64_t start_ns, int64_t end_ns,
                uint16_t flags, const char *args);
/* gs_tl_span with the CPU time the step consumed (sets GS_SPAN_F_CPU; a
 * negative cpu_ns records no CPU time, as gs_tl_span). */
void gs_tl_span_cpu(gs_tl_lane *lane, gs_span_kind kind, const char *name,
                    int32_t job, int32_t part, int64_t start_ns, int64_t end_ns,
                    uint16_t flags, const char *args, int64_t cpu_ns);
void gs_tl_lock_wait(gs_tl_lane *lane, const char *lock, int32_t holder,
                     int32_t job, int32_t part, int64_t start_ns, int64_t end_ns);
/* A LOCK_WAIT with args: a foreign timeline's wait on another thread
 * (holder = the lane that woke it or held the lock; timeline/SPANS.md,
 * "Foreign timelines"). */
void gs_tl_wait(gs_tl_lane *lane, const char *lock, int32_t holder, int64_t start_ns,
                int64_t end_ns, const char *args);
void gs_tl_counter(gs_tl_lane *lane, const char *name, int64_t t_ns, double value);
/* Appends a fully specified span (holder, value and cpu_ns included; the
 * lane field is ignored: the span goes to `lane`), as a reader of a saved
 * timeline does; flags are kept as given.  The caller checks it first with
 * gs_span_invalid. */
void gs_tl_span_full(gs_tl_lane *lane, const gs_span *s);
/* Why s cannot be a span of tl (NULL when it can): a time outside limits.h,
 * end before start, an unknown kind, a holder that is neither -1 nor a lane
 * of tl, job/part below -1, a value that is not finite, cpu_ns negative or
 * given without GS_SPAN_F_CPU, a counter that is not a plain sample (a
 * counter is a value at one time: end = start, job = part = holder = -1,
 * flags 0, no args, as gs_tl_counter makes it).  The text is static. */
const char *gs_span_invalid(const gs_timeline *tl, const gs_span *s);
/* GS_OK when every lane and span of tl is within limits.h (the writers
 * check this first, so they never write a file their readers refuse);
 * else GS_ERR_RANGE "what @ path: ..." naming the first offender.
 * Capture stopped. */
gs_status gs_timeline_check(gs_timeline *tl, const char *what, const char *path, gs_err *err);

/* Reading (capture stopped). */
size_t gs_timeline_lane_count(const gs_timeline *tl);
const gs_lane_info *gs_timeline_lane(const gs_timeline *tl, int32_t id);
/* All spans sorted by (start, end, lane); valid until the timeline changes. */
const gs_span *gs_timeline_spans(gs_timeline *tl, size_t *n);
uint64_t gs_timeline_dropped(const gs_timeline *tl);

/* Loss-free CSV (documented in timeline/README.md):
 *   lines "# meta <key>=<value>" (value escaped: \\ \n)
 *   lines "# lane <id>,<role>,<device>,<stream>,<name>"
 *   header "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args"
 *   (plus a 12th column ",cpu_ns" when any span has GS_SPAN_F_CPU: the
 *   span's cpu_ns where it has the flag, empty where not; files without
 *   the column read as spans without CPU times)
 *   lines "# process <lane id>,<process>" for lanes whose process is not 0
 *   one row per span; name/args quoted CSV fields when they hold , or ".
 * read_csv reports malformed input as GS_ERR_FORMAT naming path:line. */
gs_status gs_timeline_write_csv(gs_timeline *tl, const char *path, gs_err *err);
gs_status gs_timeline_read_csv(gs_timeline **out, const char *path, gs_err *err);
/* Chrome Trace Event JSON (object form: traceEvents + metadata), one track
 * per lane (device lanes grouped as a process per GPU), counters as "C"
 * events, flows from a GPU worker's launch span to its device spans and from a
 * lock's release to its acquire (timeline/README.md). */
gs_status gs_timeline_write_chrome(gs_timeline *tl, const char *path, gs_err *err);
/* Perfetto's protobuf trace format, TrackEvent flavour (timeline/README.md,
 * "timeline.perfetto-trace"): the same tracks, spans, counters and flows
 * as write_chrome (plus lock flows' twin, a per-device busy counter and
 * overlap tracks for spans that do not nest), written in one pass over the
 * sorted spans. */
gs_status gs_timeline_write_perfetto(gs_timeline *tl, const char *path, gs_err *err);

/* Which trace file a run directory gets (trace_files.c).  AUTO:
 * timeline.json up to GS_TRACE_CHROME_MAX_SPANS spans, else
 * timeline.perfetto-trace (README.md says why that size). */
#define GS_TRACE_FORMAT_TABLE(X)            \
    X(GS_TRACE_AUTO, "auto")                \
    X(GS_TRACE_CHROME, "chrome")            \
    X(GS_TRACE_PERFETTO, "perfetto")        \
    X(GS_TRACE_BOTH, "both")
typedef enum { GS_TRACE_FORMAT_TABLE(GS_XT_ID) GS_TRACE_FORMAT_COUNT } gs_trace_format;
#define GS_TRACE_CHROME_MAX_SPANS 1000000u
#define GS_TRACE_CHROME_FILE "timeline.json"
#define GS_TRACE_PERFETTO_FILE "timeline.perfetto-trace"
const char *gs_trace_format_name(gs_trace_format f);
int gs_trace_format_from_name(gs_trace_format *out, const char *name);
/* AUTO resolved for this timeline (CHROME or PERFETTO); others unchanged. */
gs_trace_format gs_trace_format_pick(gs_timeline *tl, gs_trace_format f);
/* Writes dir's trace file(s) in format f; *written (may be NULL) gets the
 * first file name written (GS_TRACE_*_FILE). */
gs_status gs_timeline_write_traces(gs_timeline *tl, const char *dir, gs_trace_format f,
                                   const char **written, gs_err *err);
/* dir/spans.csv and dir's trace file(s) as write_csv then write_traces
 * would write them, the two at once (the trace file on a second thread,
 * once the sorted view is built; one after the other when no thread can
 * be had).  The first failure in that order is returned; unlike the two
 * calls in turn, a failed spans.csv may leave the trace file written.  The
 * timeline must not change meanwhile. */
gs_status gs_timeline_write_run(gs_timeline *tl, const char *dir, gs_trace_format f,
                                const char **written, gs_err *err);

#endif
