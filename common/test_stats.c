/* common/stats: the comparator orders doubles ascending (negatives,
 * equal values), and the median sorts in place and takes the middle of an
 * odd count, the mean of the two middle values of an even one, 0 of none. */
#include <stdlib.h>

#include "../test/test.h"
#include "stats.h"

GS_TEST(stats_median_and_order)
{
    double a[5] = {3, -1, 2.5, 10, 2.5};
    GS_CHECK(gs_median_sort(a, 5) == 2.5);
    GS_CHECK(a[0] == -1 && a[1] == 2.5 && a[2] == 2.5 && a[3] == 3 && a[4] == 10);
    double b[4] = {4, 1, 3, 2};
    GS_CHECK(gs_median_sort(b, 4) == 2.5);
    double c[1] = {7};
    GS_CHECK(gs_median_sort(c, 1) == 7);
    GS_CHECK(gs_median_sort(NULL, 0) == 0);
    double x = 1, y = 2;
    GS_CHECK(gs_cmp_double(&x, &y) < 0 && gs_cmp_double(&y, &x) > 0 && gs_cmp_double(&x, &x) == 0);
}
