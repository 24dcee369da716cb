/*
 * Poseidon over BLS12-381 Fr (eprint 2019/458): width t = 3, S-box x^5,
 * R_F = 8 full rounds (4 + 4) around R_P = 57 partial rounds; each round
 * adds t round constants, applies the S-box (all cells in full rounds,
 * cell 0 in partial rounds), then multiplies by the MDS matrix
 * (state'_i = sum_j M[i][j] state_j).  Constants: poseidon_consts.h, made by
 * gen/poseidon_constants.py with the reference Grain procedure and checked
 * there against the reference vector poseidonperm_x5_255_3.
 *
 * Two-to-one hash (arity 2): H(a, b) = perm(0, a, b)[0], capacity cell
 * first, as circomlib's Poseidon(2) lays out its state.
 *
 * The gadget costs 3 constraints per S-box (x2 = x*x, x4 = x2*x2,
 * x5 = x4*x) and keeps the state as linear combinations; during the partial
 * rounds the three cells share a growing support (one new wire per round),
 * so the cells are compacted into fresh wires whenever they exceed
 * POSEIDON_LC_LIMIT terms.
 */
#include <pthread.h>

#include "circuits_internal.h"
#include "poseidon_consts.h"

#define T GS_POSEIDON_T
#define N_ROUNDS (GS_POSEIDON_RF + GS_POSEIDON_RP)
#define POSEIDON_LC_LIMIT 12

static gs_fr rc_m[N_ROUNDS * T];
static gs_fr mds_m[T][T];
static pthread_once_t consts_once = PTHREAD_ONCE_INIT;

static void consts_init(void)
{
    for (int i = 0; i < N_ROUNDS * T; i++)
        gs_fr_from_plain(&rc_m[i], gs_poseidon_rc_plain[i]);
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++)
            gs_fr_from_plain(&mds_m[i][j], gs_poseidon_mds_plain[i][j]);
}

static int is_full_round(int r)
{
    return r < GS_POSEIDON_RF / 2 || r >= GS_POSEIDON_RF / 2 + GS_POSEIDON_RP;
}

static void pow5(gs_fr *x)
{
    gs_fr x2, x4;
    gs_fr_sqr(&x2, x);
    gs_fr_sqr(&x4, &x2);
    gs_fr_mul(x, &x4, x);
}

void gs_poseidon_perm(gs_fr st[GS_POSEIDON_T])
{
    pthread_once(&consts_once, consts_init);
    for (int r = 0; r < N_ROUNDS; r++) {
        for (int i = 0; i < T; i++)
            gs_fr_add(&st[i], &st[i], &rc_m[r * T + i]);
        if (is_full_round(r))
            for (int i = 0; i < T; i++)
                pow5(&st[i]);
        else
            pow5(&st[0]);
        gs_fr nx[T];
        for (int i = 0; i < T; i++) {
            gs_fr t;
            gs_fr_zero(&nx[i]);
            for (int j = 0; j < T; j++) {
                gs_fr_mul(&t, &mds_m[i][j], &st[j]);
                gs_fr_add(&nx[i], &nx[i], &t);
            }
        }
        for (int i = 0; i < T; i++)
            st[i] = nx[i];
    }
}

void gs_poseidon_hash2(gs_fr *out, const gs_fr *a, const gs_fr *b)
{
    gs_fr st[T];
    gs_fr_zero(&st[0]);
    st[1] = *a;
    st[2] = *b;
    gs_poseidon_perm(st);
    *out = st[0];
}

/* y = x^5 as a new wire, 3 constraints. */
static void sbox_gadget(cs *s, cs_lc *y, const cs_lc *x)
{
    gs_fr v2, v4, v5;
    gs_fr_sqr(&v2, &x->val);
    gs_fr_sqr(&v4, &v2);
    gs_fr_mul(&v5, &v4, &x->val);
    cs_lc l2, l4;
    lc_wire(&l2, s, cs_alloc(s, &v2));
    cs_enforce(s, x, x, &l2);
    lc_wire(&l4, s, cs_alloc(s, &v4));
    cs_enforce(s, &l2, &l2, &l4);
    lc_wire(y, s, cs_alloc(s, &v5));
    cs_enforce(s, &l4, x, y);
}

void gs_poseidon_gadget_perm(cs *s, cs_lc st[GS_POSEIDON_T])
{
    pthread_once(&consts_once, consts_init);
    for (int r = 0; r < N_ROUNDS; r++) {
        for (int i = 0; i < T; i++) {
            cs_lc k;
            lc_const(&k, &rc_m[r * T + i]);
            lc_add(s, &st[i], &k);
        }
        int full = is_full_round(r);
        for (int i = 0; i < (full ? T : 1); i++) {
            cs_lc y;
            sbox_gadget(s, &y, &st[i]);
            st[i] = y;
        }
        cs_lc nx[T];
        for (int i = 0; i < T; i++) {
            lc_zero(&nx[i]);
            for (int j = 0; j < T; j++)
                lc_add_scaled(s, &nx[i], &st[j], &mds_m[i][j]);
        }
        for (int i = 0; i < T; i++) {
            st[i] = nx[i];
            lc_compact(s, &st[i], POSEIDON_LC_LIMIT);
        }
    }
}

void gs_poseidon_gadget_hash2(cs *s, cs_lc *out, const cs_lc *a, const cs_lc *b)
{
    cs_lc st[T];
    lc_zero(&st[0]);
    st[1] = *a;
    st[2] = *b;
    gs_poseidon_gadget_perm(s, st);
    *out = st[0];
}
