/* summary.json's "fleet" object (fleet.h, gs_fleet_write_json; schema in
 * diag/README.md, "Fleet view").  Called by summary.c. */
#include <stdio.h>

#include "../common/json.h"
#include "fleet.h"

static void kv(FILE *f, const char *k, double v)
{
    fputc(',', f);
    gs_json_str(f, k);
    fputc(':', f);
    gs_json_num(f, v);
}

static void label(FILE *f, const gs_timeline *tl, int32_t process)
{
    char key[64];
    snprintf(key, sizeof key, "process.%d.label", (int)process);
    const char *l = gs_timeline_meta_get(tl, key);
    if (l)
        gs_json_str(f, l);
    else
        fputs("null", f);
}

void gs_fleet_write_json(FILE *out, const gs_fleet *f, const gs_timeline *tl, int64_t t0_ns)
{
    fprintf(out, "{\"devices\":%zu", f->n_dev);
    kv(out, "window_s", f->window_end_ns > f->window_start_ns
                            ? (double)(f->window_end_ns - f->window_start_ns) * 1e-9 : 0.0);
    kv(out, "aligned_idle_s", f->aligned_s);
    kv(out, "chance_idle_s", f->chance_s);
    kv(out, "chance_max_ms", f->chance_max_ms);
    kv(out, "shared_idle_s", f->shared_s);
    fprintf(out, ",\"shared_stretches\":%zu,\n\"per_device\":[", f->n_shared);
    for (size_t d = 0; d < f->n_dev; d++) {
        const gs_fleet_device *D = &f->dev[d];
        fprintf(out, "%s\n{\"device\":%d,\"process\":%d,\"label\":", d ? "," : "", (int)D->device,
                (int)D->process);
        label(out, tl, D->process);
        kv(out, "util", D->util);
        kv(out, "idle_s", D->idle_s);
        kv(out, "own_idle_s", D->own_s);
        fputs(",\"own_top_cause\":", out);
        if (D->own_s > 0)
            gs_json_str(out, gs_cause_name(D->own_top));
        else
            fputs("null", out);
        kv(out, "own_top_share", D->own_top_share);
        fputc('}', out);
    }
    fprintf(out, "],\n\"slowest\":%d,\n\"stretches\":[", (int)f->dev[f->slowest].device);
    for (size_t i = 0; i < f->n_top; i++) {
        const gs_fleet_stretch *s = &f->top[i];
        fprintf(out, "%s\n{\"start_s\":", i ? "," : "");
        gs_json_num(out, (double)(s->start_ns - t0_ns) * 1e-9);
        kv(out, "len_ms", (double)(s->end_ns - s->start_ns) * 1e-6);
        fputs(",\"causes\":[", out);
        for (size_t d = 0; d < f->n_dev && d < 8; d++) {
            fputs(d ? "," : "", out);
            gs_json_str(out, gs_cause_name(s->cause[d]));
        }
        fputs("],\"common\":", out);
        if (s->common)
            gs_json_str(out, s->common);
        else
            fputs("null", out);
        fputc('}', out);
    }
    char v[1024];
    gs_fleet_verdict(v, sizeof v, f);
    fputs("],\n\"verdict\":", out);
    gs_json_str(out, v);
    fputc('}', out);
}
