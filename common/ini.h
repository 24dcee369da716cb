/*
 * The INI lexer: the one reader of gapscope's INI files (scenario files,
 * the gate's thresholds).  Grammar, one construct per line:
 *
 *   ; comment            # comment           (also after a value, preceded by a blank)
 *   [section]
 *   key = value          (blanks around key and value are dropped)
 *   include = path       (GS_INI_INCLUDE: anywhere; path relative to the
 *                         including file; the included file starts outside
 *                         any section, and the includer's section resumes)
 *
 * With GS_INI_ENV, values expand ${NAME} and ${NAME:-fallback} from the
 * environment before the caller sees them; an unset variable without a
 * fallback is an error.  Includes nest at most GS_INI_MAX_DEPTH deep
 * (which also stops cycles).  Lines hold at most GS_INI_LINE_MAX bytes; a
 * NUL byte in a line is an error (never a silent end of the line).
 *
 * The lexer knows no sections or keys: the caller's on_section and on_pair
 * judge them.  Every error reads "<what> @ file:line: detail" (what: the
 * reader's noun), and the first error stops the read.
 */
#ifndef GS_INI_H
#define GS_INI_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define GS_INI_MAX_DEPTH 8
#define GS_INI_LINE_MAX 1024
#define GS_INI_SECTION_MAX 96

enum {
    GS_INI_INCLUDE = 1 << 0, /* `include = path` reads another file there */
    GS_INI_ENV = 1 << 1,     /* values expand ${NAME} and ${NAME:-fallback} */
};

typedef struct gs_ini_reader {
    const char *what;     /* names the reader in errors: "scenario", "thresholds" */
    unsigned flags;       /* GS_INI_* */
    const char *section;  /* the section of keys before any header (NULL: "") */
    /* A [section] header, name trimmed; an error rejects it.  May be NULL. */
    gs_status (*on_section)(void *ctx, const char *name, const char *where, gs_err *err);
    /* One key = value in `section` ("" outside any); base_dir is the
     * directory of the file it is in, for paths the value names. */
    gs_status (*on_pair)(void *ctx, const char *section, const char *key, const char *value,
                         const char *where, const char *base_dir, gs_err *err);
    void *ctx;
} gs_ini_reader;

/* Reads the file at path (errors about the file itself name path). */
gs_status gs_ini_read_file(const gs_ini_reader *r, const char *path, gs_err *err);
/* Reads len bytes of text as the file `name` in directory base_dir. */
gs_status gs_ini_read_text(const gs_ini_reader *r, const char *text, size_t len, const char *name,
                           const char *base_dir, gs_err *err);

/* ---- typed values (scenario options, engine settings) ----------------------
 * Each returns 1 when text is such a value (and sets *out), else 0. */
/* A decimal integer in [lo, hi], nothing around it. */
int gs_ini_int(long long *out, const char *text, double lo, double hi);
/* An unsigned integer (decimal, 0x hex or 0 octal), no sign. */
int gs_ini_u64(uint64_t *out, const char *text);
/* The index of text in choices, a list "a|b|c" (exact match). */
int gs_ini_choice(int *out, const char *choices, const char *text);

#endif
