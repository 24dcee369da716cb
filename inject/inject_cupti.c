/*
 * libgsattach.so, device side: the CUDA driver loads this library
 * (CUDA_INJECTION64_PATH) at cuInit and calls InitializeInjection, which
 * turns on CUPTI activity records for kernels (concurrent kind), memcpy,
 * memset, synchronization, runtime and driver API calls and devices, with
 * timestamps on CLOCK_MONOTONIC (cuptiActivityRegisterTimestampCallback;
 * where that is refused, the offset to CUPTI's clock is measured once and
 * written as an O record).  API records carry the Linux tid
 * (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM).
 *
 * libcupti is dlopen'ed here, never linked: the library must also load into
 * programs that never touch CUDA (LD_PRELOAD) and on machines without a
 * driver (CI).  If the program already has a libcupti loaded (PyTorch links
 * one), that copy is used.
 *
 * Threads: CUPTI calls buffer_done on its own worker thread; the flusher
 * thread started here hands completed buffers over every GS_ATTACH_FLUSH_MS
 * (cuptiActivityFlushAll(0): a forced flush would cut records of work in
 * flight, which CUPTI returns with zero timestamps) and forces a flush on a
 * flush request from `gapscope attach` (answered within 20 ms) and at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inject.h"

#ifdef GS_HAVE_CUPTI
#include <cupti.h>

#define CUPTI_FNS(X)                                  \
    X(cuptiActivityRegisterCallbacks)                 \
    X(cuptiActivityEnable)                            \
    X(cuptiActivityFlushAll)                          \
    X(cuptiActivityGetNextRecord)                     \
    X(cuptiActivityGetNumDroppedRecords)              \
    X(cuptiGetCallbackName)                           \
    X(cuptiSetThreadIdType)                           \
    X(cuptiActivityRegisterTimestampCallback)         \
    X(cuptiGetTimestamp)                              \
    X(cuptiGetVersion)                                \
    X(cuptiGetResultString)

static struct {
#define GS_X(f) __typeof__(&f) f;
    CUPTI_FNS(GS_X)
#undef GS_X
} C;

/* Small buffers complete often, so the periodic (unforced) flush writes
 * records out within about a buffer's worth of activity. */
#define BUF_SIZE (256u << 10)

static const char *api_name(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
    const char *n = NULL;
    if (C.cuptiGetCallbackName(dom, cbid, &n) != CUPTI_SUCCESS || !n)
        return "unknown";
    return n;
}

static void CUPTIAPI buffer_req(uint8_t **buf, size_t *size, size_t *max_records)
{
    *buf = aligned_alloc(8, BUF_SIZE);
    *size = *buf ? BUF_SIZE : 0;
    *max_records = 0;
}

static void emit_record(const CUpti_Activity *r)
{
    char name[1024];
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
        gsi_clean(name, sizeof name, k->name ? k->name : "unknown");
        gsi_emit("K %llu %llu %u %u %u %u %s", (unsigned long long)k->start,
                 (unsigned long long)k->end, k->deviceId, k->contextId, k->streamId,
                 k->correlationId, name);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;
        gsi_emit("M %llu %llu %u %u %u %u %u %u %u %u %llu", (unsigned long long)m->start,
                 (unsigned long long)m->end, m->deviceId, m->contextId, m->streamId,
                 m->correlationId, m->runtimeCorrelationId, m->copyKind, m->srcKind, m->dstKind,
                 (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
        gsi_emit("S %llu %llu %u %u %u %u %llu %u", (unsigned long long)m->start,
                 (unsigned long long)m->end, m->deviceId, m->contextId, m->streamId,
                 m->correlationId, (unsigned long long)m->bytes, m->memoryKind);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *)r;
        gsi_emit("Y %llu %llu %u %u %u %u", (unsigned long long)s->start,
                 (unsigned long long)s->end, s->contextId, s->streamId, s->correlationId,
                 (unsigned)s->type);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;
        int rt = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
        gsi_emit("%c %llu %llu %u %u %u %s", rt ? 'R' : 'D', (unsigned long long)a->start,
                 (unsigned long long)a->end, a->threadId, a->correlationId, (unsigned)a->cbid,
                 api_name(rt ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid));
        break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
        const CUpti_ActivityDevice5 *d = (const CUpti_ActivityDevice5 *)r;
        gsi_clean(name, sizeof name, d->name ? d->name : "unknown");
        gsi_emit("V %u %s", d->id, name);
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI buffer_done(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                 size_t valid)
{
    (void)size;
    CUpti_Activity *r = NULL;
    while (C.cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS)
        emit_record(r);
    size_t dropped = 0;
    if (C.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        gsi_emit("X %llu %zu", (unsigned long long)gsi_now(), dropped);
    free(buf);
    gsi_flush();
}

static uint64_t CUPTIAPI mono_ts(void)
{
    return gsi_now();
}

/* Forced: every buffer, also records of work still in flight, which CUPTI
 * then returns with zero timestamps (the converter drops and counts those).
 * Only at exit and on a flush request (the program is about to be
 * signalled); the periodic flush is not forced. */
static void cupti_flush(void)
{
    C.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

static void *flusher(void *arg)
{
    (void)arg;
    uint64_t seen = gsi_flush_request(), last = gsi_now();
    for (;;) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
        uint64_t req = gsi_flush_request(), now = gsi_now();
        if (req != seen || now - last >= (uint64_t)gsi_flush_ms() * 1000000ull) {
            if (req != seen)
                cupti_flush();
            else
                C.cuptiActivityFlushAll(0);   /* completed buffers only */
            gsi_flush();
            if (req != seen)
                gsi_emit("F %llu %llu", (unsigned long long)gsi_now(), (unsigned long long)req);
            gsi_flush();
            seen = req;
            last = now;
        }
    }
    return NULL;
}

static void *open_cupti(void)
{
    static const char *loaded[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
    for (size_t i = 0; i < sizeof loaded / sizeof loaded[0]; i++) {
        void *h = dlopen(loaded[i], RTLD_NOW | RTLD_NOLOAD);
        if (h)
            return h;
    }
    const char *env = getenv("GS_ATTACH_CUPTI");
    if (env && *env)
        return dlopen(env, RTLD_NOW | RTLD_GLOBAL);
    void *h = dlopen(GS_CUPTI_DEFAULT, RTLD_NOW | RTLD_GLOBAL);
    return h ? h : dlopen("libcupti.so", RTLD_NOW | RTLD_GLOBAL);
}

static int setup_cupti(void)
{
    void *h = open_cupti();
    if (!h) {
        gsi_emit("I cupti=none %s", dlerror());
        return 0;
    }
#define GS_X(f)                                        \
    C.f = (__typeof__(&f))dlsym(h, #f);                \
    if (!C.f) {                                        \
        gsi_emit("I cupti=missing-symbol %s", #f);     \
        return 0;                                      \
    }
    CUPTI_FNS(GS_X)
#undef GS_X
    uint32_t ver = 0;
    C.cuptiGetVersion(&ver);
    /* Record layouts (Kernel10, Memcpy6, ...) are those of the headers we
     * were built with; another major CUPTI version is refused. */
    if (ver / 10000 != CUPTI_API_VERSION / 10000) {
        gsi_emit("I cupti=version-mismatch runtime=%u built=%u", ver, (unsigned)CUPTI_API_VERSION);
        return 0;
    }
    C.cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (C.cuptiActivityRegisterTimestampCallback(mono_ts) != CUPTI_SUCCESS) {
        /* Measured offset: CLOCK_MONOTONIC - CUPTI clock, bracketed. */
        uint64_t a = gsi_now(), c = 0, b;
        C.cuptiGetTimestamp(&c);
        b = gsi_now();
        gsi_emit("O %lld", (long long)(a + (b - a) / 2) - (long long)c);
    }
    if (C.cuptiActivityRegisterCallbacks(buffer_req, buffer_done) != CUPTI_SUCCESS) {
        gsi_emit("I cupti=register-failed");
        return 0;
    }
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_DEVICE,          CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMCPY,          CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER,
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        CUptiResult e = C.cuptiActivityEnable(kinds[i]);
        if (e != CUPTI_SUCCESS) {
            const char *s = NULL;
            C.cuptiGetResultString(e, &s);
            gsi_emit("I cupti=enable-failed kind=%d %s", (int)kinds[i], s ? s : "?");
        }
    }
    gsi_emit("I cupti=on version=%u flush_ms=%u", ver, gsi_flush_ms());
    return 1;
}
#endif

/* The CUDA driver's injection entry point (CUDA_INJECTION64_PATH). */
GSI_EXPORT int InitializeInjection(void)
{
    gsi_init();
    if (!gsi_enabled())
        return 1;
#ifdef GS_HAVE_CUPTI
    if (setup_cupti()) {
        gsi_on_cupti_ready(cupti_flush);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_create(&t, &at, flusher, NULL);
        pthread_attr_destroy(&at);
    }
#else
    gsi_emit("I cupti=not-built");
#endif
    gsi_flush();
    return 1;
}
