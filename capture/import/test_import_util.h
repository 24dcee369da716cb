/* Helpers shared by the importer tests (header-only, test builds). */
#ifndef GS_TEST_IMPORT_UTIL_H
#define GS_TEST_IMPORT_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../diag/analysis.h"
#include "../../common/outfile.h"
#include "../../test/test.h"
#include "import.h"

/* Imports path (or its first `cut` bytes when cut > 0) into a new timeline. */
static inline gs_status imp_test_load(gs_timeline **tl, gs_import_report *rep, const char *path,
                                      gs_import_format fmt, size_t cut, gs_err *err)
{
    char *buf;
    size_t len;
    gs_import_report_init(rep);
    gs_err_clear(err);
    gs_status st = gs_timeline_create(tl);
    if (st != GS_OK)
        return st;
    if ((st = gs_read_file(&buf, &len, path, err)) != GS_OK)
        return st;
    if (cut && cut < len)
        len = cut;
    st = gs_import_bytes(*tl, rep, (const uint8_t *)buf, len, path, fmt, NULL, err);
    free(buf);
    return st;
}

static inline gs_analysis *imp_test_analyse(gs_timeline *tl)
{
    gs_analysis *a = NULL;
    gs_err err;
    gs_err_clear(&err);
    return gs_analyze(&a, tl, NULL, &err) == GS_OK ? a : NULL;
}

static inline double imp_test_us(const gs_analysis *a, const char *cause)
{
    gs_cause c;
    return gs_cause_from_name(&c, cause) ? a->cause_s[c] * 1e6 : -1;
}

/* The count of a skip reason starting with prefix (0 when absent). */
static inline uint64_t imp_test_skipped(const gs_import_report *rep, const char *prefix)
{
    for (size_t i = 0; i < rep->n_skipped; i++)
        if (!strncmp(rep->skipped[i].reason, prefix, strlen(prefix)))
            return rep->skipped[i].count;
    return 0;
}

/* The first span called name on the timeline (NULL when none). */
static inline const gs_span *imp_test_span(gs_timeline *tl, const char *name)
{
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(sp[i].name, name))
            return &sp[i];
    return NULL;
}

#define IMP_NEAR_US(a, cause, want)                                                          \
    GS_CHECK_MSG(fabs(imp_test_us((a), (cause)) - (want)) < 1e-3, "%s: %.3f us, want %.3f", \
                 (cause), imp_test_us((a), (cause)), (double)(want))

#endif
