/*
 * The operating system's clocks (clock.h): CLOCK_MONOTONIC, nanosleep and
 * CLOCK_THREAD_CPUTIME_ID.  The calls every caller makes (gs_now_ns,
 * gs_sleep_ns, gs_thread_cpu_ns) live in vclock.c, beside the virtual
 * clock's state they consult first; they end here when no virtual clock
 * concerns the caller.  Nothing here calls back.
 */
#define _GNU_SOURCE
#include "clock.h"

#include <errno.h>
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
