/*
 * gs_big_alloc / gs_big_calloc: usable memory of the size asked at both
 * sides of GS_BIG_MIN, 2 MiB alignment from GS_BIG_MIN up (unless
 * GS_HUGEPAGES=0), zeroed calloc blocks even where the allocator reuses a
 * dirty block, NULL for an n * size that overflows.  gs_big_prefault makes
 * every page of a fresh mapping resident (mincore) and keeps contents.
 * gs_big_map: the same for a mapping of its own, zeroed, released by
 * gs_big_unmap.
 * Whether the kernel backs a block with huge pages depends on its THP
 * setting and on free memory, so it is not asserted.
 */
#define _DEFAULT_SOURCE   /* mincore */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../test/test.h"
#include "bigmem.h"
#include "pool.h"

static int hugepages_off(void)
{
    const char *s = getenv("GS_HUGEPAGES");
    return s && !strcmp(s, "0");
}

static const size_t sizes[] = { 0, 1, 4096, GS_BIG_MIN - 1, GS_BIG_MIN, GS_BIG_MIN + 1,
                                2 * GS_BIG_MIN - 24, 3 * GS_BIG_MIN + 12345 };

/* The n bytes at p: 2 MiB-aligned from GS_BIG_MIN up (unless the advice is
 * off), zeroed when asked, writable end to end. */
static void check_block(unsigned char *p, size_t n, int zeroed)
{
    if (n >= GS_BIG_MIN && !hugepages_off())
        GS_CHECK_MSG(((uintptr_t)p & ((2u << 20) - 1)) == 0, "%zu bytes at %p: not 2 MiB aligned",
                     n, (void *)p);
    size_t nz = 0;
    for (size_t k = 0; zeroed && k < n; k += 4093)
        nz += p[k] != 0;
    GS_CHECK_MSG(nz == 0 && (!zeroed || !n || p[n - 1] == 0), "%zu bytes: not zeroed", n);
    if (n) {
        memset(p, 0xa5, n);
        GS_CHECK(p[0] == 0xa5 && p[n - 1] == 0xa5);
    }
}

GS_TEST(bigmem_alloc_sizes_and_alignment)
{
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = gs_big_alloc(sizes[i]);
        GS_REQUIRE(p != NULL);
        check_block(p, sizes[i], 0);
        free(p);
    }
}

/* gs_big_map: zeroed, writable, 2 MiB-aligned from GS_BIG_MIN up, and
 * gone from the address space once unmapped (mincore fails on it). */
GS_TEST(bigmem_map_sizes_and_release)
{
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = gs_big_map(sizes[i]), v;
        GS_REQUIRE(p != NULL);
        check_block(p, sizes[i], 1);
        gs_big_unmap(p, sizes[i]);
        GS_CHECK_MSG(mincore(p, 1, &v) != 0, "%zu bytes: still mapped", sizes[i]);
    }
    gs_big_unmap(NULL, 100);
}

GS_TEST(bigmem_calloc_zeroes_reused_blocks)
{
    size_t n = GS_BIG_MIN / 8 + 3;
    for (int round = 0; round < 3; round++) {
        uint64_t *p = gs_big_calloc(n, sizeof *p);
        GS_REQUIRE(p != NULL);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += p[i] != 0;
        GS_CHECK_MSG(bad == 0, "round %d: %zu of %zu words not zero", round, bad, n);
        memset(p, 0xff, n * sizeof *p); /* dirty it for the next round's reuse */
        free(p);
    }
    uint32_t *small = gs_big_calloc(100, sizeof *small);
    GS_REQUIRE(small != NULL);
    GS_CHECK(small[0] == 0 && small[99] == 0);
    free(small);
}

GS_TEST(bigmem_calloc_overflow_is_null)
{
    GS_CHECK(gs_big_calloc(SIZE_MAX / 2, 4) == NULL);
    GS_CHECK(gs_big_calloc((size_t)1 << 40, (size_t)1 << 40) == NULL);
}

/* Pages of [p, p + n) resident, by mincore. */
static size_t resident_pages(const unsigned char *p, size_t n, size_t *total)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(pg - 1), hi = (uintptr_t)p + n;
    size_t np = (hi - lo + pg - 1) / pg, in = 0;
    unsigned char *v = malloc(np);
    if (!v || mincore((void *)lo, hi - lo, v) != 0) {
        free(v);
        *total = 0;
        return 0;
    }
    for (size_t i = 0; i < np; i++)
        in += v[i] & 1;
    free(v);
    *total = np;
    return in;
}

GS_TEST(bigmem_prefault_touches_every_page_and_keeps_contents)
{
    gs_pool *pool = NULL;
    GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);
    /* A fresh mapping, from an odd offset, so both partial end pages count;
     * sizes below, at and above one huge page's worth. */
    static const size_t sizes[] = {5000, (2u << 20) - 77, (5u << 20) + 12345};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t map = sizes[i] + (8u << 10);
        unsigned char *m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                -1, 0);
        GS_REQUIRE(m != MAP_FAILED);
        unsigned char *p = m + 1000;
        size_t total, before = resident_pages(p, sizes[i], &total);
        GS_REQUIRE(total > 0);
        gs_big_prefault(p, sizes[i], i % 2 ? NULL : pool);
        size_t after = resident_pages(p, sizes[i], &total);
        GS_CHECK_MSG(after == total, "%zu bytes: %zu of %zu pages resident after (%zu before)",
                     sizes[i], after, total, before);
        munmap(m, map);
    }
    /* Contents stay. */
    size_t n = GS_BIG_MIN + 3 * 4096 + 5;
    unsigned char *p = gs_big_alloc(n);
    GS_REQUIRE(p != NULL);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131 + 7);
    gs_big_prefault(p, n, pool);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != (unsigned char)(i * 131 + 7);
    GS_CHECK_MSG(bad == 0, "%zu bytes changed", bad);
    gs_big_prefault(p, 0, pool);   /* nothing to touch */
    free(p);
    gs_big_prefault(NULL, 100, pool);
    gs_pool_destroy(pool);
}
