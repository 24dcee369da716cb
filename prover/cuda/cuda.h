/*
 * The CUDA backend's public header: creating the backend (the generic
 * interface is prover/groth16/backend.h), its page-locked assignments and
 * the device count.  Only the drivers that choose a backend (scenarios/,
 * cli/) include it; the engine sees the backend through gs_backend_ops and
 * its capabilities (gs_backend_caps: kind GPU, G2 on the device, the
 * page-locked assignment functions below as its staging allocator).
 * Kernel tuning: knobs.h.  Microbenchmarks: bench.h.  The device layer
 * under all of it (cuda_dev.h) is the backend's own.
 *
 * Built without CUDA every function exists: the creators return
 * GS_ERR_UNSUPPORTED and gs_cuda_device_count returns 0.
 */
#ifndef GS_CUDA_H
#define GS_CUDA_H

#include <stdint.h>

#include "../../common/status.h"
#include "../groth16/backend.h"

/* The CUDA backend on device `device`; GS_ERR_NODEV when there is none,
 * GS_ERR_UNSUPPORTED when built without CUDA.  Stages: device_mutex_wait,
 * load_b2 (first proof with g2_on_device only) (HOST, device -1); h2d_w
 * (COPY), prep_w, msm_l, msm_a, msm_b1, [msm_b2 with g2_on_device]
 * (KERNEL) on stream 0; h2d (COPY), ntt (KERNEL) on stream 1; msm_h
 * (KERNEL), d2h (COPY) on stream 0 (device `device`); [msm_b2 on the CPU
 * without it,] epilogue (HOST, device -1).  (prover/cuda/backend_cuda.c)
 * The tuning knobs in effect (knobs.h) apply; stream_prio is read here. */
gs_status gs_backend_cuda_create(gs_backend **out, int device, gs_err *err);
/* Page-locks the assignment's four buffers (cudaHostRegister, portable)
 * so that the CUDA backend's prove_start copies them to the device in
 * single DMAs (~50 GB/s on the H200) with no host staging, and queues the
 * H chain before it waits on the witness; the production layout, where
 * synthesis writes into pinned buffers.  Registration costs host time
 * (about a second per few GB) and pins the pages until
 * gs_cuda_assignment_unpin, which must come before the buffers are freed:
 * do it once per reused buffer, not per proof.  GS_ERR_UNSUPPORTED without
 * CUDA; on failure nothing stays registered. */
gs_status gs_cuda_assignment_pin(gs_assignment *as, gs_err *err);
void gs_cuda_assignment_unpin(gs_assignment *as);
/* The caveat of registering: a buffer must not share a page with memory
 * registered apart (small heap blocks do: GS_ERR_CUDA "already
 * registered"); big (mmap-backed) or page-aligned buffers never do.  An
 * owner that keeps its buffers allocates them page-locked instead:
 * gs_cuda_assignment_alloc (cudaHostAlloc, portable; w uninitialized, a, b,
 * c zeroed, as gs_assignment_alloc) and gs_cuda_assignment_free (never
 * gs_assignment_free).  GS_ERR_UNSUPPORTED without CUDA. */
gs_status gs_cuda_assignment_alloc(gs_assignment *as, uint32_t n_vars, uint32_t domain_size,
                                   gs_err *err);
void gs_cuda_assignment_free(gs_assignment *as);
/* Number of CUDA devices visible (0 without CUDA or without a GPU). */
int gs_cuda_device_count(void);

#endif
