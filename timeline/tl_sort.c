/*
 * The timeline's sorted view (gs_timeline_spans, timeline.h): every span
 * in (start, end, lane, append order), built from the lanes without a
 * global sort.
 *
 * Spans are appended per lane mostly in time order (a thread records its
 * steps as it finishes them; a device stream's operations follow each
 * other; the CSV reader reads a file written in this very order), so the
 * view is a k-way merge of the lanes:
 *
 *   1. each lane is checked for order, one pass over its chunks; a lane in
 *      order is merged straight from its chunks;
 *   2. a lane out of order gets its order as an array of span pointers,
 *      from sort keys (start, end, position in the lane) sorted by an
 *      adaptive merge sort (insertion-sorted blocks, merges that skip what
 *      is already in place: nearly linear when the disorder is local, as a
 *      parent step appended after the child that starts with it);
 *   3. the lanes' heads go into a binary heap by (start, end, lane); the
 *      smallest lane gives spans until its next one passes the second
 *      smallest, so a lane's run of spans costs one heap step, not one each.
 *
 * Memory: the view (one gs_span per span), plus for lanes out of order 8
 * bytes a span (their order) and, while one lane sorts, 48 bytes a span of
 * that lane.  Before this, the view took a 32-byte sort key and pointer per
 * span of every lane and a qsort of all of them (bench/RESULTS.md).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/bigmem.h"
#include "tl_internal.h"

typedef struct {
    int64_t start, end;
    size_t pos;              /* position in the lane: ties in append order */
    const gs_span *sp;
} sort_key;

static int key_lt(const sort_key *a, const sort_key *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    if (a->end != b->end)
        return a->end < b->end;
    return a->pos < b->pos;
}

#define RUN 32

static void insertion_sort(sort_key *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        if (!key_lt(&v[i], &v[i - 1]))
            continue;
        sort_key x = v[i];
        size_t j = i;
        do {
            v[j] = v[j - 1];
            j--;
        } while (j > 0 && key_lt(&x, &v[j - 1]));
        v[j] = x;
    }
}

/* Merges the sorted runs v[0, na) and v[na, na + nb) in place; tmp holds na keys. */
static void merge(sort_key *v, size_t na, size_t nb, sort_key *tmp)
{
    sort_key *b = v + na;
    if (!key_lt(&b[0], &v[na - 1]))
        return;   /* already in order */
    /* a's prefix up to b[0] and b's suffix from a's last stay where they are */
    size_t lo = 0, hi = na;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_lt(&b[0], &v[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t i0 = lo;
    lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_lt(&b[mid], &v[na - 1]))
            lo = mid + 1;
        else
            hi = mid;
    }
    nb = lo;
    size_t n1 = na - i0;
    if (n1 <= nb) {   /* the left part aside, merged forwards */
        memcpy(tmp, v + i0, n1 * sizeof *tmp);
        sort_key *o = v + i0, *x = tmp, *xe = tmp + n1, *y = b, *ye = b + nb;
        while (x < xe && y < ye)
            *o++ = key_lt(y, x) ? *y++ : *x++;
        while (x < xe)
            *o++ = *x++;
    } else {          /* the right part aside, merged backwards */
        memcpy(tmp, b, nb * sizeof *tmp);
        sort_key *o = b + nb, *x = b, *xb = v + i0, *y = tmp + nb;
        while (x > xb && y > tmp)
            *--o = key_lt(y - 1, x - 1) ? *--x : *--y;
        while (y > tmp)
            *--o = *--y;
    }
}

static void sort_keys(sort_key *v, size_t n, sort_key *tmp)
{
    for (size_t i = 0; i < n; i += RUN)
        insertion_sort(v + i, n - i < RUN ? n - i : RUN);
    for (size_t w = RUN; w < n; w *= 2)
        for (size_t lo = 0; lo + w < n; lo += 2 * w)
            merge(v + lo, w, n - lo - w < w ? n - lo - w : w, tmp);
}

static int span_lt(const gs_span *a, const gs_span *b)
{
    return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns < b->end_ns;
}

/* 1 when the lane's spans are in (start, end) order as appended. */
static int lane_in_order(const gs_timeline *tl, int32_t lane)
{
    const gs_span *prev = NULL, *seg;
    size_t n;
    void *it = NULL;
    while ((seg = gs_tl_lane_segment(tl, lane, &it, &n)))
        for (size_t j = 0; j < n; prev = &seg[j++])
            if (prev && span_lt(&seg[j], prev))
                return 0;
    return 1;
}

/* The order of an out-of-order lane of n spans: n pointers (malloc'd), NULL on OOM. */
static const gs_span **lane_order(const gs_timeline *tl, int32_t lane, size_t n)
{
    sort_key *k = malloc(n * sizeof *k), *tmp = malloc((n / 2 + 1) * sizeof *tmp);
    if (!k || !tmp) {
        free(k);
        free(tmp);
        return NULL;
    }
    const gs_span *seg;
    size_t m, i = 0;
    void *it = NULL;
    while ((seg = gs_tl_lane_segment(tl, lane, &it, &m)))
        for (size_t j = 0; j < m && i < n; j++, i++)
            k[i] = (sort_key){seg[j].start_ns, seg[j].end_ns, i, &seg[j]};
    /* tmp: a merge sets aside the smaller of its two parts, at most n / 2 */
    sort_keys(k, i, tmp);
    free(tmp);
    const gs_span **ord = (const gs_span **)(void *)k;   /* in place: 8 <= 32 bytes */
    for (size_t j = 0; j < i; j++)
        ord[j] = k[j].sp;
    const gs_span **shrunk = realloc(ord, (i ? i : 1) * sizeof *ord);
    return shrunk ? shrunk : ord;
}

/* A lane being merged: its head span and where the rest is. */
typedef struct {
    int64_t start, end;
    int32_t lane;
    const gs_span *cur;
    const gs_span *p, *e;    /* in order: the rest of the current segment */
    void *it;
    const gs_span **pp, **pe;   /* out of order: the rest of the order */
    const gs_span **ord;
} cursor;

/* Moves c to its next span; 0 when the lane is done. */
static int advance(const gs_timeline *tl, cursor *c)
{
    if (c->ord) {
        if (c->pp == c->pe)
            return 0;
        c->cur = *c->pp++;
    } else {
        if (c->p == c->e) {
            size_t n;
            const gs_span *seg;
            do
                seg = gs_tl_lane_segment(tl, c->lane, &c->it, &n);
            while (seg && !n);
            if (!seg)
                return 0;
            c->p = seg;
            c->e = seg + n;
        }
        c->cur = c->p++;
    }
    c->start = c->cur->start_ns;
    c->end = c->cur->end_ns;
    return 1;
}

static int cur_lt(const cursor *a, const cursor *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    if (a->end != b->end)
        return a->end < b->end;
    return a->lane < b->lane;
}

static void sift_down(const cursor *cs, uint32_t *h, size_t n, size_t i)
{
    uint32_t x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && cur_lt(&cs[h[c + 1]], &cs[h[c]]))
            c++;
        if (!cur_lt(&cs[h[c]], &cs[x]))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

gs_span *gs_tl_sort_spans(const gs_timeline *tl, size_t total)
{
    size_t nl = gs_timeline_lane_count(tl), nh = 0, k = 0;
    gs_span *out = malloc(total * sizeof *out);
    cursor *cs = calloc(nl + 1, sizeof *cs);
    uint32_t *h = malloc((nl + 1) * sizeof *h);
    if (!out || !cs || !h)
        goto fail;
    gs_big_advise(out, total * sizeof *out);   /* 4 KiB faults were a third of the view's build */
    for (size_t i = 0; i < nl; i++) {
        cursor *c = &cs[i];
        c->lane = (int32_t)i;
        size_t n = gs_tl_lane_size(tl, c->lane);
        if (!n)
            continue;
        if (!lane_in_order(tl, c->lane)) {
            if (!(c->ord = lane_order(tl, c->lane, n)))
                goto fail;
            c->pp = c->ord;
            c->pe = c->ord + n;
        }
        if (advance(tl, c))
            h[nh++] = (uint32_t)i;
    }
    for (size_t i = nh / 2; i-- > 0;)
        sift_down(cs, h, nh, i);
    while (nh > 0 && k < total) {
        cursor *c = &cs[h[0]];
        if (nh == 1) {
            do
                out[k++] = *c->cur;
            while (k < total && advance(tl, c));
            break;
        }
        const cursor *b = &cs[h[1]];
        if (nh > 2 && cur_lt(&cs[h[2]], b))
            b = &cs[h[2]];
        int more;
        do
            out[k++] = *c->cur;
        while ((more = k < total && advance(tl, c)) && cur_lt(c, b));
        if (!more)
            h[0] = h[--nh];
        sift_down(cs, h, nh, 0);
    }
    for (size_t i = 0; i < nl; i++)
        free(cs[i].ord);
    free(cs);
    free(h);
    return out;
fail:
    for (size_t i = 0; cs && i < nl; i++)
        free(cs[i].ord);
    free(cs);
    free(h);
    free(out);
    return NULL;
}
