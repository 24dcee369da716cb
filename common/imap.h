/*
 * int64 -> int64 map (imap.c): correlation ids, thread ids and lane keys
 * of the importers, of attach's conversion, of the launcher rule and of
 * the model's dependency graph.  Open addressing over (key, value) pairs
 * side by side (one cache line a probe), doubled when half full.  Every
 * key may be used: INT64_MIN, the empty slots' mark, is kept apart.
 *
 * Not thread safe; gs_imap_free releases what init allocated.
 */
#ifndef GS_IMAP_H
#define GS_IMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct gs_imap_ent {
    int64_t key, val;
} gs_imap_ent;
typedef struct gs_imap {
    gs_imap_ent *e;
    size_t cap, n;
    int has_empty;           /* the one key a slot cannot hold (INT64_MIN) */
    int64_t empty_val;
} gs_imap;

/* An empty map with room for expect keys before it first grows (0: a
 * small default).  0 when out of memory. */
int gs_imap_init(gs_imap *m, size_t expect);
void gs_imap_free(gs_imap *m);
/* k -> v, replacing what k had; 0 when out of memory. */
int gs_imap_put(gs_imap *m, int64_t k, int64_t v);
/* k -> v unless k is there already (the first value wins); 0 when out of
 * memory. */
int gs_imap_add(gs_imap *m, int64_t k, int64_t v);
/* 1 and *v when k is there, else 0. */
int gs_imap_get(const gs_imap *m, int64_t k, int64_t *v);

#endif
