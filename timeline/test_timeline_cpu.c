/* spans.csv with CPU times (cpu_ns, GS_SPAN_F_CPU): loss-free round trip,
 * the 11-column form kept when no span has CPU time, old files read as
 * spans without CPU time, malformed CPU fields refused with their line. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "../common/outfile.h"
#include "timeline.h"

static const char *tmp_csv(const char *name, const char *body)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/%s", gs_test_tmpdir(), name);
    if (!gs_test_write_text(path, body))
        return NULL;
    return path;
}

GS_TEST(timeline_cpu_roundtrip)
{
    gs_timeline *tl = NULL, *back = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *s = gs_tl_lane_open(tl, "synth/0", GS_ROLE_SYNTH, -1, -1);
    gs_tl_lane *f = gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1);
    gs_tl_span_cpu(s, GS_SPAN_STEP, "synth", 1, 0, 1000, 2000, 0, "log=20", 987654321012LL);
    gs_tl_span_cpu(f, GS_SPAN_STEP, "prove_finish", 1, 0, 1500, 9000, GS_SPAN_F_FAILED, NULL, 0);
    gs_tl_span(f, GS_SPAN_STEP, "malloc_trim", 1, 0, 9000, 9100, GS_SPAN_F_CPU, NULL); /* no CPU given */
    gs_tl_span_cpu(f, GS_SPAN_STEP, "verify", 1, -1, 9100, 9200, 0, "ok=1", -1); /* none either */
    char path[600];
    snprintf(path, sizeof path, "%s/cpu.spans.csv", gs_test_tmpdir());
    GS_REQUIRE(gs_timeline_write_csv(tl, path, &err) == GS_OK);
    GS_REQUIRE(gs_timeline_read_csv(&back, path, &err) == GS_OK);
    size_t na, nb;
    const gs_span *a = gs_timeline_spans(tl, &na), *b = gs_timeline_spans(back, &nb);
    GS_REQUIRE(na == 4 && nb == 4);
    for (size_t i = 0; i < na; i++) {
        GS_CHECK_MSG(a[i].flags == b[i].flags && a[i].cpu_ns == b[i].cpu_ns && !strcmp(a[i].name, b[i].name),
                     "span %zu: flags %u/%u cpu %lld/%lld", i, a[i].flags, b[i].flags, (long long)a[i].cpu_ns,
                     (long long)b[i].cpu_ns);
    }
    GS_CHECK(b[0].flags & GS_SPAN_F_CPU && b[0].cpu_ns == 987654321012LL);
    GS_CHECK((b[1].flags & GS_SPAN_F_CPU) && b[1].cpu_ns == 0 && (b[1].flags & GS_SPAN_F_FAILED));
    GS_CHECK(!(b[2].flags & GS_SPAN_F_CPU) && !(b[3].flags & GS_SPAN_F_CPU));
    char *text = NULL;
    size_t len;
    GS_REQUIRE(gs_read_file(&text, &len, path, &err) == GS_OK);
    GS_CHECK(strstr(text, "holder,value,args,cpu_ns\n") != NULL);
    free(text);
    gs_timeline_destroy(tl);
    gs_timeline_destroy(back);
}

GS_TEST(timeline_cpu_old_form_kept_and_read)
{
    gs_timeline *tl = NULL, *back = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *s = gs_tl_lane_open(tl, "synth/0", GS_ROLE_SYNTH, -1, -1);
    gs_tl_span(s, GS_SPAN_STEP, "synth", 1, 0, 1000, 2000, 0, NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/nocpu.spans.csv", gs_test_tmpdir());
    GS_REQUIRE(gs_timeline_write_csv(tl, path, &err) == GS_OK);
    char *text = NULL;
    size_t len;
    GS_REQUIRE(gs_read_file(&text, &len, path, &err) == GS_OK);
    GS_CHECK(strstr(text, "holder,value,args\n") != NULL && strstr(text, "cpu_ns") == NULL);
    free(text);
    GS_REQUIRE(gs_timeline_read_csv(&back, path, &err) == GS_OK);
    size_t n;
    const gs_span *b = gs_timeline_spans(back, &n);
    GS_CHECK(n == 1 && !(b[0].flags & GS_SPAN_F_CPU) && b[0].cpu_ns == 0);
    gs_timeline_destroy(tl);
    gs_timeline_destroy(back);
}

#define LANE "# gapscope timeline v1\n# lane 0,synth,-1,-1,synth/0\n"
#define HDR "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args,cpu_ns\n"

static void bad(const char *body, const char *needle)
{
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    const char *p = tmp_csv("badcpu.spans.csv", body);
    GS_REQUIRE(p);
    GS_CHECK(gs_timeline_read_csv(&tl, p, &err) == GS_ERR_FORMAT && tl == NULL);
    GS_CHECK_MSG(strstr(err.msg, needle) && strstr(err.msg, "badcpu.spans.csv:4"), "message: %s", err.msg);
}

GS_TEST(timeline_cpu_malformed)
{
    bad(LANE HDR "10,20,0,step,synth,1,0,8,-1,0,,\n", "CPU bit (8) but cpu_ns is empty");
    bad(LANE HDR "10,20,0,step,synth,1,0,0,-1,0,,123\n", "cpu_ns given but flags lack");
    bad(LANE HDR "10,20,0,step,synth,1,0,8,-1,0,,-5\n", "cpu_ns '-5'");
    bad(LANE HDR "10,20,0,step,synth,1,0,8,-1,0,,12x\n", "cpu_ns '12x'");
    bad(LANE HDR "10,20,0,step,synth,1,0,0,-1,0,\n", "expected 12 fields, found 11");
}
