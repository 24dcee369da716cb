/*
 * A deliberately fragmented heap for the real mode of the malloc_trim
 * injection point, and the per-partition working sets that keep every trim
 * busy.
 *
 * What makes malloc_trim(0) slow in production is a large heap whose free
 * memory is scattered in holes between live blocks: trim walks every arena
 * and every free chunk and madvise(MADV_DONTNEED)s the whole pages inside
 * each one, a system call per chunk whether or not its pages are still
 * resident.  gs_heapfrag builds that shape for real: `bytes` worth of slots,
 * each a block of seeded size between 8 KiB and 24 KiB (under glibc's mmap
 * threshold, so it lives in the arena, not in its own mapping, and every
 * free one holds at least one whole page) followed by a small spacer that
 * stays live for the heap's life, so no two holes ever coalesce; every
 * block written (resident), then a seeded half of the blocks freed.  The
 * spacers make the number of free chunks, and with it the cost of every
 * trim's walk, proportional to the heap's size (roughly 0.1 ms per MiB on the
 * 2-core CI machine) instead of collapsing into a few large chunks after the
 * first trim.  Each churn round toggles a seeded eighth of the blocks (frees
 * live ones, refills and touches holes), so the following malloc_trim(0)
 * again finds dirty free pages scattered through the heap, while a round
 * costs only a fraction of the heap's size.
 *
 * Working sets (gs_workset_*): the memory one partition lives on, the
 * production shape behind a slow trim on *every* partition: synthesis
 * allocates it block by block (seeded sizes as above, pages written), the
 * finalizer frees it all just before taking the tracker lock, so the trim
 * that follows always finds that many bytes of dirty free pages to return.
 *
 * Threads: any thread; one mutex (a leaf lock) guards the heap's blocks.
 * A round that finds another round running is skipped (the heap is being
 * churned anyway), so finalizers never queue up behind each other here.
 * The blocks are allocated by whichever thread churns, as real application
 * churn would be.  A working set belongs to its partition (one thread at a
 * time).
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

#define FRAG_MIN (8u << 10)
#define FRAG_MAX (24u << 10)
#define SPACER_MIN 1100u
#define SPACER_MAX 2000u

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
    size_t n = (size_t)(bytes / ((FRAG_MIN + FRAG_MAX) / 2 + SPACER_MAX)) + 1;
    h->slot = calloc(n, sizeof *h->slot);
    h->size = calloc(n, sizeof *h->size);
    h->spacer = calloc(n, sizeof *h->spacer);
    if (!h->slot || !h->size || !h->spacer)
        goto nomem;
    if (pthread_mutex_init(&h->mu, NULL) != 0)
        goto nomem;
    h->n = n;
    gs_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        h->size[i] = FRAG_MIN + (uint32_t)gs_rng_below(&r, FRAG_MAX - FRAG_MIN + 1);
        h->slot[i] = block_fill(h->size[i], i);
        h->spacer[i] = block_fill(SPACER_MIN + (uint32_t)gs_rng_below(&r, SPACER_MAX - SPACER_MIN + 1), i);
        if (!h->slot[i] || !h->spacer[i]) {
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
    free(h->spacer);
    memset(h, 0, sizeof *h);
nomem_freed:
    return GS_ERR(err, GS_ERR_NOMEM, "heapfrag", "cannot fragment a heap of %llu bytes",
                  (unsigned long long)bytes);
}

void gs_heapfrag_deinit(gs_heapfrag *h)
{
    if (!h->slot)
        return;
    for (size_t i = 0; i < h->n; i++) {
        free(h->slot[i]);
        free(h->spacer[i]);
    }
    free(h->slot);
    free(h->size);
    free(h->spacer);
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

uint64_t gs_workset_alloc(gs_workset *ws, uint64_t bytes, uint64_t seed)
{
    gs_rng r;
    memset(ws, 0, sizeof *ws);
    if (bytes == 0)
        return 0;
    size_t cap = (size_t)(bytes / FRAG_MIN) + 1;
    ws->blk = malloc(cap * sizeof *ws->blk);
    if (!ws->blk)
        return 0;
    gs_rng_seed(&r, seed);
    while (ws->bytes < bytes && ws->n < cap) {
        uint32_t size = FRAG_MIN + (uint32_t)gs_rng_below(&r, FRAG_MAX - FRAG_MIN + 1);
        void *b = block_fill(size, seed + ws->n);
        if (!b)
            break;
        ws->blk[ws->n++] = b;
        ws->bytes += size;
    }
    return ws->bytes;
}

uint64_t gs_workset_free(gs_workset *ws)
{
    uint64_t freed = ws->bytes;
    for (size_t i = 0; i < ws->n; i++)
        free(ws->blk[i]);
    free(ws->blk);
    memset(ws, 0, sizeof *ws);
    return freed;
}
