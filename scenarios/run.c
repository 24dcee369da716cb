/*
 * `gapscope run`: one scenario through the real engine, into a run
 * directory (layout in run.h).
 *
 * Threads: the calling thread is the driver: it replays the arrivals
 * (sleeping until each intended time, or not at all for afap), then drains
 * the engine in one-second steps so it can print progress.  Everything else
 * runs on the engine's threads.  The timeline is read and written only
 * after gs_engine_destroy, when capture has stopped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/grow.h"
#include "../diag/jobs.h"
#include "../common/outdir.h"
#include "../common/outfile.h"
#include "../common/clock.h"
#include "../common/hostprobe.h"
#include "../common/paths.h"
#include "../timeline/tl_merge.h"
#include "machine.h"
#include "../model/model.h"
#include "../prover/cuda/cuda.h"
#include "../prover/cuda/knobs.h"
#include "../model/model_work.h"
#include "run.h"
#include "scn_internal.h"

#define MAX_DEVICES 16

void gs_scn_default_run_dir(char *out, size_t cap, const char *name)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    snprintf(out, cap, "runs/%s-%04d%02d%02d-%02d%02d%02d", name, tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* runs/<scenario file name without its extension>-<UTC time>. */
static void default_dir(char *out, size_t cap, const gs_scenario *s)
{
    char name[101];
    gs_path_stem(name, sizeof name, s->path[0] ? s->path : "scenario", 0);
    gs_scn_default_run_dir(out, cap, name);
}

static void path_in(char *out, size_t cap, const char *dir, const char *file)
{
    if (!gs_path_join(out, cap, dir, file))
        out[0] = '\0';
}

/* Creates the backends the scenario asks for.  *model: the model device's
 * fitted model (loaded here unless the caller gave one). */
static gs_status make_backends(gs_backend **be, int *n, gs_model **model, const gs_scenario *s,
                               gs_timeline *tl, int quiet, gs_err *err)
{
    gs_backend_sel sel = s->backend;
    int want = s->devices;
    *n = 0;
    if (sel == GS_BACKEND_AUTO) {
        int have = gs_cuda_device_count();
        sel = have > 0 ? GS_BACKEND_CUDA : GS_BACKEND_CPU;
        if (have > 0 && want > have)
            want = have;
        if (sel == GS_BACKEND_CPU)
            want = 1;
        if (!quiet)
            fprintf(stderr, "gapscope: backend auto -> %s (%d CUDA device%s visible)\n",
                    gs_backend_sel_name(sel), have, have == 1 ? "" : "s");
    }
    gs_timeline_meta_set(tl, "backend", gs_backend_sel_name(sel));
    gs_status st = GS_OK;
    if (sel == GS_BACKEND_MODEL && !*model) {
        st = gs_model_load(model, s->model_timeline, err);
        if (st != GS_OK)
            return st;
    }
    for (int d = 0; d < want && d < MAX_DEVICES; d++) {
        switch (sel) {
        case GS_BACKEND_CPU:
            st = gs_backend_cpu_create(&be[d], s->engine.prove_threads, err);
            break;
        case GS_BACKEND_CUDA:
            st = gs_backend_cuda_create(&be[d], d, err);
            break;
        case GS_BACKEND_MODEL:
            st = gs_backend_model_create(&be[d], *model, d, s->model_size_shift, d, s->engine.seed, err);
            break;
        default:
            st = GS_ERR(err, GS_ERR_ARG, "run", "backend %d", (int)sel);
        }
        if (st != GS_OK)
            return st;
        (*n)++;
        char key[64];
        snprintf(key, sizeof key, "device.%d.name", d);
        const char *desc = be[d]->ops->describe ? be[d]->ops->describe(be[d]) : be[d]->ops->name;
        gs_timeline_meta_set(tl, key, desc ? desc : be[d]->ops->name);
    }
    return GS_OK;
}

/* The host-speed probe (common/hostprobe.h) on the run's synthesis
 * threads (at most the online CPUs), into the meta host.probe.<when>_msteps
 * (with host.probe.version and .threads): before the backends exist and
 * after the engine is gone, so neither the run nor its code under test is
 * in it.  A paired gate compares base and head hosts by it. */
static void probe_meta(gs_timeline *tl, const gs_scenario *s, const char *when)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = s->engine.synth_threads > 0 ? s->engine.synth_threads : 1;
    if (online > 0 && threads > online) threads = (int)online;
    double v = gs_host_probe(threads);
    char key[64], buf[32];
    snprintf(buf, sizeof buf, "%d", GS_HOST_PROBE_VERSION);
    gs_timeline_meta_set(tl, "host.probe.version", buf);
    snprintf(buf, sizeof buf, "%d", threads);
    gs_timeline_meta_set(tl, "host.probe.threads", buf);
    snprintf(key, sizeof key, "host.probe.%s_msteps", when);
    if (v > 0) snprintf(buf, sizeof buf, "%.1f", v);
    else snprintf(buf, sizeof buf, "unavailable");
    gs_timeline_meta_set(tl, key, buf);
}

/* The scenario's metadata, with no absolute path (the run directory is
 * copied between machines and committed): scenario.path relative to the
 * working directory (as typed, unless given absolute), path-valued
 * settings (scenario.jobs.trace, scenario.engine.model_timeline, an
 * absolute empirical:FILE) and model.capture relative to the run
 * directory dir, where the capture's readers resolve them (its
 * scenario.ini, `gapscope predict`). */
static void set_meta(gs_timeline *tl, const gs_scenario *s, const char *dir)
{
    char rel[GS_SCN_PATH_MAX];
    gs_fingerprint fp;
    gs_fingerprint_get(&fp);
    char buf[64];
    gs_timeline_meta_set(tl, "gapscope.version", fp.version);
    gs_timeline_meta_set(tl, "build.git_rev", fp.git_rev);
    gs_timeline_meta_set(tl, "build.binary_sha256", fp.binary_sha256);
    gs_timeline_meta_set(tl, "host.cpu", fp.cpu);
    snprintf(buf, sizeof buf, "%d", fp.threads);
    gs_timeline_meta_set(tl, "host.threads", buf);
    gs_machine_meta(tl);
    if (s->path[0] == '/')
        gs_path_rel(rel, sizeof rel, s->path, ".");
    gs_timeline_meta_set(tl, "scenario.path", s->path[0] == '/' ? rel : s->path[0] ? s->path : "(built in memory)");
    if (s->description[0])
        gs_timeline_meta_set(tl, "scenario.description", s->description);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)s->engine.seed);
    gs_timeline_meta_set(tl, "scenario.seed", buf);
    for (int i = 0; i < gs_scenario_setting_count(s); i++) {
        const char *k, *v;
        gs_scenario_setting_at(s, i, &k, &v);
        if (!gs_scn_setting_in_effect(s, i))
            continue;
        char key[96];
        snprintf(key, sizeof key, "scenario.%s", k);
        gs_timeline_meta_set(tl, key, gs_scenario_setting_value_in(s, i, dir, rel, sizeof rel));
    }
    const char *cap = gs_timeline_meta_get(tl, "model.capture");
    if (cap && cap[0]) {
        gs_path_rel(rel, sizeof rel, cap, dir);
        gs_timeline_meta_set(tl, "model.capture", rel);
    }
}

static gs_status write_scenario(const gs_scenario *s, const char *dir, gs_err *err)
{
    char path[GS_SCN_PATH_MAX];
    path_in(path, sizeof path, dir, "scenario.ini");
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK)
        return st;
    int ok = gs_scenario_dump_in(s, o.f, dir) == GS_OK;
    return gs_out_close(&o, ok, err);
}

/* jobs.csv through diag's writer: one record per submitted job; a job
 * without a result (drain timed out, or still running when a stop's grace
 * ran out) is "pending" with done_ns -1; a job the stop cancelled has its
 * error prefixed "interrupted (SIGINT)". */
static gs_status write_jobs(const char *dir, const gs_trace *arr, const int64_t *sub_ns, const int64_t *int_ns,
                            const gs_job_result *r, size_t n, int sig, int64_t stop_ns, gs_err *err)
{
    char path[GS_SCN_PATH_MAX];
    path_in(path, sizeof path, dir, "jobs.csv");
    gs_job_record *rec = calloc(arr->n ? arr->n : 1, sizeof *rec);
    if (!rec)
        return GS_ERR(err, GS_ERR_NOMEM, "run", "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < arr->n; i++) {
        if (sub_ns[i] < 0)
            continue;
        gs_job_record *x = &rec[m++];
        x->id = arr->a[i].id;
        snprintf(x->kind, sizeof x->kind, "%s", gs_scn_kind_name(arr->a[i].kind));
        x->partitions = arr->a[i].partitions;
        snprintf(x->status, sizeof x->status, "pending");
        x->intended_ns = int_ns[i];
        x->submitted_ns = sub_ns[i];
        x->done_ns = -1;
        for (size_t j = 0; j < n; j++)
            if (r[j].id == x->id) {
                snprintf(x->status, sizeof x->status, "%s", r[j].status == GS_OK ? "ok" : gs_status_name(r[j].status));
                x->verified = r[j].verified;
                x->submitted_ns = r[j].submitted_ns;
                x->done_ns = r[j].done_ns;
                /* Cancelled by the stop (not by the scenario's own
                 * cancellations, which came earlier): say so. */
                if (sig && r[j].status == GS_ERR_CANCELLED && r[j].done_ns >= stop_ns &&
                    strncmp(r[j].error, "cancelled: scenario", 19) != 0)
                    snprintf(x->error, sizeof x->error, "interrupted (%s): %.400s", gs_scn_signal_name(sig),
                             r[j].error);
                else
                    snprintf(x->error, sizeof x->error, "%s", r[j].error);
                break;
            }
    }
    gs_status st = gs_jobs_write_csv(path, rec, m, err);
    free(rec);
    return st;
}

static void progress(const gs_run_opts *o, int64_t t0, size_t submitted, size_t total, const char *what)
{
    if (o->quiet)
        return;
    fprintf(stderr, "gapscope: [%7.1f s] %s: submitted %zu/%zu jobs\n", (double)(gs_now_ns() - t0) * 1e-9,
            what, submitted, total);
}

#define POLL_NS 50000000LL   /* stop requests and cancellations are served this often */

/* The driver's state: pending cancellations ([jobs] cancel_probability) in
 * a binary min-heap on their time, and the stop flag. */
typedef struct cancel_ev {
    int64_t t;
    uint64_t id;
} cancel_ev;

typedef struct driver {
    gs_engine *e;
    const gs_scenario *s;
    const gs_run_opts *o;
    gs_run_result *res;
    cancel_ev *heap;
    size_t n, cap;
    int64_t t0, next_report;
    int virt;       /* a modelled run on the virtual clock */
    gs_err *err;    /* where a stalled modelled run is reported */
    gs_status st;   /* GS_OK, or the stall */
} driver;

static int stopped(const driver *d) { return d->o->stop && *d->o->stop; }

static int64_t next_cancel(const driver *d) { return d->n ? d->heap[0].t : INT64_MAX; }

static int cancel_push(driver *d, int64_t t, uint64_t id)
{
    if (!gs_grow(&d->heap, &d->cap, d->n, sizeof *d->heap, 64))
        return 0;
    size_t i = d->n++;
    while (i && d->heap[(i - 1) / 2].t > t) {
        d->heap[i] = d->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    d->heap[i] = (cancel_ev){t, id};
    return 1;
}

static cancel_ev cancel_pop(driver *d)
{
    cancel_ev top = d->heap[0], last = d->heap[--d->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= d->n)
            break;
        if (c + 1 < d->n && d->heap[c + 1].t < d->heap[c].t)
            c++;
        if (d->heap[c].t >= last.t)
            break;
        d->heap[i] = d->heap[c];
        i = c;
    }
    if (d->n)
        d->heap[i] = last;
    return top;
}

/* Requests every cancellation due by now (a job already finished keeps its
 * result: the engine says so and nothing changes). */
static void fire_cancels(driver *d, int64_t now)
{
    while (d->n && d->heap[0].t <= now) {
        cancel_ev ev = cancel_pop(d);
        gs_err e;
        gs_err_clear(&e);
        d->res->cancel_requests++;
        (void)gs_engine_cancel_job(d->e, ev.id, "scenario cancel_probability", &e);
    }
}

/* splitmix64 of a combined word: the per-job cancellation stream. */
static uint64_t mix64(uint64_t a, uint64_t b)
{
    uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The cancellation draw of job `id`: 1 (and the delay after submission)
 * when the scenario cancels it.  Depends on the seed and the id only. */
static int cancel_draw(const gs_scenario *s, uint64_t id, int64_t *delay_ns)
{
    if (!(s->cancel_probability > 0))
        return 0;
    gs_rng r;
    gs_rng_seed(&r, mix64(s->engine.seed ^ 0x63616e63656cULL, id));
    double u = gs_rng_unit(&r);
    double v = gs_dist_sample(&s->cancel_after, &r);
    if (!(u < s->cancel_probability))
        return 0;
    *delay_ns = v > 0 ? (int64_t)(v * 1e9) : 0;
    return 1;
}

/* Sleeps until t, serving cancellations and progress lines; 0 when a stop
 * was requested first. */
static int wait_until(driver *d, int64_t t, size_t done, size_t total)
{
    for (int64_t now = gs_now_ns();; now = gs_now_ns()) {
        fire_cancels(d, now);
        if (stopped(d))
            return 0;
        if (now >= t)
            return 1;
        if (now >= d->next_report) {
            progress(d->o, d->t0, done, total, "replaying");
            d->next_report = now + 2000000000LL;
        }
        int64_t step = t - now, c = next_cancel(d) - now;
        if (c < step)
            step = c;
        gs_sleep_ns(step < POLL_NS ? step : POLL_NS);
    }
}

/* Submits every arrival at its intended time (until a stop); returns the
 * number submitted. */
static size_t replay(driver *d, const gs_trace *arr, gs_tl_lane *lane, int64_t *sub_ns,
                     int64_t *int_ns)
{
    const gs_scenario *s = d->s;
    double scale = s->replay == GS_REPLAY_AFAP ? 0.0 : s->replay == GS_REPLAY_SCALED ? s->time_scale : 1.0;
    size_t done = 0;
    for (size_t i = 0; i < arr->n; i++) {
        sub_ns[i] = -1;
        int_ns[i] = -1;
    }
    d->next_report = d->t0 + 2000000000LL;
    for (size_t i = 0; i < arr->n; i++) {
        const gs_arrival *a = &arr->a[i];
        double at = (double)a->t_ns * scale;
        if (at >= (double)(GS_TL_TIME_LIMIT_NS - d->t0)) {
            /* scaled past the times a timeline holds (timeline/limits.h) */
            d->st = gs_err_set(d->err, GS_ERR_RANGE, "run", d->s->path,
                               "arrival %zu (t %lld ns x time_scale %g) lies beyond +-(2^62 - 1) ns",
                               i, (long long)a->t_ns, scale);
            break;
        }
        int64_t intended = d->t0 + (int64_t)at;
        if (!wait_until(d, intended, done, arr->n))
            break;
        gs_job_spec spec = {
            .id = a->id,
            .kind = a->kind,
            .partitions = a->partitions,
            .priority = a->priority,
            .log_constraints = gs_scenario_log_size(s, a),
            .intended_ns = intended,
        };
        gs_err jerr;
        gs_err_clear(&jerr);
        int64_t ts = gs_now_ns();
        char args[128];
        snprintf(args, sizeof args, "kind=%s;partitions=%u;priority=%d;log_constraints=%u;late_us=%lld",
                 gs_scn_kind_name(a->kind), a->partitions, a->priority, spec.log_constraints,
                 (long long)((ts - intended) / 1000));
        gs_tl_span(lane, GS_SPAN_MARK, gs_vocab_name(GS_V_SUBMIT), (int32_t)a->id, -1, ts, ts, 0, args);
        int_ns[i] = intended;
        if (gs_engine_submit(d->e, &spec, &jerr) == GS_OK) {
            sub_ns[i] = ts;
            done++;
            int64_t delay;
            if (cancel_draw(s, a->id, &delay) && !cancel_push(d, ts + delay, a->id) && !d->o->quiet)
                fprintf(stderr, "gapscope: no memory to schedule the cancellation of job %llu\n",
                        (unsigned long long)a->id);
        } else if (!d->o->quiet)
            fprintf(stderr, "gapscope: job %llu not submitted: %s\n", (unsigned long long)a->id, jerr.msg);
    }
    d->res->submitted = done;
    return done;
}

/* Waits for the engine to finish every submitted job, serving the
 * cancellations still due, until the scenario's drain timeout (then what is
 * left is cancelled) or a stop (then queued work is cancelled and running
 * partitions get GS_SCN_STOP_GRACE_NS).  Sets res->drained. */
static void drain(driver *d, size_t total, int64_t *stop_ns)
{
    gs_run_result *res = d->res;
    int64_t deadline = d->s->drain_timeout_ns > 0 ? gs_now_ns() + d->s->drain_timeout_ns : 0;
    res->drained = 1;
    *stop_ns = -1;
    for (;;) {
        int64_t now = gs_now_ns();
        fire_cancels(d, now);
        if (stopped(d))
            break;
        int64_t step = next_cancel(d) - now;
        if (step > POLL_NS)
            step = POLL_NS;
        if (step < 1000000)
            step = 1000000;
        if (gs_engine_drain(d->e, step) == GS_OK)
            return;
        now = gs_now_ns();
        if (d->virt && gs_vt_stalled()) {
            /* Every engine thread waits and no modelled work is pending. */
            d->st = gs_err_set(d->err, GS_ERR_STATE, "predict", res->dir,
                               "the modelled run stalled at %.3f s (virtual): every engine thread waits "
                               "and no modelled work is pending", (double)(now - d->t0) * 1e-9);
            gs_engine_cancel(d->e);
            res->drained = 0;
            return;
        }
        if (now >= d->next_report) {
            progress(d->o, d->t0, res->submitted, total, "draining");
            d->next_report = now + (d->virt ? 20000000000LL : 2000000000LL);
        }
        if (deadline && now > deadline) {
            if (!d->o->quiet)
                fprintf(stderr, "gapscope: drain timeout; cancelling what is left\n");
            gs_engine_cancel(d->e);
            gs_engine_drain(d->e, 0);
            res->drained = 0;
            return;
        }
    }
    /* Stop requested. */
    *stop_ns = gs_now_ns();
    res->interrupted = (int)*d->o->stop;
    gs_engine_cancel(d->e);
    if (gs_engine_drain(d->e, GS_SCN_STOP_GRACE_NS) != GS_OK) {
        res->drained = 0;
        if (!d->o->quiet)
            fprintf(stderr, "gapscope: running partitions did not finish within %lld s; "
                            "their jobs stay pending in jobs.csv\n",
                    GS_SCN_STOP_GRACE_NS / 1000000000LL);
    }
}

/* The modelled CPU's busy cores as the counter process_cpu (called under
 * the virtual clock's lock, which serializes the lane's writers). */
static void on_cpu(void *ctx, int64_t t, double busy)
{
    gs_tl_counter(ctx, "process_cpu", t, busy);
}

/* The model's host contention for the virtual clock (gs_vt_cfg.speed). */
static double model_speed(void *ctx, int cls, double runnable)
{
    return gs_model_speed(ctx, cls, runnable);
}

/* host_sync: how the GPU worker waits for its device (prover/cuda/knobs.h:
 * 0 auto, 1 spin, 2 yield, 3 block).  What the model knows of it is the
 * worker's CPU while its device works (gs_model_device_spin, from
 * prove_start's CPU time): block from a capture that spun is a worker
 * asleep (the block captures of traces/h100-r3s10-issue31: prove_start's
 * CPU 10-15% of its wall; gs_scn_run sets it), auto and spin are the same
 * wait with fewer contexts than CPUs.  Spinning from a capture asleep is
 * refused: the spin slowed synthesis ~18% at 12 threads there, which a
 * capture asleep cannot tell; yield, never captured, too.  Returns 1 when
 * the change (want != had) is modelled (note: what the prediction assumes). */
static int host_sync_modelled(int want, int had, char *note, size_t n)
{
    int spun = had == GS_CU_SYNC_AUTO || had == GS_CU_SYNC_SPIN;
    if (want == GS_CU_SYNC_BLOCK && spun) {
        snprintf(note, n, "GPU workers asleep while their devices work (gpu.host_sync = block; the capture ran %s): "
                          "not busy threads then (captures asleep: prove_start's CPU 10-15%% of its wall).\n",
                 had == GS_CU_SYNC_AUTO ? "auto" : "spin");
        return 1;
    }
    if (spun && (want == GS_CU_SYNC_AUTO || want == GS_CU_SYNC_SPIN)) {
        snprintf(note, n, "gpu.host_sync = %s from a capture that ran %s: the same spinning wait with fewer CUDA "
                          "contexts than CPUs.\n", want == GS_CU_SYNC_SPIN ? "spin" : "auto",
                 had == GS_CU_SYNC_SPIN ? "spin" : "auto");
        return 1;
    }
    return 0;
}

/* The [gpu] knobs: the captured device stages and host waits hold for the
 * knobs the capture ran with (scenario.gpu.* in its metadata; a capture
 * without them ran the defaults).  A knob set otherwise changes how the
 * kernels run, or how the backend's host threads copy and wait (copy_threads,
 * host_sync), which no capture of the other value tells: refused, naming
 * the capture to take instead of a silent prediction of the old knob;
 * host_sync's modelled changes (above) go into note. */
static gs_status check_gpu_knobs(const gs_model *model, const gs_scenario *s, char *note, size_t n, gs_err *err)
{
    if (n)
        note[0] = 0;
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        const gs_cu_knob_def *d = gs_cu_knob_def_of((gs_cu_knob_id)k);
        char key[96], want[64], had[64];
        snprintf(key, sizeof key, "scenario.gpu.%s", d->key);
        gs_cu_knob_format((gs_cu_knob_id)k, s->gpu[k], want, sizeof want);
        const char *cap = gs_model_meta(model, key);
        if (cap)
            snprintf(had, sizeof had, "%s", cap);
        else
            gs_cu_knob_format((gs_cu_knob_id)k, gs_cu_knob_default((gs_cu_knob_id)k), had, sizeof had);
        int h;
        if (strcmp(want, had) && k == GS_CU_K_HOST_SYNC && gs_cu_knob_parse((gs_cu_knob_id)k, had, &h)) {
            int w = s->gpu[k];
            if (host_sync_modelled(w, h, note, n))
                continue;
            if (h == GS_CU_SYNC_BLOCK && (w == GS_CU_SYNC_AUTO || w == GS_CU_SYNC_SPIN))
                return GS_ERR(err, GS_ERR_UNSUPPORTED, "predict",
                              "gpu.host_sync = %s: the capture's GPU workers slept through the device work, and a "
                              "spinning worker slowed synthesis ~18%% at 12 threads on a 16-vCPU H100 "
                              "(traces/h100-r3s10-issue31), which a capture asleep cannot tell; capture once with "
                              "--set gpu.host_sync=%s and predict from that capture", want, want);
        }
        if (strcmp(want, had))
            return GS_ERR(err, GS_ERR_UNSUPPORTED, "predict",
                          "gpu.%s = %s: the capture ran %s, and how the device kernels or the backend's host "
                          "threads run under another value is not in it; capture once with --set gpu.%s=%s "
                          "(gapscope run) and predict from that capture",
                          d->key, want, had, d->key, want);
    }
    return GS_OK;
}

/* Can the model answer this scenario (every (kind, size) it replays)? */
static gs_status check_model(const gs_model *model, const gs_scenario *s, const gs_trace *arr,
                             gs_timeline *tl, gs_err *err)
{
    char sync_note[400];
    gs_status gst = check_gpu_knobs(model, s, sync_note, sizeof sync_note, err);
    if (gst != GS_OK)
        return gst;
    int kinds[64];
    uint32_t logs[64];
    int n = 0;
    for (size_t i = 0; i < arr->n; i++) {
        int k = (int)arr->a[i].kind;
        uint32_t l = gs_scenario_log_size(s, &arr->a[i]) + (uint32_t)s->model_size_shift;
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= kinds[j] == k && logs[j] == l;
        if (!seen && n < 64) {
            kinds[n] = k;
            logs[n++] = l;
        }
    }
    char notes[1024];
    gs_status st = gs_model_work_check(model, s->model_timeline, &s->engine, kinds, logs, n, notes,
                                       sizeof notes, err);
    if (st != GS_OK)
        return st;
    char all[3600];
    snprintf(all, sizeof all, "%s%s%s", gs_model_notes(model), notes, sync_note);
    gs_timeline_meta_set(tl, "model.capture", s->model_timeline);
    gs_timeline_meta_set(tl, "model.source", gs_model_source(model));
    const char *v = gs_model_meta(model, "build.git_rev");
    gs_timeline_meta_set(tl, "model.build.git_rev", v ? v : "unknown");
    v = gs_model_meta(model, "build.binary_sha256");
    gs_timeline_meta_set(tl, "model.build.binary_sha256", v ? v : "unknown");
    v = gs_model_meta(model, "host.cpu");
    gs_timeline_meta_set(tl, "model.host.cpu", v ? v : "unknown");
    char buf[32];
    snprintf(buf, sizeof buf, "%d", gs_model_cores(model));
    gs_timeline_meta_set(tl, "model.cores", buf);
    gs_timeline_meta_set(tl, "model.cpu_demand", gs_model_cpu_measured(model) ? "measured" : "inferred");
    gs_timeline_meta_set(tl, "model.assumed", all);
    gs_timeline_meta_set(tl, "run.clock", "virtual");
    return GS_OK;
}

gs_status gs_scn_run(const gs_scenario *s, const gs_run_opts *o, gs_run_result *res, gs_err *err)
{
    static const gs_run_opts defaults = {0};
    if (!o)
        o = &defaults;
    memset(res, 0, sizeof *res);
    gs_trace arr = {0};
    gs_timeline *tl = NULL;
    gs_backend *be[MAX_DEVICES] = {0};
    gs_model *model = o->model;
    gs_engine *e = NULL;
    driver drv;
    memset(&drv, 0, sizeof drv);
    gs_work_model *work = NULL;
    int nbe = 0, virt = 0;
    char path[GS_SCN_PATH_MAX];
    int64_t *sub_ns = NULL, *int_ns = NULL;
    gs_cpu_sampler *sampler = NULL;
    /* What a run writes into its directory: a failed run leaves none of it
     * (common/outdir.h); a stopped run (SIGINT/SIGTERM) is not a failed
     * one: it writes everything, marked interrupted. */
    static const char *const outputs[] = {"scenario.ini", "arrivals.jsonl", "jobs.csv", "spans.csv",
                                          "timeline.json", "timeline.perfetto-trace",
                                          "summary.json", "data", "charts", "report.md",
                                          "report.html", NULL};
    gs_outdir od;
    int od_open = 0;

    gs_status st = gs_scenario_arrivals(&arr, s, err);
    if (st != GS_OK)
        goto fail;
    res->arrivals = arr.n;
    if ((st = gs_timeline_create(&tl)) != GS_OK) {
        gs_err_set(err, st, "run", s->path, "cannot create the timeline");
        goto fail;
    }
    if (s->backend == GS_BACKEND_MODEL) {
        /* A modelled run: everything is checked before any file is written. */
        if (!model && (st = gs_model_load(&model, s->model_timeline, err)) != GS_OK)
            goto fail;
        /* The workers' wait (check_gpu_knobs says which changes hold). */
        gs_model_set_worker_sleeps(model, s->gpu[GS_CU_K_HOST_SYNC] == GS_CU_SYNC_BLOCK);
        if ((st = check_model(model, s, &arr, tl, err)) != GS_OK ||
            (st = gs_model_work_create(&work, model, &s->engine, s->model_size_shift, s->engine.seed, err)) != GS_OK)
            goto fail;
    }
    if (o->out_dir)
        snprintf(res->dir, sizeof res->dir, "%s", o->out_dir);
    else
        default_dir(res->dir, sizeof res->dir, s);
    if ((st = gs_outdir_begin(&od, res->dir, outputs, err)) != GS_OK)
        goto fail;
    od_open = 1;
    if ((st = write_scenario(s, res->dir, err)) != GS_OK)
        goto fail;
    path_in(path, sizeof path, res->dir, "arrivals.jsonl");
    if ((st = gs_trace_write(&arr, path, "ms", err)) != GS_OK)
        goto fail;
    set_meta(tl, s, res->dir);
    /* Engine and backend threads inherit a mask with SIGINT/SIGTERM blocked:
     * only this (driver) thread takes them (interrupt.c). */
    sigset_t stop_sigs, old_mask;
    sigemptyset(&stop_sigs);
    sigaddset(&stop_sigs, SIGINT);
    sigaddset(&stop_sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_sigs, &old_mask);
    /* The [gpu] knobs for this run (the CUDA backend reads them from its
     * creation on; back to their defaults when the run ends). */
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++)
        gs_cu_knob_set((gs_cu_knob_id)k, s->gpu[k]);
    if (!work)
        probe_meta(tl, s, "before");
    st = make_backends(be, &nbe, &model, s, tl, o->quiet, err);
    if (st == GS_OK && !o->quiet)
        fprintf(stderr, "gapscope: %s: %zu jobs, backend %s x%d, %d synth threads, %d GPU worker%s, trim %s, "
                        "replay %s -> %s\n", s->path[0] ? s->path : "scenario", arr.n, be[0]->ops->name, nbe,
                s->engine.synth_threads, s->engine.gpu_workers_per_device,
                s->engine.gpu_workers_per_device == 1 ? "" : "s",
                s->settings ? gs_scenario_setting_value(s, "engine.trim") : "?", gs_replay_mode_name(s->replay),
                res->dir);
    gs_engine_config cfg = s->engine;
    if (st == GS_OK && work) {
        /* The virtual clock: the modelled CPU has the captured cores, one
         * pool per device as wide as the captured pool. */
        gs_vt_cfg vc = {.cores = gs_model_cores(model), .n_pools = nbe, .on_cpu = on_cpu,
                        .on_cpu_ctx = gs_tl_lane_open(tl, "driver/cpu", GS_ROLE_DRIVER, -1, -1),
                        .speed = model_speed, .speed_ctx = model};
        for (int d = 0; d < nbe && d < GS_VT_MAX_POOLS; d++)
            vc.pool_width[d] = gs_model_cores(model);
        if (vc.n_pools > GS_VT_MAX_POOLS)
            vc.n_pools = GS_VT_MAX_POOLS;
        if ((st = gs_vt_start(&vc, gs_now_ns(), err)) == GS_OK) {
            virt = 1;
            cfg.work = work;
        }
    }
    if (st == GS_OK)
        st = gs_engine_create(&e, &cfg, be, nbe, tl, err);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (st != GS_OK)
        goto fail;
    gs_tl_lane *lane = gs_tl_lane_open(tl, "driver", GS_ROLE_DRIVER, -1, -1);
    if (!virt)
        sampler = gs_cpu_sampler_start(tl);
    int64_t t0 = gs_now_ns() + 5000000; /* a little lead so the first arrival is on time */
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)t0);
    gs_timeline_meta_set(tl, "run.start_ns", buf);
    if (!virt) {   /* a modelled run's clock is virtual: nothing to anchor */
        gs_clock_anchor anchor;
        gs_clock_anchor_read(&anchor);
        gs_timeline_set_anchor(tl, &anchor);
    }
    sub_ns = malloc((arr.n ? arr.n : 1) * sizeof *sub_ns);
    int_ns = malloc((arr.n ? arr.n : 1) * sizeof *int_ns);
    if (!sub_ns || !int_ns) {
        st = GS_ERR(err, GS_ERR_NOMEM, "run", "out of memory");
        goto fail;
    }
    drv.e = e;
    drv.s = s;
    drv.o = o;
    drv.res = res;
    drv.t0 = t0;
    drv.virt = virt;
    drv.err = err;
    drv.st = GS_OK;
    replay(&drv, &arr, lane, sub_ns, int_ns);
    int64_t stop_ns;
    drain(&drv, arr.n, &stop_ns);
    st = drv.st;
    int64_t t1 = gs_now_ns();
    res->wall_s = (double)(t1 - t0) * 1e-9;
    snprintf(buf, sizeof buf, "%lld", (long long)t1);
    gs_timeline_meta_set(tl, "run.end_ns", buf);
    /* 0: the drain timed out (or a stop's grace ran out) and what was left
     * was cancelled or stayed pending. */
    gs_timeline_meta_set(tl, "run.drained", res->drained ? "1" : "0");
    if (res->interrupted) {
        gs_timeline_meta_set(tl, "run.interrupted", gs_scn_signal_name(res->interrupted));
        snprintf(buf, sizeof buf, "%lld", (long long)stop_ns);
        gs_timeline_meta_set(tl, "run.interrupted_ns", buf);
    }
    size_t nr = 0;
    const gs_job_result *r = gs_engine_results(e, &nr);
    for (size_t i = 0; i < nr; i++) {
        if (r[i].status == GS_OK)
            res->completed++;
        else
            res->failed++;
        res->cancelled += r[i].status == GS_ERR_CANCELLED;
        res->verified += r[i].verified == 1;
        res->verify_failed += r[i].verified == -1;
    }
    if (st == GS_OK)
        st = write_jobs(res->dir, &arr, sub_ns, int_ns, r, nr, res->interrupted, stop_ns, err);
    if (st == GS_OK && o->record_path)
        st = gs_scn_record_from_run(res->dir, o->record_path, err);
    if (virt)
        gs_vt_stop(); /* shutdown passes in frozen virtual time */
    gs_engine_destroy(e); /* capture stops here */
    e = NULL;
    if (virt) {
        gs_vt_end();
        virt = 0;
    }
    gs_cpu_sampler_stop(sampler);
    sampler = NULL;
    if (!work)
        gs_machine_peak_rss_meta(tl);
    if (st == GS_OK && !work)
        probe_meta(tl, s, "after");
    if (st != GS_OK)
        goto fail;
    char csv[GS_SCN_PATH_MAX + 16];
    path_in(csv, sizeof csv, res->dir, "spans.csv");
    if ((st = o->no_trace ? gs_timeline_write_csv(tl, csv, err)                      /* spans.csv only */
                          : gs_timeline_write_run(tl, res->dir, GS_TRACE_AUTO, NULL, err)) != GS_OK) /* + trace */
        goto fail;
    if (!o->quiet)
        fprintf(stderr, "gapscope: %zu jobs done in %.1f s: %zu completed, %zu failed, %zu verified%s%s%s\n", nr,
                res->wall_s, res->completed, res->failed, res->verified,
                res->interrupted ? " (interrupted by " : "", res->interrupted ? gs_scn_signal_name(res->interrupted) : "",
                res->interrupted ? ")" : res->drained ? "" : " (drain timed out)");
    /* --no-report skips the rendering only: summary.json (the analysis) is
     * what gate, sweep and later `gapscope report` read. */
    st = gs_scn_report(res, o->quiet, !o->no_report && !o->no_charts, err);
fail:
    if (virt)
        gs_vt_stop();
    if (e)
        gs_engine_destroy(e);
    if (virt)
        gs_vt_end();
    gs_cpu_sampler_stop(sampler);
    for (int d = 0; d < nbe; d++)
        if (be[d])
            be[d]->ops->destroy(be[d]);
    gs_cu_knobs_reset();
    gs_model_work_destroy(work);
    if (model != o->model)
        gs_model_destroy(model);
    gs_timeline_destroy(tl);
    gs_trace_free(&arr);
    free(drv.heap);
    free(sub_ns);
    free(int_ns);
    if (od_open)
        gs_outdir_end(&od, st != GS_OK);
    return st;
}
