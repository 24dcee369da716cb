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

/* Imports text (named name in messages) into a new timeline; rep may be
 * NULL (a report local to the call). */
static inline gs_status imp_test_load_text(gs_timeline **tl, gs_import_report *rep,
                                           const char *text, const char *name,
                                           gs_import_format fmt, gs_err *err)
{
    gs_import_report local;
    if (!rep)
        rep = &local;
    gs_import_report_init(rep);
    gs_err_clear(err);
    if (gs_timeline_create(tl) != GS_OK)
        return GS_ERR_NOMEM;
    return gs_import_bytes(*tl, rep, (const uint8_t *)text, strlen(text), name, fmt, NULL, err);
}

/* Whether two imports of one input gave the same: status and message,
 * records used and ignored, skips (reasons, first places, counts), lanes
 * (by name), meta keys and spans field for field. */
static inline int imp_test_same(gs_status sa, const gs_err *ea, gs_timeline *a,
                                const gs_import_report *ra, gs_status sb, const gs_err *eb,
                                gs_timeline *b, const gs_import_report *rb)
{
    int ok = a && b && sa == sb && !strcmp(ea->msg, eb->msg) && ra->used == rb->used &&
             ra->ignored == rb->ignored && ra->n_skipped == rb->n_skipped &&
             gs_timeline_lane_count(a) == gs_timeline_lane_count(b) &&
             gs_timeline_meta_count(a) == gs_timeline_meta_count(b);
    for (size_t i = 0; ok && i < ra->n_skipped; i++)
        ok = !strcmp(ra->skipped[i].reason, rb->skipped[i].reason) &&
             !strcmp(ra->skipped[i].first, rb->skipped[i].first) &&
             ra->skipped[i].count == rb->skipped[i].count;
    for (size_t i = 0; ok && i < gs_timeline_lane_count(a); i++)
        ok = !strcmp(gs_timeline_lane(a, (int32_t)i)->name, gs_timeline_lane(b, (int32_t)i)->name);
    size_t na = 0, nb = 0;
    const gs_span *x = ok ? gs_timeline_spans(a, &na) : NULL, *y = ok ? gs_timeline_spans(b, &nb) : NULL;
    ok = ok && na == nb;
    for (size_t i = 0; ok && i < na; i++)
        ok = x[i].start_ns == y[i].start_ns && x[i].end_ns == y[i].end_ns &&
             x[i].lane == y[i].lane && x[i].kind == y[i].kind && x[i].job == y[i].job &&
             x[i].part == y[i].part && x[i].flags == y[i].flags && x[i].holder == y[i].holder &&
             x[i].cpu_ns == y[i].cpu_ns && x[i].value == y[i].value &&
             !strcmp(x[i].name, y[i].name) && !strcmp(x[i].args, y[i].args);
    return ok;
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
