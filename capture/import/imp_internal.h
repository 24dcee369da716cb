/*
 * Helpers shared by the importers (internal to capture/import).
 *
 * imp_lanes: lanes by name, opened on first use (a timeline has no lookup
 * by name); it grows as needed, imp_lanes_free releases it.  The int64
 * maps of correlation ids and thread ids are common/imap.h's.
 */
#ifndef GS_IMP_INTERNAL_H
#define GS_IMP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../common/imap.h"
#include "import.h"

struct gs_strmap;
typedef struct imp_lanes {
    gs_timeline *tl;
    struct gs_strmap *names; /* name -> 1, 2, ... (allocated on first use) */
    gs_tl_lane **lane;       /* by id - 1 */
    size_t cap;
    int oom;                 /* an allocation failed (lookups then return NULL) */
} imp_lanes;

void imp_lanes_init(imp_lanes *m, gs_timeline *tl);
void imp_lanes_free(imp_lanes *m);
/* The lane called name (opened with role/device/stream when new), NULL on OOM. */
gs_tl_lane *imp_lane(imp_lanes *m, const char *name, gs_role role, int32_t device,
                     int32_t stream);

/* Times an importer accepts: timeline/limits.h (GS_TLV_TIME); offsets and
 * sums of times go through gs_tl_time_add, differences through gs_tl_sub. */
#include "../../timeline/limits.h"

/*
 * imp_win (imp_win.c): a window onto a JSON input, the whole of it when it
 * is in memory, else IMP_WIN_CHUNK bytes of the file at a time (grown for
 * one value up to IMP_WIN_MAX), so memory does not grow with the file.
 * Pointers into the window (s, a value from imp_win_value) are valid
 * until the next call that may refill it (ws, value, fill, seek).
 */
#define IMP_WIN_CHUNK ((size_t)8 << 20)
#define IMP_WIN_MAX ((size_t)1 << 30)
typedef struct imp_win {
    FILE *f;                 /* NULL: the whole input is in [buf_c, end) */
    char *buf;               /* owned (file input) */
    const char *buf_c;       /* the window's first byte */
    size_t cap;
    const char *s, *end;     /* the unread part of the window */
    uint64_t base;           /* input offset of buf_c[0] */
    long line;               /* line of *s (1-based) */
    int eof, oom, io, too_big;
} imp_win;
void imp_win_mem(imp_win *w, const char *data, size_t len);
int imp_win_file(imp_win *w, FILE *f);     /* 0: empty, or out of memory (oom) */
void imp_win_free(imp_win *w);
uint64_t imp_win_off(const imp_win *w);   /* input offset of s */
/* Reads more input keeping [keep, end); 0 when nothing more came. */
int imp_win_fill(imp_win *w, const char *keep);
/* Moves to input offset off (a place seen before) at line `line`. */
int imp_win_seek(imp_win *w, uint64_t off, long line);
/* Skips blanks; the next byte (not consumed), or -1 at the end of input. */
int imp_win_ws(imp_win *w);
/* The next JSON value after blanks (brackets and strings matched, the
 * inside not validated): 1 with its bytes and first line, 0 when the
 * input ends first (or the value exceeds IMP_WIN_MAX: too_big). */
int imp_win_value(imp_win *w, const char **v, size_t *n, long *line);

/*
 * imp_scan (imp_scan.c): the members of one JSON object that a reader
 * wants, read straight from the bytes (a trace event's dozen fields, the
 * rest skipped), without a tree.  A level names up to IMP_SCAN_KEYS keys;
 * one of them (sub) may be an object whose members sub_level names (an
 * event's "args").  imp_scan_object fills vals[0, L->n) for L's keys and
 * vals[L->n, L->n + sub_level->n) for the sub-level's: type -1 when absent,
 * else the GS_JSON_* type and, for strings (without the quotes) and
 * numbers, the bytes (not NUL-terminated).  Returns IMP_SCAN_OK with the
 * object's *used bytes and *lines newlines; IMP_SCAN_SHORT when the text
 * ends inside the object (more input may complete it); IMP_SCAN_SLOW when
 * the object holds what only the tree reader (common/json.h) reads
 * exactly (an escape in a string, deep nesting) or is not valid JSON: the
 * caller parses it with the tree reader instead, which gives the same
 * values or the error.
 */
#define IMP_SCAN_OK 1
#define IMP_SCAN_SHORT 0
#define IMP_SCAN_SLOW (-1)
#define IMP_SCAN_KEYS 16
typedef struct imp_sval {
    int type;
    const char *s;
    size_t n;
} imp_sval;
typedef struct imp_scan_level {
    const char *const *keys;
    size_t len[IMP_SCAN_KEYS];
    int n, sub;
    const struct imp_scan_level *sub_level;
} imp_scan_level;
void imp_scan_level_init(imp_scan_level *L, const char *const *keys, int n, int sub,
                         const imp_scan_level *sub_level);
int imp_scan_object(imp_sval *vals, const imp_scan_level *L, const char *text, const char *end,
                    size_t *used, long *lines);

/*
 * imp_cut (imp_cut.c): the end of the object or array at text[0], the same
 * cut as imp_win_value's (brackets matched outside strings, escapes
 * honoured, nothing validated), found 16 bytes at a time.  Returns 1 with
 * its *used bytes and *lines newlines, and *hit 1 when one of its strings
 * (keys included) is one of W's words, or holds a backslash; 0 when text
 * does not start with '{' or '[' or the value runs past end.  Words are
 * 1 to 31 bytes (longer ones never match); a word whose bit is set in
 * fold matches in any case.
 */
#define IMP_CUT_WORDS 16
typedef struct imp_cut_words {
    const char *const *w;
    int n;
    unsigned fold;
    uint16_t of_len[32];     /* bit i of of_len[n]: word i is n bytes long */
} imp_cut_words;
void imp_cut_words_init(imp_cut_words *W, const char *const *words, int n, unsigned fold);
int imp_cut_value(const char *text, const char *end, const imp_cut_words *W, size_t *used,
                  long *lines, int *hit);

/* The next line (without its '\n'; the last one may lack it): 1 with *n
 * its length and *s its bytes, or *s NULL when it is longer than max (its
 * bytes are let go as they are read, never held); 0 at the end of the
 * input or on a read error (w->io, w->oom).  w->line counts the lines
 * returned. */
int imp_win_line(imp_win *w, size_t max, const char **s, size_t *n);

/* "where" strings for messages and skip reasons. */
void imp_where_line(char *buf, size_t n, const char *name, long line);
void imp_where_off(char *buf, size_t n, const char *name, uint64_t off);

/* A decimal number of microseconds ("12.345", "-3", "1.5e3") as integer
 * nanoseconds, exactly when it has at most 3 fractional digits and no
 * exponent.  Returns 1, 0 when not a number, -1 when the nanoseconds do
 * not fit an int64 (the caller names the input as out of range). */
int imp_us_to_ns(const char *text, int64_t *out);

/* A kernel name shortened for a span name: leading return type, template
 * arguments and parameter list dropped, at most 96 bytes, never empty. */
void imp_kernel_name(char *out, size_t n, const char *full);

/* Sets `source` and appends name to `source.file` (';'-separated). */
void imp_set_source(gs_timeline *tl, const char *source, const char *name);

/* The CUDA API name without a "_vNNNN" version suffix (nsys StringIds). */
void imp_api_name(char *out, size_t n, const char *api);
/* 1 when a runtime/driver API call blocks the host until device work is
 * done (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
 * blocking cudaMemcpy*, cuCtxSynchronize, cuMemcpyHtoD, ...). */
int imp_api_is_sync(const char *api);

#endif
