/*
 * Radix-2 number-theoretic transforms over Fr, in snarkjs's convention
 * (SNARKJS-FORMATS.md section 7.1, ffjavascript engine_fft.js):
 *
 *   ntt(a)[j]  = sum_k a[k] w_n^(jk)              (natural order in and out)
 *   intt(a)[j] = (1/n) sum_k a[k] w_n^(-jk)
 *
 * with n = 2^k and w_n = gs_fr_root_of_unity(k) (so w_(2n)^2 = w_n).  Any
 * other primitive root or a bit-reversed output would give wrong Groth16
 * proofs against snarkjs's H points.
 *
 * A gs_domain holds the constants for one size: w_n, 1/n, the odd-coset
 * shift g = w_(2n) and one table of n/2 twiddles w_n^0 .. w_n^(n/2-1)
 * (32 bytes * n/2: 2 GiB at 2^27).  The inverse transform reuses that table
 * (intt(a)[j] = ntt(a)[-j mod n] / n), so no second table exists.
 *
 * Elements are Montgomery gs_fr (field.h).  Transforms work in place on an
 * array of exactly gs_domain_size(d) elements.
 *
 * Threads: every transform spreads its work over `pool` (NULL = serial in
 * the caller; see common/pool.h).  A domain is immutable after creation, so
 * any number of threads may transform different arrays with one domain at
 * once.  Two calls must not work on the same array at the same time.
 *
 * Ownership: gs_domain_create allocates the domain and its table;
 * gs_domain_destroy frees both.
 */
#ifndef GS_POLY_H
#define GS_POLY_H

#include <stddef.h>

#include "../../common/pool.h"
#include "../../common/status.h"
#include "../field/field.h"

/* Largest supported log2 size (Fr's 2-adicity is 32; 2^28 covers 2^27 QAPs
 * plus the odd coset, which needs w_(2n)). */
#define GS_DOMAIN_MAX_LOG 28

typedef struct gs_domain gs_domain;

/*
 * Creates the domain of size 2^log_n, 0 <= log_n <= GS_DOMAIN_MAX_LOG,
 * filling its twiddle table with `pool`'s threads.  Returns GS_ERR_ARG for
 * log_n out of range, GS_ERR_NOMEM when the table cannot be allocated (detail
 * in err, which may be NULL); *out is NULL on failure.
 */
gs_status gs_domain_create(gs_domain **out, unsigned log_n, gs_pool *pool, gs_err *err);
void gs_domain_destroy(gs_domain *d);

size_t gs_domain_size(const gs_domain *d);
unsigned gs_domain_log(const gs_domain *d);
/* w_n, its inverse, 1/n, and the odd-coset shift g = w_(2n) and g^-1. */
const gs_fr *gs_domain_root(const gs_domain *d);
const gs_fr *gs_domain_root_inv(const gs_domain *d);
const gs_fr *gs_domain_size_inv(const gs_domain *d);
const gs_fr *gs_domain_odd_shift(const gs_domain *d);
const gs_fr *gs_domain_odd_shift_inv(const gs_domain *d);

/* Coefficients -> values at w_n^j, in place. */
void gs_domain_ntt(const gs_domain *d, gs_fr *a, gs_pool *pool);
/* Values at w_n^j -> coefficients, in place (includes the 1/n). */
void gs_domain_intt(const gs_domain *d, gs_fr *a, gs_pool *pool);

/*
 * a[i] *= g^i for i < n (snarkjs's batchApplyKey with first = 1): turns the
 * coefficients of p(X) into those of p(gX).
 */
void gs_poly_mul_powers(gs_fr *a, size_t n, const gs_fr *g, gs_pool *pool);

/* Coefficients -> values at g * w_n^j (scale by g^i, then ntt). */
void gs_domain_coset_ntt(const gs_domain *d, gs_fr *a, const gs_fr *g, gs_pool *pool);
/* Values at g * w_n^j -> coefficients (intt, then scale by g^-i); g != 0. */
void gs_domain_coset_intt(const gs_domain *d, gs_fr *a, const gs_fr *g, gs_pool *pool);

/*
 * snarkjs's odd-coset step for the H polynomial (SNARKJS-FORMATS.md 7.3):
 * values on <w_n> -> values at w_(2n)^(2j+1) = g * w_n^j with g = w_(2n):
 * intt, scale coefficient i by g^i, ntt.
 */
void gs_domain_to_odd_coset(const gs_domain *d, gs_fr *a, gs_pool *pool);

#endif
