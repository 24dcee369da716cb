/*
 * Key loading with remembered checks (gs_zkey_load, keyrec.c): a key is
 * checked once per content digest; a point outside its subgroup is refused
 * on first use and after the file changes (same size and mtime included),
 * naming the file and the byte offset; stale, edited, renamed or foreign
 * records never let a changed key through; an unwritable record directory
 * only costs the checks; the streaming reader takes sections in any order.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../test/test.h"
#include "../../common/sha256.h"
#include "io.h"
#include "test_io_util.h"

static const char *rec_dir(const char *name)
{
    static char b[1024];
    snprintf(b, sizeof b, "%s/%s", gs_test_tmpdir(), name);
    return b;
}

static gs_status load(const char *path, gs_zkey_check check, const char *dir, gs_zkey_info *info,
                      gs_err *e)
{
    gs_pk pk;
    gs_zkey_opts o = {check, dir};
    gs_err_clear(e);
    gs_status s = gs_zkey_load(&pk, info, path, &o, NULL, e);
    if (s == GS_OK)
        gs_pk_free(&pk);
    return s;
}

/* An on-curve point outside G1: P + (0, 2), (0, 2) being of order 3. */
static void g1_off_subgroup(gs_g1_affine *p)
{
    gs_g1_affine t;
    gs_g1 a;
    gs_fp_zero(&t.x);
    gs_fp_one(&t.y);
    gs_fp_add(&t.y, &t.y, &t.y);
    t.inf = 0;
    gs_g1_from_affine(&a, p);
    gs_g1_add_affine(&a, &a, &t);
    gs_g1_to_affine(p, &a);
}

/* A random point of E'(Fp2): y^2 = x^3 + 4(1 + u) (outside G2 but with
 * probability 1/h2). */
static void g2_random_curve_point(gs_g2_affine *p, gs_rng *rng)
{
    gs_fp2 b, rhs;
    gs_fp_one(&b.c0);
    gs_fp_add(&b.c0, &b.c0, &b.c0);
    gs_fp_add(&b.c0, &b.c0, &b.c0);
    b.c1 = b.c0;
    do {
        gs_fp2_random(&p->x, rng);
        gs_fp2_sqr(&rhs, &p->x);
        gs_fp2_mul(&rhs, &rhs, &p->x);
        gs_fp2_add(&rhs, &rhs, &b);
    } while (!gs_fp2_sqrt(&p->y, &rhs));
    p->inf = 0;
}

static size_t first_finite_g1(const gs_g1_affine *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!a[i].inf)
            return i;
    return n;
}

/* Writes the fixture's key as we write keys, optionally damaged: which = 0
 * good, 1 an A point (index in *idx), 2 a B2 point, 3 delta_1. */
static int write_key(const char *path, int which, size_t *idx, gs_rng *rng)
{
    gs_pk pk;
    gs_err e;
    gs_err_clear(&e);
    if (gs_zkey_read(&pk, fixture("chain.zkey"), GS_IO_TRUST_POINTS, NULL, &e) != GS_OK)
        return 0;
    size_t i = first_finite_g1(pk.a, pk.n_vars) + 1;
    i = first_finite_g1(pk.a + i, pk.n_vars - i) + i;    /* the second finite A point */
    if (which == 1) {
        g1_off_subgroup(&pk.a[i]);
    } else if (which == 2) {
        i = 0;
        while (i < pk.n_vars && pk.b2[i].inf)
            i++;
        i++;
        while (i < pk.n_vars && pk.b2[i].inf)
            i++;
        g2_random_curve_point(&pk.b2[i], rng);
    } else if (which == 3) {
        g1_off_subgroup(&pk.delta1);
    }
    if (idx)
        *idx = i;
    int ok = gs_zkey_write(path, &pk, &e) == GS_OK;
    gs_pk_free(&pk);
    return ok;
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* 1 when two proving keys have the same shape and the same points (delta2,
 * A, B1, B2, C, IC, H) and coefficients. */
static int pk_same(const gs_pk *a, const gs_pk *b)
{
    if (a->n_vars != b->n_vars || a->n_public != b->n_public || a->domain_size != b->domain_size ||
        a->n_coefs != b->n_coefs || !gs_g2_affine_eq(&a->delta2, &b->delta2))
        return 0;
    int same = 1;
    for (uint32_t i = 0; i < a->n_vars; i++)
        same &= gs_g1_affine_eq(&a->a[i], &b->a[i]) && gs_g1_affine_eq(&a->b1[i], &b->b1[i]) &&
                gs_g2_affine_eq(&a->b2[i], &b->b2[i]);
    for (uint32_t i = 0; i + a->n_public + 1 < a->n_vars; i++)
        same &= gs_g1_affine_eq(&a->c[i], &b->c[i]);
    for (uint32_t i = 0; i <= a->n_public; i++)
        same &= gs_g1_affine_eq(&a->ic[i], &b->ic[i]);
    for (uint32_t i = 0; i < a->domain_size; i++)
        same &= gs_g1_affine_eq(&a->h[i], &b->h[i]);
    for (size_t i = 0; i < a->n_coefs; i++)
        same &= a->coefs[i].matrix == b->coefs[i].matrix && a->coefs[i].row == b->coefs[i].row &&
                a->coefs[i].wire == b->coefs[i].wire &&
                gs_fr_eq(&a->coefs[i].value, &b->coefs[i].value);
    return same;
}

GS_TEST(io_keyrec_checks_once_per_digest)
{
    const char *dir = rec_dir("rec"), *key = tmp_path("k.zkey");
    unsigned char *d;
    size_t len;
    GS_REQUIRE(read_file(fixture("chain.zkey"), &d, &len) && write_file(key, d, len));
    free(d);
    gs_zkey_info in;
    gs_err e;
    GS_REQUIRE(load(key, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK);
    GS_CHECK(in.checked && in.record_written && !in.record_found);
    char hex[65];
    GS_REQUIRE(gs_sha256_file(hex, key, &e) == GS_OK);
    GS_CHECK_MSG(!strcmp(hex, in.sha256), "digest %s, sha256 of the file %s", in.sha256, hex);
    GS_CHECK_EQ_INT(in.size, len);
    GS_CHECK_EQ_INT(in.points, 6 + 3 + 103 * 3 + (103 - 3) + 128);   /* IC, A, B1, B2, C, H */
    GS_CHECK(strstr(in.record_path, hex) && file_exists(in.record_path));
    /* Second use: the record; forced: the checks; trusted: neither. */
    GS_REQUIRE(load(key, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK);
    GS_CHECK(!in.checked && in.record_found);
    GS_REQUIRE(load(key, GS_ZKEY_CHECK_FORCE, dir, &in, &e) == GS_OK);
    GS_CHECK(in.checked && !in.record_found && in.record_written);
    GS_REQUIRE(load(key, GS_ZKEY_CHECK_SKIP, dir, &in, &e) == GS_OK);
    GS_CHECK(!in.checked && !in.record_found && !in.record_written);
    /* No record directory: checks every time, nothing written. */
    GS_REQUIRE(load(key, GS_ZKEY_CHECK_AUTO, "", &in, &e) == GS_OK);
    GS_CHECK(in.checked && !in.record_written && !in.record_found);
}

GS_TEST(io_keyrec_bad_point_refused_on_first_use_and_after_change)
{
    gs_rng *rng = gs_test_rng();
    const char *dir = rec_dir("rec"), *key = tmp_path("k.zkey");
    gs_zkey_info in;
    gs_err e;
    size_t i;
    char want[128];
    /* First use of a bad key. */
    GS_REQUIRE(write_key(key, 1, &i, rng));
    GS_CHECK_EQ_INT(load(key, GS_ZKEY_CHECK_AUTO, dir, &in, &e), GS_ERR_POINT);
    snprintf(want, sizeof want, "k.zkey@%ld", section_offset(key, 5) + (long)i * 96);
    GS_CHECK_MSG(strstr(e.msg, want) && strstr(e.msg, "A point") &&
                 strstr(e.msg, "not in the prime-order subgroup"), "%s (want %s)", e.msg, want);
    GS_CHECK(!in.record_written);
    /* The good key, recorded; then the bad one written over it with the good
     * one's size and mtime: the digest differs, so the checks run again. */
    GS_REQUIRE(write_key(key, 0, NULL, rng));
    GS_REQUIRE(load(key, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK && in.record_written);
    struct stat good;
    GS_REQUIRE(stat(key, &good) == 0);
    GS_REQUIRE(write_key(key, 1, &i, rng));
    struct timespec ts[2] = {good.st_atim, good.st_mtim};
    GS_REQUIRE(utimensat(AT_FDCWD, key, ts, 0) == 0);
    struct stat bad;
    GS_REQUIRE(stat(key, &bad) == 0);
    GS_CHECK(bad.st_size == good.st_size && bad.st_mtim.tv_sec == good.st_mtim.tv_sec &&
             bad.st_mtim.tv_nsec == good.st_mtim.tv_nsec);
    for (int rep = 0; rep < 2; rep++) {   /* and a failure is never remembered */
        GS_CHECK_EQ_INT(load(key, GS_ZKEY_CHECK_AUTO, dir, &in, &e), GS_ERR_POINT);
        GS_CHECK_MSG(strstr(e.msg, want) && !in.record_found, "%s", e.msg);
    }
    /* A G2 point (B2) and a header point. */
    GS_REQUIRE(write_key(key, 2, &i, rng));
    GS_CHECK_EQ_INT(load(key, GS_ZKEY_CHECK_AUTO, dir, &in, &e), GS_ERR_POINT);
    snprintf(want, sizeof want, "k.zkey@%ld", section_offset(key, 7) + (long)i * 192);
    GS_CHECK_MSG(strstr(e.msg, want) && strstr(e.msg, "B2 point"), "%s (want %s)", e.msg, want);
    GS_REQUIRE(write_key(key, 3, NULL, rng));
    GS_CHECK_EQ_INT(load(key, GS_ZKEY_CHECK_AUTO, dir, &in, &e), GS_ERR_POINT);
    GS_CHECK_MSG(strstr(e.msg, "delta_1") && strstr(e.msg, "k.zkey@"), "%s", e.msg);
    /* --trusted-key does take it (curve equations only). */
    GS_CHECK_EQ_INT(load(key, GS_ZKEY_CHECK_SKIP, dir, &in, &e), GS_OK);
}

/* Off-curve points: the first use with a record directory checks the curve
 * equation after the digest (zkey.c), the forced check while decoding; both
 * name the same point with the same message, in every point section, also
 * when a record exists for the unchanged key and when two sections hold a
 * bad point (the first in the file is named). */
GS_TEST(io_keyrec_deferred_curve_check_names_the_same_point)
{
    const char *dir = rec_dir("rec_curve");
    gs_zkey_info in;
    gs_err e1, e2;
    GS_REQUIRE(load(fixture("chain.zkey"), GS_ZKEY_CHECK_AUTO, dir, &in, &e1) == GS_OK);
    GS_REQUIRE(load(fixture("chain.zkey"), GS_ZKEY_CHECK_AUTO, dir, &in, &e1) == GS_OK &&
               in.record_found);
    static const unsigned types[] = {3, 5, 6, 7, 8, 9};
    long first_bad = -1;
    unsigned char *d;
    size_t len;
    GS_REQUIRE(read_file(fixture("chain.zkey"), &d, &len));
    char name[32];
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        size_t unit = types[t] == 7 ? 192 : 96;
        long at = section_offset("chain.zkey", types[t]), pt = -1;
        GS_REQUIRE(at > 0);
        for (long i = 0; i < 40 && pt < 0; i++) {      /* a finite point */
            int zero = 1;
            for (size_t k = 0; k < unit; k++)
                zero &= d[at + i * (long)unit + (long)k] == 0;
            if (!zero)
                pt = at + i * (long)unit;
        }
        GS_REQUIRE(pt > 0);
        if (types[t] == 8)
            first_bad = pt + 48;
        snprintf(name, sizeof name, "curve%u.zkey", types[t]);
        const char *p = mutate("chain.zkey", name, 0, pt + (long)unit / 2, 0x01); /* y's low byte */
        GS_CHECK_EQ_INT(load(p, GS_ZKEY_CHECK_FORCE, "", &in, &e1), GS_ERR_POINT);
        GS_CHECK_EQ_INT(load(p, GS_ZKEY_CHECK_AUTO, dir, &in, &e2), GS_ERR_POINT);
        GS_CHECK(!in.record_found && !in.record_written);
        char want[64];
        snprintf(want, sizeof want, "%s@%ld", name, pt);
        GS_CHECK_MSG(strstr(e1.msg, want) && strstr(e1.msg, "not on the curve"), "%s (want %s)",
                     e1.msg, want);
        GS_CHECK_MSG(!strcmp(e1.msg, e2.msg), "inline: %s; deferred: %s", e1.msg, e2.msg);
    }
    free(d);
    /* Bad points in C and in H: C comes first in the file. */
    GS_REQUIRE(first_bad > 0);
    char two[1024];
    snprintf(two, sizeof two, "%s", tmp_path("curve89.zkey"));
    GS_REQUIRE(read_file(tmp_path("curve9.zkey"), &d, &len));
    d[first_bad] ^= 0x01;
    GS_REQUIRE(write_file(two, d, len));
    free(d);
    GS_CHECK_EQ_INT(load(two, GS_ZKEY_CHECK_AUTO, dir, &in, &e2), GS_ERR_POINT);
    GS_CHECK_EQ_INT(load(two, GS_ZKEY_CHECK_FORCE, "", &in, &e1), GS_ERR_POINT);
    GS_CHECK_MSG(!strcmp(e1.msg, e2.msg) && strstr(e2.msg, "section 8"), "%s / %s", e1.msg, e2.msg);
}

/* Rewrites a text file with every `from` replaced by `to` (same length). */
static int edit_file(const char *src, const char *dst, const char *from, const char *to)
{
    unsigned char *d;
    size_t len, fl = strlen(from);
    if (!read_file(src, &d, &len))
        return 0;
    for (size_t k = 0; k + fl <= len; k++)
        if (!memcmp(d + k, from, fl))
            memcpy(d + k, to, fl);
    int ok = write_file(dst, d, len);
    free(d);
    return ok;
}

GS_TEST(io_keyrec_stale_or_tampered_record_is_refused)
{
    gs_rng *rng = gs_test_rng();
    const char *dir = rec_dir("rec");
    char good[1024], bad[1024], rg[2300], rb[2300], dg[65], db[65];
    snprintf(good, sizeof good, "%s", tmp_path("good.zkey"));
    snprintf(bad, sizeof bad, "%s", tmp_path("bad.zkey"));
    gs_zkey_info in;
    gs_err e;
    GS_REQUIRE(write_key(good, 0, NULL, rng) && write_key(bad, 1, NULL, rng));
    GS_REQUIRE(load(good, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK && in.record_written);
    snprintf(rg, sizeof rg, "%s", in.record_path);
    snprintf(dg, sizeof dg, "%s", in.sha256);
    GS_REQUIRE(gs_sha256_file(db, bad, &e) == GS_OK);
    snprintf(rb, sizeof rb, "%s/%s.rec", dir, db);
    /* The good key's record copied under the bad key's name. */
    unsigned char *d;
    size_t len;
    GS_REQUIRE(read_file(rg, &d, &len) && write_file(rb, d, len));
    free(d);
    GS_CHECK_EQ_INT(load(bad, GS_ZKEY_CHECK_AUTO, dir, &in, &e), GS_ERR_POINT);
    GS_CHECK_MSG(strstr(in.record_note, "does not describe"), "note: %s", in.record_note);
    /* ... with its digest edited to the bad key's: the MAC refuses it. */
    GS_REQUIRE(edit_file(rg, rb, dg, db));
    GS_CHECK_EQ_INT(load(bad, GS_ZKEY_CHECK_AUTO, dir, &in, &e), GS_ERR_POINT);
    GS_CHECK_MSG(strstr(in.record_note, "authentication"), "note: %s", in.record_note);
    /* ... with a size changed, or from another checker method. */
    GS_REQUIRE(edit_file(rg, tmp_path("r.tmp"), "method subgroup-g1g2 sgb64-v1",
                         "method subgroup-g1g2 sgb32-v0") && rename(tmp_path("r.tmp"), rg) == 0);
    GS_REQUIRE(load(good, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK);
    GS_CHECK(in.checked && !in.record_found && in.record_written);   /* renewed */
    GS_REQUIRE(load(good, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK);
    GS_CHECK(in.record_found);
    /* Another secret: every record so far is refused, then renewed. */
    char sec[2300];
    snprintf(sec, sizeof sec, "%s/.secret", dir);
    unsigned char other[32];
    gs_rng_bytes(rng, other, sizeof other);
    GS_REQUIRE(write_file(sec, other, sizeof other));
    GS_REQUIRE(load(good, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK);
    GS_CHECK(in.checked && !in.record_found && strstr(in.record_note, "authentication"));
    GS_REQUIRE(load(good, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK);
    GS_CHECK(in.record_found);
    /* A directory others may write: records are not trusted there. */
    GS_REQUIRE(chmod(dir, 0777) == 0);
    GS_REQUIRE(load(good, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK);
    GS_CHECK_MSG(in.checked && !in.record_found && !in.record_written &&
                 strstr(in.record_note, "only it can write"), "note: %s", in.record_note);
    GS_REQUIRE(chmod(dir, 0700) == 0);
}

GS_TEST(io_keyrec_unwritable_directory_still_loads)
{
    const char *file = tmp_path("plain"), *key = fixture("chain.zkey");
    GS_REQUIRE(write_file(file, (const unsigned char *)"x", 1));
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/keys", file);     /* its parent is a regular file */
    gs_zkey_info in;
    gs_err e;
    GS_REQUIRE(load(key, GS_ZKEY_CHECK_AUTO, dir, &in, &e) == GS_OK);
    GS_CHECK(in.checked && !in.record_written);
    GS_CHECK_MSG(strstr(in.record_note, "cannot create"), "note: %s", in.record_note);
}

GS_TEST(io_keyrec_default_directory)
{
    char *save[3];
    const char *names[3] = {"GAPSCOPE_KEY_RECORDS", "XDG_CACHE_HOME", "HOME"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        save[i] = v ? strdup(v) : NULL;
    }
    char d[512];
    setenv("HOME", "/home/u", 1);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("GAPSCOPE_KEY_RECORDS");
    gs_keyrec_default_dir(d, sizeof d);
    GS_CHECK(!strcmp(d, "/home/u/.cache/gapscope/keys"));
    setenv("XDG_CACHE_HOME", "/c", 1);
    gs_keyrec_default_dir(d, sizeof d);
    GS_CHECK(!strcmp(d, "/c/gapscope/keys"));
    setenv("GAPSCOPE_KEY_RECORDS", "/r", 1);
    gs_keyrec_default_dir(d, sizeof d);
    GS_CHECK(!strcmp(d, "/r"));
    setenv("GAPSCOPE_KEY_RECORDS", "off", 1);
    gs_keyrec_default_dir(d, sizeof d);
    GS_CHECK(!strcmp(d, ""));
    for (int i = 0; i < 3; i++) {
        if (save[i])
            setenv(names[i], save[i], 1);
        else
            unsetenv(names[i]);
        free(save[i]);
    }
}

/* The streaming reader takes sections in file order, whatever it is: the
 * fixture with its header section moved to the end reads as the same key
 * (the counts checked once the header arrives), and its digest is the new
 * file's; a point section that disagrees with the late header is refused. */
GS_TEST(io_zkey_sections_in_any_order)
{
    unsigned char *d, *o;
    size_t len;
    GS_REQUIRE(read_file(fixture("chain.zkey"), &d, &len));
    GS_REQUIRE((o = malloc(len)));
    memcpy(o, d, 12);
    size_t w = 12, pos = 12, hdr_at = 0, hdr_len = 0;
    while (pos + 12 <= len) {
        uint32_t t = d[pos] | d[pos + 1] << 8 | d[pos + 2] << 16 | (uint32_t)d[pos + 3] << 24;
        uint64_t l = 0;
        for (int k = 7; k >= 0; k--)
            l = l << 8 | d[pos + 4 + k];
        if (t == 2) {
            hdr_at = pos;
            hdr_len = 12 + l;
        } else {
            memcpy(o + w, d + pos, 12 + l);
            w += 12 + l;
        }
        pos += 12 + l;
    }
    GS_REQUIRE(hdr_len && w + hdr_len == len);
    memcpy(o + w, d + hdr_at, hdr_len);
    const char *moved = tmp_path("moved.zkey");
    GS_REQUIRE(write_file(moved, o, len));
    gs_pk a, b;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_zkey_read(&a, fixture("chain.zkey"), 0, NULL, &e) == GS_OK);
    gs_zkey_info in;
    gs_zkey_opts opt = {GS_ZKEY_CHECK_FORCE, ""};
    GS_REQUIRE(gs_zkey_load(&b, &in, moved, &opt, NULL, &e) == GS_OK);
    GS_CHECK(a.n_vars == b.n_vars && a.domain_size == b.domain_size && a.n_coefs == b.n_coefs);
    /* Header first: the six point arrays in one block (zkey_read.c's arena);
     * header last: each alone.  The same points either way. */
    GS_CHECK(a.arena != NULL && b.arena == NULL);
    GS_CHECK(pk_same(&a, &b));
    char hex[65];
    GS_REQUIRE(gs_sha256_file(hex, moved, &e) == GS_OK);
    GS_CHECK(!strcmp(hex, in.sha256));
    gs_pk_free(&a);
    gs_pk_free(&b);
    /* nVars one larger in the late header: the A section no longer fits. */
    size_t nv_at = len - hdr_len + 12 + 4 + 48 + 4 + 32;
    o[nv_at] += 1;
    GS_REQUIRE(write_file(moved, o, len));
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_zkey_read(&b, moved, 0, NULL, &e), GS_ERR_FORMAT);
    GS_CHECK_MSG(strstr(e.msg, "expected 104 points"), "%s", e.msg);
    free(d);
    free(o);
}

/* Reading in small pieces (GS_ZKEY_PIECE_BYTES: 1000 bytes, not a multiple
 * of any element, so points, G2 points and coefficients fall on every kind
 * of piece boundary) gives the same key and digest as whole 2 MiB pieces,
 * serially and on a pool; a bad point is still named at its offset. */
GS_TEST(io_zkey_small_pieces_same_key)
{
    gs_pk a, b;
    gs_zkey_info ia, ib;
    gs_err e;
    gs_pool *pool = NULL;
    GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);
    gs_zkey_opts o = {GS_ZKEY_CHECK_FORCE, ""};
    gs_err_clear(&e);
    GS_REQUIRE(gs_zkey_load(&a, &ia, fixture("chain.zkey"), &o, NULL, &e) == GS_OK);
    for (int k = 0; k < 2; k++) {
        setenv("GS_ZKEY_PIECE_BYTES", k ? "97" : "1000", 1);
        GS_REQUIRE(gs_zkey_load(&b, &ib, fixture("chain.zkey"), &o, k ? NULL : pool, &e) == GS_OK);
        GS_CHECK(!strcmp(ia.sha256, ib.sha256));
        GS_CHECK_MSG(pk_same(&a, &b), "pieces of %s bytes", k ? "97" : "1000");
        gs_pk_free(&b);
    }
    /* An off-curve point in the middle of a piece run is named exactly. */
    long at = section_offset("chain.zkey", 7);
    GS_REQUIRE(at > 0);
    unsigned char *d;
    size_t len;
    GS_REQUIRE(read_file(fixture("chain.zkey"), &d, &len));
    long pt = -1;
    for (long i = 50; i < 103 && pt < 0; i++) {
        int zero = 1;
        for (int k = 0; k < 192; k++)
            zero &= d[at + i * 192 + k] == 0;
        if (!zero)
            pt = at + i * 192;
    }
    free(d);
    GS_REQUIRE(pt > 0);
    const char *p = mutate("chain.zkey", "b2.zkey", 0, pt + 100, 0x01);
    setenv("GS_ZKEY_PIECE_BYTES", "1000", 1);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_zkey_load(&b, &ib, p, &o, pool, &e), GS_ERR_POINT);
    char want[64];
    snprintf(want, sizeof want, "b2.zkey@%ld", pt);
    GS_CHECK_MSG(strstr(e.msg, want) && strstr(e.msg, "not on the curve"), "%s (want %s)", e.msg,
                 want);
    unsetenv("GS_ZKEY_PIECE_BYTES");
    gs_pk_free(&a);
    gs_pool_destroy(pool);
}
