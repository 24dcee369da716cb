/*
 * Helpers of the attach tests (test_attach.c, test_wake.c,
 * test_wake_raw.c): a thread's lane by its tid, a number a test program
 * printed (integer or decimal).
 */
#ifndef GS_TEST_ATTACH_UTIL_H
#define GS_TEST_ATTACH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../timeline/timeline.h"

/* The id of the lane "thread/TID" (or "thread/TID comm"); -2 when there is
 * none (never a lane id, nor a holder's -1). */
static inline int32_t tat_lane_of_tid(gs_timeline *tl, long tid)
{
    char pre[32];
    snprintf(pre, sizeof pre, "thread/%ld", tid);
    size_t k = strlen(pre);
    for (size_t i = 0; i < gs_timeline_lane_count(tl); i++) {
        const gs_lane_info *l = gs_timeline_lane(tl, (int32_t)i);
        if (!strncmp(l->name, pre, k) && (!l->name[k] || l->name[k] == ' '))
            return l->id;
    }
    return -2;
}

/* The number after key in a program's output (strtol, base 0); -1 when key
 * is not there. */
static inline long tat_field(const char *out, const char *key)
{
    const char *p = strstr(out, key);
    return p ? strtol(p + strlen(key), NULL, 0) : -1;
}

/* The same for a decimal number (strtod): "\"wait_s\":" in a program's
 * GROUND_TRUTH JSON line, say; -1 when key is not there. */
static inline double tat_num(const char *out, const char *key)
{
    const char *p = strstr(out, key);
    return p ? strtod(p + strlen(key), NULL) : -1;
}

#endif
