/*
 * Bump allocation from a chain of chunks (arena.h): the newest chunk at
 * the head, each chunk's bytes handed out in order.
 */
#include <stdlib.h>

#include "arena.h"

typedef struct gs_arena_chunk {
    struct gs_arena_chunk *next;
    size_t used, cap;
    max_align_t data[];
} gs_arena_chunk;

void gs_arena_init(gs_arena *a)
{
    a->head = NULL;
}

void *gs_arena_alloc(gs_arena *a, size_t n, size_t chunk)
{
    gs_arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > chunk ? n : chunk;
        gs_arena_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc)
            return NULL;
        nc->next = c;
        nc->used = 0;
        nc->cap = cap;
        a->head = c = nc;
    }
    void *r = (char *)c->data + c->used;
    c->used += n;
    return r;
}

void gs_arena_reset(gs_arena *a)
{
    gs_arena_chunk *c = a->head;
    if (!c)
        return;
    for (gs_arena_chunk *o = c->next, *nx; o; o = nx) {
        nx = o->next;
        free(o);
    }
    c->next = NULL;
    c->used = 0;
}

void gs_arena_free(gs_arena *a)
{
    for (gs_arena_chunk *c = a->head, *nx; c; c = nx) {
        nx = c->next;
        free(c);
    }
    a->head = NULL;
}
