/*
 * gs_big_prefault (bigmem.h): a fresh block's first touches spread over a
 * pool.  Apart from bigmem.c so that the allocator needs no thread pool
 * (the pool, through the thread clock, grows its arrays with gs_grow, which
 * allocates through bigmem.c).
 */
#include <stdint.h>

#include "bigmem.h"
#include "pool.h"

/* Prefault items: the advised whole huge pages one per item (one fault
 * each), the rest (4 KiB pages) in runs of SMALL_RUN bytes so that both
 * threads fault them too. */
#define SMALL_RUN ((size_t)256 << 10)

typedef struct {
    volatile unsigned char *p;
    size_t bytes, huge;          /* [0, huge) on huge pages */
} prefault_ctx;

static void prefault_items(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    const prefault_ctx *c = vctx;
    size_t n_huge = c->huge / GS_HUGE_PAGE;
    for (size_t it = begin; it < end; it++) {
        size_t lo = it < n_huge ? it * GS_HUGE_PAGE : c->huge + (it - n_huge) * SMALL_RUN;
        size_t hi = lo + (it < n_huge ? GS_HUGE_PAGE : SMALL_RUN);
        if (hi > c->bytes)
            hi = c->bytes;
        for (size_t off = lo; off < hi; off += 4096)
            c->p[off] = c->p[off];
        if (hi == c->bytes)              /* a block not page-aligned ends on one more page */
            c->p[hi - 1] = c->p[hi - 1];
    }
}

void gs_big_prefault(void *p, size_t bytes, struct gs_pool *pool)
{
    if (!p || !bytes)
        return;
    size_t huge = bytes >= GS_BIG_MIN && gs_big_enabled() ? bytes & ~(GS_HUGE_PAGE - 1) : 0;
    prefault_ctx c = {p, bytes, huge};
    size_t items = huge / GS_HUGE_PAGE + (bytes - huge + SMALL_RUN - 1) / SMALL_RUN;
    gs_pool_for(pool, items, 1, prefault_items, &c);
}
