/*
 * The machine profile (gapscope calibrate): how this host's stages slow
 * as threads are added, measured once per machine and reused by every
 * prediction of a capture taken on it (contract in model.h).
 *
 * File (JSON, version 1):
 *   {"format":"gapscope-profile","version":1,
 *    "host":{"cpu":"...","cores":16},"build":"<git rev>","log":18,
 *    "copy_gbps":6.1,"pin_gbps":0,"msm_scalars":"witness","state_copy_gbps":2.5,
 *    "classes":{"synth":{"threads":[1,2,4,...],"speed":[1,0.98,...],
 *                         "cpu_s":[...],"lane_cv":0.12}, ...}}
 * speed[i]: the work one thread does per CPU second with threads[i]
 * threads running, relative to one thread (a pool task, msm_b2: its
 * whole CPU time with that many pool threads); cpu_s: the measured CPU
 * seconds per unit (one partition's synthesis at 2^log, one host prep,
 * one G2 MSM); lane_cv: the spread of the threads' speeds at the largest
 * count (unequal cores).  copy_gbps: a host copy into a buffer (the
 * staging of pinned copies); pin_gbps: page-locking (0: not measured);
 * state_copy_gbps (optional): one thread copying the witness into fresh
 * memory, the CUDA backend's state for the CPU G2 MSM;
 * state_copy_busy_gbps (optional): the same while a CPU G2 MSM runs on a
 * pool of every CPU; state_copy_synth (optional): {"synth":[B...],
 * "gbps":[...]}, the same beside those MSMs and B busy synthesis threads
 * (B ascending from 0); staging_srcs (optional, default 1): the source
 * buffers the staging class's copies read in turn; staging_spin_ms
 * (optional, default 0): the copies' caller spun this long before each
 * (GS_CALIBRATE_STAGING_SPIN_MS; 0: it slept 2 ms);
 * msm_scalars: what msm_b2 multiplied, "witness_b" (a witness of the
 * engine's circuit on the wires of B, the others zero, as the engine's B
 * G2 MSM, whose other points are at infinity), "witness" (the witness on
 * every wire: calibrate before witness_b; lent scaled by the share of
 * wires in B) or "random" (uniform scalars; a profile without the field,
 * from before calibrate used the witness, is one).
 *
 * Reading checks every field (GS_ERR_FORMAT naming the file and what was
 * expected); the model takes the classes into its curves
 * (gs_mi_profile_apply).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/json.h"
#include "../common/outfile.h"
#include "model_int.h"

/* "name":[v0,v1,...] for each of na arrays of n numbers, comma-separated. */
static void arrays(FILE *f, const char *const *name, const double *const *v, int na, int n)
{
    for (int a = 0; a < na; a++) {
        fprintf(f, "%s\"%s\":[", a ? "," : "", name[a]);
        for (int i = 0; i < n; i++) {
            fputs(i ? "," : "", f);
            gs_json_num(f, v[a][i]);
        }
        fputc(']', f);
    }
}

/* ,"name":{"synth":[...],"<val>":[...]} of n rows (nothing when n is 0). */
static void pair_rows(FILE *f, const char *name, const char *val, const double *synth, const double *v, int n)
{
    if (n <= 0)
        return;
    const char *arr[] = {"synth", val};
    const double *cols[] = {synth, v};
    fprintf(f, ",\n\"%s\":{", name);
    arrays(f, arr, cols, 2, n);
    fputc('}', f);
}

gs_status gs_profile_write(const gs_profile *p, const char *path, gs_err *err)
{
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK)
        return st;
    FILE *f = o.f;
    fprintf(f, "{\"format\":\"gapscope-profile\",\"version\":1,\n\"host\":{\"cpu\":");
    gs_json_str(f, p->host_cpu);
    fprintf(f, ",\"cores\":%d},\"build\":", p->cores);
    gs_json_str(f, p->build);
    fprintf(f, ",\"log\":%u,\"msm_log\":%u,\"copy_gbps\":", p->log, p->msm_log);
    gs_json_num(f, p->copy_gbps);
    fprintf(f, ",\"pin_gbps\":");
    gs_json_num(f, p->pin_gbps);
    fprintf(f, ",\"msm_scalars\":\"%s\"", p->msm_witness == 2 ? "witness_b" : p->msm_witness ? "witness" : "random");
    if (p->state_copy_busy_gbps > 0) {
        fprintf(f, ",\"state_copy_busy_gbps\":");
        gs_json_num(f, p->state_copy_busy_gbps);
    }
    if (p->state_copy_gbps > 0) {
        fprintf(f, ",\"state_copy_gbps\":");
        gs_json_num(f, p->state_copy_gbps);
    }
    if (p->staging_srcs > 1)
        fprintf(f, ",\"staging_srcs\":%d", p->staging_srcs);
    if (p->staging_spin_ms > 0)
        fprintf(f, ",\"staging_spin_ms\":%.17g", p->staging_spin_ms);
    pair_rows(f, "synth_beside_spin", "slowdown", p->sbs_synth, p->sbs_slow, p->sbs_n);
    pair_rows(f, "synth_reused", "ratio", p->sru_synth, p->sru_ratio, p->sru_n);
    pair_rows(f, "state_copy_synth", "gbps", p->scs_synth, p->scs_gbps, p->scs_n);
    fprintf(f, ",\n\"classes\":{");
    int first = 1;
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++) {
        const gs_profile_class *c = &p->cls[k];
        if (!c->n)
            continue;
        fprintf(f, "%s\n \"%s\":{", first ? "" : ",", gs_model_speed_class_name(k));
        first = 0;
        const char *arr[] = {"threads", "speed", "cpu_s"};
        const double *v[] = {c->threads, c->speed, c->cpu_s};
        arrays(f, arr, v, 3, c->n);
        fprintf(f, ",\"lane_cv\":");
        gs_json_num(f, c->lane_cv);
        fputc('}', f);
    }
    fprintf(f, "\n}");
    if (p->n_cpus > 0) {
        const char *arr[] = {"solo", "loaded"};
        const double *v[] = {p->cpu_solo, p->cpu_loaded};
        fprintf(f, ",\n\"cpus\":{");
        arrays(f, arr, v, 2, p->n_cpus);
        fprintf(f, ",\"drift\":");
        gs_json_num(f, p->cpu_drift);
        fputc('}', f);
    }
    fprintf(f, "}\n");
    return gs_out_close(&o, !ferror(f), err);
}

static gs_status bad(gs_err *err, const char *path, const gs_json *at, const char *what)
{
    return gs_err_set(err, GS_ERR_FORMAT, "profile", path, "line %d: expected %s", at ? at->line : 1, what);
}

static gs_status num(const gs_json *o, const char *key, double lo, double hi, double *out, const char *path,
                     gs_err *err)
{
    const gs_json *v = gs_json_get(o, key);
    if (!v || v->type != GS_JSON_NUMBER || !(v->number >= lo && v->number <= hi)) {
        char what[96];
        snprintf(what, sizeof what, "\"%s\": a number in %g..%g", key, lo, hi);
        return bad(err, path, v ? v : o, what);
    }
    *out = v->number;
    return GS_OK;
}

/* A calibrate row of at most 4 thread counts (KEY: {"synth":[B...],
 * YKEY:[v...]}): synth counts 1..4096, values in (0, 100]; absent: 0
 * rows. */
static gs_status small_rows(const gs_json *j, const char *key, const char *ykey, double *xs, double *ys, int *n,
                            const char *path, gs_err *err)
{
    *n = 0;
    const gs_json *r = gs_json_get(j, key);
    if (!r)
        return GS_OK;
    const gs_json *x = r->type == GS_JSON_OBJECT ? gs_json_get(r, "synth") : NULL;
    const gs_json *y = r->type == GS_JSON_OBJECT ? gs_json_get(r, ykey) : NULL;
    int ok = x && y && x->type == GS_JSON_ARRAY && y->type == GS_JSON_ARRAY && x->n >= 1 && x->n <= 4 &&
             y->n == x->n;
    for (size_t q = 0; ok && q < x->n; q++)
        ok = x->items[q].type == GS_JSON_NUMBER && y->items[q].type == GS_JSON_NUMBER && x->items[q].number >= 1 &&
             x->items[q].number <= 4096 && y->items[q].number > 0 && y->items[q].number <= 100;
    if (!ok) {
        char what[160];
        snprintf(what, sizeof what,
                 "\"%s\": {\"synth\":[...],\"%s\":[...]} of one length (1..4), synth counts 1..4096, %ss in (0, 100]",
                 key, ykey, ykey);
        return bad(err, path, r, what);
    }
    for (size_t q = 0; q < x->n; q++)
        xs[q] = x->items[q].number, ys[q] = y->items[q].number;
    *n = (int)x->n;
    return GS_OK;
}

gs_status gs_profile_read(gs_profile *p, const char *path, gs_err *err)
{
    memset(p, 0, sizeof *p);
    gs_json *j = NULL;
    gs_status st = gs_json_parse_file(&j, path, err);
    if (st != GS_OK)
        return st;
    const gs_json *fmt = gs_json_get(j, "format"), *ver = gs_json_get(j, "version");
    const gs_json *host = gs_json_get(j, "host"), *cls = gs_json_get(j, "classes");
    double d;
    if (!fmt || fmt->type != GS_JSON_STRING || strcmp(fmt->text, "gapscope-profile")) {
        st = bad(err, path, fmt ? fmt : j, "\"format\":\"gapscope-profile\"");
        goto out;
    }
    if (!ver || ver->type != GS_JSON_NUMBER || ver->number != 1) {
        st = bad(err, path, ver ? ver : j, "\"version\":1 (a version this build reads)");
        goto out;
    }
    if (!host || host->type != GS_JSON_OBJECT || !cls || cls->type != GS_JSON_OBJECT) {
        st = bad(err, path, j, "objects \"host\" and \"classes\"");
        goto out;
    }
    const gs_json *hc = gs_json_get(host, "cpu"), *b = gs_json_get(j, "build");
    snprintf(p->host_cpu, sizeof p->host_cpu, "%s", hc && hc->type == GS_JSON_STRING ? hc->text : "");
    snprintf(p->build, sizeof p->build, "%s", b && b->type == GS_JSON_STRING ? b->text : "");
    if ((st = num(host, "cores", 1, 4096, &d, path, err)) != GS_OK)
        goto out;
    p->cores = (int)d;
    if ((st = num(j, "log", 1, 40, &d, path, err)) != GS_OK)
        goto out;
    p->log = (uint32_t)d;
    p->msm_log = p->log > 10 ? p->log - 2 : 8;
    if (gs_json_get(j, "msm_log")) {
        if ((st = num(j, "msm_log", 1, 40, &d, path, err)) != GS_OK)
            goto out;
        p->msm_log = (uint32_t)d;
    }
    if ((st = num(j, "copy_gbps", 0, 1e4, &p->copy_gbps, path, err)) != GS_OK ||
        (st = num(j, "pin_gbps", 0, 1e4, &p->pin_gbps, path, err)) != GS_OK)
        goto out;
    if (gs_json_get(j, "state_copy_gbps") &&
        (st = num(j, "state_copy_gbps", 0, 1e4, &p->state_copy_gbps, path, err)) != GS_OK)
        goto out;
    if (gs_json_get(j, "state_copy_busy_gbps") &&
        (st = num(j, "state_copy_busy_gbps", 0, 1e4, &p->state_copy_busy_gbps, path, err)) != GS_OK)
        goto out;
    p->staging_srcs = 1;
    if (gs_json_get(j, "staging_srcs")) {
        if ((st = num(j, "staging_srcs", 1, 4096, &d, path, err)) != GS_OK)
            goto out;
        p->staging_srcs = (int)d;
    }
    p->staging_spin_ms = 0;
    if (gs_json_get(j, "staging_spin_ms") &&
        (st = num(j, "staging_spin_ms", 0, 1000, &p->staging_spin_ms, path, err)) != GS_OK)
        goto out;
    if ((st = small_rows(j, "synth_beside_spin", "slowdown", p->sbs_synth, p->sbs_slow, &p->sbs_n, path, err)) !=
            GS_OK ||
        (st = small_rows(j, "synth_reused", "ratio", p->sru_synth, p->sru_ratio, &p->sru_n, path, err)) != GS_OK)
        goto out;
    const gs_json *scs = gs_json_get(j, "state_copy_synth");
    if (scs) {
        const gs_json *x = scs->type == GS_JSON_OBJECT ? gs_json_get(scs, "synth") : NULL;
        const gs_json *y = scs->type == GS_JSON_OBJECT ? gs_json_get(scs, "gbps") : NULL;
        if (!x || !y || x->type != GS_JSON_ARRAY || y->type != GS_JSON_ARRAY || x->n < 1 || x->n > 24 ||
            y->n != x->n) {
            st = bad(err, path, scs, "\"state_copy_synth\": {\"synth\":[...],\"gbps\":[...]} of one length (1..24)");
            goto out;
        }
        for (size_t q = 0; q < x->n; q++)
            if (x->items[q].type != GS_JSON_NUMBER || y->items[q].type != GS_JSON_NUMBER ||
                !(x->items[q].number >= 0) || (q && !(x->items[q].number > x->items[q - 1].number)) ||
                !(y->items[q].number > 0 && y->items[q].number <= 1e4)) {
                st = bad(err, path, &x->items[q], "\"state_copy_synth\": synth counts ascending from 0 or more, "
                                                  "gbps in (0, 1e4]");
                goto out;
            }
        for (size_t q = 0; q < x->n; q++)
            p->scs_synth[q] = x->items[q].number, p->scs_gbps[q] = y->items[q].number;
        p->scs_n = (int)x->n;
    }
    const gs_json *ms = gs_json_get(j, "msm_scalars");
    if (ms && (ms->type != GS_JSON_STRING ||
               (strcmp(ms->text, "witness_b") && strcmp(ms->text, "witness") && strcmp(ms->text, "random")))) {
        st = bad(err, path, ms, "\"msm_scalars\": \"witness_b\", \"witness\" or \"random\"");
        goto out;
    }
    p->msm_witness = !ms ? 0 : !strcmp(ms->text, "witness_b") ? 2 : !strcmp(ms->text, "witness");
    for (size_t i = 0; i < cls->n; i++) {
        int k = 0;
        while (k < GS_MODEL_SPEED_CLASSES && strcmp(cls->keys[i], gs_model_speed_class_name(k)))
            k++;
        const gs_json *c = &cls->items[i];
        if (k == GS_MODEL_SPEED_CLASSES || c->type != GS_JSON_OBJECT) {
            st = bad(err, path, c, "a class synth, host_prep, msm_b2, other or staging (an object)");
            goto out;
        }
        gs_profile_class *pc = &p->cls[k];
        const char *arr[] = {"threads", "speed", "cpu_s"};
        double *v[] = {pc->threads, pc->speed, pc->cpu_s};
        for (int a = 0; a < 3; a++) {
            const gs_json *x = gs_json_get(c, arr[a]);
            if (!x || x->type != GS_JSON_ARRAY || x->n < 1 || x->n > 24 || (a && (int)x->n != pc->n)) {
                st = bad(err, path, x ? x : c, "arrays threads, speed, cpu_s of one length (1..24)");
                goto out;
            }
            pc->n = (int)x->n;
            for (size_t q = 0; q < x->n; q++) {
                const gs_json *e = &x->items[q];
                if (e->type != GS_JSON_NUMBER || !(e->number > 0) ||
                    (a == 0 && q > 0 && !(e->number > v[0][q - 1]))) {
                    st = bad(err, path, e, a == 0 ? "increasing thread counts > 0" : "numbers > 0");
                    goto out;
                }
                v[a][q] = e->number;
            }
        }
        if ((st = num(c, "lane_cv", 0, 10, &pc->lane_cv, path, err)) != GS_OK)
            goto out;
    }
    const gs_json *cp = gs_json_get(j, "cpus");   /* optional: calibrate's vCPU map */
    if (cp) {
        const gs_json *so = cp->type == GS_JSON_OBJECT ? gs_json_get(cp, "solo") : NULL,
                      *lo = cp->type == GS_JSON_OBJECT ? gs_json_get(cp, "loaded") : NULL;
        if (!so || !lo || so->type != GS_JSON_ARRAY || lo->type != GS_JSON_ARRAY || so->n != lo->n ||
            so->n < 1 || so->n > GS_PROFILE_CPUS) {
            st = bad(err, path, cp, "\"cpus\": {\"solo\":[...], \"loaded\":[...]} of one length (1..256)");
            goto out;
        }
        for (size_t q = 0; q < so->n; q++) {
            const gs_json *a = &so->items[q], *b = &lo->items[q];
            if (a->type != GS_JSON_NUMBER || b->type != GS_JSON_NUMBER || !(a->number > 0 && a->number < 100) ||
                !(b->number > 0 && b->number < 100)) {
                st = bad(err, path, a->type == GS_JSON_NUMBER ? b : a, "vCPU speeds: numbers in (0, 100)");
                goto out;
            }
            p->cpu_solo[q] = a->number;
            p->cpu_loaded[q] = b->number;
        }
        if ((st = num(cp, "drift", 0, 100, &p->cpu_drift, path, err)) != GS_OK)
            goto out;
        p->n_cpus = (int)so->n;
    }
out:
    gs_json_free(j);
    return st;
}

double gs_profile_cpu_spread(const gs_profile *p, int loaded)
{
    const double *v = loaded ? p->cpu_loaded : p->cpu_solo;
    double m = 0, s2 = 0;
    for (int i = 0; i < p->n_cpus; i++)
        m += v[i] / p->n_cpus;
    for (int i = 0; i < p->n_cpus; i++)
        s2 += (v[i] / m - 1) * (v[i] / m - 1);
    return p->n_cpus > 1 ? sqrt(s2 / (p->n_cpus - 1)) : 0;
}

void gs_profile_find(char *out, size_t cap, const char *given, const char *capture_dir)
{
    struct stat sb;
    out[0] = '\0';
    if (given && *given) {
        snprintf(out, cap, "%s", given);
        return;
    }
    if (capture_dir && *capture_dir) {
        snprintf(out, cap, "%s/machine-profile.json", capture_dir);
        if (stat(out, &sb) != 0 || !S_ISREG(sb.st_mode))
            out[0] = '\0';
    }
}

double gs_profile_msm_cs(const gs_profile *p, double n)
{
    const gs_profile_class *c = &p->cls[GS_SPEED_MSM_B2];
    if (!c->n || c->threads[0] != 1 || n < 2)
        return 0;
    double n0 = exp2((double)p->msm_log);
    return c->cpu_s[0] * (n / n0) * ((double)p->msm_log / log2(n));
}

/* The least-squares non-increasing sequence (pool adjacent violators):
 * each ladder is timed once per level, on a host whose other load comes
 * and goes, and more threads beside a stage never make it faster. */
static void nonincreasing(double *v, int n)
{
    double val[GS_SPEED_PTS];
    int len[GS_SPEED_PTS], nb = 0;
    for (int i = 0; i < n && i < GS_SPEED_PTS; i++) {
        val[nb] = v[i];
        len[nb++] = 1;
        while (nb > 1 && val[nb - 2] < val[nb - 1]) {
            val[nb - 2] = (val[nb - 2] * len[nb - 2] + val[nb - 1] * len[nb - 1]) / (len[nb - 2] + len[nb - 1]);
            len[nb - 2] += len[nb - 1];
            nb--;
        }
    }
    for (int b = 0, i = 0; b < nb; b++)
        for (int q = 0; q < len[b]; q++)
            v[i++] = val[b];
}

/* The least-squares non-decreasing sequence: nonincreasing of -v. */
static void nondecreasing(double *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = -v[i];
    nonincreasing(v, n);
    for (int i = 0; i < n; i++)
        v[i] = -v[i];
}

/* The staging class's speeds from its rows' wall times (calibrate_staging.c:
 * the copy's mean wall beside B busy threads, T = B + its own): made
 * non-decreasing first (more threads beside a copy never make it
 * shorter), then speed = t(first) share(first) / (t share(T)), share =
 * min(1, cores / T), so the model's copy (its work at its fair share, then
 * g = 1 / speed; model_backend.c) lasts t(T) at each row.  Pooling the
 * speeds instead, as for the other classes, pooled the wall's rise away
 * where the copy's wall levels off beyond the cores while its share keeps
 * falling: the H100 profile of traces/h100-r3s6-issue31, walls 1.82,
 * 3.19, 2.87, 2.85 ms at T = 20, 24, 32, 40 on 16 cores, speeds 0.677,
 * 0.463, 0.688, 0.865 pooled to 0.672 from T = 24 on, so a prove's
 * first copy beside 12 synthesis threads (T about 22) was modelled at
 * 2.8 ms where the engine took 3.6-7.1 (median 5.5).  0 when a row has no
 * wall time (profiles whose rows lack cpu_s keep the speed path). */
static int staging_from_walls(speed_curve *s, const gs_profile_class *c, int cores)
{
    double w[GS_SPEED_PTS];
    int n = c->n < GS_SPEED_PTS ? c->n : GS_SPEED_PTS;
    for (int i = 0; i < n; i++) {
        if (!(c->cpu_s[i] > 0) || !(c->threads[i] > 0))
            return 0;
        w[i] = c->cpu_s[i];
    }
    nondecreasing(w, n);
    double C = cores > 0 ? cores : 1;
    for (int i = 0; i < n; i++)
        s->pt_s[i] = gs_mi_wall_speed(w[0], c->threads[0], w[i], c->threads[i], C);
    return 1;
}

gs_status gs_mi_profile_apply(gs_model *m, const char *path, gs_err *err)
{
    gs_profile p;
    gs_status st = gs_profile_read(&p, path, err);
    if (st != GS_OK)
        return st;
    m->prof_data = p;
    snprintf(m->profile, sizeof m->profile, "%s", path);
    m->copy_gbps = p.copy_gbps;
    m->pin_gbps = p.pin_gbps;
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++) {
        const gs_profile_class *c = &p.cls[k];
        speed_curve *s = &m->prof[k];
        memset(s, 0, sizeof *s);
        if (!c->n)
            continue;
        s->source = GS_SPEED_SRC_PROFILE;
        s->n_pts = c->n;
        memcpy(s->pt_t, c->threads, sizeof(double) * (size_t)c->n);
        if (k == GS_SPEED_STAGING && staging_from_walls(s, c, p.cores)) {
            s->lane_cv = c->lane_cv;
            s->beta_se = INFINITY;
            continue;
        }
        /* More threads never make a thread faster: a measured speed above
         * one thread's (noise, turbo settling) is taken as 1. */
        for (int i = 0; i < c->n; i++)
            s->pt_s[i] = c->speed[i] / c->speed[0] > 1 ? 1 : c->speed[i] / c->speed[0];
        /* Nor faster than with fewer: a level timed slower than the one
         * above it (the host's other load moving between levels: on the
         * H100 of traces/h100-r3s4-issue31, synth 0.67 at 2 threads, 0.82
         * at 6) is pooled with it, for every class as for staging. */
        nonincreasing(s->pt_s, c->n);
        s->lane_cv = c->lane_cv;
        s->beta_se = INFINITY;
    }
    if (p.cores != m->cores) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%d cores", p.cores);
        snprintf(b, sizeof b, "%d", m->cores);
        gs_mi_note(m, "Profile: measured on a host with %s, the capture's has %s: its curves are used as they are.\n",
                   a, b);
    }
    const char *hc = gs_model_meta(m, "host.cpu");
    if (hc && p.host_cpu[0] && strcmp(hc, p.host_cpu))
        gs_mi_note(m, "Profile: measured on \"%s\", the capture ran on \"%s\".\n", p.host_cpu, hc);
    return GS_OK;
}

int gs_mi_profile_lend(gs_model *m)
{
    if (!m->profile[0] || gs_model_find(m, gs_vocab_name(GS_V_MSM_B2), GS_WHERE_CPU) >= 0 || !m->n_sizes ||
        gs_profile_msm_cs(&m->prof_data, 1024) <= 0)
        return 1;
    /* A profile timed on every wire (msm_scalars "witness"): the engine's
     * MSM skips B2's points at infinity, the wires outside B. */
    double bshare = 1;
    if (m->prof_data.msm_witness == 1) {
        bshare = gs_calibrate_b_share();
        if (!(bshare > 0 && bshare <= 1))
            bshare = 1;
    }
    char how[320];
    snprintf(how, sizeof how,
             ", timed with the witness on every wire (calibrate before msm_scalars witness_b) and scaled by "
             "the share of the circuit's wires in B, %.1f%% (the other wires' B2 points are at infinity, "
             "which the MSM skips); re-run gapscope calibrate to time it as the engine runs it",
             100 * bshare);
    stage *sg = gs_mi_stage_get(m, gs_vocab_name(GS_V_MSM_B2), GS_WHERE_CPU, 0);
    if (!sg)
        return 0;
    sg->threads = m->cores;
    sg->pool = 1;
    sg->lent = 1;
    for (int i = 0; i < m->n_sizes; i++) {
        const size_rec *z = &m->sizes[i];
        double n = z->n_vars ? (double)z->n_vars : exp2((double)z->log);
        inst *x = gs_mi_inst_add(sg, z->kind, z->log, -1, -1);
        if (!x)
            return 0;
        x->v = x->wall = gs_profile_msm_cs(&m->prof_data, n) * bshare;
        point *p = &sg->pt[sg->n_pt - 1];
        if (!(p->sorted = malloc(sizeof *p->sorted)))
            return 0;
        p->sorted[0] = p->median = p->p10 = p->p90 = p->wall_median = x->v;
        char what[96];
        snprintf(what, sizeof what, "%.3f cs per partition at 2^%u (%.0f points)", x->v, z->log, n);
        gs_mi_note(m, "Stage msm_b2 (cpu) lent by the machine profile: %s, its one-thread G2 MSM scaled "
                      "as n / log2 n%s.\n", what,
                   m->prof_data.msm_witness == 2 ? ""
                   : m->prof_data.msm_witness == 1
                       ? how
                       : ", timed on uniform random scalars (a profile from before calibrate used the engine's "
                         "witness): the engine's witness repeats values, which the MSM merges, so this overstates "
                         "its G2 MSM (2.2x at 2^18 on the engine's circuit, model/MODEL.md 7.2); re-run "
                         "gapscope calibrate");
    }
    return 1;
}

void gs_mi_profile_unlend(gs_model *m, int k)
{
    stage *s = &m->st[k];
    char head[96];
    snprintf(head, sizeof head, "Stage %s (cpu) lent by the machine profile", s->name);
    for (char *a; (a = strstr(m->notes, head));) {
        char *b = strchr(a, '\n');
        b = b ? b + 1 : a + strlen(a);
        memmove(a, b, strlen(b) + 1);
    }
    for (int j = 0; j < s->n_pt; j++) {
        free(s->pt[j].in);
        gs_imap_free(&s->pt[j].ix);
        free(s->pt[j].sorted);
    }
    s->n_pt = 0;
    s->lent = 0;
}
