/*
 * String -> 1, 2, 3, ... map (strmap.h): the Perfetto writer's interning
 * and the trace writers' lock ranks (timeline/), the importers' lanes by
 * name, attach's interned strings (capture/).  Open addressing on an
 * FNV-1a hash of the contents, with a direct-mapped cache in front keyed by
 * the string's address for strings whose address keeps its contents (the
 * timeline's, static ones): the timeline keeps one copy of a repeated name
 * per lane, so most lookups are one pointer compare.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "strmap.h"

void gs_strmap_init(gs_strmap *m)
{
    memset(m, 0, sizeof *m);
}

void gs_strmap_free(gs_strmap *m)
{
    for (size_t i = 0; m->own && i < m->cap; i++)
        free((char *)m->key[i]);
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

static int grow(gs_strmap *m)
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
        size_t j = (size_t)gs_fnv1a(m->key[i]) & (cap - 1);
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

uint64_t gs_strmap_get(gs_strmap *m, const char *s, int stable, int *added,
                       const char **stored)
{
    *added = 0;
    size_t c = ((uintptr_t)s >> 3) & (GS_STRMAP_CACHE - 1);
    if (stable && m->cache_key[c] == s) {
        *stored = s;
        return m->cache_val[c];
    }
    if ((m->n + 1) * 2 > m->cap && !grow(m))
        return 0;
    size_t j = (size_t)gs_fnv1a(s) & (m->cap - 1);
    while (m->key[j]) {
        if (!strcmp(m->key[j], s)) {
            if (stable) {
                m->cache_key[c] = s;
                m->cache_val[c] = m->val[j];
            }
            *stored = m->key[j];
            return m->val[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
    /* Without `own`, keys are the callers' strings (the timeline's, static
     * ones), which outlive the map; the address cache is only for stable
     * ones. */
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
