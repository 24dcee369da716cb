/*
 * The two-mode constraint-system builder (see cs.h).  Shape mode grows the
 * three sparse matrices geometrically; witness mode writes values into an
 * array sized by the shape run.
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "cs.h"

static void fail(cs *s, gs_status st, const char *why)
{
    if (s->st == GS_OK) {
        s->st = st;
        s->why = why;
    }
}

void cs_init_shape(cs *s)
{
    memset(s, 0, sizeof *s);
    s->n_wires = 1;   /* wire 0 = 1 */
}

void cs_init_witness(cs *s, uint32_t n_wires)
{
    memset(s, 0, sizeof *s);
    s->witness = 1;
    s->w = malloc((size_t)(n_wires ? n_wires : 1) * sizeof *s->w);
    if (!s->w) {
        fail(s, GS_ERR_NOMEM, "witness array");
        return;
    }
    s->w_cap = n_wires;
    s->n_wires = 1;
    gs_fr_one(&s->w[0]);
}

void cs_deinit(cs *s)
{
    free(s->w);
    for (int k = 0; k < 3; k++) {
        free(s->m[k].start);
        free(s->m[k].terms);
    }
    memset(s, 0, sizeof *s);
}

uint32_t cs_alloc(cs *s, const gs_fr *val)
{
    uint32_t id = s->n_wires;
    if (s->witness) {
        if (id >= s->w_cap) {
            fail(s, GS_ERR_INTERNAL, "witness run allocated more wires than the shape");
            return 0;
        }
        s->w[id] = *val;
    }
    s->n_wires++;
    return id;
}

static int grow_rows(cs *s)
{
    uint32_t cap = s->cap_rows ? 2 * s->cap_rows : 1024;
    for (int k = 0; k < 3; k++) {
        uint64_t *p = realloc(s->m[k].start, ((size_t)cap + 1) * sizeof *p);
        if (!p)
            return 0;
        if (!s->m[k].start)
            p[0] = 0;
        s->m[k].start = p;
    }
    s->cap_rows = cap;
    return 1;
}

static int push_terms(cs_matrix *m, const cs_lc *lc)
{
    if (!gs_grow_to(&m->terms, &m->cap_terms, m->n_terms + lc->n, sizeof *m->terms, 4096))
        return 0;
    memcpy(m->terms + m->n_terms, lc->t, lc->n * sizeof *lc->t);
    m->n_terms += lc->n;
    return 1;
}

void cs_enforce(cs *s, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    if (s->st != GS_OK)
        return;
    if (!s->witness) {
        if (s->n_constraints == s->cap_rows && !grow_rows(s)) {
            fail(s, GS_ERR_NOMEM, "constraint rows");
            return;
        }
        const cs_lc *lcs[3] = { a, b, c };
        for (int k = 0; k < 3; k++) {
            if (!push_terms(&s->m[k], lcs[k])) {
                fail(s, GS_ERR_NOMEM, "constraint terms");
                return;
            }
            s->m[k].start[s->n_constraints + 1] = s->m[k].n_terms;
        }
    }
    s->n_constraints++;
}

gs_status cs_take_r1cs(cs *s, gs_r1cs *r, uint32_t n_pub_in, uint32_t n_prv_in, gs_err *err)
{
    memset(r, 0, sizeof *r);
    if (s->st != GS_OK)
        return GS_ERR(err, s->st, "circuit", "building the constraint system: %s", s->why);
    if (s->n_constraints == 0 && !grow_rows(s))
        return GS_ERR(err, GS_ERR_NOMEM, "circuit", "constraint rows");
    r->n_wires = s->n_wires;
    r->n_pub_out = 0;
    r->n_pub_in = n_pub_in;
    r->n_prv_in = n_prv_in;
    r->n_constraints = s->n_constraints;
    r->a_start = s->m[0].start;
    r->b_start = s->m[1].start;
    r->c_start = s->m[2].start;
    r->a_terms = s->m[0].terms;
    r->b_terms = s->m[1].terms;
    r->c_terms = s->m[2].terms;
    for (int k = 0; k < 3; k++) {
        s->m[k].start = NULL;
        s->m[k].terms = NULL;
    }
    return GS_OK;
}

/* ---- linear combinations ------------------------------------------------ */

void lc_zero(cs_lc *out)
{
    out->n = 0;
    gs_fr_zero(&out->val);
}

void lc_wire(cs_lc *out, const cs *s, uint32_t wire)
{
    out->n = 1;
    out->t[0].wire = wire;
    gs_fr_one(&out->t[0].coeff);
    if (s->witness && wire < s->w_cap)
        out->val = s->w[wire];
    else
        gs_fr_zero(&out->val);
}

void lc_const(cs_lc *out, const gs_fr *k)
{
    out->n = 0;
    out->val = *k;
    if (!gs_fr_is_zero(k)) {
        out->n = 1;
        out->t[0].wire = CS_ONE;
        out->t[0].coeff = *k;
    }
}

void lc_add_scaled(cs *s, cs_lc *out, const cs_lc *a, const gs_fr *k)
{
    gs_fr t;
    for (uint32_t i = 0; i < a->n; i++) {
        gs_fr_mul(&t, &a->t[i].coeff, k);
        uint32_t j = 0;
        while (j < out->n && out->t[j].wire != a->t[i].wire)
            j++;
        if (j < out->n) {
            gs_fr_add(&out->t[j].coeff, &out->t[j].coeff, &t);
        } else if (out->n < CS_LC_MAX) {
            out->t[out->n].wire = a->t[i].wire;
            out->t[out->n].coeff = t;
            out->n++;
        } else {
            fail(s, GS_ERR_INTERNAL, "linear combination longer than CS_LC_MAX");
            return;
        }
    }
    gs_fr_mul(&t, &a->val, k);
    gs_fr_add(&out->val, &out->val, &t);
}

void lc_add(cs *s, cs_lc *out, const cs_lc *a)
{
    gs_fr one;
    gs_fr_one(&one);
    lc_add_scaled(s, out, a, &one);
}

void lc_sub(cs *s, cs_lc *out, const cs_lc *a)
{
    gs_fr m1;
    gs_fr_one(&m1);
    gs_fr_neg(&m1, &m1);
    lc_add_scaled(s, out, a, &m1);
}

void lc_compact(cs *s, cs_lc *a, uint32_t max_terms)
{
    if (a->n <= max_terms)
        return;
    gs_fr one;
    gs_fr_one(&one);
    uint32_t v = cs_alloc(s, &a->val);
    cs_lc one_lc, v_lc;
    lc_const(&one_lc, &one);
    lc_wire(&v_lc, s, v);
    cs_enforce(s, a, &one_lc, &v_lc);
    *a = v_lc;
}
