/*
 * String -> small integer map for the Perfetto writer's interning (event
 * names, categories, debug annotation names: tl_internal.h).  Open
 * addressing on an FNV-1a hash of the contents, with a direct-mapped cache
 * in front keyed by the string's address for strings whose address keeps
 * its contents (the timeline's, static ones): the timeline keeps one copy
 * of a repeated name per lane, so most lookups are one pointer compare.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void gs_tl_strmap_init(gs_tl_strmap *m)
{
    memset(m, 0, sizeof *m);
}

void gs_tl_strmap_free(gs_tl_strmap *m)
{
    for (size_t i = 0; m->own && i < m->cap; i++)
        free((char *)m->key[i]);
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

static int grow(gs_tl_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    const char **nk = calloc(cap, sizeof *nk);
    uint64_t *nv = malloc(cap * sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return 0;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->key[i])
            continue;
        size_t j = (size_t)str_hash(m->key[i]) & (cap - 1);
        while (nk[j])
            j = (j + 1) & (cap - 1);
        nk[j] = m->key[i];
        nv[j] = m->val[i];
    }
    free(m->key);
    free(m->val);
    m->key = nk;
    m->val = nv;
    m->cap = cap;
    return 1;
}

uint64_t gs_tl_strmap_get(gs_tl_strmap *m, const char *s, int stable, int *added,
                          const char **stored)
{
    *added = 0;
    size_t c = ((uintptr_t)s >> 3) & (GS_TL_STRMAP_CACHE - 1);
    if (stable && m->cache_key[c] == s)
        return m->cache_val[c];
    if ((m->n + 1) * 2 > m->cap && !grow(m))
        return 0;
    size_t j = (size_t)str_hash(s) & (m->cap - 1);
    while (m->key[j]) {
        if (!strcmp(m->key[j], s)) {
            if (stable) {
                m->cache_key[c] = s;
                m->cache_val[c] = m->val[j];
            }
            return m->val[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
    /* Without `own`, keys point into the timeline (or static strings),
     * which outlive the map; the address cache is only for stable ones. */
    const char *k = m->own ? strdup(s) : s;
    if (!k)
        return 0;
    m->key[j] = k;
    m->val[j] = ++m->n;
    if (stable) {
        m->cache_key[c] = s;
        m->cache_val[c] = m->n;
    }
    *added = 1;
    *stored = k;
    return m->n;
}
