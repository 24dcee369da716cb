/*
 * String -> 1, 2, 3, ... in order of first sight (strmap.c): interning
 * (the Perfetto writer's names, attach's strings), lookups by name (the
 * importers' lanes, the trace writers' lock ranks).
 *
 * Keys are copied when `own` is set (before the first get; freed by
 * gs_strmap_free), else they must outlive the map.  Not thread safe.
 */
#ifndef GS_STRMAP_H
#define GS_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#define GS_STRMAP_CACHE 4096
typedef struct gs_strmap {
    const char **key;
    uint64_t *val;
    size_t n, cap;
    int own;
    const char *cache_key[GS_STRMAP_CACHE];
    uint64_t cache_val[GS_STRMAP_CACHE];
} gs_strmap;

void gs_strmap_init(gs_strmap *m);
void gs_strmap_free(gs_strmap *m);
/* The id of s (added when new).  `stable`: s's address holds these
 * contents as long as the map lives (lookups by address are then cached).
 * Returns 0 only when out of memory; *added says the string was new;
 * *stored is a string of these contents that lives as long as the map (the
 * stored key; s itself when found by its stable address). */
uint64_t gs_strmap_get(gs_strmap *m, const char *s, int stable, int *added,
                       const char **stored);

#endif
