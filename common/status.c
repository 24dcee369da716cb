#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const status_names[] = {GS_STATUS_TABLE(GS_XT_IDSTR)};
static const char *const status_messages[] = {GS_STATUS_TABLE(GS_XT_COL2)};
_Static_assert(sizeof(status_names) / sizeof(status_names[0]) == GS_STATUS_COUNT,
               "status name table out of step");

const char *gs_status_name(gs_status s)
{
    return (unsigned)s < GS_STATUS_COUNT ? status_names[s] : "GS_ERR_?";
}

const char *gs_status_message(gs_status s)
{
    return (unsigned)s < GS_STATUS_COUNT ? status_messages[s] : "unknown status";
}

void gs_err_clear(gs_err *e)
{
    e->status = GS_OK;
    e->msg[0] = '\0';
}

gs_status gs_err_set(gs_err *e, gs_status s, const char *what,
                     const char *where, const char *fmt, ...)
{
    if (!e)
        return s;
    if (e->status != GS_OK)
        return e->status;
    e->status = s;
    int n = snprintf(e->msg, sizeof e->msg, "%s @ %s: ", what ? what : "?",
                     where ? where : "?");
    if (n < 0 || (size_t)n >= sizeof e->msg)
        return s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + n, sizeof e->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return s;
}
