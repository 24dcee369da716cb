/*
 * Paths: directories made on the way (mkdir -p), a file name joined to its
 * directory, and a path a file names relative to that file's directory.
 * Everyone's ground: the drivers' run and sweep directories, the
 * importers' output, the key records, attach's raw directory.
 *
 * Pure string work plus mkdir(2); no allocation, thread safe.
 *
 * Paths written into captures (gs_path_abs, gs_path_rel):
 * A run directory, an attach capture or a scenario dump is copied between
 * machines and committed under traces/, so the paths recorded in it are
 * relative to an anchor that travels with it (the capture directory, or
 * the working directory a command line was run in), never absolute
 * paths of the machine that wrote it.
 *
 * Both functions are lexical: "." and ".." components and repeated
 * slashes are folded, symbolic links are not followed (give both
 * arguments in the same form, e.g. both from realpath(), where links
 * matter).  A relative argument is taken relative to the working
 * directory (getcwd).  Pure functions of their arguments and the working
 * directory; thread safe.
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
/* out = the base name of path (after its last '/'), cut to cap - 1 bytes,
 * then without its extension: from its first '.' when first_dot, else
 * from its last ("a.b.c": "a" or "a.b"); a dot that starts the name stays. */
void gs_path_stem(char *out, size_t cap, const char *path, int first_dot);


/* ---- paths written into captures: relative, never absolute ---- */

/* out = path made absolute and normalised ("/a/b/../c" -> "/a/c").
 * Returns 0, or -1 when it does not fit in cap or getcwd fails (out is
 * then the empty string). */
int gs_path_abs(char *out, size_t cap, const char *path);

/* out = path relative to the directory base ("traces/x.jsonl" from
 * "traces/run1" is "../x.jsonl"; a path equal to base is ".").  An empty
 * path stays empty.  Returns 0, or -1 when it does not fit or getcwd fails:
 * out is then path unchanged (truncated to cap). */
int gs_path_rel(char *out, size_t cap, const char *path, const char *base);

#endif
