/*
 * imp_cut (the Chrome importer's first pass cuts events 64 bytes at a
 * time) against imp_win_value, the bracket scan whose cut it must equal:
 * random texts of brackets, quotes, backslash runs, newlines and words,
 * long enough to cross several blocks, give the same end and lines, and
 * *hit exactly when a string is a word or holds a backslash.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../../common/rng.h"
#include "imp_internal.h"
#include "test_import_util.h"

static const char *const words[] = {"M", "cuda_runtime", "driver", "ac2g"};

/* The strings of text[0, n) as the bracket scan reads them: 1 when one is
 * a word (all but "M" in any case) or holds a backslash. */
static int ref_hit(const char *t, size_t n)
{
    int in = 0, hit = 0;
    size_t st = 0;
    for (size_t i = 0; i < n; i++) {
        if (!in) {
            if (t[i] == '"') {
                in = 1;
                st = i + 1;
            }
        } else if (t[i] == '\\') {
            hit = 1;
            i++;
        } else if (t[i] == '"') {
            in = 0;
            size_t len = i - st;
            for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
                if (len == strlen(words[w]) &&
                    (w ? !strncasecmp(t + st, words[w], len) : !memcmp(t + st, words[w], len)))
                    hit = 1;
        }
    }
    return hit;
}

/* A text starting with '{' or '[' of pieces drawn from the bytes the cut
 * cares about and some words, up to max bytes. */
static size_t random_text(gs_rng *r, char *t, size_t max)
{
    static const char *const pieces[] = {"{", "}", "[", "]", "\"", "\\", "\\\\", "\\\"", "\n",
                                         " ", "abc", "xyzzy0123456789", ":", ",", "\"M\"",
                                         "\"cuda_runtime\"", "\"CUDA_RUNTIME\"", "\"Driver\"",
                                         "\"ac2g\"", "\"m\"", "\"drivers\"", "{\"k\":\"v\"}"};
    size_t n = 0, len = 1 + gs_rng_below(r, max - 16);
    t[n++] = gs_rng_below(r, 2) ? '{' : '[';
    while (n < len) {
        const char *p = pieces[gs_rng_below(r, sizeof pieces / sizeof pieces[0])];
        size_t k = strlen(p);
        if (n + k >= max)
            break;
        memcpy(t + n, p, k);
        n += k;
    }
    return n;
}

GS_TEST(import_cut_equals_bracket_scan)
{
    imp_cut_words W;
    imp_cut_words_init(&W, words, 4, 0xe);
    gs_rng r;
    gs_rng_seed(&r, 32);
    static char t[700];
    int cuts = 0, hits = 0, bad = 0;
    for (int it = 0; it < 20000 && bad < 5; it++) {
        size_t n = random_text(&r, t, it % 2 ? 120 : sizeof t);
        imp_win w;
        imp_win_mem(&w, t, n);
        const char *v;
        size_t vn = 0, used = 0;
        long vline = 0, lines = -1;
        int ok_ref = imp_win_value(&w, &v, &vn, &vline), hit = -1;
        int ok = imp_cut_value(t, t + n, &W, &used, &lines, &hit);
        int same = ok == ok_ref;
        if (same && ok)
            same = used == vn && lines == w.line - 1 && hit == ref_hit(t, used);
        if (!same) {
            bad++;
            GS_CHECK_MSG(0, "text %d (%zu bytes): cut %d %zu/%ld hit %d, scan %d %zu/%ld", it, n,
                         ok, used, lines, hit, ok_ref, vn, w.line - 1);
        }
        cuts += ok;
        hits += ok && hit;
    }
    /* the texts cover both answers */
    GS_CHECK(cuts > 2000 && hits > 500 && cuts - hits > 500);
}

GS_TEST(import_cut_words)
{
    imp_cut_words W;
    imp_cut_words_init(&W, words, 4, 0xe);
    static const struct {
        const char *text;
        int hit;
    } cases[] = {
        {"{\"ph\":\"M\"}", 1},
        {"{\"ph\":\"m\"}", 0},   /* "M" only in its case */
        {"{\"cat\":\"Cuda_Runtime\"}", 1},
        {"{\"cat\":\"cuda_runtime_x\"}", 0},
        {"{\"cat\":\"x\\ny\"}", 1},   /* a backslash may spell a word */
        {"{\"AC2G\":1}", 1},        /* keys are strings too */
        {"{\"a\":[\"driver\"]}", 1},
        {"{\"a\":\"}\",\"b\":\"driver\"}", 1},
        {"{\"a\":\"\\\"driver\"}", 1},
        {"{\"drive\":\"river\"}", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *t = cases[i].text;
        size_t used = 0;
        long lines;
        int hit = -1;
        GS_CHECK_MSG(imp_cut_value(t, t + strlen(t), &W, &used, &lines, &hit) == 1 &&
                         used == strlen(t) && hit == cases[i].hit,
                     "%s: used %zu hit %d", t, used, hit);
    }
}
