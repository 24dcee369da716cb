#define _GNU_SOURCE
#include "rng.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/random.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void gs_rng_seed(gs_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman and Vigna, https://prng.di.unimi.it/). */
uint64_t gs_rng_u64(gs_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double gs_rng_unit(gs_rng *r)
{
    return (double)(gs_rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t gs_rng_below(gs_rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = gs_rng_u64(r);
    while (x >= limit);
    return x % n;
}

double gs_rng_normal(gs_rng *r)
{
    double u1 = gs_rng_unit(r), u2 = gs_rng_unit(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
}

void gs_rng_bytes(gs_rng *r, void *out, size_t n)
{
    unsigned char *p = out;
    while (n) {
        uint64_t v = gs_rng_u64(r);
        size_t k = n < 8 ? n : 8;
        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
}

int gs_os_random(void *out, size_t n)
{
    unsigned char *p = out;
    while (n) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}
