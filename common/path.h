/*
 * Paths written into captures: relative, never absolute.
 *
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
#ifndef GS_PATH_H
#define GS_PATH_H

#include <stddef.h>

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
