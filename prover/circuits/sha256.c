/*
 * SHA-256 (FIPS 180-4), natively and as an R1CS gadget, for the porep_sha
 * circuit family: the boolean-heavy part that makes its witness look like
 * a PoRep witness (almost every wire a bit).
 *
 * Gadget representation: a bit is a wire (optionally negated: 1 - w) or a
 * constant; a word is 32 bits, least significant first, with its native
 * value alongside (the witness; zero in shape mode, where nothing may
 * depend on values: every decision below depends on which bits are
 * constant, never on their values).  Costs (constraints):
 *   xor of two wires        1   (2a) * b = a + b - r
 *   ch(e, f, g)             1   e * (f - g) = r - g
 *   maj(a, b, c)            2   a * b = t;  c * (a + b - 2t) = r - t
 *   rotations, shifts       0   (bits renamed; constants folded)
 *   sum of k words + K      2 per operand half not yet packed (16-bit
 *                           halves packed into one wire each, kept with the
 *                           word), one booleanity constraint per result bit
 *                           (32 + carry bits), 2 for the sum itself
 * About 28,000 constraints per compression with a variable message, 20,000
 * with a constant one (the padding block: its schedule folds away); one
 * SHA-256 of 64 bytes (two compressions) about 48,000, nearly all bits.
 * Linear combinations stay under CS_LC_MAX (24 terms) by packing in 16-bit
 * halves.
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/sha256.h"
#include "circuits_internal.h"

/* The padding block of a 64-byte message, in words. */
static void pad_words(uint32_t m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = 0x80000000u;
    m[15] = 512;
}

void gs_sha256_64(uint8_t out[32], const uint8_t in[64])
{
    gs_sha256_buf(out, in, 64);
}

void gs_sha256_to_fr(gs_fr *out, const uint8_t digest[32])
{
    /* Little-endian bytes, the top two bits of the last byte cleared (254 bits < r). */
    gs_scalar x;
    memset(&x, 0, sizeof x);
    for (int j = 0; j < 32; j++) {
        uint64_t byte = digest[j];
        if (j == 31)
            byte &= 0x3f;
        x.l[j / 8] |= byte << (8 * (j % 8));
    }
    gs_fr_from_scalar(out, &x);
}

/* ---- the gadget ----------------------------------------------------------- */

typedef struct {
    uint32_t wire;
    uint8_t is_const, neg, val;
} sbit;

typedef struct {
    sbit b[32];
    uint32_t v;                /* native value (witness; 0 in shape mode) */
    int packed;                /* lo, hi: the 16-bit halves as wires */
    uint32_t lo, hi;
} sword;

static void fr_small(gs_fr *out, uint64_t v)
{
    gs_fr_set_u64(out, v);
}

static sbit bit_const(int v)
{
    sbit b = {0, 1, 0, (uint8_t)(v & 1)};
    return b;
}

static sbit bit_alloc(cs *s, int v)
{
    gs_fr f;
    fr_small(&f, (uint64_t)(v & 1));
    sbit b = {cs_alloc(s, &f), 0, 0, (uint8_t)(v & 1)};
    return b;
}

/* out = the bit as a linear combination (1 - w when negated). */
static void bit_lc(cs *s, cs_lc *out, sbit b)
{
    gs_fr one;
    gs_fr_one(&one);
    if (b.is_const) {
        gs_fr k;
        fr_small(&k, b.val);
        lc_const(out, &k);
        return;
    }
    cs_lc w;
    lc_wire(&w, s, b.wire);
    if (!b.neg) {
        *out = w;
        return;
    }
    lc_const(out, &one);
    lc_sub(s, out, &w);
}

/* out += k * bit. */
static void lc_add_bit(cs *s, cs_lc *out, sbit b, const gs_fr *k)
{
    cs_lc t;
    bit_lc(s, &t, b);
    lc_add_scaled(s, out, &t, k);
}

static void enforce_bool(cs *s, sbit b)
{
    cs_lc l;
    bit_lc(s, &l, b);
    cs_enforce(s, &l, &l, &l);
}

static sbit xor2(cs *s, sbit a, sbit b)
{
    if (a.is_const && b.is_const)
        return bit_const(a.val ^ b.val);
    if (a.is_const || b.is_const) {
        sbit w = a.is_const ? b : a, k = a.is_const ? a : b;
        w.neg ^= k.val;
        w.val ^= k.val;
        return w;
    }
    if (a.wire == b.wire)
        return bit_const(a.neg ^ b.neg);
    sbit r = bit_alloc(s, a.val ^ b.val);
    cs_lc la, lb, lr, two_a, rhs;
    gs_fr two;
    fr_small(&two, 2);
    bit_lc(s, &la, a);
    bit_lc(s, &lb, b);
    bit_lc(s, &lr, r);
    lc_zero(&two_a);
    lc_add_scaled(s, &two_a, &la, &two);
    rhs = la;
    lc_add(s, &rhs, &lb);
    lc_sub(s, &rhs, &lr);
    cs_enforce(s, &two_a, &lb, &rhs);
    return r;
}

static sbit ch(cs *s, sbit e, sbit f, sbit g)
{
    if (e.is_const)
        return e.val ? f : g;
    if (f.is_const && g.is_const && f.val == g.val)
        return f;
    sbit r = bit_alloc(s, e.val ? f.val : g.val);
    cs_lc le, lf, lg, lr;
    bit_lc(s, &le, e);
    bit_lc(s, &lf, f);
    bit_lc(s, &lg, g);
    bit_lc(s, &lr, r);
    lc_sub(s, &lf, &lg);
    lc_sub(s, &lr, &lg);
    cs_enforce(s, &le, &lf, &lr);
    return r;
}

static sbit maj(cs *s, sbit a, sbit b, sbit c)
{
    if (a.is_const && b.is_const && c.is_const)
        return bit_const((a.val & b.val) | (a.val & c.val) | (b.val & c.val));
    sbit t = bit_alloc(s, a.val & b.val);
    sbit r = bit_alloc(s, (a.val & b.val) | (a.val & c.val) | (b.val & c.val));
    cs_lc la, lb, lc, lt, lr, sum;
    gs_fr m2;
    fr_small(&m2, 2);
    gs_fr_neg(&m2, &m2);
    bit_lc(s, &la, a);
    bit_lc(s, &lb, b);
    bit_lc(s, &lc, c);
    bit_lc(s, &lt, t);
    bit_lc(s, &lr, r);
    cs_enforce(s, &la, &lb, &lt);
    sum = la;
    lc_add(s, &sum, &lb);
    lc_add_scaled(s, &sum, &lt, &m2);
    lc_sub(s, &lr, &lt);
    cs_enforce(s, &lc, &sum, &lr);
    return r;
}

static void word_const(sword *w, uint32_t v)
{
    memset(w, 0, sizeof *w);
    for (int i = 0; i < 32; i++)
        w->b[i] = bit_const((int)((v >> i) & 1));
    w->v = v;
}

static int word_is_const(const sword *w)
{
    for (int i = 0; i < 32; i++)
        if (!w->b[i].is_const)
            return 0;
    return 1;
}

static uint32_t word_val(const sword *w)
{
    uint32_t v = 0;
    for (int i = 0; i < 32; i++)
        v |= (uint32_t)w->b[i].val << i;
    return v;
}

/* x rotated right by r, shifted right by sh (sh = 0: rotation only). */
static void word_rot(sword *out, const sword *x, unsigned r, int shift)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < 32; i++) {
        unsigned j = i + r;
        if (shift)
            out->b[i] = j < 32 ? x->b[j] : bit_const(0);
        else
            out->b[i] = x->b[j % 32];
    }
    out->v = word_val(out);
}

static void word_xor3(cs *s, sword *out, const sword *a, const sword *b, const sword *c)
{
    sword r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < 32; i++)
        r.b[i] = xor2(s, xor2(s, a->b[i], b->b[i]), c->b[i]);
    r.v = word_val(&r);
    *out = r;
}

/* Sigma functions: rotations (rotr) / shifts (shr) of one word, xored. */
static void word_sigma(cs *s, sword *out, const sword *x, unsigned r1, unsigned r2, unsigned r3,
                       int shift3)
{
    sword a, b, c;
    word_rot(&a, x, r1, 0);
    word_rot(&b, x, r2, 0);
    word_rot(&c, x, r3, shift3);
    word_xor3(s, out, &a, &b, &c);
}

/* Packs w's 16-bit halves into one wire each (once per word). */
static void word_pack(cs *s, sword *w)
{
    if (w->packed)
        return;
    gs_fr one, p;
    gs_fr_one(&one);
    cs_lc one_lc;
    lc_const(&one_lc, &one);
    uint32_t *dst[2] = {&w->lo, &w->hi};
    for (int h = 0; h < 2; h++) {
        cs_lc sum, out;
        lc_zero(&sum);
        for (int i = 0; i < 16; i++) {
            fr_small(&p, (uint64_t)1 << i);
            lc_add_bit(s, &sum, w->b[16 * h + i], &p);
        }
        fr_small(&p, (w->v >> (16 * h)) & 0xffff);
        *dst[h] = cs_alloc(s, &p);
        lc_wire(&out, s, *dst[h]);
        cs_enforce(s, &sum, &one_lc, &out);
    }
    w->packed = 1;
}

/* out = (ops[0] + ... + ops[k-1] + K) mod 2^32; constant operands fold
 * into K, the others are packed (cached in the operand). */
static void word_addmany(cs *s, sword *out, sword **ops, int k, uint32_t K)
{
    uint64_t kk = K, native = K, maxsum = K;
    int vars = 0;
    for (int i = 0; i < k; i++) {
        native += ops[i]->v;
        if (word_is_const(ops[i])) {
            kk += word_val(ops[i]);
            maxsum += word_val(ops[i]);
        } else {
            vars++;
            maxsum += 0xffffffffu;
        }
    }
    if (vars == 0) {
        word_const(out, (uint32_t)kk);
        return;
    }
    gs_fr one, p16, p, kf;
    gs_fr_one(&one);
    fr_small(&p16, 1u << 16);
    cs_lc sum, one_lc;
    lc_const(&one_lc, &one);
    fr_small(&kf, kk);
    lc_const(&sum, &kf);
    for (int i = 0; i < k; i++) {
        if (word_is_const(ops[i]))
            continue;
        word_pack(s, ops[i]);
        cs_lc lo, hi;
        lc_wire(&lo, s, ops[i]->lo);
        lc_wire(&hi, s, ops[i]->hi);
        lc_add(s, &sum, &lo);
        lc_add_scaled(s, &sum, &hi, &p16);
    }
    int nbits = 0;
    while (nbits < 64 && (maxsum >> nbits) != 0)
        nbits++;
    sword r;
    memset(&r, 0, sizeof r);
    sbit bits[64];
    for (int i = 0; i < nbits; i++) {
        bits[i] = bit_alloc(s, (int)((native >> i) & 1));
        enforce_bool(s, bits[i]);
    }
    /* High part (bits 16..) into one wire, then sum = low bits + 2^16 high. */
    cs_lc hi_lc, rhs, hw;
    lc_zero(&hi_lc);
    for (int i = 16; i < nbits; i++) {
        fr_small(&p, (uint64_t)1 << (i - 16));
        lc_add_bit(s, &hi_lc, bits[i], &p);
    }
    fr_small(&p, native >> 16);
    lc_wire(&hw, s, cs_alloc(s, &p));
    cs_enforce(s, &hi_lc, &one_lc, &hw);
    lc_zero(&rhs);
    for (int i = 0; i < 16; i++) {
        fr_small(&p, (uint64_t)1 << i);
        lc_add_bit(s, &rhs, bits[i], &p);
    }
    lc_add_scaled(s, &rhs, &hw, &p16);
    cs_enforce(s, &sum, &one_lc, &rhs);
    for (int i = 0; i < 32; i++)
        r.b[i] = bits[i];
    r.v = (uint32_t)native;
    *out = r;
}

/* st = compress(st, m) in the circuit (st, m: 8 and 16 words). */
static void gadget_compress(cs *s, sword st[8], sword m[16])
{
    sword *w = malloc(64 * sizeof *w);
    if (!w) {
        s->st = GS_ERR_NOMEM;
        s->why = "SHA-256 schedule";
        return;
    }
    for (int t = 0; t < 16; t++)
        w[t] = m[t];
    for (int t = 16; t < 64; t++) {
        sword s0, s1;
        word_sigma(s, &s0, &w[t - 15], 7, 18, 3, 1);
        word_sigma(s, &s1, &w[t - 2], 17, 19, 10, 1);
        sword *ops[4] = {&w[t - 16], &s0, &w[t - 7], &s1};
        word_addmany(s, &w[t], ops, 4, 0);
    }
    sword a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    for (int t = 0; t < 64; t++) {
        sword S1, S0, chw, mjw, ne, na;
        word_sigma(s, &S1, &e, 6, 11, 25, 0);
        word_sigma(s, &S0, &a, 2, 13, 22, 0);
        memset(&chw, 0, sizeof chw);
        memset(&mjw, 0, sizeof mjw);
        for (int i = 0; i < 32; i++) {
            chw.b[i] = ch(s, e.b[i], f.b[i], g.b[i]);
            mjw.b[i] = maj(s, a.b[i], b.b[i], c.b[i]);
        }
        chw.v = word_val(&chw);
        mjw.v = word_val(&mjw);
        sword *ope[5] = {&d, &h, &S1, &chw, &w[t]};
        word_addmany(s, &ne, ope, 5, gs_sha256_k[t]);
        sword *opa[6] = {&h, &S1, &chw, &w[t], &S0, &mjw};
        word_addmany(s, &na, opa, 6, gs_sha256_k[t]);
        h = g; g = f; f = e; e = ne;
        d = c; c = b; b = a; a = na;
    }
    sword fin[8] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; i++) {
        sword *ops[2] = {&st[i], &fin[i]};
        sword r;
        word_addmany(s, &r, ops, 2, 0);
        st[i] = r;
    }
    free(w);
}

/*
 * SHA-256 of the 64-byte message whose bit k (bit k % 8 of byte k / 8) is
 * wire msg_wire0 + k (the caller allocated and constrained them as bits),
 * packed into one field element as gs_sha256_to_fr does: *out.
 */
void gs_sha256_gadget_64_to_fr(cs *s, cs_lc *out, uint32_t msg_wire0)
{
    sword st[8], m[16];
    for (int i = 0; i < 8; i++)
        word_const(&st[i], gs_sha256_iv[i]);
    /* Word t = bytes 4t .. 4t+3 big-endian: its bit i is bit i % 8 of byte 4t + 3 - i / 8. */
    for (int t = 0; t < 16; t++) {
        memset(&m[t], 0, sizeof m[t]);
        for (int i = 0; i < 32; i++) {
            uint32_t k = 8 * (uint32_t)(4 * t + 3 - i / 8) + (uint32_t)(i % 8);
            uint32_t wire = msg_wire0 + k;
            int v = 0;
            if (s->witness && wire < s->w_cap)
                v = !gs_fr_is_zero(&s->w[wire]);
            m[t].b[i] = (sbit){wire, 0, 0, (uint8_t)v};
        }
        m[t].v = word_val(&m[t]);
    }
    gadget_compress(s, st, m);
    uint32_t pad[16];
    pad_words(pad);
    for (int t = 0; t < 16; t++)
        word_const(&m[t], pad[t]);
    gadget_compress(s, st, m);
    /* Digest byte j = byte (j % 4) (big-endian) of word j / 4; little-endian
     * integer bit 8j + i; 254 bits in chunks of 16 packed into wires. */
    gs_fr one, p;
    gs_fr_one(&one);
    cs_lc one_lc;
    lc_const(&one_lc, &one);
    lc_zero(out);
    for (int chunk = 0; chunk < 16; chunk++) {
        cs_lc sum, cw;
        lc_zero(&sum);
        uint64_t val = 0;
        for (int q = 0; q < 16; q++) {
            int k = 16 * chunk + q;
            if (k >= 254)
                break;
            int j = k / 8, i = k % 8;
            sbit b = st[j / 4].b[24 - 8 * (j % 4) + i];
            fr_small(&p, (uint64_t)1 << q);
            lc_add_bit(s, &sum, b, &p);
            val |= (uint64_t)b.val << q;
        }
        fr_small(&p, val);
        lc_wire(&cw, s, cs_alloc(s, &p));
        cs_enforce(s, &sum, &one_lc, &cw);
        /* out += 2^(16 chunk) * chunk wire */
        gs_fr pw;
        gs_fr_one(&pw);
        for (int z = 0; z < 16 * chunk; z++)
            gs_fr_dbl(&pw, &pw);
        lc_add_scaled(s, out, &cw, &pw);
    }
}
