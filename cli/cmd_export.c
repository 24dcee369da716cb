/*
 * gapscope export --sqlite RUN_DIR|spans.csv OUT.db: the run as a SQLite
 * database (report/export.h; schema and queries: docs/sql.md).  The run is
 * re-read and re-analysed as `gapscope analyze` does; nothing in the run
 * directory changes.
 */
#include <stdio.h>

#include "../report/export.h"
#include "cli.h"
#include "cli_util.h"
#include "diag_cli.h"

typedef struct {
    gs_diag_opts d;
    int sqlite;
    gs_cli_list args;
} export_args;

static const gs_cli_opt export_opts[] = {
    GS_CLI_FLAG("--sqlite", NULL, "write a SQLite database (the one format; required)", export_args,
                sqlite),
    GS_CLI_GROUP(gs_diag_cli_opts, export_args, d),
    GS_CLI_END};

static const gs_cli_spec export_spec = {
    .cmd = "export",
    .usage = "usage: gapscope export --sqlite RUN_DIR|spans.csv OUT.db [options]\n"
             "  Writes the run as a SQLite database: every span, lane, device, gap and\n"
             "  gap piece with its cause and holder, the causes, jobs and partitions,\n"
             "  and views for the usual questions (gap_causes, stage_time).  OUT.db is\n"
             "  replaced atomically.  Tables, views and example queries: docs/sql.md.\n",
    .notes = "exit: 0 written, 2 unreadable run or bad usage (or built without libsqlite3),\n"
             "      3 the database could not be written\n",
    .opts = export_opts,
    GS_CLI_ARGS(export_args, args, 2, 2),
};

static int export_main(int argc, char **argv)
{
    export_args a = {.sqlite = 0};
    gs_diag_opts_init(&a.d);
    int rc = gs_cli_parse(&export_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    if (!a.sqlite) {
        fprintf(stderr, "gapscope export: say which format: --sqlite (the one there is)\n");
        return gs_cli_usage_error(&export_spec);
    }
    if (!gs_export_sqlite_available()) {
        gs_err err;
        gs_err_clear(&err);
        gs_export_sqlite(NULL, a.args.v[1], &err);
        fprintf(stderr, "gapscope export: %s\n", err.msg);
        return GS_EXIT_USAGE;
    }
    gs_run r;
    gs_err err;
    gs_err_clear(&err);
    if (gs_run_load(&r, a.args.v[0], &a.d.cfg, &err) != GS_OK) {
        fprintf(stderr, "gapscope export: %s\n", err.msg);
        return err.status == GS_ERR_NOMEM ? GS_EXIT_INTERNAL : GS_EXIT_USAGE;
    }
    rc = GS_EXIT_OK;
    if (gs_export_sqlite(&r, a.args.v[1], &err) != GS_OK) {
        fprintf(stderr, "gapscope export: %s\n", err.msg);
        rc = GS_EXIT_INTERNAL;
    } else if (!a.d.quiet) {
        size_t n;
        gs_timeline_spans(r.tl, &n);
        fprintf(stderr, "export: %zu spans, %zu gaps of %zu devices -> %s\n", n,
                r.an->gap_stats.count, r.an->n_dev, a.args.v[1]);
    }
    gs_run_free(&r);
    return rc;
}

GS_CLI_COMMAND(export, "export", "write a run as a SQLite database (--sqlite; docs/sql.md)",
               export_main)
