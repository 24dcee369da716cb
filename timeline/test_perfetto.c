/* Tests of timeline.perfetto-trace: decoded by a wire-format reader written
 * here (independent of the writer's encoder) and by protoc against
 * perfetto_trace.proto; the slices, counters, tracks and flows must be the
 * timeline's spans and the same as timeline.json's. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json.h"
#include "../common/outfile.h"
#include "../test/test.h"
#include "../test/pfdecode.h"
#include "timeline.h"

/* An engine-shaped timeline: launches and device work (flows), a tracker
 * wait released by a finalizer (a lock flow), counters, marks, an injected
 * span, spans of one start, and two spans on one lane that cross. */
static gs_timeline *make_run(void)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    gs_timeline_meta_set(tl, "device.0.name", "NVIDIA H200");
    gs_timeline_meta_set(tl, "scenario", "perfetto test");
    gs_tl_lane *drv = gs_tl_lane_open(tl, "driver", GS_ROLE_DRIVER, -1, -1);
    gs_tl_lane *w = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    gs_tl_lane *fin = gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1);
    gs_tl_lane *d0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_lane *d1 = gs_tl_lane_open(tl, "gpu0/stream1", GS_ROLE_DEVICE, 0, 1);
    gs_tl_lane *g1 = gs_tl_lane_open(tl, "gpu1/stream0", GS_ROLE_DEVICE, 1, 0);
    int64_t t = 5000000000LL;
    for (int job = 0; job < 3; job++, t += 100000) {
        gs_tl_counter(drv, "gpu_queue_depth", t, job + 1);
        gs_tl_span(drv, GS_SPAN_MARK, "submit", job, -1, t, t, 0, "kind=porep_c2");
        gs_tl_span(fin, GS_SPAN_LOCK_HOLD, "tracker", job, 0, t + 100, t + 900, 0, "what=trim");
        gs_tl_lock_wait(w, "tracker", gs_tl_lane_id(fin), job, 0, t + 150, t + 900);
        gs_tl_span(w, GS_SPAN_LOCK_HOLD, "tracker", job, 0, t + 900, t + 950, 0, NULL);
        gs_tl_span(w, GS_SPAN_STEP, "prove_start", job, 0, t + 1000, t + 9000, 0, NULL);
        gs_tl_span(w, GS_SPAN_STEP, "host_prep", job, 0, t + 1000, t + 1100, 0, "a=1;b=x");
        gs_tl_span(d0, GS_SPAN_COPY, "h2d", job, 0, t + 1100, t + 1500, 0, "bytes=4096");
        gs_tl_span(d0, GS_SPAN_KERNEL, "ntt", job, 0, t + 1500, t + 2500, 0, NULL);
        gs_tl_span(d1, GS_SPAN_KERNEL, "msm_h", job, 0, t + 2000, t + 4000, 0, NULL);
        gs_tl_span(d1, GS_SPAN_KERNEL, "msm_l", job, 0, t + 4000, t + 4000, 0, NULL);
        gs_tl_span(g1, GS_SPAN_KERNEL, "foreign", -1, -1, t + 3000, t + 3500, 0, NULL);
        gs_tl_span(fin, GS_SPAN_INJECTED, "inj:delay", job, 0, t + 9000, t + 9500,
                   GS_SPAN_F_INJECTED, "dist=fixed");
        gs_tl_counter(drv, "gpu_queue_depth", t + 9000, job);
    }
    /* Crossing spans on the driver lane: the second goes to an overlap track. */
    gs_tl_span(drv, GS_SPAN_STEP, "cross_a", -1, -1, t, t + 500, 0, NULL);
    gs_tl_span(drv, GS_SPAN_STEP, "cross_b", -1, -1, t + 200, t + 800, 0, NULL);
    return tl;
}

/* The spans as decoded slices would show them: (lane, start, end, name). */
static int cmp_slice(const void *pa, const void *pb)
{
    const pf_slice *a = pa, *b = pb;
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* What timeline.json holds: spans (X and i), counter samples, thread
 * tracks, counter tracks (pid, name) and flows (s events). */
typedef struct { size_t spans, counters, threads, counter_tracks, flows; } chrome_counts;

static int chrome_count(chrome_counts *c, const char *path)
{
    gs_json *j = NULL;
    gs_err err;
    gs_err_clear(&err);
    memset(c, 0, sizeof *c);
    if (gs_json_parse_file(&j, path, &err) != GS_OK)
        return 0;
    const gs_json *ev = gs_json_get(j, "traceEvents");
    char seen[64][80];
    for (size_t i = 0; ev && i < ev->n; i++) {
        const gs_json *e = &ev->items[i];
        const gs_json *ph = gs_json_get(e, "ph"), *nm = gs_json_get(e, "name");
        const char *p = ph ? ph->text : "", *n = nm ? nm->text : "";
        if (!strcmp(p, "X") || !strcmp(p, "i"))
            c->spans++;
        else if (!strcmp(p, "s"))
            c->flows++;
        else if (!strcmp(p, "M") && !strcmp(n, "thread_name"))
            c->threads++;
        else if (!strcmp(p, "C")) {
            c->counters++;
            char key[80];
            snprintf(key, sizeof key, "%s/%s", gs_json_get(e, "pid")->text, n);
            size_t k = 0;
            while (k < c->counter_tracks && strcmp(seen[k], key))
                k++;
            if (k == c->counter_tracks && k < 64)
                snprintf(seen[c->counter_tracks++], sizeof seen[0], "%s", key);
        }
    }
    gs_json_free(j);
    return 1;
}

/* Decodes path and checks it against tl and timeline.json at json. */
static void check_against(gs_timeline *tl, const char *path, const char *json)
{
    pf_trace d;
    GS_REQUIRE(pf_decode_file(&d, path));
    GS_CHECK_MSG(!d.error[0], "decode: %s", d.error);
    GS_CHECK(d.sorted);   /* packets in time order */
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    /* Slices and instants: exactly the timeline's non-counter spans. */
    pf_slice *want = calloc(n + 1, sizeof *want);
    size_t nw = 0, n_ctr = 0;
    for (size_t i = 0; i < n; i++) {
        if (sp[i].kind == GS_SPAN_COUNTER) {
            n_ctr++;
            continue;
        }
        want[nw++] = (pf_slice){sp[i].lane, sp[i].start_ns, sp[i].end_ns, sp[i].name};
    }
    qsort(want, nw, sizeof *want, cmp_slice);
    qsort(d.slices, d.n_slices, sizeof *d.slices, cmp_slice);
    GS_CHECK_EQ_INT((long)d.n_slices, (long)nw);
    int same = d.n_slices == nw;
    for (size_t i = 0; same && i < nw; i++)
        same = !cmp_slice(&want[i], &d.slices[i]);
    GS_CHECK_MSG(same, "decoded slices differ from the timeline's spans");
    GS_CHECK_EQ_INT((long)d.unbalanced, 0);
    GS_CHECK_EQ_INT((long)d.n_counter_values, (long)n_ctr);
    GS_CHECK_EQ_INT((long)d.threads, (long)gs_timeline_lane_count(tl));
    GS_CHECK_EQ_INT((long)d.flows_bad, 0);   /* every flow leaves once and ends once */
    chrome_counts c;
    GS_REQUIRE(chrome_count(&c, json));
    GS_CHECK_EQ_INT((long)c.spans, (long)nw);
    GS_CHECK_EQ_INT((long)c.counters, (long)n_ctr);
    GS_CHECK_EQ_INT((long)c.threads, (long)d.threads);
    GS_CHECK_EQ_INT((long)c.counter_tracks, (long)d.counter_tracks);
    GS_CHECK_EQ_INT((long)c.flows, (long)d.flows);
    free(want);
    pf_trace_free(&d);
}

/* Both trace files of tl in the test directory; their paths in p and j. */
static int write_both(gs_timeline *tl, char p[600], char j[600])
{
    gs_err err;
    gs_err_clear(&err);
    const char *dir = gs_test_tmpdir();
    snprintf(p, 600, "%s/%s", dir, GS_TRACE_PERFETTO_FILE);
    snprintf(j, 600, "%s/%s", dir, GS_TRACE_CHROME_FILE);
    return gs_timeline_write_traces(tl, dir, GS_TRACE_BOTH, NULL, &err) == GS_OK;
}

GS_TEST(timeline_perfetto_matches_timeline_and_chrome)
{
    gs_timeline *tl = make_run();
    GS_REQUIRE(tl);
    char pfile[600], jfile[600];
    GS_REQUIRE(write_both(tl, pfile, jfile));
    check_against(tl, pfile, jfile);
    pf_trace d;
    GS_REQUIRE(pf_decode_file(&d, pfile));
    /* 3 x 4 launch flows (h2d, ntt, msm_h, msm_l) and 3 lock flows. */
    GS_CHECK_EQ_INT((long)d.flows, 15);
    GS_CHECK_EQ_INT((long)d.overlap_tracks, 1);
    GS_CHECK_EQ_INT((long)d.util_tracks, 2);   /* gpu0, gpu1 */
    GS_CHECK(d.has_meta && d.processes == 3);  /* host, GPU 0, GPU 1 */
    pf_trace_free(&d);
    gs_timeline_destroy(tl);
}

GS_TEST(timeline_perfetto_engine_capture)
{
    /* A committed H200 capture (traces/README.md): the same run as both files. */
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_read_csv(&tl, "traces/h200-g2dev/spans.csv", &err) == GS_OK);
    char pfile[600], jfile[600];
    GS_REQUIRE(write_both(tl, pfile, jfile));
    check_against(tl, pfile, jfile);
    gs_timeline_destroy(tl);
}

GS_TEST(timeline_perfetto_protoc_decodes)
{
    if (system("command -v protoc > /dev/null 2>&1") != 0) {
        printf("    skipped: no protoc (Debian protobuf-compiler; scripts/deps.sh installs it)\n");
        return;
    }
    gs_timeline *tl = make_run();
    GS_REQUIRE(tl);
    gs_err err;
    gs_err_clear(&err);
    const char *dir = gs_test_tmpdir();
    GS_CHECK_OK(gs_timeline_write_traces(tl, dir, GS_TRACE_PERFETTO, NULL, &err));
    char cmd[2000], out[600];
    snprintf(out, sizeof out, "%s/decoded.txt", dir);
    snprintf(cmd, sizeof cmd,
             "protoc --decode=perfetto.protos.Trace -Itimeline timeline/perfetto_trace.proto"
             " < '%s/%s' > '%s' 2>&1", dir, GS_TRACE_PERFETTO_FILE, out);
    GS_CHECK_EQ_INT(system(cmd), 0);
    char *txt;
    size_t len;
    GS_REQUIRE(gs_read_file(&txt, &len, out, &err) == GS_OK);
    /* Every field is known to the schema (protoc prints unknown ones by number). */
    size_t begins = 0, flows = 0, unknown = 0;
    for (const char *p = txt; (p = strchr(p, '\n')); p++) {
        const char *q = p + 1;
        while (*q == ' ')
            q++;
        begins += !strncmp(q, "type: 1\n", 8);
        flows += !strncmp(q, "flow_ids: ", 10);
        unknown += *q >= '0' && *q <= '9';
    }
    GS_CHECK_EQ_INT((long)unknown, 0);
    GS_CHECK_EQ_INT((long)flows, 15);
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    size_t slices = 0;
    for (size_t i = 0; i < n; i++)
        slices += sp[i].kind != GS_SPAN_COUNTER && !(sp[i].kind == GS_SPAN_MARK &&
                                                     sp[i].start_ns == sp[i].end_ns);
    GS_CHECK_EQ_INT((long)begins, (long)slices);
    free(txt);
    gs_timeline_destroy(tl);
}

GS_TEST(timeline_trace_format_auto)
{
    gs_timeline *tl = make_run();
    GS_REQUIRE(tl);
    GS_CHECK(gs_trace_format_pick(tl, GS_TRACE_AUTO) == GS_TRACE_CHROME);
    GS_CHECK(gs_trace_format_pick(tl, GS_TRACE_PERFETTO) == GS_TRACE_PERFETTO);
    gs_tl_lane *l = gs_tl_lane_open(tl, "bulk", GS_ROLE_OTHER, -1, -1);
    size_t n;
    gs_timeline_spans(tl, &n);
    for (int64_t i = (int64_t)n; i < GS_TRACE_CHROME_MAX_SPANS; i++)
        gs_tl_span(l, GS_SPAN_STEP, "s", -1, -1, i * 10, i * 10 + 5, 0, NULL);
    GS_CHECK(gs_trace_format_pick(tl, GS_TRACE_AUTO) == GS_TRACE_CHROME);   /* exactly the limit */
    gs_tl_span(l, GS_SPAN_STEP, "s", -1, -1, 0, 5, 0, NULL);
    GS_CHECK(gs_trace_format_pick(tl, GS_TRACE_AUTO) == GS_TRACE_PERFETTO);
    gs_trace_format f;
    GS_CHECK(gs_trace_format_from_name(&f, "both") && f == GS_TRACE_BOTH);
    GS_CHECK(!gs_trace_format_from_name(&f, "json"));
    gs_timeline_destroy(tl);
}

static int same_file(const char *a, const char *b)
{
    char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    gs_err err;
    int same = gs_read_file(&x, &nx, a, &err) == GS_OK && gs_read_file(&y, &ny, b, &err) == GS_OK &&
               nx == ny && !memcmp(x, y, nx);
    free(x);
    free(y);
    return same;
}

/* gs_timeline_write_run (the two writers at once) writes what write_csv
 * then write_traces write, on a timeline whose big lane grows through
 * every chunk size; a failure is spans.csv's, as in turn. */
GS_TEST(timeline_write_run_equals_in_turn)
{
    gs_timeline *tl = make_run();
    GS_REQUIRE(tl);
    gs_tl_lane *l = gs_tl_lane_open(tl, "bulk", GS_ROLE_OTHER, -1, -1);
    for (int64_t i = 0; i < 70000; i++)
        gs_tl_span(l, GS_SPAN_STEP, i % 3 ? "s" : "t", -1, -1, i * 10, i * 10 + 5, 0,
                   i % 7 ? NULL : "k=1");
    char a[600], b[600], fa[700], fb[700];
    snprintf(a, sizeof a, "%s/run_a", gs_test_tmpdir());
    snprintf(b, sizeof b, "%s/run_b", gs_test_tmpdir());
    GS_REQUIRE(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
    gs_err err;
    const char *written = NULL;
    GS_REQUIRE(gs_timeline_write_run(tl, a, GS_TRACE_BOTH, &written, &err) == GS_OK);
    GS_CHECK(written && !strcmp(written, GS_TRACE_CHROME_FILE));
    snprintf(fb, sizeof fb, "%s/spans.csv", b);
    GS_REQUIRE(gs_timeline_write_csv(tl, fb, &err) == GS_OK &&
               gs_timeline_write_traces(tl, b, GS_TRACE_BOTH, NULL, &err) == GS_OK);
    static const char *const files[] = {"spans.csv", GS_TRACE_CHROME_FILE, GS_TRACE_PERFETTO_FILE};
    for (size_t i = 0; i < 3; i++) {
        snprintf(fa, sizeof fa, "%s/%s", a, files[i]);
        snprintf(fb, sizeof fb, "%s/%s", b, files[i]);
        GS_CHECK_MSG(same_file(fa, fb), "%s differs", files[i]);
    }
    snprintf(fa, sizeof fa, "%s/spans.csv/x", a);   /* under a file: no such directory */
    gs_err_clear(&err);
    GS_CHECK_MSG(gs_timeline_write_run(tl, fa, GS_TRACE_AUTO, NULL, &err) != GS_OK &&
                     strstr(err.msg, "spans.csv"), "%s", err.msg);
    gs_timeline_destroy(tl);
}
