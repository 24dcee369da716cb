/* gs_msm_repeats (contract in msm.h): repeated nonzero scalars, counted on
 * the pool.  The hash's top bits split the scalars into parts; a task owns
 * one part and its open-addressing table (linear probing, at least twice
 * its expected entries), so no two tasks touch one table. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "msm_internal.h"

enum { REP_OK, REP_NOMEM, REP_FULL };   /* REP_FULL: a part outgrew its table */

typedef struct {
    const gs_scalar *k;
    size_t n;
    unsigned parts;
    _Atomic size_t repeats;
    _Atomic int fail;
} rep_ctx;

static void rep_part(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    rep_ctx *c = vctx;
    size_t tsize = 16;
    while (tsize < 2 * (c->n / c->parts + 1))
        tsize *= 2;
    uint32_t *tab = malloc(tsize * sizeof *tab);    /* index + 1, 0 = empty */
    if (!tab) {
        atomic_store(&c->fail, REP_NOMEM);
        return;
    }
    for (size_t part = begin; part < end; part++) {
        memset(tab, 0, tsize * sizeof *tab);
        size_t rep = 0, used = 0;
        for (size_t i = 0; i < c->n; i++) {
            const gs_scalar *k = &c->k[i];
            if ((k->l[0] | k->l[1] | k->l[2] | k->l[3]) == 0)
                continue;
            uint64_t hv = gs_msm_scalar_hash(k);
            if ((size_t)((hv >> 40) % c->parts) != part)
                continue;
            for (size_t h = (size_t)hv & (tsize - 1);; h = (h + 1) & (tsize - 1)) {
                uint32_t e = tab[h];
                if (e == 0) {
                    if (2 * ++used > tsize) {          /* an unlucky split */
                        atomic_store(&c->fail, REP_FULL);
                        free(tab);
                        return;
                    }
                    tab[h] = (uint32_t)i + 1;
                    break;
                }
                if (!memcmp(&c->k[e - 1], k, sizeof *k)) {
                    rep++;
                    break;
                }
            }
        }
        atomic_fetch_add(&c->repeats, rep);
    }
    free(tab);
}

/* The count with the scalars split by hash into `parts` tasks on the pool;
 * returns REP_OK or why there is no count. */
static int count_parts(const gs_scalar *k, size_t n, unsigned parts, gs_pool *pool,
                       size_t *repeats)
{
    rep_ctx c = {.k = k, .n = n, .parts = parts};
    atomic_init(&c.repeats, 0);
    atomic_init(&c.fail, REP_OK);
    gs_pool_for(pool, parts, 1, rep_part, &c);
    *repeats = atomic_load(&c.repeats);
    return atomic_load(&c.fail);
}

size_t gs_msm_repeats(const gs_scalar *k, size_t n, gs_pool *pool)
{
    if (n == 0)
        return 0;
    if (n >= UINT32_MAX)
        return n;                                       /* 32-bit indices: "may repeat" */
    unsigned width = gs_pool_width(pool);
    size_t rep;
    int fail = count_parts(k, n, width > 1 ? width : 1, pool, &rep);
    if (fail == REP_FULL)                               /* one table for all, which cannot fill */
        fail = count_parts(k, n, 1, NULL, &rep);
    return fail ? n : rep;                              /* no memory: "may repeat" */
}
