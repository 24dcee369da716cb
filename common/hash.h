/*
 * The string hash of gapscope's hash tables, name caches and the test
 * runner's per-test seeds: FNV-1a, 64-bit
 * (http://www.isthe.com/chongo/tech/comp/fnv/), written once.
 *
 *     uint64_t h = gs_fnv1a(name);
 *     h = gs_fnv1a_step(h, part);     (one more value folded in)
 *
 * The offset basis is FNV's 14695981039346656037 with its last digit
 * dropped, as the tables have always used; the multiply by the FNV prime
 * does the mixing, and the test runner derives each test's seed from this
 * value, so it stays.  Not for keys an adversary picks to slow a table.
 */
#ifndef GS_HASH_H
#define GS_HASH_H

#include <stdint.h>

#define GS_FNV1A_OFFSET 1469598103934665603ull
#define GS_FNV1A_PRIME 1099511628211ull

/* h with one more value folded in (a byte, or a wider value taken whole). */
static inline uint64_t gs_fnv1a_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * GS_FNV1A_PRIME;
}

/* The hash of a NUL-terminated string's bytes. */
static inline uint64_t gs_fnv1a(const char *s)
{
    uint64_t h = GS_FNV1A_OFFSET;
    for (; *s; s++)
        h = gs_fnv1a_step(h, (unsigned char)*s);
    return h;
}

#endif
