/*
 * Shared helpers of the libFuzzer targets (fuzz/README.md).
 *
 * Every parser a user can feed takes a path, so a target writes its input
 * to a file in a scratch directory of its own (under $FUZZ_TMPDIR, else
 * /dev/shm when it exists, else $TMPDIR or /tmp), calls the parser on that
 * path and checks the invariant of issue 16: the call returns (no crash,
 * no sanitizer report, no hang; libFuzzer and ASan/UBSan watch those), and
 * a failure carries a message that names the file and a position in it.
 * A violated invariant aborts with the reason, which libFuzzer records as
 * a crash (an input under build-fuzz/artifacts/).
 *
 * Not thread safe (libFuzzer runs one input at a time per process).
 */
#ifndef GS_FZ_H
#define GS_FZ_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"

/* The scratch directory of this process (created on first use, removed at
 * exit), and a path name inside it. */
const char *fz_dir(void);
const char *fz_path(const char *name);

/* Writes data to fz_path(name) (replacing it) and returns that path. */
const char *fz_write(const char *name, const uint8_t *data, size_t size);

/* Writes a NUL-terminated text to fz_path(name); returns the path. */
const char *fz_write_text(const char *name, const char *text);

/* Aborts unless every file left in fz_dir() is one of the names listed
 * (NULL-terminated): a writer that failed must leave no "*.tmp.*" behind. */
void fz_expect_files(const char *const *names);

/* Aborts if the directory holds a file whose name contains ".tmp". */
void fz_expect_no_tmp(const char *dir);

/* The invariant for a failed parse of `path`: st is a real error status,
 * err->status == st, and err->msg names `path` followed by a position
 * (":<digit>" or "@<digit>").  A failure to open or read the file itself,
 * and running out of memory, need only the path (no position exists);
 * positions are also waived when need_pos is 0.  path NULL: only the
 * status and a non-empty message are checked (an error about a file that
 * the input names, wherever that file is). */
void fz_check_error(gs_status st, const gs_err *err, const char *path, int need_pos);

/* The round-trip oracle (fz_oracle.c, issue 35), for a timeline a reader
 * accepted: spans.csv written and read back, and timeline.json written and
 * imported back, give the same lanes and spans field for field (and meta).
 * Aborts on a difference. */
struct gs_timeline;
struct gs_run;
void fz_round_trip(struct gs_timeline *tl);
/* Aborts unless a and b hold the same lanes, spans (field for field, in
 * sorted order), meta (in order) and dropped count; what names the pair. */
void fz_same_timeline(struct gs_timeline *a, struct gs_timeline *b, const char *what);
/* summary.json at path, parsed, against the analysis and meta of r. */
void fz_summary_check(const struct gs_run *r, const char *path);
/* Analyses tl (a refusal needs a message and may not be GS_ERR_RANGE: an
 * accepted timeline is in range) and checks its summary.json. */
void fz_analysis_outputs(struct gs_timeline *tl);

/* Aborts unless files a and b hold the same bytes (a writer's second
 * round trip against its first); what names the format. */
void fz_same_files(const char *a, const char *b, const char *what);

/* 1 when the string s, written by gs_json_str, reads back as back. */
int fz_json_same(const char *s, const char *back);
/* Aborts unless member key of o is x as gs_json_num wrote it (10 digits;
 * null for NaN and infinities); where names o in the message. */
struct gs_json;
void fz_json_num(const struct gs_json *o, const char *key, double x, const char *where);

/* Prints why and aborts (a finding). */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
