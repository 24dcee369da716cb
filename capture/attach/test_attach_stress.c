/*
 * attach never harms the program it watches: test/foreign/cpu/stress.c's
 * modes (fork/exec'd children, 10,000 short-lived threads, the program's
 * own signal handlers, a crash, an abort, _exit) run once directly and
 * once under `gapscope attach` ($GS_BIN); the program's standard output
 * and exit code must be the same, within a time limit (no hang), and the
 * capture must still convert.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "attach.h"

static void same_with_and_without(const char *name, const char *opts, const char *args, int want)
{
    const char *b = getenv("GS_BIN");
    char prog[1100];
    if (!b || !*b) {
        gs_test_skip("GS_BIN not set (run through make test)");
        return;
    }
    const char *slash = strrchr(b, '/');
    snprintf(prog, sizeof prog, "%.*s/test/foreign/stress", slash ? (int)(slash - b) : 1,
             slash ? b : ".");
    FILE *f = fopen(prog, "r");
    if (!f) {
        gs_test_skip("%s not built (make test builds it)", prog);
        return;
    }
    fclose(f);
    static char direct[65536], attached[65536];
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "timeout 300 %s %s 2>/dev/null; echo rc=$?", prog, args);
    gs_test_run(cmd, direct, sizeof direct);
    snprintf(cmd, sizeof cmd,
             "timeout 300 %s attach --quiet --no-report --out %s/%s %s -- %s %s 2>/dev/null; "
             "echo rc=$?",
             b, gs_test_tmpdir(), name, opts, prog, args);
    gs_test_run(cmd, attached, sizeof attached);
    char rc[32];
    snprintf(rc, sizeof rc, "rc=%d\n", want);
    GS_CHECK_MSG(strstr(direct, rc) != NULL, "%s directly: %s", args, direct);
    GS_CHECK_MSG(!strcmp(direct, attached), "%s: output or exit code differs under attach:\n"
                 "--- directly\n%s--- attached\n%s", args, direct, attached);
    /* The capture of a program that crashed or was cut short still reads. */
    char raw[1300];
    snprintf(raw, sizeof raw, "%s/%s/attach-raw", gs_test_tmpdir(), name);
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_MSG(gs_attach_convert(&tl, NULL, raw, NULL, &err) == GS_OK, "%s", err.msg);
    gs_timeline_destroy(tl);
}

GS_TEST(attach_stress_fork_exec)
{
    same_with_and_without("fork", "", "fork 40", 0);
}

GS_TEST(attach_stress_10000_threads)
{
    same_with_and_without("threads", "", gs_test_quick() ? "threads 2000" : "threads 10000", 0);
}

GS_TEST(attach_stress_signals)
{
    same_with_and_without("signals", "", "signals", 42);
}

GS_TEST(attach_stress_crash_abort_exit)
{
    same_with_and_without("crash", "", "crash", 139);
    same_with_and_without("abort", "", "abort", 134);
    same_with_and_without("exit", "", "exit", 5);
}

GS_TEST(attach_stress_sched_threads)
{
    char why[256];
    if (!gs_sched_probe(why, sizeof why)) {
        gs_test_skip("scheduler tracepoints unavailable here: %s", why);
        return;
    }
    same_with_and_without("sched", "--wake sched", "threads 3000", 0);
}
