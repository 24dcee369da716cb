/*
 * Names of proof kinds and injection points as the scenario layer prints
 * and parses them: the engine's tables (engine.h, config.c), with "?" for
 * a value out of range and a lookup by length for names inside a longer
 * key ("inject.<point>.<key>").
 */
#include <string.h>

#include "scn_internal.h"

const char *gs_scn_kind_name(gs_job_kind k)
{
    const char *n = gs_job_kind_name(k);
    return n ? n : "?";
}

const char *gs_scn_inj_name(int p)
{
    const char *n = p >= 0 ? gs_inj_point_name((gs_inj_point)p) : NULL;
    return n ? n : "?";
}

int gs_scn_inj_from_name(int *out, const char *name, size_t len)
{
    for (int p = 0; p < GS_INJ_COUNT; p++) {
        const char *n = gs_inj_point_name((gs_inj_point)p);
        if (strlen(n) == len && !strncmp(name, n, len)) {
            *out = p;
            return 1;
        }
    }
    return 0;
}
