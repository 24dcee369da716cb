/*
 * Daemon-log importer tests.  The committed logs in test/fixtures/import/
 * were written by traces/gen/spans_to_daemon_log.py from gapscope captures
 * whose truth is known (their spans.csv): imported, each must give the
 * native analysis's utilization within 2 points and the same top cause.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>

#include "test_import_util.h"

static const struct {
    const char *spans, *log, *flags;
    int starved;   /* synthesis-starved: queue_empty at the top */
} pairs[] = {
    {"test/fixtures/import/demo-trim.spans.csv", "test/fixtures/import/demo-trim.daemon.log",
     "--noise", 0},
    {"traces/h200-backlog.spans.csv", "test/fixtures/import/h200-backlog.daemon.log", "", 1},
    {"traces/h200-backlog-g2dev.spans.csv", "test/fixtures/import/h200-backlog-g2dev.daemon.log",
     "--ansi", 0},
    /* engine.prep = ahead: the checks and host prep of partition k+1 run on
     * the worker's prep thread while k proves (GPU_START before the previous
     * GPU_END); G2 on the device, 6 synthesis threads, H200. */
    {"traces/h200-backlog-prep-ahead.spans.csv",
     "test/fixtures/import/h200-backlog-prep-ahead.daemon.log", "", 1},
    /* The same shape with the G2 MSM on the CPU (CPU backend,
     * test/fixtures/import/cpu-starved-ahead.ini). */
    {"test/fixtures/import/cpu-starved-ahead.spans.csv",
     "test/fixtures/import/cpu-starved-ahead.daemon.log", "", 1},
};

/* Utilization and top cause of the native capture and of its log imported. */
static void compare(const char *spans, const char *log, const char *name, double util_tol,
                    const char *what, int whole)
{
    gs_timeline *nat, *imp;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_read_csv(&nat, spans, &err) == GS_OK);
    gs_import_report rep;
    GS_REQUIRE(imp_test_load(&imp, &rep, log, GS_IMPORT_AUTO, 0, &err) == GS_OK);
    /* Without hot_path lines the tracing clock cannot be placed: the
     * FIN_TIMING lines are skipped (and counted). */
    GS_CHECK(!whole || gs_import_skipped_total(&rep) == 0);
    gs_analysis *a = imp_test_analyse(nat), *b = imp_test_analyse(imp);
    GS_REQUIRE(a && b && b->n_dev == 1);
    double ua = a->busy_s / a->span_s, ub = b->busy_s / b->span_s;
    GS_CHECK_MSG(fabs(ua - ub) <= util_tol, "%s (%s): util %.4f imported vs %.4f native", name,
                 what, ub, ua);
    GS_CHECK_MSG(a->verdict == b->verdict, "%s (%s): top cause %s imported vs %s native", name,
                 what, gs_cause_name(b->verdict), gs_cause_name(a->verdict));
    if (gs_test_verbose())
        printf("  %s (%s): util %.4f vs %.4f, %s %.1f%% vs %s %.1f%%\n", name, what, ub, ua,
               gs_cause_name(b->verdict), 100 * b->verdict_share, gs_cause_name(a->verdict),
               100 * a->verdict_share);
    if (whole) {
        GS_CHECK(!strcmp(gs_timeline_meta_get(imp, "timeline.approximate"), "1"));
        GS_CHECK(!strcmp(gs_timeline_meta_get(imp, "source"), "import:daemon_log"));
        GS_CHECK(b->dev[0].rule == GS_RULE_ENGINE);
        /* Device spans are the approximate per-partition busy spans. */
        const gs_span *p = imp_test_span(imp, "prove");
        GS_CHECK(p && (p->flags & GS_SPAN_F_APPROX) && strstr(p->args, "gpu_total_ms="));
    }
    gs_analysis_destroy(a);
    gs_analysis_destroy(b);
    gs_timeline_destroy(nat);
    gs_timeline_destroy(imp);
}

GS_TEST(import_daemon_log_matches_native_analysis)
{
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        compare(pairs[i].spans, pairs[i].log, pairs[i].log, 0.02, "whole log", 1);
}

GS_TEST(import_daemon_log_fixtures_are_the_script_output)
{
    char out[256];
    if (gs_test_run("python3 -c 'print(1)' 2>/dev/null", out, sizeof out) != 0) {
        gs_test_skip("python3 not available");
        return;
    }
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "python3 traces/gen/spans_to_daemon_log.py %s %s -o %s/x.log && cmp -s %s/x.log %s",
                 pairs[i].spans, pairs[i].flags, gs_test_tmpdir(), gs_test_tmpdir(), pairs[i].log);
        GS_CHECK_MSG(gs_test_run(cmd, out, sizeof out) == 0, "%s differs from the script's output",
                     pairs[i].log);
    }
}

static gs_status load_text(gs_timeline **tl, gs_import_report *rep, const char *text, gs_err *err)
{
    return imp_test_load_text(tl, rep, text, "d.log", GS_IMPORT_DAEMON_LOG, err);
}

/* One partition of job "a1", picked up at 100 ms after a finalizer holds the
 * tracker over [90, 140) ms running malloc_trim [100, 138) ms; the worker's
 * fail_check [101, 141) ms waits for that hold.  Tracing lines coloured. */
static const char *small_log =
    "TIMELINE,0,SYNTH_START,a1,partition=3\n"
    "TIMELINE,50,SYNTH_END,a1,partition=3,synth_ms=50\n"
    "TIMELINE,50,GPU_QUEUE,a1,partition=3\n"
    "TIMELINE,60,GPU_END,a0,worker=0,partition=0,gpu_ms=5\n"
    "TIMELINE,100,GPU_PICKUP,a1,worker=0,partition=3\n"
    "\x1b[2m2026-01-05T10:00:00.138000Z\x1b[0m \x1b[32m INFO\x1b[0m fin: FIN_TIMING malloc_trim "
    "(success path) \x1b[3mjob_id\x1b[0m\x1b[2m=\x1b[0ma0 partition=Some(0) malloc_trim_ms=38.0\n"
    "2026-01-05T10:00:00.140000Z  INFO fin: FIN_TIMING finalizer partition finish_ms=10 "
    "drop_res_ms=5 lock_wait_ms=5 process_ms=50 total_ms=70\n"
    "2026-01-05T10:00:00.142000Z  INFO eng: GPU_TIMING hot_path pre-prove overhead worker_id=0 "
    "partition=Some(3) status_ms=1.0 fail_check_ms=40.0 mark_busy_ms=1.0 total_overhead_ms=42\n"
    "TIMELINE,142,GPU_START,a1,worker=0,partition=3\n"
    "CUZK_TIMING: pre_lock_cpu_ms=8.0 mutex_wait_ms=2.0\n"
    "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=20\n"
    "CUZK_TIMING: gpu_tid=0 tail_msm_ms=10 gpu_total_ms=30.0\n"
    "CUZK_TIMING: mutex_held_ms=31 total_start_fn_ms=41\n"
    "CUZK_TIMING: b_g2_msm_ms=15 num_circuits=1\n"
    "TIMELINE,200,GPU_END,a1,worker=0,partition=3,gpu_ms=58\n"
    "TIMELINE,oops,GPU_START,a2\n"
    "CUZK_TIMING: gpu_total_ms=3\n"
    "2026-01-05T10:00:00.300000Z  INFO fin: FIN_TIMING finalizer partition finish_ms=1\n"
    "some unrelated line\n";

GS_TEST(import_daemon_log_rebuilt_spans)
{
    gs_timeline *tl;
    gs_import_report rep;
    gs_err err;
    GS_REQUIRE(load_text(&tl, &rep, small_log, &err) == GS_OK);
    /* The clock: hot_path at .142000 UTC = GPU_START at 142 ms. */
    const gs_span *fc = imp_test_span(tl, "fail_check");
    GS_REQUIRE(fc);
    GS_CHECK(fc->start_ns == 101 * 1000000LL && fc->end_ns == 141 * 1000000LL);
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    const gs_span *wait = NULL, *hold = NULL, *trim = NULL, *qw = NULL, *ho = NULL, *dev = NULL,
                  *pf = NULL;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, sp[i].lane);
        if (sp[i].kind == GS_SPAN_LOCK_WAIT && !strcmp(sp[i].name, "tracker") &&
            L->role == GS_ROLE_GPU_WORKER && !wait)
            wait = &sp[i];
        if (sp[i].kind == GS_SPAN_LOCK_HOLD && L->role == GS_ROLE_FINALIZER)
            hold = &sp[i];
        if (!strcmp(sp[i].name, "malloc_trim"))
            trim = &sp[i];
        if (!strcmp(sp[i].name, "queue_wait"))
            qw = &sp[i];
        if (!strcmp(sp[i].name, "handoff"))
            ho = &sp[i];
        if (sp[i].kind == GS_SPAN_KERNEL)
            dev = &sp[i];
        if (!strcmp(sp[i].name, "prove_finish") && L->role == GS_ROLE_GPU_WORKER)
            pf = &sp[i];
    }
    GS_REQUIRE(wait && hold && trim && ho && dev && pf);
    /* The finalizer's hold [90, 140), the trim inside it on the same lane;
     * the worker's fail_check waits [101, 140) for it, holder = that lane. */
    GS_CHECK(hold->start_ns == 90 * 1000000LL && hold->end_ns == 140 * 1000000LL);
    GS_CHECK(trim->lane == hold->lane && trim->start_ns == 100 * 1000000LL);
    GS_CHECK(wait->start_ns == 101 * 1000000LL && wait->end_ns == 140 * 1000000LL);
    GS_CHECK(wait->holder == hold->lane);
    /* Previous GPU_END at 60, queued at 50: no empty-queue wait, hand-off
     * work from 60 to the pickup (status_check at 100). */
    GS_CHECK(ho->start_ns == 60 * 1000000LL && ho->end_ns == 100 * 1000000LL);
    GS_CHECK(qw == NULL || qw->end_ns <= 60 * 1000000LL);
    /* Device busy = [142 + 8 + 2, + 30) ms, approximate. */
    GS_CHECK(dev->start_ns == 152 * 1000000LL && dev->end_ns == 182 * 1000000LL);
    GS_CHECK(dev->flags & GS_SPAN_F_APPROX);
    GS_CHECK(strstr(dev->args, "ntt_msm_h_ms=20.000") != NULL);
    GS_CHECK(pf->start_ns == 185 * 1000000LL && pf->end_ns == 200 * 1000000LL);
    /* Job ids are strings here: numbered in order of appearance. */
    GS_CHECK(dev->job == 1 && dev->part == 3);
    /* Skipped lines, per reason, with their first line. */
    GS_CHECK_EQ_INT(imp_test_skipped(&rep, "TIMELINE line with a non-numeric offset_ms"), 1);
    GS_CHECK_EQ_INT(imp_test_skipped(&rep, "CUZK_TIMING line outside"), 1);
    GS_CHECK_EQ_INT(imp_test_skipped(&rep, "FIN_TIMING finalizer line without"), 1);
    for (size_t i = 0; i < rep.n_skipped; i++)
        if (!strncmp(rep.skipped[i].reason, "TIMELINE line", 13))
            GS_CHECK(!strcmp(rep.skipped[i].first, "d.log:16"));
    GS_CHECK(rep.ignored >= 1);
    gs_timeline_destroy(tl);
}

GS_TEST(import_daemon_log_bad_input)
{
    gs_timeline *tl;
    gs_import_report rep;
    gs_err err;
    GS_CHECK(load_text(&tl, &rep, "hello\nworld\n", &err) == GS_ERR_FORMAT);
    GS_CHECK(strstr(err.msg, "d.log:1") != NULL);
    gs_timeline_destroy(tl);
    /* Binary junk and very long lines never crash. */
    char junk[9000];
    for (size_t i = 0; i < sizeof junk - 1; i++)
        junk[i] = (char)(i * 7919 % 251 + 1);
    junk[sizeof junk - 1] = '\0';
    memcpy(junk, "TIMELINE,1,GPU_START,x,worker=0\n", 32);
    GS_CHECK(load_text(&tl, &rep, junk, &err) == GS_OK);
    gs_timeline_destroy(tl);
}

GS_TEST(import_daemon_log_job_mix)
{
    char *buf;
    size_t len;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_read_file(&buf, &len, "test/fixtures/import/h200-backlog.daemon.log", &err) ==
               GS_OK);
    gs_log_job *jobs;
    size_t n;
    gs_import_report rep;
    gs_import_report_init(&rep);
    GS_REQUIRE(gs_import_daemon_jobs(&jobs, &n, &rep, (const uint8_t *)buf, len, "h.log", &err) ==
               GS_OK);
    /* The capture ran 3 PoRep C2 jobs of 10 partitions (h200-backlog/jobs.csv). */
    GS_REQUIRE(n == 3);
    for (size_t i = 0; i < n; i++) {
        GS_CHECK_EQ_INT(jobs[i].partitions, 10);
        GS_CHECK(!strcmp(jobs[i].kind, "porep_c2") && jobs[i].kind_inferred);
        GS_CHECK(i == 0 || jobs[i].t_ns >= jobs[i - 1].t_ns);
    }
    GS_CHECK(jobs[0].t_ns == 0 && jobs[0].id == 1);
    free(jobs);
    free(buf);
}

/* Daemons log different subsets of these lines (older builds print no
 * hot_path, C++ provers without CUZK_TIMING pre_lock, GPU_PICKUP only with
 * some log levels).  On synthesis-starved captures the importer must still
 * say queue_empty, with the native utilization: the queue wait is inferred
 * up to GPU_START when no pickup is logged, and the device work of a
 * partition prepared ahead starts no earlier than the worker's previous
 * GPU_END.  Buggy: without pickup lines the starved gaps were `other`;
 * without pre_lock lines a prepared-ahead partition's device span began at
 * its GPU_START, over the previous one (util 13 points low). */
GS_TEST(import_daemon_log_partial_logs_of_starved_captures)
{
    static const struct {
        const char *what, *drop;   /* lines containing any '|'-separated part are dropped */
        double util_tol;
    } variants[] = {
        {"no pre_lock line", "pre_lock_cpu_ms", 0.02},
        {"no GPU_PICKUP, no hot_path", "GPU_PICKUP|hot_path", 0.02},
        /* Without CUZK lines the device is busy from GPU_START (or the
         * previous GPU_END) to GPU_END: host work inside counts as busy. */
        {"no CUZK_TIMING", "CUZK_TIMING", 0.06},
    };
    char *buf = NULL;
    size_t len;
    gs_err err;
    gs_err_clear(&err);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (!pairs[i].starved)
            continue;
        free(buf);
        GS_REQUIRE(gs_read_file(&buf, &len, pairs[i].log, &err) == GS_OK);
        for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++) {
            char path[512];
            snprintf(path, sizeof path, "%s/partial.log", gs_test_tmpdir());
            FILE *f = fopen(path, "w");
            GS_REQUIRE(f);
            for (const char *l = buf; l < buf + len;) {
                const char *e = memchr(l, '\n', (size_t)(buf + len - l));
                size_t n = e ? (size_t)(e - l) + 1 : (size_t)(buf + len - l);
                char line[4096], pat[64];
                GS_REQUIRE(n < sizeof line);
                memcpy(line, l, n);
                line[n] = '\0';
                snprintf(pat, sizeof pat, "%s", variants[k].drop);
                int keep = 1;
                for (char *tok = strtok(pat, "|"); tok && keep; tok = strtok(NULL, "|"))
                    keep = !strstr(line, tok);
                if (keep)
                    fputs(line, f);
                l += n;
            }
            fclose(f);
            compare(pairs[i].spans, path, pairs[i].log, variants[k].util_tol, variants[k].what, 0);
        }
    }
    free(buf);
}

/* Partition 1 prepared ahead: its GPU_START (120 ms) comes before partition
 * 0's GPU_END (200 ms) on the same worker.  Its checks, host prep [120, 150)
 * and the wait for the worker [150, 205) go to gpu_worker/0.0/prep; the
 * worker lane keeps one prove_start at a time (partition 1's from the
 * acquisition at 205 ms), the device work follows it. */
GS_TEST(import_daemon_log_prepared_ahead)
{
    static const char *log =
        "TIMELINE,0,GPU_QUEUE,j,partition=0\n"
        "TIMELINE,0,GPU_PICKUP,j,worker=0,partition=0\n"
        "2026-01-05T10:00:00.010000Z  INFO e: GPU_TIMING hot_path pre-prove overhead worker_id=0 "
        "partition=Some(0) status_ms=1 fail_check_ms=1 mark_busy_ms=1 total_overhead_ms=3\n"
        "TIMELINE,10,GPU_START,j,worker=0,partition=0\n"
        "CUZK_TIMING: pre_lock_cpu_ms=20 mutex_wait_ms=0\n"
        "TIMELINE,100,GPU_QUEUE,j,partition=1\n"
        "TIMELINE,110,GPU_PICKUP,j,worker=0,partition=1\n"
        "2026-01-05T10:00:00.120000Z  INFO e: GPU_TIMING hot_path pre-prove overhead worker_id=0 "
        "partition=Some(1) status_ms=1 fail_check_ms=1 mark_busy_ms=1 total_overhead_ms=3\n"
        "TIMELINE,120,GPU_START,j,worker=0,partition=1\n"
        "CUZK_TIMING: gpu_tid=0 tail_msm_ms=1 gpu_total_ms=160\n"
        "CUZK_TIMING: mutex_held_ms=170 total_start_fn_ms=190\n"
        "TIMELINE,200,GPU_END,j,worker=0,partition=0,gpu_ms=190\n"
        "CUZK_TIMING: pre_lock_cpu_ms=30 mutex_wait_ms=55\n"
        "CUZK_TIMING: gpu_tid=0 tail_msm_ms=1 gpu_total_ms=50\n"
        "CUZK_TIMING: mutex_held_ms=60 total_start_fn_ms=145\n"
        "TIMELINE,265,GPU_END,j,worker=0,partition=1,gpu_ms=145\n";
    gs_timeline *tl;
    gs_import_report rep;
    gs_err err;
    GS_REQUIRE(load_text(&tl, &rep, log, &err) == GS_OK);
    GS_CHECK_EQ_INT(gs_import_skipped_total(&rep), 0);
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, sp[i].lane);
        int prep = !strcmp(L->name, "gpu_worker/0.0/prep"), worker = !strcmp(L->name, "gpu_worker/0.0");
        int64_t a = sp[i].start_ns / 1000000, b = sp[i].end_ns / 1000000;
        if (sp[i].part == 1 && !strcmp(sp[i].name, "host_prep")) {
            GS_CHECK(prep && a == 120 && b == 150);
            seen |= 1;
        } else if (sp[i].part == 1 && !strcmp(sp[i].name, "ready_wait")) {
            GS_CHECK(prep && a == 150 && b == 205);
            seen |= 2;
        } else if (sp[i].part == 1 && !strcmp(sp[i].name, "prove_start")) {
            GS_CHECK(worker && a == 205 && b == 265);
            seen |= 4;
        } else if (sp[i].part == 1 && sp[i].kind == GS_SPAN_KERNEL) {
            GS_CHECK(a == 205 && b == 255);
            seen |= 8;
        } else if (sp[i].part == 1 && !strcmp(sp[i].name, "mark_busy")) {
            GS_CHECK(prep && b == 120);
            seen |= 16;
        } else if (!strcmp(sp[i].name, "handoff")) {
            GS_CHECK(worker && a == 200 && b == 205);
            seen |= 32;
        } else if (sp[i].part == 0 && !strcmp(sp[i].name, "prove_start")) {
            GS_CHECK(worker && a == 10 && b == 200);
        }
        GS_CHECK(!(sp[i].kind == GS_SPAN_LOCK_WAIT && sp[i].part == 1 &&
                   !strcmp(sp[i].name, "device_mutex")));
    }
    GS_CHECK_EQ_INT(seen, 63);
    gs_timeline_destroy(tl);
}

/* The log streamed from its file (gs_import_file: a line at a time through
 * windows from 16 bytes up) gives what the import from memory gives
 * (imp_test_same: spans, lanes, meta, records used and ignored, skips and
 * their first lines). */
static int same_streamed(const char *path, const char *window)
{
    gs_timeline *a = NULL, *b = NULL;
    gs_import_report ra, rb;
    gs_err ea, eb;
    gs_status sa = imp_test_load(&a, &ra, path, GS_IMPORT_DAEMON_LOG, 0, &ea);
    gs_import_report_init(&rb);
    gs_err_clear(&eb);
    if (gs_timeline_create(&b) != GS_OK)
        return 0;
    setenv("GS_IMPORT_WINDOW", window, 1);
    gs_status sb = gs_import_file(b, &rb, path, GS_IMPORT_AUTO, NULL, &eb);
    unsetenv("GS_IMPORT_WINDOW");
    int ok = imp_test_same(sa, &ea, a, &ra, sb, &eb, b, &rb);
    gs_timeline_destroy(a);
    gs_timeline_destroy(b);
    return ok;
}

GS_TEST(import_daemon_log_streamed_equals_memory)
{
    static const char *const windows[] = {"16", "4096", "8388608"};
    char odd[600];
    snprintf(odd, sizeof odd, "%s/odd.daemon.log", gs_test_tmpdir());
    FILE *f = fopen(odd, "wb");
    GS_REQUIRE(f);
    /* CRLF, ANSI colour, a NUL byte, a 5000-byte line, a last line without '\n' */
    fputs(small_log, f);
    fputs("\x1b[2m2026-01-05T10:00:00.100000Z\x1b[0m  INFO e: FIN_TIMING finalizer "
          "partition=Some(0) prove_finish_ms=1\r\n", f);
    fwrite("TIMELINE,5,GPU_QUEUE,\0,partition=0\n", 1, 35, f);
    for (int i = 0; i < 5000; i++)
        fputc(i % 50 ? 'x' : ' ', f);
    fputs("\nTIMELINE,9000,SYNTH_START,77,partition=1", f);
    fclose(f);
    const char *files[] = {odd, "test/fixtures/import/h200-backlog.daemon.log",
                           "test/fixtures/import/demo-trim.daemon.log"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++)
            GS_CHECK_MSG(same_streamed(files[i], windows[k]), "%s with a %s-byte window", files[i],
                         windows[k]);
    /* The job mix from the file (record --from-log) as from memory. */
    gs_log_job *ja, *jb;
    size_t na, nb;
    gs_import_report ra, rb;
    gs_import_report_init(&ra);
    gs_import_report_init(&rb);
    gs_err err;
    char *buf;
    size_t len;
    GS_REQUIRE(gs_read_file(&buf, &len, files[1], &err) == GS_OK);
    GS_REQUIRE(gs_import_daemon_jobs(&ja, &na, &ra, (const uint8_t *)buf, len, files[1], &err) ==
               GS_OK);
    setenv("GS_IMPORT_WINDOW", "16", 1);
    GS_REQUIRE(gs_import_daemon_jobs_path(&jb, &nb, &rb, files[1], &err) == GS_OK);
    unsetenv("GS_IMPORT_WINDOW");
    GS_CHECK(na == nb && na > 0 && !memcmp(ja, jb, na * sizeof *ja));
    free(ja);
    free(jb);
    free(buf);
}
