/* Model device: fitting the hand-made sample timeline (traces/model-sample.spans.csv). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "../timeline/timeline.h"
#include "model.h"
#include "../scenarios/test_scn_util.h"
#include "../scenarios/run.h"

static int near(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

static const char *root(void) { return getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : "."; }

/* Loads the model of traces/<name> into *m; path gets the file's path. */
static gs_status load_trace(gs_model **m, const char *name, char *path, size_t len, gs_err *err)
{
    snprintf(path, len, "%s/traces/%s", root(), name);
    *m = NULL;
    gs_err_clear(err);
    return gs_model_load(m, path, err);
}

GS_TEST(model_fit_sample)
{
    char path[600];
    gs_model *m;
    gs_err err;
    if (load_trace(&m, "model-sample.spans.csv", path, sizeof path, &err) != GS_OK) {
        if (err.status == GS_ERR_IO) {
            gs_test_skip("%s not found (run from the repository root)", path);
            return;
        }
        GS_CHECK_MSG(0, "load: %s", err.msg);
        return;
    }
    /* Medians per partition at the captured sizes (two partitions each). */
    GS_CHECK(near(gs_model_stage_s(m, "msm_h", 20, 0), 0.0255, 1e-6));
    GS_CHECK(near(gs_model_stage_s(m, "msm_h", 22, 0), 0.5 * (0.053 + 0.053 * 0.96), 1e-6));
    /* Stage totals per partition: three ntt spans add up. */
    GS_CHECK(near(gs_model_stage_s(m, "ntt", 20, 0), 0.5 * (0.0003 + 0.000312), 1e-3));
    /* Between and beyond the captured sizes: the log-log fit. */
    double a = gs_model_stage_s(m, "msm_h", 20, 0), b = gs_model_stage_s(m, "msm_h", 22, 0);
    GS_CHECK_MSG(near(gs_model_stage_s(m, "msm_h", 24, 0), b * b / a, 1e-6), "extrapolated %g",
                 gs_model_stage_s(m, "msm_h", 24, 0));
    GS_CHECK(near(gs_model_stage_s(m, "msm_h", 21, 0), sqrt(a * b), 1e-6));
    /* Pageable H2D without a pageable capture: pinned time x the DOMAIN.md ratio. */
    GS_CHECK(near(gs_model_stage_s(m, "h2d", 20, 1), gs_model_stage_s(m, "h2d", 20, 0) * GS_MODEL_PAGEABLE_FACTOR, 1e-9));
    GS_CHECK(gs_model_stage_s(m, "msm_b2", 20, 0) < 0); /* not captured */
    /* Device order. */
    static const char *order[] = {"h2d", "intt", "coset", "ntt", "msm_h", "msm_l", "msm_a", "msm_b1", "d2h"};
    GS_REQUIRE(gs_model_stage_count(m) == 9);
    for (int i = 0; i < 9; i++)
        GS_CHECK_MSG(!strcmp(gs_model_stage_name(m, i), order[i]), "stage %d is %s", i, gs_model_stage_name(m, i));
    GS_CHECK(strstr(gs_model_source(m), "H200") != NULL);
    gs_model_destroy(m);
}

GS_TEST(model_rejects_sizeless_timeline)
{
    char path[600];
    snprintf(path, sizeof path, "%s/nosize.spans.csv", gs_test_tmpdir());
    GS_REQUIRE(gs_test_write_text(path, "# gapscope timeline v1\n# lane 0,device,0,0,gpu0/stream0\n"
                                        "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args\n"
                                        "100,200,0,kernel,msm_h,1,0,0,-1,0,\n"));
    gs_model *m = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK(gs_model_load(&m, path, &err) == GS_ERR_FORMAT && m == NULL);
    GS_CHECK(strstr(err.msg, "known size") != NULL);
}

/* A run on the model device (a modelled run: the engine on the virtual
 * clock, every unit of work from the H200 capture): every job completes
 * unverified (no proofs exist), device spans are flagged MODELLED and last
 * as long as captured instances of their stage.  With devices = 2 the
 * engine's multi-device path runs (one backend, one GPU worker and one
 * device lane per device): the partitions must land on both devices. */
static void model_run(int devices)
{
    char cap[600], text[1400];
    gs_model *m;
    gs_err err;
    GS_REQUIRE(load_trace(&m, "h200-backlog.spans.csv", cap, sizeof cap, &err) == GS_OK);
    snprintf(text, sizeof text,
             "[engine]\nbackend = model\nmodel_timeline = %s\nmodel_size_shift = 11\nsynth_threads = %d\n"
             "trim = off\nverify = after_unlock\ndevices = %d\n"
             "[jobs]\nkinds = porep_c2:1\npartitions = porep_c2:%d\ncount = 1\nsize_map = porep_c2:9\nreplay = afap\n",
             cap, devices, devices, 3 * devices);
    char dir[600];
    gs_run_result r;
    GS_REQUIRE(ts_run_text(text, "model.ini", devices == 1 ? "run1" : "run2", 1, &r, dir, sizeof dir));
    GS_CHECK_EQ_INT(r.completed, 1);
    GS_CHECK_EQ_INT(r.verified, 0);
    char path[700];
    snprintf(path, sizeof path, "%s/spans.csv", dir);
    gs_timeline *tl = NULL;
    GS_REQUIRE(gs_timeline_read_csv(&tl, path, &err) == GS_OK);
    size_t n, dev_spans = 0, msm_h = 0, on_dev[2] = { 0, 0 };
    const gs_span *sp = gs_timeline_spans(tl, &n);
    double med = gs_model_stage_s(m, "msm_h", 20, 0);
    for (size_t i = 0; i < n; i++) {
        if (sp[i].kind != GS_SPAN_COUNTER)
            GS_CHECK_MSG(sp[i].flags & GS_SPAN_F_MODELLED, "span %s not flagged modelled", sp[i].name);
        if (sp[i].kind != GS_SPAN_KERNEL && sp[i].kind != GS_SPAN_COPY)
            continue;
        dev_spans++;
        const gs_lane_info *li = gs_timeline_lane(tl, sp[i].lane);
        GS_CHECK(li && li->device >= 0 && li->device < devices);
        if (li && li->device >= 0 && li->device < 2) on_dev[li->device]++;
        if (!strcmp(sp[i].name, "msm_h")) {
            double d = (double)(sp[i].end_ns - sp[i].start_ns) * 1e-9;
            GS_CHECK_MSG(near(d, med, 0.2), "msm_h lasted %g s, captured median %g s", d, med);
            msm_h++;
        }
    }
    GS_CHECK_EQ_INT(msm_h, 3 * devices);
    GS_CHECK_EQ_INT(dev_spans, 21 * devices); /* 7 captured stages x 3 partitions per device */
    for (int d = 0; d < devices; d++)
        GS_CHECK_MSG(on_dev[d] > 0, "no device span on device %d of %d", d, devices);
    const char *be = gs_timeline_meta_get(tl, "backend");
    GS_CHECK(be && !strcmp(be, "model"));
    GS_CHECK(gs_timeline_meta_get(tl, "device.1.name") != NULL || devices == 1);
    const char *clock = gs_timeline_meta_get(tl, "run.clock");
    GS_CHECK(clock && !strcmp(clock, "virtual"));
    gs_timeline_destroy(tl);
    gs_model_destroy(m);
}

GS_TEST(model_backend_run) { model_run(1); }
GS_TEST(model_backend_two_devices) { model_run(2); }

/* The shipped H200 capture (backlog-incident-gpu.ini, CUDA backend, 2^20 per partition)
 * loads and yields stage times of the right magnitude for that GPU. */
GS_TEST(model_fit_h200_capture)
{
    char path[600];
    gs_model *m;
    gs_err err;
    GS_REQUIRE(load_trace(&m, "h200-backlog.spans.csv", path, sizeof path, &err) == GS_OK);
    GS_CHECK(strstr(gs_model_source(m), "H200") != NULL);
    static const char *stages[] = {"h2d", "ntt", "msm_h", "msm_l", "msm_a", "msm_b1", "d2h"};
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        double s = gs_model_stage_s(m, stages[i], 20, 0);
        GS_CHECK_MSG(s > 0 && s < 1.0, "%s at 2^20: %g s", stages[i], s);
    }
    /* A 2^20 G1 MSM on the H200 takes tens of ms (DOMAIN.md: sppark 21-27 ms). */
    double msm = gs_model_stage_s(m, "msm_h", 20, 0);
    GS_CHECK_MSG(msm > 0.005 && msm < 0.1, "msm_h 2^20 = %g s", msm);
    /* Pageable staging costs more than pinned. */
    GS_CHECK(gs_model_stage_s(m, "h2d", 20, 1) > gs_model_stage_s(m, "h2d", 20, 0));
    gs_model_destroy(m);
}
