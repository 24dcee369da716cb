#include <stdint.h>
#include <stdlib.h>

#include "stats.h"

int gs_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gs_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int gs_cmp_time_ix(const void *pa, const void *pb)
{
    const gs_time_ix *a = pa, *b = pb;
    return a->t != b->t ? (a->t > b->t) - (a->t < b->t) : (a->i > b->i) - (a->i < b->i);
}

double gs_median_sort(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, gs_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
