/*
 * Small statistics over arrays of doubles (and int64 sorting), for every layer that reduces
 * repeated measurements (the gate's paired runs, cuda-bench repetitions,
 * calibrate's pairs, the model's quantiles, the report's distributions).
 * Pure functions.
 */
#ifndef GS_STATS_H
#define GS_STATS_H

#include <stddef.h>
#include <stdint.h>

/* qsort comparator: ascending doubles (NaN compares equal to everything). */
int gs_cmp_double(const void *a, const void *b);
/* qsort comparator: ascending int64_t. */
int gs_cmp_i64(const void *a, const void *b);
/* An index keyed by a time, sorted with gs_cmp_time_ix: by time, ties by
 * index (so equal times keep their original order, as a stable sort
 * would). */
typedef struct gs_time_ix {
    int64_t t;
    size_t i;
} gs_time_ix;
int gs_cmp_time_ix(const void *a, const void *b);
/* The median of v[0..n): sorts v in place; an even n gives the mean of the
 * two middle values; n == 0 gives 0. */
double gs_median_sort(double *v, size_t n);

#endif
