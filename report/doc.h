/*
 * A tiny two-format document writer: every call writes the same content
 * to a Markdown file and to a self-contained HTML file (inline CSS, images
 * embedded as base64 data URIs, no external resources), so report.md and
 * report.html never disagree.  Used by report.c.
 *
 * Text arguments are plain text: the writer escapes them for each format.
 * Not thread safe.
 */
#ifndef GS_DOC_H
#define GS_DOC_H

#include <stdio.h>

#include "../common/outfile.h"

typedef struct gs_doc {
    gs_outfile md, html;
    int in_table, table_cols;
} gs_doc;

gs_status gs_doc_open(gs_doc *d, const char *md_path, const char *html_path, const char *title,
                      gs_err *err);
/* Closes both (ok = 0 discards them). */
gs_status gs_doc_close(gs_doc *d, int ok, gs_err *err);

void gs_doc_h(gs_doc *d, int level, const char *text);
/* A paragraph; bold_lead (may be NULL) is printed in bold before text. */
void gs_doc_p(gs_doc *d, const char *bold_lead, const char *text);
void gs_doc_pf(gs_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gs_doc_table(gs_doc *d, int cols, const char *const *headers);
void gs_doc_row(gs_doc *d, const char *const *cells);
void gs_doc_table_end(gs_doc *d);
void gs_doc_list_item(gs_doc *d, const char *text);
void gs_doc_list_end(gs_doc *d);
void gs_doc_pre(gs_doc *d, const char *text);
/* An image: Markdown links rel_path (relative to the report); HTML embeds
 * the file at abs_path as a data URI (a note replaces it when unreadable). */
void gs_doc_img(gs_doc *d, const char *abs_path, const char *rel_path, const char *alt);

/* Base64 (RFC 4648) of n bytes to f. */
void gs_base64_write(FILE *f, const unsigned char *p, size_t n);

#endif
