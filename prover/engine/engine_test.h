/*
 * Helpers shared by the engine's tests (static, header only): a small
 * engine on the real CPU backend, bounded waits, timeline queries and an
 * independent check of a job's proofs (the verifying key rebuilt from the
 * circuit and the setup seed, the proof bytes decompressed).
 */
#ifndef GS_ENGINE_TEST_H
#define GS_ENGINE_TEST_H

#include <stdio.h>
#include <string.h>

#include "../../common/clock.h"
#include "../../test/test.h"
#include "engine_int.h"

#define ET_LOG 9                 /* 2^9 constraints (the smallest circuit): proofs in ms */
#define ET_DRAIN_NS (120LL * 1000000000LL)

typedef struct et_run {
    gs_backend *be;
    gs_timeline *tl;
    gs_engine *e;
} et_run;

static inline void et_config(gs_engine_config *cfg)
{
    gs_engine_config_defaults(cfg);
    cfg->synth_threads = 2;
    cfg->gpu_workers_per_device = 1;
    cfg->queue_depth = 4;
    cfg->prove_threads = 1;
}

/* Creates backend, timeline (unless no_tl) and engine; 1 on success. */
static inline int et_start(et_run *r, const gs_engine_config *cfg, int no_tl)
{
    gs_err err;
    gs_err_clear(&err);
    memset(r, 0, sizeof *r);
    if (gs_backend_cpu_create(&r->be, 1, &err) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "cpu backend: %s", err.msg);
        return 0;
    }
    if (!no_tl && gs_timeline_create(&r->tl) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "timeline");
        return 0;
    }
    if (gs_engine_create(&r->e, cfg, &r->be, 1, r->tl, &err) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "engine: %s", err.msg);
        return 0;
    }
    return 1;
}

static inline void et_stop(et_run *r)
{
    gs_engine_destroy(r->e);
    r->e = NULL;
}

static inline void et_free(et_run *r)
{
    if (r->e)
        gs_engine_destroy(r->e);
    if (r->tl)
        gs_timeline_destroy(r->tl);
    if (r->be)
        r->be->ops->destroy(r->be);
    memset(r, 0, sizeof *r);
}

static inline gs_job_spec et_job(uint64_t id, gs_job_kind kind, uint32_t parts)
{
    gs_job_spec j;
    memset(&j, 0, sizeof j);
    j.id = id;
    j.kind = kind;
    j.partitions = parts;
    j.priority = gs_job_kind_priority(kind);
    j.log_constraints = ET_LOG;
    j.intended_ns = gs_now_ns();
    return j;
}

static inline int et_submit(gs_engine *e, gs_job_kind kind, uint64_t id, uint32_t parts)
{
    gs_err err;
    gs_err_clear(&err);
    gs_job_spec j = et_job(id, kind, parts);
    if (gs_engine_submit(e, &j, &err) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "submit %llu: %s", (unsigned long long)id, err.msg);
        return 0;
    }
    return 1;
}

/* Submits one job (id, kind, parts), drains the engine and checks that
 * the job is its only result, completed and verified.  The result (valid
 * until the engine stops), or NULL when it is not. */
static inline const gs_job_result *et_one_verified(et_run *r, gs_job_kind kind, uint64_t id,
                                                   uint32_t parts)
{
    if (!et_submit(r->e, kind, id, parts))
        return NULL;
    GS_CHECK_OK(gs_engine_drain(r->e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r->e, &n);
    int ok = n == 1 && res[0].status == GS_OK && res[0].verified == 1;
    GS_CHECK_MSG(ok, "job %llu: %zu results, status %s, verified %d", (unsigned long long)id, n,
                 n ? gs_status_name(res[0].status) : "-", n ? res[0].verified : 0);
    return ok ? &res[0] : NULL;
}

static inline const gs_job_result *et_find(const gs_job_result *r, size_t n, uint64_t id,
                                           int *count)
{
    const gs_job_result *found = NULL;
    *count = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].id == id) {
            found = &r[i];
            ++*count;
        }
    return found;
}

/* Verifies every partition proof of a completed result with a verifying
 * key rebuilt independently of the engine.  1 when all verify. */
static inline int et_verify_independent(const gs_job_result *r)
{
    gs_err err;
    gs_err_clear(&err);
    gs_circuit *c = NULL;
    gs_pk pk;
    gs_vk vk;
    int ok = 0;
    memset(&pk, 0, sizeof pk);
    memset(&vk, 0, sizeof vk);
    if (!r->proof || r->proof_len != (size_t)r->partitions * GS_PROOF_BYTES)
        return 0;
    if (gs_circuit_create(&c, "merkle_poseidon", r->log_constraints, &err) != GS_OK)
        goto done;
    if (gs_groth16_setup_seeded(&pk, &vk, gs_circuit_r1cs(c),
                                gs_keys_setup_seed(r->kind, r->log_constraints), NULL,
                                &err) != GS_OK)
        goto done;
    if (vk.n_public != r->n_public)
        goto done;
    for (uint32_t i = 0; i < r->partitions; i++) {
        const uint8_t *b = r->proof + (size_t)i * GS_PROOF_BYTES;
        gs_proof pf;
        if (gs_g1_decompress(&pf.a, b, &err) != GS_OK ||
            gs_g2_decompress(&pf.b, b + 48, &err) != GS_OK ||
            gs_g1_decompress(&pf.c, b + 144, &err) != GS_OK)
            goto done;
        if (gs_groth16_verify(&vk, r->publics + (size_t)i * r->n_public, r->n_public, &pf,
                              &err) != GS_OK)
            goto done;
    }
    ok = 1;
done:
    if (!ok && err.msg[0])
        fprintf(stderr, "    independent verify of job %llu: %s\n",
                (unsigned long long)r->id, err.msg);
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_circuit_destroy(c);
    return ok;
}

/* The direct-staging pool scenario shared by the CPU and CUDA tests: on an
 * engine with staging = direct, pin_pool = 3, 2 synthesis threads, a job
 * of 10 partitions, then one of 2 at ET_LOG + 1 (buffers of another size);
 * both complete and verify, the pool still holds 3 buffers. */
static inline void et_direct_pool_jobs(gs_engine *e)
{
    gs_err err;
    gs_err_clear(&err);
    et_submit(e, GS_KIND_POREP_C2, 5, 10);
    GS_CHECK_OK(gs_engine_drain(e, ET_DRAIN_NS));
    gs_job_spec big = et_job(6, GS_KIND_WINNING_POST, 2);
    big.log_constraints = ET_LOG + 1;
    GS_CHECK_OK(gs_engine_submit(e, &big, &err));
    GS_CHECK_OK(gs_engine_drain(e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *r = gs_engine_results(e, &n);
    GS_CHECK_EQ_INT(n, 2);
    for (size_t i = 0; i < n; i++) {
        GS_CHECK_MSG(r[i].status == GS_OK, "direct job %llu: %s", (unsigned long long)r[i].id,
                     r[i].error);
        GS_CHECK_EQ_INT(r[i].verified, 1);
        GS_CHECK(et_verify_independent(&r[i]));
    }
    GS_CHECK_EQ_INT(e->n_pinned, 3);
}

/* Its timeline: one fill of 3 buffers, then one or two single
 * replacements for the other size, 12 syntheses; pagelocked as given. */
static inline void et_direct_pool_spans(gs_timeline *tl, int pagelocked)
{
    size_t n;
    const gs_span *s = gs_timeline_spans(tl, &n);
    char want[16];
    snprintf(want, sizeof want, "pagelocked=%d", pagelocked);
    int fills = 0, singles = 0, pins = 0, synths = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(s[i].name, "pin") == 0) {
            pins++;
            GS_CHECK(!(s[i].flags & GS_SPAN_F_FAILED) && strstr(s[i].args, want) != NULL);
            fills += strstr(s[i].args, "buffers=3;asked=3") != NULL;
            singles += strstr(s[i].args, "buffers=1;asked=1") != NULL;
        }
        synths += strcmp(s[i].name, "synth") == 0;
    }
    GS_CHECK_EQ_INT(synths, 12);
    GS_CHECK_MSG(fills == 1 && pins == fills + singles && singles >= 1 && singles <= 2,
                 "%d pin spans (%d fills of 3, %d single replacements)", pins, fills, singles);
}

static inline const gs_lane_info *et_lane(gs_timeline *tl, int32_t id)
{
    return id >= 0 && (size_t)id < gs_timeline_lane_count(tl) ? gs_timeline_lane(tl, id) : NULL;
}

/* Tracker lock waits of GPU worker lanes: total, max, and the time waited
 * while a finalizer held the lock. */
static inline void et_worker_waits(gs_timeline *tl, int64_t *total, int64_t *max,
                                   int64_t *by_finalizer)
{
    size_t n;
    const gs_span *s = gs_timeline_spans(tl, &n);
    *total = *max = *by_finalizer = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind != GS_SPAN_LOCK_WAIT || strcmp(s[i].name, "tracker") != 0)
            continue;
        const gs_lane_info *l = et_lane(tl, s[i].lane);
        if (!l || l->role != GS_ROLE_GPU_WORKER)
            continue;
        int64_t d = s[i].end_ns - s[i].start_ns;
        *total += d;
        if (d > *max)
            *max = d;
        const gs_lane_info *h = et_lane(tl, s[i].holder);
        if (h && h->role == GS_ROLE_FINALIZER)
            *by_finalizer += d;
    }
}

#endif
