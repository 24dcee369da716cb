/*
 * snarkjs JSON files (SNARKJS-FORMATS.md section 8): proof.json,
 * public.json, verification_key.json.  Numbers are decimal strings of plain
 * values; points are written affine with z = "1" (infinity as snarkjs
 * writes it) and read in affine, infinity or Jacobian form.  Layout follows
 * JSON.stringify(x, null, 1), as the snarkjs CLI writes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/json.h"
#include "../pairing/pairing.h"
#include "binfile.h"
#include "io.h"

/* ---- writing --------------------------------------------------------- */

typedef struct {
    FILE *f;
    char tmp[4096];
} out_file;

static gs_status out_open(out_file *o, const char *path, const char *kind, gs_err *err)
{
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f)
        return gs_err_set(err, GS_ERR_IO, kind, path, "cannot create %s: %s", o->tmp,
                          strerror(errno));
    return GS_OK;
}

static gs_status out_close(out_file *o, const char *path, const char *kind, gs_err *err)
{
    int bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    if (bad || rename(o->tmp, path) != 0) {
        int e = errno;
        unlink(o->tmp);
        return gs_err_set(err, GS_ERR_IO, kind, path, "write failed: %s", strerror(e));
    }
    return GS_OK;
}

static void ind(FILE *f, int depth)
{
    for (int i = 0; i < depth; i++)
        fputc(' ', f);
}

static void put_fp(FILE *f, int depth, const gs_fp *v, const char *lit, int last)
{
    char buf[160];
    if (lit)
        snprintf(buf, sizeof buf, "%s", lit);
    else
        gs_fp_to_dec(buf, sizeof buf, v);
    ind(f, depth);
    fprintf(f, "\"%s\"%s\n", buf, last ? "" : ",");
}

static void put_g1(FILE *f, int depth, const gs_g1_affine *p, int last)
{
    fputs("[\n", f);
    if (p->inf) {
        put_fp(f, depth + 1, NULL, "0", 0);
        put_fp(f, depth + 1, NULL, "1", 0);
        put_fp(f, depth + 1, NULL, "0", 1);
    } else {
        put_fp(f, depth + 1, &p->x, NULL, 0);
        put_fp(f, depth + 1, &p->y, NULL, 0);
        put_fp(f, depth + 1, NULL, "1", 1);
    }
    ind(f, depth);
    fputs(last ? "]\n" : "],\n", f);
}

static void put_fp2(FILE *f, int depth, const gs_fp2 *v, const char *l0, const char *l1, int last)
{
    ind(f, depth);
    fputs("[\n", f);
    put_fp(f, depth + 1, v ? &v->c0 : NULL, l0, 0);
    put_fp(f, depth + 1, v ? &v->c1 : NULL, l1, 1);
    ind(f, depth);
    fputs(last ? "]\n" : "],\n", f);
}

static void put_g2(FILE *f, int depth, const gs_g2_affine *p, int last)
{
    fputs("[\n", f);
    if (p->inf) {
        put_fp2(f, depth + 1, NULL, "0", "0", 0);
        put_fp2(f, depth + 1, NULL, "1", "0", 0);
        put_fp2(f, depth + 1, NULL, "0", "0", 1);
    } else {
        put_fp2(f, depth + 1, &p->x, NULL, NULL, 0);
        put_fp2(f, depth + 1, &p->y, NULL, NULL, 0);
        put_fp2(f, depth + 1, NULL, "1", "0", 1);
    }
    ind(f, depth);
    fputs(last ? "]\n" : "],\n", f);
}

gs_status gs_proof_json_write(const char *path, const gs_proof *proof, gs_err *err)
{
    out_file o;
    gs_status s = out_open(&o, path, "proof", err);
    if (s != GS_OK)
        return s;
    fputs("{\n \"pi_a\": ", o.f);
    put_g1(o.f, 1, &proof->a, 0);
    fputs(" \"pi_b\": ", o.f);
    put_g2(o.f, 1, &proof->b, 0);
    fputs(" \"pi_c\": ", o.f);
    put_g1(o.f, 1, &proof->c, 0);
    fputs(" \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}", o.f);
    return out_close(&o, path, "proof", err);
}

gs_status gs_public_json_write(const char *path, const gs_scalar *pub, uint32_t n, gs_err *err)
{
    out_file o;
    gs_status s = out_open(&o, path, "public", err);
    if (s != GS_OK)
        return s;
    fputs(n ? "[\n" : "[", o.f);
    for (uint32_t i = 0; i < n; i++) {
        gs_fr v;
        char buf[100];
        gs_fr_from_scalar(&v, &pub[i]);
        gs_fr_to_dec(buf, sizeof buf, &v);
        fprintf(o.f, " \"%s\"%s\n", buf, i + 1 < n ? "," : "");
    }
    fputs("]", o.f);
    return out_close(&o, path, "public", err);
}

gs_status gs_vk_json_write(const char *path, const gs_vk *vk, gs_err *err)
{
    out_file o;
    gs_status s = out_open(&o, path, "verification key", err);
    if (s != GS_OK)
        return s;
    FILE *f = o.f;
    fprintf(f, "{\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\",\n \"nPublic\": %u,\n",
            vk->n_public);
    fputs(" \"vk_alpha_1\": ", f);
    put_g1(f, 1, &vk->alpha1, 0);
    fputs(" \"vk_beta_2\": ", f);
    put_g2(f, 1, &vk->beta2, 0);
    fputs(" \"vk_gamma_2\": ", f);
    put_g2(f, 1, &vk->gamma2, 0);
    fputs(" \"vk_delta_2\": ", f);
    put_g2(f, 1, &vk->delta2, 0);
    gs_fp12 ab;
    gs_pairing(&ab, &vk->alpha1, &vk->beta2);
    fputs(" \"vk_alphabeta_12\": [\n", f);
    for (int i = 0; i < 2; i++) {
        const gs_fp6 *c6 = i ? &ab.c1 : &ab.c0;
        ind(f, 2);
        fputs("[\n", f);
        put_fp2(f, 3, &c6->c0, NULL, NULL, 0);
        put_fp2(f, 3, &c6->c1, NULL, NULL, 0);
        put_fp2(f, 3, &c6->c2, NULL, NULL, 1);
        ind(f, 2);
        fputs(i ? "]\n" : "],\n", f);
    }
    fputs(" ],\n \"IC\": [\n", f);
    for (uint32_t i = 0; i <= vk->n_public; i++) {
        ind(f, 2);
        put_g1(f, 2, &vk->ic[i], i == vk->n_public);
    }
    fputs(" ]\n}", f);
    return out_close(&o, path, "verification key", err);
}

/* ---- reading --------------------------------------------------------- */

static gs_status jfail(gs_err *err, const char *kind, const char *path, const gs_json *at,
                       const char *what)
{
    char where[4200];
    snprintf(where, sizeof where, "%s:%d:%d", path, at ? at->line : 0, at ? at->col : 0);
    return gs_err_set(err, GS_ERR_FORMAT, kind, where, "%s", what);
}

static gs_status read_fp(gs_fp *out, const gs_json *j, const char *kind, const char *path,
                         gs_err *err)
{
    if (!j || j->type != GS_JSON_STRING)
        return jfail(err, kind, path, j, "expected a decimal string");
    if (!gs_fp_from_dec(out, j->text)) {
        char where[4200];
        snprintf(where, sizeof where, "%s:%d:%d", path, j->line, j->col);
        return gs_err_set(err, GS_ERR_RANGE, kind, where, "'%.40s' is not a decimal below p",
                          j->text);
    }
    return GS_OK;
}

static int is_lit(const gs_json *j, const char *lit)
{
    return j && j->type == GS_JSON_STRING && !strcmp(j->text, lit);
}

static gs_status read_g1(gs_g1_affine *out, const gs_json *j, const char *kind,
                         const char *path, const char *name, gs_err *err)
{
    char what[160];
    snprintf(what, sizeof what, "%s: expected [x, y, z] of 3 decimal strings", name);
    if (!j || j->type != GS_JSON_ARRAY || j->n != 3)
        return jfail(err, kind, path, j, what);
    gs_g1 p;
    gs_status s;
    if ((s = read_fp(&p.X, &j->items[0], kind, path, err)) != GS_OK ||
        (s = read_fp(&p.Y, &j->items[1], kind, path, err)) != GS_OK ||
        (s = read_fp(&p.Z, &j->items[2], kind, path, err)) != GS_OK)
        return s;
    gs_g1_to_affine(out, &p); /* z = 1: affine; z = 0: infinity; else Jacobian */
    if (!gs_g1_affine_is_on_curve(out) || !gs_g1_affine_in_subgroup(out)) {
        snprintf(what, sizeof what, "%s: point is not on the curve or not in the subgroup", name);
        s = jfail(err, kind, path, j, what);
        if (err)
            err->status = GS_ERR_POINT;
        return GS_ERR_POINT;
    }
    return GS_OK;
}

static gs_status read_fp2(gs_fp2 *out, const gs_json *j, const char *kind, const char *path,
                          gs_err *err)
{
    if (!j || j->type != GS_JSON_ARRAY || j->n != 2)
        return jfail(err, kind, path, j, "expected [c0, c1]");
    gs_status s = read_fp(&out->c0, &j->items[0], kind, path, err);
    return s != GS_OK ? s : read_fp(&out->c1, &j->items[1], kind, path, err);
}

static gs_status read_g2(gs_g2_affine *out, const gs_json *j, const char *kind,
                         const char *path, const char *name, gs_err *err)
{
    char what[160];
    snprintf(what, sizeof what, "%s: expected [[x0,x1],[y0,y1],[z0,z1]]", name);
    if (!j || j->type != GS_JSON_ARRAY || j->n != 3)
        return jfail(err, kind, path, j, what);
    gs_g2 p;
    gs_status s;
    if ((s = read_fp2(&p.X, &j->items[0], kind, path, err)) != GS_OK ||
        (s = read_fp2(&p.Y, &j->items[1], kind, path, err)) != GS_OK ||
        (s = read_fp2(&p.Z, &j->items[2], kind, path, err)) != GS_OK)
        return s;
    gs_g2_to_affine(out, &p);
    if (!gs_g2_affine_is_on_curve(out) || !gs_g2_affine_in_subgroup(out)) {
        snprintf(what, sizeof what, "%s: point is not on the curve or not in the subgroup", name);
        jfail(err, kind, path, j, what);
        if (err)
            err->status = GS_ERR_POINT;
        return GS_ERR_POINT;
    }
    return GS_OK;
}

static gs_status check_curve(const gs_json *root, const char *kind, const char *path, gs_err *err)
{
    const gs_json *c = gs_json_get(root, "curve");
    if (!c)
        return GS_OK; /* informational in proofs; absent is allowed */
    if (c->type != GS_JSON_STRING)
        return jfail(err, kind, path, c, "\"curve\" must be a string");
    char norm[64];
    size_t k = 0;
    for (const char *p = c->text; *p && k + 1 < sizeof norm; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
            norm[k++] = *p;
        else if (*p >= 'A' && *p <= 'Z')
            norm[k++] = (char)(*p - 'A' + 'a');
    norm[k] = '\0';
    if (strcmp(norm, "bls12381") != 0) {
        char where[4200];
        snprintf(where, sizeof where, "%s:%d:%d", path, c->line, c->col);
        return gs_err_set(err, GS_ERR_CURVE, kind, where,
                          "unsupported curve '%s' (gapscope supports bls12381)", c->text);
    }
    return GS_OK;
}

gs_status gs_proof_json_read(gs_proof *out, const char *path, gs_err *err)
{
    memset(out, 0, sizeof *out);
    gs_json *root;
    gs_status s = gs_json_parse_file(&root, path, err);
    if (s != GS_OK)
        return s;
    if (root->type != GS_JSON_OBJECT)
        s = jfail(err, "proof", path, root, "expected an object with pi_a, pi_b, pi_c");
    if (s == GS_OK)
        s = check_curve(root, "proof", path, err);
    const gs_json *proto = gs_json_get(root, "protocol");
    if (s == GS_OK && proto && !is_lit(proto, "groth16"))
        s = jfail(err, "proof", path, proto, "protocol must be \"groth16\"");
    if (s == GS_OK)
        s = read_g1(&out->a, gs_json_get(root, "pi_a"), "proof", path, "pi_a", err);
    if (s == GS_OK)
        s = read_g2(&out->b, gs_json_get(root, "pi_b"), "proof", path, "pi_b", err);
    if (s == GS_OK)
        s = read_g1(&out->c, gs_json_get(root, "pi_c"), "proof", path, "pi_c", err);
    gs_json_free(root);
    return s;
}

gs_status gs_public_json_read(gs_scalar **pub, uint32_t *n, const char *path, gs_err *err)
{
    *pub = NULL;
    *n = 0;
    gs_json *root;
    gs_status s = gs_json_parse_file(&root, path, err);
    if (s != GS_OK)
        return s;
    if (root->type != GS_JSON_ARRAY) {
        s = jfail(err, "public", path, root, "expected an array of decimal strings");
        goto out;
    }
    *pub = calloc(root->n ? root->n : 1, sizeof **pub);
    if (!*pub) {
        s = gs_err_set(err, GS_ERR_NOMEM, "public", path, "%zu values", root->n);
        goto out;
    }
    for (size_t i = 0; i < root->n; i++) {
        const gs_json *v = &root->items[i];
        gs_fr x;
        if (v->type != GS_JSON_STRING && v->type != GS_JSON_NUMBER) {
            s = jfail(err, "public", path, v, "expected a decimal string");
            goto out;
        }
        if (!gs_fr_from_dec(&x, v->text)) {
            char where[4200];
            snprintf(where, sizeof where, "%s:%d:%d", path, v->line, v->col);
            s = gs_err_set(err, GS_ERR_RANGE, "public", where,
                           "public input %zu '%.40s' is not an integer in [0, r)", i, v->text);
            goto out;
        }
        gs_fr_to_scalar(&(*pub)[i], &x);
    }
    *n = (uint32_t)root->n;
out:
    if (s != GS_OK) {
        free(*pub);
        *pub = NULL;
    }
    gs_json_free(root);
    return s;
}

gs_status gs_vk_json_read(gs_vk *out, const char *path, gs_err *err)
{
    memset(out, 0, sizeof *out);
    gs_json *root;
    gs_status s = gs_json_parse_file(&root, path, err);
    if (s != GS_OK)
        return s;
    const gs_json *np = gs_json_get(root, "nPublic"), *ic = gs_json_get(root, "IC");
    const gs_json *proto = gs_json_get(root, "protocol");
    if (root->type != GS_JSON_OBJECT)
        s = jfail(err, "verification key", path, root, "expected an object");
    else if (!is_lit(proto, "groth16"))
        s = jfail(err, "verification key", path, proto ? proto : root,
                  "protocol must be \"groth16\"");
    if (s == GS_OK)
        s = check_curve(root, "verification key", path, err);
    if (s == GS_OK && (!np || np->type != GS_JSON_NUMBER || np->number < 0 || np->number > 1e8))
        s = jfail(err, "verification key", path, np ? np : root, "nPublic must be a number");
    if (s == GS_OK && (!ic || ic->type != GS_JSON_ARRAY || ic->n != (size_t)np->number + 1))
        s = jfail(err, "verification key", path, ic ? ic : root, "IC must hold nPublic + 1 points");
    if (s == GS_OK) {
        out->n_public = (uint32_t)np->number;
        out->ic = calloc(ic->n, sizeof *out->ic);
        if (!out->ic)
            s = gs_err_set(err, GS_ERR_NOMEM, "verification key", path, "IC");
    }
    if (s == GS_OK)
        s = read_g1(&out->alpha1, gs_json_get(root, "vk_alpha_1"), "verification key", path,
                    "vk_alpha_1", err);
    if (s == GS_OK)
        s = read_g2(&out->beta2, gs_json_get(root, "vk_beta_2"), "verification key", path,
                    "vk_beta_2", err);
    if (s == GS_OK)
        s = read_g2(&out->gamma2, gs_json_get(root, "vk_gamma_2"), "verification key", path,
                    "vk_gamma_2", err);
    if (s == GS_OK)
        s = read_g2(&out->delta2, gs_json_get(root, "vk_delta_2"), "verification key", path,
                    "vk_delta_2", err);
    for (size_t i = 0; s == GS_OK && i < (ic ? ic->n : 0); i++)
        s = read_g1(&out->ic[i], &ic->items[i], "verification key", path, "IC point", err);
    gs_json_free(root);
    if (s != GS_OK)
        gs_vk_free(out);
    return s;
}
