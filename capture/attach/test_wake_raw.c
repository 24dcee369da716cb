/*
 * The wake-up records of attach raw files (B U Q A J, sched.rec) converted
 * on a committed fixture (test/fixtures/attach/wake), every pairing rule
 * of convert_wake.c / wake_emit.c checked on a span; malformed records and
 * values beyond timeline/limits.h or their fields;
 * the tracefs format parser on the real sched_switch format text.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "attach.h"
#include "test_attach_util.h"
#include "sched_int.h"

/* The span of lane `tid` named name starting at start (ms); NULL if none. */
static const gs_span *span(gs_timeline *tl, long tid, const char *name, double start_ms)
{
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    int32_t l = tat_lane_of_tid(tl, tid);
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
    int32_t l102 = tat_lane_of_tid(tl, 102), l106 = tat_lane_of_tid(tl, 106), l109 = tat_lane_of_tid(tl, 109);
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
        waits101 += sp[i].lane == tat_lane_of_tid(tl, 101) && sp[i].kind == GS_SPAN_LOCK_WAIT;
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

/* Case i: a folder holding file with text must be refused with GS_ERR_FORMAT,
 * no timeline, and a message holding where and needle. */
static void refused(const char *tag, size_t i, const char *file, const char *text,
                    const char *where, const char *needle)
{
    char dir[1100], path[1300], cmd[1300], out[64];
    snprintf(dir, sizeof dir, "%s/%s%zu", gs_test_tmpdir(), tag, i);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    gs_test_run(cmd, out, sizeof out);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    GS_REQUIRE(gs_test_write_text(path, text));
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_attach_convert(&tl, NULL, dir, NULL, &err), GS_ERR_FORMAT);
    GS_CHECK(tl == NULL);
    GS_CHECK_MSG(strstr(err.msg, where) && strstr(err.msg, needle), "%s case %zu: %s", tag, i,
                 err.msg);
    gs_timeline_destroy(tl);
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
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused("m", i, bad[i].file, bad[i].text, bad[i].where, "");
}

/* The wake-up records against timeline/limits.h and the fields they go to
 * (issue 35's rule, as rawread.c checks its own records): one beyond is an
 * error naming file:line, never narrowed or wrapped. */
GS_TEST(attach_wake_raw_limits)
{
#define H5 "H gsattach 1 5 4 0 x\n"
#define ZS "Z gsched 1 sched_tracepoints\n"
    static const struct {
        const char *file, *text, *where, *needle;
    } bad[] = {
        {"p5-0.rec", H5 "B 4611686018427387904 4611686018427387905 3 futex 0x1 0 0\n", "p5-0.rec:2",
         "outside +-(2^62 - 1)"},
        {"p5-0.rec", H5 "B 1 2 4294967296 futex 0x1 0 0\n", "p5-0.rec:2", "thread id 4294967296"},
        {"p5-0.rec", H5 "B 1 2 3 futex 0x1 2147483648 0\n", "p5-0.rec:2", "result 2147483648"},
        {"p5-0.rec", H5 "B 1 2 3 futex 0x1 0 4294967296\n", "p5-0.rec:2", "stack id 4294967296"},
        {"p5-0.rec", H5 "B -1 2 3 futex 0x1 0 0\n", "p5-0.rec:2", "malformed"},
        {"p5-0.rec", H5 "U 9223372036854775807 3 futex 0x1 1 0 0\n", "p5-0.rec:2",
         "outside +-(2^62 - 1)"},
        {"p5-0.rec", H5 "U 1 3 futex 0x1 2147483648 0 0\n", "p5-0.rec:2", "woken count"},
        {"p5-0.rec", H5 "U 1 3 futex 0x1 1 4294967296 0\n", "p5-0.rec:2", "futex word"},
        {"p5-0.rec", H5 "U 1 3 futex 0x1 1 0 0 7\n", "p5-0.rec:2", "malformed"},
        {"p5-0.rec", H5 "Q 4294967296 main\n", "p5-0.rec:2", "stack id 4294967296"},
        {"p5-0.rec", H5 "A 1 4294967296 1\n", "p5-0.rec:2", "thread id 4294967296"},
        {"p5-0.rec", H5 "A 18446744073709551615 3 1\n", "p5-0.rec:2", "outside +-(2^62 - 1)"},
        {"sampler.rec", "G 0 1000\nJ 1 2 2147483648 3 4 0\n", "sampler.rec:2", "pid 2147483648"},
        {"sampler.rec", "G 0 1000\nJ 1 4611686018427387904 5 3 4 0\n", "sampler.rec:2",
         "outside +-(2^62 - 1)"},
        {"sched.rec", ZS "s 4611686018427387904 0 3 1 4\n", "sched.rec:2", "outside +-(2^62 - 1)"},
        {"sched.rec", ZS "s 1 0 4294967296 1 4\n", "sched.rec:2", "thread id 4294967296"},
        {"sched.rec", ZS "w 1 3 4294967296 0\n", "sched.rec:2", "thread id 4294967296"},
        {"sched.rec", ZS "l 9223372036854775808\n", "sched.rec:2", "lost events"},
        {"sched.rec", ZS "w1 3 4 0\n", "sched.rec:2", "malformed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused("l", i, bad[i].file, bad[i].text, bad[i].where, bad[i].needle);
    /* The edges themselves convert; a stack frame naming a FIFO (a raw file
     * names any path) is not opened to block the conversion: base name kept. */
    char dir[1000], path[4000], fifo[1100], text[2000];
    snprintf(dir, sizeof dir, "%s/edges", gs_test_tmpdir());
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(path, sizeof path, "mkdir -p %s && rm -f %s && mkfifo %s", dir, fifo, fifo);
    char out[64];
    gs_test_run(path, out, sizeof out);
    snprintf(path, sizeof path, "%s/p5-0.rec", dir);
    snprintf(text, sizeof text,
             H5 "B 4611686018427287903 4611686018427387903 4294967295 futex 0x1 0 1\n"
                "Q 1 main;%s+0x10\n"
                "U 4611686018427387900 7 futex 0x1 -2 4294967295 0\n",
             fifo);
    GS_REQUIRE(gs_test_write_text(path, text));
    gs_timeline *tl = NULL;
    gs_attach_stats st;
    gs_err err;
    gs_err_clear(&err);
    gs_status cs = gs_attach_convert(&tl, &st, dir, NULL, &err);
    GS_CHECK_MSG(cs == GS_OK, "%s", err.msg);
    if (cs != GS_OK)
        return;
    GS_CHECK_EQ_INT(st.waits, 1);
    GS_CHECK_EQ_INT(st.waits_paired, 1);
    const char *stk = gs_timeline_meta_get(tl, "stack.1");
    GS_CHECK_MSG(stk && !strcmp(stk, "main;pipe+0x10"), "stack.1 %s", stk ? stk : "(none)");
    gs_timeline_destroy(tl);
#undef H5
#undef ZS
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
