/*
 * Seeded randomness for tests, synthetic inputs and injection draws
 * (xoshiro256**, seeded through splitmix64), and the operating system's
 * randomness for anything secret (Groth16 blinding, getrandom(2)).
 *
 * A gs_rng is not thread safe; give each thread its own.
 */
#ifndef GS_RNG_H
#define GS_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct gs_rng {
    uint64_t s[4];
} gs_rng;

void gs_rng_seed(gs_rng *r, uint64_t seed);
uint64_t gs_rng_u64(gs_rng *r);
/* Uniform in [0, 1). */
double gs_rng_unit(gs_rng *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t gs_rng_below(gs_rng *r, uint64_t n);
/* Standard normal draw (Box-Muller). */
double gs_rng_normal(gs_rng *r);
void gs_rng_bytes(gs_rng *r, void *out, size_t n);

/* Fills out with n bytes from getrandom(2); returns 0 on success, -1 on failure. */
int gs_os_random(void *out, size_t n);

/* CLOCK_MONOTONIC in nanoseconds: the time base of every timeline.  While
 * a virtual clock runs (vclock.h) it is the virtual time instead. */
int64_t gs_now_ns(void);
/* Sleeps ns nanoseconds (restarting after signals); a participant of a
 * running virtual clock sleeps ns of virtual time (vclock.h). */
void gs_sleep_ns(int64_t ns);
/* CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), in
 * nanoseconds; captures record it beside wall time (timeline/SPANS.md).  For a
 * participant of a virtual clock: the modelled CPU it has consumed. */
int64_t gs_thread_cpu_ns(void);

#endif
