/*
 * libgsattach.so / libgsaudit.so: user stacks at interposed calls (Q and A
 * records, capture/attach/attach.h).
 *
 * A stack is glibc's backtrace() (DWARF unwinding through libgcc_s, so it
 * also walks code built without frame pointers).  The unwinder is loaded
 * once at initialisation (gsi_stack_init), so a later backtrace allocates
 * nothing.  Frames inside this library are dropped.  Each distinct stack
 * (by its return addresses) gets an id from a fixed open-addressed table
 * (at most STACKS_MAX per process image); the thread that inserts it writes
 * "Q ID FRAMES" (root first, ';'-separated, each the dladdr symbol or
 * "object+0xOFFSET" where no exported symbol covers the address).  The
 * table's spin lock is held only to find or insert: symbolizing runs
 * outside it (dladdr takes the loader's lock), so a record naming a stack
 * id may precede its Q line in the file; the converter reads the whole
 * file first.
 *
 * Cost: one backtrace (a few microseconds) per call; callers take stacks
 * only for waits above GS_ATTACH_STACK_MIN_US, malloc_trim calls, and at
 * most one wake every 10 ms per thread.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"

#define FRAMES_MAX 32
#define STACKS_MAX 4096
#define TAB_CAP (2 * STACKS_MAX)

static struct {
    uint64_t hash;
    uint32_t id;
} g_tab[TAB_CAP];
static uint32_t g_next_id = 1;
static atomic_flag g_tab_lock = ATOMIC_FLAG_INIT;
static uintptr_t g_self_lo, g_self_hi;   /* this library's mapped range */
static int g_stacks_on = -1;             /* -1: not initialised */
static uint64_t g_min_ns = 1000000;
static __thread int t_in_stack;
static char g_exe[256];   /* /proc/self/exe: dladdr names the program by its argv[0] */

static const char *exe_path(void)
{
    if (!g_exe[0]) {
        ssize_t k = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
        g_exe[k > 0 ? k : 0] = '\0';
    }
    return g_exe;
}

/* GS_ATTACH_STACKS=0, read without initialising the unwinder. */
static int getenv_stacks_off(void)
{
    static int off = -1;
    if (off < 0) {
        const char *e = getenv("GS_ATTACH_STACKS");
        off = e && !strcmp(e, "0");
    }
    return off;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t me = (uintptr_t)arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + p->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + p->p_memsz > hi)
            hi = a + p->p_memsz;
    }
    if (me >= lo && me < hi) {
        g_self_lo = lo;
        g_self_hi = hi;
        return 1;
    }
    return 0;
}

void gsi_stack_init(void)
{
    if (g_stacks_on >= 0)
        return;
    const char *e = getenv("GS_ATTACH_STACKS");
    const char *m = getenv("GS_ATTACH_STACK_MIN_US");
    if (m && atol(m) >= 0)
        g_min_ns = (uint64_t)atol(m) * 1000u;
    dl_iterate_phdr(find_self, (void *)(uintptr_t)gsi_stack_init);
    exe_path();
    /* The first backtrace dlopens libgcc_s: do it here, not in a wait. */
    void *warm[4];
    backtrace(warm, 4);
    g_stacks_on = !(e && !strcmp(e, "0"));
}

uint64_t gsi_stack_min_ns(void)
{
    return g_min_ns;
}

/* Appends one frame's name to out (at most room bytes); returns bytes used.
 * A frame no exported symbol covers is "/path/of/object+0xOFFSET" (from
 * the object's load base): the converter looks it up in the file's own
 * symbol table. */
static size_t frame_name(char *out, size_t room, void *pc)
{
    Dl_info di;
    char name[320];
    /* pc is a return address: look up the call instruction before it. */
    uintptr_t a = (uintptr_t)pc - 1;
    if (dladdr((void *)a, &di) && di.dli_sname && di.dli_saddr)
        gsi_clean(name, 120, di.dli_sname);
    else if (di.dli_fname && di.dli_fbase) {
        char obj[256];
        /* A relative or empty name is the program itself. */
        gsi_clean(obj, sizeof obj, di.dli_fname[0] == '/' ? di.dli_fname : exe_path());
        snprintf(name, sizeof name, "%s+0x%lx", obj, (unsigned long)(a - (uintptr_t)di.dli_fbase));
    } else {
        snprintf(name, sizeof name, "0x%lx", (unsigned long)a);
    }
    for (char *c = name; *c; c++)   /* ';' and ' ' separate frames and fields */
        if (*c == ';' || *c == ' ')
            *c = '_';
    int n = snprintf(out, room, "%s", name);
    return n < 0 ? 0 : (size_t)n < room ? (size_t)n : room ? room - 1 : 0;
}

/* The id of frames pc[first..n) (root last), writing its Q line when new. */
static uint32_t stack_of(void **pc, int first, int n);

uint32_t gsi_stack_id(void)
{
    if (g_stacks_on <= 0 || t_in_stack || !gsi_active() || gsi_busy())
        return 0;
    t_in_stack = 1;
    void *pc[FRAMES_MAX + 8];
    int n = backtrace(pc, FRAMES_MAX + 8), first = 0;
    while (first < n && (uintptr_t)pc[first] >= g_self_lo && (uintptr_t)pc[first] < g_self_hi)
        first++;
    if (n - first > FRAMES_MAX)
        n = first + FRAMES_MAX;
    uint32_t id = first < n ? stack_of(pc, first, n) : 0;
    t_in_stack = 0;
    return id;
}

uint32_t gsi_stack_id_caller(void *caller)
{
    if (!caller || t_in_stack || !gsi_active() || gsi_busy() ||
        (g_stacks_on == 0) || getenv_stacks_off())
        return 0;
    t_in_stack = 1;
    void *pc[1] = {caller};
    uint32_t id = stack_of(pc, 0, 1);
    t_in_stack = 0;
    return id;
}

static uint32_t stack_of(void **pc, int first, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = first; i < n; i++)
        h = (h ^ (uint64_t)(uintptr_t)pc[i]) * 1099511628211ull;
    h |= 1;   /* 0 marks an empty slot */
    uint32_t id = 0;
    int fresh = 0;
    while (atomic_flag_test_and_set_explicit(&g_tab_lock, memory_order_acquire))
        ;
    size_t j = (size_t)(h >> 7) & (TAB_CAP - 1);
    while (g_tab[j].hash && g_tab[j].hash != h)
        j = (j + 1) & (TAB_CAP - 1);
    if (g_tab[j].hash == h) {
        id = g_tab[j].id;
    } else if (g_next_id <= STACKS_MAX) {
        g_tab[j].hash = h;
        g_tab[j].id = id = g_next_id++;
        fresh = 1;
    }
    atomic_flag_clear_explicit(&g_tab_lock, memory_order_release);
    if (fresh) {
        /* Named leaf first into buf so that a stack too long loses root
         * frames, then copied root first into line (small buffers: this
         * runs on the program's thread, whose stack may be small). */
        char buf[1024], line[1024];
        size_t off[FRAMES_MAX + 1], used = 0;
        int k = 0;
        for (int i = first; i < n && k < FRAMES_MAX; i++) {
            size_t l = frame_name(buf + used, sizeof buf - used, pc[i]);
            if (used + l + 1 >= sizeof buf)
                break;
            off[k++] = used;
            used += l + 1;   /* keeps the NUL */
        }
        size_t len = 0;
        for (int i = k - 1; i >= 0; i--)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", i == k - 1 ? "" : ";",
                                    buf + off[i]);
        gsi_emit("Q %u %s", id, line);
    }
    return id;
}

/* A forked child keeps the parent's ids (its file is new, so the converter
 * sees the Q lines only in the parent's file): start over. */
void gsi_stack_fork_child(void)
{
    atomic_flag_clear(&g_tab_lock);
    memset(g_tab, 0, sizeof g_tab);
    g_next_id = 1;
    t_in_stack = 0;
}

void gsi_emit_trim(uint64_t t0, int result, void *caller)
{
    if (!gsi_active())
        return;
    /* The stack is taken before the end is read: to the caller the call
     * lasts until the wrapper returns, and the span must say so.  The
     * audit copy names only the caller: a full backtrace would first load
     * libgcc_s into its namespace, under the loader's lock, stalling every
     * thread that touches the loader meanwhile (the program's own waits). */
    uint32_t st = caller ? gsi_stack_id_caller(caller) : gsi_stack_id();
    uint64_t t1 = gsi_now();
    gsi_emit("T %llu %llu %u %d", (unsigned long long)t0, (unsigned long long)t1, gsi_tid(),
             result);
    if (st)
        gsi_emit("A %llu %u %u", (unsigned long long)t1, gsi_tid(), st);
}
