/*
 * The user stacks at the top causes (analysis.h, gs_stack_stat): the
 * launcher-rule pieces that carry stack ids (the launcher's stack at its
 * wait, the stack of what its wake-up chain's end was doing) summed by
 * (cause, launcher stack, waker stack); the GS_TOP_STACKS pairs with the
 * most idle time are kept with their frames (timeline meta stack.<id>;
 * in a merged timeline, process.<k>.stack.<id> of the launcher's process,
 * whose ids are its own capture's).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"

typedef struct key {
    gs_cause cause;
    int32_t proc;      /* the launcher lane's process: stack ids are per capture */
    int32_t stack, wstack;
    double idle_s;
} key;

static int cmp_key(const void *pa, const void *pb)
{
    const key *a = pa, *b = pb;
    if (a->cause != b->cause)
        return a->cause < b->cause ? -1 : 1;
    if (a->proc != b->proc)
        return a->proc < b->proc ? -1 : 1;
    if (a->stack != b->stack)
        return a->stack < b->stack ? -1 : 1;
    return (a->wstack > b->wstack) - (a->wstack < b->wstack);
}

static int cmp_idle(const void *pa, const void *pb)
{
    const key *a = pa, *b = pb;
    return (a->idle_s < b->idle_s) - (a->idle_s > b->idle_s);
}

static char *frames(const gs_timeline *tl, int32_t proc, int32_t id)
{
    char k[64];
    if (gs_timeline_meta_get(tl, "merge.processes"))
        snprintf(k, sizeof k, "process.%d.stack.%d", (int)proc, (int)id);
    else
        snprintf(k, sizeof k, "stack.%d", (int)id);
    const char *v = id > 0 ? gs_timeline_meta_get(tl, k) : NULL;
    return strdup(v ? v : "");
}

int gs_diag_stacks(gs_analysis *a, const gs_timeline *tl)
{
    size_t n = 0;
    for (size_t d = 0; d < a->n_dev; d++)
        for (size_t p = 0; p < a->dev[d].n_pieces; p++)
            n += a->dev[d].pieces[p].stack > 0 || a->dev[d].pieces[p].wstack > 0;
    if (!n)
        return 1;
    key *v = malloc(n * sizeof *v);
    if (!v)
        return 0;
    size_t k = 0;
    for (size_t d = 0; d < a->n_dev; d++)
        for (size_t p = 0; p < a->dev[d].n_pieces; p++) {
            const gs_gap_piece *pc = &a->dev[d].pieces[p];
            const gs_lane_info *L = pc->worker >= 0 ? gs_timeline_lane(tl, pc->worker) : NULL;
            if (pc->stack > 0 || pc->wstack > 0)
                v[k++] = (key){pc->cause, L ? L->process : 0, pc->stack, pc->wstack,
                               (double)(pc->end_ns - pc->start_ns) * 1e-9};
        }
    qsort(v, n, sizeof *v, cmp_key);
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        if (u && !cmp_key(&v[u - 1], &v[i]))
            v[u - 1].idle_s += v[i].idle_s;
        else
            v[u++] = v[i];
    }
    qsort(v, u, sizeof *v, cmp_idle);
    size_t top = u < GS_TOP_STACKS ? u : GS_TOP_STACKS;
    a->stacks = calloc(top, sizeof *a->stacks);
    int ok = a->stacks != NULL;
    for (size_t i = 0; ok && i < top; i++) {
        gs_stack_stat *s = &a->stacks[i];
        s->cause = v[i].cause;
        s->idle_s = v[i].idle_s;
        s->launcher = frames(tl, v[i].proc, v[i].stack);
        s->waker = frames(tl, v[i].proc, v[i].wstack);
        a->n_stacks++;
        ok = s->launcher && s->waker;
    }
    free(v);
    return ok;
}
