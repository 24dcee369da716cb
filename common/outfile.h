/*
 * Atomic output files for everything a run directory holds (timeline CSV/JSON,
 * summary.json, data files, reports).  gs_out_open writes to
 * "<path>.tmp.<pid>"; gs_out_close renames it onto path when ok is set and
 * no write error happened, and removes it otherwise, so a failed write
 * never leaves a partial file at path.
 *
 * Not thread safe per object; different objects are independent.
 */
#ifndef GS_OUTFILE_H
#define GS_OUTFILE_H

#include <stdio.h>

#include "status.h"

typedef struct gs_outfile {
    FILE *f;
    char tmp[4096];
    char path[4096];
} gs_outfile;

gs_status gs_out_open(gs_outfile *o, const char *path, gs_err *err);
/* Closes, then renames (ok != 0) or removes (ok == 0).  Returns GS_ERR_IO
 * naming the path when writing, flushing or renaming failed. */
gs_status gs_out_close(gs_outfile *o, int ok, gs_err *err);

/* Reads a whole file into a NUL-terminated malloc'd buffer (*len bytes
 * before the NUL).  GS_ERR_IO naming the path on failure. */
gs_status gs_read_file(char **out, size_t *len, const char *path, gs_err *err);

/* Removes dir and everything under it (a scratch directory; symlinks are
 * removed, not followed; dir may also be a single file, and may be
 * missing).  Best effort: what cannot be removed stays.  Also what
 * common/outdir.h removes on abort. */
void gs_remove_tree(const char *dir);

#endif
