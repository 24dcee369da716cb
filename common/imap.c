/*
 * int64 -> int64 map (imap.h): open addressing with linear probing over
 * (key, value) pairs side by side (one cache line a probe); an empty slot
 * holds IMAP_EMPTY as its key, and that key itself, should a caller use
 * it, is kept apart.
 */
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "imap.h"

#define IMAP_EMPTY INT64_MIN

static void imap_clear(gs_imap_ent *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        e[i].key = IMAP_EMPTY;
}

int gs_imap_init(gs_imap *m, size_t expect)
{
    memset(m, 0, sizeof *m);
    m->cap = 64;
    while ((expect + 1) * 2 > m->cap)
        m->cap *= 2;
    m->e = malloc(m->cap * sizeof *m->e);
    if (!m->e) {
        m->cap = 0;
        return 0;
    }
    imap_clear(m->e, m->cap);
    return 1;
}

void gs_imap_free(gs_imap *m)
{
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* Keys that follow each other stay together: a key's low IMAP_RUN_BITS
 * bits place it inside a run of slots, the rest (mixed) choose the run.
 * Correlation ids count up, so a trace's puts and gets walk the table a
 * run at a time instead of one cache miss each (with the whole key mixed,
 * a 1 GB trace's 1.5M correlation ids cost ~14% of its import in misses on
 * a 64 MB table); keys that are already hashes spread as before. */
#define IMAP_RUN_BITS 4

static size_t imap_slot(const gs_imap_ent *e, size_t cap, int64_t k)
{
    uint64_t u = (uint64_t)k, h = u >> IMAP_RUN_BITS;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
    size_t i = (size_t)((h << IMAP_RUN_BITS) | (u & ((1u << IMAP_RUN_BITS) - 1))) & (cap - 1);
    while (e[i].key != IMAP_EMPTY && e[i].key != k)
        i = (i + 1) & (cap - 1);
    return i;
}

/* Sets k -> v; keeps an existing value unless replace. */
static int imap_set(gs_imap *m, int64_t k, int64_t v, int replace)
{
    if (!m->cap)
        return 0;
    if (k == IMAP_EMPTY) {
        if (!m->has_empty || replace)
            m->empty_val = v;
        m->n += !m->has_empty;
        m->has_empty = 1;
        return 1;
    }
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap * 2;
        gs_imap_ent *ne = gs_big_alloc_dense(cap * sizeof *ne);   /* free() releases it */
        if (!ne)
            return 0;
        imap_clear(ne, cap);
        for (size_t i = 0; i < m->cap; i++)
            if (m->e[i].key != IMAP_EMPTY)
                ne[imap_slot(ne, cap, m->e[i].key)] = m->e[i];
        free(m->e);
        m->e = ne;
        m->cap = cap;
    }
    size_t i = imap_slot(m->e, m->cap, k);
    if (m->e[i].key == IMAP_EMPTY) {
        m->e[i].key = k;
        m->e[i].val = v;
        m->n++;
    } else if (replace) {
        m->e[i].val = v;
    }
    return 1;
}

int gs_imap_put(gs_imap *m, int64_t k, int64_t v)
{
    return imap_set(m, k, v, 1);
}

int gs_imap_add(gs_imap *m, int64_t k, int64_t v)
{
    return imap_set(m, k, v, 0);
}

int gs_imap_get(const gs_imap *m, int64_t k, int64_t *v)
{
    if (!m->cap)
        return 0;
    if (k == IMAP_EMPTY) {
        if (m->has_empty)
            *v = m->empty_val;
        return m->has_empty;
    }
    size_t i = imap_slot(m->e, m->cap, k);
    if (m->e[i].key == IMAP_EMPTY)
        return 0;
    *v = m->e[i].val;
    return 1;
}
