/* gs_pool's CPU accounting: the CPU its helpers spend on a call is added
 * to the calling thread's total (gs_task_cpu_ns), so a step's CPU counts
 * every pool thread that worked for it. */
#include <stdint.h>

#include "../test/test.h"
#include "pool.h"
#include "clock.h"

static volatile uint64_t sink;

/* About a millisecond of arithmetic per item. */
static void spin(void *ctx, size_t begin, size_t end, unsigned slot)
{
    (void)ctx;
    (void)slot;
    uint64_t x = begin + 1;
    for (size_t i = begin; i < end; i++)
        for (int k = 0; k < 400000; k++)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sink = x;
}

GS_TEST(pool_cpu_accounting)
{
    gs_pool *pool = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_pool_create(&pool, 4, &err) == GS_OK);
    int64_t own0 = gs_thread_cpu_ns(), task0 = gs_task_cpu_ns(), help0 = gs_pool_helper_cpu_ns();
    gs_pool_peak_reset();
    gs_pool_for(pool, 64, 1, spin, NULL);
    int64_t own = gs_thread_cpu_ns() - own0, task = gs_task_cpu_ns() - task0;
    int64_t help = gs_pool_helper_cpu_ns() - help0;
    /* The task's CPU is the caller's own plus its helpers', exactly. */
    GS_CHECK_MSG(task - own - help >= -50000 && task - own - help <= 50000, "task %lld own %lld helpers %lld",
                 (long long)task, (long long)own, (long long)help);
    GS_CHECK(help >= 0 && own > 0);
    /* No helper joined (possible on a loaded machine): no helper CPU. */
    GS_CHECK(gs_pool_peak_helpers() > 0 || help == 0);
    GS_CHECK(gs_pool_peak_helpers() <= 3);
    /* A serial call (width 1) adds nothing to the helper total. */
    int64_t h1 = gs_pool_helper_cpu_ns();
    gs_pool_for(NULL, 4, 1, spin, NULL);
    GS_CHECK_EQ_INT(gs_pool_helper_cpu_ns(), h1);
    gs_pool_destroy(pool);
}
