/*
 * gapscope record: the arrivals of a run as a trace (cli/cli_run.c
 * has the options, --from-log's included), or, with --from-log LOG, the job mix of a production
 * daemon's log (capture/import, gs_import_daemon_jobs): one arrival per job
 * at its first logged event, its kind and partition count, written in the
 * traces/README.md format so the production mix replays through the engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/import/import.h"
#include "../common/outfile.h"
#include "cli_run.h"
#include "../scenarios/trace.h"
#include "cli.h"

/* Size classes (log2 constraints per partition, shared/DOMAIN.md). */
static uint32_t size_class(gs_job_kind k)
{
    return k == GS_KIND_WINNING_POST ? 19 : k == GS_KIND_CIRCUIT ? 0 : 27;
}

static int record_from_log(const char *log, const char *out, int quiet)
{
    gs_err err;
    gs_err_clear(&err);
    gs_log_job *jobs = NULL;
    size_t n = 0;
    gs_import_report rep;
    gs_import_report_init(&rep);
    gs_trace tr;
    memset(&tr, 0, sizeof tr);
    int rc = 0;
    if (gs_import_daemon_jobs_path(&jobs, &n, &rep, log, &err) != GS_OK) {
        fprintf(stderr, "gapscope record: %s\n", err.msg);
        rc = err.status == GS_ERR_NOMEM ? 3 : 2;
        goto done;
    }
    for (size_t i = 0; i < rep.n_skipped; i++)
        fprintf(stderr, "record:   %8llu lines skipped: %s (first at %s)\n",
                (unsigned long long)rep.skipped[i].count, rep.skipped[i].reason,
                rep.skipped[i].first);
    if (!n) {
        fprintf(stderr, "gapscope record: %s: no job events (TIMELINE SYNTH_START/GPU_QUEUE/"
                        "GPU_START lines)\n", log);
        rc = 2;
        goto done;
    }
    size_t inferred = 0;
    for (size_t i = 0; i < n; i++) {
        gs_arrival a;
        memset(&a, 0, sizeof a);
        if (!gs_job_kind_from_name(&a.kind, jobs[i].kind)) {
            fprintf(stderr, "gapscope record: %s: job %s has kind '%s', not a gapscope kind\n", log,
                    jobs[i].log_id, jobs[i].kind);
            rc = 2;
            goto done;
        }
        a.t_ns = jobs[i].t_ns;
        a.id = jobs[i].id;
        a.partitions = jobs[i].partitions ? jobs[i].partitions : 1;
        a.priority = gs_job_kind_priority(a.kind);
        a.size_class = size_class(a.kind);
        inferred += (size_t)jobs[i].kind_inferred;
        if (gs_trace_push(&tr, &a) != GS_OK) {
            rc = 3;
            goto done;
        }
    }
    snprintf(tr.description, sizeof tr.description,
             "job mix of the daemon log %.60s (arrival = first logged event; %zu of %zu kinds "
             "inferred from partitions and synthesis time)", log, inferred, n);
    snprintf(tr.generator, sizeof tr.generator, "gapscope record --from-log");
    if (gs_trace_write(&tr, out, "ms", &err) != GS_OK) {
        fprintf(stderr, "gapscope record: %s\n", err.msg);
        rc = 3;
        goto done;
    }
    if (!quiet)
        fprintf(stderr, "gapscope record: %zu jobs (%zu kinds inferred) from %s\n", n, inferred, log);
    printf("trace: %s\n", out);
done:
    gs_trace_free(&tr);
    free(jobs);
    return rc;
}

static int record_main(int argc, char **argv)
{
    gs_run_args a;
    int rc = gs_scn_run_parse(&a, argc, argv, "record");
    if (rc != GS_CLI_GO)
        return rc;
    if (!a.from_log)
        return gs_scn_run_with(&a, "record");
    if (!a.record || a.out || a.seed || a.sets.n || a.dry || a.no_report || a.pos.n) {
        fprintf(stderr, "usage: gapscope record --from-log LOG -o TRACE.jsonl [--quiet]\n"
                        "  writes the job mix of a production daemon's log as a trace\n"
                        "  (traces/README.md) for `gapscope replay` / [jobs] trace =\n");
        return 2;
    }
    return record_from_log(a.from_log, a.record, a.quiet);
}

GS_CLI_COMMAND(record, "record",
               "write the arrivals a run processed (or a daemon log's job mix) as a trace",
               record_main)
