/* Tests of gs_pool: coverage, slots, concurrent and nested calls. */
#include "clock.h"
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../test/test.h"

typedef struct {
    atomic_int *hits;          /* one counter per item */
    atomic_int *slot_busy;     /* one flag per slot */
    unsigned width;
    atomic_int bad_slot;
    atomic_int slot_clash;
    atomic_int max_slot;
} cover_ctx;

static void cover_fn(void *vctx, size_t begin, size_t end, unsigned slot)
{
    cover_ctx *c = vctx;
    if (slot >= c->width) {
        atomic_store(&c->bad_slot, 1);
        return;
    }
    if (atomic_exchange(&c->slot_busy[slot], 1) != 0)
        atomic_store(&c->slot_clash, 1);
    int ms = atomic_load(&c->max_slot);
    while ((int)slot > ms && !atomic_compare_exchange_weak(&c->max_slot, &ms, (int)slot))
        ;
    for (size_t i = begin; i < end; i++) {
        atomic_fetch_add(&c->hits[i], 1);
        /* A little work so that helpers get a chance to join. */
        volatile unsigned x = 0;
        for (unsigned k = 0; k < 200; k++)
            x += k;
    }
    atomic_store(&c->slot_busy[slot], 0);
}

/* Runs one parallel-for and checks that each item ran exactly once. */
static int run_cover(gs_pool *pool, size_t n, size_t chunk)
{
    cover_ctx c = {0};
    c.width = gs_pool_width(pool);
    c.hits = calloc(n ? n : 1, sizeof *c.hits);
    c.slot_busy = calloc(c.width, sizeof *c.slot_busy);
    if (!c.hits || !c.slot_busy) {
        free(c.hits);
        free(c.slot_busy);
        return 0;
    }
    gs_pool_for(pool, n, chunk, cover_fn, &c);
    int ok = !atomic_load(&c.bad_slot) && !atomic_load(&c.slot_clash);
    for (size_t i = 0; i < n; i++)
        if (atomic_load(&c.hits[i]) != 1)
            ok = 0;
    free(c.hits);
    free(c.slot_busy);
    return ok;
}

GS_TEST(pool_cover_each_item_once)
{
    const unsigned widths[] = {1, 2, 3, 5};
    const size_t sizes[] = {0, 1, 2, 7, 64, 1000, 4097};
    const size_t chunks[] = {0, 1, 3, 64, 5000};
    GS_CHECK(run_cover(NULL, 100, 7));
    GS_CHECK_EQ_INT(gs_pool_width(NULL), 1);
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
        gs_pool *pool;
        GS_REQUIRE(gs_pool_create(&pool, widths[w], NULL) == GS_OK);
        GS_CHECK_EQ_INT(gs_pool_width(pool), widths[w]);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++)
                GS_CHECK_MSG(run_cover(pool, sizes[s], chunks[k]),
                             "width %u n %zu chunk %zu", widths[w], sizes[s], chunks[k]);
        gs_pool_destroy(pool);
    }
}

GS_TEST(pool_zero_means_all_cores)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 0, NULL) == GS_OK);
    GS_CHECK(gs_pool_width(pool) >= 1);
    GS_CHECK(run_cover(pool, 10000, 1));
    gs_pool_destroy(pool);
}

/* Several threads call gs_pool_for on one pool at the same time. */
typedef struct {
    gs_pool *pool;
    int ok;
} caller_arg;

static void *caller_main(void *varg)
{
    caller_arg *a = varg;
    a->ok = 1;
    for (int r = 0; r < 30; r++)
        if (!run_cover(a->pool, 500 + (size_t)r * 37, (size_t)(r % 5)))
            a->ok = 0;
    return NULL;
}

GS_TEST(pool_concurrent_callers)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 3, NULL) == GS_OK);
    enum { N_CALLERS = 4 };
    pthread_t th[N_CALLERS];
    caller_arg args[N_CALLERS];
    for (int i = 0; i < N_CALLERS; i++) {
        args[i].pool = pool;
        args[i].ok = 0;
        GS_REQUIRE(pthread_create(&th[i], NULL, caller_main, &args[i]) == 0);
    }
    for (int i = 0; i < N_CALLERS; i++) {
        pthread_join(th[i], NULL);
        GS_CHECK_MSG(args[i].ok, "caller %d saw a wrong coverage or slot", i);
    }
    gs_pool_destroy(pool);
}

/* fn calls gs_pool_for on the same pool: must not deadlock, must cover. */
typedef struct {
    gs_pool *pool;
    atomic_int failures;
    atomic_long total;
} nest_ctx;

static void inner_fn(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    atomic_long *total = vctx;
    atomic_fetch_add(total, (long)(end - begin));
}

static void outer_fn(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    nest_ctx *c = vctx;
    for (size_t i = begin; i < end; i++) {
        atomic_long t = 0;
        gs_pool_for(c->pool, 1000 + i, 13, inner_fn, &t);
        if (atomic_load(&t) != (long)(1000 + i))
            atomic_fetch_add(&c->failures, 1);
        atomic_fetch_add(&c->total, 1);
    }
}

GS_TEST(pool_nested_calls)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 4, NULL) == GS_OK);
    nest_ctx c = {.pool = pool};
    gs_pool_for(pool, 40, 1, outer_fn, &c);
    GS_CHECK_EQ_INT(atomic_load(&c.failures), 0);
    GS_CHECK_EQ_INT(atomic_load(&c.total), 40);
    gs_pool_destroy(pool);
}

/* With width > 1 and slow chunks, a helper must take part (slot > 0). */
typedef struct {
    atomic_int max_slot;
} slow_ctx;

static void slow_fn(void *vctx, size_t begin, size_t end, unsigned slot)
{
    slow_ctx *c = vctx;
    (void)begin;
    (void)end;
    int ms = atomic_load(&c->max_slot);
    while ((int)slot > ms && !atomic_compare_exchange_weak(&c->max_slot, &ms, (int)slot))
        ;
    gs_sleep_ns(2000000);
}

GS_TEST(pool_helpers_take_part)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);
    slow_ctx c = {0};
    gs_pool_for(pool, 50, 1, slow_fn, &c);
    GS_CHECK_EQ_INT(atomic_load(&c.max_slot), 1);
    gs_pool_destroy(pool);
}
