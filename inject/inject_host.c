/*
 * libgsattach.so, host side: interposed pthread_mutex_lock/unlock and
 * malloc_trim (LD_PRELOAD), and the NVTX v3 injection entry point
 * (NVTX_INJECTION64_PATH names this library).  Other waits and wakes
 * (futex, condvars, rwlocks, semaphores) are in inject_wait.c; malloc_trim
 * bound through dlsym is caught by the audit library (inject_audit.c).
 *
 * Mutexes.  The uncontended path costs one pthread_mutex_trylock on top of
 * the call: only a trylock that fails with EBUSY is timed.  The waiter
 * reads the holder's tid from glibc's __data.__owner (set by every mutex
 * type on acquisition) before blocking and writes one W record when it gets
 * the lock; it then remembers the mutex in a thread-local slot so that its
 * own unlock of that mutex writes the L (hold) record.  Holds of mutexes
 * nobody waited for are not recorded (that would cost a clock read per
 * lock).  Locks taken inside glibc (pthread_cond_wait's re-acquire, stdio)
 * do not go through these symbols and are not seen; Rust std and
 * tokio locks use futexes through syscall() (inject_wait.c).
 *
 * NVTX: push/pop (A, W, Ex) ranges are kept on a thread-local stack and
 * written as N records at pop; start/end ranges (A, Ex) through a small
 * table keyed by range id.  Registered-string messages are recorded as
 * "registered".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "inject.h"

typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*trim_fn)(size_t);

static mutex_fn real_lock, real_trylock, real_unlock;
static trim_fn real_trim;

static void resolve(void)
{
    real_trylock = (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_trylock");
    real_unlock = (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_unlock");
    real_trim = (trim_fn)dlsym(RTLD_NEXT, "malloc_trim");
    /* Published last: the fast path tests real_lock alone. */
    __atomic_store_n(&real_lock, (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_lock"),
                     __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void host_load(void)
{
    resolve();
}

static __thread pthread_mutex_t *t_held;   /* a mutex this thread waited for and holds */
static __thread uint64_t t_held_ns;

GSI_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    if (__builtin_expect(!__atomic_load_n(&real_lock, __ATOMIC_ACQUIRE), 0))
        resolve();
    int r = real_trylock(m);
    if (r != EBUSY || !gsi_enabled())
        return r == EBUSY ? real_lock(m) : r;
    uint64_t t0 = gsi_now();
#ifdef __GLIBC__
    int owner = ((volatile pthread_mutex_t *)m)->__data.__owner;
#else
    int owner = 0;
#endif
    r = real_lock(m);
    uint64_t t1 = gsi_now();
    if (r == 0) {
        gsi_emit("W %llu %llu %u %p %d", (unsigned long long)t0, (unsigned long long)t1,
                 gsi_tid(), (void *)m, owner > 0 ? owner : 0);
        t_held = m;
        t_held_ns = t1;
    }
    return r;
}

GSI_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (__builtin_expect(!__atomic_load_n(&real_lock, __ATOMIC_ACQUIRE), 0))
        resolve();
    if (__builtin_expect(t_held != NULL, 0) && t_held == m) {
        t_held = NULL;
        gsi_emit("L %llu %llu %u %p", (unsigned long long)t_held_ns,
                 (unsigned long long)gsi_now(), gsi_tid(), (void *)m);
    }
    return real_unlock(m);
}

GSI_EXPORT int malloc_trim(size_t pad)
{
    if (__builtin_expect(!real_trim, 0))
        resolve();
    uint64_t t0 = gsi_now();
    int r = real_trim(pad);
    if (gsi_enabled())
        gsi_emit_trim(t0, r, NULL);
    return r;
}

/* ---- NVTX v3 injection ---------------------------------------------------- */
/* Built with the toolkit's headers (the same condition as CUPTI). */
#ifdef GS_HAVE_CUPTI

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#define NVTX_DEPTH 64
#define NVTX_NAME 160

typedef struct nv_frame {
    uint64_t t0;
    char name[NVTX_NAME];
} nv_frame;

static __thread nv_frame t_stack[NVTX_DEPTH];
static __thread int t_depth;   /* may exceed NVTX_DEPTH: deeper frames are not named */

static void name_of(char *out, size_t n, const nvtxEventAttributes_t *a)
{
    if (!a) {
        snprintf(out, n, "unnamed");
        return;
    }
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        gsi_clean(out, n, a->message.ascii ? a->message.ascii : "");
        break;
    case NVTX_MESSAGE_TYPE_UNICODE: {
        size_t i = 0;
        for (const wchar_t *w = a->message.unicode; w && *w && i + 1 < n; w++)
            out[i++] = *w >= 0x20 && *w < 0x7f ? (char)*w : '?';
        out[i] = '\0';
        break;
    }
    default:
        snprintf(out, n, "registered");
    }
    if (!out[0])
        snprintf(out, n, "unnamed");
}

static int push_named(const char *name)
{
    int d = t_depth++;
    if (d < NVTX_DEPTH) {
        t_stack[d].t0 = gsi_now();
        gsi_clean(t_stack[d].name, NVTX_NAME, name);
    }
    return d;
}

static int NVTX_API nv_push_a(const char *msg)
{
    return push_named(msg ? msg : "unnamed");
}

static int NVTX_API nv_push_ex(const nvtxEventAttributes_t *a)
{
    char name[NVTX_NAME];
    name_of(name, sizeof name, a);
    return push_named(name);
}

static int NVTX_API nv_push_w(const wchar_t *msg)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    a.message.unicode = msg;
    return nv_push_ex(&a);
}

static int NVTX_API nv_pop(void)
{
    if (t_depth <= 0)
        return -1;
    int d = --t_depth;
    if (d < NVTX_DEPTH)
        gsi_emit("N %llu %llu %u %s", (unsigned long long)t_stack[d].t0,
                 (unsigned long long)gsi_now(), gsi_tid(), t_stack[d].name);
    return d;
}

/* Start/end ranges may end on another thread: a small open-addressed table. */
#define NV_OPEN 256
static struct {
    uint64_t id, t0;
    uint32_t tid;
    char name[NVTX_NAME];
} nv_open[NV_OPEN];
static atomic_flag nv_lock = ATOMIC_FLAG_INIT;
static uint64_t nv_next_id = 1;

static nvtxRangeId_t start_named(const char *name)
{
    uint64_t t0 = gsi_now();
    while (atomic_flag_test_and_set(&nv_lock))
        ;
    uint64_t id = nv_next_id++;
    for (int k = 0; k < NV_OPEN; k++) {
        int i = (int)((id + (uint64_t)k) % NV_OPEN);
        if (!nv_open[i].id) {
            nv_open[i].id = id;
            nv_open[i].t0 = t0;
            nv_open[i].tid = gsi_tid();
            gsi_clean(nv_open[i].name, NVTX_NAME, name);
            break;
        }
    }
    atomic_flag_clear(&nv_lock);
    return id;
}

static nvtxRangeId_t NVTX_API nv_start_a(const char *msg)
{
    return start_named(msg ? msg : "unnamed");
}

static nvtxRangeId_t NVTX_API nv_start_ex(const nvtxEventAttributes_t *a)
{
    char name[NVTX_NAME];
    name_of(name, sizeof name, a);
    return start_named(name);
}

static void NVTX_API nv_end(nvtxRangeId_t id)
{
    char name[NVTX_NAME] = "";
    uint64_t t0 = 0;
    uint32_t tid = 0;
    while (atomic_flag_test_and_set(&nv_lock))
        ;
    for (int k = 0; k < NV_OPEN; k++) {
        int i = (int)((id + (uint64_t)k) % NV_OPEN);
        if (nv_open[i].id == id) {
            memcpy(name, nv_open[i].name, sizeof name);
            t0 = nv_open[i].t0;
            tid = nv_open[i].tid;
            nv_open[i].id = 0;
            break;
        }
    }
    atomic_flag_clear(&nv_lock);
    if (t0)
        gsi_emit("N %llu %llu %u %s", (unsigned long long)t0, (unsigned long long)gsi_now(),
                 tid, name);
}

/* Called by the NVTX header code in the program on its first NVTX call. */
GSI_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    gsi_init();
    if (!get || !gsi_enabled())
        return 0;
    const NvtxExportTableCallbacks *cb =
        (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    if (!cb || !cb->GetModuleFunctionTable)
        return 0;
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || !table)
        return 0;
    struct {
        unsigned id;
        NvtxFunctionPointer fn;
    } set[] = {
        {NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)nv_push_a},
        {NVTX_CBID_CORE_RangePushW, (NvtxFunctionPointer)nv_push_w},
        {NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)nv_push_ex},
        {NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)nv_pop},
        {NVTX_CBID_CORE_RangeStartA, (NvtxFunctionPointer)nv_start_a},
        {NVTX_CBID_CORE_RangeStartEx, (NvtxFunctionPointer)nv_start_ex},
        {NVTX_CBID_CORE_RangeEnd, (NvtxFunctionPointer)nv_end},
    };
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        if (set[i].id < size && table[set[i].id])
            *table[set[i].id] = set[i].fn;
    return 1;
}
#endif
