/* Trace reader/writer tests: round trip, defaults, errors by line number. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/outfile.h"
#include "../test/test.h"
#include "trace.h"

static const char *good =
    "{\"format\":\"gapscope-trace\",\"version\":1,\"time_unit\":\"ms\",\"description\":\"two jobs\"}\n"
    "{\"t\":0,\"id\":1,\"kind\":\"porep_c2\",\"partitions\":10,\"priority\":2,\"size_class\":27}\n"
    "\n"
    "{\"t\": 1.5, \"id\": 2, \"kind\": \"winning_post\"}\n";

GS_TEST(trace_parse_good)
{
    gs_trace t;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_trace_parse(&t, good, strlen(good), "good.jsonl", &err) == GS_OK);
    GS_CHECK_EQ_INT(t.n, 2);
    GS_CHECK(!strcmp(t.description, "two jobs"));
    GS_CHECK(t.a[0].kind == GS_KIND_POREP_C2 && t.a[0].partitions == 10 && t.a[0].size_class == 27);
    GS_CHECK(t.a[1].t_ns == 1500000 && t.a[1].kind == GS_KIND_WINNING_POST);
    GS_CHECK(t.a[1].partitions == 1 && t.a[1].priority == 0); /* kind defaults */
    gs_trace_free(&t);
}

GS_TEST(trace_write_read_roundtrip)
{
    gs_trace t = {0}, u;
    gs_rng *r = gs_test_rng();
    int64_t now = 0;
    for (int i = 0; i < 200; i++) {
        now += (int64_t)gs_rng_below(r, 5000000000ULL); /* ns resolution */
        gs_arrival a = {now, (uint64_t)i + 7, (gs_job_kind)gs_rng_below(r, GS_KIND_COUNT),
                        1 + (uint32_t)gs_rng_below(r, 16), (int)gs_rng_below(r, 3), 27};
        GS_REQUIRE(gs_trace_push(&t, &a) == GS_OK);
    }
    snprintf(t.description, sizeof t.description, "quote \" and backslash \\ survive");
    char path[600];
    snprintf(path, sizeof path, "%s/rt.jsonl", gs_test_tmpdir());
    gs_err err;
    gs_err_clear(&err);
    const char *units[] = {"ns", "ms", "s"};
    for (int k = 0; k < 3; k++) {
        GS_REQUIRE(gs_trace_write(&t, path, units[k], &err) == GS_OK);
        GS_REQUIRE(gs_trace_read(&u, path, &err) == GS_OK);
        GS_CHECK_EQ_INT(u.n, t.n);
        GS_CHECK(!strcmp(u.description, t.description));
        for (size_t i = 0; i < t.n && i < u.n; i++)
            GS_CHECK_MSG(!memcmp(&t.a[i], &u.a[i], sizeof t.a[i]), "unit %s arrival %zu differs (t %lld vs %lld)",
                         units[k], i, (long long)t.a[i].t_ns, (long long)u.a[i].t_ns);
        gs_trace_free(&u);
    }
    /* A description with bytes that are not UTF-8 (a truncated name, a
     * Latin-1 file) is written as valid JSON (each bad byte as U+FFFD, not as raw
     * bytes a strict reader refuses) that reads back. */
    snprintf(t.description, sizeof t.description, "caf\xe9 \xff end");
    GS_REQUIRE(gs_trace_write(&t, path, "ms", &err) == GS_OK);
    GS_REQUIRE(gs_trace_read(&u, path, &err) == GS_OK);
    GS_CHECK_MSG(!strncmp(u.description, "caf", 3), "%s", u.description);
    gs_trace_free(&u);
    char *buf = NULL;
    size_t nb;
    GS_REQUIRE(gs_read_file(&buf, &nb, path, &err) == GS_OK);
    GS_CHECK_MSG(!memchr(buf, 0xe9, nb) && !memchr(buf, 0xff, nb) &&
                     strstr(buf, "\"caf\\ufffd \\ufffd end\"") != NULL,
                 "%.200s", buf);
    free(buf);
    gs_trace_free(&t);
}

/* Each malformed line is rejected with its line number and the reason. */
GS_TEST(trace_errors_by_line)
{
    const char *hdr = "{\"format\":\"gapscope-trace\",\"version\":1,\"time_unit\":\"ms\"}\n";
    const char *a1 = "{\"t\":0,\"id\":1,\"kind\":\"circuit\"}\n";
    struct { const char *body; int line; const char *word; } cases[] = {
        {"{\"t\":1,\"id\":2,\"kind\":\"circuit\"\n", 3, "expected ',' or '}'"},
        {"{\"t\":1,\"kind\":\"circuit\"}\n", 3, "\"id\""},
        {"{\"t\":1,\"id\":2,\"kind\":\"porep\"}\n", 3, "kind"},
        {"{\"t\":-1,\"id\":2,\"kind\":\"circuit\"}\n", 3, "non-negative"},
        {"{\"t\":1,\"id\":2.5,\"kind\":\"circuit\"}\n", 3, "integer"},
        {"{\"t\":1,\"id\":2,\"kind\":\"circuit\",\"partitions\":0}\n", 3, "partitions"},
        {"{\"t\":1,\"id\":2,\"kind\":\"circuit\",\"colour\":\"red\"}\n", 3, "colour"},
        {"{\"t\":1,\"id\":2,\"kind\":\"circuit\",\"t\":3}\n", 3, "duplicate"},
        {"{\"t\":1,\"id\":2,\"kind\":{\"x\":1}}\n", 3, "nested"},
        {"\n\n[1,2]\n", 5, "JSON object"},
        {"{\"t\":1,\"id\":2,\"kind\":\"circuit\"} x\n", 3, "after the object"},
        {"{\"t\":\"1\",\"id\":2,\"kind\":\"circuit\"}\n", 3, "non-negative"},
        /* issue 35: the timeline's job number is 32 bits, its times 2^62 - 1 ns */
        {"{\"t\":1,\"id\":2147483648,\"kind\":\"circuit\"}\n", 3, "integer in range"},
        {"{\"t\":4611686018428,\"id\":2,\"kind\":\"circuit\"}\n", 3, "2^62 - 1 ns"},
    };
    gs_trace t;
    gs_err err;
    char text[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "%s%s%s", hdr, a1, cases[i].body);
        gs_err_clear(&err);
        GS_CHECK_MSG(gs_trace_parse(&t, text, strlen(text), "x.jsonl", &err) == GS_ERR_FORMAT, "case %zu accepted", i);
        char where[64];
        snprintf(where, sizeof where, "x.jsonl:%d:", cases[i].line);
        GS_CHECK_MSG(strstr(err.msg, where) != NULL, "case %zu: '%s' lacks %s", i, err.msg, where);
        GS_CHECK_MSG(strstr(err.msg, cases[i].word) != NULL, "case %zu: '%s' lacks %s", i, err.msg, cases[i].word);
    }
    /* Header problems and ordering. */
    struct { const char *text; const char *word; } hcases[] = {
        {"", "x.jsonl:1: empty file: no header"},
        {"\n \n", "x.jsonl:2: empty file: no header"},
        {"{\"t\":0,\"id\":1,\"kind\":\"circuit\"}\n", "header"},
        {"{\"format\":\"gapscope-trace\",\"version\":2,\"time_unit\":\"ms\"}\n", "version"},
        {"{\"format\":\"gapscope-trace\",\"version\":1,\"time_unit\":\"hours\"}\n", "time_unit"},
        {"{\"format\":\"gapscope-trace\",\"version\":1,\"time_unit\":\"s\"}\n{\"t\":5,\"id\":1,\"kind\":\"circuit\"}\n"
         "{\"t\":4,\"id\":2,\"kind\":\"circuit\"}\n", "x.jsonl:3: arrival time goes backwards"},
    };
    for (size_t i = 0; i < sizeof hcases / sizeof hcases[0]; i++) {
        gs_err_clear(&err);
        GS_CHECK_MSG(gs_trace_parse(&t, hcases[i].text, strlen(hcases[i].text), "x.jsonl", &err) == GS_ERR_FORMAT,
                     "header case %zu accepted", i);
        GS_CHECK_MSG(strstr(err.msg, hcases[i].word) != NULL, "header case %zu: '%s'", i, err.msg);
    }
    gs_err_clear(&err);
    GS_CHECK(gs_trace_read(&t, "/nonexistent/trace.jsonl", &err) == GS_ERR_IO);
    /* A NUL byte is named by its line. */
    char path[600];
    snprintf(path, sizeof path, "%s/nul.jsonl", gs_test_tmpdir());
    FILE *f = fopen(path, "wb");
    GS_REQUIRE(f);
    fwrite("{\"format\":\"gapscope-trace\"}\n{\"t\":\0}\n", 1, 36, f);
    fclose(f);
    gs_err_clear(&err);
    GS_CHECK(gs_trace_read(&t, path, &err) == GS_ERR_FORMAT);
    char where[700];
    snprintf(where, sizeof where, "%s:2: NUL byte", path);
    GS_CHECK_MSG(strstr(err.msg, where) != NULL, "'%s' lacks '%s'", err.msg, where);
}

/* The committed traces parse and match what their generators promise. */
GS_TEST(trace_committed_files)
{
    const char *root = getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : ".";
    char path[600];
    gs_trace t;
    gs_err err;
    gs_err_clear(&err);
    snprintf(path, sizeof path, "%s/traces/backlog-incident.jsonl", root);
    if (gs_trace_read(&t, path, &err) != GS_OK) {
        gs_test_skip("%s not found (run from the repository root)", path);
        return;
    }
    uint32_t parts = 0;
    for (size_t i = 0; i < t.n; i++)
        parts += t.a[i].kind == GS_KIND_POREP_C2 ? t.a[i].partitions : 0;
    GS_CHECK_MSG(parts >= 27, "backlog incident has %u PoRep partitions", parts);
    gs_trace_free(&t);
    snprintf(path, sizeof path, "%s/traces/provider-day.jsonl", root);
    GS_REQUIRE(gs_trace_read(&t, path, &err) == GS_OK);
    int window = 0, winning = 0, snap = 0;
    for (size_t i = 0; i < t.n; i++) {
        window += t.a[i].kind == GS_KIND_WINDOW_POST;
        winning += t.a[i].kind == GS_KIND_WINNING_POST;
        snap += t.a[i].kind == GS_KIND_SNAP_DEALS;
    }
    GS_CHECK_MSG(window >= 48 && winning > 0 && snap > 0, "day: %d window, %d winning, %d snap", window, winning, snap);
    GS_CHECK(t.a[t.n - 1].t_ns > 23LL * 3600 * 1000000000LL); /* a day long (compressible by time_scale) */
    gs_trace_free(&t);
    snprintf(path, sizeof path, "%s/traces/winning-under-backlog.jsonl", root);
    GS_REQUIRE(gs_trace_read(&t, path, &err) == GS_OK);
    int first_winning = -1;
    for (size_t i = 0; i < t.n && first_winning < 0; i++)
        if (t.a[i].kind == GS_KIND_WINNING_POST)
            first_winning = (int)i;
    GS_CHECK(first_winning > 0 && t.a[0].kind == GS_KIND_POREP_C2);
    gs_trace_free(&t);
}
