/*
 * Benchmarks of `gapscope prove`'s pieces on a snarkjs key (issue 15):
 *  - zkey/load_trusted: read + decode + SHA-256 (gs_zkey_load, no checks);
 *  - zkey/check: the subgroup checks of every point of the loaded key
 *    (GS_ZKEY_CHECK_FORCE, no record), i.e. what a first use adds;
 *  - zkey/prove: one CPU-backend proof from the loaded key and witness
 *    (prove_start + prove_finish, what the CLI times as its stages);
 *  - curve/g1_batch_subgroup, curve/g2_batch_subgroup: the batch test per
 *    point against curve/g1_subgroup_check (the exact one).
 * The key and witness come from GS_BENCH_ZKEY and GS_BENCH_WTNS (e.g. those
 * of bench/circom/make-key.sh 16); without them the zkey/ benchmarks skip.
 * Threads: the pool's default (all cores).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "../common/rng.h"
#include "../prover/curve/curve.h"
#include "../prover/groth16/backend.h"
#include "../prover/io/io.h"
#include "gsbench.h"

static gs_pool *bm_pool(void)
{
    static gs_pool *p;
    if (!p)
        gs_pool_create(&p, 0, NULL);
    return p;
}

static int key_paths(gs_bench_state *st, const char **zkey, const char **wtns)
{
    *zkey = getenv("GS_BENCH_ZKEY");
    *wtns = getenv("GS_BENCH_WTNS");
    if (!*zkey || !*wtns) {
        gs_bench_skip_with_error(st, "set GS_BENCH_ZKEY and GS_BENCH_WTNS (bench/circom/make-key.sh)");
        return 0;
    }
    return 1;
}

static void bm_zkey_load(gs_bench_state *st, gs_zkey_check check)
{
    const char *zk, *wt;
    if (!key_paths(st, &zk, &wt))
        return;
    gs_zkey_opts o = {check, ""};
    gs_zkey_info info;
    gs_err err;
    while (gs_bench_keep_running(st)) {
        gs_pk pk;
        gs_err_clear(&err);
        if (gs_zkey_load(&pk, &info, zk, &o, bm_pool(), &err) != GS_OK) {
            gs_bench_skip_with_error(st, err.msg);
            return;
        }
        gs_pk_free(&pk);
    }
    gs_bench_counter(st, "MB", (double)info.size / 1e6, 0);
    gs_bench_counter(st, "check_s", info.check_s, 0);
    gs_bench_counter(st, "points", (double)info.points, 0);
}

static void bm_zkey_load_trusted(gs_bench_state *st) { bm_zkey_load(st, GS_ZKEY_CHECK_SKIP); }
static void bm_zkey_load_checked(gs_bench_state *st) { bm_zkey_load(st, GS_ZKEY_CHECK_FORCE); }

static void zkey_args(gs_bench_reg *r)
{
    gs_bench_ms_wall(r, 2);
}
GS_BENCHMARK(bm_zkey_load_trusted, "zkey/load_trusted", zkey_args)
GS_BENCHMARK(bm_zkey_load_checked, "zkey/load_checked", zkey_args)

static void bm_zkey_prove(gs_bench_state *st)
{
    const char *zk, *wt;
    if (!key_paths(st, &zk, &wt))
        return;
    gs_err err;
    gs_err_clear(&err);
    gs_pk pk;
    gs_zkey_opts o = {GS_ZKEY_CHECK_SKIP, ""};
    gs_scalar *w = NULL;
    uint32_t n_w;
    gs_assignment as;
    gs_backend *be = NULL;
    memset(&as, 0, sizeof as);
    memset(&pk, 0, sizeof pk);
    if (gs_zkey_load(&pk, NULL, zk, &o, bm_pool(), &err) != GS_OK ||
        gs_wtns_read(&w, &n_w, wt, &err) != GS_OK ||
        gs_assignment_from_witness(&as, &pk, w, n_w, &err) != GS_OK ||
        gs_backend_cpu_create(&be, 0, &err) != GS_OK || be->ops->load_pk(be, &pk, &err) != GS_OK) {
        gs_bench_skip_with_error(st, err.msg);
        goto out;
    }
    gs_scalar r = {{3, 0, 0, 0}}, s = {{5, 0, 0, 0}};
    gs_prove_opts opts = {0};
    while (gs_bench_keep_running(st)) {
        gs_prove_state *ps;
        gs_proof proof;
        if (be->ops->prove_start(be, &pk, &as, &r, &s, &opts, &ps, NULL, &err) != GS_OK ||
            be->ops->prove_finish(be, ps, &proof, NULL, &err) != GS_OK) {
            gs_bench_skip_with_error(st, err.msg);
            break;
        }
    }
    gs_bench_counter(st, "wires", pk.n_vars, 0);
out:
    if (be)
        be->ops->destroy(be);
    gs_assignment_free(&as);
    free(w);
    gs_pk_free(&pk);
}
GS_BENCHMARK(bm_zkey_prove, "zkey/prove", zkey_args)

/* Batch subgroup test per point on 2^16 distinct subgroup points. */
#define BATCH_BENCH(fn_name, label, G)                                                   \
    static void fn_name(gs_bench_state *st)                                              \
    {                                                                                    \
        size_t n = (size_t)1 << 16;                                                      \
        gs_##G *j = malloc(n * sizeof *j), g, acc;                                       \
        gs_##G##_affine *a = malloc(n * sizeof *a);                                      \
        gs_##G##_generator(&g);                                                          \
        acc = g;                                                                         \
        for (size_t i = 0; i < n; i++) {                                                 \
            j[i] = acc;                                                                  \
            gs_##G##_add(&acc, &acc, &g);                                                \
        }                                                                                \
        gs_##G##_batch_to_affine(a, j, n);                                               \
        free(j);                                                                         \
        uint8_t seed[32];                                                                \
        gs_rng rng;                                                                      \
        gs_rng_seed(&rng, 9);                                                            \
        gs_rng_bytes(&rng, seed, sizeof seed);                                           \
        size_t bad = 0;                                                                  \
        while (gs_bench_keep_running(st))                                                \
            bad += gs_##G##_affine_batch_in_subgroup(a, n, seed, bm_pool()) != n;        \
        gs_bench_do_not_optimize(&bad);                                                  \
        gs_bench_set_items_processed(st, gs_bench_iterations(st) * (int64_t)n);          \
        free(a);                                                                         \
    }                                                                                    \
    GS_BENCHMARK(fn_name, label, zkey_args)

BATCH_BENCH(bm_g1_batch_subgroup, "curve/g1_batch_subgroup_2^16", g1)
BATCH_BENCH(bm_g2_batch_subgroup, "curve/g2_batch_subgroup_2^16", g2)
