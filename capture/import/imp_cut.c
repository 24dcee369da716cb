/*
 * The end of one JSON object or array found 64 bytes at a time
 * (imp_internal.h): the cut imp_win_value makes, for a reader that wants
 * most values passed over, not read.  The Chrome importer's first pass
 * needs a few events of a trace (thread names, CUDA calls, flows) and
 * walked every event's members to find them: 1.5 s of a 1 GB trace.
 *
 * The cut is the same as imp_win.c's bracket scan, byte for byte, for
 * any input, JSON or not: brackets of either kind counted outside strings
 * (a '}' closes a '[' as well), a quote after an odd run of backslashes
 * escaped, a backslash outside a string nothing, and every '\n' from the
 * opening bracket to the closing one counted as a line.  Each string's
 * bytes are also matched against the caller's words (imp_cut_words);
 * *hit says whether one matched, or whether a string held a backslash
 * (an escape may spell a word: the caller reads such a value in full).
 *
 * How: per 64-byte block, bit masks of quotes, backslashes, brackets and
 * newlines (AVX2, else SSE2).  Without a backslash, which bytes lie inside strings is
 * the running parity of the quotes (a prefix XOR), so the brackets that
 * count are found without a byte loop, and the blocks where the depth
 * cannot reach zero are passed with two popcounts; the quotes are walked
 * one by one for the words.  A block with a backslash, and the last
 * bytes of the input, go byte by byte.
 */
#include <string.h>
#include <strings.h>
#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "imp_internal.h"

typedef struct {
    const imp_cut_words *W;
    int depth, in_str, hit;
    const char *str;         /* first byte of the string being read */
    const char *skip;        /* inside a string, a byte before this is escaped */
} cut;

/* s[0, n) (n of a word's lengths) is one of the words: its first and last
 * bytes first (most strings of a word's length are keys that differ). */
static int word_hit(const imp_cut_words *W, const char *s, size_t n)
{
    for (unsigned b = W->of_len[n]; b; b &= b - 1) {
        int i = __builtin_ctz(b), fold = W->fold >> i & 1;
        char m = fold ? ~0x20 : ~0;
        if (((s[0] ^ W->w[i][0]) & m) || ((s[n - 1] ^ W->w[i][n - 1]) & m))
            continue;
        if (fold ? !strncasecmp(s, W->w[i], n) : !memcmp(s, W->w[i], n))
            return 1;
    }
    return 0;
}

static inline void str_close(cut *c, const char *q)
{
    size_t n = (size_t)(q - c->str);
    c->in_str = 0;
    if (n < 32 && c->W->of_len[n] && !c->hit)
        c->hit = word_hit(c->W, c->str, n);
}

/* One byte that may matter at q; 1 when it closes the value. */
static int step(cut *c, const char *q)
{
    char ch = *q;
    if (c->in_str) {
        if (q < c->skip)
            return 0;
        if (ch == '\\') {
            c->skip = q + 2;
            c->hit = 1;
        } else if (ch == '"') {
            str_close(c, q);
        }
        return 0;
    }
    if (ch == '"') {
        c->in_str = 1;
        c->str = q + 1;
    } else if (ch == '{' || ch == '[') {
        c->depth++;
    } else if (ch == '}' || ch == ']') {
        return --c->depth == 0;
    }
    return 0;
}

/* Bytes [p, e) one by one: the offset past the closing bracket, or -1. */
static long bytes(cut *c, const char *p, const char *e)
{
    for (const char *q = p; q < e; q++) {
        char ch = *q;
        if ((ch == '"' || ch == '\\' || ch == '{' || ch == '[' || ch == '}' || ch == ']') &&
            step(c, q))
            return q + 1 - p;
    }
    return -1;
}

#if defined(__AVX2__)
#define VECS 2
typedef __m256i vec;
#define VLOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define VEQ(x, k) ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(k))))
#define VLOW(x) _mm256_or_si256(x, _mm256_set1_epi8(0x20))
#elif defined(__SSE2__)
#define VECS 4
typedef __m128i vec;
#define VLOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define VEQ(x, k) ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(k))))
#define VLOW(x) _mm_or_si128(x, _mm_set1_epi8(0x20))
#endif

#ifdef VECS
/* The 64 bytes at p as bit masks: quotes, backslashes, newlines, opening
 * and closing brackets ('{' and '[' differ only in bit 5, as '}' and ']'). */
typedef struct {
    uint64_t quote, bslash, lf, open, close;
} masks;

static void masks_of(masks *m, const char *p)
{
    *m = (masks){0, 0, 0, 0, 0};
    for (int i = 0; i < VECS; i++) {
        vec x = VLOAD(p + i * (64 / VECS)), low = VLOW(x);
        int sh = i * (64 / VECS);
        m->quote |= VEQ(x, '"') << sh;
        m->bslash |= VEQ(x, '\\') << sh;
        m->lf |= VEQ(x, '\n') << sh;
        m->open |= VEQ(low, '{') << sh;
        m->close |= VEQ(low, '}') << sh;
    }
}

/* A 64-byte block at p with no backslash: the offset past the closing
 * bracket, or -1 with the state carried on. */
static long block(cut *c, const char *p, uint64_t quote, uint64_t open, uint64_t close)
{
    uint64_t inside = quote;   /* bit i: odd quotes in [0, i], i.e. inside a string */
    inside ^= inside << 1;
    inside ^= inside << 2;
    inside ^= inside << 4;
    inside ^= inside << 8;
    inside ^= inside << 16;
    inside ^= inside << 32;
    if (c->in_str)
        inside = ~inside;
    open &= ~inside;
    close &= ~inside;
    long at = -1;
    if (close && __builtin_popcountll(close) >= c->depth) {
        for (uint64_t m = open | close; m; m &= m - 1) {
            int i = __builtin_ctzll(m);
            if (open >> i & 1) {
                c->depth++;
            } else if (--c->depth == 0) {
                at = i + 1;
                quote &= at == 64 ? ~0ull : (1ull << at) - 1;
                break;
            }
        }
    } else {
        c->depth += __builtin_popcountll(open) - __builtin_popcountll(close);
    }
    for (; quote; quote &= quote - 1) {
        const char *q = p + __builtin_ctzll(quote);
        if (c->in_str) {
            str_close(c, q);
        } else {
            c->in_str = 1;
            c->str = q + 1;
        }
    }
    return at;
}
#endif

int imp_cut_value(const char *text, const char *end, const imp_cut_words *W, size_t *used,
                  long *lines, int *hit)
{
    if (text >= end || (*text != '{' && *text != '['))
        return 0;
    cut c = {W, 0, 0, 0, NULL, text};
    const char *p = text;
    long nl = 0, at = -1;
#ifdef VECS
    for (; end - p >= 64; p += 64) {
        masks m;
        masks_of(&m, p);
        if (m.bslash || p < c.skip)
            at = bytes(&c, p, p + 64);
        else
            at = block(&c, p, m.quote, m.open, m.close);
        if (at >= 0) {
            *used = (size_t)(p + at - text);
            *lines = nl + __builtin_popcountll(m.lf & (at == 64 ? ~0ull : (1ull << at) - 1));
            *hit = c.hit;
            return 1;
        }
        nl += __builtin_popcountll(m.lf);
    }
#endif
    if ((at = bytes(&c, p, end)) < 0)
        return 0;
    for (const char *q = p; (q = memchr(q, '\n', (size_t)(p + at - q))); q++)
        nl++;
    *used = (size_t)(p + at - text);
    *lines = nl;
    *hit = c.hit;
    return 1;
}

void imp_cut_words_init(imp_cut_words *W, const char *const *words, int n, unsigned fold)
{
    W->w = words;
    W->n = n < IMP_CUT_WORDS ? n : IMP_CUT_WORDS;
    W->fold = fold;
    memset(W->of_len, 0, sizeof W->of_len);
    for (int i = 0; i < W->n; i++) {
        size_t len = strlen(words[i]);
        if (len && len < 32)
            W->of_len[len] |= (uint16_t)(1u << i);
    }
}
