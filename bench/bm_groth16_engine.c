/*
 * Whole-prover and whole-engine benchmarks:
 *  - groth16/prove_cpu_log2/N: one CPU-backend proof of the native circuit at 2^N
 *    constraints (key and witness made before timing);
 *  - engine/run/capture_{on,off}: the same small engine workload with the timeline
 *    captured and with capture switched off (tl = NULL), so the instrumentation
 *    overhead is the ratio of the two (issue 5: <= 1% of wall time).
 */
#include <stdlib.h>
#include <string.h>

#include "../prover/circuits/circuits.h"
#include "../common/pool.h"
#include "../prover/engine/engine.h"
#include "gsbench.h"

static void bm_prove(gs_bench_state *st)
{
    uint32_t log = (uint32_t)gs_bench_arg(st, 0);
    gs_err err;
    gs_err_clear(&err);
    gs_circuit *c = NULL;
    gs_pool *pool = NULL;
    gs_pk pk;
    gs_vk vk;
    gs_assignment as;
    memset(&pk, 0, sizeof pk);
    memset(&vk, 0, sizeof vk);
    memset(&as, 0, sizeof as);
    if (gs_pool_create(&pool, 0, &err) != GS_OK || gs_circuit_create(&c, NULL, log, &err) != GS_OK ||
        gs_groth16_setup_seeded(&pk, &vk, gs_circuit_r1cs(c), 1, pool, &err) != GS_OK ||
        gs_circuit_synthesize(c, &pk, 1, &as, &err) != GS_OK) {
        gs_bench_skip_with_error(st, err.msg);
        goto out;
    }
    gs_scalar r = {{3, 0, 0, 0}}, s = {{5, 0, 0, 0}};
    gs_proof proof;
    while (gs_bench_keep_running(st))
        if (gs_groth16_prove(&proof, &pk, &as, &r, &s, 0, &err) != GS_OK) {
            gs_bench_skip_with_error(st, err.msg);
            break;
        }
    gs_bench_counter(st, "constraints", (double)gs_circuit_r1cs(c)->n_constraints, 0);
out:
    gs_assignment_free(&as);
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_circuit_destroy(c);
    gs_pool_destroy(pool);
}
static void prove_args(gs_bench_reg *r)
{
    gs_bench_arg_add(r, 12);
    gs_bench_arg_add(r, 14);
    gs_bench_arg_add(r, 16);
    gs_bench_ms_wall(r, 0);
}
GS_BENCHMARK(bm_prove, "groth16/prove_cpu_log2", prove_args)

/* 6 jobs x 2 partitions at 2^9 through 2 synthesis threads and one GPU worker. */
static void engine_run(gs_bench_state *st, int capture)
{
    gs_err err;
    gs_err_clear(&err);
    gs_backend *be = NULL;
    if (gs_backend_cpu_create(&be, 1, &err) != GS_OK) {
        gs_bench_skip_with_error(st, err.msg);
        return;
    }
    gs_engine_config cfg;
    gs_engine_config_defaults(&cfg);
    cfg.synth_threads = 2;
    cfg.prove_threads = 1;
    cfg.trim = GS_TRIM_AFTER_UNLOCK;
    cfg.verify = GS_VERIFY_AFTER_UNLOCK;
    while (gs_bench_keep_running(st)) {
        gs_timeline *tl = NULL;
        gs_engine *e = NULL;
        if (capture && gs_timeline_create(&tl) != GS_OK) {
            gs_bench_skip_with_error(st, "timeline");
            break;
        }
        if (gs_engine_create(&e, &cfg, &be, 1, tl, &err) != GS_OK) {
            gs_bench_skip_with_error(st, err.msg);
            gs_timeline_destroy(tl);
            break;
        }
        for (uint64_t j = 0; j < 6; j++) {
            gs_job_spec job = {j + 1, GS_KIND_POREP_C2, 2, 2, 9, 0};
            gs_engine_submit(e, &job, &err);
        }
        gs_engine_drain(e, 0);
        gs_engine_destroy(e);
        if (tl)
            gs_timeline_destroy(tl);
    }
    be->ops->destroy(be);
}
static void bm_engine_on(gs_bench_state *st) { engine_run(st, 1); }
static void bm_engine_off(gs_bench_state *st) { engine_run(st, 0); }
static void engine_args(gs_bench_reg *r)
{
    gs_bench_ms_wall(r, 2.0);
}
GS_BENCHMARK(bm_engine_on, "engine/run_6x2_log9/capture_on", engine_args)
GS_BENCHMARK(bm_engine_off, "engine/run_6x2_log9/capture_off", engine_args)
