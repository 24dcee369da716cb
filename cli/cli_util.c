#include "cli_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/clock.h"

int gs_cli_fail(const char *cmd, const gs_err *err)
{
    fprintf(stderr, "gapscope %s: %s: %s\n", cmd, gs_status_name(err->status),
            err->msg[0] ? err->msg : gs_status_message(err->status));
    switch (err->status) {
    case GS_ERR_NOMEM:
    case GS_ERR_INTERNAL:
    case GS_ERR_CUDA:
    case GS_ERR_STATE:
        return GS_EXIT_INTERNAL;
    default:
        return GS_EXIT_USAGE;
    }
}

void gs_cli_progress(int quiet, const char *fmt, ...)
{
    static int64_t t0;
    if (!t0)
        t0 = gs_now_ns();
    if (quiet)
        return;
    va_list ap;
    fprintf(stderr, "[%7.2f s] ", (double)(gs_now_ns() - t0) / 1e9);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int gs_cli_parse_uint(const char *cmd, const char *opt, const char *text, uint64_t max,
                      uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = text ? strtoull(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || v > max || text[0] == '-') {
        fprintf(stderr, "gapscope %s: %s expects an integer in [0, %llu], got '%s'\n", cmd, opt,
                (unsigned long long)max, text ? text : "");
        return 0;
    }
    *out = v;
    return 1;
}
