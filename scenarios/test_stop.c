/*
 * Clean stops and honest metadata (issue 16, part 4): SIGINT/SIGTERM sent
 * to a child `gapscope run` leave a consistent, interrupted-marked run
 * directory within a bounded time, a second signal exits at once, an
 * interrupted sweep keeps the tables of its complete runs, and the build
 * fingerprint never borrows an enclosing repository's revision.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../diag/jobs.h"
#include "../timeline/timeline.h"
#include "../common/json.h"
#include "../test/test.h"
#include "run.h"

#define REQUIRE_MSG(cond, ...)                                          \
    do {                                                                \
        if (!(cond)) {                                                  \
            gs_test_fail(__FILE__, __LINE__, __VA_ARGS__);              \
            return;                                                     \
        }                                                               \
    } while (0)

/* Output of a shell command, "" on failure. */
static void sh_out(char *out, size_t cap, const char *cmd)
{
    if (gs_test_run(cmd, out, cap) < 0)
        out[0] = '\0';
}

static int exists(const char *dir, const char *name)
{
    char p[2048];
    struct stat sb;
    snprintf(p, sizeof p, "%.1400s/%.200s", dir, name);
    return stat(p, &sb) == 0 && sb.st_size > 0;
}

/* Starts `bin run|sweep ...` as a child with stdout/stderr to log; returns
 * its pid (-1 on failure). */
static pid_t spawn(const char *const *argv, const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (f && dup2(fileno(stdout), 2) >= 0)
            execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits for pid at most limit_ns; returns its wait status, or -1 on
 * timeout (the child is then killed). */
static int wait_bounded(pid_t pid, int64_t limit_ns, int64_t *took_ns)
{
    int64_t t0 = gs_now_ns();
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            *took_ns = gs_now_ns() - t0;
            return st;
        }
        if (r < 0 && errno != EINTR)
            return -1;
        if (gs_now_ns() - t0 > limit_ns) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            *took_ns = gs_now_ns() - t0;
            return -1;
        }
        gs_sleep_ns(10000000);
    }
}

/* Polls the child's log until it contains word, at most limit_ns. */
static int wait_log(const char *log, const char *word, int64_t limit_ns)
{
    int64_t t0 = gs_now_ns();
    char buf[8192];
    while (gs_now_ns() - t0 < limit_ns) {
        FILE *f = fopen(log, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            buf[n] = '\0';
            fclose(f);
            if (strstr(buf, word))
                return 1;
        }
        gs_sleep_ns(20000000);
    }
    return 0;
}

/* A long scenario: 400 small jobs arriving 20 ms apart (~8 s of arrivals),
 * so a signal after the first progress line lands mid-run. */
static const char *long_scenario(void)
{
    static const char text[] =
        "; long.ini - test_stop.c: a run long enough to be interrupted\n"
        "[engine]\nbackend = cpu\nsynth_threads = 1\nprove_threads = 1\nqueue_depth = 2\n"
        "trim = after_unlock\nverify = after_unlock\nseed = 3\n"
        "[jobs]\nkinds = circuit:1\ncount = 400\ninterarrival = fixed:20ms\nsize_map = circuit:9\n"
        "replay = timed\n";
    static char path[700];
    snprintf(path, sizeof path, "%s/long.ini", gs_test_tmpdir());
    return gs_test_write_text(path, text) ? path : NULL;
}

/* Starts `gapscope run` of the long scenario into dir = <tmpdir>/<tag>,
 * its output in log = <dir>.log, with `--set set` when set is not NULL.
 * The pid, or -1 when it could not start. */
static pid_t start_long_run(char *dir, size_t dir_cap, char *log, size_t log_cap, const char *tag,
                            const char *set)
{
    const char *scn = long_scenario();
    if (!scn)
        return -1;
    snprintf(dir, dir_cap, "%s/%s", gs_test_tmpdir(), tag);
    snprintf(log, log_cap, "%s.log", dir);
    const char *argv[] = {gs_test_bin(), "run", scn, "--out", dir, set ? "--set" : NULL, set, NULL};
    return spawn(argv, log);
}

/* The run directory of an interrupted run: every file there, spans.csv
 * parses, jobs.csv covers every submitted job (each ended, cancelled by the
 * stop with the interruption named, or pending), summary.json carries
 * run.interrupted. */
static void check_interrupted_dir(const char *dir, const char *signame, int want_report)
{
    const char *files[] = {"scenario.ini", "arrivals.jsonl", "jobs.csv", "spans.csv", "timeline.json",
                           "summary.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        GS_CHECK_MSG(exists(dir, files[i]), "%s/%s missing after the stop", dir, files[i]);
    if (want_report)
        GS_CHECK_MSG(exists(dir, "report.md"), "%s/report.md missing after the stop", dir);
    char p[1200];
    gs_err err;
    gs_err_clear(&err);
    gs_timeline *tl = NULL;
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    GS_REQUIRE(gs_timeline_read_csv(&tl, p, &err) == GS_OK);
    const char *mi = gs_timeline_meta_get(tl, "run.interrupted");
    GS_CHECK_MSG(mi && !strcmp(mi, signame), "run.interrupted = %s", mi ? mi : "(none)");
    /* Submitted jobs by the driver's marks, finished ones by job_done. */
    size_t n, submits = 0, done = 0;
    const gs_span *s = gs_timeline_spans(tl, &n);
    for (size_t i = 0; i < n; i++) {
        submits += s[i].kind == GS_SPAN_MARK && !strcmp(s[i].name, "submit");
        done += s[i].kind == GS_SPAN_MARK && !strcmp(s[i].name, "job_done");
    }
    gs_job_record *jobs = NULL;
    size_t nj = 0;
    snprintf(p, sizeof p, "%s/jobs.csv", dir);
    GS_REQUIRE(gs_jobs_read_csv(&jobs, &nj, p, &err) == GS_OK);
    GS_CHECK_MSG(submits > 0 && submits < 400, "%zu jobs submitted (the stop should cut the replay)", submits);
    GS_CHECK_EQ_INT(nj, submits);
    size_t ok = 0, cancelled = 0, named = 0, pending = 0;
    for (size_t i = 0; i < nj; i++) {
        ok += !strcmp(jobs[i].status, "ok");
        pending += !strcmp(jobs[i].status, "pending");
        if (!strcmp(jobs[i].status, "GS_ERR_CANCELLED")) {
            cancelled++;
            named += strstr(jobs[i].error, "interrupted (") != NULL && strstr(jobs[i].error, signame) != NULL;
        }
    }
    GS_CHECK_MSG(ok + cancelled + pending == nj, "%zu ok + %zu cancelled + %zu pending != %zu jobs", ok,
                 cancelled, pending, nj);
    GS_CHECK_EQ_INT(named, cancelled);
    GS_CHECK_EQ_INT(done, ok + cancelled);
    free(jobs);
    gs_timeline_destroy(tl);
    /* summary.json: the analysis ran and says the run was interrupted. */
    gs_json *j = NULL;
    snprintf(p, sizeof p, "%s/summary.json", dir);
    GS_REQUIRE(gs_json_parse_file(&j, p, &err) == GS_OK);
    const gs_json *m = gs_json_get(gs_json_get(j, "meta"), "run.interrupted");
    GS_CHECK_MSG(m && m->text && !strcmp(m->text, signame), "summary.json meta run.interrupted missing");
    gs_json_free(j);
}

static void stop_run(int sig, const char *signame, const char *tag)
{
    GS_TEST_NEED_BIN();
    char dir[700], log[720];
    pid_t pid = start_long_run(dir, sizeof dir, log, sizeof log, tag, NULL);
    GS_REQUIRE(pid > 0);
    /* The first progress line comes 2 s into the replay: mid-run. */
    int started = wait_log(log, "replaying", 60LL * 1000000000LL);
    GS_CHECK_MSG(started, "no progress line in %s", log);
    kill(pid, sig);
    int64_t took;
    /* Bounded: running partitions finish (ms at 2^9), the grace is 10 s,
     * the report follows; 60 s covers a loaded machine. */
    int st = wait_bounded(pid, 60LL * 1000000000LL, &took);
    REQUIRE_MSG(st != -1, "gapscope run did not stop within 60 s of %s", signame);
    if (gs_test_verbose())
        printf("    %s: stopped in %.2f s, exit %d\n", signame, took * 1e-9, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    GS_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig, "exit status %d (want %d), see %s",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1, 128 + sig, log);
    check_interrupted_dir(dir, signame, 1);
}

GS_TEST(stop_sigint_leaves_a_consistent_run_dir) { stop_run(SIGINT, "SIGINT", "int"); }
GS_TEST(stop_sigterm_leaves_a_consistent_run_dir) { stop_run(SIGTERM, "SIGTERM", "term"); }

/* A second signal exits at once: no waiting for the grace or the report. */
GS_TEST(stop_second_signal_exits_at_once)
{
    GS_TEST_NEED_BIN();
    char dir[700], log[720];
    /* A 10 s injected synthesis keeps the first stop busy in its grace
     * period (the partition being synthesized runs on); it holds no lock,
     * so the driver keeps replaying (a hold under the tracker lock would
     * block its submissions: no progress line under ASan). */
    pid_t pid = start_long_run(dir, sizeof dir, log, sizeof log, "twice", "inject.synth.dist=fixed:10s");
    GS_REQUIRE(pid > 0);
    GS_CHECK_MSG(wait_log(log, "replaying", 60LL * 1000000000LL), "no progress line in %s", log);
    kill(pid, SIGINT);
    GS_CHECK(wait_log(log, "stopping", 10LL * 1000000000LL));
    kill(pid, SIGINT);
    int64_t took;
    int st = wait_bounded(pid, 5LL * 1000000000LL, &took);
    REQUIRE_MSG(st != -1, "a second SIGINT did not end gapscope within 5 s");
    GS_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT, "exit status %d",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    /* The second signal, not the end of the first stop, ended it (the
     * synthesis in flight had seconds left when the first came). */
    GS_CHECK_MSG(wait_log(log, "second signal", 1000000000LL), "no 'second signal' line in %s", log);
    /* No partial file under an output's name (outputs go through a
     * temporary and a rename): the timeline, when it got written at all,
     * reads back whole. */
    if (exists(dir, "spans.csv")) {
        char p[1200];
        gs_timeline *tl = NULL;
        gs_err err;
        gs_err_clear(&err);
        snprintf(p, sizeof p, "%s/spans.csv", dir);
        GS_CHECK_MSG(gs_timeline_read_csv(&tl, p, &err) == GS_OK, "partial spans.csv: %s", err.msg);
        gs_timeline_destroy(tl);
    }
}

/* An interrupted sweep: the interrupted run's directory is consistent and
 * marked, sweep.csv lists the complete runs only. */
GS_TEST(stop_sweep_keeps_complete_runs)
{
    GS_TEST_NEED_BIN();
    const char *bin = gs_test_bin();
    char scn[700], dir[700], log[720];
    snprintf(scn, sizeof scn, "%s/short.ini", gs_test_tmpdir());
    /* Each run about 2.5 s: 50 arrivals 50 ms apart. */
    GS_REQUIRE(gs_test_write_text(scn, "; short.ini - test_stop.c\n[engine]\nbackend = cpu\n"
                                       "synth_threads = 1\nprove_threads = 1\ntrim = off\n"
                                       "verify = after_unlock\n[jobs]\nkinds = circuit:1\ncount = 50\n"
                                       "interarrival = fixed:50ms\nsize_map = circuit:9\n"));
    snprintf(dir, sizeof dir, "%s/sweep", gs_test_tmpdir());
    snprintf(log, sizeof log, "%s.log", dir);
    const char *argv[] = {bin, "sweep", scn, "--vary", "inject.tracker_hold=1ms", "--reps", "3", "--out", dir, NULL};
    pid_t pid = spawn(argv, log);
    GS_REQUIRE(pid > 0);
    /* Let one run end, stop the second. */
    GS_CHECK_MSG(wait_log(log, "run 2/", 120LL * 1000000000LL), "sweep never reached its second run (%s)", log);
    gs_sleep_ns(500000000);
    kill(pid, SIGINT);
    int64_t took;
    int st = wait_bounded(pid, 60LL * 1000000000LL, &took);
    REQUIRE_MSG(st != -1, "sweep did not stop within 60 s");
    GS_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT, "exit status %d, see %s",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
    char p[1200], out[4096];
    snprintf(p, sizeof p, "wc -l < '%s/sweep.csv'", dir);
    sh_out(out, sizeof out, p);
    GS_CHECK_MSG(atoi(out) == 2, "sweep.csv has %d lines (want header + the one complete run)", atoi(out));
    snprintf(p, sizeof p, "%s/run-001", dir);
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    char sp[1300];
    snprintf(sp, sizeof sp, "%s/spans.csv", p);
    GS_REQUIRE(gs_timeline_read_csv(&tl, sp, &err) == GS_OK);
    const char *mi = gs_timeline_meta_get(tl, "run.interrupted");
    GS_CHECK(mi && !strcmp(mi, "SIGINT"));
    gs_timeline_destroy(tl);
    GS_CHECK(exists(p, "summary.json") && exists(p, "jobs.csv"));
}

/* gapscope version never reports a revision it does not know to be the
 * binary's.  A build made in a git checkout carries its commit (the
 * Makefile's GS_GIT_REV), so every copy of it, wherever it lies, reports
 * that one.  A build made without git asks the tree around the binary at
 * run time: unknown for an export unpacked inside another repository (not
 * that repository's commit), the export's own commit once it has its own
 * repository, unknown for a loose binary. */
GS_TEST(stop_fingerprint_never_borrows_a_revision)
{
    GS_TEST_NEED_BIN();
    const char *bin = gs_test_bin();
    char out[4096], cmd[8192], absbin[1024];
    if (!realpath(bin, absbin))
        snprintf(absbin, sizeof absbin, "%s", bin);
    bin = absbin;
    sh_out(out, sizeof out, "git --version 2>/dev/null");
    if (!strstr(out, "git version")) {
        gs_test_skip("git not installed");
        return;
    }
    const char *d = gs_test_tmpdir();
    /* A loose copy first: what the binary carries ("unknown": nothing). */
    snprintf(cmd, sizeof cmd, "mkdir -p '%.1000s' && cp '%.1000s' '%.1000s/gapscope-loose' && "
             "'%.1000s/gapscope-loose' version", d, bin, d, d);
    sh_out(out, sizeof out, cmd);
    char built[64] = "";
    const char *g0 = strstr(out, "(git ");
    REQUIRE_MSG(g0 != NULL, "no revision in: %s", out);
    sscanf(g0 + 5, "%63[^)]", built);
    int carried = strcmp(built, "unknown") != 0;
    const char *g = "git -c user.name=t -c user.email=t@t -c init.defaultBranch=main";
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s'; rm -rf outer; mkdir outer; cd outer; %s init -q .; "
             "echo x > f; %s add f; %s commit -q -m outer; "
             "mkdir -p export/build export/scenarios; touch export/Makefile export/scenarios/fingerprint.c; "
             "cp '%s' export/build/gapscope; %s rev-parse --short=12 HEAD",
             d, g, g, g, bin, g);
    char outer_rev[64];
    sh_out(outer_rev, sizeof outer_rev, cmd);
    outer_rev[strcspn(outer_rev, "\n")] = '\0';
    REQUIRE_MSG(strlen(outer_rev) == 12, "could not set up the enclosing repository (%s)", outer_rev);
    char exe[700];
    snprintf(exe, sizeof exe, "%s/outer/export/build/gapscope", d);
    char sha[65];
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_sha256_file(sha, exe, &err) == GS_OK);
    char want[80];
    snprintf(want, sizeof want, "(git %s)", built);
    snprintf(cmd, sizeof cmd, "'%s' version", exe);
    sh_out(out, sizeof out, cmd);
    GS_CHECK_MSG(strstr(out, carried ? want : "(git unknown)") != NULL, "exported tree: %s", out);
    GS_CHECK_MSG(strstr(out, outer_rev) == NULL, "the enclosing repository's %s was borrowed: %s", outer_rev, out);
    GS_CHECK_MSG(strstr(out, sha) != NULL, "binary hash %s missing: %s", sha, out);
    /* Its own repository: its own commit, unless the build carries one. */
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s/outer/export'; %s init -q .; %s add Makefile; %s commit -q -m export; "
             "%s rev-parse --short=12 HEAD",
             d, g, g, g, g);
    char own_rev[64];
    sh_out(own_rev, sizeof own_rev, cmd);
    own_rev[strcspn(own_rev, "\n")] = '\0';
    GS_REQUIRE(strlen(own_rev) == 12);
    snprintf(cmd, sizeof cmd, "'%s' version", exe);
    sh_out(out, sizeof out, cmd);
    GS_CHECK_MSG(strstr(out, carried ? want : own_rev) != NULL, "own repository %s, built %s: %s", own_rev,
                 built, out);
}
