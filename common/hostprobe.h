/*
 * The host-speed probe: a fixed CPU and memory workload timed on the
 * threads a run will use, so two captures taken at different times (a
 * paired gate's base and head, a set of repeats) can say whether the host
 * itself was as fast, independently of the code under test.
 *
 * Workload, version GS_HOST_PROBE_VERSION (never changed in place: a new
 * workload gets a new version, and probes of different versions are not
 * compared): each of `threads` threads owns an 8 MiB buffer of 64-bit
 * words (filled before the clock starts: page faults are not timed) and
 * runs GS_HOST_PROBE_STEPS steps of four independent chains, each step a
 * multiply-xorshift and one read-modify-write at a data-dependent index:
 * integer throughput, cache and memory latency, the way synthesis loads a
 * host.  The threads start together; the result is all their steps over
 * the wall time from the start to the last thread's end, in millions of
 * steps per second (so threads that share a core, or a core that another
 * tenant takes, lower it).  The median of five such rounds is returned.
 * It takes ~20-40 ms per thread of a free core (a 2-core VM: 1 thread ~25 ms).
 *
 * Thread safety: reentrant (each call owns its buffers and threads).
 */
#ifndef GS_HOSTPROBE_H
#define GS_HOSTPROBE_H

#define GS_HOST_PROBE_VERSION 1
#define GS_HOST_PROBE_STEPS (1u << 18)

/* Millions of steps per second over `threads` threads (1..256), or a
 * negative value when the buffers or threads could not be had. */
double gs_host_probe(int threads);

#endif
