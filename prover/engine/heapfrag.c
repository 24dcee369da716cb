/*
 * A deliberately fragmented heap for the real mode of the malloc_trim
 * injection point.
 *
 * What makes malloc_trim(0) slow in production is a large heap whose free
 * memory is scattered in holes between live blocks: trim walks every arena
 * and every free chunk and madvise(MADV_DONTNEED)s the whole pages inside
 * them.  gs_heapfrag builds that shape for real: `bytes` worth of blocks of
 * seeded sizes between 4 KiB and 60 KiB (under glibc's mmap threshold, so
 * they live in the arena, not in their own mappings), every block written
 * (resident), then a seeded half freed.  Each churn round toggles a seeded
 * eighth of the blocks (frees live ones, refills and touches holes), so the
 * following malloc_trim(0) again finds dirty free pages scattered through
 * the heap, while a round costs only a fraction of the heap's size.
 *
 * Threads: any thread; one mutex (a leaf lock) guards the blocks.  A round
 * that finds another round running is skipped (the heap is being churned
 * anyway), so finalizers never queue up behind each other here.  The blocks
 * are allocated by whichever thread churns, as real application churn
 * would be.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

#define FRAG_MIN (4u << 10)
#define FRAG_MAX (60u << 10)

static void *block_fill(uint32_t size, uint64_t tag)
{
    unsigned char *p = malloc(size);
    if (!p)
        return NULL;
    /* Touch every page so the block is resident and its pages dirty. */
    for (uint32_t o = 0; o < size; o += 4096)
        p[o] = (unsigned char)(tag + o);
    p[size - 1] = (unsigned char)tag;
    return p;
}

gs_status gs_heapfrag_init(gs_heapfrag *h, uint64_t bytes, uint64_t seed, gs_err *err)
{
    gs_rng r;
    memset(h, 0, sizeof *h);
    h->bytes = bytes;
    h->seed = seed;
    size_t n = (size_t)(bytes / ((FRAG_MIN + FRAG_MAX) / 2)) + 1;
    h->slot = calloc(n, sizeof *h->slot);
    h->size = calloc(n, sizeof *h->size);
    if (!h->slot || !h->size)
        goto nomem;
    if (pthread_mutex_init(&h->mu, NULL) != 0)
        goto nomem;
    h->n = n;
    gs_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        h->size[i] = FRAG_MIN + (uint32_t)gs_rng_below(&r, FRAG_MAX - FRAG_MIN + 1);
        h->slot[i] = block_fill(h->size[i], i);
        if (!h->slot[i]) {
            gs_heapfrag_deinit(h);
            goto nomem_freed;
        }
    }
    /* Free a seeded half: holes between live blocks. */
    for (size_t i = 0; i < n; i++)
        if (gs_rng_u64(&r) & 1) {
            free(h->slot[i]);
            h->slot[i] = NULL;
        }
    return GS_OK;
nomem:
    free(h->slot);
    free(h->size);
    memset(h, 0, sizeof *h);
nomem_freed:
    return GS_ERR(err, GS_ERR_NOMEM, "heapfrag", "cannot fragment a heap of %llu bytes",
                  (unsigned long long)bytes);
}

void gs_heapfrag_deinit(gs_heapfrag *h)
{
    if (!h->slot)
        return;
    for (size_t i = 0; i < h->n; i++)
        free(h->slot[i]);
    free(h->slot);
    free(h->size);
    pthread_mutex_destroy(&h->mu);
    memset(h, 0, sizeof *h);
}

uint64_t gs_heapfrag_churn(gs_heapfrag *h)
{
    gs_rng r;
    uint64_t freed = 0;
    if (!h->slot)
        return 0;
    if (pthread_mutex_trylock(&h->mu) != 0)
        return UINT64_MAX;
    gs_rng_seed(&r, gs_eng_mix(h->seed, ++h->round));
    for (size_t i = 0; i < h->n; i++) {
        if ((gs_rng_u64(&r) & 7) != 0)
            continue;
        if (h->slot[i]) {
            free(h->slot[i]);
            h->slot[i] = NULL;
            freed += h->size[i];
        } else {
            /* A failed refill just leaves the hole: the heap stays valid. */
            h->slot[i] = block_fill(h->size[i], i + h->round);
        }
    }
    pthread_mutex_unlock(&h->mu);
    return freed;
}
