/*
 * The fit as a table (gapscope model fit) and as model.json (format in
 * MODEL.md).
 */
#include <stdio.h>
#include <string.h>

#include "../common/json.h"
#include "../common/outfile.h"
#include "../prover/engine/engine.h"
#include "model_int.h"

/* ---- printing ------------------------------------------------------------ */

const char *gs_mi_kind_name(int k)
{
    const char *n = k >= 0 ? gs_job_kind_name((gs_job_kind)k) : NULL;
    return n ? n : "any";
}

void gs_model_print(const gs_model *m, FILE *f)
{
    fprintf(f, "model of %s\n", m->source);
    const char *rev = gs_model_meta(m, "build.git_rev"), *sha = gs_model_meta(m, "build.binary_sha256");
    fprintf(f, "build %s (binary sha256 %.16s), host %s, %d cores, %d device%s; CPU demand %s\n",
            rev ? rev : "unknown", sha ? sha : "unknown",
            gs_model_meta(m, "host.cpu") ? gs_model_meta(m, "host.cpu") : "unknown", m->cores,
            m->devices, m->devices == 1 ? "" : "s", m->cpu_measured ? "measured (cpu_ns)" : "inferred");
    fprintf(f, "%-18s %-6s %-12s %4s %5s %11s %11s %11s %7s %8s %8s\n", "stage", "where", "kind", "log",
            "n", "median", "p10", "p90", "spread", "fit_err", "ps_err");
    for (int i = 0; i < m->n; i++) {
        const stage *s = &m->st[i];
        char name[48];
        snprintf(name, sizeof name, "%s%s%s", s->name, s->pageable ? "/pageable" : "",
                 s->emergent ? "*" : "");
        for (int j = 0; j < s->n_pt; j++) {
            const point *p = &s->pt[j];
            const char *unit = s->where == GS_WHERE_CPU ? "cs" : "s";
            double spread = p->median > 0 ? (p->p90 - p->p10) / (2 * p->median) : 0;
            char fe[16] = "-", pe[16] = "-";
            if (s->has_fit)
                snprintf(fe, sizeof fe, "%.1f%%", 100 * s->fit_err);
            if (s->ps_err >= 0)
                snprintf(pe, sizeof pe, "%.1f%%", 100 * s->ps_err);
            fprintf(f, "%-18s %-6s %-12s %4u %5zu %9.4f %-2s %9.4f %-2s %9.4f %-2s %6.1f%% %8s %8s\n",
                    name, gs_model_where_name(s->where), gs_mi_kind_name(p->kind), p->log, p->n, p->median, unit,
                    p->p10, unit, p->p90, unit, 100 * spread, fe, pe);
        }
    }
    fprintf(f, "units: s = seconds, cs = core-seconds (CPU demand); per-job stages are per partition;\n"
               "spread = (p90 - p10) / 2 median; fit_err = size fit's RMS error (2+ sizes);\n"
               "ps_err = median |inferred / measured CPU - 1| (processor sharing against cpu_ns);\n"
               "* = emergent (observed, not an input of predictions)\n");
    gs_model_print_speed(m, f);
    if (m->spin > 0)
        fprintf(f, "GPU workers spin %.0f%% of a core while their device works\n", 100 * m->spin);
    if (m->slice_s > 0)
        fprintf(f, "a staging copy beyond the cores waits %.2f ms more (one scheduler slice, assumed)\n",
                1e3 * m->slice_s);
    if (m->notes[0])
        fprintf(f, "assumed:\n%s", m->notes);
}

gs_status gs_model_write_json(const gs_model *m, const char *path, gs_err *err)
{
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK)
        return st;
    FILE *f = o.f;
    fprintf(f, "{\"format\":\"gapscope-model\",\"version\":1,\n\"source\":");
    gs_json_str(f, m->source);
    static const char *const keys[] = {"gapscope.version", "build.git_rev", "build.binary_sha256",
                                       "host.cpu", "host.cores", "host.threads", "host.mem_bytes",
                                       "host.cpu_mhz", "backend", "device.0.name",
                                       "scenario.path", "scenario.engine.g2"};
    fprintf(f, ",\n\"capture\":{");
    int first = 1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = gs_model_meta(m, keys[i]);
        if (!v)
            continue;
        fprintf(f, "%s", first ? "" : ",");
        gs_json_str(f, keys[i]);
        fputc(':', f);
        gs_json_str(f, v);
        first = 0;
    }
    fprintf(f, "},\n\"machine\":{\"cores\":%d,\"devices\":%d,\"gpu_worker_spin\":%.6g,\"staging_slice_s\":%.6g},\n",
            m->cores, m->devices, m->spin, m->slice_s);
    fprintf(f, "\"cpu_demand\":\"%s\",\n\"assumed\":", m->cpu_measured ? "measured" : "inferred");
    gs_json_str(f, m->notes);
    fprintf(f, ",\n\"stages\":[");
    for (int i = 0; i < m->n; i++) {
        const stage *s = &m->st[i];
        fprintf(f, "%s\n {\"name\":", i ? "," : "");
        gs_json_str(f, s->name);
        fprintf(f, ",\"where\":\"%s\",\"unit\":\"%s\",\"pageable\":%s,\"threads\":%d,\"pool\":%s,"
                   "\"per_partition_of_job\":%s,\"emergent\":%s,\"cpu_measured\":%d,\"cpu_inferred\":%d",
                gs_model_where_name(s->where), s->where == GS_WHERE_CPU ? "core_seconds" : "seconds",
                s->pageable ? "true" : "false", s->threads, s->pool ? "true" : "false",
                s->per_job ? "true" : "false", s->emergent ? "true" : "false", s->n_measured,
                s->n_inferred);
        if (s->has_fit)
            fprintf(f, ",\"fit\":{\"a\":%.9g,\"b\":%.9g,\"rms_rel_err\":%.6g}", s->a, s->b, s->fit_err);
        if (s->ps_err >= 0)
            fprintf(f, ",\"ps_err\":%.6g", s->ps_err);
        fprintf(f, ",\"points\":[");
        for (int j = 0; j < s->n_pt; j++) {
            const point *p = &s->pt[j];
            fprintf(f, "%s{\"kind\":\"%s\",\"log\":%u,\"n\":%zu,\"median\":%.9g,\"p10\":%.9g,\"p90\":%.9g,"
                       "\"wall_median\":%.9g,\"instances\":[",
                    j ? "," : "", gs_mi_kind_name(p->kind), p->log, p->n, p->median, p->p10, p->p90, p->wall_median);
            for (size_t k = 0; k < p->n; k++)
                fprintf(f, "%s[%lld,%d,%.9g]", k ? "," : "", (long long)p->in[k].job, (int)p->in[k].part,
                        p->in[k].v);
            fprintf(f, "]}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n]}\n");
    return gs_out_close(&o, !ferror(f), err);
}
