/*
 * Names of proof kinds and injection points for the scenario layer, from
 * engine.h's X-macro tables (kept in step by static asserts).
 */
#include <string.h>

#include "scn_internal.h"

static const char *const kind_names[] = {
#define GS_X(e, n, p, pr) n,
    GS_JOB_KIND_TABLE(GS_X)
#undef GS_X
};
static const uint32_t kind_parts[] = {
#define GS_X(e, n, p, pr) p,
    GS_JOB_KIND_TABLE(GS_X)
#undef GS_X
};
static const int kind_prio[] = {
#define GS_X(e, n, p, pr) pr,
    GS_JOB_KIND_TABLE(GS_X)
#undef GS_X
};
const char *const gs_scn_inj_name_table[] = {
#define GS_X(e, n) n,
    GS_INJ_TABLE(GS_X)
#undef GS_X
};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == GS_KIND_COUNT, "kinds");
_Static_assert(sizeof gs_scn_inj_name_table / sizeof gs_scn_inj_name_table[0] == GS_INJ_COUNT, "inj points");

int gs_scn_kind_from_name(gs_job_kind *out, const char *name)
{
    for (int k = 0; k < GS_KIND_COUNT; k++)
        if (!strcmp(name, kind_names[k])) {
            *out = (gs_job_kind)k;
            return 1;
        }
    return 0;
}
const char *gs_scn_kind_name(gs_job_kind k) { return (unsigned)k < GS_KIND_COUNT ? kind_names[k] : "?"; }
uint32_t gs_scn_kind_default_partitions(gs_job_kind k) { return (unsigned)k < GS_KIND_COUNT ? kind_parts[k] : 1; }
int gs_scn_kind_default_priority(gs_job_kind k) { return (unsigned)k < GS_KIND_COUNT ? kind_prio[k] : 2; }
const char *gs_scn_inj_name(int p) { return p >= 0 && p < GS_INJ_COUNT ? gs_scn_inj_name_table[p] : "?"; }
int gs_scn_inj_from_name(int *out, const char *name, size_t len)
{
    for (int p = 0; p < GS_INJ_COUNT; p++)
        if (strlen(gs_scn_inj_name_table[p]) == len && !strncmp(name, gs_scn_inj_name_table[p], len)) {
            *out = p;
            return 1;
        }
    return 0;
}

