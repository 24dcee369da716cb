/*
 * gapscope import FILE... [--format F] [--out DIR]: evidence gapscope did
 * not capture (a torch.profiler/Kineto or Perfetto JSON trace, gapscope's
 * own timeline.json, an Nsight Systems SQLite export, the production
 * daemon's log) turned into a normal run directory: spans.csv,
 * timeline.json, then what `gapscope report` writes (summary.json, data/,
 * charts, report.md/html).  The importers are in capture/import/.
 *
 * Nothing is written until every file has been read: a file no importer
 * can use ends the command with exit 2 and a message naming the file and
 * the line or byte offset.  A failure after that (the report step) leaves
 * no run directory, or the one --out named as it was (common/outdir.h).  Records an importer had to skip are counted
 * per reason, printed, and kept in the timeline's meta
 * (import.skipped.<reason> = "<count> (first at <where>)").
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../capture/import/import.h"
#include "../report/report.h"
#include "../scenarios/run.h"
#include "../common/outdir.h"
#include "../common/paths.h"
#include "cli.h"
#include "diag_cli.h"

typedef struct {
    gs_diag_opts d;
    gs_report_opts ro;
    gs_import_options io;
    gs_import_format fmt;
    gs_trace_format trace;
    const char *out;
    int no_report, no_charts, nfiles;
    const char **files;
} import_args;

static int take_file(void *ctx, const char *arg)
{
    import_args *a = ctx;
    a->files[a->nfiles++] = arg;
    return 1;
}

static int set_format(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    if (gs_import_format_from_name(field, val))
        return 1;
    fprintf(stderr, "gapscope import: --format wants chrome, nsys or daemon-log\n");
    return 0;
}

static int set_trace(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    if (gs_trace_format_from_name(field, val))
        return 1;
    fprintf(stderr, "gapscope import: --trace-format wants auto, chrome, perfetto or both\n");
    return 0;
}

static int set_device(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    char *e;
    long v = strtol(val, &e, 10);
    if (*e || v < 0 || v > 4095) {
        fprintf(stderr, "gapscope import: --device wants 0..4095\n");
        return 0;
    }
    *(int32_t *)field = (int32_t)v;
    return 1;
}

static const gs_cli_opt import_opts[] = {
    GS_CLI_FN("--format", NULL, "F", "chrome | nsys | daemon-log (default: sniffed per file)",
              set_format, import_args, fmt),
    GS_CLI_STR("--out", NULL, "DIR", "run directory (default runs/import-<file>-<UTC time>)",
               import_args, out),
    GS_CLI_FN("--device", NULL, "N", "device id of a daemon log's GPU lanes (default 0)",
              set_device, import_args, io.device),
    GS_CLI_FN("--trace-format", NULL, "F",
              "auto | chrome | perfetto | both: timeline.json and/or timeline.perfetto-trace "
              "(auto: JSON up to 1M spans)", set_trace, import_args, trace),
    GS_CLI_FLAG("--no-report", NULL, "stop after spans.csv and the trace file", import_args,
                no_report),
    GS_CLI_FLAG("--no-charts", NULL, "do not run gnuplot", import_args, no_charts),
    GS_CLI_GROUP(gs_diag_cli_opts, import_args, d),
    GS_CLI_END};

static const gs_cli_spec import_spec = {
    .cmd = "import",
    .usage = "usage: gapscope import FILE... [options]\n"
             "  Imports a GPU timeline gapscope did not capture and writes a run directory\n"
             "  (spans.csv, timeline.json, summary.json, data/, charts, report.md/html).\n"
             "  FILE: torch.profiler / Kineto / Perfetto JSON (export_chrome_trace), gapscope's\n"
             "  own timeline.json, an Nsight Systems SQLite export (nsys export --type sqlite),\n"
             "  or the production daemon's log (TIMELINE / GPU_TIMING / FIN_TIMING /\n"
             "  CUZK_TIMING lines).  Several files go into one timeline.\n",
    .notes = "exit: 0 imported, 2 unreadable input or bad usage, 3 internal failure\n",
    .opts = import_opts,
    .positional = take_file,
};

/* runs/import-<file name up to its first dot>-<UTC time>. */
static void default_out(char *out, size_t cap, const char *file)
{
    char stem[81], name[100];
    gs_path_stem(stem, sizeof stem, file, 1);
    snprintf(name, sizeof name, "import-%s", stem);
    gs_scn_default_run_dir(out, cap, name);
}

/* Prints what was skipped and records it in the timeline's meta. */
static void report_skips(gs_timeline *tl, const gs_import_report *rep, const char *file, int quiet)
{
    if (!quiet)
        fprintf(stderr, "import: %s: %llu records used, %llu ignored (nothing for the timeline)",
                file, (unsigned long long)rep->used, (unsigned long long)rep->ignored);
    uint64_t sk = gs_import_skipped_total(rep);
    if (!quiet)
        fprintf(stderr, ", %llu skipped%s\n", (unsigned long long)sk, sk ? ":" : "");
    for (size_t i = 0; i < rep->n_skipped; i++) {
        const gs_import_reason *r = &rep->skipped[i];
        fprintf(stderr, "import:   %8llu  %s (first at %s)\n", (unsigned long long)r->count,
                r->reason, r->first);
        char key[160], val[256];
        size_t k = (size_t)snprintf(key, sizeof key, "import.skipped.");
        for (const char *p = r->reason; *p && k + 1 < sizeof key && k < 80; p++)
            key[k++] = (*p == ' ' || *p == '=' || *p == '\\') ? '_' : *p;
        key[k] = '\0';
        snprintf(val, sizeof val, "%llu (first at %.200s)", (unsigned long long)r->count, r->first);
        gs_timeline_meta_set(tl, key, val);
    }
}

static int import_main(int argc, char **argv)
{
    import_args a = {.fmt = GS_IMPORT_AUTO};
    gs_diag_opts_init(&a.d);
    gs_report_opts_defaults(&a.ro);
    gs_import_options_defaults(&a.io);
    a.files = calloc((size_t)argc + 1, sizeof *a.files);
    if (!a.files)
        return 3;
    int rc = gs_cli_parse(&import_spec, &a, argc, argv, NULL);
    if (rc == GS_CLI_GO && !a.nfiles)
        rc = gs_cli_usage_error(&import_spec);
    if (rc != GS_CLI_GO) {
        free(a.files);
        return rc;
    }
    const char **files = a.files;
    int nfiles = a.nfiles;
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    rc = 0;
    if (gs_timeline_create(&tl) != GS_OK) {
        free(files);
        return 3;
    }
    for (int f = 0; f < nfiles; f++) {
        gs_import_report rep;
        gs_import_report_init(&rep);
        gs_status st = gs_import_file(tl, &rep, files[f], a.fmt, &a.io, &err);
        if (st != GS_OK) {
            fprintf(stderr, "gapscope import: %s\n", err.msg);
            rc = st == GS_ERR_NOMEM || st == GS_ERR_INTERNAL ? 3 : 2;
            goto done;
        }
        report_skips(tl, &rep, files[f], a.d.quiet);
        const char *src = gs_timeline_meta_get(tl, "source");
        if (f > 0 && src && strchr(src, '+'))
            fprintf(stderr, "gapscope import: warning: %s is a different kind of source (%s): "
                            "its times are on its own clock, not aligned with the others\n",
                    files[f], src);
        if (!rep.used) {
            fprintf(stderr, "gapscope import: %s: no usable record (nothing to import)\n", files[f]);
            rc = 2;
            goto done;
        }
    }
    char dir[2048];
    const char *trace_file = GS_TRACE_CHROME_FILE;
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else
        default_out(dir, sizeof dir, files[0]);
    /* A failed import leaves no run directory (or the one --out named as it
     * was): common/outdir.h; the report step brackets its own outputs. */
    static const char *const outputs[] = {"spans.csv", "timeline.json", "timeline.perfetto-trace",
                                          NULL};
    gs_outdir od;
    if (gs_outdir_begin(&od, dir, outputs, &err) != GS_OK) {
        fprintf(stderr, "gapscope import: %s\n", err.msg);
        rc = err.status == GS_ERR_IO ? 2 : 3;
        goto done;
    }
    if (gs_timeline_write_run(tl, dir, a.trace, &trace_file, &err) != GS_OK) {
        fprintf(stderr, "gapscope import: %s\n", err.msg);
        rc = err.status == GS_ERR_RANGE ? 2 : 3;
        gs_outdir_abort(&od);
        goto done;
    }
    if (!a.d.quiet)
        fprintf(stderr, "import: wrote %s/spans.csv and %s/%s\n", dir, dir, trace_file);
    gs_timeline_destroy(tl);
    tl = NULL;
    if (!a.no_report)
        rc = gs_diag_report(dir, &a.d, &a.ro, !a.no_charts);
    else
        printf("%s/spans.csv\n", dir);
    gs_outdir_end(&od, rc);
done:
    gs_timeline_destroy(tl);
    free(files);
    return rc;
}

GS_CLI_COMMAND(import, "import",
               "turn a Kineto/Perfetto trace, an nsys SQLite export or a daemon log into a run",
               import_main)
