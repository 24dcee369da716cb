/*
 * The command lines of run, replay and record (cli/cmd_*.c are thin
 * wrappers): option parsing shared by the three, then gs_scn_run.
 *
 *   run    SCENARIO            [options]
 *   replay TRACE [SCENARIO]    [options]   (the scenario's [jobs] trace = TRACE)
 *   record SCENARIO|RUN_DIR -o TRACE [options]
 *
 * options: --out DIR, --seed N, --set section.key=value (repeatable),
 *          --quiet, --no-report, --record TRACE, --help
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

#define MAX_SETS 64

static void usage(FILE *f, const char *cmd)
{
    if (!strcmp(cmd, "replay"))
        fprintf(f, "usage: gapscope replay TRACE [SCENARIO] [options]\n"
                   "Replays a job-mix trace (traces/README.md) through the engine, with SCENARIO's\n"
                   "settings (default: every option at its default).\n");
    else if (!strcmp(cmd, "record"))
        fprintf(f, "usage: gapscope record SCENARIO|RUN_DIR -o TRACE [options]\n"
                   "Writes the arrivals a run actually processed (actual submission times) as a trace:\n"
                   "from an existing run directory, or by running SCENARIO first.\n");
    else
        fprintf(f, "usage: gapscope run SCENARIO [options]\n"
                   "Replays SCENARIO's job mix through the engine and writes a run directory with the\n"
                   "timeline, the analysis and the report.\n");
    fprintf(f, "\noptions:\n"
               "  --out DIR              run directory (default runs/<scenario>-<UTC time>)\n"
               "  --seed N               override [engine] seed\n"
               "  --set SECTION.KEY=VAL  override one setting (repeatable), e.g. --set engine.trim=background\n"
               "  --record TRACE         also write the processed arrivals as a trace\n"
               "  --no-report            skip the rendering (report.md/.html, charts, data/);\n"
               "                         the analysis still runs and writes summary.json\n"
               "  --quiet                no progress lines\n"
               "  --dry-run              print the settings in effect and the job mix, run nothing\n"
               "\nSIGINT/SIGTERM stop cleanly: no more submissions, queued work cancelled, running\n"
               "partitions finish (at most 10 s), then the run directory is written with\n"
               "run.interrupted in its metadata (exit status 128 + signal); a second signal exits\n"
               "at once.\n"
               "\nDefaults follow the production daemon (DOMAIN.md): [engine] trim = under_lock and\n"
               "verify = under_lock, i.e. malloc_trim(0) and the self-verify of the last partition\n"
               "run while the finalizer holds the tracker lock.  A scenario that does not set them\n"
               "gets that behaviour, and a note on stderr says so (set them to silence it).\n"
               "\nscenario options (INI sections and keys):\n");
    gs_scenario_help(f);
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int gs_scn_cmd_run(int argc, char **argv, const char *cmd)
{
    const char *pos[2] = {NULL, NULL}, *sets[MAX_SETS], *seed = NULL, *record = NULL;
    int npos = 0, nsets = 0, rc = 2, dry = 0;
    gs_run_opts ro = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, cmd);
            return 0;
        } else if (!strcmp(a, "--out") && more)
            ro.out_dir = argv[++i];
        else if (!strcmp(a, "--seed") && more)
            seed = argv[++i];
        else if (!strcmp(a, "--set") && more && nsets < MAX_SETS)
            sets[nsets++] = argv[++i];
        else if ((!strcmp(a, "--record") || (!strcmp(cmd, "record") && !strcmp(a, "-o"))) && more)
            record = argv[++i];
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            ro.quiet = 1;
        else if (!strcmp(a, "--dry-run"))
            dry = 1;
        else if (!strcmp(a, "--no-report"))
            ro.no_report = 1;
        else if (a[0] == '-' || npos == 2) {
            fprintf(stderr, "gapscope %s: unexpected argument '%s' (--help for usage)\n", cmd, a);
            return 2;
        } else
            pos[npos++] = a;
    }
    int need = !strcmp(cmd, "replay") ? 1 : 1, max = !strcmp(cmd, "replay") ? 2 : 1;
    if (npos < need || npos > max || (!strcmp(cmd, "record") && !record)) {
        usage(stderr, cmd);
        return 2;
    }
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
        st = gs_scenario_apply_cli(s, seed, sets, nsets, &err);
    if (st != GS_OK) {
        fprintf(stderr, "gapscope %s: %s\n", cmd, err.msg);
        gs_scenario_destroy(s);
        return 2;
    }
    if (dry) {
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
