/*
 * Growing arrays: the one "double the capacity when full" step every
 * append-only array, heap and byte buffer of gapscope takes.
 *
 *     if (!gs_grow(&t->a, &t->cap, t->n, sizeof *t->a, 64))
 *         return GS_ERR_NOMEM;
 *     t->a[t->n++] = x;
 *
 *     if (!gs_grow_to(&b->data, &b->cap, b->len + n, 1, 4096))   (n bytes more)
 *         return 0;
 */
#ifndef GS_GROW_H
#define GS_GROW_H

#include <stdlib.h>
#include <string.h>

#include "bigmem.h"

/* Makes room for need elements in the array whose pointer is at arrp (any
 * T **, passed as void *), of *cap elements of elem bytes: when need >
 * *cap the capacity doubles (from first when it was 0) until it holds
 * need, and the array is realloc'd (from GS_BIG_ADVISE_MIN bytes on, moved
 * to a gs_big_alloc block: huge pages, bigmem.h; release with free() all
 * the same).  1 on success; 0 when memory ran out,
 * the array and *cap unchanged. */
static inline int gs_grow_to(void *arrp, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 1;
    size_t nc = *cap ? *cap * 2 : first;
    while (nc < need)
        nc *= 2;
    void *old, *p;
    memcpy(&old, arrp, sizeof old);
    if (nc * elem >= GS_BIG_ADVISE_MIN && gs_big_enabled()) {   /* into huge pages, not 4 KiB ones */
        if (!(p = gs_big_alloc(nc * elem)))
            return 0;
        if (old)
            memcpy(p, old, *cap * elem);
        free(old);
    } else if (!(p = realloc(old, nc * elem))) {
        return 0;
    }
    memcpy(arrp, &p, sizeof p);
    *cap = nc;
    return 1;
}

/* Makes room for element n (gs_grow_to of n + 1): when n == *cap the
 * capacity doubles (first when it was 0). */
static inline int gs_grow(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
    return gs_grow_to(arrp, cap, n + 1, elem, first);
}

#endif
