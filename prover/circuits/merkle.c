/*
 * The "merkle_poseidon" circuit family, shaped like a Filecoin PoSt
 * partition: n_proofs Merkle inclusion proofs of challenged leaves against
 * one public root of a binary Poseidon tree of depth D.
 *
 * Wires (allocation order, snarkjs's numbering): 0 = 1; 1 = root (public);
 * 2 .. n_proofs+1 = the challenged leaf indices (public); then per proof the
 * private inputs leaf, siblings[D], index bits[D]; then the internal wires.
 * Per proof and level l (bit b, sibling s, current node x):
 *   b * b = b                               (b is a bit)
 *   b * (s - x) = t                         (one constraint)
 *   left = x + t, right = s - t             (swap when b = 1, linear)
 *   x' = Poseidon(left, right)              (~260 constraints)
 * and per proof: x_D * 1 = root, (sum_l 2^l b_l) * 1 = index.
 *
 * Sizing: D = clamp(log_constraints - 8, 1, 16); the number of proofs is
 * the most that keeps nConstraints + nPublic < 2^log_constraints, so the
 * QAP domain is exactly 2^log_constraints.  The R1CS is built once (shape
 * run); synthesis re-runs the same gadgets in witness mode.
 */
#include <stdlib.h>
#include <string.h>

#include "circuits_internal.h"

#define MERKLE_MIN_LOG 9u
#define MERKLE_MAX_LOG 28u
#define MERKLE_MAX_DEPTH 16u
#define POREP_SHA_MIN_LOG 16u   /* one proof's SHA-256 alone is ~48,000 constraints */

/* Runs the circuit's gadgets on s (shape or witness mode). */
void gs_merkle_run(cs *s, uint32_t depth, uint32_t n_proofs, int sha, const merkle_inputs *in)
{
    gs_fr zero, one, v;
    gs_fr_zero(&zero);
    gs_fr_one(&one);
    uint32_t root_w = cs_alloc(s, in ? &in->root : &zero);
    for (uint32_t k = 0; k < n_proofs; k++) {
        if (in)
            gs_fr_set_u64(&v, in->index[k]);
        cs_alloc(s, in ? &v : &zero);
    }
    /* Private inputs first (snarkjs order), remembering their wires: the
     * leaf (porep_sha: its 512 preimage bits), siblings, index bits. */
    uint32_t lead = sha ? 512 : 1;
    uint32_t first_prv = s->n_wires, per = lead + 2 * depth;
    for (uint32_t k = 0; k < n_proofs; k++) {
        if (sha) {
            for (uint32_t b = 0; b < 512; b++)
                cs_alloc(s, in && ((in->pre[(size_t)k * 64 + b / 8] >> (b % 8)) & 1) ? &one : &zero);
        } else {
            cs_alloc(s, in ? &in->leaf[k] : &zero);
        }
        for (uint32_t l = 0; l < depth; l++)
            cs_alloc(s, in ? &in->sib[(size_t)k * depth + l] : &zero);
        for (uint32_t l = 0; l < depth; l++)
            cs_alloc(s, in && ((in->index[k] >> l) & 1) ? &one : &zero);
    }
    cs_lc one_lc, root_lc;
    lc_const(&one_lc, &one);
    lc_wire(&root_lc, s, root_w);
    for (uint32_t k = 0; k < n_proofs && s->st == GS_OK; k++) {
        uint32_t base = first_prv + k * per;
        cs_lc cur, packed, idx_lc;
        if (sha) {
            for (uint32_t b = 0; b < 512; b++) {
                cs_lc bit;
                lc_wire(&bit, s, base + b);
                cs_enforce(s, &bit, &bit, &bit);
            }
            gs_sha256_gadget_64_to_fr(s, &cur, base);
            base += lead - 1; /* siblings and index bits follow the preimage */
        } else {
            lc_wire(&cur, s, base);
        }
        lc_zero(&packed);
        gs_fr pow2 = one;
        for (uint32_t l = 0; l < depth; l++) {
            cs_lc b, sib, diff, t, left, right;
            lc_wire(&b, s, base + 1 + depth + l);
            lc_wire(&sib, s, base + 1 + l);
            cs_enforce(s, &b, &b, &b);
            diff = sib;
            lc_sub(s, &diff, &cur);
            gs_fr tv;
            gs_fr_mul(&tv, &b.val, &diff.val);
            lc_wire(&t, s, cs_alloc(s, &tv));
            cs_enforce(s, &b, &diff, &t);
            left = cur;
            lc_add(s, &left, &t);
            right = sib;
            lc_sub(s, &right, &t);
            gs_poseidon_gadget_hash2(s, &cur, &left, &right);
            lc_add_scaled(s, &packed, &b, &pow2);
            gs_fr_dbl(&pow2, &pow2);
        }
        cs_enforce(s, &cur, &one_lc, &root_lc);
        lc_wire(&idx_lc, s, 2 + k);
        cs_enforce(s, &packed, &one_lc, &idx_lc);
    }
}

static gs_status build_shape(gs_r1cs *r, uint32_t depth, uint32_t n_proofs, int sha, gs_err *err)
{
    cs s;
    cs_init_shape(&s);
    gs_merkle_run(&s, depth, n_proofs, sha, NULL);
    gs_status st = cs_take_r1cs(&s, r, 1 + n_proofs, n_proofs * ((sha ? 512 : 1) + 2 * depth), err);
    cs_deinit(&s);
    return st;
}

gs_status gs_circuit_create(gs_circuit **out, const char *family, uint32_t log_constraints,
                            gs_err *err)
{
    *out = NULL;
    int sha = family && strcmp(family, "porep_sha") == 0;
    if (family && !sha && strcmp(family, "merkle_poseidon") != 0)
        return GS_ERR(err, GS_ERR_ARG, "circuit", "unknown family '%s' (known: "
                      "merkle_poseidon, porep_sha)", family);
    uint32_t min_log = sha ? POREP_SHA_MIN_LOG : MERKLE_MIN_LOG;
    if (log_constraints < min_log || log_constraints > MERKLE_MAX_LOG)
        return GS_ERR(err, GS_ERR_ARG, "circuit", "%s: log_constraints %u outside [%u, %u]",
                      sha ? "porep_sha" : "merkle_poseidon", log_constraints, min_log,
                      MERKLE_MAX_LOG);
    gs_circuit *c = calloc(1, sizeof *c);
    if (!c)
        return GS_ERR(err, GS_ERR_NOMEM, "circuit", "circuit object");
    uint32_t d = log_constraints - (sha ? 10 : 8);
    c->depth = d > MERKLE_MAX_DEPTH ? MERKLE_MAX_DEPTH : d;
    c->log_constraints = log_constraints;
    c->sha = sha;

    /* Cost of one proof, measured on a one-proof shape run. */
    gs_r1cs one;
    gs_status st = build_shape(&one, c->depth, 1, sha, err);
    if (st != GS_OK)
        goto fail;
    uint64_t per = one.n_constraints + 1;   /* its constraints + its public index */
    gs_r1cs_free(&one);
    uint64_t budget = ((uint64_t)1 << log_constraints) - 2;  /* root wire, strict < */
    c->n_proofs = (uint32_t)(budget / per);
    if (c->n_proofs == 0) {
        st = GS_ERR(err, GS_ERR_ARG, "circuit", "2^%u constraints cannot hold one proof "
                    "of depth %u", log_constraints, c->depth);
        goto fail;
    }
    c->n_public = 1 + c->n_proofs;
    if ((st = build_shape(&c->r1cs, c->depth, c->n_proofs, sha, err)) != GS_OK)
        goto fail;
    *out = c;
    return GS_OK;
fail:
    gs_circuit_destroy(c);
    return st;
}

void gs_circuit_destroy(gs_circuit *c)
{
    if (!c)
        return;
    gs_r1cs_free(&c->r1cs);
    free(c);
}

const gs_r1cs *gs_circuit_r1cs(const gs_circuit *c) { return &c->r1cs; }
uint32_t gs_circuit_n_public(const gs_circuit *c) { return c->n_public; }
uint32_t gs_circuit_depth(const gs_circuit *c) { return c->depth; }
uint32_t gs_circuit_n_proofs(const gs_circuit *c) { return c->n_proofs; }

/* The instance of `seed`: a tree of random leaves, random challenges. */
gs_status gs_merkle_derive_inputs(merkle_inputs *in, const gs_circuit *c, uint64_t seed,
                               gs_err *err)
{
    memset(in, 0, sizeof *in);   /* the caller frees with gs_merkle_free_inputs, always */
    uint32_t d = c->depth;
    size_t n_leaves = (size_t)1 << d;
    gs_fr *tree = malloc((2 * n_leaves) * sizeof *tree);   /* heap layout: node i, kids 2i, 2i+1 */
    in->index = malloc(c->n_proofs * sizeof *in->index);
    in->leaf = malloc(c->n_proofs * sizeof *in->leaf);
    in->sib = malloc((size_t)c->n_proofs * d * sizeof *in->sib);
    uint8_t *pre = c->sha ? malloc(n_leaves * 64) : NULL;
    if (c->sha)
        in->pre = malloc((size_t)c->n_proofs * 64);
    if (!tree || !in->index || !in->leaf || !in->sib || (c->sha && (!pre || !in->pre))) {
        free(tree);
        free(pre);
        return GS_ERR(err, GS_ERR_NOMEM, "synthesis", "tree of 2^%u leaves", d);
    }
    gs_rng rng;
    gs_rng_seed(&rng, seed);
    for (size_t i = 0; i < n_leaves; i++) {
        if (!c->sha) {
            gs_fr_random(&tree[n_leaves + i], &rng);
            continue;
        }
        /* porep_sha: the leaf is the truncated SHA-256 of 64 random bytes. */
        uint8_t dig[32];
        for (int b = 0; b < 64; b += 8) {
            uint64_t x = gs_rng_u64(&rng);
            memcpy(pre + i * 64 + b, &x, 8);
        }
        gs_sha256_64(dig, pre + i * 64);
        gs_sha256_to_fr(&tree[n_leaves + i], dig);
    }
    for (size_t i = n_leaves - 1; i >= 1; i--)
        gs_poseidon_hash2(&tree[i], &tree[2 * i], &tree[2 * i + 1]);
    in->root = tree[1];
    for (uint32_t k = 0; k < c->n_proofs; k++) {
        uint64_t idx = gs_rng_below(&rng, n_leaves);
        in->index[k] = idx;
        size_t node = n_leaves + idx;
        in->leaf[k] = tree[node];
        if (c->sha)
            memcpy(in->pre + (size_t)k * 64, pre + idx * 64, 64);
        for (uint32_t l = 0; l < d; l++, node >>= 1)
            in->sib[(size_t)k * d + l] = tree[node ^ 1];
    }
    free(tree);
    free(pre);
    return GS_OK;
}

void gs_merkle_free_inputs(merkle_inputs *in)
{
    free(in->index);
    free(in->leaf);
    free(in->sib);
    free(in->pre);
    memset(in, 0, sizeof *in);
}
