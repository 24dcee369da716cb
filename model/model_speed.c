/*
 * Host contention: how much slower each CPU stage runs as more threads
 * want the cores (contract in model.h and model_int.h; method in
 * MODEL.md, "Host contention").
 *
 * Processor sharing gives each of T runnable threads min(1, C/T) of a
 * core; on a real host a core-second also buys less work when many
 * threads run (memory bandwidth, SMT siblings, the clock under all-core
 * load).  Per speed class (synth, host_prep, the CPU G2 MSM, other) the
 * model keeps speed(T), the work one core-second does with T runnable
 * threads relative to one thread alone, and the virtual clock applies it
 * (gs_vt_cfg.speed, the processor-sharing rule's extension in
 * common/pshare.h): a step of w core-seconds of solo work at T runnable
 * threads takes w / speed(T) core-seconds.
 *
 * From the capture.  Every measured CPU instance (cpu_ns) has its own T
 * (the processor-sharing inference's runnable threads, averaged over its
 * span).  log cpu_i = a_lane + log g(T_i), g(T) = 1 + beta (T - 1) / C,
 * a_lane a per-thread constant (vCPUs differ in speed, persistently per
 * thread: unequal cores), fitted by least squares over a grid of beta.
 * The capture tells when T spans at least C/3 between its 10th and 90th
 * percentiles, there are 12 instances or more, and beta's standard error
 * is under 0.25; beta < 0 (faster under load) is taken as 0.  The lane
 * constants, relative to their mean, are the class's per-thread speed
 * factors (the interval draws from them).
 *
 * From a machine profile (gapscope calibrate): a table of (T, speed)
 * measured with T threads of the stage's real work, interpolated
 * linearly (held flat outside).  Used for every class the capture cannot
 * tell.  Else speed = 1 (ideal sharing), said in the notes.
 *
 * Each instance's demand is divided by g(T_i) (model.c, summarize): the
 * model stores solo-speed work, so a prediction at the captured T
 * reproduces the capture and one at another T moves by g.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "../common/grow.h"
#include "../common/stats.h"

/* The step each class but the last stands for; its name is the class's. */
static const gs_vocab class_steps[] = {GS_V_SYNTH, GS_V_HOST_PREP, GS_V_MSM_B2};
_Static_assert(sizeof class_steps / sizeof class_steps[0] == GS_SPEED_OTHER, "speed classes");

const char *gs_model_speed_class_name(int cls)
{
    if (cls == GS_SPEED_OTHER)
        return "other";
    if (cls == GS_SPEED_STAGING)
        return "staging";
    return (unsigned)cls < GS_SPEED_OTHER ? gs_vocab_name(class_steps[cls]) : "?";
}

int gs_mi_speed_class(const char *name)
{
    for (int k = 0; k < GS_SPEED_OTHER; k++)
        if (gs_vocab_is(name, class_steps[k]))
            return k;
    return GS_SPEED_OTHER;
}

/* y at x = t over n >= 1 points (x increasing): linear between them, held
 * flat outside. */
static double lerp_held(const double *x, const double *y, int n, double t)
{
    if (t <= x[0])
        return y[0];
    for (int i = 1; i < n; i++)
        if (t <= x[i]) {
            double f = (t - x[i - 1]) / (x[i] - x[i - 1]);
            return y[i - 1] + f * (y[i] - y[i - 1]);
        }
    return y[n - 1];
}

static double table_at(const speed_curve *c, double t)
{
    return c->n_pts == 0 ? 1.0 : lerp_held(c->pt_t, c->pt_s, c->n_pts, t);
}

double gs_mi_slowdown(const gs_model *m, int cls, double t)
{
    if ((unsigned)cls >= GS_MODEL_SPEED_CLASSES)
        return 1.0;
    const speed_curve *c = &m->speed[cls];
    if (t < 1)
        t = 1;
    double cores = m->cores > 0 ? m->cores : 1;
    /* Staging (model_staging.c): nothing below the cores. */
    if (c->source == GS_SPEED_SRC_CAPTURE && cls == GS_SPEED_STAGING)
        return 1.0 + c->beta * (t > cores ? t - cores : 0) / cores;
    if (c->source == GS_SPEED_SRC_CAPTURE)
        return 1.0 + c->beta * (t - 1.0) / cores;
    if (c->source == GS_SPEED_SRC_PROFILE) {
        double s = table_at(c, t) / table_at(c, 1.0);
        return s > 0 ? 1.0 / s : 1.0;
    }
    return 1.0;
}

int gs_mi_map_steady(const gs_profile *p)
{
    return p->n_cpus >= 2 && p->cpu_drift < GS_MAP_STEADY * gs_profile_cpu_spread(p, 0);
}

/* The map's speed of vCPU c relative to the mean vCPU's, with the
 * runnable threads' share w of the cores: alone at w = 0, all busy at 1. */
static double vcpu_speed(const gs_profile *p, int c, double w)
{
    return (1 - w) * p->cpu_solo[c] + w * p->cpu_loaded[c];
}

/* E[1/v] over the host's vCPUs at share w: a unit of work's mean time on
 * a vCPU drawn at random, in units of the mean vCPU's. */
static double mean_inv_speed(const gs_profile *p, double w)
{
    double e = 0;
    for (int c = 0; c < p->n_cpus; c++)
        e += 1.0 / vcpu_speed(p, c, w) / p->n_cpus;
    return e;
}

double gs_mi_placement(gs_model *m, const act *a)
{
    const gs_profile *p = &m->prof_data;
    if (!m->profile[0] || !gs_mi_map_steady(p) || a->cls != GS_SPEED_SYNTH || a->vcpu0 < 0 || a->vcpu1 < 0 ||
        a->vcpu0 >= p->n_cpus || a->vcpu1 >= p->n_cpus || p->cores != m->cores)
        return 1.0;
    double secs = (double)(a->t1 - a->t0) * 1e-9, t = secs > 0 ? a->tload / secs : 1;
    double w = p->n_cpus > 1 ? (t - 1) / (p->n_cpus - 1) : 0;
    w = w < 0 ? 0 : w > 1 ? 1 : w;
    /* The work W = demand x v (the vCPU's speed; its two ends averaged:
     * a thread that moved ran on both); on a vCPU drawn at random it
     * takes W x E[1/v] on average. */
    double v = 0.5 * (vcpu_speed(p, a->vcpu0, w) + vcpu_speed(p, a->vcpu1, w));
    double f = v * mean_inv_speed(p, w);
    m->place_f = (m->place_f * m->placed + f) / (m->placed + 1);
    m->placed++;
    return f;
}

double gs_model_speed(const gs_model *m, int cls, double runnable)
{
    return 1.0 / gs_mi_slowdown(m, cls, runnable);
}

/* Residual sum of squares of the lane-effects fit at beta; fills the
 * lane means (of log cpu - log g) when lm is not NULL. */
typedef struct obs {
    double t, y;    /* runnable threads, log cpu */
    int lane;       /* index into the class's lanes */
} obs;

static double rss(const obs *o, int n, int n_lane, double beta, double cores, double *lm)
{
    double sum[GS_SPEED_LANES] = {0}, cnt[GS_SPEED_LANES] = {0};
    for (int i = 0; i < n; i++) {
        sum[o[i].lane] += o[i].y - log1p(beta * (o[i].t - 1) / cores);
        cnt[o[i].lane] += 1;
    }
    double ss = 0;
    for (int i = 0; i < n; i++) {
        double r = o[i].y - log1p(beta * (o[i].t - 1) / cores) - sum[o[i].lane] / cnt[o[i].lane];
        ss += r * r;
    }
    for (int l = 0; lm && l < n_lane; l++)
        lm[l] = cnt[l] > 0 ? sum[l] / cnt[l] : 0;
    return ss;
}

/* Fits class k from the measured acts; 1 when the capture tells. */
static int fit_class(fitctx *c, int k, speed_curve *out)
{
    gs_model *m = c->m;
    double cores = m->cores > 0 ? m->cores : 1;
    obs *o = malloc((c->n_acts ? c->n_acts : 1) * sizeof *o);
    double *ts = malloc((c->n_acts ? c->n_acts : 1) * sizeof *ts);
    int lanes[GS_SPEED_LANES], n_lane = 0, n = 0, ok = 0;
    if (!o || !ts)
        goto out;
    for (size_t i = 0; i < c->n_acts; i++) {
        const act *a = &c->acts[i];
        if (a->cls != k || !a->measured || a->cpu <= 0 || a->t1 <= a->t0)
            continue;
        int l = 0;
        /* Synthesis and host prep: one constant per thread (its vCPU's
         * speed); the others (a pool task's finalizer is one of many, the
         * short steps differ by stage): one per stage. */
        int lane = k == GS_SPEED_SYNTH || k == GS_SPEED_HOST_PREP ? a->lane : -2 - a->stage;
        while (l < n_lane && lanes[l] != lane)
            l++;
        if (l == n_lane) {
            if (n_lane == GS_SPEED_LANES)
                continue;
            lanes[n_lane++] = lane;
        }
        o[n] = (obs){.t = a->tload / ((double)(a->t1 - a->t0) * 1e-9), .y = log(a->cpu), .lane = l};
        ts[n] = o[n].t;
        n++;
    }
    if (n == 0)
        goto out;
    qsort(ts, (size_t)n, sizeof *ts, gs_cmp_double);
    out->t_lo = gs_mi_pct(ts, (size_t)n, 0.1);
    out->t_hi = gs_mi_pct(ts, (size_t)n, 0.9);
    double best = INFINITY, beta = 0;
    for (int g = -50; g <= 300; g++) {
        double b = g / 100.0, r = rss(o, n, n_lane, b, cores, NULL);
        if (r < best) {
            best = r;
            beta = b;
        }
    }
    /* Standard error from the curvature of the residual sum at beta. */
    double h = 0.01, r0 = best, rp = rss(o, n, n_lane, beta + h, cores, NULL),
           rm = rss(o, n, n_lane, beta - h, cores, NULL);
    double curv = (rp - 2 * r0 + rm) / (h * h);
    int dof = n - n_lane - 1;
    double s2 = dof > 0 ? r0 / dof : INFINITY;
    out->beta_se = curv > 0 ? sqrt(2 * s2 / curv) : INFINITY;
    out->beta = beta < 0 ? 0 : beta;
    double lm[GS_SPEED_LANES];
    rss(o, n, n_lane, beta, cores, lm);
    double mean = 0;
    for (int l = 0; l < n_lane; l++)
        mean += lm[l] / n_lane;
    out->n_lane = 0;
    double v = 0;
    for (int l = 0; l < n_lane && lanes[l] >= -1; l++) {
        /* Work per second is the inverse of CPU time per partition. */
        out->lane_f[out->n_lane++] = exp(mean - lm[l]);
        v += (out->lane_f[out->n_lane - 1] - 1) * (out->lane_f[out->n_lane - 1] - 1);
    }
    out->lane_cv = out->n_lane > 1 ? sqrt(v / (out->n_lane - 1)) : 0;
    ok = n >= 12 && out->t_hi - out->t_lo >= cores / 3 && out->beta_se < 0.25;
out:
    free(o);
    free(ts);
    return ok;
}

void gs_mi_speed_fit(fitctx *c)
{
    gs_model *m = c->m;
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++) {
        speed_curve fit = {0};
        int tells = fit_class(c, k, &fit);
        speed_curve *s = &m->speed[k];
        char what[200];
        if (tells) {
            *s = fit;
            s->source = GS_SPEED_SRC_CAPTURE;
            continue;
        }
        if (m->prof[k].source == GS_SPEED_SRC_PROFILE) {
            *s = m->prof[k];
            s->t_lo = fit.t_lo;
            s->t_hi = fit.t_hi;
            if (fit.n_lane > 1) {
                memcpy(s->lane_f, fit.lane_f, sizeof s->lane_f);
                s->n_lane = fit.n_lane;
            }
            continue;
        }
        *s = fit;
        s->source = GS_SPEED_SRC_NONE;
        s->beta = 0;
        if (fit.t_hi <= 0)
            continue; /* the stage did not run */
        snprintf(what, sizeof what, "%s (runnable threads %.1f..%.1f in the capture)", gs_model_speed_class_name(k),
                 fit.t_lo, fit.t_hi);
        gs_mi_note(m, "Contention of %s: the capture cannot tell how it slows with more threads and %s: "
                      "ideal sharing.\n",
                   what, m->profile[0] ? "the machine profile does not time it"
                                       : "no machine profile was given (gapscope calibrate, --profile)");
    }
}

/* ---- the profile's level against the capture's ------------------------- */

/* The profile's CPU per unit at t runnable threads: linear between its
 * levels, held flat outside; 0 without. */
static double profile_cpu_at(const gs_profile_class *c, double t)
{
    return c->n <= 0 || !(c->cpu_s[0] > 0) ? 0 : lerp_held(c->threads, c->cpu_s, c->n, t);
}

void gs_mi_profile_level(gs_model *m, const fitctx *c)
{
    m->level = NAN;
    const gs_profile_class *pc = &m->prof_data.cls[GS_SPEED_SYNTH];
    if (!m->profile[0] || pc->n <= 0 || !(pc->cpu_s[0] > 0))
        return;
    /* Each measured synthesis step of the profile's size (calibrate's unit
     * is one synthesis of the engine's circuit at 2^log: one partition),
     * against the profile at the runnable threads it met. */
    size_t n = 0, cap_r = 0, cap_cs = 0;
    double *r = NULL, *cs = NULL, tsum = 0, psum = 0;
    for (int i = 0; i < m->n; i++) {
        const stage *s = &m->st[i];
        if (s->where != GS_WHERE_CPU || s->speed_class != GS_SPEED_SYNTH)
            continue;
        for (int j = 0; j < s->n_pt; j++) {
            const point *p = &s->pt[j];
            if (p->log != m->prof_data.log)
                continue;
            for (size_t k = 0; k < p->n; k++) {
                const inst *x = &p->in[k];
                if (x->act < 0)
                    continue;
                const act *a = &c->acts[x->act];
                double secs = (double)(a->t1 - a->t0) * 1e-9, t = secs > 0 ? a->tload / secs : 1;
                double pcpu = profile_cpu_at(pc, t);
                if (!a->measured || !(a->cpu > 0) || !(pcpu > 0))
                    continue;
                if (!gs_grow(&r, &cap_r, n, sizeof *r, 64) || !gs_grow(&cs, &cap_cs, n, sizeof *cs, 64)) {
                    free(r);
                    free(cs);
                    return;
                }
                r[n] = a->cpu / pcpu;
                cs[n++] = a->cpu;
                tsum += t;
                psum += pcpu;
            }
        }
    }
    /* For the note: the capture's median CPU, the profile's mean at the
     * steps' threads, and those threads' mean. */
    double cap_s = n >= 3 ? gs_median_sort(cs, n) : 0;
    if (n >= 3)
        m->level = gs_median_sort(r, n) - 1;
    free(r);
    free(cs);
    if (n >= 3 && fabs(m->level) > GS_MODEL_PROFILE_LEVEL) {
        char a[200];
        snprintf(a, sizeof a, "the capture's %zu synthesis steps used %.0f%% %s CPU per partition than the profile "
                 "at the runnable threads each met (median; %.3f s against %.3f s at %.1f threads)",
                 n, 100 * fabs(m->level), m->level > 0 ? "more" : "less", cap_s, psum / (double)n,
                 tsum / (double)n);
        gs_mi_note(m, "Profile level: %s: the host's speed moved between calibrate and the capture (a shared "
                      "host's other load), so the profile's curves may hold that move too, and a change of thread "
                      "counts or of the CPU G2 MSM carries it (of the 16 sets of round 3, 6 of the 9 beyond 10%% "
                      "had such a change off by more than 5 points, none of the 7 within). Calibrate beside the "
                      "capture (gapscope calibrate --capture DIR, just before it) and capture the base more than "
                      "once (predict C1 C2 C3 judges the mean)%s.\n",
                   a, "");
    }
}

double gs_model_profile_level(const gs_model *m) { return m->profile[0] ? m->level : NAN; }

/* ---- replicates --------------------------------------------------------- */

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
    *s = mix(*s + 0x9e3779b97f4a7c15ULL);
    return (double)(*s >> 11) * 0x1.0p-53;
}

/* The standard normal quantile (Acklam's rational approximation,
 * relative error < 1.2e-9), for stratified host draws. */
static double norm_q(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    if (p <= 0.02425 || p >= 1 - 0.02425) {
        double q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
        double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                   ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        return p < 0.5 ? x : -x;
    }
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

void gs_model_replicate(gs_model *m, uint64_t r, uint64_t n_reps, const int *threads, double host_sd)
{
    if (r == 0) {
        for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++)
            m->scale[k] = 1.0;
        m->draw = 0;
        return;
    }
    uint64_t s = mix(r * 0x2545f4914f6cdd1dULL);
    /* One host speed per replicate, shared by every class (the machine as
     * a whole runs faster or slower): replicate r of n at the normal
     * quantile 0.05 + 0.9 (r - 1) / (n - 1), so the replicates span the
     * host's 5th to 95th percentile evenly and their extremes bound a 90%
     * interval (utilization grows with the host's speed). */
    if (n_reps < r)
        n_reps = r;
    double q = n_reps > 1 ? 0.05 + 0.9 * (double)(r - 1) / (double)(n_reps - 1) : 0.5;
    double host = 1.0 + host_sd * norm_q(q);
    if (host < 0.5)
        host = 0.5;
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++) {
        const speed_curve *c = &m->speed[k];
        int n = threads && threads[k] > 0 ? threads[k] : 0;
        double f = 1.0;
        const gs_profile *p = &m->prof_data;
        if (n > 0 && k == GS_SPEED_SYNTH && m->placed > 0 && gs_mi_map_steady(p)) {
            /* Placed at the host's mean vCPU (gs_mi_placement): n
             * threads on vCPUs drawn from the map (the guest's scheduler
             * knows no vCPU from another), relative to that mean. */
            double w = p->n_cpus > 1 ? (double)(n - 1) / (p->n_cpus - 1) : 0;
            w = w > 1 ? 1 : w;
            double e = mean_inv_speed(p, w);
            f = 0;
            for (int i = 0; i < n; i++)
                f += e * vcpu_speed(p, (int)(unit(&s) * p->n_cpus) % p->n_cpus, w) / n;
        } else if (n > 0 && c->n_lane > 1) {
            /* The mean speed of n threads landing on the captured
             * threads' vCPUs, drawn with replacement. */
            f = 0;
            for (int i = 0; i < n; i++)
                f += c->lane_f[(int)(unit(&s) * c->n_lane) % c->n_lane] / n;
        }
        m->scale[k] = 1.0 / (f * host);
    }
    m->draw = 1;
}

double gs_model_host_spread(const gs_model *m)
{
    const speed_curve *c = &m->speed[GS_SPEED_SYNTH];
    return c->lane_cv;
}

double gs_model_profile_drift(const gs_model *m)
{
    return m->profile[0] && m->prof_data.n_cpus >= 2 ? m->prof_data.cpu_drift : -1;
}

int gs_model_profile_curves(gs_model *m, int use)
{
    const int from = use ? GS_SPEED_SRC_PROFILE_OFF : GS_SPEED_SRC_PROFILE,
              to = use ? GS_SPEED_SRC_PROFILE : GS_SPEED_SRC_PROFILE_OFF;
    int n = 0;
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++)
        if (m->speed[k].source == from) {
            m->speed[k].source = to;
            n++;
        }
    return n;
}

double gs_model_synth_staging_scale(const gs_model *m, int direct, int threads, int *measured)
{
    if (measured)
        *measured = 0;
    const char *cap = gs_model_meta(m, "scenario.engine.staging");
    int cap_direct = cap && !strcmp(cap, "direct");
    if (!cap || cap_direct == (direct != 0) || !m->profile[0] || m->prof_data.sru_n <= 0)
        return 1;
    const gs_profile *p = &m->prof_data;
    int best = 0;
    for (int i = 1; i < p->sru_n; i++)
        if (fabs(p->sru_synth[i] - threads) < fabs(p->sru_synth[best] - threads))
            best = i;
    double r = p->sru_ratio[best];
    if (!(r > 0))
        return 1;
    if (measured)
        *measured = 1;
    return direct ? r : 1 / r;
}

void gs_model_print_speed(const gs_model *m, FILE *f)
{
    static const char *const src[] = {"none (ideal sharing)", "capture", "profile"};
    fprintf(f, "host contention (speed with T runnable threads, 1 = one thread alone):\n");
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++) {
        const speed_curve *c = &m->speed[k];
        if (c->t_hi <= 0 && c->source != GS_SPEED_SRC_PROFILE)
            continue;
        fprintf(f, "  %-10s %-20s T %4.1f..%-4.1f speed at %d: %.2f, at %d: %.2f", gs_model_speed_class_name(k),
                src[c->source], c->t_lo, c->t_hi, m->cores / 2 > 1 ? m->cores / 2 : 1, gs_model_speed(m, k, m->cores / 2),
                m->cores, gs_model_speed(m, k, m->cores));
        if (c->source == GS_SPEED_SRC_CAPTURE || isfinite(c->beta_se))
            fprintf(f, "; capture fit beta %.2f +- %.2f", c->beta, isfinite(c->beta_se) ? c->beta_se : 0);
        if (c->n_lane > 1)
            fprintf(f, "; %d threads, speed spread %.0f%%", c->n_lane, 100 * c->lane_cv);
        fputc('\n', f);
    }
}
