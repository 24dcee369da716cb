/*
 * The importers at production scale (issue 32): reads one input with
 * gs_import_file (the streaming Chrome reader for JSON, the line window
 * for daemon logs) into a timeline and builds its sorted view, printing
 * the wall and CPU time of each step, the throughput and the spans made.
 * No output is written: this is the parse (and the sort) alone, what
 * `gapscope import --no-report` spends before it writes spans.csv.
 *
 *   make -j2 CUDA=0 BUILD=build-cpu build-cpu/bench-tools/imp_scale
 *   python3 bench/gen_import_inputs.py --kineto-mb 1000 /tmp/bi
 *   build-cpu/bench-tools/imp_scale /tmp/bi/kineto-1000mb.json [REPEATS [OUTDIR]]
 *
 * REPEATS (default 1) imports the file that many times, each into a fresh
 * timeline, and prints every run (the best is the one least disturbed by
 * other work on a shared machine).  With OUTDIR (an existing directory),
 * each run also writes what `gapscope import --no-report` writes there
 * (spans.csv, then the trace file of --trace-format auto), timing the two
 * writes apart and then, the two files deleted, together
 * (gs_timeline_write_run, as the command does).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "../../capture/import/import.h"
#include "bench_time.h"

/* Writes spans.csv and the trace file into dir, printing each one's time. */
static int write_outputs(gs_timeline *tl, const char *dir, gs_err *err)
{
    char path[4096];
    const char *trace_file = NULL;
    double u0, s0, u1, s1, u2, s2;
    snprintf(path, sizeof path, "%s/spans.csv", dir);
    usage_s(&u0, &s0);
    double a = now_s();
    if (gs_timeline_write_csv(tl, path, err) != GS_OK)
        return 2;
    double b = now_s();
    usage_s(&u1, &s1);
    if (gs_timeline_write_traces(tl, dir, GS_TRACE_AUTO, &trace_file, err) != GS_OK)
        return 2;
    double c = now_s();
    usage_s(&u2, &s2);
    printf("write: spans.csv %.2f s wall, %.2f s CPU; %s %.2f s wall, %.2f s CPU\n", b - a,
           (u1 - u0) + (s1 - s0), trace_file, c - b, (u2 - u1) + (s2 - s1));
    snprintf(path, sizeof path, "%s/spans.csv", dir);   /* untimed: a rename over them frees them */
    remove(path);
    snprintf(path, sizeof path, "%s/%s", dir, trace_file);
    remove(path);
    a = now_s();
    if (gs_timeline_write_run(tl, dir, GS_TRACE_AUTO, &trace_file, err) != GS_OK)
        return 2;
    printf("write: both at once (gs_timeline_write_run) %.2f s wall\n", now_s() - a);
    return 0;
}

static int run_once(const char *path, double mb, const char *outdir)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return 3;
    gs_import_report rep;
    gs_import_report_init(&rep);
    gs_err err;
    gs_err_clear(&err);
    double u0, s0, u1, s1, u2, s2;
    usage_s(&u0, &s0);
    double a = now_s();
    gs_status st = gs_import_file(tl, &rep, path, GS_IMPORT_AUTO, NULL, &err);
    double b = now_s();
    usage_s(&u1, &s1);
    if (st != GS_OK) {
        fprintf(stderr, "imp_scale: %s\n", err.msg);
        gs_timeline_destroy(tl);
        return 2;
    }
    size_t n;
    gs_timeline_spans(tl, &n);
    double c = now_s();
    usage_s(&u2, &s2);
    double cpu = (u1 - u0) + (s1 - s0);
    printf("parse: %.2f s wall, %.2f s CPU (%.2f user, %.2f sys): %.1f MB/s CPU, %.1f MB/s wall; "
           "%llu used, %llu skipped; sort: %zu spans in %.2f s wall, %.2f s CPU\n",
           b - a, cpu, u1 - u0, s1 - s0, mb / cpu, mb / (b - a), (unsigned long long)rep.used,
           (unsigned long long)gs_import_skipped_total(&rep), n, c - b,
           (u2 - u1) + (s2 - s1));
    int rc = outdir ? write_outputs(tl, outdir, &err) : 0;
    if (rc)
        fprintf(stderr, "imp_scale: %s\n", err.msg);
    gs_timeline_destroy(tl);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: imp_scale FILE [REPEATS [OUTDIR]]\n");
        return 2;
    }
    struct stat sb;
    if (stat(argv[1], &sb) != 0) {
        perror(argv[1]);
        return 2;
    }
    int reps = argc >= 3 ? atoi(argv[2]) : 1;
    double mb = (double)sb.st_size / 1e6;
    for (int i = 0; i < (reps > 0 ? reps : 1); i++) {
        int rc = run_once(argv[1], mb, argc == 4 ? argv[3] : NULL);
        if (rc)
            return rc;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("max RSS %ld MB\n", ru.ru_maxrss / 1024);
    return 0;
}
