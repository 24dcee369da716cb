/*
 * The report's wake-up parts (foreign timelines captured by attach): how
 * the wake-up edges were found, the chains with the most idle time, the
 * user stacks at the top causes, and one sentence per top gap naming its
 * chain in the user's words.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

static void dur(char *b, size_t n, double s)
{
    if (s >= 1)
        snprintf(b, n, "%.2f s", s);
    else
        snprintf(b, n, "%.1f ms", s * 1e3);
}

static int is_chain(const gs_cause_detail *d)
{
    return strstr(d->detail, " waits on ") != NULL;
}

void gs_report_wake_note(gs_doc *d, const gs_run *r)
{
    const char *m = r->an->wake_mech;
    if (!m[0])
        return;
    const char *probe = gs_timeline_meta_get(r->tl, "attach.wake.probe");
    const char *how = !strcmp(m, "sched_tracepoints")
                          ? "the scheduler's tracepoints (sched_switch, sched_waking): exact "
                            "waker -> wakee pairs for any primitive, beside the interposed waits"
                          : "interposition of what user space blocks in (futex through syscall(), "
                            "condition variables, rwlocks, semaphores, pthread mutexes), a wait "
                            "paired with the wake on the same address, and /proc futex addresses";
    char buf[1024];
    snprintf(buf, sizeof buf,
             "Wake-up edges (who woke each blocked thread) came from %s%s%s%s.  A launcher that "
             "waits is charged to what the thread it waits on was doing, followed through that "
             "thread's own waits (diag/README.md, \"Attribution of foreign timelines\").",
             how, probe && *probe ? " (probe: " : "", probe && *probe ? probe : "",
             probe && *probe ? ")" : "");
    gs_doc_list_item(d, buf);
}

void gs_report_wake_sections(gs_doc *d, const gs_run *r)
{
    const gs_analysis *a = r->an;
    size_t n = 0;
    for (size_t i = 0; i < a->n_details; i++)
        n += is_chain(&a->details[i]);
    if (!n && !a->n_stacks)
        return;
    gs_doc_h(d, 2, "Wake-up chains");
    if (n) {
        size_t *ord = malloc(n * sizeof *ord), k = 0;
        if (!ord)
            return;
        for (size_t i = 0; i < a->n_details; i++)
            if (is_chain(&a->details[i]))
                ord[k++] = i;
        for (size_t i = 1; i < k; i++)
            for (size_t j = i; j > 0 && a->details[ord[j]].idle_s > a->details[ord[j - 1]].idle_s; j--) {
                size_t x = ord[j];
                ord[j] = ord[j - 1];
                ord[j - 1] = x;
            }
        gs_doc_p(d, NULL, "Each row: who the launching thread waited on, through whom, and what the "
                          "last thread of the chain was doing, with the GPU idle time it explains.");
        static const char *const h[] = {"GPU idle", "cause", "chain"};
        gs_doc_table(d, 3, h);
        for (size_t i = 0; i < k && i < 10; i++) {
            const gs_cause_detail *c = &a->details[ord[i]];
            char t[32];
            dur(t, sizeof t, c->idle_s);
            const char *cells[3] = {t, gs_cause_name(c->cause), c->detail};
            gs_doc_row(d, cells);
        }
        gs_doc_table_end(d);
        free(ord);
    }
    if (!a->n_stacks)
        return;
    gs_doc_h(d, 3, "Stacks at the top causes");
    gs_doc_p(d, NULL, "The launching thread's stack at its wait and the stack of what the end of "
                      "its chain was doing (its malloc_trim, or its wake), root first, by the GPU "
                      "idle time they account for.");
    for (size_t i = 0; i < a->n_stacks; i++) {
        const gs_stack_stat *s = &a->stacks[i];
        char t[32], head[256];
        dur(t, sizeof t, s->idle_s);
        snprintf(head, sizeof head, "#%zu: %s, %s of GPU idle", i + 1, gs_cause_name(s->cause), t);
        gs_doc_p(d, head, "");
        /* One frame per line, root first. */
        size_t len = 2 * (strlen(s->launcher) + strlen(s->waker)) + 64, o = 0;
        char *txt = malloc(len);
        if (!txt)
            return;
        const char *part[2] = {s->launcher, s->waker}, *label[2] = {"launcher", "waker"};
        for (int k = 0; k < 2; k++) {
            o += (size_t)snprintf(txt + o, len - o, "%s%s:", k ? "\n" : "", label[k]);
            if (!part[k][0])
                o += (size_t)snprintf(txt + o, len - o, " (none)");
            for (const char *f = part[k]; *f;) {
                size_t fl = strcspn(f, ";");
                o += (size_t)snprintf(txt + o, len - o, "\n  %.*s", (int)fl, f);
                f += fl;
                if (*f == ';')
                    f++;
            }
        }
        gs_doc_pre(d, txt);
        free(txt);
    }
}

void gs_report_gap_chain(gs_doc *d, const gs_run *r, const gs_device_analysis *v, const gs_gap *g)
{
    const gs_analysis *a = r->an;
    double best = 0;
    int32_t det = -1;
    for (size_t k = g->first_piece; k < g->first_piece + g->n_pieces; k++) {
        const gs_gap_piece *p = &v->pieces[k];
        if (p->detail < 0 || (size_t)p->detail >= a->n_details || !is_chain(&a->details[p->detail]))
            continue;
        double s = (double)(p->end_ns - p->start_ns) * 1e-9;
        for (size_t j = k + 1; j < g->first_piece + g->n_pieces; j++)
            if (v->pieces[j].detail == p->detail)
                s += (double)(v->pieces[j].end_ns - v->pieces[j].start_ns) * 1e-9;
        if (s > best) {
            best = s;
            det = p->detail;
        }
    }
    if (det < 0)
        return;
    char gap[32], part[32];
    dur(gap, sizeof gap, (double)(g->end_ns - g->start_ns) * 1e-9);
    dur(part, sizeof part, best);
    gs_doc_pf(d, "GPU idle %s: %s (%s of it).", gap, a->details[det].detail, part);
}
