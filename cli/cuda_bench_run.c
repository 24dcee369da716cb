/*
 * gapscope cuda-bench, the measurements (cuda_bench.h): each calls the
 * CUDA backend's bench interface (prover/cuda/bench.h), prints one table
 * line per measurement (median of the repetitions) and records every
 * repetition for the Google Benchmark JSON (names in cmd_cuda_bench.c).
 * The sweeps (--h2d's copy threads, --variants' FV/MINB) set the knob they
 * sweep for each pass and put it back after.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/json.h"
#include "../common/outfile.h"
#include "../prover/cuda/knobs.h"
#include "../prover/groth16/groth16.h"
#include "cuda_bench.h"
#include "../common/stats.h"

/* Every timed repetition, for --json. */
typedef struct {
    char name[96];
    const char *unit;          /* "ms", or "ns" for the field figures */
    int n;
    double v[GS_CU_BENCH_MAX_REPS];
} bench_rec;
static bench_rec *recs;
static size_t n_recs, cap_recs;
static FILE *out; /* the table: stdout, or stderr when the JSON goes to stdout */

/* Records n values under a printf name (out of memory: the table still has
 * the figure, the JSON misses it). */
static bench_rec *rec_add(const double *v, int n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bench_rec *rec_add(const double *v, int n, const char *fmt, ...)
{
    if (!gs_grow(&recs, &cap_recs, n_recs, sizeof *recs, 64))
        return NULL;
    bench_rec *r = &recs[n_recs++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->name, sizeof r->name, fmt, ap);
    va_end(ap);
    r->unit = "ms";
    r->n = n < GS_CU_BENCH_MAX_REPS ? n : GS_CU_BENCH_MAX_REPS;
    memcpy(r->v, v, (size_t)r->n * sizeof *v);
    return r;
}

static double median(const double *v, int n)
{
    double s[GS_CU_BENCH_MAX_REPS];
    memcpy(s, v, (size_t)n * sizeof *v);
    return gs_median_sort(s, (size_t)n);
}

#define TRY(x) do { if ((st = (x)) != GS_OK) goto fail; } while (0)

int gs_cuda_bench_parse_sets(gs_cuda_bench_set *out, const char *text, char *why, size_t len)
{
    int n = 0;
    for (const char *p = text;;) {
        size_t sl = strcspn(p, ";");
        if (n == GS_CUDA_BENCH_MAX_SETS) {
            snprintf(why, len, "more than %d sets", GS_CUDA_BENCH_MAX_SETS);
            return -1;
        }
        gs_cuda_bench_set *st = &out[n++];
        memset(st, 0, sizeof *st);
        if (sl == 0 || sl >= sizeof st->tag) {
            snprintf(why, len, "set %d is %s", n, sl ? "too long" : "empty (write 'default')");
            return -1;
        }
        snprintf(st->tag, sizeof st->tag, "%.*s", (int)sl, p);
        if (strcmp(st->tag, "default") != 0) {
            for (const char *q = st->tag; *q;) {
                size_t il = strcspn(q, ","), kl = strcspn(q, "=");
                char key[48], val[32];
                int k, v;
                if (kl >= il || kl >= sizeof key || il - kl - 1 >= sizeof val || st->n == GS_CUDA_BENCH_SET_KNOBS) {
                    snprintf(why, len, "'%.*s' in set %d: expected KEY=VALUE (at most %d)", (int)il, q, n,
                             GS_CUDA_BENCH_SET_KNOBS);
                    return -1;
                }
                snprintf(key, sizeof key, "%.*s", (int)kl, q);
                snprintf(val, sizeof val, "%.*s", (int)(il - kl - 1), q + kl + 1);
                if ((k = gs_cu_knob_find(key)) < 0) {
                    snprintf(why, len, "set %d: no knob '%s'", n, key);
                    return -1;
                }
                if (gs_cu_knob_def_of((gs_cu_knob_id)k)->flags & GS_CU_KF_ONCE) {
                    snprintf(why, len, "set %d: the knob %s is read once (at load_pk or context creation), not "
                                       "per run", n, key);
                    return -1;
                }
                if (!gs_cu_knob_parse((gs_cu_knob_id)k, val, &v)) {
                    char want[96];
                    gs_cu_knob_expects((gs_cu_knob_id)k, want, sizeof want);
                    snprintf(why, len, "set %d: %s=%s: expected %s", n, key, val, want);
                    return -1;
                }
                st->knob[st->n] = k;
                st->value[st->n++] = v;
                q += il;
                if (*q == ',') q++;
            }
        }
        p += sl;
        if (!*p) break;
        p++;
    }
    return n;
}

/* The passes of one measurement: each --sets set, or one pass as the flags
 * left the knobs. */
static int set_count(const gs_cuda_bench_opts *o) { return o->nsets ? o->nsets : 1; }

/* Puts set i's knobs in force (their configured values before it in
 * saved[]) and its "@tag" (or "") in at. */
static void set_apply(const gs_cuda_bench_opts *o, int i, int *saved, char *at, size_t len)
{
    at[0] = 0;
    if (!o->nsets) return;
    const gs_cuda_bench_set *st = &o->sets[i];
    for (int j = 0; j < st->n; j++) {
        saved[j] = gs_cu_knob((gs_cu_knob_id)st->knob[j]);
        gs_cu_knob_set((gs_cu_knob_id)st->knob[j], st->value[j]);
    }
    snprintf(at, len, "@%s", st->tag);
}

static void set_restore(const gs_cuda_bench_opts *o, int i, const int *saved)
{
    if (!o->nsets) return;
    const gs_cuda_bench_set *st = &o->sets[i];
    for (int j = st->n - 1; j >= 0; j--) gs_cu_knob_set((gs_cu_knob_id)st->knob[j], saved[j]);
}

static gs_status run_field(gs_cu_bench *b, const gs_cuda_bench_opts *o, gs_err *err)
{
    gs_status st = GS_OK;
    double ns[GS_CU_BENCH_FIELD_KINDS][GS_CU_BENCH_MAX_REPS];
    for (int r = 0; r < o->reps; r++)
        for (int k = 0; k < GS_CU_BENCH_FIELD_KINDS; k++) TRY(gs_cu_bench_field(b, k, &ns[k][r], err));
    for (int k = 0; k < GS_CU_BENCH_FIELD_KINDS; k++) {
        bench_rec *rp = rec_add(ns[k], o->reps, "cuda/field/%s", gs_cu_bench_field_name(k));
        if (rp) rp->unit = "ns";
    }
    double g[GS_CU_BENCH_FIELD_KINDS];
    for (int k = 0; k < GS_CU_BENCH_FIELD_KINDS; k++) g[k] = 1 / median(ns[k], o->reps);
    fprintf(out, "field  Fp mont_mul %.2f G/s, Fr mont_mul %.2f G/s (dependent chains, whole chip, "
                 "median of %d)\n", g[0], g[1], o->reps);
    fprintf(out, "field  Fp sqr as mul %.2f G/s, sqr %.2f G/s, lazy mul %.2f G/s, lazy sqr %.2f G/s\n", g[2],
            g[3], g[4], g[5]);
    fprintf(out, "field  CIOS forms: Fp lazy mul %.2f G/s, Fr mul %.2f G/s\n", g[6], g[7]);
    fprintf(out, "field  Karatsuba (msm_kmul): Fp lazy mul %.2f G/s\n", g[8]);
    fprintf(out, "field  FP64 pipe (msm_fmul): Fp lazy mul %.2f G/s, integer + FP64 chains side by side %.2f G/s\n",
            g[9], g[10]);
    fflush(out);
fail:
    return st;
}

static gs_status run_ntt(gs_cu_bench *b, const gs_cuda_bench_opts *o, gs_err *err)
{
    gs_status st = GS_OK;
    double t[GS_CU_BENCH_MAX_REPS];
    for (unsigned k = o->lo[A_NTT]; k <= o->hi[A_NTT]; k++)
        for (int si = 0; si < set_count(o); si++) {
            int saved[GS_CUDA_BENCH_SET_KNOBS];
            char at[96];
            set_apply(o, si, saved, at, sizeof at);
            st = gs_cu_bench_ntt(b, k, o->hi[A_NTT], o->reps, t, err);
            set_restore(o, si, saved);
            if (st != GS_OK) goto fail;
            rec_add(t, o->reps, "cuda/ntt/%u%s", k, at);
            fprintf(out, "ntt    2^%-2u  forward, natural order   median %9.3f ms  (%d reps)%s\n", k,
                    median(t, o->reps), o->reps, at);
            fflush(out);
        }
fail:
    return st;
}

/* Staged with 4, 8, 12 and 16 copy threads (the knob set for each), then
 * pageable, then direct; the knob back as it was. */
static gs_status run_h2d(gs_cu_bench *b, const gs_cuda_bench_opts *o, gs_err *err)
{
    static const int threads[] = { 4, 8, 12, 16 };
    gs_status st = GS_OK;
    double t[GS_CU_BENCH_MAX_REPS], reg, unreg;
    double gb = (double)((size_t)1 << o->h2d_log) * 32 * 1e-9;
    int keep = gs_cu_knob(GS_CU_K_COPY_THREADS);
    for (int m = 0; m < 6; m++) {
        char name[32];
        gs_cu_h2d_path path = m < 4 ? GS_CU_H2D_STAGED : m == 4 ? GS_CU_H2D_PAGEABLE : GS_CU_H2D_DIRECT;
        if (m < 4) {
            gs_cu_knob_set(GS_CU_K_COPY_THREADS, threads[m]);
            snprintf(name, sizeof name, "staged_t%d", threads[m]);
        } else {
            snprintf(name, sizeof name, "%s", m == 4 ? "pageable" : "direct");
        }
        st = gs_cu_bench_h2d(b, (unsigned)o->h2d_log, path, o->reps, t, &reg, &unreg, err);
        gs_cu_knob_set(GS_CU_K_COPY_THREADS, keep);
        if (st != GS_OK) goto fail;
        if (path == GS_CU_H2D_DIRECT) {
            rec_add(&reg, 1, "cuda/h2d/%d/register", o->h2d_log);
            fprintf(out, "h2d    2^%-2d  %.2f GB registered (cudaHostRegister) in %.1f ms\n", o->h2d_log, gb, reg);
            rec_add(&unreg, 1, "cuda/h2d/%d/unregister", o->h2d_log);
            fprintf(out, "h2d    2^%-2d  unregistered in %.1f ms\n", o->h2d_log, unreg);
        }
        rec_add(t, o->reps, "cuda/h2d/%d/%s", o->h2d_log, name);
        double md = median(t, o->reps);
        fprintf(out, "h2d    2^%-2d  %-10s %.2f GB in %9.3f ms = %6.2f GB/s  (median of %d)\n", o->h2d_log, name,
                gb, md, gb * 1e3 / md, o->reps);
        fflush(out);
    }
fail:
    return st;
}

/* One MSM size under the knobs in force (at: the set's "@tag"): one pass
 * per --variants item (G1), else one; a check that differs counts in
 * *differs (the caller fails after the other passes ran). */
static gs_status msm_pass(gs_cu_bench *b, int g2, unsigned k, const char *tag, const char *at,
                          const gs_cuda_bench_opts *o, int *differs, gs_err *err)
{
    gs_status st = GS_OK;
    const char *name = g2 ? "msm_g2" : "msm_g1";
    const int check_max = g2 ? 18 : 20;
    const int keep_fv = gs_cu_knob(GS_CU_K_MSM_FV), keep_minb = gs_cu_knob(GS_CU_K_MSM_MINB);
    double td[GS_CU_BENCH_MAX_REPS], th[GS_CU_BENCH_MAX_REPS], tt[GS_CU_BENCH_MAX_REPS];
    const char *vp = !g2 ? o->variants : NULL;
    do {
        char vtag[32] = "";
        int fv, minb;
        if (vp) {
            gs_cuda_bench_next_variant(&vp, &fv, &minb); /* checked when parsed */
            gs_cu_knob_set(GS_CU_K_MSM_FV, fv);
            gs_cu_knob_set(GS_CU_K_MSM_MINB, minb);
            snprintf(vtag, sizeof vtag, "_fv%dm%d", fv, minb);
        }
        st = gs_cu_bench_msm(b, k, o->window, o->reps, td, th, err);
        gs_cu_knob_set(GS_CU_K_MSM_FV, keep_fv);
        gs_cu_knob_set(GS_CU_K_MSM_MINB, keep_minb);
        if (st != GS_OK) goto fail;
        for (int r = 0; r < o->reps; r++) tt[r] = td[r] + th[r];
        rec_add(tt, o->reps, "cuda/%s%s%s/%u%s", name, tag, vtag, k, at);
        rec_add(td, o->reps, "cuda/%s%s%s_device/%u%s", name, tag, vtag, k, at);
        double md = median(td, o->reps), mh = median(th, o->reps);
        fprintf(out, "%s%s%s 2^%-2u  device %9.3f ms + host combine %6.3f ms = %9.3f ms  (%d reps)%s", name, tag,
                vtag, k, md, mh, md + mh, o->reps, at);
        if (o->on[A_CHECK] && (int)k <= check_max) {
            int same = 0;
            TRY(gs_cu_bench_msm_check(b, k, &same, err));
            fprintf(out, "  check vs CPU: %s", same ? "equal" : "DIFFERENT");
            if (!same && !(*differs)++)
                GS_ERR(err, GS_ERR_INTERNAL, "cuda-bench", "%s%s 2^%u%s differs from the CPU", name, vtag, k, at);
        }
        fprintf(out, "\n");
        fflush(out);
    } while (vp && *vp);
fail:
    return st;
}

static gs_status run_msm(gs_cu_bench *b, int g2, const gs_cuda_bench_opts *o, gs_err *err)
{
    gs_status st = GS_OK;
    int id = g2 ? A_MSM2 : A_MSM, differs = 0;
    gs_cu_bench_msm_plan plan;
    char tag[32] = "";
    TRY(gs_cu_bench_msm_setup(b, g2, o->hi[id], g2 ? 0 : o->copies, o->window, &plan, err));
    if (!g2 && o->copies > 1) {
        fprintf(out, "msm_g1 copies: c = %u, t = %u, precomputed for 2^%u points in %.2f s\n", plan.c, plan.t,
                o->hi[id], plan.precompute_s);
        snprintf(tag, sizeof tag, "_c%ut%u", plan.c, plan.t);
    }
    for (unsigned k = o->lo[id]; k <= o->hi[id]; k++)
        for (int si = 0; si < set_count(o); si++) {
            int saved[GS_CUDA_BENCH_SET_KNOBS];
            char at[96];
            set_apply(o, si, saved, at, sizeof at);
            st = msm_pass(b, g2, k, tag, at, o, &differs, err);
            set_restore(o, si, saved);
            if (st != GS_OK) goto fail;
        }
    if (differs) st = GS_ERR_INTERNAL;
fail:
    return st;
}

/* One staging mode of --prove at size 2^k: the repetitions, their records
 * and lines (mode: 0 pinned, 1 pageable, 2 direct). */
static gs_status prove_mode(gs_cu_bench *b, unsigned k, int mode, const char *at, const gs_cuda_bench_opts *o,
                            gs_err *err)
{
    static const char *const stg_name[3] = { "pinned", "pageable", "direct" };
    gs_status st = GS_OK;
    const char *stg = stg_name[mode];
    double ts[GS_STAGE_MAX][GS_CU_BENCH_MAX_REPS], tst[GS_CU_BENCH_MAX_REPS], tfin[GS_CU_BENCH_MAX_REPS];
    const char *names[GS_STAGE_MAX] = { 0 };
    char last_tl[1024] = "", bl[16] = "";
    int nst = 0, pinned = 0;
    gs_cu_bench_proof pr;
    if (o->bool_pct) snprintf(bl, sizeof bl, "/bool%d", o->bool_pct);
    if (mode == 2) {
        double pin_ms;
        TRY(gs_cu_bench_pin(b, &pin_ms, err));
        pinned = 1;
        rec_add(&pin_ms, 1, "cuda/prove/%u%s/direct/pin%s", k, bl, at);
        fprintf(out, "prove  2^%-2u  direct: the assignment's %.2f GB page-locked "
                     "(gs_cuda_assignment_pin) in %.1f ms\n", k,
                (double)((size_t)1 << k) * 4 * 32 * 1e-9, pin_ms);
    }
    for (int r = -1; r < o->reps; r++) {
        TRY(gs_cu_bench_prove(b, mode == 1, o->on[A_G2DEV], r, &pr, err));
        if (r < 0) {
            /* B2's plan is made when a proof first runs the G2 MSM on the device. */
            static char shown[sizeof pr.plan];
            if (o->on[A_G2DEV] && strcmp(shown, pr.plan)) {
                fprintf(out, "prove  2^%-2u  MSM plan after the first proof: %s\n", k, pr.plan);
                snprintf(shown, sizeof shown, "%s", pr.plan);
            }
            continue;
        }
        tst[r] = pr.start_ms;
        tfin[r] = pr.finish_ms;
        nst = pr.stages.n;
        for (int i = 0; i < nst; i++) {
            const gs_stage *s = &pr.stages.s[i];
            names[i] = s->name;
            ts[i][r] = (double)(s->end_ns - s->start_ns) * 1e-6;
        }
    }
    /* The last repetition's timeline: where each stage ran. */
    for (int i = 0, used = 0; i < pr.stages.n && used < (int)sizeof last_tl; i++) {
        const gs_stage *s = &pr.stages.s[i];
        int wr = snprintf(last_tl + used, sizeof last_tl - (size_t)used, " %s%s%d %.1f-%.1f", s->name,
                          s->device < 0 ? "@host" : "@s", s->device < 0 ? 0 : s->stream,
                          (double)(s->start_ns - pr.t0_ns) * 1e-6, (double)(s->end_ns - pr.t0_ns) * 1e-6);
        if (wr < 0) break;
        used += wr;
    }
    if (pinned) {
        double unpin_ms;
        gs_cu_bench_unpin(b, &unpin_ms);
        pinned = 0;
        rec_add(&unpin_ms, 1, "cuda/prove/%u%s/direct/unpin%s", k, bl, at);
        fprintf(out, "prove  2^%-2u  direct: unpinned in %.1f ms\n", k, unpin_ms);
    }
    double ttot[GS_CU_BENCH_MAX_REPS];
    for (int r = 0; r < o->reps; r++) ttot[r] = tst[r] + tfin[r];
    rec_add(ttot, o->reps, "cuda/prove/%u%s/%s%s", k, bl, stg, at);
    for (int i = 0; i < nst; i++)
        rec_add(ts[i], o->reps, "cuda/prove/%u%s/%s/%s%s", k, bl, stg, names[i], at);
    fprintf(out, "prove  2^%-2u  %-8s a/b/c, G2 MSM on the %s: prove_start %9.3f ms, "
                 "prove_finish %9.3f ms, total %9.3f ms  (median of %d)%s\n", k, stg,
            o->on[A_G2DEV] ? "device" : "CPU   ", median(tst, o->reps), median(tfin, o->reps),
            median(tst, o->reps) + median(tfin, o->reps), o->reps, at);
    fprintf(out, "             stages (median ms):");
    for (int i = 0; i < nst; i++) fprintf(out, " %s %.3f", names[i], median(ts[i], o->reps));
    fprintf(out, "\n             last repetition, ms from prove_start (stage@stream start-end):%s\n", last_tl);
    fflush(out);
fail:
    if (pinned) {
        double ms;
        gs_cu_bench_unpin(b, &ms);
    }
    return st;
}

static gs_status run_prove(gs_cu_bench *b, const gs_cuda_bench_opts *o, gs_err *err)
{
    gs_status st = GS_OK;
    for (unsigned k = o->lo[A_PROVE]; k <= o->hi[A_PROVE]; k++) {
        gs_cu_bench_key key;
        TRY(gs_cu_bench_prove_setup(b, k, o->bool_pct, o->on[A_CLASSIC], &key, err));
        fprintf(out, "prove  2^%-2u  synthetic %s key built in %.2f s, made resident (load_pk) in "
                     "%.2f s; MSM plan %s\n", k,
                gs_h_convention_name(o->on[A_CLASSIC] ? GS_H_CLASSIC : GS_H_SNARKJS), key.build_s, key.load_s,
                key.plan);
        fprintf(out, "prove  2^%-2u  stream plan: %s, stream 1 at the %s priority\n", k,
                gs_cu_knob_is(GS_CU_K_STREAM_ORDER, "old") ? "before pipelining (stream_order = old)"
                                                           : "pipelined",
                gs_cu_knob(GS_CU_K_STREAM_PRIO) == 0 ? "default (stream_prio = 0)" : "highest");
        for (int mode = 0; mode < 3; mode++)
            for (int si = 0; si < set_count(o) && (o->staging & (1 << mode)); si++) {
                int saved[GS_CUDA_BENCH_SET_KNOBS];
                char at[96];
                set_apply(o, si, saved, at, sizeof at);
                st = prove_mode(b, k, mode, at, o, err);
                set_restore(o, si, saved);
                if (st != GS_OK) goto fail;
            }
    }
fail:
    return st;
}

/* Google Benchmark's JSON layout, as much of it as bench/compare and
 * Google's own tools read: one "iteration" entry per repetition (real_time
 * = cpu_time, ms) and a "median" aggregate per benchmark; the knobs in
 * effect in the context. */
static gs_status write_json(const char *path, const char *device, const gs_cuda_bench_opts *o, gs_err *err)
{
    gs_outfile of = { 0 };
    FILE *f = stdout;
    gs_status st;
    if (strcmp(path, "-") != 0) {
        if ((st = gs_out_open(&of, path, err)) != GS_OK) return st;
        f = of.f;
    }
    fprintf(f, "{\n  \"context\": {\n    \"executable\": \"gapscope cuda-bench\",\n    \"device\": ");
    gs_json_str(f, device);
    fprintf(f, ",\n    \"repetitions\": %d,\n    \"library_build_type\": \"release\",\n    \"gpu_knobs\": {", o->reps);
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        char v[32];
        gs_cu_knob_format((gs_cu_knob_id)k, gs_cu_knob((gs_cu_knob_id)k), v, sizeof v);
        fprintf(f, "%s", k ? ", " : "");
        gs_json_str(f, gs_cu_knob_def_of((gs_cu_knob_id)k)->key);
        fprintf(f, ": ");
        gs_json_str(f, v);
    }
    fprintf(f, "}\n  },\n  \"benchmarks\": [");
    for (size_t i = 0; i < n_recs; i++) {
        const bench_rec *r = &recs[i];
        for (int k = 0; k <= r->n; k++) {
            int agg = k == r->n;
            double t = agg ? median(r->v, r->n) : r->v[k];
            char nm[128];
            snprintf(nm, sizeof nm, "%s%s", r->name, agg ? "_median" : "");
            fprintf(f, "%s\n    {\"name\": ", i || k ? "," : "");
            gs_json_str(f, nm);
            fprintf(f, ", \"run_name\": ");
            gs_json_str(f, r->name);
            fprintf(f, ", \"run_type\": \"%s\", \"repetitions\": %d, ", agg ? "aggregate" : "iteration", r->n);
            if (agg) fprintf(f, "\"aggregate_name\": \"median\", ");
            else fprintf(f, "\"repetition_index\": %d, ", k);
            fprintf(f, "\"threads\": 1, \"iterations\": 1, \"real_time\": ");
            gs_json_num(f, t);
            fprintf(f, ", \"cpu_time\": ");
            gs_json_num(f, t);
            fprintf(f, ", \"time_unit\": \"%s\"}", r->unit);
        }
    }
    fprintf(f, "\n  ]\n}\n");
    if (f == stdout) {
        fflush(f);
        return ferror(f) ? GS_ERR(err, GS_ERR_IO, "cuda-bench", "writing JSON to stdout") : GS_OK;
    }
    return gs_out_close(&of, 1, err);
}

int gs_cuda_bench_next_variant(const char **vp, int *fv, int *minb)
{
    int used = 0;
    *fv = 0;
    *minb = 1;
    if (sscanf(*vp, "%d%n/%d%n", fv, &used, minb, &used) < 1 || *fv < 0 || *fv > 255 || *minb < 1 ||
        *minb > 255)
        return 0;
    const char *e = *vp + used;
    if (*e != ',' && *e != 0) return 0;
    *vp = *e ? e + 1 : e;
    return 1;
}

/* One line naming the knobs not at their default, and where they come from. */
static void print_knobs(void)
{
    int n = 0;
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        int v = gs_cu_knob((gs_cu_knob_id)k);
        if (v == gs_cu_knob_default((gs_cu_knob_id)k)) continue;
        char t[32];
        gs_cu_knob_format((gs_cu_knob_id)k, v, t, sizeof t);
        fprintf(out, "%s %s=%s%s%s", n++ ? "," : "knobs:", gs_cu_knob_def_of((gs_cu_knob_id)k)->key, t,
                gs_cu_knob_env((gs_cu_knob_id)k, NULL) ? " from " : "",
                gs_cu_knob_env((gs_cu_knob_id)k, NULL) ? gs_cu_knob_def_of((gs_cu_knob_id)k)->env : "");
    }
    if (n) fprintf(out, "\n");
}

gs_status gs_cuda_bench_run(gs_cu_bench *b, const gs_cuda_bench_opts *o, FILE *table, gs_err *err)
{
    gs_status st = GS_OK;
    char devname[256];
    out = table;
    snprintf(devname, sizeof devname, "%s", gs_cu_bench_device(b));
    fprintf(out, "device: %s\n", devname);
    print_knobs();
    if (o->on[A_FIELD]) TRY(run_field(b, o, err));
    if (o->on[A_H2D]) TRY(run_h2d(b, o, err));
    if (o->on[A_NTT]) TRY(run_ntt(b, o, err));
    if (o->on[A_MSM]) TRY(run_msm(b, 0, o, err));
    if (o->on[A_MSM2]) TRY(run_msm(b, 1, o, err));
    if (o->on[A_PROVE]) TRY(run_prove(b, o, err));
fail:
    /* The JSON holds every repetition recorded, also when a later
     * measurement failed (a set that ran out of memory, say): the error stays
     * the command's, the file is written all the same. */
    if (o->json && (st == GS_OK || n_recs > 0)) {
        gs_err e2;
        gs_err_clear(&e2);
        gs_status js = write_json(o->json, devname, o, st == GS_OK ? err : &e2);
        if (st == GS_OK) st = js;
    }
    free(recs);
    recs = NULL;
    n_recs = cap_recs = 0;
    return st;
}
