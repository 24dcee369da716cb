/*
 * Scenario files: the INI lexer (common/ini.h: comments, [section],
 * key = value, include, ${ENV} expansion, file:line in every error) with
 * the scenario's sections and keys judged by the option table (options.c).
 * A key outside any section is an error: scenario files say where each
 * key belongs.
 */
#define _GNU_SOURCE
#include <string.h>

#include "../common/ini.h"
#include "scn_internal.h"

static gs_status on_section(void *ctx, const char *name, const char *where, gs_err *err)
{
    gs_scenario *s = ctx;
    int point;
    gs_status st = gs_scn_section_check(s, name, &point, where, err);
    if (st == GS_OK && point >= 0)
        gs_scn_inject_present(s, point, where);
    return st;
}

static gs_status on_pair(void *ctx, const char *section, const char *key, const char *value,
                         const char *where, const char *base_dir, gs_err *err)
{
    if (!section[0])
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                          "key '%s' outside any section (start with [global], [engine], [jobs] ...)", key);
    return gs_scn_apply(ctx, section, key, value, where, base_dir, err);
}

static gs_ini_reader reader(gs_scenario *s)
{
    return (gs_ini_reader){.what = "scenario", .flags = GS_INI_INCLUDE | GS_INI_ENV,
                           .on_section = on_section, .on_pair = on_pair, .ctx = s};
}

gs_status gs_scn_ini_parse_file(gs_scenario *s, const char *path, gs_err *err)
{
    gs_ini_reader r = reader(s);
    return gs_ini_read_file(&r, path, err);
}

gs_status gs_scenario_parse_text(gs_scenario *s, const char *text, const char *name, gs_err *err)
{
    gs_ini_reader r = reader(s);
    return gs_ini_read_text(&r, text, strlen(text), name, ".", err);
}
