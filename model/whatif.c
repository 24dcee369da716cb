/*
 * What-ifs on a foreign timeline's dependency graph (contract in graph.h,
 * method in MODEL.md): parsing the edits, and the replay (whatif_edit.c
 * applies the edits and runs it, whatif_out.c reads the results).
 *
 * Replay.  Every node gets a new start and end:
 *   start = (the later of its chain predecessor's new end and, for a
 *           device operation, its launch's new start; the first
 *           captured node's start for a root) + its captured gap
 *           (less any removed state it covered);
 *   end   = start + its captured duration x its edit factor (a device
 *           operation on a sped-up stream divided by the speed); a sync
 *           or wait that waited in the capture ends its captured
 *           latency after the new end of what it waited for (or at once
 *           when removed), one that did not wait keeps its duration.
 * Starts need ends of earlier nodes and ends need starts, so the two are
 * resolved on demand with an explicit stack (no recursion; a dependency
 * cycle, impossible in a causal capture, falls back to the captured
 * time).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif_int.h"

static const char *const kinds[] = {"remove", "scale", "stream", "unlock", "threads"};
_Static_assert(sizeof kinds / sizeof kinds[0] == GS_WI_COUNT, "what-if kinds");

gs_status gs_whatif_parse(gs_whatif *w, const char *text, gs_err *err)
{
    memset(w, 0, sizeof *w);
    w->factor = 1;
    snprintf(w->text, sizeof w->text, "%s", text);
    const char *colon = strchr(text, ':');
    int k = 0;
    while (colon && k < GS_WI_COUNT && (strlen(kinds[k]) != (size_t)(colon - text) || strncmp(text, kinds[k], (size_t)(colon - text))))
        k++;
    if (!colon || k == GS_WI_COUNT || !colon[1])
        return GS_ERR(err, GS_ERR_ARG, "what-if",
                      "'%s': expected remove:NAME, scale:NAME=F, stream:LANE=F, unlock:LOCK:NAME or threads:PREFIX=+N",
                      text);
    w->kind = (gs_wi_kind)k;
    const char *body = colon + 1;
    if (w->kind == GS_WI_REMOVE) {
        snprintf(w->what, sizeof w->what, "%s", body);
        w->factor = 0;
        return GS_OK;
    }
    if (w->kind == GS_WI_UNLOCK) {
        const char *c2 = strrchr(body, ':');
        if (!c2 || c2 == body || !c2[1])
            return GS_ERR(err, GS_ERR_ARG, "what-if", "'%s': expected unlock:LOCK:NAME", text);
        snprintf(w->what, sizeof w->what, "%.*s", (int)(c2 - body), body);
        snprintf(w->inner, sizeof w->inner, "%s", c2 + 1);
        return GS_OK;
    }
    const char *eq = strrchr(body, '=');
    char *end = NULL;
    double f = eq ? strtod(eq + 1 + (eq[1] == '+'), &end) : NAN;
    if (end && (*end == 'x' || *end == 'X'))
        end++;
    if (!eq || eq == body || !end || *end || !(f > 0) || !isfinite(f) ||
        (w->kind == GS_WI_THREADS && (eq[1] != '+' || f != floor(f) || f > 256)))
        return GS_ERR(err, GS_ERR_ARG, "what-if", "'%s': expected %s", text,
                      w->kind == GS_WI_THREADS ? "threads:PREFIX=+N (N a whole number 1..256)"
                                               : "NAME=F with a factor F > 0 (1.5 or 1.5x)");
    snprintf(w->what, sizeof w->what, "%.*s", (int)(eq - body), body);
    w->factor = f;
    return GS_OK;
}

int gs_wi_match(const char *pat, const char *name)
{
    size_t n = strlen(pat);
    return n && pat[n - 1] == '*' ? !strncmp(pat, name, n - 1) : !strcmp(pat, name);
}

/* Computes what the node needs once its dependencies are known. */
static void compute(rctx *c, int64_t i, int want)
{
    const gs_gnode *x = &c->g->n[i];
    if (want == 1) {
        /* A dependency left unknown (a cycle) counts at its captured time. */
        int64_t ready = c->t0;
        if (x->chain >= 0) {
            int64_t t = c->lvl[x->chain] >= 2 ? c->ne[x->chain] : c->g->n[x->chain].e;
            ready = t > ready ? t : ready;
        }
        if (x->launch >= 0) {
            int64_t t = c->lvl[x->launch] >= 1 ? c->ns[x->launch] : c->g->n[x->launch].s;
            ready = t > ready ? t : ready;
        }
        c->ns[i] = ready + c->gap[i];
        c->lvl[i] = 1;
        return;
    }
    int64_t dur = x->e - x->s, end = c->ns[i] + (int64_t)llround((double)dur * c->f[i]);
    int64_t rel0 = -1, rel = -1;
    if (x->kind == GS_GN_SYNC) {
        for (int k = 0; k < x->n_await; k++) {
            int64_t a = x->await[k];
            if (c->g->n[a].e > rel0)
                rel0 = c->g->n[a].e;
            int64_t t = c->lvl[a] >= 2 ? c->ne[a] : c->g->n[a].e;
            if (t > rel)
                rel = t;
        }
    } else if (x->kind == GS_GN_WAIT && c->waker[i] >= 0) {
        rel0 = c->g->n[x->waker >= 0 ? x->waker : c->waker[i]].e;
        rel = c->lvl[c->waker[i]] >= 2 ? c->ne[c->waker[i]] : c->g->n[c->waker[i]].e;
    }
    if (rel0 >= 0 && rel >= 0 && c->f[i] > 0) {
        int waited = rel0 > x->s;
        int64_t lag = x->e > rel0 ? x->e - rel0 : 0;
        int64_t base = waited ? 0 : dur;
        end = c->ns[i] + base > rel + lag ? c->ns[i] + base : rel + lag;
    }
    c->ne[i] = end;
    c->lvl[i] = 2;
}

int gs_wi_replay(rctx *c)
{
    size_t nn = c->g->nn;
    typedef struct { int64_t i; int want; } frame;
    frame *stk = malloc((2 * nn + 2) * sizeof *stk);
    if (!stk)
        return 0;
    for (size_t root = 0; root < nn; root++) {
        if (c->lvl[root] >= 2)
            continue;
        size_t top = 0;
        stk[top++] = (frame){(int64_t)root, 2};
        c->on[root] |= 2;
        while (top) {
            frame *f = &stk[top - 1];
            int64_t i = f->i;
            const gs_gnode *x = &c->g->n[i];
            if (c->lvl[i] >= f->want) {
                c->on[i] &= (char)~f->want;
                top--;
                continue;
            }
            int64_t dep[GS_GN_MAX_AWAIT + 3];
            int dw[GS_GN_MAX_AWAIT + 3], nd = 0;
            if (f->want == 1) {
                dep[nd] = x->chain, dw[nd++] = 2;
                dep[nd] = x->launch, dw[nd++] = 1;
            } else {
                dep[nd] = i, dw[nd++] = 1;
                for (int k = 0; x->kind == GS_GN_SYNC && k < x->n_await; k++)
                    dep[nd] = x->await[k], dw[nd++] = 2;
                if (x->kind == GS_GN_WAIT)
                    dep[nd] = c->waker[i], dw[nd++] = 2;
            }
            int pushed = 0;
            for (int k = 0; k < nd && !pushed; k++) {
                int64_t d = dep[k];
                if (d < 0 || c->lvl[d] >= dw[k] || (c->on[d] & dw[k]))
                    continue; /* known, or on the stack (a cycle): use what is known */
                c->on[d] |= (char)dw[k];
                stk[top++] = (frame){d, dw[k]};
                pushed = 1;
            }
            if (!pushed) {
                compute(c, i, f->want);
                c->on[i] &= (char)~f->want;
                top--;
            }
        }
    }
    free(stk);
    return 1;
}

