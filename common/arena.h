/*
 * Bump allocation from a chain of chunks: many small blocks that are freed
 * together.  The JSON reader's trees of many small documents (json.h,
 * gs_json_parse_in), the timeline's per-lane strings.
 *
 *     gs_arena a;
 *     gs_arena_init(&a);
 *     char *p = gs_arena_alloc(&a, len, 65536);
 *     ...
 *     gs_arena_free(&a);
 *
 * Blocks start where the previous one ended: a caller that needs alignment
 * asks for multiples of it (chunks start aligned to max_align_t).  Owned
 * by one thread; blocks stay valid until gs_arena_reset or gs_arena_free.
 */
#ifndef GS_ARENA_H
#define GS_ARENA_H

#include <stddef.h>

typedef struct gs_arena {
    struct gs_arena_chunk *head;   /* the newest chunk; NULL: none yet */
} gs_arena;

void gs_arena_init(gs_arena *a);
/* n bytes from the newest chunk, or from a new one of max(n, chunk) bytes;
 * NULL when out of memory. */
void *gs_arena_alloc(gs_arena *a, size_t n, size_t chunk);
/* Frees every chunk but the newest (the largest needed lately), which is
 * kept, empty, for what comes next. */
void gs_arena_reset(gs_arena *a);
/* Frees every chunk. */
void gs_arena_free(gs_arena *a);

#endif
