/* Markdown + self-contained HTML document writer (doc.h). */
#define _POSIX_C_SOURCE 200809L
#include "doc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char CSS[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1200px;"
    "margin:2em auto;padding:0 1em;color:#222;line-height:1.45}"
    "h1{border-bottom:2px solid #444}h2{border-bottom:1px solid #ccc;margin-top:2em}"
    "table{border-collapse:collapse;margin:1em 0;font-size:0.92em;display:block;overflow-x:auto}"
    "th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
    "th{background:#f0f0f0}tr:nth-child(even) td{background:#fafafa}"
    "pre{background:#f6f6f6;padding:0.8em;overflow-x:auto;font-size:0.85em}"
    "img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}"
    ".verdict{font-size:1.15em;background:#fff7e0;border-left:5px solid #e0a000;padding:0.6em 1em}";

static void html_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Markdown: escape what would start markup inside running text. */
static void md_esc(FILE *f, const char *s, int in_table)
{
    for (; *s; s++) {
        if (*s == '|' && in_table)
            fputs("\\|", f);
        else if (*s == '\n' && in_table)
            fputs("<br>", f);
        else if (*s == '*' || *s == '_' || *s == '`' || *s == '<' || *s == '[' || *s == ']')
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
}

gs_status gs_doc_open(gs_doc *d, const char *md_path, const char *html_path, const char *title,
                      gs_err *err)
{
    memset(d, 0, sizeof *d);
    gs_status st = gs_out_open(&d->md, md_path, err);
    if (st != GS_OK)
        return st;
    if ((st = gs_out_open(&d->html, html_path, err)) != GS_OK) {
        gs_out_close(&d->md, 0, NULL);
        return st;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", d->html.f);
    html_esc(d->html.f, title);
    fprintf(d->html.f, "</title>\n<style>%s</style></head><body>\n", CSS);
    gs_doc_h(d, 1, title);
    return GS_OK;
}

gs_status gs_doc_close(gs_doc *d, int ok, gs_err *err)
{
    if (d->html.f)
        fputs("</body></html>\n", d->html.f);
    gs_status a = gs_out_close(&d->md, ok, err);
    gs_status b = gs_out_close(&d->html, ok && a == GS_OK, err);
    return a != GS_OK ? a : b;
}

/* text in both documents: md_pre text md_post in report.md (escaped for a
 * table cell when cell), html_pre text html_post in report.html. */
static void both(gs_doc *d, const char *md_pre, const char *md_post, const char *html_pre,
                 const char *html_post, const char *text, int cell)
{
    fputs(md_pre, d->md.f);
    md_esc(d->md.f, text, cell);
    fputs(md_post, d->md.f);
    fputs(html_pre, d->html.f);
    html_esc(d->html.f, text);
    fputs(html_post, d->html.f);
}

void gs_doc_h(gs_doc *d, int level, const char *text)
{
    fprintf(d->md.f, "\n%.*s ", level, "######");
    md_esc(d->md.f, text, 0);
    fputs("\n\n", d->md.f);
    fprintf(d->html.f, "<h%d>", level);
    html_esc(d->html.f, text);
    fprintf(d->html.f, "</h%d>\n", level);
}

void gs_doc_p(gs_doc *d, const char *bold, const char *text)
{
    if (bold)
        both(d, "**", "** ", "<p class=\"verdict\"><b>", "</b> ", bold, 0);
    else
        fputs("<p>", d->html.f);
    both(d, "", "\n\n", "", "</p>\n", text, 0);
}

void gs_doc_pf(gs_doc *d, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    gs_doc_p(d, NULL, buf);
}

void gs_doc_table(gs_doc *d, int cols, const char *const *headers)
{
    d->in_table = 1;
    d->table_cols = cols;
    fputs("<table><tr>", d->html.f);
    fputc('|', d->md.f);
    for (int i = 0; i < cols; i++)
        both(d, " ", " |", "<th>", "</th>", headers[i], 1);
    fputs("\n|", d->md.f);
    for (int i = 0; i < cols; i++)
        fputs(" --- |", d->md.f);
    fputc('\n', d->md.f);
    fputs("</tr>\n", d->html.f);
}

void gs_doc_row(gs_doc *d, const char *const *cells)
{
    fputc('|', d->md.f);
    fputs("<tr>", d->html.f);
    for (int i = 0; i < d->table_cols; i++)
        both(d, " ", " |", "<td>", "</td>", cells[i] ? cells[i] : "", 1);
    fputc('\n', d->md.f);
    fputs("</tr>\n", d->html.f);
}

void gs_doc_table_end(gs_doc *d)
{
    d->in_table = 0;
    fputc('\n', d->md.f);
    fputs("</table>\n", d->html.f);
}

void gs_doc_list_item(gs_doc *d, const char *text)
{
    if (!d->in_table) {
        d->in_table = 2;
        fputs("<ul>\n", d->html.f);
    }
    both(d, "- ", "\n", "<li>", "</li>\n", text, 0);
}

void gs_doc_list_end(gs_doc *d)
{
    if (d->in_table == 2)
        fputs("</ul>\n", d->html.f);
    d->in_table = 0;
    fputc('\n', d->md.f);
}

void gs_doc_pre(gs_doc *d, const char *text)
{
    fprintf(d->md.f, "```\n%s\n```\n\n", text);
    fputs("<pre>", d->html.f);
    html_esc(d->html.f, text);
    fputs("</pre>\n", d->html.f);
}

void gs_base64_write(FILE *f, const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        fputc(tab[v >> 18], f);
        fputc(tab[(v >> 12) & 63], f);
        fputc(tab[(v >> 6) & 63], f);
        fputc(tab[v & 63], f);
    }
    if (n - i == 1) {
        unsigned v = (unsigned)p[i] << 16;
        fputc(tab[v >> 18], f);
        fputc(tab[(v >> 12) & 63], f);
        fputs("==", f);
    } else if (n - i == 2) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;
        fputc(tab[v >> 18], f);
        fputc(tab[(v >> 12) & 63], f);
        fputc(tab[(v >> 6) & 63], f);
        fputc('=', f);
    }
}

void gs_doc_img(gs_doc *d, const char *abs_path, const char *rel_path, const char *alt)
{
    char *buf;
    size_t n;
    gs_err err;
    gs_err_clear(&err);
    fprintf(d->md.f, "![");
    md_esc(d->md.f, alt, 0);
    fprintf(d->md.f, "](%s)\n\n", rel_path);
    if (gs_read_file(&buf, &n, abs_path, &err) != GS_OK || n < 8 ||
        memcmp(buf, "\x89PNG", 4) != 0) {
        if (err.status == GS_OK)
            free(buf);
        fputs("<p><i>chart not available: ", d->html.f);
        html_esc(d->html.f, rel_path);
        fputs("</i></p>\n", d->html.f);
        return;
    }
    fputs("<figure><img alt=\"", d->html.f);
    html_esc(d->html.f, alt);
    fputs("\" src=\"data:image/png;base64,", d->html.f);
    gs_base64_write(d->html.f, (const unsigned char *)buf, n);
    fputs("\"><figcaption>", d->html.f);
    html_esc(d->html.f, alt);
    fputs("</figcaption></figure>\n", d->html.f);
    free(buf);
}
