/*
 * The job mix a scenario replays: its trace file, or the inline generator
 * ([jobs] kinds, count, partitions, interarrival), seeded from the scenario
 * seed so the same scenario and seed always give the same arrivals.
 */
#include <string.h>

#include "scn_internal.h"
#include "trace.h"

/* Production circuit size per kind (log2 constraints per partition, DOMAIN.md). */
static uint32_t production_log(gs_job_kind k)
{
    switch (k) {
    case GS_KIND_WINNING_POST: return 19;
    case GS_KIND_WINDOW_POST:
    case GS_KIND_SNAP_DEALS:
    case GS_KIND_POREP_C2: return 27;
    default: return 0;
    }
}

static gs_status generate(gs_trace *out, const gs_scenario *s, gs_err *err)
{
    gs_rng rng;
    /* A stream of its own: arrivals never share draws with injections. */
    gs_rng_seed(&rng, s->engine.seed ^ 0x6a6f626d69780000ULL);
    double total = 0;
    for (int k = 0; k < GS_KIND_COUNT; k++)
        total += s->mix.weight[k];
    double t = 0;
    const char *base = strrchr(s->path, '/');
    if (snprintf(out->generator, sizeof out->generator, "inline generator of %.180s (seed %llu)",
                 base ? base + 1 : s->path[0] ? s->path : "a scenario",
                 (unsigned long long)s->engine.seed) < 0)
        out->generator[0] = '\0';
    for (uint32_t i = 0; i < s->mix.count; i++) {
        double u = gs_rng_unit(&rng) * total, acc = 0;
        int kind = GS_KIND_COUNT - 1;
        for (int k = 0; k < GS_KIND_COUNT; k++) {
            acc += s->mix.weight[k];
            if (s->mix.weight[k] > 0 && u < acc) {
                kind = k;
                break;
            }
        }
        while (kind > 0 && s->mix.weight[kind] <= 0)
            kind--;
        gs_arrival a = {
            .t_ns = (int64_t)(t * 1e9),
            .id = i + 1,
            .kind = (gs_job_kind)kind,
            .partitions = s->mix.partitions[kind] ? s->mix.partitions[kind]
                                                  : gs_job_kind_partitions((gs_job_kind)kind),
            .priority = gs_job_kind_priority((gs_job_kind)kind),
            .size_class = production_log((gs_job_kind)kind),
        };
        if (gs_trace_push(out, &a) != GS_OK)
            return GS_ERR(err, GS_ERR_NOMEM, "job mix", "out of memory");
        double gap = gs_dist_sample(&s->mix.interarrival, &rng);
        t += gap > 0 ? gap : 0;
    }
    return GS_OK;
}

gs_status gs_scenario_arrivals(gs_trace *out, const gs_scenario *s, gs_err *err)
{
    memset(out, 0, sizeof *out);
    gs_status st = s->trace[0] ? gs_trace_read(out, s->trace, err) : generate(out, s, err);
    if (st != GS_OK) {
        gs_trace_free(out);
        return st;
    }
    if (s->limit && out->n > s->limit)
        out->n = s->limit;
    /* [jobs] partitions overrides a trace's partition counts per kind too
     * (the same mix at a CI-sized partition count). */
    for (size_t i = 0; i < out->n; i++)
        if (s->mix.partitions[out->a[i].kind])
            out->a[i].partitions = s->mix.partitions[out->a[i].kind];
    return GS_OK;
}

uint32_t gs_scenario_log_size(const gs_scenario *s, const gs_arrival *a)
{
    int log = (int)s->size_map[a->kind] + s->size_shift;
    return (uint32_t)(log < 9 ? 9 : log > 28 ? 28 : log);
}
