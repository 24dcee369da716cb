/* Tests of the timeline model: capture, sorted view, CSV round trip,
 * malformed CSV, Chrome JSON validity. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test/test.h"
#include "../common/outfile.h"
#include "timeline.h"

#include "../test/jsoncheck.h"

/* ---- a timeline with every awkward feature -------------------------------- */

static gs_timeline *make_sample(void)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    gs_timeline_meta_set(tl, "build.git_rev", "abc123");
    gs_timeline_meta_set(tl, "weird=key\\x", "line1\nline2 = \\ end");
    gs_timeline_meta_set(tl, "device.0.name", "NVIDIA H200");
    gs_tl_lane *drv = gs_tl_lane_open(tl, "driver", GS_ROLE_DRIVER, -1, -1);
    gs_tl_lane *w = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    gs_tl_lane *fin = gs_tl_lane_open(tl, "finalizer/0, \"odd\"\nname", GS_ROLE_FINALIZER, 0, -1);
    gs_tl_lane *d0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_lane *d1 = gs_tl_lane_open(tl, "gpu0/stream1", GS_ROLE_DEVICE, 0, 1);
    int64_t t = 1000000000000LL;
    gs_tl_counter(drv, "gpu_queue_depth", t, 0.1);
    gs_tl_counter(drv, "gpu_queue_depth", t + 5, 1e-300);
    gs_tl_span(drv, GS_SPAN_MARK, "submit", 7, -1, t, t, 0, "kind=porep_c2");
    gs_tl_span(fin, GS_SPAN_LOCK_HOLD, "tracker", 7, 0, t + 100, t + 900, 0, "malloc_trim");
    gs_tl_span(fin, GS_SPAN_INJECTED, "inj:tracker_hold", 7, 0, t + 200, t + 700,
               GS_SPAN_F_INJECTED, "dist=fixed;a=0.5,ms;\"q\"");
    gs_tl_lock_wait(w, "tracker", gs_tl_lane_id(fin), 7, 1, t + 150, t + 900);
    gs_tl_span(w, GS_SPAN_STEP, "prove_start", 7, 1, t + 1000, t + 5000, 0, NULL);
    gs_tl_span(d0, GS_SPAN_COPY, "h2d", 7, 1, t + 1100, t + 1500, 0, "pageable=1");
    gs_tl_span(d0, GS_SPAN_KERNEL, "ntt", 7, 1, t + 1500, t + 2500, GS_SPAN_F_MODELLED, "");
    gs_tl_span(d1, GS_SPAN_KERNEL, "msm_h", 7, 1, t + 2000, t + 4000, GS_SPAN_F_FAILED,
               "line\nbreak,comma");
    gs_tl_span(d1, GS_SPAN_KERNEL, "msm_l", 7, 1, t + 2000, t + 4000, 0, NULL);
    return tl;
}

static int same_spans(gs_timeline *a, gs_timeline *b)
{
    size_t na, nb;
    const gs_span *sa = gs_timeline_spans(a, &na), *sb = gs_timeline_spans(b, &nb);
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        const gs_span *x = &sa[i], *y = &sb[i];
        if (x->start_ns != y->start_ns || x->end_ns != y->end_ns || x->lane != y->lane ||
            x->holder != y->holder || x->job != y->job || x->part != y->part ||
            x->kind != y->kind || x->flags != y->flags || x->value != y->value ||
            strcmp(x->name, y->name) || strcmp(x->args, y->args))
            return 0;
    }
    return 1;
}

GS_TEST(diag_timeline_sorted_view)
{
    gs_timeline *tl = make_sample();
    GS_REQUIRE(tl);
    size_t n;
    const gs_span *s = gs_timeline_spans(tl, &n);
    GS_CHECK_EQ_INT(n, 11);
    for (size_t i = 1; i < n; i++)
        GS_CHECK(s[i - 1].start_ns < s[i].start_ns ||
                 (s[i - 1].start_ns == s[i].start_ns && s[i - 1].end_ns <= s[i].end_ns));
    GS_CHECK_EQ_INT(gs_timeline_lane_count(tl), 5);
    GS_CHECK(!strcmp(gs_timeline_lane(tl, 3)->name, "gpu0/stream0"));
    GS_CHECK_EQ_INT(gs_timeline_lane(tl, 4)->stream, 1);
    GS_CHECK(gs_timeline_lane(tl, 5) == NULL);
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "build.git_rev"), "abc123"));
    gs_timeline_meta_set(tl, "build.git_rev", "def");
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "build.git_rev"), "def"));
    GS_CHECK_EQ_INT(gs_timeline_meta_count(tl), 3);
    /* The lock wait kept its holder; the counter its value. */
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].kind == GS_SPAN_LOCK_WAIT) {
            GS_CHECK_EQ_INT(s[i].holder, 2);
            found = 1;
        }
    GS_CHECK(found);
    GS_CHECK(s[0].kind == GS_SPAN_COUNTER && s[0].value == 0.1);
    /* A NULL lane is a no-op. */
    gs_tl_span(NULL, GS_SPAN_STEP, "x", 0, 0, 1, 2, 0, NULL);
    gs_timeline_spans(tl, &n);
    GS_CHECK_EQ_INT(n, 11);
    GS_CHECK_EQ_INT(gs_timeline_dropped(tl), 0);
    gs_timeline_destroy(tl);
}

GS_TEST(diag_timeline_csv_round_trip)
{
    gs_timeline *tl = make_sample(), *back = NULL, *back2 = NULL;
    GS_REQUIRE(tl);
    char p1[600], p2[600];
    snprintf(p1, sizeof p1, "%s/a.csv", gs_test_tmpdir());
    snprintf(p2, sizeof p2, "%s/b.csv", gs_test_tmpdir());
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_timeline_write_csv(tl, p1, &err));
    GS_CHECK_OK(gs_timeline_read_csv(&back, p1, &err));
    GS_REQUIRE(back);
    if (err.status)
        printf("  %s\n", err.msg);
    GS_CHECK(same_spans(tl, back));
    GS_CHECK_EQ_INT(gs_timeline_lane_count(back), gs_timeline_lane_count(tl));
    for (int32_t i = 0; i < (int32_t)gs_timeline_lane_count(tl); i++) {
        const gs_lane_info *a = gs_timeline_lane(tl, i), *b = gs_timeline_lane(back, i);
        GS_CHECK(a->role == b->role && a->device == b->device && a->stream == b->stream &&
                 !strcmp(a->name, b->name));
    }
    GS_CHECK_EQ_INT(gs_timeline_meta_count(back), gs_timeline_meta_count(tl));
    for (size_t i = 0; i < gs_timeline_meta_count(tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(tl, i, &k, &v);
        const char *v2 = gs_timeline_meta_get(back, k);
        GS_CHECK_MSG(v2 && !strcmp(v, v2), "meta %s lost", k);
    }
    /* Writing the read-back timeline gives the same bytes. */
    GS_CHECK_OK(gs_timeline_write_csv(back, p2, &err));
    GS_CHECK_OK(gs_timeline_read_csv(&back2, p2, &err));
    char *b1, *b2;
    size_t l1, l2;
    GS_REQUIRE(gs_read_file(&b1, &l1, p1, &err) == GS_OK);
    GS_REQUIRE(gs_read_file(&b2, &l2, p2, &err) == GS_OK);
    GS_CHECK(l1 == l2 && !memcmp(b1, b2, l1));
    free(b1);
    free(b2);
    gs_timeline_destroy(back2);
    gs_timeline_destroy(back);
    gs_timeline_destroy(tl);
}

typedef struct {
    gs_timeline *tl;
    int idx, count;
} thr_arg;

static void *append_thread(void *p)
{
    thr_arg *a = p;
    char name[32], args[64];
    snprintf(name, sizeof name, "synth/%d", a->idx);
    gs_tl_lane *l = gs_tl_lane_open(a->tl, name, GS_ROLE_SYNTH, -1, -1);
    for (int i = 0; i < a->count; i++) {
        snprintf(args, sizeof args, "i=%d", i);
        gs_tl_span(l, GS_SPAN_STEP, (i & 1) ? "synth" : "alloc", a->idx, i,
                   (int64_t)i * 10 + a->idx, (int64_t)i * 10 + a->idx + 5, 0, args);
        if (i % 1000 == 0) {
            snprintf(args, sizeof args, "thread.%d.progress", a->idx);
            gs_timeline_meta_set(a->tl, args, "x");
        }
    }
    return NULL;
}

GS_TEST(diag_timeline_concurrent_append)
{
    enum { T = 6 };
    int count = gs_test_quick() ? 3000 : 30000;
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    pthread_t th[T];
    thr_arg args[T];
    for (int i = 0; i < T; i++) {
        args[i] = (thr_arg){tl, i, count};
        GS_REQUIRE(pthread_create(&th[i], NULL, append_thread, &args[i]) == 0);
    }
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    GS_CHECK_EQ_INT(gs_timeline_lane_count(tl), T);
    GS_CHECK_EQ_INT(gs_timeline_meta_count(tl), T);
    size_t n;
    const gs_span *s = gs_timeline_spans(tl, &n);
    GS_REQUIRE(n == (size_t)T * (size_t)count);
    /* Every (job=thread, part=i) appears once on the right lane, with its args. */
    char *seen = calloc(n, 1);
    GS_REQUIRE(seen);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && s[i - 1].start_ns > s[i].start_ns)
            bad++;
        const gs_lane_info *L = gs_timeline_lane(tl, s[i].lane);
        char want[32];
        snprintf(want, sizeof want, "synth/%d", (int)s[i].job);
        if (strcmp(L->name, want))
            bad++;
        snprintf(want, sizeof want, "i=%d", (int)s[i].part);
        if (strcmp(s[i].args, want) || strcmp(s[i].name, (s[i].part & 1) ? "synth" : "alloc"))
            bad++;
        size_t k = (size_t)s[i].job * (size_t)count + (size_t)s[i].part;
        if (seen[k]++)
            bad++;
    }
    GS_CHECK_EQ_INT(bad, 0);
    free(seen);
    gs_timeline_destroy(tl);
}

static void expect_bad_csv(const char *body, int line, const char *needle)
{
    char path[600];
    snprintf(path, sizeof path, "%s/bad.csv", gs_test_tmpdir());
    GS_REQUIRE(gs_test_write_text(path, body));
    gs_timeline *tl = (gs_timeline *)1;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_timeline_read_csv(&tl, path, &err);
    GS_CHECK_MSG(st == GS_ERR_FORMAT, "expected GS_ERR_FORMAT for line %d (%s), got %d", line,
                 needle, (int)st);
    GS_CHECK(tl == NULL);
    char where[700];
    snprintf(where, sizeof where, "%s:%d:", path, line);
    GS_CHECK_MSG(strstr(err.msg, where) != NULL, "message '%s' lacks '%s'", err.msg, where);
    GS_CHECK_MSG(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
}

#define HDR "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args\n"
#define LANES "# lane 0,driver,-1,-1,driver\n# lane 1,device,0,0,gpu0/stream0\n"
#define ROW "10,20,1,kernel,ntt,1,0,0,-1,0,\n"

GS_TEST(diag_timeline_csv_malformed)
{
    expect_bad_csv("", 1, "no header");
    expect_bad_csv(LANES "start,end\n", 3, "header");
    expect_bad_csv(LANES HDR ROW "30,20,1,kernel,ntt,1,0,0,-1,0,\n", 5, "end_ns before");
    expect_bad_csv(LANES HDR ROW ROW "10,20,2,kernel,ntt,1,0,0,-1,0,\n", 6, "declared lane");
    expect_bad_csv(LANES HDR "10,20,1,kernal,ntt,1,0,0,-1,0,\n", 4, "unknown span kind");
    expect_bad_csv(LANES HDR "10,20,1,kernel,ntt,1,0\n", 4, "expected 11 fields");
    expect_bad_csv(LANES HDR "1x,20,1,kernel,ntt,1,0,0,-1,0,\n", 4, "integers");
    expect_bad_csv(LANES HDR "10,20,1,kernel,ntt,1,0,70000,-1,0,\n", 4, "flags");
    expect_bad_csv(LANES HDR "10,20,1,kernel,ntt,1,0,0,5,0,\n", 4, "holder");
    expect_bad_csv(LANES HDR "10,20,1,kernel,ntt,1,0,0,-1,abc,\n", 4, "not a number");
    expect_bad_csv(LANES HDR "10,20,1,kernel,\"ntt,1,0,0,-1,0,\n", 4, "unterminated");
    expect_bad_csv(LANES HDR "10,20,1,kernel,\"a\nb\",1,0,0,-1,0,x\n10,2,1,kernel,n,1,0,0,-1,0,\n",
                   6, "end_ns before");
    expect_bad_csv(LANES HDR "10,20,1,kernel,n\"t,1,0,0,-1,0,\n", 4, "quote inside");
    expect_bad_csv("# lane 0,driver,-1,-1,driver\n# lane 2,driver,-1,-1,x\n" HDR, 2, "out of order");
    expect_bad_csv("# lane 0,drivr,-1,-1,driver\n" HDR, 1, "unknown lane role");
    expect_bad_csv("# meta novalue\n" HDR, 1, "key=value");
    expect_bad_csv("# meta k=bad\\escape\n" HDR, 1, "key=value");
    expect_bad_csv(LANES HDR "10,20,1,kernel,ntt,1,0,0,-1,0,,extra\n", 4, "more than 11");
    /* Timestamps beyond +-(2^62 - 1) ns would overflow the analysis's differences. */
    expect_bad_csv(LANES HDR "-9223372036854775808,9223372036854775807,1,kernel,k,1,0,0,-1,0,\n",
                   4, "outside +-(2^62 - 1)");
    expect_bad_csv(LANES HDR ROW "0,4611686018427387904,1,kernel,k,1,0,0,-1,0,\n", 5, "2^62");
    /* A valid file with CRLF line ends and comments reads fine. */
    char path[600];
    snprintf(path, sizeof path, "%s/ok.csv", gs_test_tmpdir());
    GS_REQUIRE(gs_test_write_text(path, "# a comment\r\n# lane 0,device,0,0,gpu0/stream0\r\n" HDR
                                        "1,2,0,copy,h2d,-1,-1,2,-1,0.5,pageable=1\r\n\n"));
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_timeline_read_csv(&tl, path, &err));
    GS_REQUIRE(tl);
    size_t n;
    const gs_span *s = gs_timeline_spans(tl, &n);
    GS_CHECK(n == 1 && s[0].kind == GS_SPAN_COPY && s[0].value == 0.5 &&
             !strcmp(s[0].args, "pageable=1") && s[0].flags == 2);
    gs_timeline_destroy(tl);
}

GS_TEST(diag_timeline_chrome_json)
{
    gs_timeline *tl = make_sample();
    GS_REQUIRE(tl);
    char path[600];
    snprintf(path, sizeof path, "%s/timeline.json", gs_test_tmpdir());
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_timeline_write_chrome(tl, path, &err));
    char *buf;
    size_t len;
    GS_REQUIRE(gs_read_file(&buf, &len, path, &err) == GS_OK);
    GS_CHECK(json_valid(buf));
    GS_CHECK(!json_valid("{\"a\":[1,2,]}"));   /* the checker can fail */
    GS_CHECK(strstr(buf, "\"traceEvents\"") && strstr(buf, "\"metadata\""));
    GS_CHECK(strstr(buf, "\"thread_name\"") && strstr(buf, "\"process_name\""));
    GS_CHECK(strstr(buf, "GPU 0: NVIDIA H200"));
    /* Four device spans of job 7 part 1 follow a prove_start of 7/1: four flows. */
    int s_count = 0, f_count = 0, c_count = 0;
    for (const char *p = buf; (p = strstr(p, "\"ph\":\"")); p += 6) {
        s_count += p[6] == 's' && p[7] == '"';
        f_count += p[6] == 'f' && p[7] == '"';
        c_count += p[6] == 'C' && p[7] == '"';
    }
    GS_CHECK_EQ_INT(s_count, 4);
    GS_CHECK_EQ_INT(f_count, 4);
    GS_CHECK_EQ_INT(c_count, 2);
    /* ts relative to the first span, exact ns as fractional microseconds. */
    GS_CHECK(strstr(buf, "\"ts\":1.100,\"dur\":0.400") != NULL);
    free(buf);
    if (access("/usr/bin/python3", X_OK) == 0) {
        char cmd[800];
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 -m json.tool '%s' > /dev/null", path);
        GS_CHECK_EQ_INT(system(cmd), 0);
    }
    gs_timeline_destroy(tl);
}
