/*
 * Paths: directories made on the way (mkdir -p), a file name joined to its
 * directory, and a path a file names relative to that file's directory.
 * Everyone's ground: the drivers' run and sweep directories, the
 * importers' output, the key records, attach's raw directory.
 *
 * Pure string work plus mkdir(2); no allocation, thread safe.
 */
#ifndef GS_PATHS_H
#define GS_PATHS_H

#include <stddef.h>

#include "status.h"

/* mkdir -p: makes dir and every missing parent with `mode` (less the
 * umask); directories that exist are fine.  0, or -1 with errno set
 * (ENAMETOOLONG past PATH_MAX). */
int gs_mkdir_p_mode(const char *dir, unsigned mode);
/* mkdir -p with mode 0777; GS_ERR_IO naming the directory that could not
 * be made ("run @ DIR: mkdir: REASON", the drivers' wording). */
gs_status gs_mkdir_p(const char *dir, gs_err *err);

/* Joins dir and name into buf with one '/' between them (none added when
 * dir is empty or ends in '/').  0 when it does not fit in n bytes. */
int gs_path_join(char *buf, size_t n, const char *dir, const char *name);
/* A path as a file names it, resolved against the naming file's directory:
 * path itself when absolute, empty, or base_dir is NULL or empty, else
 * base_dir/path.  0 when it does not fit in n bytes (buf then holds as
 * much as fits). */
int gs_path_resolve(char *buf, size_t n, const char *base_dir, const char *path);

#endif
