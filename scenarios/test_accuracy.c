/*
 * Attribution accuracy on real engine runs (issue 7): for each suspect with
 * a known injected cause, the verdict names that cause, and the idle the
 * analysis attributes to it is within 10% of the idle the injection produced,
 * measured against the same scenario with the injection off
 * (scenarios/accuracy.ini; CPU backend, real synthesis and proofs).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/json.h"
#include "../test/test.h"

#define MAX_CAUSES 32

typedef struct {
    double idle_s;
    size_t n;
    char name[MAX_CAUSES][48];
    double cause_s[MAX_CAUSES];  /* idle by cause, summary.json order */
    char verdict[64];
} run_result;

static double cause_of(const run_result *r, const char *cause)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->name[i], cause))
            return r->cause_s[i];
    return 0.0;
}

static double median3(double a, double b, double c)
{
    return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

/* Runs accuracy.ini with extra --set arguments (--no-report: the analysis
 * still writes summary.json); reads device 0 of summary.json. */
static int run_one(const char *sets, const char *tag, run_result *out)
{
    const char *bin = getenv("GS_BIN");
    char dir[1024], cmd[4096], path[1100];
    snprintf(dir, sizeof dir, "%s/%s", gs_test_tmpdir(), tag);
    snprintf(cmd, sizeof cmd, "%s run scenarios/accuracy.ini --quiet --no-report --out %s %s >%s.log 2>&1",
             bin, dir, sets, dir);
    if (system(cmd) != 0) {
        gs_test_fail(__FILE__, __LINE__, "run failed: %s (see %s.log)", cmd, dir);
        return 0;
    }
    snprintf(path, sizeof path, "%s/summary.json", dir);
    gs_json *j;
    gs_err err;
    gs_err_clear(&err);
    if (gs_json_parse_file(&j, path, &err) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "%s", err.msg);
        return 0;
    }
    const gs_json *dev = gs_json_at(gs_json_get(j, "devices"), 0);
    const gs_json *causes = gs_json_get(dev, "causes");
    const gs_json *idle = gs_json_get(dev, "idle_s");
    memset(out, 0, sizeof *out);
    out->idle_s = idle ? idle->number : -1;
    for (size_t i = 0; causes && i < causes->n && out->n < MAX_CAUSES; i++) {
        const gs_json *c = gs_json_at(causes, i);
        const gs_json *name = gs_json_get(c, "cause"), *sec = gs_json_get(c, "idle_s");
        if (!name || !sec)
            continue;
        snprintf(out->name[out->n], sizeof out->name[0], "%s", name->text);
        out->cause_s[out->n++] = sec->number;
        if (i == 0)
            snprintf(out->verdict, sizeof out->verdict, "%s", name->text);
    }
    gs_json_free(j);
    return out->idle_s >= 0;
}

/* One on-run of a case against the baseline: 1 when the verdict names the
 * cause, the injection produced more than 0.5 s of idle and the attributed
 * idle is within 10% of it; else 0 with the reason in why. */
static int judge(const run_result *on, const char *cause, double base_idle, double base_cause,
                 char *why, size_t cap)
{
    double produced = on->idle_s - base_idle;
    double attributed = cause_of(on, cause) - base_cause;
    if (gs_test_verbose())
        printf("  %-26s produced %.3f s, attributed %.3f s (baseline idle %.3f s)\n", cause, produced,
               attributed, base_idle);
    if (strcmp(on->verdict, cause))
        snprintf(why, cap, "%s: verdict is %s", cause, on->verdict);
    else if (!(produced > 0.5))
        snprintf(why, cap, "%s: the injection produced only %.3f s of idle", cause, produced);
    else if (!(fabs(attributed - produced) <= 0.10 * produced))
        snprintf(why, cap, "%s: attributed %.3f s vs produced %.3f s (more than 10%% apart)", cause,
                 attributed, produced);
    else
        return 1;
    return 0;
}

/* The injections are sized to dwarf scheduling noise on a loaded 2-core
 * machine (issue 16: with 60 ms holds and a 120 ms synthesis delay 12 of
 * 20 runs failed at load average 5-9: a 0.1-0.3 s hand-off hiccup in one
 * run moved "produced" by more than 10%, and a prove slowed by load past
 * the 60 ms per partition two synthesis threads deliver left no
 * queue_empty idle at all).  Now each case produces 1-3 s of idle (18
 * partitions of 150 ms holds; 400 ms syntheses on 2 threads against a
 * 30-130 ms prove), the baseline is the median of three runs, and each case
 * passes when two of at most three on-runs pass: a real attribution error
 * (systematic) fails every run, noise rarely two. */
GS_TEST(accuracy_injected_causes_within_10pct)
{
    GS_TEST_NEED_BIN();
    static const struct {
        const char *cause, *sets;
    } cases[] = {
        {"tracker_lock/injected", "--set inject.tracker_hold.dist=fixed:150ms"},
        {"tracker_lock/malloc_trim",
         "--set inject.malloc_trim.dist=fixed:150ms --set engine.trim=under_lock"},
        {"queue_empty", "--set inject.synth.dist=fixed:400ms"},
        {"h2d_pageable", "--set inject.h2d.dist=fixed:150ms --set engine.staging=pageable"},
    };
    run_result off[3];
    for (int k = 0; k < 3; k++) {
        char tag[32];
        snprintf(tag, sizeof tag, "off%d", k);
        if (!run_one("", tag, &off[k]))
            return;
    }
    double base_idle = median3(off[0].idle_s, off[1].idle_s, off[2].idle_s);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *cause = cases[i].cause;
        double base_cause = median3(cause_of(&off[0], cause), cause_of(&off[1], cause), cause_of(&off[2], cause));
        int pass = 0, fail = 0;
        char why[256] = "";
        while (pass < 2 && fail < 2 && !(pass == 1 && fail == 0)) {
            run_result on;
            char tag[32];
            snprintf(tag, sizeof tag, "on%zu_%d", i, pass + fail);
            if (!run_one(cases[i].sets, tag, &on))
                return;
            if (judge(&on, cause, base_idle, base_cause, why, sizeof why))
                pass++;
            else
                fail++;
        }
        /* The first on-run passing settles it; after a miss, two of three. */
        GS_CHECK_MSG(pass >= 1 && pass > fail, "%s (%d of %d on-runs passed)", why, pass, pass + fail);
        if (fail && pass > fail)
            fprintf(stderr, "    note: %s: one on-run missed (%s), two passed\n", cause, why);
    }
}

/* Runs `gapscope gate SCENARIO` with ci/thresholds.ini into d/tag; returns
 * its exit code (-1 when it did not exit) and prints its metrics when
 * verbose. */
static int gate_once(const char *bin, const char *scenario, const char *d, const char *tag)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s gate %s --thresholds ci/thresholds.ini --run-out %s/%s --quiet >%s/%s.log 2>&1",
             bin, scenario, d, tag, d, tag);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (gs_test_verbose()) {
        snprintf(cmd, sizeof cmd, "grep -E '^(PASS|FAIL)' %s/%s.log | sed 's/^/    %s: /'", d, tag, tag);
        if (system(cmd) != 0)
            printf("    %s: exit %d (no gate lines)\n", tag, rc);
    }
    return rc;
}

/* The gate's verdict on SCENARIO is `want` (exit code) in a majority of up
 * to five runs: one run, and more only when the first disagrees, until
 * three agree one way.  A false result then needs three misses in five. */
static void gate_expect(const char *bin, const char *scenario, const char *d, const char *tag,
                        int want)
{
    char t[64];
    int agree = 0, runs = 0, last = -1, first = -1;
    while (agree < 3 && runs - agree < 3) {
        snprintf(t, sizeof t, "%s%d", tag, runs);
        last = gate_once(bin, scenario, d, t);
        runs++;
        agree += last == want;
        if (runs == 1 && (first = last) == want)
            return;
    }
    GS_CHECK_MSG(agree >= 3, "%s: gate exit %d in %d of %d runs (want %d), see %s/%s*.log", scenario,
                 last, runs - agree, runs, want, d, tag);
    if (agree >= 3)
        fprintf(stderr, "    note: %s: the first gate run exited %d (want %d), %d of %d re-runs agreed; "
                        "see %s/%s0.log\n", scenario, first, want, agree, runs - 1, d, tag);
}

/* issue 7: the gate fails on the demo's buggy configuration and passes on the
 * fixed one, with the thresholds of ci/thresholds.ini.
 *
 * Margins (issue 16; bench/demo-gate-reliability.sh, two rounds of 50
 * runs of each with another process busy on one of the 2 cores, one with
 * the machine otherwise quiet, one loaded by other work to load average
 * 8-20; bench/RESULTS.md): demo.ini fails on two checks each clear of its
 * limit in all 100 runs, util 0.707-0.866 against min 0.90 and the
 * tracker_lock share 0.120-0.275 against max 0.05 (2.4x at least);
 * demo-fixed.ini passes with util 0.925-0.996 and a tracker_lock share
 * under 0.005, its longest gap (scheduling: the worker preempted at
 * hand-off) 107 ms at most in the quiet round against the 250 ms limit,
 * over it in 2 runs of the loaded round, both at load average 20.
 * demo.ini failed the gate 100/100, demo-fixed.ini passed 98/100.  On top
 * of that a wrong verdict is re-run and the majority of five decides
 * (gate_expect). */
GS_TEST(accuracy_gate_demo_buggy_fails_fixed_passes)
{
#ifdef __SANITIZE_ADDRESS__
    /* The demo's bug is glibc's malloc_trim on a fragmented glibc heap; under
     * AddressSanitizer malloc is ASan's and the trim has nothing to do. */
    gs_test_skip("AddressSanitizer build: glibc malloc_trim is not in play");
    return;
#endif
    GS_TEST_NEED_BIN();
    const char *bin = gs_test_bin();
    const char *d = gs_test_tmpdir();
    gate_expect(bin, "scenarios/demo.ini", d, "buggy", 1);
    gate_expect(bin, "scenarios/demo-fixed.ini", d, "fixed", 0);
}
