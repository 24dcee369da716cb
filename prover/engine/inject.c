/*
 * Injection points: where a scenario adds labelled work to the pipeline.
 *
 * Draws.  Each occurrence (point, job id, partition) gets its own
 * generator, seeded from the point's seed, the point index, the job id and
 * the partition through splitmix64-style mixing, and always draws in the
 * same order (one uniform for the probability, then the delay's draws).
 * No generator is shared between threads, so neither thread timing nor the
 * order in which partitions reach a point can change a draw: two runs with
 * the same seeds inject the same delays at the same places.
 *
 * Delays are slept (the thread holds whatever it holds, e.g. the tracker
 * lock for tracker_hold) inside an INJECTED span "inj:<point>" whose args
 * carry the distribution, its parameters and the drawn delay.  A point set
 * to fail returns GS_ERR_INJECTED after its delay; the caller fails the
 * partition it was working on.
 *
 * Threads: called from any engine thread; reads the config only.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../common/clock.h"
#include "engine_int.h"

uint64_t gs_eng_mix(uint64_t a, uint64_t b)
{
    /* splitmix64 finalizer over a combined word (Steele, Lea, Flood 2014). */
    uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A drawn delay: never negative, never NaN or infinite. */
static double dist_draw(const gs_dist *d, gs_rng *r)
{
    double v = gs_dist_sample(d, r);
    return v > 0.0 && isfinite(v) ? v : 0.0;
}

uint64_t gs_injection_seed_auto(uint64_t seed, gs_inj_point p)
{
    /* Golden-ratio stride: points stay apart, and so do nearby seeds. */
    return seed * 0x9e3779b97f4a7c15ULL + (uint64_t)(p + 1) * 0xd1b54a32d192ed03ULL;
}

int gs_injection_draw(const gs_injection *inj, gs_inj_point p, uint64_t job,
                      int32_t part, double *delay_s)
{
    gs_rng r;
    *delay_s = 0.0;
    if (!inj || !inj->enabled)
        return 0;
    uint64_t s = gs_eng_mix(inj->seed, (uint64_t)p + 1);
    s = gs_eng_mix(s, job);
    s = gs_eng_mix(s, (uint64_t)(int64_t)part);
    gs_rng_seed(&r, s);
    double u = gs_rng_unit(&r);
    double d = dist_draw(&inj->dist, &r);
    if (!(u < inj->probability))
        return 0;
    *delay_s = d;
    return 1;
}

gs_status gs_inject(struct gs_engine *e, gs_inj_point p, gs_tl_lane *lane,
                    const gs_job_rec *j, int32_t part, const char *extra, gs_err *err)
{
    const gs_injection *inj = &e->cfg.inj[p];
    double delay;
    if (!inj->enabled || !gs_injection_draw(inj, p, j ? j->spec.id : 0, part, &delay))
        return GS_OK;
    int64_t ns = (int64_t)llround(delay * 1e9);
    int64_t t0 = gs_now_ns();
    if (ns > 0)
        gs_sleep_ns(ns);
    int64_t t1 = gs_now_ns();
    if (lane) {
        char name[32], args[320];
        snprintf(name, sizeof name, "inj:%s", gs_inj_point_name(p));
        gs_dist_args(args, sizeof args, &inj->dist);
        size_t n = strlen(args);
        snprintf(args + n, sizeof args - n, ";p=%.6g;delay_s=%.9f%s%s%s", inj->probability,
                 delay, inj->fail ? ";fail=1" : "", extra ? ";" : "", extra ? extra : "");
        gs_tl_span(lane, GS_SPAN_INJECTED, name, j ? gs_jid(j) : -1, part, t0, t1,
                   GS_SPAN_F_INJECTED | (inj->fail ? GS_SPAN_F_FAILED : 0), args);
    }
    if (inj->fail)
        return GS_ERR(err, GS_ERR_INJECTED, "injection",
                      "point %s failed job %llu partition %d on purpose",
                      gs_inj_point_name(p), (unsigned long long)(j ? j->spec.id : 0), part);
    return GS_OK;
}
