/*
 * The prover backend interface.  The CPU backend (prover/groth16) and the
 * CUDA backend (prover/cuda) implement it; the engine and the drivers hold
 * a gs_backend and never know which one it is.
 *
 * What a caller may rely on beyond the calls is in gs_backend_caps (the
 * kind of device, G2 on the device, host memory for staging buffers).
 *
 * Proving is split the way production daemons split it:
 *   prove_start: the work a GPU does (H2D of a/b/c, iNTT/coset/NTT for H
 *     in the key's H convention, pk->h_conv (groth16.h): every backend
 *     gives the same H scalars, hence the same proof, for a key; the G1
 *     MSMs H, C ("L"), A, B1, D2H of their results);
 *   prove_finish: the G2 MSM of B on the CPU and the epilogue (blinding,
 *     affine conversion), yielding the proof.
 * Each call appends the stages it ran to a gs_stage_list, with times in the
 * host clock (gs_now_ns time base): the CUDA backend converts CUDA event
 * times; the CPU backend reports its own steps the same way.  The engine
 * turns them into device-lane spans.
 *
 * Thread safety: one gs_backend per device is shared by that device's GPU
 * workers; prove_start serializes device work internally (a per-device
 * mutex; the time spent waiting for it is reported as stage
 * "device_mutex_wait" with kind GS_STAGE_HOST) and prove_finish may run
 * concurrently with another prove_start.
 */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include <stdint.h>

#include "../../common/status.h"
#include "groth16.h"

typedef enum {
    GS_STAGE_KERNEL, /* compute on the device (or the CPU backend's compute) */
    GS_STAGE_COPY,   /* host<->device copy */
    GS_STAGE_HOST,   /* host-side step of the backend (prep, mutex wait, CPU MSM) */
} gs_stage_kind;

typedef struct gs_stage {
    const char *name;       /* static string: "h2d", "ntt", "msm_h", "msm_l", "msm_a",
                               "msm_b1", "msm_c" (CPU: H, L and r B1 in one MSM), "d2h",
                               "msm_b2", "host_prep", "device_mutex_wait",
                               "epilogue", "load_b2" (CUDA: B2 made resident on the
                               first proof with g2_on_device) */
    gs_stage_kind kind;
    int32_t device;         /* -1 for host stages */
    int32_t stream;
    int64_t start_ns, end_ns;
    uint16_t flags;         /* GS_STAGE_F_* */
} gs_stage;
#define GS_STAGE_F_PAGEABLE 0x1u   /* the copy came from pageable memory */
#define GS_STAGE_F_MODELLED 0x2u   /* duration taken from a model, not measured */

#define GS_STAGE_MAX 32
typedef struct gs_stage_list {
    int n;
    gs_stage s[GS_STAGE_MAX];
} gs_stage_list;

typedef struct gs_backend gs_backend;
typedef struct gs_prove_state gs_prove_state;  /* between start and finish */

typedef struct gs_prove_opts {
    int pageable;           /* stage a/b/c through pageable memory (labelled) */
    int direct;             /* the engine's staging = direct: a, b, c come from its pool of
                               (page-locked) buffers.  The CUDA backend checks the buffers
                               itself; models time the prove's staging from it */
    int threads;            /* CPU threads for CPU-side work (0 = all cores) */
    int g2_on_device;       /* CUDA: run the B2 MSM on the GPU */
    /* CPU: the caller's assignment is the prover's scratch: as->a, as->b
     * and as->c are overwritten, and as->w is read until prove_finish, so
     * the assignment must outlive it (a one-shot prove: `gapscope prove`).
     * Saves copying 3 domains and the witness (at 2^16 8 MiB of memory).
     * Other backends ignore it. */
    int consume;
    /* Which partition this is (the engine fills them in; models draw
     * per-partition values from them; real backends ignore them). */
    int kind;               /* the job's gs_job_kind, -1 unknown */
    int64_t job_id;
    int32_t part;
} gs_prove_opts;

/* What a backend is, as far as its callers need to know: the engine reads
 * these and never a backend's name (which is a label for metadata and
 * messages only). */
typedef enum {
    GS_BE_KIND_HOST,         /* proves on the CPU: its lanes are "cpu<d>/..." */
    GS_BE_KIND_GPU,          /* drives a GPU: lanes "gpu<d>/..." */
    GS_BE_KIND_MODEL,        /* a modelled GPU in virtual time: lanes "gpu<d>/..." */
    GS_BE_KIND_COUNT
} gs_backend_kind;

typedef struct gs_backend_caps {
    gs_backend_kind kind;
    /* 1: honours gs_prove_opts.g2_on_device (the B G2 MSM in prove_start). */
    int g2_on_device;
    /* Host memory for the assignments a caller synthesizes into and hands
     * to prove_start (the engine's staging = direct pool).  NULL: plain heap
     * buffers (gs_assignment_alloc / gs_assignment_free) serve as well as
     * any.  Otherwise assignment_alloc / assignment_free give buffers the
     * backend copies from fastest (the CUDA backend: page-locked, single
     * DMAs), with gs_assignment_alloc's contract (w uninitialized, a, b, c
     * zeroed; free with assignment_free only), and assignment_pin /
     * assignment_unpin (may be NULL) make a heap assignment's buffers so in
     * place, once per reused buffer (unpin before freeing them). */
    gs_status (*assignment_alloc)(gs_assignment *as, uint32_t n_vars, uint32_t domain_size,
                                  gs_err *err);
    void (*assignment_free)(gs_assignment *as);
    gs_status (*assignment_pin)(gs_assignment *as, gs_err *err);
    void (*assignment_unpin)(gs_assignment *as);
} gs_backend_caps;

typedef struct gs_backend_ops {
    const char *name;                                   /* label: "cpu", "cuda", "model" */
    gs_backend_caps caps;
    /* Device description for reports ("NVIDIA H200, driver 580.x" / CPU model). */
    const char *(*describe)(gs_backend *be);
    /* Makes pk resident (SRS uploaded once, reused by every proof). */
    gs_status (*load_pk)(gs_backend *be, const gs_pk *pk, gs_err *err);
    /* r, s: the blinding scalars (plain); the caller draws them. */
    gs_status (*prove_start)(gs_backend *be, const gs_pk *pk, const gs_assignment *as,
                             const gs_scalar *r, const gs_scalar *s,
                             const gs_prove_opts *opts, gs_prove_state **st,
                             gs_stage_list *stages, gs_err *err);
    gs_status (*prove_finish)(gs_backend *be, gs_prove_state *st, gs_proof *out,
                              gs_stage_list *stages, gs_err *err);
    /* Frees a state whose finish will not run (failure, cancel). */
    void (*prove_abort)(gs_backend *be, gs_prove_state *st);
    void (*destroy)(gs_backend *be);
} gs_backend_ops;

struct gs_backend {
    const gs_backend_ops *ops;
    int32_t device;          /* device index this backend drives (-1 for cpu) */
    void *impl;
};

/* The CPU backend (always present).  threads: 0 = all cores; the backend
 * owns one pool of that width and uses it for every step (opts->threads and
 * opts->pageable are ignored).  Its prove state borrows pk until
 * prove_finish/prove_abort returns (pk must outlive it) and copies what it
 * needs of the assignment, which may be freed once prove_start returns.
 * Stages: device_mutex_wait, host_prep (HOST, device -1); intt, coset, ntt,
 * msm_c (the G1 MSMs of H, L and r B1 as one sum of MSMs), msm_a (KERNEL,
 * device 0, stream 0); msm_b2, epilogue (HOST, device -1).
 * (prover/groth16/backend_cpu.c)
 * The H scalars follow pk->h_conv (groth16.h) under the same stage names:
 * snarkjs keys: intt = iNTT of a, b, c; coset = scale by w_(2n)^k; ntt =
 * NTT and a'b' - c'.  Classic keys: intt the same; coset = scale by g^k
 * (g = GS_FR_GENERATOR); ntt = NTT, (a'b' - c')/(g^n - 1) and the coset
 * iNTT back to the quotient's coefficients. */
gs_status gs_backend_cpu_create(gs_backend **out, int threads, gs_err *err);
/* The CUDA backend and its page-locked assignments: prover/cuda/cuda.h. */

#endif
