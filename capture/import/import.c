/*
 * The import front door: format names and sniffing and the dispatch to the
 * per-format parsers (import_chrome.c, import_nsys.c, import_daemon.c).
 * What the parsers share (skip accounting, lanes by name, number and name
 * clean-up) is imp_shared.c, below them: calls run one way, front door ->
 * parsers -> shared.  See import.h.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "../../common/outfile.h"
#include "imp_internal.h"

static const char *const format_names[] = {GS_IMPORT_FORMAT_TABLE(GS_XT_COL2)};
_Static_assert(sizeof format_names / sizeof format_names[0] == GS_IMPORT_FORMAT_COUNT,
               "format table");

const char *gs_import_format_name(gs_import_format f)
{
    return (unsigned)f < GS_IMPORT_FORMAT_COUNT ? format_names[f] : "?";
}

int gs_import_format_from_name(gs_import_format *out, const char *name)
{
    int i = gs_xt_index(format_names, GS_IMPORT_FORMAT_COUNT, name);
    if (i >= 0) {
        *out = (gs_import_format)i;
        return 1;
    }
    if (!strcmp(name, "daemon_log") || !strcmp(name, "log")) {
        *out = GS_IMPORT_DAEMON_LOG;
        return 1;
    }
    if (!strcmp(name, "kineto") || !strcmp(name, "perfetto") || !strcmp(name, "json")) {
        *out = GS_IMPORT_CHROME;
        return 1;
    }
    if (!strcmp(name, "sqlite")) {
        *out = GS_IMPORT_NSYS;
        return 1;
    }
    return 0;
}

static int has_at(const uint8_t *d, size_t len, size_t i, const char *s)
{
    size_t n = strlen(s);
    return i + n <= len && !memcmp(d + i, s, n);
}

gs_import_format gs_import_sniff(const uint8_t *d, size_t len)
{
    if (has_at(d, len, 0, "SQLite format 3"))
        return len >= 16 && d[15] == 0 ? GS_IMPORT_NSYS : GS_IMPORT_AUTO;
    size_t i = 0;
    if (has_at(d, len, 0, "\xef\xbb\xbf"))
        i = 3;
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
        i++;
    if (i < len && (d[i] == '{' || d[i] == '['))
        return GS_IMPORT_CHROME;
    /* A daemon log: one of its line kinds near the start. */
    size_t lim = len < 65536 ? len : 65536;
    for (size_t k = 0; k < lim; k++) {
        if (k && d[k - 1] != '\n' && d[k - 1] != ' ' && d[k - 1] != 'm')
            continue;
        if (has_at(d, lim, k, "TIMELINE,") || has_at(d, lim, k, "CUZK_TIMING:") ||
            has_at(d, lim, k, "GPU_TIMING ") || has_at(d, lim, k, "FIN_TIMING "))
            return GS_IMPORT_DAEMON_LOG;
    }
    return GS_IMPORT_AUTO;
}

/* ---- dispatch ------------------------------------------------------------------- */

gs_status gs_import_bytes(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                          size_t len, const char *name, gs_import_format fmt,
                          const gs_import_options *opt, gs_err *err)
{
    gs_import_options defs;
    if (!opt) {
        gs_import_options_defaults(&defs);
        opt = &defs;
    }
    if (fmt == GS_IMPORT_AUTO)
        fmt = gs_import_sniff(data, len);
    switch (fmt) {
    case GS_IMPORT_CHROME:
        return gs_import_chrome(tl, rep, data, len, name, err);
    case GS_IMPORT_NSYS:
        return gs_import_nsys(tl, rep, data, len, name, err);
    case GS_IMPORT_DAEMON_LOG:
        return gs_import_daemon_log(tl, rep, data, len, name, opt, err);
    default: {
        char where[600];
        imp_where_off(where, sizeof where, name, 0);
        return gs_err_set(err, GS_ERR_FORMAT, "import", where,
                          "unknown format (expected Chrome/Kineto trace JSON, an Nsight "
                          "Systems SQLite export or a daemon log with TIMELINE/GPU_TIMING/"
                          "FIN_TIMING/CUZK_TIMING lines; --format names it)");
    }
    }
}

gs_status gs_import_file(gs_timeline *tl, gs_import_report *rep, const char *path,
                         gs_import_format fmt, const gs_import_options *opt, gs_err *err)
{
    if (fmt == GS_IMPORT_AUTO || fmt == GS_IMPORT_CHROME || fmt == GS_IMPORT_NSYS ||
        fmt == GS_IMPORT_DAEMON_LOG) {
        FILE *f = fopen(path, "rb");
        if (!f)
            return gs_err_set(err, GS_ERR_IO, "input", path, "cannot open: %s", strerror(errno));
        uint8_t head[65536];
        size_t n = fread(head, 1, sizeof head, f);
        gs_import_format sniffed = fmt == GS_IMPORT_AUTO ? gs_import_sniff(head, n) : fmt;
        gs_status st = GS_OK;
        int done = 1;
        if (sniffed == GS_IMPORT_CHROME && fseek(f, 0, SEEK_SET) == 0)
            st = gs_import_chrome_file(tl, rep, f, path, err);
        else if (sniffed == GS_IMPORT_NSYS && n >= 100 && !memcmp(head, "SQLite format 3", 16))
            st = gs_import_nsys_path(tl, rep, path, err);
        else if (sniffed == GS_IMPORT_DAEMON_LOG && fseek(f, 0, SEEK_SET) == 0)
            st = gs_import_daemon_log_file(tl, rep, f, path, opt, err);
        else
            done = 0;
        fclose(f);
        if (done)
            return st;
        if (fmt == GS_IMPORT_AUTO)
            fmt = sniffed;
    }
    char *buf;
    size_t len;
    gs_status st = gs_read_file(&buf, &len, path, err);
    if (st != GS_OK)
        return st;
    st = gs_import_bytes(tl, rep, (const uint8_t *)buf, len, path, fmt, opt, err);
    free(buf);
    return st;
}
