/* The ranges of the timeline model's values (limits.h). */
#include "limits.h"
#include "timeline.h"
#include "tl_internal.h"

#include "../common/units.h"

#include <math.h>

static const struct {
    const char *name;
    int64_t lo, hi;
} table[] = {
#define GS_X(e, n, lo, hi) {n, lo, hi},
    GS_TL_VALUE_TABLE(GS_X)
#undef GS_X
};
_Static_assert(sizeof table / sizeof table[0] == GS_TLV_COUNT_, "limits table");
_Static_assert(GS_DURATION_MAX_NS == GS_TL_TIME_LIMIT_NS,
               "durations (common/units.h) are times the timeline holds");

const char *gs_tl_value_name(gs_tl_value v)
{
    return (unsigned)v < GS_TLV_COUNT_ ? table[v].name : "?";
}

int64_t gs_tl_value_min(gs_tl_value v)
{
    return (unsigned)v < GS_TLV_COUNT_ ? table[v].lo : 0;
}

int64_t gs_tl_value_max(gs_tl_value v)
{
    return (unsigned)v < GS_TLV_COUNT_ ? table[v].hi : 0;
}

int gs_tl_in_range(gs_tl_value v, int64_t x)
{
    return (unsigned)v < GS_TLV_COUNT_ && x >= table[v].lo && x <= table[v].hi;
}

gs_status gs_tl_check(gs_err *err, const char *what, const char *where, gs_tl_value v, int64_t x)
{
    if (gs_tl_in_range(v, x))
        return GS_OK;
    if (v == GS_TLV_TIME)
        return gs_err_set(err, GS_ERR_FORMAT, what, where,
                          "time %lld ns is outside +-(2^62 - 1) ns (timeline/limits.h)",
                          (long long)x);
    return gs_err_set(err, GS_ERR_FORMAT, what, where,
                      "%s %lld is outside %lld..%lld (timeline/limits.h)", gs_tl_value_name(v),
                      (long long)x, (long long)gs_tl_value_min(v), (long long)gs_tl_value_max(v));
}

int gs_tl_time_add(int64_t *out, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r) || !gs_tl_in_range(GS_TLV_TIME, r))
        return 0;
    *out = r;
    return 1;
}

int gs_tl_sub(int64_t *out, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return 0;
    *out = r;
    return 1;
}

int gs_tl_value_ok(double d)
{
    return isfinite(d);
}

const char *gs_span_invalid(const gs_timeline *tl, const gs_span *s)
{
    if (!gs_tl_in_range(GS_TLV_TIME, s->start_ns) || !gs_tl_in_range(GS_TLV_TIME, s->end_ns))
        return "a time outside +-(2^62 - 1) ns";
    if (s->end_ns < s->start_ns)
        return "end before start";
    if (s->kind >= GS_SPAN_KIND_COUNT)
        return "an unknown span kind";
    if (s->holder < -1 || (s->holder >= 0 && (size_t)s->holder >= gs_timeline_lane_count(tl)))
        return "a holder that is neither -1 nor a lane";
    if (s->job < -1 || s->part < -1)
        return "a job or partition below -1";
    if (!gs_tl_value_ok(s->value))
        return "a value that is not a finite number";
    if (s->cpu_ns < 0 || (s->cpu_ns && !(s->flags & GS_SPAN_F_CPU)))
        return "cpu_ns negative or without the CPU flag (8)";
    if (s->kind == GS_SPAN_COUNTER &&
        (s->end_ns != s->start_ns || s->job != -1 || s->part != -1 || s->flags || s->holder != -1 ||
         (s->args && s->args[0])))
        return "a counter that is not a plain sample (end = start, job = part = holder = -1, "
               "flags 0, no args)";
    return NULL;
}

gs_status gs_timeline_check(gs_timeline *tl, const char *what, const char *path, gs_err *err)
{
    for (size_t i = 0; i < gs_timeline_lane_count(tl); i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, (int32_t)i);
        if (!gs_tl_in_range(GS_TLV_DEVICE, L->device) || !gs_tl_in_range(GS_TLV_STREAM, L->stream) ||
            (L->role == GS_ROLE_DEVICE && L->device < 0))
            return gs_err_set(err, GS_ERR_RANGE, what, path,
                              "lane %zu '%s' has device %d / stream %d outside timeline/limits.h "
                              "(a device lane needs a device >= 0)",
                              i, L->name, (int)L->device, (int)L->stream);
    }
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    for (size_t i = 0; i < n; i++) {
        const char *why = gs_span_invalid(tl, &sp[i]);
        if (why)
            return gs_err_set(err, GS_ERR_RANGE, what, path,
                              "span '%s' on lane %d (%lld..%lld ns) has %s: not written, as "
                              "no reader would take it back (timeline/limits.h)",
                              sp[i].name, (int)sp[i].lane, (long long)sp[i].start_ns,
                              (long long)sp[i].end_ns, why);
    }
    return GS_OK;
}

gs_status gs_tl_spans_to_write(const gs_span **sp, size_t *n, gs_timeline *tl, const char *what,
                               const char *path, gs_err *err)
{
    *sp = gs_timeline_spans(tl, n);
    if (!*sp && gs_tl_span_total(tl) > 0)
        return gs_err_set(err, GS_ERR_NOMEM, what, path, "out of memory sorting spans");
    return gs_timeline_check(tl, what, path, err);
}
