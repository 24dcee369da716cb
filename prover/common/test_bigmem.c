/*
 * gs_big_alloc / gs_big_calloc: usable memory of the size asked at both
 * sides of GS_BIG_MIN, 2 MiB alignment from GS_BIG_MIN up (unless
 * GS_HUGEPAGES=0), zeroed calloc blocks even where the allocator reuses a
 * dirty block, NULL for an n * size that overflows.  Whether the kernel
 * backs a block with huge pages depends on its THP setting and on free
 * memory, so it is not asserted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "bigmem.h"

static int hugepages_off(void)
{
    const char *s = getenv("GS_HUGEPAGES");
    return s && !strcmp(s, "0");
}

GS_TEST(bigmem_alloc_sizes_and_alignment)
{
    static const size_t sizes[] = { 0, 1, 4096, GS_BIG_MIN - 1, GS_BIG_MIN, GS_BIG_MIN + 1,
                                    3 * GS_BIG_MIN + 12345 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *p = gs_big_alloc(n);
        GS_REQUIRE(p != NULL);
        if (n >= GS_BIG_MIN && !hugepages_off())
            GS_CHECK_MSG(((uintptr_t)p & ((2u << 20) - 1)) == 0, "%zu bytes at %p: not 2 MiB aligned",
                         n, (void *)p);
        if (n) {
            memset(p, 0xa5, n);
            GS_CHECK(p[0] == 0xa5 && p[n - 1] == 0xa5);
        }
        free(p);
    }
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
