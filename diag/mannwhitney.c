/*
 * One-sided Mann-Whitney U test (gate.h).
 *
 * U_y = sum over pairs (x_i, y_j) of [y_j > x_i] + 1/2 [y_j == x_i]
 * (H. B. Mann, D. R. Whitney, "On a test of whether one of two random
 * variables is stochastically larger than the other", Ann. Math. Statist.
 * 18 (1947) 50-60).  Small U_y means y tends to be smaller than x.
 *
 * Exact null distribution without ties: the number of arrangements with
 * U = u, f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u) (Mann & Whitney's
 * recursion), over C(m+n, m) equally likely arrangements.
 * With ties or large samples: normal approximation, mean m n / 2,
 * variance m n / 12 * ((N+1) - sum(t^3 - t) / (N (N-1))) (tie correction,
 * E. L. Lehmann, Nonparametrics, 1975, sec. 1.4), continuity correction 1/2.
 */
#include <math.h>
#include <stdlib.h>

#include "gate.h"

/* P(U <= u) for sample sizes m (y) and n (x), no ties, by dynamic programming
 * over f(i, j, .), done in doubles (counts up to C(60, 30) ~ 1.2e17 are exact
 * enough for a p-value). */
static double exact_cdf(size_t m, size_t n, double u)
{
    size_t umax = m * n;
    /* f[j][k]: distribution for (i, j) with i the current row. */
    double *prev = calloc((n + 1) * (umax + 1), sizeof *prev);
    double *cur = calloc((n + 1) * (umax + 1), sizeof *cur);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return NAN;
    }
#define AT(a, j, k) (a)[(j) * (umax + 1) + (k)]
    for (size_t j = 0; j <= n; j++)
        AT(prev, j, 0) = 1;   /* i = 0: U = 0 only */
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 0; j <= n; j++)
            for (size_t k = 0; k <= umax; k++) {
                /* The largest element is a y (contributes j) or an x. */
                double v = k >= j ? AT(prev, j, k - j) : 0;
                if (j > 0)
                    v += AT(cur, j - 1, k);
                AT(cur, j, k) = v;
            }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double total = 0, below = 0;
    for (size_t k = 0; k <= umax; k++) {
        total += AT(prev, n, k);
        if ((double)k <= u + 1e-9)
            below += AT(prev, n, k);
    }
#undef AT
    free(prev);
    free(cur);
    return below / total;
}

typedef struct {
    double v;
    int is_y;
} item;

static int cmp_item(const void *pa, const void *pb)
{
    double a = ((const item *)pa)->v, b = ((const item *)pb)->v;
    return (a > b) - (a < b);
}

double gs_mann_whitney_less(const double *x, size_t nx, const double *y, size_t ny, double *u)
{
    *u = 0;
    if (!nx || !ny)
        return 1;
    size_t N = nx + ny;
    item *v = malloc(N * sizeof *v);
    if (!v)
        return NAN;
    for (size_t i = 0; i < nx; i++)
        v[i] = (item){x[i], 0};
    for (size_t j = 0; j < ny; j++)
        v[nx + j] = (item){y[j], 1};
    qsort(v, N, sizeof *v, cmp_item);
    /* Midranks (1-based) and the tie term. */
    double rank_y = 0, ties = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        while (j < N && v[j].v == v[i].v)
            j++;
        double mid = (double)(i + 1 + j) / 2.0, t = (double)(j - i);
        for (size_t k = i; k < j; k++)
            if (v[k].is_y)
                rank_y += mid;
        ties += t * t * t - t;
        i = j;
    }
    free(v);
    double U = rank_y - (double)ny * (double)(ny + 1) / 2.0;
    *u = U;
    if (ties == 0 && N <= 60)
        return exact_cdf(ny, nx, U);
    double mn = (double)nx * (double)ny;
    double var = mn / 12.0 * (((double)N + 1) - ties / ((double)N * ((double)N - 1)));
    if (var <= 0)
        return 1;   /* all values equal: no evidence */
    double z = (U - mn / 2.0 + 0.5) / sqrt(var);
    return 0.5 * erfc(-z / sqrt(2.0));
}
