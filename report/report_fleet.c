/*
 * The report's "Fleet" section (report_fleet.h): a run with two
 * devices or more, one capture of several GPUs or several captures merged
 * (gapscope merge).  Lays out diag/fleet.h's figures: per device util and
 * its own idle's top cause, the slowest device, idle that lines up across
 * devices against chance, and the longest shared stretches with every
 * device's cause.  Called by report.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fleet.h"

#define F(buf, ...) (snprintf(buf, sizeof buf, __VA_ARGS__), buf)

static const char *label_of(const gs_run *r, int32_t process, char *buf, size_t cap)
{
    char key[64];
    snprintf(key, sizeof key, "process.%d.label", (int)process);
    const char *l = gs_timeline_meta_get(r->tl, key);
    snprintf(buf, cap, "%s", l ? l : "-");
    return buf;
}

void gs_report_fleet(gs_doc *d, const gs_run *r)
{
    const gs_fleet *f = r->fleet;
    if (!f)
        return;
    char v[1024], b[8][96];
    gs_doc_h(d, 2, "Fleet");
    gs_fleet_verdict(v, sizeof v, f);
    gs_doc_p(d, "Fleet:", v);
    const char *clock = gs_timeline_meta_get(r->tl, "merge.clock_error_bound_ns");
    if (clock) {
        long long e = strtoll(clock, NULL, 10);
        if (e >= 0)
            gs_doc_pf(d, "Merged from %s captures (gapscope merge) on the first one's clock; the "
                         "clock error bound is %.3f ms (process.<k>.clock in the settings says "
                         "how each was aligned).",
                      gs_timeline_meta_get(r->tl, "merge.processes"), e * 1e-6);
        else
            gs_doc_pf(d, "Merged from %s captures (gapscope merge) on the first one's clock; the "
                         "clock error bound is unknown (process.<k>.clock in the settings).",
                      gs_timeline_meta_get(r->tl, "merge.processes"));
    }
    static const char *const h[] = {"device", "process", "util", "idle_s", "own idle_s",
                                    "own top cause", "share", "slowest"};
    gs_doc_table(d, 8, h);
    for (size_t i = 0; i < f->n_dev; i++) {
        const gs_fleet_device *D = &f->dev[i];
        const char *cells[8] = {F(b[0], "%d", (int)D->device), label_of(r, D->process, b[1], 96),
                                F(b[2], "%.2f%%", 100 * D->util), F(b[3], "%.3f", D->idle_s),
                                F(b[4], "%.3f", D->own_s),
                                D->own_s > 0 ? gs_cause_name(D->own_top) : "-",
                                F(b[6], "%.0f%%", 100 * D->own_top_share),
                                i == f->slowest ? "yes" : ""};
        gs_doc_row(d, cells);
    }
    gs_doc_table_end(d);
    if (f->window_end_ns > f->window_start_ns)
        gs_doc_pf(d, "In the %.3f s where every device's span runs, all were idle at once %.3f s; "
                     "with the devices' idle shifted against each other (%d shifts) %.3f s on "
                     "average, in stretches of at most %.3f ms.  A stretch longer than that (and "
                     "not shorter than %.3f ms) is shared: %zu of them, %.3f s; own idle is the "
                     "rest (diag/README.md, \"Fleet view\").",
                  (double)(f->window_end_ns - f->window_start_ns) * 1e-9, f->aligned_s,
                  GS_FLEET_SHIFTS, f->chance_s, f->chance_max_ms,
                  r->an->cfg.micro_threshold_s * 1e3, f->n_shared, f->shared_s);
    if (!f->n_top)
        return;
    static const char *const h2[] = {"t_s", "len_ms", "common cause", "causes (device order)"};
    gs_doc_table(d, 4, h2);
    for (size_t i = 0; i < f->n_top; i++) {
        const gs_fleet_stretch *s = &f->top[i];
        char causes[512] = "";
        for (size_t k = 0; k < f->n_dev && k < 8; k++) {
            size_t l = strlen(causes);
            snprintf(causes + l, sizeof causes - l, "%s%d: %s", k ? ", " : "",
                     (int)f->dev[k].device, gs_cause_name(s->cause[k]));
        }
        const char *cells[4] = {F(b[0], "%.6f", (double)(s->start_ns - r->an->t0_ns) * 1e-9),
                                F(b[1], "%.3f", (double)(s->end_ns - s->start_ns) * 1e-6),
                                s->common ? s->common : "mixed", causes};
        gs_doc_row(d, cells);
    }
    gs_doc_table_end(d);
}
