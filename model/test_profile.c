/*
 * The machine profile (model_profile.c) and its measurement
 * (calibrate.c): a small calibration on this machine writes a profile
 * that reads back the same; malformed profiles are refused naming the
 * file and what was expected; a profile changes a prediction where the
 * capture cannot tell (synthesis contention of traces/h200-g2dev).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test/test.h"
#include "model.h"
#include "model_work.h"

static const char *root(void) { return getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : "."; }

GS_TEST(profile_calibrate_round_trip)
{
    gs_calibrate_opts o = {.log = 10, .msm_log = 8, .max_threads = 2, .quiet = 1, .unit_s = 0.01};
    gs_profile p, q;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_calibrate(&p, &o, &err) == GS_OK);
    for (int k = 0; k < GS_SPEED_OTHER; k++) {
        GS_CHECK_MSG(p.cls[k].n >= 1 && p.cls[k].threads[0] == 1 && p.cls[k].speed[0] == 1, "class %s: %d points",
                     gs_model_speed_class_name(k), p.cls[k].n);
        for (int i = 0; i < p.cls[k].n; i++)
            GS_CHECK(p.cls[k].cpu_s[i] > 0 && p.cls[k].speed[i] > 0);
    }
    GS_CHECK(p.copy_gbps > 0);
    GS_CHECK_MSG(p.state_copy_gbps > 0 && p.state_copy_busy_gbps > 0, "state copy %.3f GB/s alone, %.3f busy",
                 p.state_copy_gbps, p.state_copy_busy_gbps);
    /* The staging copy (32 KiB at 2^10: one thread) alone, then beside 2
     * busy synthesis threads. */
    const gs_profile_class *sc = &p.cls[GS_SPEED_STAGING];
    GS_CHECK_MSG(sc->n == 2 && sc->threads[0] == 1 && sc->threads[1] == 3 && sc->speed[0] == 1 && sc->cpu_s[1] > 0,
                 "staging: %d rows", sc->n);
    /* The witness copy beside the MSMs and B = 0, then 2 busy synthesis
     * threads (the ladder's counts from 2 up to the CPUs, here 2 at
     * most), read back. */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    GS_CHECK_MSG(p.scs_n == (ncpu >= 2 ? 2 : 1) && p.scs_synth[0] == 0 && (p.scs_n < 2 || p.scs_synth[1] == 2),
                 "state copy rows: %d", p.scs_n);
    for (int i = 0; i < p.scs_n; i++)
        GS_CHECK_MSG(p.scs_gbps[i] > 0, "state copy beside %g synthesis threads: %g GB/s", p.scs_synth[i],
                     p.scs_gbps[i]);
    snprintf(p.host_cpu, sizeof p.host_cpu, "test cpu");
    /* The caller slept between the copies (no GS_CALIBRATE_STAGING_SPIN_MS);
     * a spinning caller's length is read back. */
    GS_CHECK_MSG(p.staging_spin_ms == 0, "staging caller spun %g ms", p.staging_spin_ms);
    p.staging_spin_ms = 50;
    char path[600];
    snprintf(path, sizeof path, "%s/profile.json", gs_test_tmpdir());
    GS_REQUIRE(gs_profile_write(&p, path, &err) == GS_OK);
    GS_REQUIRE(gs_profile_read(&q, path, &err) == GS_OK);
    GS_CHECK(q.cores == p.cores && q.log == 10 && !strcmp(q.host_cpu, "test cpu"));
    GS_CHECK_MSG(fabs(q.state_copy_busy_gbps - p.state_copy_busy_gbps) <= 1e-9 * p.state_copy_busy_gbps,
                 "state copy busy %.6f read back %.6f", p.state_copy_busy_gbps, q.state_copy_busy_gbps);
    /* Synthesis beside one busy-loop thread at 3/8 and 3/4 of the CPUs
     * (each a count of 1 or more that leaves a CPU for the loop, the two
     * distinct), read back. */
    int want_sbs = 0, b0 = (int)(3 * ncpu / 8), b1 = (int)(3 * ncpu / 4);
    want_sbs += b0 >= 1 && b0 + 1 <= ncpu;
    want_sbs += b1 >= 1 && b1 + 1 <= ncpu && b1 != b0;
    GS_CHECK_MSG(p.sbs_n == want_sbs, "synthesis beside a busy loop: %d rows, want %d", p.sbs_n, want_sbs);
    for (int i = 0; i < p.sbs_n; i++)
        GS_CHECK_MSG(p.sbs_slow[i] > 0, "beside a busy loop at B = %g: %g", p.sbs_synth[i], p.sbs_slow[i]);
    GS_CHECK_EQ_INT(q.sbs_n, p.sbs_n);
    for (int i = 0; i < p.sbs_n; i++)
        GS_CHECK(q.sbs_synth[i] == p.sbs_synth[i] && fabs(q.sbs_slow[i] - p.sbs_slow[i]) <= 1e-9 * p.sbs_slow[i]);
    /* Synthesis into reused buffers against into fresh memory at the
     * same counts (each 1..the CPUs, the two distinct), read back. */
    int want_sru = (b0 >= 1 && b0 <= ncpu) + (b1 >= 1 && b1 <= ncpu && b1 != b0);
    GS_CHECK_MSG(p.sru_n == want_sru, "synthesis into reused buffers: %d rows, want %d", p.sru_n, want_sru);
    for (int i = 0; i < p.sru_n; i++)
        GS_CHECK_MSG(p.sru_ratio[i] > 0.2 && p.sru_ratio[i] < 5, "reused / fresh at B = %g: %g", p.sru_synth[i],
                     p.sru_ratio[i]);
    GS_CHECK_EQ_INT(q.sru_n, p.sru_n);
    for (int i = 0; i < p.sru_n; i++)
        GS_CHECK(q.sru_synth[i] == p.sru_synth[i] && fabs(q.sru_ratio[i] - p.sru_ratio[i]) <= 1e-9 * p.sru_ratio[i]);
    GS_CHECK_EQ_INT(q.scs_n, p.scs_n);
    for (int i = 0; i < p.scs_n; i++)
        GS_CHECK(q.scs_synth[i] == p.scs_synth[i] && fabs(q.scs_gbps[i] - p.scs_gbps[i]) <= 1e-9 * p.scs_gbps[i]);
    /* The staging copies read sources in turn (256 MiB together, at most
     * 64 of them: 64 of 32 KiB at 2^10), read back. */
    GS_CHECK_MSG(p.staging_srcs == 64 && q.staging_srcs == 64, "staging sources %d, read back %d", p.staging_srcs,
                 q.staging_srcs);
    GS_CHECK_MSG(q.staging_spin_ms == 50, "staging caller's spin read back %g ms", q.staging_spin_ms);
    GS_CHECK_MSG(p.msm_witness == 2 && q.msm_witness == 2, "msm_b2 on the witness of B's wires: %d, read back %d",
                 p.msm_witness, q.msm_witness);
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++) {
        GS_CHECK_EQ_INT(q.cls[k].n, p.cls[k].n);
        for (int i = 0; i < p.cls[k].n; i++)
            GS_CHECK(fabs(q.cls[k].speed[i] - p.cls[k].speed[i]) <= 1e-9 * p.cls[k].speed[i]);
    }
    /* The vCPU map: every online vCPU, speeds relative to the mean vCPU's
     * (all busy: 1 exactly; alone: the mean of two passes, each 1), read
     * back. */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    GS_CHECK_EQ_INT(p.n_cpus, (int)online);
    GS_CHECK_EQ_INT(q.n_cpus, p.n_cpus);
    double ms = 0, ml = 0;
    for (int i = 0; i < p.n_cpus; i++) {
        GS_CHECK(p.cpu_solo[i] > 0.2 && p.cpu_solo[i] < 5 && p.cpu_loaded[i] > 0.2 && p.cpu_loaded[i] < 5);
        GS_CHECK(fabs(q.cpu_solo[i] - p.cpu_solo[i]) <= 1e-9 && fabs(q.cpu_loaded[i] - p.cpu_loaded[i]) <= 1e-9);
        ml += p.cpu_loaded[i] / p.n_cpus;
        ms += p.cpu_solo[i] / p.n_cpus;
    }
    GS_CHECK_MSG(fabs(ml - 1) < 1e-9 && fabs(ms - 1) < 0.1, "mean speeds %.4f alone, %.4f all busy", ms, ml);
    GS_CHECK(fabs(q.cpu_drift - p.cpu_drift) <= 1e-9 && p.cpu_drift >= 0);
    /* Too small a size is refused. */
    o.log = 5;
    gs_err_clear(&err);
    GS_CHECK(gs_calibrate(&p, &o, &err) == GS_ERR_ARG);
}

static gs_status read_text(const char *text, gs_err *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/bad-profile.json", gs_test_tmpdir());
    if (!gs_test_write_text(path, text))
        return GS_ERR_IO;
    gs_profile p;
    gs_err_clear(err);
    return gs_profile_read(&p, path, err);
}

GS_TEST(profile_rejects_malformed_files)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"{\"format\":\"x\",\"version\":1}", "gapscope-profile"},
        {"{\"format\":\"gapscope-profile\",\"version\":2}", "version"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":0},\"classes\":{}}", "cores"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":4},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"classes\":{\"synth\":{\"threads\":[1,1],\"speed\":[1,1],\"cpu_s\":[1,1],\"lane_cv\":0}}}",
         "increasing"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":4},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"classes\":{\"gpu\":{}}}", "class"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":4},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"classes\":{\"synth\":{\"threads\":[1,2],\"speed\":[1],\"cpu_s\":[1,1],\"lane_cv\":0}}}",
         "one length"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":4},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"msm_scalars\":\"small\",\"classes\":{}}", "msm_scalars"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":2},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"classes\":{},\"cpus\":{\"solo\":[1,1],\"loaded\":[1],\"drift\":0}}", "one length"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":2},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"classes\":{},\"cpus\":{\"solo\":[1,0],\"loaded\":[1,1],\"drift\":0}}", "vCPU speeds"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":2},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"state_copy_synth\":{\"synth\":[0,2],\"gbps\":[1]},\"classes\":{}}", "one length"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":2},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"state_copy_synth\":{\"synth\":[2,2],\"gbps\":[1,1]},\"classes\":{}}", "ascending"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":2},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"state_copy_synth\":{\"synth\":[0,2],\"gbps\":[1,0]},\"classes\":{}}", "gbps in"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":2},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"synth_beside_spin\":{\"synth\":[6,12],\"slowdown\":[1]},\"classes\":{}}", "one length"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cores\":2},\"log\":18,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"synth_beside_spin\":{\"synth\":[0],\"slowdown\":[1]},\"classes\":{}}", "synth counts 1"},
        {"{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cpu\":\"x\",\"cores\":1},\"log\":10,\"copy_gbps\":1,"
         "\"pin_gbps\":0,\"synth_reused\":{\"synth\":[6],\"ratio\":[0]},\"classes\":{}}", "ratios in (0, 100]"},
        {"{\"format\":", "profile"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_err err;
        gs_status st = read_text(bad[i].text, &err);
        GS_CHECK_MSG(st == GS_ERR_FORMAT && strstr(err.msg, bad[i].want) && strstr(err.msg, "bad-profile.json"),
                     "case %zu: %s (%s)", i, gs_status_name(st), err.msg);
    }
}

/* The g2dev capture's synthesis ran at 6 runnable threads only: it cannot
 * tell its contention, so a profile's curve is taken, and normalizes the
 * demand (work at one thread's speed = captured / slowdown at T = 6). */
GS_TEST(profile_serves_what_the_capture_cannot_tell)
{
    char prof[600], spans[600];
    snprintf(prof, sizeof prof, "%s/slow.json", gs_test_tmpdir());
    snprintf(spans, sizeof spans, "%s/traces/h200-g2dev/spans.csv", root());
    GS_REQUIRE(gs_test_write_text(
        prof, "{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cpu\":\"x\",\"cores\":16},\"log\":20,"
              "\"copy_gbps\":6,\"pin_gbps\":0,\"classes\":{\"synth\":{\"threads\":[1,16],\"speed\":[1,0.5],"
              "\"cpu_s\":[1,2],\"lane_cv\":0.1}}}"));
    gs_model *plain = NULL, *prof_m = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_model_load(&plain, spans, &err) == GS_OK);
    GS_REQUIRE(gs_model_load_profiled(&prof_m, spans, prof, &err) == GS_OK);
    GS_CHECK(fabs(gs_model_speed(plain, GS_SPEED_SYNTH, 12) - 1) < 1e-12);
    /* Linear between (1, 1) and (16, 0.5): 1 - 11/30 at 12 threads. */
    GS_CHECK_MSG(fabs(gs_model_speed(prof_m, GS_SPEED_SYNTH, 12) - (1 - 11.0 / 30)) < 1e-9, "speed %.4f",
                 gs_model_speed(prof_m, GS_SPEED_SYNTH, 12));
    int a = gs_model_find(plain, "synth", GS_WHERE_CPU), b = gs_model_find(prof_m, "synth", GS_WHERE_CPU);
    double x, y;
    GS_REQUIRE(gs_model_cost(plain, a, 3, 20, 1, 0, 0, &x, &err) == GS_OK);
    GS_REQUIRE(gs_model_cost(prof_m, b, 3, 20, 1, 0, 0, &y, &err) == GS_OK);
    /* About 6 runnable threads: slowdown 1 / (1 - 5/30) = 1.2. */
    GS_CHECK_MSG(y < x / 1.15 && y > x / 1.25, "solo-speed demand %.4f against captured %.4f", y, x);
    GS_CHECK(strstr(gs_model_notes(prof_m), "Contention of synth") == NULL);
    GS_CHECK(strstr(gs_model_notes(plain), "Contention of synth") != NULL);
    gs_model_destroy(plain);
    gs_model_destroy(prof_m);
}

/* The staging copy's curve from a profile: base-1 of traces/h200-r3 never
 * ran its staging beyond the cores, so the profile's table is taken.  Its
 * wall times are made non-decreasing (a level timed faster than one with
 * fewer threads beside it is noise: 3 and 2 ms pool to 2.5) and the speeds
 * follow from them, share min(1, 16 / T): 1, 1/2.5, 1/(2.5 x 0.8),
 * 1/(8 x 2/3).  The speed at T = 20 is above T = 16's: the wall held
 * while the share fell (the profile's own speed field, 0.5 0.8 0.3, is
 * not read for staging when its walls are there).  Every other class's
 * speeds are made non-increasing. */
GS_TEST(profile_staging_curve_never_rises)
{
    char prof[600], spans[600];
    snprintf(prof, sizeof prof, "%s/staging.json", gs_test_tmpdir());
    snprintf(spans, sizeof spans, "%s/traces/h200-r3/base/base-1/spans.csv", root());
    GS_REQUIRE(gs_test_write_text(
        prof, "{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cpu\":\"x\",\"cores\":16},\"log\":20,"
              "\"copy_gbps\":6,\"pin_gbps\":0,\"classes\":{\"staging\":{\"threads\":[8,16,20,24],"
              "\"speed\":[1,0.5,0.8,0.3],\"cpu_s\":[0.001,0.003,0.002,0.008],\"lane_cv\":0},"
              "\"msm_b2\":{\"threads\":[1,2,4,6],\"speed\":[1,0.666,0.743,0.818],\"cpu_s\":[1,1.5,1.35,1.22],"
              "\"lane_cv\":0}}}"));
    gs_model *m = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_model_load_profiled(&m, spans, prof, &err) == GS_OK);
    GS_CHECK(fabs(gs_model_speed(m, GS_SPEED_STAGING, 8) - 1) < 1e-12);
    GS_CHECK_MSG(fabs(gs_model_speed(m, GS_SPEED_STAGING, 16) - 0.4) < 1e-9 &&
                     fabs(gs_model_speed(m, GS_SPEED_STAGING, 20) - 0.5) < 1e-9 &&
                     fabs(gs_model_speed(m, GS_SPEED_STAGING, 24) - 0.1875) < 1e-9,
                 "speeds %.4f %.4f %.4f", gs_model_speed(m, GS_SPEED_STAGING, 16),
                 gs_model_speed(m, GS_SPEED_STAGING, 20), gs_model_speed(m, GS_SPEED_STAGING, 24));
    GS_CHECK(strstr(gs_model_notes(m), "Contention of staging") == NULL);
    /* Every class likewise (the fresh H100 set's synth ladder: 0.67 at 2
     * threads, 0.82 at 6, pooled to 0.742; the capture cannot tell the
     * CPU G2 MSM's, so the profile's is taken). */
    for (int t = 2; t <= 6; t += 2)
        GS_CHECK_MSG(fabs(gs_model_speed(m, GS_SPEED_MSM_B2, t) - (0.666 + 0.743 + 0.818) / 3) < 1e-9,
                     "msm_b2 speed at %d: %.4f", t, gs_model_speed(m, GS_SPEED_MSM_B2, t));
    gs_model_destroy(m);
}

/* traces/h200-r3's base-1 ran the G2 MSM on the device; its profile
 * (calibrate of build 918117aaa926, before msm_scalars: uniform random
 * scalars) lends the CPU one, 12.8 cs per 2^20 partition, and says it was
 * timed on random scalars.  The g2cpu capture of the same call measured
 * it on the engine's witness (6.28 cs): borrowed, the measurement takes
 * the lent stage's place (it was kept before, the borrow ignored). */
GS_TEST(profile_lend_gives_way_to_a_borrowed_capture)
{
    char base[600], prof[600], g2cpu[600];
    snprintf(base, sizeof base, "%s/traces/h200-r3/base/base-1/spans.csv", root());
    snprintf(prof, sizeof prof, "%s/traces/h200-r3/base/base-1/machine-profile.json", root());
    snprintf(g2cpu, sizeof g2cpu, "%s/traces/h200-r3/changes/g2cpu/spans.csv", root());
    gs_model *m = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_model_load_profiled(&m, base, prof, &err) == GS_OK);
    int k = gs_model_find(m, "msm_b2", GS_WHERE_CPU);
    double lent = 0, got = 0;
    GS_REQUIRE(k >= 0 && gs_model_cost(m, k, 3, 20, 1, 0, 0, &lent, &err) == GS_OK);
    GS_CHECK_MSG(lent > 12 && lent < 13.5, "lent %.3f cs", lent);
    GS_CHECK(strstr(gs_model_notes(m), "lent by the machine profile") &&
             strstr(gs_model_notes(m), "uniform random scalars"));
    GS_REQUIRE(gs_model_borrow(m, g2cpu, &err) == GS_OK);
    k = gs_model_find(m, "msm_b2", GS_WHERE_CPU);
    GS_REQUIRE(k >= 0);
    for (int j = 1; j <= 3; j++)
        for (int q = 0; q < 10; q++) {
            double x = 0;
            GS_REQUIRE(gs_model_cost(m, k, 3, 20, j, q, 0, &x, &err) == GS_OK);
            got += x / 30;
        }
    GS_CHECK_MSG(got > 5.8 && got < 6.8, "borrowed %.3f cs per partition (lent %.3f)", got, lent);
    GS_CHECK(!strstr(gs_model_notes(m), "lent by the machine profile") &&
             strstr(gs_model_notes(m), "in place of the machine profile's"));
    gs_model_destroy(m);
}

/* synth_reused: a pinned capture (traces/h200-r3 base-1) with a profile
 * whose row says synthesis into reused buffers costs 0.90x at 6 threads
 * and 0.95x at 12: staging = direct costs its synthesis that (the
 * nearest count), pinned and pageable keep it, and the notes say so;
 * without the row the scale is 1 and the notes say nothing measured it.
 * A row read wrong, or applied to the capture's own staging, fails it. */
GS_TEST(profile_synth_reused_scales_synthesis_under_direct)
{
    char cap[600], with[600], without[600];
    snprintf(cap, sizeof cap, "%s/traces/h200-r3/base/base-1/spans.csv", root());
    snprintf(with, sizeof with, "%s/sru.json", gs_test_tmpdir());
    snprintf(without, sizeof without, "%s/nosru.json", gs_test_tmpdir());
    const char *head = "{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cpu\":\"x\",\"cores\":16},\"log\":20,"
                       "\"copy_gbps\":6,\"pin_gbps\":0";
    FILE *f = fopen(with, "w");
    GS_REQUIRE(f);
    fprintf(f, "%s,\"synth_reused\":{\"synth\":[6,12],\"ratio\":[0.9,0.95]},\"classes\":{}}\n", head);
    fclose(f);
    GS_REQUIRE((f = fopen(without, "w")) != NULL);
    fprintf(f, "%s,\"classes\":{}}\n", head);
    fclose(f);
    gs_model *m = NULL, *m0 = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_model_load_profiled(&m, cap, with, &err) == GS_OK);
    GS_REQUIRE(gs_model_load_profiled(&m0, cap, without, &err) == GS_OK);
    int meas = -1;
    GS_CHECK(gs_model_synth_staging_scale(m, 1, 6, &meas) == 0.9 && meas == 1);
    GS_CHECK(gs_model_synth_staging_scale(m, 1, 12, NULL) == 0.95);
    GS_CHECK(gs_model_synth_staging_scale(m, 1, 8, NULL) == 0.9);
    GS_CHECK(gs_model_synth_staging_scale(m, 1, 16, NULL) == 0.95);
    GS_CHECK(gs_model_synth_staging_scale(m, 0, 6, &meas) == 1 && meas == 0);
    GS_CHECK(gs_model_synth_staging_scale(m0, 1, 6, &meas) == 1 && meas == 0);
    gs_engine_config cfg;
    gs_engine_config_defaults(&cfg);
    cfg.direct = 1;
    cfg.synth_threads = 12;
    cfg.g2_on_device = 1; /* as the capture ran */
    int kinds[1] = {3};
    uint32_t logs[1] = {20};
    char notes[2048];
    gs_status cs = gs_model_work_check(m, cap, &cfg, kinds, logs, 1, notes, sizeof notes, &err);
    GS_CHECK_MSG(cs == GS_OK, "check: %s", err.msg);
    GS_REQUIRE(cs == GS_OK);
    GS_CHECK_MSG(strstr(notes, "reused buffers costs 0.950x the capture's CPU") != NULL, "notes: %s", notes);
    GS_REQUIRE(gs_model_work_check(m0, cap, &cfg, kinds, logs, 1, notes, sizeof notes, &err) == GS_OK);
    GS_CHECK_MSG(strstr(notes, "is costed as the capture's (no synth_reused row") != NULL, "notes: %s", notes);
    cfg.direct = 0;
    GS_REQUIRE(gs_model_work_check(m, cap, &cfg, kinds, logs, 1, notes, sizeof notes, &err) == GS_OK);
    GS_CHECK_MSG(!strstr(notes, "synth_reused"), "notes: %s", notes);
    gs_model_destroy(m);
    gs_model_destroy(m0);
}

/* A profile (head: its fields up to "classes":{...}) with a map of 16
 * vCPUs, 0..5 at 1.6 and the others at 0.64, alone and all busy. */
static int write_map(const char *path, const char *head, double drift)
{
    FILE *g = fopen(path, "w");
    if (!g)
        return 0;
    fprintf(g, "%s,\"cpus\":{\"solo\":[", head);
    for (int a = 0; a < 2; a++) {
        for (int c = 0; c < 16; c++)
            fprintf(g, "%s%g", c ? "," : "", c < 6 ? 1.6 : 0.64);
        fprintf(g, a ? "],\"drift\":%g}}\n" : "],\"loaded\":[", drift);
    }
    return fclose(g) == 0;
}

/* Placement: traces/h200-r3's base-1 with its synthesis spans put on
 * vCPUs 0..5 (synth/i on vCPU i) and a map where those six run at 1.6
 * and the other ten at 0.64 of the mean: each synthesis instance's demand
 * is put at the host's mean vCPU, x 1.6 * E[1/v] = 1.6 * (6/1.6 +
 * 10/0.64) / 16 = 1.9375 against the same profile without a map; the
 * notes say so; a map whose passes differ as much as its vCPUs is not
 * used.  A placement dropped, or a map read from the wrong vCPUs, fails
 * it. */
GS_TEST(profile_vcpu_map_puts_synthesis_at_the_mean_vcpu)
{
    char src[600], dst[600], with[600], without[600];
    snprintf(src, sizeof src, "%s/traces/h200-r3/base/base-1/spans.csv", root());
    snprintf(dst, sizeof dst, "%s/placed.spans.csv", gs_test_tmpdir());
    FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
    GS_REQUIRE(in && out);
    char line[4096];
    int placed = 0;
    while (fgets(line, sizeof line, in)) {
        int lane;
        char *p = strstr(line, ",step,synth,"), *q;
        /* start,end,lane,step,synth,job,part,flags,holder,value,args,cpu_ns */
        if (line[0] != '#' && p && sscanf(strchr(line, ',') + 1, "%*[^,],%d", &lane) == 1 && lane >= 1 &&
            lane <= 6 && (q = strrchr(line, ','))) {
            *q = '\0';
            fprintf(out, "%s;cpu=%d;cpu_end=%d,%s", line, lane - 1, lane - 1, q + 1);
            placed++;
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    GS_REQUIRE(placed >= 30);
    const char *head = "{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cpu\":\"x\",\"cores\":16},\"log\":20,"
                       "\"copy_gbps\":6,\"pin_gbps\":0,\"classes\":{}";
    snprintf(with, sizeof with, "%s/map.json", gs_test_tmpdir());
    snprintf(without, sizeof without, "%s/nomap.json", gs_test_tmpdir());
    FILE *f = fopen(without, "w");
    GS_REQUIRE(f);
    fprintf(f, "%s}\n", head);
    fclose(f);
    GS_REQUIRE(write_map(with, head, 0.01));
    gs_model *mw = NULL, *mo = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_model_load_profiled(&mw, dst, with, &err) == GS_OK);
    GS_REQUIRE(gs_model_load_profiled(&mo, dst, without, &err) == GS_OK);
    int a = gs_model_find(mw, "synth", GS_WHERE_CPU), b = gs_model_find(mo, "synth", GS_WHERE_CPU);
    double x, y;
    GS_REQUIRE(gs_model_cost(mw, a, 3, 20, 1, 0, 0, &x, &err) == GS_OK);
    GS_REQUIRE(gs_model_cost(mo, b, 3, 20, 1, 0, 0, &y, &err) == GS_OK);
    GS_CHECK_MSG(fabs(x / y - 1.9375) < 1e-6, "placed demand %.5f / unplaced %.5f = %.5f", x, y, x / y);
    GS_CHECK(strstr(gs_model_notes(mw), "Placement: ") != NULL);
    GS_CHECK(strstr(gs_model_notes(mo), "Placement: ") == NULL);
    gs_model_destroy(mw);
    gs_model_destroy(mo);
    /* The same map whose two lone passes differed more than half the
     * vCPUs' spread (0.45 against 0.45): the host's load moving, not
     * vCPUs: not used, and said. */
    GS_REQUIRE(write_map(with, head, 0.45));
    GS_REQUIRE(gs_model_load_profiled(&mw, dst, with, &err) == GS_OK);
    a = gs_model_find(mw, "synth", GS_WHERE_CPU);
    GS_REQUIRE(gs_model_cost(mw, a, 3, 20, 1, 0, 0, &x, &err) == GS_OK);
    GS_CHECK_MSG(fabs(x / y - 1) < 1e-9, "unsteady map: %.5f / %.5f", x, y);
    GS_CHECK(strstr(gs_model_notes(mw), "vCPU map is not steady") != NULL);
    gs_model_destroy(mw);
}

/* A profile whose CPU G2 MSM was timed with the witness on every wire
 * (msm_scalars "witness", calibrate before witness_b) is lent scaled by
 * the share of the engine circuit's wires in B: the engine's B2 points of
 * the others are at infinity, which the MSM skips (at 2^16 on this
 * workstation: the engine's MSM 0.293 s, every wire 0.423, the witness
 * zero outside B 0.292; bench/RESULTS.md).  The same file marked
 * witness_b is lent as timed. */
GS_TEST(profile_lend_scales_an_every_wire_msm_to_b)
{
    double share = gs_calibrate_b_share();
    GS_CHECK_MSG(share > 0.66 && share < 0.68, "share of wires in B %.4f", share);
    char base[600], prof[600], wb[600];
    snprintf(base, sizeof base, "%s/traces/h100-r3s4-g2cpu/base-1/spans.csv", root());
    snprintf(prof, sizeof prof, "%s/traces/h100-r3s4-g2cpu/base-1/machine-profile.json", root());
    snprintf(wb, sizeof wb, "%s/witness_b.json", gs_test_tmpdir());
    GS_REQUIRE(gs_test_copy_edit(prof, wb, "\"msm_scalars\":\"witness\"", "\"msm_scalars\":\"witness_b\""));
    double cs[2] = {0, 0};
    const char *paths[2] = {prof, wb};
    for (int i = 0; i < 2; i++) {
        gs_model *m = NULL;
        gs_err err;
        gs_err_clear(&err);
        GS_REQUIRE(gs_model_load_profiled(&m, base, paths[i], &err) == GS_OK);
        int s = gs_model_find(m, "msm_b2", GS_WHERE_CPU);
        GS_CHECK(s >= 0 && gs_model_cost(m, s, 3, 20, 1, 0, 0, &cs[i], &err) == GS_OK);
        if (i == 0)
            GS_CHECK_MSG(strstr(gs_model_notes(m), "share of the circuit's wires in B"), "%s", gs_model_notes(m));
        else
            GS_CHECK(!strstr(gs_model_notes(m), "wires in B"));
        gs_model_destroy(m);
    }
    GS_CHECK_MSG(cs[1] > 0 && fabs(cs[0] / cs[1] - share) < 1e-6, "every wire %.3f cs, witness_b %.3f (share %.4f)",
                 cs[0], cs[1], share);
}

/* The profile's level against the capture's (gs_model_profile_level):
 * traces/h200-r3s17-base1, whose synthesis ran slower than its profile's
 * at 6 threads (a host that moved between calibrate and the capture),
 * reads 10-35% and says so in the notes.  Flat profiles are the oracle of
 * the median: with CPU per unit X at every T the level is med / X - 1, so
 * doubling X halves 1 + level, and X = med gives 0 and no note; a profile
 * timed at another size, or none, gives NAN.  A level read from the
 * wrong statistic, the wrong size or at the wrong threads fails it. */
static void flat_profile(const char *path, uint32_t log, const char *threads, double x)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cpu\":\"x\",\"cores\":16},\"log\":%u,"
               "\"copy_gbps\":6,\"pin_gbps\":0,\"classes\":{\"synth\":{\"threads\":[%s],\"speed\":[1,1],"
               "\"cpu_s\":[%.17g,%.17g],\"lane_cv\":0}}}\n", log, threads, x, x);
    fclose(f);
}

GS_TEST(profile_level_reads_the_host_against_the_capture)
{
    char cap[600], prof[600], p1[600], p2[600], p3[600], p18[600];
    snprintf(cap, sizeof cap, "%s/traces/h200-r3s17-base1/spans.csv", root());
    snprintf(prof, sizeof prof, "%s/traces/h200-r3s17-base1/machine-profile.json", root());
    snprintf(p1, sizeof p1, "%s/lv1.json", gs_test_tmpdir());
    snprintf(p2, sizeof p2, "%s/lv2.json", gs_test_tmpdir());
    snprintf(p3, sizeof p3, "%s/lv3.json", gs_test_tmpdir());
    snprintf(p18, sizeof p18, "%s/lv18.json", gs_test_tmpdir());
    gs_err err;
    gs_err_clear(&err);
    gs_model *m = NULL;
    GS_REQUIRE(gs_model_load_profiled(&m, cap, prof, &err) == GS_OK);
    double l = gs_model_profile_level(m);
    GS_CHECK_MSG(l > 0.10 && l < 0.35, "level %g", l);
    GS_CHECK_MSG(strstr(gs_model_notes(m), "Profile level:") && strstr(gs_model_notes(m), "more CPU per partition"),
                 "notes: %s", gs_model_notes(m));
    gs_model_destroy(m);
    m = NULL;
    GS_REQUIRE(gs_model_load(&m, cap, &err) == GS_OK);
    GS_CHECK(isnan(gs_model_profile_level(m)));
    gs_model_destroy(m);
    /* Flat at 1 (timed at T = 1 and 2: every step met more threads, held
     * flat above) and at 2 (timed at 12 and 16: held flat below). */
    flat_profile(p1, 20, "1,2", 1.0);
    flat_profile(p2, 20, "12,16", 2.0);
    gs_model *m1 = NULL, *m2 = NULL, *m3 = NULL;
    GS_REQUIRE(gs_model_load_profiled(&m1, cap, p1, &err) == GS_OK);
    GS_REQUIRE(gs_model_load_profiled(&m2, cap, p2, &err) == GS_OK);
    double l1 = gs_model_profile_level(m1), l2 = gs_model_profile_level(m2);
    GS_CHECK_MSG(fabs((1 + l1) - 2 * (1 + l2)) < 1e-12 && l1 > 0, "levels %g %g", l1, l2);
    flat_profile(p3, 20, "1,2", 1 + l1);
    GS_REQUIRE(gs_model_load_profiled(&m3, cap, p3, &err) == GS_OK);
    GS_CHECK_MSG(fabs(gs_model_profile_level(m3)) < 1e-12, "level %g", gs_model_profile_level(m3));
    GS_CHECK_MSG(!strstr(gs_model_notes(m3), "Profile level"), "notes: %s", gs_model_notes(m3));
    gs_model_destroy(m1);
    gs_model_destroy(m2);
    gs_model_destroy(m3);
    flat_profile(p18, 18, "1,2", 1.0);
    GS_REQUIRE(gs_model_load_profiled(&m, cap, p18, &err) == GS_OK);
    GS_CHECK(isnan(gs_model_profile_level(m)));
    gs_model_destroy(m);
}
