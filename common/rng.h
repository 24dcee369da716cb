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

#endif
