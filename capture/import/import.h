/*
 * Importers: evidence a user already has, turned into a gapscope timeline
 * (timeline/timeline.h) in the vocabulary of timeline/SPANS.md, "Foreign
 * timelines".  This layer depends only on timeline and common; diag depends on
 * none of the capture sources.
 *
 * Formats:
 *   chrome      Chrome Trace Event JSON: torch.profiler / Kineto exports,
 *               Perfetto JSON, and gapscope's own timeline.json
 *               (import_chrome.c).
 *   nsys        Nsight Systems SQLite export, `nsys export --type sqlite`
 *               (import_nsys.c; needs libsqlite3 at build time).
 *   daemon_log  the production daemon's log: TIMELINE, GPU_TIMING /
 *               FIN_TIMING tracing lines and CUZK_TIMING lines
 *               (import_daemon.c), rebuilt into engine-shaped lanes with
 *               approximate device spans.
 *
 * Every parser takes (bytes, length, name): name appears in messages and
 * in the timeline's `source.file` meta.  Bytes need not be NUL-terminated.
 * These are the entry points a fuzz target calls (gs_import_bytes with
 * GS_IMPORT_AUTO exercises the sniffer and all three).
 *
 * Errors.  Input no parser can use at all returns GS_ERR_FORMAT with
 * "import @ <name>:<line>[:<col>]: <what was expected>" (or "@ <name>+<byte
 * offset>" for binary input).  A partially readable file imports what it
 * can: records that could not be used are counted per reason in the
 * gs_import_report (with the first place each reason happened), and the
 * caller says so.  A value the timeline model cannot hold (a time, device,
 * stream, job, partition or flags outside timeline/limits.h) is not a
 * record to skip: it is GS_ERR_FORMAT at its place ("<name>:<line>", or
 * "<name> table <T> row <N>" for nsys), never narrowed.  Never a crash on
 * any input.
 *
 * Ownership: the timeline is the caller's (spans are copied into it);
 * gs_import_report is caller storage with no heap parts.  Not thread safe
 * per timeline.
 */
#ifndef GS_IMPORT_H
#define GS_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../timeline/timeline.h"
#include "../../common/status.h"

/* X(enum, name) */
#define GS_IMPORT_FORMAT_TABLE(X)            \
    X(GS_IMPORT_AUTO, "auto")                \
    X(GS_IMPORT_CHROME, "chrome")            \
    X(GS_IMPORT_NSYS, "nsys")                \
    X(GS_IMPORT_DAEMON_LOG, "daemon-log")
typedef enum { GS_IMPORT_FORMAT_TABLE(GS_XT_ID) GS_IMPORT_FORMAT_COUNT } gs_import_format;

const char *gs_import_format_name(gs_import_format f);
int gs_import_format_from_name(gs_import_format *out, const char *name);

/* Guesses the format from the first bytes: "SQLite format 3\0" -> nsys;
 * '{' or '[' (after blanks / a UTF-8 BOM) -> chrome; a TIMELINE, tracing
 * GPU_TIMING/FIN_TIMING or CUZK_TIMING line in the first 64 KiB ->
 * daemon_log; else GS_IMPORT_AUTO (unknown). */
gs_import_format gs_import_sniff(const uint8_t *data, size_t len);

#define GS_IMPORT_MAX_REASONS 24
typedef struct gs_import_reason {
    char reason[96];         /* what was wrong, e.g. "event without numeric ts" */
    char first[160];         /* where it happened first: "file:line" or "file+offset" */
    uint64_t count;
} gs_import_reason;

typedef struct gs_import_report {
    uint64_t used;           /* records turned into spans */
    uint64_t ignored;        /* records of kinds that carry nothing for the timeline */
    gs_import_reason skipped[GS_IMPORT_MAX_REASONS];
    size_t n_skipped;        /* distinct reasons (the last slot collects any overflow) */
} gs_import_report;

void gs_import_report_init(gs_import_report *rep);
/* Counts a skipped record under reason (where: "file:line"). */
void gs_import_skip(gs_import_report *rep, const char *reason, const char *where);
uint64_t gs_import_skipped_total(const gs_import_report *rep);

/* Options of the daemon-log importer. */
typedef struct gs_import_options {
    int32_t device;          /* device id of the daemon's GPU lanes (default 0) */
} gs_import_options;
void gs_import_options_defaults(gs_import_options *o);

/* Parses bytes in the given format (AUTO: sniffed) into tl, adding lanes
 * and spans; sets the `source` and `source.file` meta keys (appending to
 * source.file when tl already holds an import, and joining distinct
 * sources with '+').  Files keep their own clocks: several files share a
 * time base only when their sources do (Kineto traces of one host).  opt
 * may be NULL. */
gs_status gs_import_bytes(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                          size_t len, const char *name, gs_import_format fmt,
                          const gs_import_options *opt, gs_err *err);
/* Imports path: a Chrome trace and a daemon log are streamed
 * (gs_import_chrome_file, gs_import_daemon_log_file), an nsys export
 * opened by SQLite in place. */
gs_status gs_import_file(gs_timeline *tl, gs_import_report *rep, const char *path,
                         gs_import_format fmt, const gs_import_options *opt, gs_err *err);

/* The per-format parsers behind gs_import_bytes (same contract). */
gs_status gs_import_chrome(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                           size_t len, const char *name, gs_err *err);
/* The Chrome parser streaming from an open file (gs_import_file uses it):
 * memory holds an 8 MiB window of the file, not the file; f must be
 * seekable (the events are read twice).  The caller closes f. */
gs_status gs_import_chrome_file(gs_timeline *tl, gs_import_report *rep, FILE *f,
                                const char *name, gs_err *err);
gs_status gs_import_nsys(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                         size_t len, const char *name, gs_err *err);
/* The nsys parser on a file, opened read-only by SQLite in place. */
gs_status gs_import_nsys_path(gs_timeline *tl, gs_import_report *rep, const char *path,
                              gs_err *err);
gs_status gs_import_daemon_log(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                               size_t len, const char *name, const gs_import_options *opt,
                               gs_err *err);
/* The daemon-log parser reading an open file line by line through an
 * 8 MiB window: memory holds the partitions it rebuilds, not the file.
 * The caller closes f. */
gs_status gs_import_daemon_log_file(gs_timeline *tl, gs_import_report *rep, FILE *f,
                                    const char *name, const gs_import_options *opt, gs_err *err);

/*
 * The job mix of a daemon log, for `gapscope record --from-log`: one entry
 * per job, in order of its first event (SYNTH_START / GPU_QUEUE / GPU_START,
 * whichever comes first), which stands for its arrival.  kind is inferred
 * (a `kind=` detail when the log has one; else 10 partitions -> porep_c2,
 * 16 -> snap_deals, 1 partition or monolithic -> window_post when its
 * synthesis took >= 2 s, winning_post below) and kind_inferred says so.
 */
typedef struct gs_log_job {
    int64_t t_ns;            /* first event, since the first event of the log */
    uint64_t id;             /* the log's job id when numeric, else 1, 2, ... in order */
    char log_id[64];         /* the job id as the log wrote it */
    char kind[24];           /* winning_post|window_post|snap_deals|porep_c2 */
    int kind_inferred;
    uint32_t partitions;     /* distinct partitions seen (1 for monolithic) */
} gs_log_job;

/* Fills *jobs (malloc'd; caller frees) and *n from a daemon log's bytes. */
gs_status gs_import_daemon_jobs(gs_log_job **jobs, size_t *n, gs_import_report *rep,
                                const uint8_t *data, size_t len, const char *name,
                                gs_err *err);
/* The same from the file at path, read line by line (not held whole). */
gs_status gs_import_daemon_jobs_path(gs_log_job **jobs, size_t *n, gs_import_report *rep,
                                     const char *path, gs_err *err);

#endif
