/*
 * The clocks of the standalone measurement programs (tl_scale.c,
 * imp_scale.c, json_parsers.c): wall seconds, the process's CPU seconds,
 * and its user and system CPU seconds apart.
 */
#ifndef GS_BENCH_TIME_H
#define GS_BENCH_TIME_H

#include <sys/resource.h>
#include <time.h>

/* Wall seconds (CLOCK_MONOTONIC). */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of the process so far, all threads. */
static inline double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* User and system CPU seconds so far. */
static inline void usage_s(double *user, double *sys)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6;
    *sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

#endif
