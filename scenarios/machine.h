/*
 * The capturing host as timeline metadata, and a process CPU sampler
 * (scenarios/machine.c: keys and counter documented there and in
 * timeline/SPANS.md).
 */
#ifndef GS_SCN_MACHINE_H
#define GS_SCN_MACHINE_H

#include "../timeline/timeline.h"

/* Sets host.cores, host.mem_bytes, host.cpu_mhz, host.kernel on tl. */
void gs_machine_meta(gs_timeline *tl);

typedef struct gs_cpu_sampler gs_cpu_sampler;
/* Starts sampling the process CPU into counter `process_cpu` on lane
 * "driver/cpu" of tl every 100 ms; NULL when it cannot (the run goes on
 * without it).  Stop before the timeline is read. */
gs_cpu_sampler *gs_cpu_sampler_start(gs_timeline *tl);
void gs_cpu_sampler_stop(gs_cpu_sampler *s);

#endif
