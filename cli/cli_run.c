/*
 * The command lines of run, replay and record (cli/cmd_*.c are thin
 * wrappers): one option table shared by the three (record adds -o and
 * --from-log), then gs_scn_run.
 *
 *   run    SCENARIO            [options]
 *   replay TRACE [SCENARIO]    [options]   (the scenario's [jobs] trace = TRACE)
 *   record SCENARIO|RUN_DIR -o TRACE [options]
 *
 * Exit codes (cli.h): 0 ok, 1 some job failed, 2 bad usage or input, 3 internal;
 * 128 + signo after a clean stop on SIGINT/SIGTERM (interrupt.c): the run
 * directory is complete and marked interrupted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../scenarios/run.h"
#include "../scenarios/scn_internal.h"
#include "cli_run.h"

static const gs_cli_opt run_opts[] = {
    GS_CLI_STR("--out", NULL, "DIR", "run directory (default runs/<scenario>-<UTC time>)", gs_run_args,
               out),
    GS_CLI_STR("--seed", NULL, "N", "override [engine] seed", gs_run_args, seed),
    GS_CLI_LIST("--set", "SECTION.KEY=VAL",
                "override one setting (repeatable), e.g. --set engine.trim=background", gs_run_args,
                sets),
    GS_CLI_STR("--record", NULL, "TRACE", "also write the processed arrivals as a trace", gs_run_args,
               record),
    GS_CLI_FLAG("--no-report", NULL,
                "skip the rendering (report.md/.html, charts, data/);\n"
                "the analysis still runs and writes summary.json",
                gs_run_args, no_report),
    GS_CLI_FLAG("--quiet", "-q", "no progress lines", gs_run_args, quiet),
    GS_CLI_FLAG("--dry-run", NULL, "print the settings in effect and the job mix, run nothing",
                gs_run_args, dry),
    GS_CLI_END};

static const gs_cli_opt record_opts[] = {
    GS_CLI_INCLUDE(run_opts),
    GS_CLI_STR("-o", NULL, "TRACE", "the trace to write (as --record)", gs_run_args, record),
    GS_CLI_STR("--from-log", NULL, "LOG",
               "instead of a run: the job mix of a production daemon's log\n"
               "(one arrival per job at its first logged event; takes -o and --quiet only)",
               gs_run_args, from_log),
    GS_CLI_END};

#define RUN_NOTES                                                                                   \
    "\nSIGINT/SIGTERM stop cleanly: no more submissions, queued work cancelled, running\n"          \
    "partitions finish (at most 10 s), then the run directory is written with\n"                    \
    "run.interrupted in its metadata (exit status 128 + signal); a second signal exits\n"           \
    "at once.\n"                                                                                    \
    "\nDefaults follow the production daemon (DOMAIN.md): [engine] trim = under_lock and\n"         \
    "verify = under_lock, i.e. malloc_trim(0) and the self-verify of the last partition\n"          \
    "run while the finalizer holds the tracker lock.  A scenario that does not set them\n"          \
    "gets that behaviour, and a note on stderr says so (set them to silence it).\n"                 \
    "\nscenario options (INI sections and keys):\n"

/* What the three commands' specs share. */
#define RUN_SPEC                                                                        \
    .notes = RUN_NOTES, .more_help = gs_scenario_help, GS_CLI_ARGS(gs_run_args, pos, 0, 2),  \
    .bad = "unexpected argument '%s' (--help for usage)",                                   \
    .no_usage = GS_CLI_USAGE_OPT | GS_CLI_USAGE_ARG

static const gs_cli_spec specs[] = {
    {.cmd = "run",
     .usage = "usage: gapscope run SCENARIO [options]\n"
              "Replays SCENARIO's job mix through the engine and writes a run directory with the\n"
              "timeline, the analysis and the report.\n\n",
     .opts = run_opts, RUN_SPEC},
    {.cmd = "replay",
     .usage = "usage: gapscope replay TRACE [SCENARIO] [options]\n"
              "Replays a job-mix trace (traces/README.md) through the engine, with SCENARIO's\n"
              "settings (default: every option at its default).\n\n",
     .opts = run_opts, RUN_SPEC},
    {.cmd = "record",
     .usage = "usage: gapscope record SCENARIO|RUN_DIR -o TRACE [options]\n"
              "       gapscope record --from-log LOG -o TRACE [--quiet]\n"
              "Writes the arrivals a run actually processed (actual submission times) as a trace:\n"
              "from an existing run directory, or by running SCENARIO first.\n\n",
     .opts = record_opts, RUN_SPEC},
};

static const gs_cli_spec *spec_of(const char *cmd)
{
    return !strcmp(cmd, "replay") ? &specs[1] : !strcmp(cmd, "record") ? &specs[2] : &specs[0];
}

int gs_scn_run_parse(gs_run_args *a, int argc, char **argv, const char *cmd)
{
    memset(a, 0, sizeof *a);
    return gs_cli_parse(spec_of(cmd), a, argc, argv, NULL);
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int gs_scn_cmd_run(int argc, char **argv, const char *cmd)
{
    gs_run_args a;
    int rc = gs_scn_run_parse(&a, argc, argv, cmd);
    return rc == GS_CLI_GO ? gs_scn_run_with(&a, cmd) : rc;
}

int gs_scn_run_with(const gs_run_args *a, const char *cmd)
{
    const char *const *pos = a->pos.v, *record = a->record;
    int npos = a->pos.n, rc;
    int max = !strcmp(cmd, "replay") ? 2 : 1;
    if (npos < 1 || npos > max || (!strcmp(cmd, "record") && !record))
        return gs_cli_usage_error(spec_of(cmd));
    gs_run_opts ro = {.out_dir = a->out, .quiet = a->quiet, .no_report = a->no_report};
    gs_err err;
    gs_err_clear(&err);
    if (!strcmp(cmd, "record") && is_dir(pos[0])) {
        if (gs_scn_record_from_run(pos[0], record, &err) != GS_OK) {
            fprintf(stderr, "gapscope record: %s\n", err.msg);
            return 2;
        }
        fprintf(stderr, "gapscope record: wrote %s\n", record);
        return 0;
    }
    gs_scenario *s = NULL;
    const char *scn = !strcmp(cmd, "replay") ? pos[1] : pos[0];
    gs_status st = scn ? gs_scenario_load(&s, scn, &err) : gs_scenario_new(&s, &err);
    char buf[GS_SCN_PATH_MAX + 32];
    if (st == GS_OK && !strcmp(cmd, "replay")) {
        snprintf(buf, sizeof buf, "jobs.trace=%s", pos[0]);
        st = gs_scenario_set(s, buf, "command line", &err);
    }
    if (st == GS_OK)
        st = gs_scenario_apply_cli(s, a->seed, a->sets.v, a->sets.n, &err);
    if (st != GS_OK) {
        fprintf(stderr, "gapscope %s: %s\n", cmd, err.msg);
        gs_scenario_destroy(s);
        return 2;
    }
    if (a->dry) {
        gs_scenario_dump(s, stdout);
        gs_trace arr;
        st = gs_scenario_arrivals(&arr, s, &err);
        if (st == GS_OK) {
            uint32_t parts = 0;
            for (size_t i = 0; i < arr.n; i++)
                parts += arr.a[i].partitions;
            printf("\n; job mix: %zu arrivals, %u partitions, last at %.3f s (before replay scaling)\n", arr.n, parts,
                   arr.n ? (double)arr.a[arr.n - 1].t_ns * 1e-9 : 0.0);
            gs_trace_free(&arr);
        } else
            fprintf(stderr, "gapscope %s: %s\n", cmd, err.msg);
        gs_scenario_destroy(s);
        return st == GS_OK ? 0 : 2;
    }
    if (!ro.quiet)
        gs_scenario_note_defaults(s, stderr, "gapscope: ");
    ro.record_path = record;
    ro.stop = &gs_scn_interrupt_sig;
    gs_run_result res;
    gs_scn_interrupt_install();
    st = gs_scn_run(s, &ro, &res, &err);
    gs_scn_interrupt_restore();
    gs_scenario_destroy(s);
    if (st != GS_OK) {
        fprintf(stderr, "gapscope %s: %s\n", cmd, err.msg);
        return st == GS_ERR_FORMAT || st == GS_ERR_ARG || st == GS_ERR_IO || st == GS_ERR_NODEV ? 2 : 3;
    }
    rc = res.interrupted ? 128 + res.interrupted : res.failed || res.verify_failed || !res.drained ? 1 : 0;
    char report[GS_SCN_PATH_MAX + 32];
    snprintf(report, sizeof report, "%s/report.html", res.dir);
    if (access(report, R_OK) == 0)
        printf("report: %s\n", report);
    else
        printf("run directory: %s%s\n", res.dir, res.analyzed ? " (summary.json; `gapscope report` renders it)" : "");
    if (record)
        printf("trace: %s\n", record);
    return rc;
}
