/*
 * The key cache: one circuit ("merkle_poseidon" at 2^log constraints) and
 * one proving/verifying key pair per (job kind, log size), created the
 * first time a synthesis thread needs it and kept until the engine is
 * destroyed.  The keys come from the groth16 layer's INSECURE seeded setup
 * (the seed is a fixed function of kind and size, so a test can rebuild the
 * same verifying key; the H convention, cfg.h_conv, changes only the H
 * points, never the verifying key); each new proving key is loaded into every backend
 * once (load_pk: the SRS made resident on the device).
 *
 * Threads: any synthesis thread.  keys.mu protects the list and each
 * entry's state; the creation itself (circuit, setup, load_pk) runs outside
 * the lock, and other threads wanting the same key wait on keys.cv until it
 * is ready or failed.  A failed creation stays failed (its error is kept),
 * so every job of that size fails with the same reason.
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../common/clock.h"
#include "engine_int.h"

void gs_keys_init(gs_keys *k, gs_backend **be, int n_dev)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    k->be = be;
    k->n_dev = n_dev;
}

void gs_keys_deinit(gs_keys *k)
{
    gs_eng_key *x = k->head;
    while (x) {
        gs_eng_key *next = x->next;
        gs_pk_free(&x->pk);
        gs_vk_free(&x->vk);
        gs_circuit_destroy(x->circuit);
        free(x);
        x = next;
    }
    k->head = NULL;
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
}

uint64_t gs_keys_setup_seed(gs_job_kind kind, uint32_t log)
{
    return gs_eng_mix(0x6761707363u /* "gapsc" */ + (uint64_t)kind, log);
}

/* Modelled work: no circuit and no setup, only the key's sizes (what the
 * model backend reads), after the modelled setup time. */
static gs_status key_model(gs_keys *k, gs_eng_key *x)
{
    gs_job_spec spec = {.kind = x->kind, .log_constraints = x->log};
    gs_status s = k->work->run(k->work, GS_WORK_SETUP, &spec, -1, &x->err);
    if (s != GS_OK)
        return s;
    x->pk.log_domain = x->log;
    x->pk.domain_size = (uint32_t)1 << x->log;
    return GS_OK;
}

/* Builds x (outside keys.mu).  Returns the status, detail in x->err. */
static gs_status key_build(gs_keys *k, gs_eng_key *x)
{
    if (k->work)
        return key_model(k, x);
    gs_status s = gs_circuit_create(&x->circuit, "merkle_poseidon", x->log, &x->err);
    if (s != GS_OK)
        return s;
    x->n_public = gs_circuit_n_public(x->circuit);
    /* Setup runs once per (kind, size) before any proof of it; spread it over
     * all cores (a 2^20 key takes ~50 s of CPU on one core). */
    gs_pool *pool = NULL;
    if (gs_pool_create(&pool, 0, NULL) != GS_OK)
        pool = NULL; /* serial setup still works */
    s = gs_groth16_setup_seeded_conv(&x->pk, &x->vk, gs_circuit_r1cs(x->circuit),
                                     gs_keys_setup_seed(x->kind, x->log), k->h_conv, pool,
                                     &x->err);
    gs_pool_destroy(pool);
    if (s != GS_OK)
        return s;
    for (int i = 0; i < k->n_dev; i++) {
        s = k->be[i]->ops->load_pk(k->be[i], &x->pk, &x->err);
        if (s != GS_OK)
            return s;
    }
    return GS_OK;
}

gs_status gs_keys_get(gs_keys *k, gs_job_kind kind, uint32_t log,
                      gs_eng_key **out, gs_err *err)
{
    gs_eng_key *x;
    *out = NULL;
    pthread_mutex_lock(&k->mu);
    for (x = k->head; x; x = x->next)
        if (x->kind == kind && x->log == log)
            break;
    if (x) {
        while (x->state == 0)
            gs_vt_cond_wait(&k->cv, &k->mu);
        pthread_mutex_unlock(&k->mu);
        goto done;
    }
    x = calloc(1, sizeof *x);
    if (!x) {
        pthread_mutex_unlock(&k->mu);
        return GS_ERR(err, GS_ERR_NOMEM, "keys", "no memory for a key entry");
    }
    x->kind = kind;
    x->log = log;
    x->next = k->head;
    k->head = x;
    pthread_mutex_unlock(&k->mu);

    gs_status s = key_build(k, x);

    pthread_mutex_lock(&k->mu);
    x->state = s == GS_OK ? 1 : 2;
    gs_vt_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
done:
    if (x->state != 1) {
        /* x->err is immutable once the state is set. */
        if (err && err->status == GS_OK)
            *err = x->err;
        return x->err.status != GS_OK ? x->err.status : GS_ERR_INTERNAL;
    }
    *out = x;
    return GS_OK;
}
