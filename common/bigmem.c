#define _GNU_SOURCE
#include "bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int advise_enabled(void)
{
    static int v = -1; /* read once; a race reads the same value twice */
    if (v < 0) {
        const char *s = getenv("GS_HUGEPAGES");
        v = !(s && !strcmp(s, "0"));
    }
    return v;
}

/* `bytes` 2 MiB-aligned, its first `advised` bytes advised MADV_HUGEPAGE
 * (advice only: EINVAL without THP). */
static void *huge_aligned(size_t bytes, size_t advised)
{
    void *p = NULL;
    if (posix_memalign(&p, GS_HUGE_PAGE, bytes) != 0)
        return NULL;
    (void)madvise(p, advised, MADV_HUGEPAGE);
    return p;
}

int gs_big_enabled(void)
{
    return advise_enabled();
}

void *gs_big_alloc(size_t bytes)
{
    if (bytes < GS_BIG_MIN || !advise_enabled())
        return malloc(bytes ? bytes : 1);
    /* Only the whole huge pages are advised: the tail stays on 4 KiB pages,
     * so no block is rounded up in resident memory (a 3.3 MiB array would
     * otherwise hold 4 MiB; at 2^14 that took the peak RSS past 2x the key). */
    return huge_aligned(bytes, bytes & ~(GS_HUGE_PAGE - 1));
}

static size_t page_round(size_t bytes)
{
    return (bytes + 4095) & ~(size_t)4095;
}

void *gs_big_map(size_t bytes)
{
    size_t len = page_round(bytes ? bytes : 1);
    int huge = len >= GS_BIG_MIN && advise_enabled();
    size_t span = len + (huge ? GS_HUGE_PAGE : 0);
    if (len < bytes || span < len)
        return NULL;
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (!huge)
        return m;
    char *a = (char *)(((uintptr_t)m + GS_HUGE_PAGE - 1) & ~(uintptr_t)(GS_HUGE_PAGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (m + span > a + len)
        munmap(a + len, (size_t)(m + span - (a + len)));
    (void)madvise(a, len & ~(GS_HUGE_PAGE - 1), MADV_HUGEPAGE);
    return a;
}

void gs_big_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, page_round(bytes ? bytes : 1));
}

void gs_big_advise(void *p, size_t bytes)
{
    uintptr_t a = ((uintptr_t)p + GS_HUGE_PAGE - 1) & ~(uintptr_t)(GS_HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)(GS_HUGE_PAGE - 1);
    if (p && bytes >= GS_BIG_ADVISE_MIN && e > a && advise_enabled())
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

void *gs_big_alloc_dense(size_t bytes)
{
    if (bytes < ((size_t)1 << 20) || !advise_enabled())
        return malloc(bytes ? bytes : 1);
    size_t whole = (bytes + GS_HUGE_PAGE - 1) & ~(GS_HUGE_PAGE - 1);
    return whole < bytes ? NULL : huge_aligned(whole, whole);
}

void *gs_big_calloc(size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size)
        return NULL;
    size_t bytes = n * size;
    if (bytes < GS_BIG_MIN || !advise_enabled())
        return calloc(n ? n : 1, size ? size : 1);
    void *p = gs_big_alloc(bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}
