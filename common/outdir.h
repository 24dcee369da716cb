/*
 * Output directories that a failed command leaves as they were.
 *
 * A command that writes a run directory (import, attach, analyze, report,
 * predict, run, sweep, gate) brackets its writing:
 *
 *   gs_outdir_begin(&d, dir, names, err)   creates dir (with its parents,
 *                                          gs_mkdir_p of common/paths.h)
 *                                          when it is missing; else keeps a
 *                                          copy of each existing entry the
 *                                          command may write (names)
 *   ... write the outputs (each through common/outfile.h) ...
 *   gs_outdir_commit(&d)   on success: drops the copies
 *   gs_outdir_abort(&d)    on failure: a directory begin created is removed
 *                          whole; in one that existed, every entry of names
 *                          is removed and the kept copies put back, so the
 *                          previous outputs are intact and no new one stays
 *
 * Outputs are written in place, not in a temporary sibling renamed at the
 * end: what a run directory's files say about themselves (summary.json's
 * source, report.md's re-render command, chart labels) names the directory
 * they were written in, and that must be the final one.
 *
 * names: NULL-terminated entry names in dir ("summary.json", "data"); a
 * name ending in '*' matches every entry with that prefix ("run-*").  The
 * copies go to "dir/.gs-keep.<pid>.<n>": a file directly in dir is
 * hard-linked (gapscope replaces those by rename, common/outfile.h), so
 * keeping a large spans.csv costs nothing; files in subdirectories (data/,
 * charts/, which gnuplot rewrites in place) are copied.
 * Nested brackets on one directory are fine (each keeps its own copies).
 *
 * Ownership: begin fills caller storage, commit/abort release it (either
 * exactly once after a successful begin).  Not thread safe per object.
 */
#ifndef GS_OUTDIR_H
#define GS_OUTDIR_H

#include "status.h"

typedef struct gs_outdir {
    char path[4096];
    char keep[4160];             /* "" when nothing was kept */
    const char *const *names;
    int created;                 /* begin made the directory */
} gs_outdir;

gs_status gs_outdir_begin(gs_outdir *d, const char *path, const char *const *names, gs_err *err);
void gs_outdir_commit(gs_outdir *d);
void gs_outdir_abort(gs_outdir *d);
/* Ends the bracket by an exit code: 0 commits, anything else aborts;
 * returns rc (so `return gs_outdir_end(&d, rc);`). */
int gs_outdir_end(gs_outdir *d, int rc);

#endif
