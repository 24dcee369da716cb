#define _GNU_SOURCE
#include "bigmem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

static int advise_enabled(void)
{
    static int v = -1; /* read once; a race reads the same value twice */
    if (v < 0) {
        const char *s = getenv("GS_HUGEPAGES");
        v = !(s && !strcmp(s, "0"));
    }
    return v;
}

void *gs_big_alloc(size_t bytes)
{
    if (bytes < GS_BIG_MIN || !advise_enabled())
        return malloc(bytes ? bytes : 1);
    /* Only the whole huge pages are advised: the tail stays on 4 KiB pages,
     * so no block is rounded up in resident memory (a 3.3 MiB array would
     * otherwise hold 4 MiB; at 2^14 that took the peak RSS past 2x the key). */
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
        return NULL;
    (void)madvise(p, bytes & ~(HUGE_PAGE - 1), MADV_HUGEPAGE); /* advice only: EINVAL without THP */
    return p;
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
