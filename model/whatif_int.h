/*
 * Internals shared by whatif.c (edits, replay) and whatif_out.c (metrics,
 * critical path, the replayed timeline).  Nothing outside model/
 * includes it.
 */
#ifndef GS_MODEL_WHATIF_INT_H
#define GS_MODEL_WHATIF_INT_H

#include "graph.h"

typedef struct rctx {
    /* Per node (graph order): */
    const gs_graph *g;
    double *f;          /* duration factor */
    int64_t *gap;       /* gap (edited) */
    int64_t *waker;     /* waker (edited) */
    int64_t *ns, *ne;
    char *lvl;          /* 0 none, 1 start, 2 end */
    char *on;           /* on the stack: bit 1 start, bit 2 end */
    int64_t t0;
    /* threads: nodes moved to a pool's lane v (-1: their own lane). */
    int32_t *vl;
    int32_t pool_lanes[256];    /* the pool's captured lanes, then -1 for added ones */
    int n_pool;
    char pool_prefix[128];
} rctx;


/* NAME, or a prefix when the pattern ends in '*'. */
int gs_wi_match(const char *pat, const char *name);
/* remove:NAME's knock-on (whatif_after.c): the host steps after each
 * removed step take the timing of the same steps where no removed step
 * preceded them; ix: nodes in (lane, start) order.  Returns the windows
 * so given, *n_windows the windows after removed steps (0 when out of
 * memory: nothing changed). */
size_t gs_wi_after(rctx *c, const int64_t *ix, size_t *n_windows);
/* Resolves every node's new start and end (0: out of memory). */
int gs_wi_replay(rctx *c);
/* Device util, span and busy of device dev from the new (replayed = 1)
 * or captured times. */
void gs_wi_util(const rctx *c, int replayed, int dev, double *util, double *span_s, double *busy_s);
/* The critical path to the last device operation's end, by contributor. */
void gs_wi_path(const rctx *c, gs_whatif_result *res);
/* The replayed timeline (lanes and meta of the capture, spans MODELLED). */
gs_status gs_wi_timeline(gs_timeline **out, const rctx *c, const gs_whatif *w, int nw, gs_err *err);
const char *gs_wi_lane_name(const gs_graph *g, int32_t l);

#endif
