/*
 * gapscope calibrate's staging class (contract in model_int.h): the host
 * staging of a pinned copy (the witness, 32 bytes a wire) timed beside
 * B = 0, 2, 4, ... busy synthesis threads, on the copy's threads forked
 * and joined per copy as the CUDA backend does (prover/cuda/cu_ctx.cu,
 * par_memcpy: GS_MODEL_COPY_THREADS threads from 4 MiB, else one).
 *
 * What is measured is wall time: a fork-join copy on an oversubscribed
 * host waits for the cores the other threads hold (the scheduler's
 * slices) beyond its fair share, which per-thread CPU time cannot see.
 * Row i of the class: T = B + k runnable threads, cpu_s = the copy's
 * mean wall seconds there (of 15: the waits for a core are a tail the
 * mean keeps), speed = t(0) share(k) / (t(B) share(T)),
 * share(T) = min(1, C / T): its work per second beyond processor
 * sharing, relative to the copy alone (1 in the first row).
 *
 * Threads: background synthesis threads start as the levels grow (each
 * synthesizes until told to stop, checked between partitions) and are
 * joined once at the end; the copies run on the caller's thread and
 * threads it forks and joins per copy.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../prover/circuits/circuits.h"
#include "model_int.h"

#define COPIES 15
#define MAX_BG 256
#define SRC_BYTES ((size_t)256 << 20) /* beyond a server's last-level cache */
#define MAX_SRC 64

typedef struct bg {
    const gs_circuit *c;
    const gs_pk *pk;
    atomic_int *stop;
    int i;
} bg;

struct gs_mi_synth_bg {
    const gs_circuit *c;
    const gs_pk *pk;
    atomic_int stop;
    int n;
    pthread_t th[MAX_BG];
    bg args[MAX_BG];
};

static void *bg_main(void *p)
{
    bg *b = p;
    gs_err err;
    for (uint64_t r = 1; !atomic_load(b->stop); r++) {
        gs_assignment as;
        gs_err_clear(&err);
        if (gs_circuit_synthesize(b->c, b->pk, 7919u * (uint64_t)b->i + r, &as, &err) != GS_OK)
            break;
        gs_assignment_free(&as);
    }
    return NULL;
}

gs_mi_synth_bg *gs_mi_synth_bg_new(const gs_circuit *c, const gs_pk *pk)
{
    gs_mi_synth_bg *b = calloc(1, sizeof *b);
    if (b) {
        b->c = c;
        b->pk = pk;
        atomic_init(&b->stop, 0);
    }
    return b;
}

int gs_mi_synth_bg_grow(gs_mi_synth_bg *b, int want)
{
    if (want > MAX_BG)
        return 0;
    while (b->n < want) {
        b->args[b->n] = (bg){.c = b->c, .pk = b->pk, .stop = &b->stop, .i = b->n};
        if (pthread_create(&b->th[b->n], NULL, bg_main, &b->args[b->n]) != 0)
            return 0;
        b->n++;
    }
    return 1;
}

int gs_mi_synth_bg_count(const gs_mi_synth_bg *b) { return b ? b->n : 0; }

void gs_mi_synth_bg_free(gs_mi_synth_bg *b)
{
    if (!b)
        return;
    atomic_store(&b->stop, 1);
    for (int i = 0; i < b->n; i++)
        pthread_join(b->th[i], NULL);
    free(b);
}

typedef struct part {
    char *dst;
    const char *src;
    size_t len;
} part;

static void *copy_part(void *p)
{
    part *c = p;
    memcpy(c->dst, c->src, c->len);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double gs_mi_staging_copy(char *dst, const char *src, size_t len, int k)
{
    pthread_t th[64];
    part pt[64];
    int ok[64] = {0};
    k = k < 1 ? 1 : k > 64 ? 64 : k;
    size_t per = (len / (size_t)k + 4095) & ~(size_t)4095;
    double t0 = now_s();
    for (int i = 0; i < k; i++) {
        size_t off = per * (size_t)i;
        pt[i] = (part){dst + off, src + off, off >= len ? 0 : (len - off < per ? len - off : per)};
    }
    for (int i = 1; i < k; i++)
        ok[i] = pt[i].len && pthread_create(&th[i], NULL, copy_part, &pt[i]) == 0;
    copy_part(&pt[0]);
    for (int i = 1; i < k; i++) {
        if (ok[i])
            pthread_join(th[i], NULL);
        else if (pt[i].len)
            copy_part(&pt[i]);
    }
    return now_s() - t0;
}

gs_status gs_mi_calibrate_staging(gs_profile *p, const gs_circuit *c, const gs_pk *pk, const int *lad, int nl,
                                  int cpus, int quiet, gs_err *err)
{
    size_t len = (size_t)32 << p->log;
    int k = len >= ((size_t)4 << 20) ? GS_MODEL_COPY_THREADS : 1;
    /* Sources in turn, SRC_BYTES together (at least 2): the engine's
     * witness comes from memory, written by a synthesis thread partitions
     * ago, not from the cache a copy of one buffer over and over may read
     * from.  On the fresh H100 set of round 3 session 6 the engine's first
     * copy (prove_start to h2d_w, the first prove left out) took 1.45 ms
     * (median) with no synthesis beside it, 1.40 with 4-6 threads and
     * 5.5 (p10 3.2, p90 6.6) with 11-12; one cached source gave 0.99,
     * 0.83 (B = 6), 1.82 (12) and 3.19 ms (16).  Whether a copy from
     * memory slows more is what scripts/gpu-issue31.sh's second profile
     * (GS_CALIBRATE_HOT_STAGING=1: one source, as profiles before round 3
     * session 8) measures beside this one. */
    const char *hot = getenv("GS_CALIBRATE_HOT_STAGING"), *spin = getenv("GS_CALIBRATE_STAGING_SPIN_MS");
    double spin_ms = spin ? atof(spin) : 0;
    spin_ms = spin_ms > 0 && spin_ms <= 1000 ? spin_ms : 0;
    int nsrc = (int)((SRC_BYTES + len - 1) / len);
    nsrc = hot && !strcmp(hot, "1") ? 1 : nsrc < 2 ? 2 : nsrc > MAX_SRC ? MAX_SRC : nsrc;
    char *src[MAX_SRC] = {0}, *dst = malloc(len);
    int have = 0;
    while (have < nsrc && (src[have] = malloc(len)))
        memset(src[have++], 1, len);
    gs_mi_synth_bg *b = gs_mi_synth_bg_new(c, pk);
    gs_status st = GS_OK;
    if (!have || !dst || !b) {
        st = GS_ERR(err, GS_ERR_NOMEM, "calibrate", "staging buffers of %zu bytes", len);
        goto out;
    }
    p->staging_srcs = have;
    p->staging_spin_ms = spin_ms;
    memset(dst, 2, len);
    int next = 0;
    gs_profile_class *pc = &p->cls[GS_SPEED_STAGING];
    /* Background levels: 0, 2, 4, ... up to the ladder's top (2C by
     * default), a step of 2 unless that makes more than 24 rows: the copy's
     * wall bends where the threads pass the cores (the H100 profile of
     * traces/h100-r3s6-issue31: 1.82 ms at T = 20, 3.19 at 24), the
     * engine's first copy beside 12 synthesis threads runs at about
     * T = 22, and the ladder (..., 12, 16, 24) left that bend to a
     * straight line between its levels. */
    int top = 0;
    for (int i = 0; i < nl; i++)
        top = lad[i] > top ? lad[i] : top;
    top = top > MAX_BG ? MAX_BG : top;
    int step = 2;
    while (top / step + 1 > 24)
        step += 2;
    for (int want = 0; want <= top && pc->n < 24; want += step) {
        if (!gs_mi_synth_bg_grow(b, want)) {
            st = GS_ERR(err, GS_ERR_INTERNAL, "calibrate", "could start only %d of %d threads",
                        gs_mi_synth_bg_count(b), want);
            goto out;
        }
        struct timespec settle = {0, 20 * 1000000L};
        nanosleep(&settle, NULL);
        double t[COPIES];
        gs_mi_staging_copy(dst, src[next], len, k);
        next = (next + 1) % have;
        for (int r = 0; r < COPIES; r++) {
            if (spin_ms > 0) {
                /* GS_CALIBRATE_STAGING_SPIN_MS (an A/B, not the default):
                 * the copy's caller busy before it, as the engine's GPU
                 * worker spins out the previous proof (cudaDeviceSchedule
                 * Auto) and then stages the next one. */
                double end = now_s() + spin_ms * 1e-3;
                while (now_s() < end)
                    ;
            }
            t[r] = gs_mi_staging_copy(dst, src[next], len, k);
            next = (next + 1) % have;
            struct timespec gap = {0, 2 * 1000000L};
            if (spin_ms <= 0)
                nanosleep(&gap, NULL);
        }
        /* The mean, not the median: beside busy threads most copies run
         * at their share and some wait a scheduler slice for a core (the
         * fresh H100 set's synth12: median 1.7 ms, p90 6.5 ms before the
         * first copy), and a prediction adds up the expected time. */
        double mean = 0;
        for (int r = 0; r < COPIES; r++)
            mean += t[r] / COPIES;
        double T = want + k;
        pc->threads[pc->n] = T;
        pc->cpu_s[pc->n] = mean;
        pc->speed[pc->n] = gs_mi_wall_speed(pc->cpu_s[0], pc->threads[0], mean, T, cpus);
        if (!quiet)
            fprintf(stderr, "calibrate: staging   B=%-3d %.4f s per copy of %zu MiB on %d threads (mean of %d), "
                    "speed %.3f\n", want, mean, len >> 20, k, COPIES, pc->speed[pc->n]);
        pc->n++;
    }
out:
    gs_mi_synth_bg_free(b);
    for (int i = 0; i < have; i++)
        free(src[i]);
    free(dst);
    return st;
}
