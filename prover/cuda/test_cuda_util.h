/*
 * The CUDA tests' shared pieces (defined in test_cuda.c, used by it and by
 * test_cuda_levers.c): the device gate, the scalar kinds, the MSM oracles
 * of both curves (the device MSM against the CPU MSM) and one proof on the
 * CUDA and the CPU backend.  Test code only.
 */
#ifndef GS_TEST_CUDA_UTIL_H
#define GS_TEST_CUDA_UTIL_H

#include "../groth16/backend.h"
#include "../groth16/groth16.h"
#include "cuda_dev.h"

/* 1 if a device is there; otherwise skips (or fails under GS_REQUIRE_GPU=1). */
int tcu_need_device(void);

#ifdef GS_HAVE_CUDA

/* Device 0 (a test failure and NULL if it cannot be opened). */
gs_cu_dev *tcu_open_dev(void);

/* x must be GS_OK, else the test fails with e's message and jumps to done
 * (the caller has a gs_err e and a done label). */
#define CU_OK(x)                                                              \
    do {                                                                      \
        gs_err_clear(&e);                                                     \
        if ((x) != GS_OK) {                                                   \
            gs_test_fail(__FILE__, __LINE__, "%s: %s", #x, e.msg);            \
            goto done;                                                        \
        }                                                                     \
    } while (0)

/* kind 0: random; 1: edge scalars mixed in (0, 1, r - 1, powers of two);
 * 2: all equal (one bucket); 3: small values {0, 1, 2}; 4: 0s and 1s only;
 * 5: all 0; 6: all 1; 7: 90% 0s and 1s, the rest random (a PoRep-like
 * witness). */
void tcu_make_scalars(gs_scalar *sc, size_t n, int kind);

/*
 * One curve's side of the MSM differential test, built by MSM_ORACLE from
 * the curve's gs_<g>_* functions: distinct points (P_0 = G,
 * P_(i+1) = 2 (P_i + G), repeated cyclically), the device upload, and the
 * comparison of a result slot with the CPU MSM.  other_take reads a slot as
 * the other curve's result (it must refuse).
 */
typedef struct {
    const char *name;
    size_t aff_size, dev_size;
    void (*make_points)(void *pts, size_t n, size_t distinct);
    void (*set_inf)(void *pts, size_t i);
    gs_status (*upload)(gs_cu_dev *d, void *dst, const void *pts, size_t n, gs_err *err);
    gs_status (*msm)(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *sc, size_t n,
                     int window, gs_err *err);
    /* 1: equal, 0: different, -1: a call failed (message in *err). */
    int (*same_as_cpu)(gs_cu_dev *d, int slot, const gs_scalar *sc, const void *pts, size_t n,
                       gs_err *err);
    gs_status (*other_take)(gs_cu_dev *d, int slot, gs_err *err);
} tcu_msm_oracle;
extern const tcu_msm_oracle tcu_g1_oracle, tcu_g2_oracle;

typedef struct {
    size_t n;
    int kind;   /* tcu_make_scalars */
    int window; /* 0: automatic */
} tcu_msm_case;

/* Each case's MSM on the device equals the CPU's; points: `distinct`
 * different ones repeated, infinity at the indices inf_at; cases above
 * quick_max are left out under --quick. */
void tcu_msm_vs_cpu(const tcu_msm_oracle *o, const tcu_msm_case *cases, size_t ncases, size_t distinct,
                    const size_t *inf_at, size_t ninf, size_t quick_max);

/* r and s for a proof: two random scalars from the test's generator. */
void tcu_random_rs(gs_scalar *r, gs_scalar *s);

/* One proof on each backend with the same r, s: 1 if they are equal, 0 if
 * not, -1 if a call failed (message in *e).  The CPU backend always runs
 * its own G2 MSM. */
int tcu_prove_pair(gs_backend *gpu, gs_backend *cpu, const gs_pk *pk, const gs_assignment *as,
                   const gs_scalar *r, const gs_scalar *s, const gs_prove_opts *opts, gs_proof *pg,
                   gs_stage_list *sg, gs_err *e);

/* A small proving key: a random R1CS (3000 constraints, 300 under --quick;
 * 3 public inputs), its seeded setup, and the witness's assignment.  Every
 * field zeroed first, so tcu_key_free is safe after a failed make. */
typedef struct {
    gs_r1cs r1cs;
    gs_scalar *w;
    uint32_t n_pub;
    gs_pk pk;
    gs_vk vk;
    gs_assignment as;
} tcu_key;
gs_status tcu_key_make(tcu_key *k, gs_err *e);
void tcu_key_free(tcu_key *k);

#endif /* GS_HAVE_CUDA */

#endif
