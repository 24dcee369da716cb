/*
 * The iden3 binary container shared by .r1cs, .wtns, .zkey and .ptau
 * (SNARKJS-FORMATS.md section 1): magic, u32 version, u32 section count,
 * then sections {u32 type, u64 length, payload}.  Sections are found
 * through the table, never by position.
 *
 * gs_binfile maps the whole file read-only.  gs_bincur reads a section with
 * bounds checks; every error names the file and the absolute byte offset.
 * A streaming reader (zkey_read.c) instead makes a gs_binfile "view" of one
 * buffer holding the file's bytes [base, base + size), so its cursors and
 * messages are the same; the header and section-header checks are shared
 * (gs_binfile_check_header, gs_binfile_check_section).
 * Internal to prover/io.
 */
#ifndef GS_BINFILE_H
#define GS_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/status.h"

typedef struct gs_binsec {
    uint32_t type;
    uint64_t offset;   /* of the payload, from the start of the file */
    uint64_t length;
} gs_binsec;

typedef struct gs_binfile {
    const char *path;
    const char *kind;        /* "zkey", "r1cs", "wtns": prefix of error messages */
    const uint8_t *data;     /* the file's bytes from offset base on */
    size_t size;
    uint64_t base;           /* 0 for a mapped file; a view's first file offset */
    uint32_t version;
    size_t n_sections;
    gs_binsec *sections;
} gs_binfile;

typedef struct gs_bincur {
    const gs_binfile *bf;
    uint64_t pos, end;       /* absolute file offsets */
    uint32_t section;
    gs_err *err;
} gs_bincur;

/* Opens path, checks magic (4 chars) and version <= max_version. */
gs_status gs_binfile_open(gs_binfile *bf, const char *path, const char *magic,
                          uint32_t max_version, gs_err *err);
void gs_binfile_close(gs_binfile *bf);
/*
 * The checks gs_binfile_open makes, for readers that do not map the file:
 * the 12-byte file header (magic, version <= max_version, section count;
 * file_size for the "too short" message), and section header i of n read at
 * file offset pos (its payload must fit in file_size).  Messages name path
 * and the offset, as gs_binfile_open's do.
 */
gs_status gs_binfile_check_header(const char *path, const char *magic, uint32_t max_version,
                                  const uint8_t *hdr, uint64_t file_size, uint32_t *version,
                                  uint32_t *n_sections, gs_err *err);
gs_status gs_binfile_check_section(const char *path, const char *kind, const uint8_t *sh,
                                   uint64_t pos, uint64_t file_size, uint32_t i, uint32_t n,
                                   gs_binsec *out, gs_err *err);
/* Sets err to "<kind> @ <path>@<offset>: <fmt...>" and returns s. */
gs_status gs_binfile_fail(const char *path, const char *kind, gs_err *err, uint64_t off,
                          gs_status s, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Cursor over the unique section of `type` (error if missing or repeated). */
gs_status gs_binfile_section(const gs_binfile *bf, uint32_t type, gs_bincur *cur, gs_err *err);

gs_status gs_bincur_u32(gs_bincur *c, uint32_t *out, const char *what);
gs_status gs_bincur_u64(gs_bincur *c, uint64_t *out, const char *what);
/* Returns a pointer into the mapping, n bytes. */
gs_status gs_bincur_bytes(gs_bincur *c, const uint8_t **out, uint64_t n, const char *what);
/* Error unless the cursor is exactly at the end of its section. */
gs_status gs_bincur_end(gs_bincur *c);
/* Sets err to "<kind> @ <path>@<offset>: <fmt...>" and returns s. */
gs_status gs_bincur_fail(const gs_bincur *c, uint64_t offset, gs_status s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A growable output buffer for writers, flushed atomically by gs_file_write_atomic. */
typedef struct gs_binbuf {
    uint8_t *data;
    size_t len, cap;
    int oom;
} gs_binbuf;
void gs_binbuf_put(gs_binbuf *b, const void *p, size_t n);
void gs_binbuf_u32(gs_binbuf *b, uint32_t v);
void gs_binbuf_u64(gs_binbuf *b, uint64_t v);
/* Starts a section: writes type and a length placeholder; returns its position. */
size_t gs_binbuf_section_begin(gs_binbuf *b, uint32_t type);
void gs_binbuf_section_end(gs_binbuf *b, size_t begin);
void gs_binbuf_free(gs_binbuf *b);

/* Writes data to path via a temporary file and rename(2): no partial files. */
gs_status gs_file_write_atomic(const char *path, const void *data, size_t len,
                               const char *kind, gs_err *err);

#endif
