/*
 * gapscope attach [--out DIR] [options] -- CMD ARGS...
 *   Runs an unmodified program under the attach capture (capture/attach)
 *   and writes a normal run directory: attach-raw/ (the raw records),
 *   spans.csv, timeline.json, summary.json, data/, charts/, report.md/html.
 * gapscope attach --convert DIR
 *   Rebuilds DIR's timeline and report from DIR/attach-raw alone.
 * Exit code: the program's (128 + signal when it died of one); 2 bad usage
 * or unreadable raw records; 3 internal failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../capture/attach/attach.h"
#include "../diag/run.h"
#include "../scenarios/run.h"
#include "../common/outdir.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gapscope attach [--out DIR] [options] -- CMD ARGS...\n"
            "       gapscope attach --convert DIR [options]\n"
            "  Runs CMD unmodified with CUPTI (CUDA_INJECTION64_PATH), an LD_PRELOAD\n"
            "  interposer (contended pthread mutexes, malloc_trim), NVTX ranges and a\n"
            "  /proc thread-state sampler, then writes a run directory (spans.csv,\n"
            "  timeline.json, summary.json, report) attributing the GPU's idle time.\n"
            "options:\n"
            "  --out DIR        run directory (default runs/attach-<UTC time>)\n"
            "  --hz N           /proc sampling rate, 0 = off (default 1000)\n"
            "  --flush-ms N     hand completed CUPTI buffers over every N ms (default 500)\n"
            "  --api-min-us N   drop CUDA calls shorter than N us that neither launch, copy\n"
            "                   nor synchronize (default 0: keep every call)\n"
            "  --lib PATH       libgsattach.so (default: lib/ next to the binary)\n"
            "  --no-cupti       no device records   --no-preload  no interposer\n"
            "  --no-nvtx        no NVTX ranges      --no-report   no charts/report\n"
            "  --quiet          no progress lines\n"
            "  --convert DIR    only rebuild DIR's outputs from DIR/attach-raw\n");
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
    char *e;
    double v = strtod(s, &e);
    if (*e || !(v >= lo && v <= hi))
        return 0;
    *out = v;
    return 1;
}

/* raw -> spans.csv + timeline.json + analysis/report in dir.  A failure
 * leaves dir as it was (attach-raw/, the capture itself, is never touched;
 * common/outdir.h). */
static int convert_and_report_in(const char *dir, const gs_attach_result *res, char *const *cmd,
                                 const gs_attach_opts *ao, const gs_attach_convert_opts *co,
                                 int report);

static int convert_and_report(const char *dir, const gs_attach_result *res, char *const *cmd,
                              const gs_attach_opts *ao, const gs_attach_convert_opts *co,
                              int report)
{
    static const char *const outputs[] = {"spans.csv", "timeline.json", "summary.json", "data",
                                          "charts", "report.md", "report.html", NULL};
    gs_outdir od;
    gs_err err;
    gs_err_clear(&err);
    if (gs_outdir_begin(&od, dir, outputs, &err) != GS_OK) {
        fprintf(stderr, "gapscope attach: %s\n", err.msg);
        return 2;
    }
    return gs_outdir_end(&od, convert_and_report_in(dir, res, cmd, ao, co, report));
}

static int convert_and_report_in(const char *dir, const gs_attach_result *res, char *const *cmd,
                                 const gs_attach_opts *ao, const gs_attach_convert_opts *co,
                                 int report)
{
    char raw[2100], path[2100];
    snprintf(raw, sizeof raw, "%s/attach-raw", dir);
    gs_timeline *tl = NULL;
    gs_attach_stats stats;
    gs_err err;
    gs_err_clear(&err);
    if (gs_attach_convert(&tl, &stats, raw, co, &err) != GS_OK) {
        fprintf(stderr, "gapscope attach: %s\n", err.msg);
        return err.status == GS_ERR_NOMEM ? 3 : 2;
    }
    if (res) {
        char b[4096] = "";
        for (size_t i = 0; cmd && cmd[i]; i++) {
            size_t l = strlen(b);
            snprintf(b + l, sizeof b - l, "%s%s", i ? " " : "", cmd[i]);
        }
        gs_timeline_meta_set(tl, "attach.cmd", b);
        snprintf(b, sizeof b, "%d", res->exit_code);
        gs_timeline_meta_set(tl, "attach.exit", b);
        snprintf(b, sizeof b, "%lld", (long long)res->start_ns);
        gs_timeline_meta_set(tl, "run.start_ns", b);
        snprintf(b, sizeof b, "%lld", (long long)res->end_ns);
        gs_timeline_meta_set(tl, "run.end_ns", b);
        snprintf(b, sizeof b, "%g", ao->sample_hz);
        gs_timeline_meta_set(tl, "attach.sample_hz", b);
        snprintf(b, sizeof b, "%ld", res->sampler_rounds);
        gs_timeline_meta_set(tl, "attach.sample_rounds", b);
        snprintf(b, sizeof b, "%.1f", res->sampler_cpu_ns / 1e6);
        gs_timeline_meta_set(tl, "attach.sampler_cpu_ms", b);
    }
    int rc = 0;
    snprintf(path, sizeof path, "%s/spans.csv", dir);
    if (gs_timeline_write_csv(tl, path, &err) != GS_OK) {
        fprintf(stderr, "gapscope attach: %s\n", err.msg);
        rc = 3;
    }
    snprintf(path, sizeof path, "%s/timeline.json", dir);
    if (rc == 0 && gs_timeline_write_chrome(tl, path, &err) != GS_OK) {
        fprintf(stderr, "gapscope attach: %s\n", err.msg);
        rc = 3;
    }
    gs_timeline_destroy(tl);
    if (rc)
        return rc;
    if (!ao->quiet)
        fprintf(stderr,
                "gapscope attach: %ld kernels, %ld copies/memsets, %ld CUDA calls (%ld kept, %ld "
                "sync), %ld contended lock waits, %ld malloc_trim, %ld NVTX ranges, %ld thread "
                "state runs on %ld threads%s%s%s\n",
                stats.kernels, stats.copies + stats.memsets, stats.api_calls, stats.api_spans,
                stats.syncs, stats.lock_waits, stats.trims, stats.nvtx, stats.state_runs,
                stats.threads, stats.cupti_on ? "" : " (CUPTI was not on)",
                stats.truncated ? " (a record file was cut short)" : "",
                stats.untimed ? " (device records without timestamps dropped: see meta attach.untimed)" : "");
    if (stats.kernels + stats.copies + stats.memsets == 0) {
        fprintf(stderr, "gapscope attach: no device work was captured; wrote %s/spans.csv "
                        "(no GPU analysis)\n", dir);
        return 0;
    }
    gs_run_result rr;
    memset(&rr, 0, sizeof rr);
    snprintf(rr.dir, sizeof rr.dir, "%s", dir);
    gs_err_clear(&err);
    if (gs_scn_report(&rr, ao->quiet, report, &err) != GS_OK) {
        fprintf(stderr, "gapscope attach: %s\n", err.msg);
        return err.status == GS_ERR_NOMEM || err.status == GS_ERR_INTERNAL ? 3 : 2;
    }
    if (ao->quiet)
        printf("%s\n", rr.verdict);
    return 0;
}

static int attach_main(int argc, char **argv)
{
    gs_attach_opts o;
    gs_attach_opts_defaults(&o);
    gs_attach_convert_opts co;
    gs_attach_convert_opts_defaults(&co);
    const char *convert = NULL, *out = NULL;
    int report = 1, i = 1;
    double v;
    for (; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--out") && has) {
            out = argv[++i];
        } else if (!strcmp(a, "--convert") && has) {
            convert = argv[++i];
        } else if (!strcmp(a, "--lib") && has) {
            o.lib = argv[++i];
        } else if (!strcmp(a, "--hz") && has && parse_num(argv[i + 1], 0, 20000, &v)) {
            o.sample_hz = v;
            i++;
        } else if (!strcmp(a, "--flush-ms") && has && parse_num(argv[i + 1], 10, 60000, &v)) {
            o.flush_ms = (unsigned)v;
            i++;
        } else if (!strcmp(a, "--api-min-us") && has && parse_num(argv[i + 1], 0, 1e9, &v)) {
            co.api_min_ns = (int64_t)(v * 1000);
            i++;
        } else if (!strcmp(a, "--no-cupti")) {
            o.no_cupti = 1;
        } else if (!strcmp(a, "--no-preload")) {
            o.no_preload = 1;
        } else if (!strcmp(a, "--no-nvtx")) {
            o.no_nvtx = 1;
        } else if (!strcmp(a, "--no-report")) {
            report = 0;
        } else if (!strcmp(a, "--quiet")) {
            o.quiet = 1;
        } else {
            fprintf(stderr, "gapscope attach: bad option or value: %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (convert) {
        if (i < argc) {
            fprintf(stderr, "gapscope attach: --convert takes no command\n");
            return 2;
        }
        return convert_and_report(convert, NULL, NULL, &o, &co, report);
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    char defdir[64];
    if (!out) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(defdir, sizeof defdir, "runs/attach-%Y%m%dT%H%M%SZ", &tm);
        out = defdir;
    }
    o.out_dir = out;
    gs_attach_result res;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_attach_exec(&res, argv + i, &o, &err);
    if (st != GS_OK && !res.end_ns) {
        fprintf(stderr, "gapscope attach: %s\n", err.msg);
        return err.status == GS_ERR_IO || err.status == GS_ERR_ARG ? 2 : 3;
    }
    if (st != GS_OK)
        fprintf(stderr, "gapscope attach: %s\n", err.msg);
    if (!o.quiet) {
        if (res.signaled)
            fprintf(stderr, "gapscope attach: %s died of signal %d\n", argv[i], res.signaled);
        else
            fprintf(stderr, "gapscope attach: %s exited with %d\n", argv[i], res.exit_code);
    }
    int rc = convert_and_report(out, &res, argv + i, &o, &co, report);
    if (rc)
        return rc;
    if (!o.quiet)
        fprintf(stderr, "gapscope attach: wrote %s\n", out);
    return res.exit_code;
}

GS_CLI_COMMAND(attach, "attach",
               "run an unmodified CUDA program under CUPTI + host capture, diagnose its GPU idle time",
               attach_main)
