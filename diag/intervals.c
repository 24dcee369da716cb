/* Interval unions, percentiles, gap statistics and the cause table
 * (analysis.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "../common/stats.h"

static const char *const cause_names[] = {GS_CAUSE_TABLE(GS_XT_COL2)};
static const char *const cause_desc[] = {GS_CAUSE_TABLE(GS_XT_COL3)};
_Static_assert(sizeof cause_names / sizeof cause_names[0] == GS_CAUSE_COUNT, "cause table");

/* Families (analysis.h, gs_cause_family): one entry per cause, in table
 * order; the engine's causes are their own group. */
static const char *const cause_family[GS_CAUSE_COUNT] = {
    [GS_CAUSE_QUEUE_EMPTY] = "queue_empty",
    [GS_CAUSE_TRACKER_TRIM] = "tracker_lock",
    [GS_CAUSE_TRACKER_VERIFY] = "tracker_lock",
    [GS_CAUSE_TRACKER_INJECTED] = "tracker_lock",
    [GS_CAUSE_TRACKER_OTHER] = "tracker_lock",
    [GS_CAUSE_DEVICE_MUTEX] = "device_mutex",
    [GS_CAUSE_HOST_PREP] = "host_prep",
    [GS_CAUSE_H2D_PAGEABLE] = "h2d_pageable",
    [GS_CAUSE_H2D_PINNED] = "h2d_pinned",
    [GS_CAUSE_HANDOFF] = "handoff",
    [GS_CAUSE_BACKEND_HOST] = "backend_host",
    [GS_CAUSE_FINISH_IN_WORKER] = "finish_in_worker",
    [GS_CAUSE_OTHER] = "other",
    [GS_CAUSE_LOCK_WAIT_TRIM] = "tracker_lock",
    [GS_CAUSE_LOCK_WAIT_SYNC] = "tracker_lock",
    [GS_CAUSE_LOCK_WAIT_COMPUTE] = "tracker_lock",
    [GS_CAUSE_LOCK_WAIT_BLOCKED] = "tracker_lock",
    [GS_CAUSE_LOCK_WAIT_OTHER] = "tracker_lock",
    [GS_CAUSE_MALLOC_TRIM] = "malloc_trim",
    [GS_CAUSE_CUDA_SYNC] = "backend_host",
    [GS_CAUSE_BLOCKED_FUTEX] = "queue_empty",
    [GS_CAUSE_IO] = "other",
    [GS_CAUSE_SLEEP] = "queue_empty",
    [GS_CAUSE_CPU_STARVED] = "other",
    [GS_CAUSE_HOST_COMPUTE] = "host_prep",
    [GS_CAUSE_LOCK_WAIT_MEMREL] = "tracker_lock",
    [GS_CAUSE_MEMORY_RELEASE] = "malloc_trim",
    [GS_CAUSE_GIL_WAIT] = "gil_wait",
    [GS_CAUSE_WAKEUP_COMPUTE] = "queue_empty",
    [GS_CAUSE_WAKEUP_SYNC] = "backend_host",
    [GS_CAUSE_WAKEUP_BLOCKED] = "queue_empty",
};
_Static_assert(GS_CAUSE_WAKEUP_BLOCKED == GS_CAUSE_COUNT - 1, "every cause needs a family above");

const char *gs_cause_family(gs_cause c)
{
    return (unsigned)c < GS_CAUSE_COUNT && cause_family[c] ? cause_family[c] : "other";
}

GS_XT_DEFINE_NAMES_OR(gs_cause, gs_cause, cause_names, GS_CAUSE_COUNT, "?")

const char *gs_cause_description(gs_cause c)
{
    return (unsigned)c < GS_CAUSE_COUNT ? cause_desc[c] : "?";
}

int gs_cause_matches(gs_cause c, const char *name)
{
    const char *cn = gs_cause_name(c);
    size_t n = strlen(name);
    return !strcmp(cn, name) || (!strncmp(cn, name, n) && cn[n] == '/') ||
           !strcmp(gs_cause_family(c), name);
}

static int cmp_iv(const void *pa, const void *pb)
{
    const gs_interval *a = pa, *b = pb;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

size_t gs_interval_union(gs_interval *iv, size_t n)
{
    qsort(iv, n, sizeof *iv, cmp_iv);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (iv[i].end_ns <= iv[i].start_ns)
            continue;
        if (k && iv[i].start_ns <= iv[k - 1].end_ns) {
            if (iv[i].end_ns > iv[k - 1].end_ns)
                iv[k - 1].end_ns = iv[i].end_ns;
        } else {
            iv[k++] = iv[i];
        }
    }
    return k;
}

size_t *gs_interval_union_groups(gs_interval *iv, const int32_t *group, size_t n, int32_t n_groups)
{
    size_t *first = calloc(2 * (size_t)n_groups + 1, sizeof *first);
    gs_interval *tmp = malloc((n + 1) * sizeof *tmp);
    if (!first || !tmp) {
        free(first);
        free(tmp);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        first[2 * group[i] + 1]++;
    size_t off = 0;
    for (int32_t g = 0; g < n_groups; g++) {
        first[2 * g] = off;
        off += first[2 * g + 1];
        first[2 * g + 1] = 0;
    }
    for (size_t i = 0; i < n; i++)
        tmp[first[2 * group[i]] + first[2 * group[i] + 1]++] = iv[i];
    memcpy(iv, tmp, n * sizeof *iv);
    free(tmp);
    for (int32_t g = 0; g < n_groups; g++)
        first[2 * g + 1] = gs_interval_union(iv + first[2 * g], first[2 * g + 1]);
    return first;
}

int64_t gs_interval_total(const gs_interval *iv, size_t n)
{
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += iv[i].end_ns - iv[i].start_ns;
    return t;
}

int64_t gs_interval_overlap(const gs_interval *iv, size_t n, int64_t a, int64_t b)
{
    /* First interval ending after a (binary search), then walk. */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (iv[mid].end_ns <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t t = 0;
    for (size_t i = lo; i < n && iv[i].start_ns < b; i++) {
        int64_t s = iv[i].start_ns > a ? iv[i].start_ns : a;
        int64_t e = iv[i].end_ns < b ? iv[i].end_ns : b;
        if (e > s)
            t += e - s;
    }
    return t;
}

double gs_percentile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0;
    /* Nearest rank: rank = ceil(p/100 * n), 1-based, clamped to [1, n]. */
    double r = ceil(p / 100.0 * (double)n - 1e-9);
    size_t rank = r < 1 ? 1 : r > (double)n ? n : (size_t)r;
    return sorted[rank - 1];
}

void gs_gap_stats_compute(gs_gap_stats *st, double *len_s, size_t n, double micro_s)
{
    memset(st, 0, sizeof *st);
    qsort(len_s, n, sizeof *len_s, gs_cmp_double);
    st->count = n;
    for (size_t i = 0; i < n; i++) {
        st->total_s += len_s[i];
        if (len_s[i] < micro_s) {
            st->micro_count++;
            st->micro_total_s += len_s[i];
        } else {
            st->macro_count++;
            st->macro_total_s += len_s[i];
        }
    }
    if (!n)
        return;
    st->mean_ms = st->total_s / (double)n * 1e3;
    st->p50_ms = gs_percentile(len_s, n, 50) * 1e3;
    st->p90_ms = gs_percentile(len_s, n, 90) * 1e3;
    st->p99_ms = gs_percentile(len_s, n, 99) * 1e3;
    st->max_ms = len_s[n - 1] * 1e3;
}
