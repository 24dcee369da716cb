/* The span vocabulary (vocab.h): one entry per name, lookups both ways,
 * and every name described in SPANS.md (the contract the table is of). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "vocab.h"

GS_TEST(vocab_names_unique_and_found)
{
    for (int i = 0; i < GS_V_COUNT; i++) {
        const char *n = gs_vocab_name((gs_vocab)i);
        GS_REQUIRE(n && n[0]);
        gs_vocab v;
        GS_CHECK_MSG(gs_vocab_from_name(&v, n) && v == (gs_vocab)i, "%s found as %d", n, (int)v);
        GS_CHECK(gs_vocab_is(n, (gs_vocab)i));
        for (int k = 0; k < i; k++)
            GS_CHECK_MSG(strcmp(n, gs_vocab_name((gs_vocab)k)) != 0, "%s twice", n);
    }
    gs_vocab v;
    GS_CHECK(!gs_vocab_from_name(&v, "no_such_step") && !gs_vocab_from_name(&v, NULL));
    GS_CHECK(!gs_vocab_is(NULL, GS_V_QUEUE_WAIT) && !gs_vocab_is("queue_wait", GS_V_COUNT));
    GS_CHECK(gs_vocab_name(GS_V_COUNT) == NULL);
    /* The strings spans.csv files hold: a rename would orphan every capture. */
    GS_CHECK(!strcmp(gs_vocab_name(GS_V_QUEUE_WAIT), "queue_wait"));
    GS_CHECK(!strcmp(gs_vocab_name(GS_V_PROVE_START), "prove_start"));
    GS_CHECK(!strcmp(gs_vocab_name(GS_V_TRACKER), "tracker"));
    GS_CHECK(!strcmp(gs_vocab_name(GS_V_MSM_A), "msm_a"));
}

GS_TEST(vocab_names_described_in_spans_md)
{
    FILE *f = fopen("timeline/SPANS.md", "r");
    if (!f) {
        gs_test_skip("timeline/SPANS.md not found (run from the repository root)");
        return;
    }
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (int i = 0; i < GS_V_COUNT; i++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "`%s`", gs_vocab_name((gs_vocab)i));
        GS_CHECK_MSG(strstr(text, quoted) != NULL, "SPANS.md does not describe %s", quoted);
    }
}
