#include <string.h>

#include "../test/test.h"
#include "json.h"

static gs_status parse(const char *s, gs_json **j, gs_err *e)
{
    gs_err_clear(e);
    return gs_json_parse(j, s, strlen(s), "t.json", e);
}

GS_TEST(json_parses_snarkjs_proof_shape)
{
    gs_json *j;
    gs_err e;
    const char *s = "{\n \"pi_a\": [\"1\", \"2\", \"1\"],\n \"protocol\": \"groth16\",\n"
                    " \"n\": -1.5e3, \"ok\": true, \"z\": null, \"u\": \"\\u00e9\\n\"\n}";
    GS_REQUIRE(parse(s, &j, &e) == GS_OK);
    const gs_json *a = gs_json_get(j, "pi_a");
    GS_REQUIRE(a && a->type == GS_JSON_ARRAY && a->n == 3);
    GS_CHECK(!strcmp(gs_json_at(a, 1)->text, "2"));
    GS_CHECK(!strcmp(gs_json_get(j, "protocol")->text, "groth16"));
    GS_CHECK(gs_json_get(j, "n")->number == -1500.0);
    GS_CHECK(!strcmp(gs_json_get(j, "n")->text, "-1.5e3"));
    GS_CHECK(gs_json_get(j, "ok")->boolean == 1);
    GS_CHECK(gs_json_get(j, "z")->type == GS_JSON_NULL);
    GS_CHECK(!strcmp(gs_json_get(j, "u")->text, "\xc3\xa9\n"));
    GS_CHECK(gs_json_get(j, "missing") == NULL);
    GS_CHECK(gs_json_get(j, "protocol")->line == 3);
    gs_json_free(j);
}

GS_TEST(json_rejects_malformed_with_position)
{
    static const struct { const char *text, *where; } bad[] = {
        {"{\"a\": [1, 2,]}", "t.json:1:13"},
        {"{\"a\" 1}", "t.json:1:6"},
        {"[1, 2", "t.json:1:6"},
        {"\n\n  \"abc", "t.json:3:3"},
        {"{\"a\": 01}", "t.json:1:8"},
        {"[1] x", "t.json:1:5"},
        {"", "t.json:1:1"},
        {"[\"\\q\"]", "t.json:1:3"},
        {"[tru]", "t.json:1:2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_json *j = (gs_json *)1;
        gs_err e;
        GS_CHECK_EQ_INT(parse(bad[i].text, &j, &e), GS_ERR_FORMAT);
        GS_CHECK(j == NULL);
        GS_CHECK_MSG(strstr(e.msg, bad[i].where) != NULL, "case %zu: '%s' lacks %s", i,
                     e.msg, bad[i].where);
    }
}

GS_TEST(json_depth_limit)
{
    char s[300];
    memset(s, '[', 200);
    s[200] = '\0';
    gs_json *j;
    gs_err e;
    GS_CHECK_EQ_INT(parse(s, &j, &e), GS_ERR_FORMAT);
    GS_CHECK(strstr(e.msg, "too deep") != NULL);
}

/* gs_utf8_valid_len: well-formed sequences by length, and each way a
 * sequence is ill-formed (RFC 3629 table 3-7). */
GS_TEST(json_utf8_valid_len)
{
    static const struct { const char *s; size_t n; } cases[] = {
        {"a", 1}, {"", 0}, {"\xc3\xa9", 2}, {"\xe2\x82\xac", 3}, {"\xf0\x9f\x98\x80", 4},
        {"\xc0\xaf", 0},          /* overlong */
        {"\xc3", 0},              /* cut short by the end */
        {"\xe0\x80\xaf", 0},      /* overlong 3-byte */
        {"\xed\xa0\x80", 0},      /* a surrogate */
        {"\xf4\x90\x80\x80", 0},  /* past U+10FFFF */
        {"\xf5\x80\x80\x80", 0}, {"\x80", 0}, {"\xe9 x", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        GS_CHECK_MSG(gs_utf8_valid_len(cases[i].s) == cases[i].n, "case %zu: %zu, want %zu", i,
                     gs_utf8_valid_len(cases[i].s), cases[i].n);
}
