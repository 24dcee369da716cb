/*
 * The dependency graph of a captured timeline, for what-ifs on programs
 * gapscope did not build (attach and import captures: no engine settings
 * to change), replayed with edits as Lumos (MLSys'25) replays PyTorch
 * traces and Coz speeds code up virtually (model/graph.c builds it,
 * model/whatif.c edits and replays it; method in MODEL.md, "What-ifs on
 * foreign timelines").
 *
 * Nodes: a host lane's leaf steps in time order (cuda:* calls, malloc_trim,
 * py/cpu_op steps; containers such as nvtx ranges hold others and are
 * rebuilt around them; /proc state samples are kept only on lanes with
 * nothing else), its lock waits, and every device operation.  Edges:
 *   chain    each node after the previous one of its lane (a device
 *            operation after the previous one of its stream);
 *   launch   a device operation after the call that launched it (corr=,
 *            launch_lane=, timeline/SPANS.md "Foreign timelines");
 *   sync     a blocking call (cuda_sync:*) ends after the device work it
 *            waited for: on every stream, the last operation launched
 *            before it began (device-wide: which stream or event a sync
 *            named is not recorded);
 *   wake     a lock wait (or a wake-up recorded as one) ends after its
 *            holder's (waker's) last node that ended before it.
 * What the edges do not explain is kept as captured slack: a node starts
 * its captured gap after its binding predecessor, a sync or wait ends its
 * captured latency after what woke it.  So an unedited replay is the
 * capture itself.
 *
 * Ownership: gs_graph_build allocates; gs_graph_destroy frees.  The graph
 * borrows the timeline (names, lanes), which must outlive it.
 */
#ifndef GS_MODEL_GRAPH_H
#define GS_MODEL_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "../timeline/timeline.h"

typedef enum { GS_GN_HOST, GS_GN_SYNC, GS_GN_WAIT, GS_GN_DEVICE, GS_GN_COUNT } gs_gnode_kind;

#define GS_GN_MAX_AWAIT 8

typedef struct gs_gnode {
    gs_gnode_kind kind;
    int32_t lane;
    const gs_span *sp;          /* the captured span (the timeline's) */
    int64_t s, e;               /* captured start, end */
    int64_t chain;              /* previous node of its lane or stream, -1 */
    int64_t launch;             /* device: the launching call, -1 */
    int64_t waker;              /* wait: the node that released it, -1 */
    int64_t await[GS_GN_MAX_AWAIT]; /* sync: the last operation of each stream */
    int n_await;
    int64_t gap;                /* captured start minus the binding predecessor's ready time */
} gs_gnode;

typedef struct gs_graph {
    gs_timeline *tl;
    gs_gnode *n;
    size_t nn;
    /* Containers (nvtx ranges, lock holds) and the node range inside each. */
    const gs_span **box;
    int64_t *box_first, *box_last;
    size_t nbox;
    size_t n_launch, n_sync, n_wake;   /* edges found */
} gs_graph;

gs_status gs_graph_build(gs_graph **out, gs_timeline *tl, gs_err *err);
void gs_graph_destroy(gs_graph *g);

/* ---- what-ifs (whatif.c) ---- */
typedef enum { GS_WI_REMOVE, GS_WI_SCALE, GS_WI_STREAM, GS_WI_UNLOCK, GS_WI_THREADS, GS_WI_COUNT } gs_wi_kind;
typedef struct gs_whatif {
    gs_wi_kind kind;
    char what[128];             /* span name (a trailing * matches a prefix), lane or lock */
    char inner[128];            /* unlock: the step no longer under the lock */
    double factor;              /* scale: duration x factor; stream: speed x factor;
                                   threads: lanes added */
    char text[272];             /* the edit as given */
} gs_whatif;
/* Parses one --what-if EDIT:
 *   remove:NAME          nodes named NAME take no time ("this stall is gone"); a
 *                        state:* NAME removes that sampled state from the gaps
 *                        and from the host calls it was sampled inside
 *   scale:NAME=F         nodes named NAME last F times as long
 *   stream:LANE=F        device lane LANE (gpu0/stream7) runs F times faster
 *   unlock:LOCK:NAME     lock LOCK (a prefix of its name) is never held across
 *                        NAME: its waiters are released when the holder begins NAME
 *   threads:PREFIX=+N    N more threads like the lanes named PREFIX* (a pool
 *                        whose steps any of them may take)
 * GS_ERR_ARG naming what was expected. */
gs_status gs_whatif_parse(gs_whatif *out, const char *text, gs_err *err);

typedef struct gs_whatif_path {
    char what[160];             /* "malloc_trim", "kernels on gpu0/stream7", "host between calls" */
    double s;                   /* seconds of the critical path */
} gs_whatif_path;
#define GS_WHATIF_PATH_MAX 12

typedef struct gs_whatif_result {
    double util, span_s, busy_s;    /* device 0 (the first device lane's device) */
    double wall_s;                  /* first node start to last node end */
    double captured_util, captured_span_s, captured_wall_s;
    gs_whatif_path path[GS_WHATIF_PATH_MAX];   /* the critical path by contributor, largest first */
    int n_path;
    double path_s;
    size_t n_edited;                /* nodes an edit changed */
    size_t n_after, n_after_ref;    /* windows after removed steps; those timed from
                                       the same steps where no removed one preceded them */
} gs_whatif_result;

/* Replays g with the edits; fills res and, when out is not NULL, writes
 * the replayed timeline into it (a new timeline with g's lanes and meta,
 * every span flagged MODELLED, meta whatif.*).  GS_ERR_ARG when an edit
 * matches nothing (naming it).  A removed step's knock-on: the host steps
 * after it up to the lane's next sync or wait take the timing of the same
 * steps where it did not precede them, when the capture has such a run
 * (model/whatif_after.c). */
gs_status gs_whatif_run(gs_whatif_result *res, gs_timeline **out, const gs_graph *g, const gs_whatif *w,
                        int nw, gs_err *err);
/* The same on a host host times as fast (> 0): every host step's time and
 * every gap of a host lane divided by it (device operations as captured;
 * a sync or wait still ends when what it waited for does).  The
 * interval's replays: the host's run-to-run speed. */
gs_status gs_whatif_run_host(gs_whatif_result *res, gs_timeline **out, const gs_graph *g, const gs_whatif *w,
                             int nw, double host, gs_err *err);

#endif
