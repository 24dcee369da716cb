/* Benchmarks of the common layer: the seeded generator and the clock every span reads. */
#include "../common/clock.h"
#include "../common/rng.h"
#include "gsbench.h"

static void bm_rng_u64(gs_bench_state *st)
{
    gs_rng r;
    gs_rng_seed(&r, 1);
    uint64_t acc = 0;
    while (gs_bench_keep_running(st))
        acc += gs_rng_u64(&r);
    gs_bench_do_not_optimize(&acc);
    gs_bench_set_items_processed(st, gs_bench_iterations(st));
}
GS_BENCHMARK(bm_rng_u64, "common/rng_u64", NULL)

static void bm_now_ns(gs_bench_state *st)
{
    int64_t acc = 0;
    while (gs_bench_keep_running(st))
        acc += gs_now_ns();
    gs_bench_do_not_optimize(&acc);
    gs_bench_set_items_processed(st, gs_bench_iterations(st));
}
GS_BENCHMARK(bm_now_ns, "common/clock_monotonic", NULL)
