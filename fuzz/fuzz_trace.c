/*
 * libFuzzer target: job-mix traces, versioned JSON Lines
 * (scenarios/trace.c, trace_json.c), as `gapscope replay` and a scenario's
 * [jobs] trace read them.
 *
 * Parsed in memory and from a file (the file reader adds the NUL check).
 * A trace that reads is written back in nanoseconds and read again: the
 * arrivals must survive (times to 15 significant digits, the writer's
 * precision), and a second write must produce the same bytes.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/outfile.h"
#include "../scenarios/trace.h"
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gs_trace t, u, w;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_trace_parse(&t, (const char *)data, size, "mem.jsonl", &err);
    if (st != GS_OK)
        fz_check_error(st, &err, "mem.jsonl", 1);
    else
        gs_trace_free(&t);

    char path[768], a[768], b[768];
    snprintf(path, sizeof path, "%s", fz_write("in.jsonl", data, size));
    snprintf(a, sizeof a, "%s", fz_path("a.jsonl"));
    snprintf(b, sizeof b, "%s", fz_path("b.jsonl"));
    gs_err_clear(&err);
    st = gs_trace_read(&t, path, &err);
    if (st != GS_OK) {
        fz_check_error(st, &err, path, 1);
        return 0;
    }
    if (gs_trace_write(&t, a, "ns", &err) != GS_OK || gs_trace_read(&u, a, &err) != GS_OK)
        fz_fail("trace round trip: %s", err.msg);
    if (u.n != t.n || strcmp(u.description, t.description) || strcmp(u.generator, t.generator))
        fz_fail("trace round trip: %zu arrivals became %zu, or the header changed", t.n, u.n);
    for (size_t i = 0; i < t.n; i++) {
        const gs_arrival *x = &t.a[i], *y = &u.a[i];
        double dt = fabs((double)x->t_ns - (double)y->t_ns);
        if (x->id != y->id || x->kind != y->kind || x->partitions != y->partitions ||
            x->priority != y->priority || x->size_class != y->size_class ||
            dt > 1e-14 * (double)x->t_ns)
            fz_fail("trace round trip: arrival %zu changed (t %lld -> %lld)", i,
                    (long long)x->t_ns, (long long)y->t_ns);
    }
    if (gs_trace_write(&u, b, "ns", &err) != GS_OK || gs_trace_read(&w, b, &err) != GS_OK)
        fz_fail("trace second round trip: %s", err.msg);
    fz_same_files(a, b, "trace");
    gs_trace_free(&t);
    gs_trace_free(&u);
    gs_trace_free(&w);
    static const char *const left[] = {"in.jsonl", "a.jsonl", "b.jsonl", NULL};
    fz_expect_files(left);
    return 0;
}
