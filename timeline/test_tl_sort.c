/* The sorted view (tl_sort.c) against a reference order: a qsort of every
 * span by (start, end, lane, append order), on lanes in order, reversed,
 * shuffled, nearly in order, full of ties, empty and many chunks long. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "../common/rng.h"
#include "timeline.h"

typedef struct {
    int64_t start, end;
    int32_t lane, seq;       /* seq: append order over the timeline (the span's job) */
} ref;

static int cmp_ref(const void *pa, const void *pb)
{
    const ref *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

enum { IN_ORDER, REVERSED, SHUFFLED, NEARLY, TIES, PATTERNS };

/* Appends n spans of a pattern to lane; refs gets each one. */
static void fill(gs_tl_lane *l, int32_t lane, int pattern, size_t n, gs_rng *r, ref *refs,
                 size_t *nref)
{
    for (size_t i = 0; i < n; i++) {
        int64_t s;
        switch (pattern) {
        case IN_ORDER: s = (int64_t)i * 10; break;
        case REVERSED: s = (int64_t)(n - i) * 10; break;
        case SHUFFLED: s = (int64_t)gs_rng_below(r, 1000000); break;
        case NEARLY: s = (int64_t)i * 10 - (int64_t)gs_rng_below(r, 4) * 25; break;
        default: s = (int64_t)gs_rng_below(r, 3); break;
        }
        int64_t e = s + (int64_t)gs_rng_below(r, pattern == TIES ? 2 : 50);
        int32_t seq = (int32_t)*nref;
        gs_tl_span(l, GS_SPAN_STEP, "s", seq, -1, s, e, 0, NULL);
        refs[(*nref)++] = (ref){s, e, lane, seq};
    }
}

static int same_order(gs_timeline *tl, ref *refs, size_t nref)
{
    qsort(refs, nref, sizeof *refs, cmp_ref);
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    if (n != nref || (n && !sp))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (sp[i].start_ns != refs[i].start || sp[i].end_ns != refs[i].end ||
            sp[i].lane != refs[i].lane || sp[i].job != refs[i].seq)
            return 0;
    return 1;
}

GS_TEST(diag_timeline_sort_merge)
{
    static const size_t sizes[] = {0, 1, 2, 31, 33, 1023, 1025, 5000};
    gs_rng r;
    gs_rng_seed(&r, 32);
    for (int round = 0; round < 12; round++) {
        gs_timeline *tl;
        GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
        size_t nlanes = 1 + gs_rng_below(&r, 9), cap = nlanes * 5000 * 2, nref = 0;
        ref *refs = malloc(cap * sizeof *refs);
        GS_REQUIRE(refs);
        gs_tl_lane *lanes[9];
        for (size_t k = 0; k < nlanes; k++)
            lanes[k] = gs_tl_lane_open(tl, "l", GS_ROLE_THREAD, -1, -1);
        for (size_t k = 0; k < nlanes; k++)
            fill(lanes[k], (int32_t)k, (int)gs_rng_below(&r, PATTERNS),
                 sizes[gs_rng_below(&r, sizeof sizes / sizeof sizes[0])], &r, refs, &nref);
        GS_CHECK_MSG(same_order(tl, refs, nref), "round %d: %zu lanes, %zu spans", round, nlanes,
                     nref);
        /* More spans after a view was built: the next view has them too. */
        for (size_t k = 0; k < nlanes; k++)
            fill(lanes[k], (int32_t)k, (int)gs_rng_below(&r, PATTERNS),
                 sizes[gs_rng_below(&r, sizeof sizes / sizeof sizes[0])], &r, refs, &nref);
        GS_CHECK_MSG(same_order(tl, refs, nref), "round %d, appended", round);
        free(refs);
        gs_timeline_destroy(tl);
    }
}
