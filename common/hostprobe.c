/* The host-speed probe (hostprobe.h). */
#define _GNU_SOURCE
#include "hostprobe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "clock.h"
#include "stats.h"

#define PROBE_WORDS ((size_t)1 << 20) /* 8 MiB per thread */
#define PROBE_MAX_THREADS 256

/* go: 0 wait, 1 run, 2 give up (a thread could not be started). */
typedef struct {
    uint64_t *buf;
    atomic_int *go;
    int64_t end_ns;
    uint64_t sink;
} probe_thread;

static void *probe_run(void *arg)
{
    probe_thread *p = arg;
    uint64_t *b = p->buf;
    const uint64_t mask = PROBE_WORDS - 1;
    uint64_t x0 = 0x9e3779b97f4a7c15u, x1 = 0xbf58476d1ce4e5b9u, x2 = 0x94d049bb133111ebu,
             x3 = 0x2545f4914f6cdd1du;
    int g;
    while ((g = atomic_load_explicit(p->go, memory_order_acquire)) == 0) {
    }
    if (g != 1) return NULL;
    for (uint32_t i = 0; i < GS_HOST_PROBE_STEPS; i++) {
#define STEP(x)                              \
    do {                                     \
        x ^= x >> 29;                        \
        x *= 0xbf58476d1ce4e5b9u;            \
        uint64_t *w = &b[(x >> 23) & mask];  \
        x += *w;                             \
        *w = x;                              \
    } while (0)
        STEP(x0);
        STEP(x1);
        STEP(x2);
        STEP(x3);
#undef STEP
    }
    p->end_ns = gs_now_ns();
    p->sink = x0 ^ x1 ^ x2 ^ x3;
    return NULL;
}

/* One round: all threads' steps over the wall from the common start to
 * the last end; -1 when a thread could not start. */
static double probe_round(probe_thread *pt, int threads)
{
    pthread_t tid[PROBE_MAX_THREADS];
    atomic_int go;
    atomic_init(&go, 0);
    int started = 0;
    for (; started < threads; started++) {
        pt[started].go = &go;
        pt[started].end_ns = 0;
        if (pthread_create(&tid[started], NULL, probe_run, &pt[started]) != 0) break;
    }
    int64_t t0 = gs_now_ns();
    atomic_store_explicit(&go, started == threads ? 1 : 2, memory_order_release);
    int64_t t1 = t0;
    for (int i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
        if (pt[i].end_ns > t1) t1 = pt[i].end_ns;
    }
    double s = (double)(t1 - t0) * 1e-9;
    if (started < threads || s <= 0) return -1;
    return (double)threads * 4.0 * GS_HOST_PROBE_STEPS / s * 1e-6;
}

double gs_host_probe(int threads)
{
    if (threads < 1) threads = 1;
    if (threads > PROBE_MAX_THREADS) threads = PROBE_MAX_THREADS;
    probe_thread *pt = calloc((size_t)threads, sizeof *pt);
    double r[5], out = -1;
    int ok = pt != NULL;
    /* The buffers are mapped and unmapped here, not taken from malloc: a
     * probe leaves the heap of the process (the engine's arenas, a test
     * runner's) as it found it. */
    for (int i = 0; ok && i < threads; i++) {
        void *m = mmap(NULL, PROBE_WORDS * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (m == MAP_FAILED) {
            ok = 0;
            break;
        }
        pt[i].buf = m;
        for (size_t j = 0; j < PROBE_WORDS; j++) pt[i].buf[j] = j * 0x9e3779b97f4a7c15u + (uint64_t)i;
    }
    for (int k = 0; ok && k < 5; k++)
        if ((r[k] = probe_round(pt, threads)) < 0) ok = 0;
    if (ok) out = gs_median_sort(r, 5);
    for (int i = 0; pt && i < threads; i++)
        if (pt[i].buf) munmap(pt[i].buf, PROBE_WORDS * sizeof(uint64_t));
    free(pt);
    return out;
}
