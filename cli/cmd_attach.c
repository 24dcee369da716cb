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
#include "../common/paths.h"
#include "../diag/run.h"
#include "../timeline/tl_merge.h"
#include "../scenarios/run.h"
#include "../common/outdir.h"
#include "cli.h"
#include "cli_opts.h"

typedef struct {
    gs_attach_opts o;
    gs_attach_convert_opts co;
    const char *convert, *out;
    int no_report;
} attach_args;

/* A number in [lo, hi] (the option refused otherwise). */
static int number(double *out, const char *s, double lo, double hi)
{
    char *e;
    double v = strtod(s, &e);
    if (*e || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 1;
}

static int set_hz(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    return number(field, val, 0, 20000);
}

/* An unsigned field from a number in [lo, hi]. */
static int set_unsigned(void *field, const char *val, double lo, double hi)
{
    double v;
    int k = number(&v, val, lo, hi);
    if (k > 0)
        *(unsigned *)field = (unsigned)v;
    return k;
}

static int set_flush(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    return set_unsigned(field, val, 10, 60000);
}

static int set_api_min(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    double v;
    int k = number(&v, val, 0, 1e9);
    if (k > 0)
        *(int64_t *)field = (int64_t)(v * 1000);
    return k;
}

static int set_wake(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    if (strcmp(val, "auto") && strcmp(val, "sched") && strcmp(val, "interpose"))
        return -1;
    *(const char **)field = val;
    return 1;
}

static int set_stack_min(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    return set_unsigned(field, val, 0, 1e9);
}

static const gs_cli_opt attach_opts[] = {
    GS_CLI_STR("--out", NULL, "DIR", "run directory (default runs/attach-<UTC time>)", attach_args,
               out),
    GS_CLI_FN("--hz", NULL, "N", "/proc sampling rate, 0 = off (default 1000)", set_hz,
              attach_args, o.sample_hz),
    GS_CLI_FN("--flush-ms", NULL, "N", "hand completed CUPTI buffers over every N ms (default 500)",
              set_flush, attach_args, o.flush_ms),
    GS_CLI_FN("--api-min-us", NULL, "N",
              "drop CUDA calls shorter than N us that neither launch, copy\n"
              "nor synchronize (default 0: keep every call)",
              set_api_min, attach_args, co.api_min_ns),
    GS_CLI_STR("--lib", NULL, "PATH", "libgsattach.so (default: lib/ next to the binary)",
               attach_args, o.lib),
    GS_CLI_FN("--wake", NULL, "MODE",
              "wake-up edges: auto (scheduler tracepoints where the probe\n"
              "allows, else interposition), sched (fail without them),\n"
              "interpose (never use tracepoints)",
              set_wake, attach_args, o.wake),
    GS_CLI_FN("--stack-min-us", NULL, "N", "waits at least N us get the waiter's stack (default 1000)",
              set_stack_min, attach_args, o.stack_min_us),
    GS_CLI_FLAG("--no-stacks", NULL, "no user stacks", attach_args, o.no_stacks),
    GS_CLI_FLAG("--no-audit", NULL, "no LD_AUDIT module", attach_args, o.no_audit),
    GS_CLI_FLAG("--no-cupti", NULL, "no device records", attach_args, o.no_cupti),
    GS_CLI_FLAG("--no-preload", NULL, "no interposer", attach_args, o.no_preload),
    GS_CLI_FLAG("--no-nvtx", NULL, "no NVTX ranges", attach_args, o.no_nvtx),
    GS_CLI_FLAG("--no-report", NULL, "no charts/report", attach_args, no_report),
    GS_CLI_FLAG("--quiet", NULL, "no progress lines", attach_args, o.quiet),
    GS_CLI_STR("--convert", NULL, "DIR", "only rebuild DIR's outputs from DIR/attach-raw",
               attach_args, convert),
    GS_CLI_END};

static const gs_cli_spec attach_spec = {
    .cmd = "attach",
    .usage = "usage: gapscope attach [--out DIR] [options] -- CMD ARGS...\n"
             "       gapscope attach --convert DIR [options]\n"
             "  Runs CMD unmodified with CUPTI (CUDA_INJECTION64_PATH), an LD_PRELOAD\n"
             "  interposer (contended pthread mutexes, malloc_trim, futex/condvar/rwlock/\n"
             "  semaphore waits and wakes), an LD_AUDIT module (malloc_trim bound by\n"
             "  dlsym), NVTX ranges, a /proc thread-state sampler and, where permitted,\n"
             "  scheduler tracepoints, then writes a run directory (spans.csv,\n"
             "  timeline.json, summary.json, report) attributing the GPU's idle time,\n"
             "  following each blocked launcher's chain of wakers.\n",
    .opts = attach_opts,
    .bad = "bad option or value: %s",
    .dashdash = 1,
};

/* A word of the command line as attach.cmd records it: an absolute path
 * (the whole word, or what follows the first '=' as in --out=/x) relative
 * to the working directory, the anchor the command ran in, so a capture
 * holds no absolute path of the machine it was taken on. */
static const char *cmd_word(char *buf, size_t cap, const char *w)
{
    const char *eq = strchr(w, '=');
    size_t pre = w[0] == '/' ? 0 : eq && eq[1] == '/' ? (size_t)(eq + 1 - w) : (size_t)-1;
    if (pre == (size_t)-1 || pre >= cap)
        return w;
    memcpy(buf, w, pre);
    if (gs_path_rel(buf + pre, cap - pre, w + pre, ".") != 0)
        return w;
    return buf;
}

/* raw -> spans.csv + timeline.json (or .perfetto-trace) + analysis/report in
 * dir.  A failure leaves dir as it was (attach-raw/, the capture itself, is
 * never touched; common/outdir.h). */
static int convert_and_report_in(const char *dir, const gs_attach_result *res, char *const *cmd,
                                 const gs_attach_opts *ao, const gs_attach_convert_opts *co,
                                 int report);

static int convert_and_report(const char *dir, const gs_attach_result *res, char *const *cmd,
                              const gs_attach_opts *ao, const gs_attach_convert_opts *co,
                              int report)
{
    static const char *const outputs[] = {"spans.csv", "timeline.json",
                                          "timeline.perfetto-trace", "summary.json", "data",
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
    char raw[2100];
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
            char w[2048];
            snprintf(b + l, sizeof b - l, "%s%s", i ? " " : "", cmd_word(w, sizeof w, cmd[i]));
        }
        gs_timeline_meta_set(tl, "attach.cmd", b);
        snprintf(b, sizeof b, "%d", res->exit_code);
        gs_timeline_meta_set(tl, "attach.exit", b);
        snprintf(b, sizeof b, "%lld", (long long)res->start_ns);
        gs_timeline_meta_set(tl, "run.start_ns", b);
        snprintf(b, sizeof b, "%lld", (long long)res->end_ns);
        gs_timeline_meta_set(tl, "run.end_ns", b);
        gs_timeline_set_anchor(tl, &res->anchor);
        snprintf(b, sizeof b, "%g", ao->sample_hz);
        gs_timeline_meta_set(tl, "attach.sample_hz", b);
        snprintf(b, sizeof b, "%ld", res->sampler_rounds);
        gs_timeline_meta_set(tl, "attach.sample_rounds", b);
        snprintf(b, sizeof b, "%.1f", res->sampler_cpu_ns / 1e6);
        gs_timeline_meta_set(tl, "attach.sampler_cpu_ms", b);
    }
    int rc = 0;
    if (gs_timeline_write_run(tl, dir, GS_TRACE_AUTO, NULL, &err) != GS_OK) {   /* spans.csv + trace */
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
                "state runs on %ld threads; %ld waits (%ld with their waker), %ld wakes, %ld "
                "memory releases, wake-up edges by %s%s%s%s\n",
                stats.kernels, stats.copies + stats.memsets, stats.api_calls, stats.api_spans,
                stats.syncs, stats.lock_waits, stats.trims, stats.nvtx, stats.state_runs,
                stats.threads, stats.waits, stats.waits_paired, stats.wakes, stats.mem_releases,
                stats.wake_mech[0] ? stats.wake_mech : "none (no wait records)",
                stats.cupti_on ? "" : " (CUPTI was not on)",
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
    attach_args a = {.convert = NULL};
    gs_attach_opts_defaults(&a.o);
    gs_attach_convert_opts_defaults(&a.co);
    int i, rc = gs_cli_parse(&attach_spec, &a, argc, argv, &i);
    if (rc != GS_CLI_GO)
        return rc;
    const char *convert = a.convert, *out = a.out;
    gs_attach_opts o = a.o;
    if (convert) {
        if (i < argc) {
            fprintf(stderr, "gapscope attach: --convert takes no command\n");
            return 2;
        }
        return convert_and_report(convert, NULL, NULL, &o, &a.co, !a.no_report);
    }
    if (i >= argc)
        return gs_cli_usage_error(&attach_spec);
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
    rc = convert_and_report(out, &res, argv + i, &o, &a.co, !a.no_report);
    if (rc)
        return rc;
    if (!o.quiet)
        fprintf(stderr, "gapscope attach: wrote %s\n", out);
    return res.exit_code;
}

GS_CLI_COMMAND(attach, "attach",
               "run an unmodified CUDA program under CUPTI + host capture, diagnose its GPU idle time",
               attach_main)
