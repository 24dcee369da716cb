/*
 * Job-mix traces: versioned JSON Lines (spec: traces/README.md).
 *
 *   {"format":"gapscope-trace","version":1,"time_unit":"ms",...}
 *   {"t":0,"id":1,"kind":"porep_c2","partitions":10,"priority":2,"size_class":27}
 *
 * The reader rejects malformed input naming path:line and what was
 * expected; arrivals must come in non-decreasing time order.  The writer
 * writes to a temporary file and renames it, so a failed write never
 * leaves a partial trace.
 *
 * Ownership: gs_trace owns its arrival array (gs_trace_free).
 */
#ifndef GS_TRACE_H
#define GS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "../prover/engine/engine.h"
#include "scenario.h"

#define GS_TRACE_VERSION 1

typedef struct gs_arrival {
    int64_t t_ns;           /* from the trace start */
    uint64_t id;
    gs_job_kind kind;
    uint32_t partitions;
    int priority;           /* lower = more urgent */
    uint32_t size_class;    /* log2 production constraints per partition (0 = unknown) */
} gs_arrival;

typedef struct gs_trace {
    gs_arrival *a;
    size_t n, cap;
    char description[256];
    char generator[256];
} gs_trace;

gs_status gs_trace_read(gs_trace *out, const char *path, gs_err *err);
/* Parses a trace held in memory (name is used in error messages). */
gs_status gs_trace_parse(gs_trace *out, const char *text, size_t len, const char *name, gs_err *err);
/* time_unit: "ns", "us", "ms" or "s". */
gs_status gs_trace_write(const gs_trace *t, const char *path, const char *time_unit, gs_err *err);
gs_status gs_trace_push(gs_trace *t, const gs_arrival *a);
void gs_trace_free(gs_trace *t);

/* The arrivals a scenario replays: its trace file, or its inline generator
 * seeded from the scenario seed (same scenario + seed = same arrivals);
 * [jobs] limit applied. */
gs_status gs_scenario_arrivals(gs_trace *out, const gs_scenario *s, gs_err *err);
/* The circuit size (log2 constraints) an arrival runs at under s's size map. */
uint32_t gs_scenario_log_size(const gs_scenario *s, const gs_arrival *a);

#endif
