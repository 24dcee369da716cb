/*
 * The operating system's clocks (clock.h): CLOCK_MONOTONIC, nanosleep and
 * CLOCK_THREAD_CPUTIME_ID.  The calls every caller makes (gs_now_ns,
 * gs_sleep_ns, gs_thread_cpu_ns) live in vclock.c, beside the virtual
 * clock's state they consult first; they end here when no virtual clock
 * concerns the caller.  Also the clock anchor (gs_clock_anchor_read).
 * Nothing here calls back.
 */
#define _GNU_SOURCE
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

int64_t gs_real_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t gs_real_thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void gs_real_sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int64_t read_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void gs_clock_anchor_read(gs_clock_anchor *a)
{
    memset(a, 0, sizeof *a);
    a->uncertainty_ns = INT64_MAX;
    /* The tightest of five brackets: a preemption between the reads
     * widens one, rarely all. */
    for (int i = 0; i < 5; i++) {
        int64_t m0 = read_ns(CLOCK_MONOTONIC), r = read_ns(CLOCK_REALTIME),
                m1 = read_ns(CLOCK_MONOTONIC);
        int64_t u = (m1 - m0 + 1) / 2;
        if (u < a->uncertainty_ns) {
            a->uncertainty_ns = u;
            a->monotonic_ns = m0 + (m1 - m0) / 2;
            a->realtime_ns = r;
        }
    }
    struct timex tx;
    memset(&tx, 0, sizeof tx);
    int state = adjtimex(&tx);
    a->synced = state < 0 ? -1 : state != TIME_ERROR;
    a->maxerror_us = state < 0 ? -1 : (int64_t)tx.maxerror;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(a->boot_id, sizeof a->boot_id, f))
            a->boot_id[0] = '\0';
        a->boot_id[strcspn(a->boot_id, "\n")] = '\0';
        fclose(f);
    }
}
