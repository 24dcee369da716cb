/*
 * The wake-up records of attach raw files (B U Q A J, sched.rec) converted
 * on a committed fixture (test/fixtures/attach/wake), every pairing rule
 * of convert_wake.c / wake_emit.c checked on a span; malformed records;
 * the tracefs format parser on the real sched_switch format text.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "attach.h"
#include "sched_int.h"

static int32_t lane_tid(gs_timeline *tl, long tid)
{
    char pre[32];
    snprintf(pre, sizeof pre, "thread/%ld", tid);
    size_t k = strlen(pre);
    for (size_t i = 0; i < gs_timeline_lane_count(tl); i++) {
        const gs_lane_info *l = gs_timeline_lane(tl, (int32_t)i);
        if (!strncmp(l->name, pre, k) && (!l->name[k] || l->name[k] == ' '))
            return l->id;
    }
    return -2;
}

/* The span of lane `tid` named name starting at start (ms); NULL if none. */
static const gs_span *span(gs_timeline *tl, long tid, const char *name, double start_ms)
{
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    int32_t l = lane_tid(tl, tid);
    for (size_t i = 0; i < n; i++)
        if (sp[i].lane == l && !strcmp(sp[i].name, name) &&
            sp[i].start_ns == (int64_t)(start_ms * 1e6))
            return &sp[i];
    return NULL;
}

#define HAS(s, sub) GS_CHECK_MSG((s) && strstr((s)->args, sub), "%s: args %s lack %s", #s, \
                                 (s) ? (s)->args : "(no span)", sub)

GS_TEST(attach_wake_raw_fixture)
{
    const char *root = getenv("GS_SRC");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/test/fixtures/attach/wake", root && *root ? root : ".");
    gs_timeline *tl = NULL;
    gs_attach_stats st;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_attach_convert(&tl, &st, dir, NULL, &err) == GS_OK);
    GS_CHECK(!strcmp(st.wake_mech, "sched_tracepoints"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "attach.wake"), "sched_tracepoints"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "attach.wake.probe"),
                     "sched_switch + sched_waking (test fixture)"));
    /* Stack ids: sorted frame strings; Rust's mangled frame shortened. */
    /* A frame no symbol named, in an object file that is gone: its base name. */
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "stack.1"), "main;finalize;libfoo.so+0x10"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "stack.2"),
                     "main;worker_loop;std::sys::sync::mutex::futex::Mutex::lock_contended"));
    int32_t l102 = lane_tid(tl, 102), l106 = lane_tid(tl, 106), l109 = lane_tid(tl, 109);
    /* A futex lock: the wake left the word 0; paired by address. */
    const gs_span *w = span(tl, 101, "futex:0x1000", 1);
    GS_REQUIRE(w);
    GS_CHECK_EQ_INT(w->kind, GS_SPAN_LOCK_WAIT);
    GS_CHECK_EQ_INT(w->holder, l102);
    HAS(w, "wait=lock;mech=interpose;addr=0x1000;result=0;edge=address;wake_ns=8000000;"
           "waker_tid=102;stack=2");
    /* The sampler's futex run under the interposed wait adds nothing. */
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    int waits101 = 0;
    for (size_t i = 0; i < n; i++)
        waits101 += sp[i].lane == lane_tid(tl, 101) && sp[i].kind == GS_SPAN_LOCK_WAIT;
    GS_CHECK_EQ_INT(waits101, 1);
    /* The trim's stack. */
    HAS(span(tl, 102, "malloc_trim", 7), "stack=1");
    /* A condvar: an event. */
    w = span(tl, 103, "cond:0x2000", 2);
    GS_CHECK(w && w->holder == l102);
    HAS(w, "wait=event;mech=interpose;addr=0x2000;result=0;edge=address");
    /* A futex event (word 7), whose waker the scheduler names instead. */
    w = span(tl, 103, "futex:0x3000", 4);
    GS_CHECK(w && w->holder == l109);
    HAS(w, "wait=event;mech=interpose;addr=0x3000;result=0;edge=sched;wake_ns=4600000;waker_tid=109");
    /* One wake for two waiters: the first to end takes it; the other was
     * woken from interrupt context (no thread). */
    w = span(tl, 103, "futex:0x4000", 6);
    GS_CHECK(w && w->holder == l102);
    HAS(w, "wait=lock");
    w = span(tl, 104, "futex:0x4000", 6);
    GS_CHECK(w && w->holder == -1);
    HAS(w, "edge=sched;wake_ns=7400000");
    GS_CHECK(w && !strstr(w->args, "waker_tid"));
    /* GIL slices merged into one wait, its holder the last releaser; holds
     * synthesized from the releases. */
    w = span(tl, 105, "gil:0x5000", 10);
    GS_REQUIRE(w);
    GS_CHECK_EQ_INT(w->end_ns, 25000000);
    GS_CHECK_EQ_INT(w->holder, l106);
    HAS(w, "wait=gil");
    const gs_span *h = span(tl, 106, "gil:0x5000", 12);
    GS_CHECK(h && h->kind == GS_SPAN_LOCK_HOLD && h->end_ns == 24000000);
    GS_CHECK(span(tl, 107, "gil:0x5000", 0) == NULL);
    /* A wait the sampler alone saw, paired with a wake just after its end. */
    w = span(tl, 108, "futex:0x6000", 30);
    GS_CHECK(w && w->holder == l102);
    HAS(w, "wait=event;mech=sampler");
    /* Memory release: the one under a seen malloc_trim is dropped. */
    HAS(span(tl, 102, "memory_release", 50), "rss_drop_kb=20000;blocked_samples=2");
    GS_CHECK(span(tl, 102, "memory_release", 7) == NULL);
    /* An off-CPU stretch no wait covers, from the scheduler. */
    w = span(tl, 103, "offcpu:-", 70);
    GS_CHECK(w && w->holder == l102 && w->end_ns == 70500000);
    HAS(w, "wait=event;mech=sched");
    GS_CHECK_EQ_INT(st.mem_releases, 2);
    GS_CHECK_EQ_INT(st.sched_events, 4);
    gs_timeline_destroy(tl);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

GS_TEST(attach_wake_raw_malformed)
{
    static const struct {
        const char *file, *text, *where;
    } bad[] = {
        {"p5-0.rec", "H gsattach 1 5 4 0 x\nB 1 2 3 spinlock 0x1 0 0\n", "p5-0.rec:2"},
        {"p5-0.rec", "H gsattach 1 5 4 0 x\nB 9 2 3 futex 0x1 0 0\n", "p5-0.rec:2"},
        {"p5-0.rec", "H gsattach 1 5 4 0 x\nU 1 3 futex 0x1 1\n", "p5-0.rec:2"},
        {"p5-0.rec", "H gsattach 1 5 4 0 x\nU 1 3 futex 0x1 -7 0 0\n", "p5-0.rec:2"},
        {"p5-0.rec", "H gsattach 1 5 4 0 x\nI ok\nQ 0 main\n", "p5-0.rec:3"},
        {"p5-0.rec", "H gsattach 1 5 4 0 x\nA 1 2\n", "p5-0.rec:2"},
        {"sampler.rec", "G 0 1000\nJ 5 4 1 2 3 0\n", "sampler.rec:2"},
        {"sched.rec", "Z gsched 2 what\n", "sched.rec:1"},
        {"sched.rec", "Z gsched 1 interposition\ns 1 2 3\n", "sched.rec:2"},
        {"sched.rec", "Z gsched 1 interposition\nw 1 2 3 5\n", "sched.rec:2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char dir[1100], path[1300], cmd[1300], out[64];
        snprintf(dir, sizeof dir, "%s/m%zu", gs_test_tmpdir(), i);
        snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
        gs_test_run(cmd, out, sizeof out);
        snprintf(path, sizeof path, "%s/%s", dir, bad[i].file);
        write_file(path, bad[i].text);
        gs_timeline *tl = NULL;
        gs_err err;
        gs_err_clear(&err);
        GS_CHECK_EQ_INT(gs_attach_convert(&tl, NULL, dir, NULL, &err), GS_ERR_FORMAT);
        GS_CHECK(tl == NULL);
        GS_CHECK_MSG(strstr(err.msg, bad[i].where) != NULL, "case %zu: %s", i, err.msg);
    }
}

GS_TEST(attach_sched_format)
{
    static const char sw[] =
        "name: sched_switch\nID: 372\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
        "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
        "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
        "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
        "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
        "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
        "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
        "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n";
    unsigned id = 0;
    int off, size;
    GS_CHECK(gs_sched_format_id(sw, &id) && id == 372);
    GS_CHECK(gs_sched_format_field(sw, "prev_pid", &off, &size) && off == 24 && size == 4);
    GS_CHECK(gs_sched_format_field(sw, "prev_state", &off, &size) && off == 32 && size == 8);
    GS_CHECK(gs_sched_format_field(sw, "next_pid", &off, &size) && off == 56 && size == 4);
    GS_CHECK(gs_sched_format_field(sw, "common_flags", &off, &size) && off == 2 && size == 1);
    GS_CHECK(gs_sched_format_field(sw, "prev_comm", &off, &size) && off == 8 && size == 16);
    /* "pid" is not "prev_pid" nor "common_pid" */
    GS_CHECK(!gs_sched_format_field(sw, "pid", &off, &size));
    GS_CHECK(!gs_sched_format_field(sw, "target_cpu", &off, &size));
    GS_CHECK(!gs_sched_format_id("name: x\nformat:\n", &id));
    /* The probe answers in words either way. */
    char why[256] = "";
    int ok = gs_sched_probe(why, sizeof why);
    GS_CHECK_MSG(why[0] != '\0', "probe %d gave no reason", ok);
}
