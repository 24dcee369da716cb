/* gs_msm_repeats (contract in msm.h): repeated nonzero scalars, counted on
 * the pool.  The hash's top bits split the scalars into parts; a task owns
 * one part and its open-addressing table (linear probing, at least twice
 * its expected entries), so no two tasks touch one table. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "msm_internal.h"

typedef struct {
    const gs_scalar *k;
    size_t n;
    unsigned parts;
    _Atomic size_t repeats;
    _Atomic int nomem;
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
        atomic_store(&c->nomem, 1);
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
                    if (2 * ++used > tsize) {          /* an unlucky split: count the rest apart */
                        atomic_store(&c->nomem, 2);
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

size_t gs_msm_repeats(const gs_scalar *k, size_t n, gs_pool *pool)
{
    if (n == 0)
        return 0;
    if (n >= UINT32_MAX)
        return n;                                       /* 32-bit indices: "may repeat" */
    unsigned width = gs_pool_width(pool);
    rep_ctx c = {.k = k, .n = n, .parts = width > 1 ? width : 1};
    atomic_init(&c.repeats, 0);
    atomic_init(&c.nomem, 0);
    gs_pool_for(pool, c.parts, 1, rep_part, &c);
    if (atomic_load(&c.nomem) == 2) {                  /* one table for all, serially */
        rep_ctx one = {.k = k, .n = n, .parts = 1};
        atomic_init(&one.repeats, 0);
        atomic_init(&one.nomem, 0);
        rep_part(&one, 0, 1, 0);
        return atomic_load(&one.nomem) ? n : atomic_load(&one.repeats);
    }
    return atomic_load(&c.nomem) ? n : atomic_load(&c.repeats);
}
