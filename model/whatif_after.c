/*
 * What a removed step leaves behind (contract in graph.h: remove:NAME;
 * method in MODEL.md, "What-ifs on foreign timelines").
 *
 * A host stall does not only take its own time: the steps after it can
 * run slower because of it (malloc_trim gives the heap's free pages back
 * to the kernel, so the next allocations fault them in again; caches and
 * TLBs are cold after it).  Removing the stall and keeping those steps'
 * captured times keeps its knock-on.  The timeline shows the steps
 * without it where the same steps ran after something else: in the H200
 * PyTorch captures (traces/h200-r3/torch, traces/attach-h200) the loop's
 * first iteration follows the warm-up's sync instead of a trim, and from
 * its start to its first kernel it took 190-220 us where the iterations
 * after a trim took 230-320 us, in all four trim captures.
 *
 * So, for each removed node R on a host lane, the window after it: the
 * host steps that follow it up to the lane's next sync, lock wait or
 * removed node (what comes after those waits for something else).  A
 * reference is a run of the same lane whose steps have the window's names
 * in order and whose predecessor is a node that is not removed (nor
 * inside another removed node's window).  With references, each window
 * step takes the median duration and gap of the steps at its offset in
 * them; without, it stays as captured (said in the result: the capture
 * cannot tell).  What no capture shows (a step that only ever ran after
 * the stall, a warm-up that ran once) stays as captured.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../common/stats.h"
#include "whatif_int.h"

#define WIN_MAX 4096
#define REF_MAX 64

static int64_t median(int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, gs_cmp_i64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A removed step (a sampled state removed is not a step: remove:state:*
 * shortens gaps instead). */
static int removed(const rctx *c, int64_t i)
{
    const gs_gnode *x = &c->g->n[i];
    return c->f[i] == 0 && x->kind != GS_GN_DEVICE && strncmp(x->sp->name, "state:", 6);
}

/* The window after lane position p (positions p+1 .. p+len of the lane's
 * node list ix[lo..hi)): host steps, none removed. */
static int window_len(const rctx *c, const int64_t *ix, size_t p, size_t hi)
{
    int len = 0;
    for (size_t q = p + 1; q < hi && len < WIN_MAX; q++, len++) {
        const gs_gnode *x = &c->g->n[ix[q]];
        if (x->kind != GS_GN_HOST || c->f[ix[q]] == 0)
            break;
    }
    return len;
}

/* 1 when positions s .. s+len-1 repeat the names of p+1 .. p+len. */
static int same_run(const rctx *c, const int64_t *ix, size_t s, size_t p, int len)
{
    for (int k = 0; k < len; k++) {
        const gs_gnode *a = &c->g->n[ix[s + (size_t)k]], *b = &c->g->n[ix[p + 1 + (size_t)k]];
        if (a->kind != GS_GN_HOST || c->f[ix[s + (size_t)k]] == 0 || strcmp(a->sp->name, b->sp->name))
            return 0;
    }
    return 1;
}

size_t gs_wi_after(rctx *c, const int64_t *ix, size_t *n_windows)
{
    const gs_graph *g = c->g;
    size_t done = 0, nn = g->nn;
    *n_windows = 0;
    /* after[q]: lane position q follows a removed node within its window
     * (a reference must not be one). */
    char *after = calloc(nn ? nn : 1, 1);
    int64_t *ref = malloc(REF_MAX * sizeof *ref), *v = malloc(REF_MAX * sizeof *v);
    if (!after || !ref || !v)
        goto out;
    /* Lanes one at a time: [lo, hi) of ix is one lane's nodes. */
    for (size_t lo = 0, hi; lo < nn; lo = hi) {
        int32_t lane = g->n[ix[lo]].lane;
        for (hi = lo; hi < nn && g->n[ix[hi]].lane == lane; hi++)
            ;
        if (g->n[ix[lo]].kind == GS_GN_DEVICE)
            continue;
        for (size_t p = lo; p < hi; p++)
            if (removed(c, ix[p]))
                for (int k = 1, len = window_len(c, ix, p, hi); k <= len; k++)
                    after[p + (size_t)k] = 1;
        for (size_t p = lo; p < hi; p++) {
            if (!removed(c, ix[p]))
                continue;
            int len = window_len(c, ix, p, hi);
            if (!len)
                continue;
            (*n_windows)++;
            int nr = 0;
            for (size_t s = lo + 1; s + (size_t)len <= hi && nr < REF_MAX; s++)
                if (!after[s] && c->f[ix[s - 1]] != 0 && !after[s - 1] && same_run(c, ix, s, p, len))
                    ref[nr++] = (int64_t)s;
            if (!nr)
                continue;
            for (int k = 0; k < len; k++) {
                int64_t i = ix[p + 1 + (size_t)k];
                const gs_gnode *x = &g->n[i];
                for (int r = 0; r < nr; r++)
                    v[r] = g->n[ix[(size_t)ref[r] + (size_t)k]].gap;
                c->gap[i] = median(v, nr);
                for (int r = 0; r < nr; r++) {
                    const gs_gnode *y = &g->n[ix[(size_t)ref[r] + (size_t)k]];
                    v[r] = y->e - y->s;
                }
                int64_t d = median(v, nr);
                if (x->e > x->s)
                    c->f[i] *= (double)d / (double)(x->e - x->s);
            }
            done++;
        }
    }
out:
    free(after);
    free(ref);
    free(v);
    return done;
}
