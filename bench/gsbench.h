/*
 * A C shim over Google Benchmark (libbenchmark, C++).  Benchmarks are
 * written in C:
 *
 *   static void bm_fr_mul(gs_bench_state *st)
 *   {
 *       ... set-up ...
 *       while (gs_bench_keep_running(st))
 *           gs_fr_mul(&x, &x, &y);
 *       gs_bench_set_items_processed(st, gs_bench_iterations(st));
 *   }
 *   GS_BENCHMARK(bm_fr_mul, "field/fr_mul", NULL)
 *
 * The third argument is an optional setup function that receives the
 * registration handle to add arguments/ranges/units:
 *
 *   static void msm_args(gs_bench_reg *r) { gs_bench_range(r, 1 << 10, 1 << 16, 4); gs_bench_unit(r, GS_BENCH_MS); }
 *
 * bench/gsbench.cc adapts this to benchmark::RegisterBenchmark and owns
 * main(), so every Google Benchmark flag works (--benchmark_filter,
 * --benchmark_repetitions, --benchmark_out=x.json ...).
 */
#ifndef GS_BENCH_H
#define GS_BENCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_bench_state gs_bench_state;  /* wraps benchmark::State */
typedef struct gs_bench_reg gs_bench_reg;      /* a registration being built */
typedef void (*gs_bench_fn)(gs_bench_state *st);
typedef void (*gs_bench_setup_fn)(gs_bench_reg *r);

typedef enum { GS_BENCH_NS, GS_BENCH_US, GS_BENCH_MS, GS_BENCH_S } gs_bench_time_unit;

/* The state loop: returns 1 while more iterations are wanted. */
int gs_bench_keep_running(gs_bench_state *st);
int64_t gs_bench_arg(gs_bench_state *st, int index);
int64_t gs_bench_iterations(gs_bench_state *st);
void gs_bench_pause_timing(gs_bench_state *st);
void gs_bench_resume_timing(gs_bench_state *st);
void gs_bench_set_items_processed(gs_bench_state *st, int64_t items);
void gs_bench_set_bytes_processed(gs_bench_state *st, int64_t bytes);
/* A user counter; is_rate = 1 divides by the elapsed time (per second). */
void gs_bench_counter(gs_bench_state *st, const char *name, double value, int is_rate);
void gs_bench_set_label(gs_bench_state *st, const char *label);
void gs_bench_skip_with_error(gs_bench_state *st, const char *msg);

/* Registration options (used inside a setup function). */
void gs_bench_arg_add(gs_bench_reg *r, int64_t arg);
void gs_bench_range(gs_bench_reg *r, int64_t lo, int64_t hi, int multiplier);
void gs_bench_unit(gs_bench_reg *r, gs_bench_time_unit unit);
void gs_bench_use_real_time(gs_bench_reg *r);
void gs_bench_iterations_fixed(gs_bench_reg *r, int64_t n);
void gs_bench_min_time(gs_bench_reg *r, double seconds);

void gs_bench_register(const char *name, gs_bench_fn fn, gs_bench_setup_fn setup);

/* Milliseconds of wall-clock time (the benchmarks that run threads or wait),
 * and at least min_s seconds of runs when min_s > 0. */
static inline void gs_bench_ms_wall(gs_bench_reg *r, double min_s)
{
    gs_bench_unit(r, GS_BENCH_MS);
    gs_bench_use_real_time(r);
    if (min_s > 0)
        gs_bench_min_time(r, min_s);
}

#define GS_BENCHMARK(fn, name, setup)                                     \
    __attribute__((constructor)) static void gs_bench_reg_##fn(void)     \
    {                                                                    \
        gs_bench_register((name), (fn), (setup));                        \
    }

/* Keeps the compiler from discarding a computed value. */
static inline void gs_bench_do_not_optimize(const void *p)
{
    __asm__ volatile("" : : "g"(p) : "memory");
}

/* A benchmark of one operation in a dependent chain: x and y of type T
 * drawn, in that order, by rand_fn(T *, gs_rng *) from a generator seeded
 * with seed (not timed), then op (an expression on x and y, writing x) for
 * as many iterations as Google Benchmark asks; items = iterations.  reg is
 * the registration's setup function (or NULL). */
#define GS_BENCH_CHAIN(fn_name, label, reg, seed, T, rand_fn, op)           \
    static void fn_name(gs_bench_state *st)                                \
    {                                                                      \
        gs_rng rng;                                                        \
        gs_rng_seed(&rng, seed);                                           \
        T x, y;                                                            \
        rand_fn(&x, &rng);                                                 \
        rand_fn(&y, &rng);                                                 \
        while (gs_bench_keep_running(st))                                  \
            op;                                                            \
        gs_bench_do_not_optimize(&x);                                      \
        gs_bench_set_items_processed(st, gs_bench_iterations(st));         \
    }                                                                      \
    GS_BENCHMARK(fn_name, label, reg)

#ifdef __cplusplus
}
#endif

#endif
