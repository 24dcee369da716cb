/*
 * A small JSON reader and writer (RFC 8259) for the files gapscope reads: snarkjs's
 * proof/public/verification-key JSON, trace lines, summaries.  It builds a
 * tree; numbers keep their source text (snarkjs writes big integers as
 * strings, and callers that need exact integers parse the text).
 *
 * Errors: GS_ERR_FORMAT with "what @ name:line:col: expected ...".
 * Ownership: gs_json_parse allocates the tree; gs_json_free frees it.
 * Nesting is limited to 64 levels.
 */
#ifndef GS_JSON_H
#define GS_JSON_H

#include <stddef.h>

#include "arena.h"
#include "status.h"

typedef enum { GS_JSON_NULL, GS_JSON_BOOL, GS_JSON_NUMBER, GS_JSON_STRING,
               GS_JSON_ARRAY, GS_JSON_OBJECT } gs_json_type;

typedef struct gs_json {
    gs_json_type type;
    int boolean;
    double number;           /* numbers: the value as a double */
    char *text;              /* strings: the decoded UTF-8 string; numbers: source text */
    size_t n;                /* arrays/objects: number of items */
    struct gs_json *items;   /* arrays/objects: the values */
    char **keys;             /* objects: the keys (parallel to items) */
    int line, col;           /* where the value starts (1-based) */
} gs_json;

/* name: shown in errors (a path).  text need not be NUL-terminated. */
gs_status gs_json_parse(gs_json **out, const char *text, size_t len,
                        const char *name, gs_err *err);
/* Parsing many small documents (a trace's events, one at a time): the tree
 * goes into an arena (arena.h; chunks of 64 KiB, reused after
 * gs_arena_reset) instead of one malloc per node.  It is valid until
 * gs_arena_reset/free; never gs_json_free it.  Errors as gs_json_parse. */
gs_status gs_json_parse_in(gs_arena *a, gs_json **out, const char *text, size_t len,
                           const char *name, gs_err *err);
/* The first value of text (after blanks) into the arena, whatever follows
 * it: *used bytes up to its end, *lines newlines in them; on failure
 * *short_input says whether the text ended first (more text may complete
 * it).  A value the text ends inside of never succeeds, except a bare
 * number or literal: callers wanting a complete value check it is an
 * object or array. */
gs_status gs_json_parse_prefix_in(gs_arena *a, gs_json **out, const char *text, size_t len,
                                  const char *name, gs_err *err, size_t *used, int *lines,
                                  int *short_input);
/* Reads and parses a whole file. */
gs_status gs_json_parse_file(gs_json **out, const char *path, gs_err *err);
void gs_json_free(gs_json *j);

/* Object member by key (NULL if absent or j is not an object). */
const gs_json *gs_json_get(const gs_json *j, const char *key);
/* Array item (NULL if out of range or not an array). */
const gs_json *gs_json_at(const gs_json *j, size_t i);
const char *gs_json_type_name(gs_json_type t);

/* ---- writing (json_write.c) ---- */
#include <stdio.h>
/* Writes s as a JSON string literal (with quotes): invalid UTF-8 bytes
 * become U+FFFD, control characters \u00XX; NULL is "". */
void gs_json_str(FILE *f, const char *s);
/* The length (1-4) of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, surrogates or code points past U+10FFFF); 0 when s starts
 * with a byte that begins none, or at its terminating NUL. */
size_t gs_utf8_valid_len(const char *s);
/* Writes v with 10 significant digits; NaN and infinities as null. */
void gs_json_num(FILE *f, double v);

#endif
