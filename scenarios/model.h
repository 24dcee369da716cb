/*
 * The model device: offline reproduction without a GPU.
 *
 * gs_model holds per-stage device durations fitted from a timeline captured
 * on a GPU machine (spans.csv of a CUDA run).  For every device span
 * (KERNEL or COPY) it needs the circuit size: the span's args "log_n=N",
 * else the job's size from the driver's "submit" mark (args
 * "log_constraints=N"), else the timeline meta "model.log_n".  Queries use
 * the proving key's log_domain (2^log_constraints or, rarely, twice that).  Per (stage, size) it keeps the median
 * over partitions of the stage's total time per partition; a query at
 * another size uses the least-squares fit log2(t) = a + b*log_n over the
 * captured sizes (with one captured size: t scales linearly with 2^log_n).
 * Pageable H2D uses captured pageable copies when there are any, else the
 * pinned time times GS_MODEL_PAGEABLE_FACTOR (DOMAIN.md: ~55 GB/s pinned vs
 * ~6-10 GB/s pageable on the H200).
 *
 * The model backend (name "model") implements backend.h: prove_start takes
 * a per-device mutex (its wait reported as device_mutex_wait), proves for
 * real on an inner CPU backend (so proofs verify) and holds the device for
 * the modelled stage durations at log_n = pk's log_domain + size_shift,
 * reporting them as device stages flagged GS_STAGE_F_MODELLED; prove_finish
 * runs the host side (G2 MSM, epilogue) for real.
 *
 * Ownership: the model must outlive the backends created from it.  Thread
 * safety: a gs_model is read-only after load; a model backend is shared by
 * its device's GPU workers like any backend.
 */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include <stdint.h>

#include "../prover/common/status.h"
#include "../prover/groth16/backend.h"

#define GS_MODEL_PAGEABLE_FACTOR 6.9

typedef struct gs_model gs_model;

gs_status gs_model_load(gs_model **out, const char *spans_csv, gs_err *err);
void gs_model_destroy(gs_model *m);
/* Modelled seconds per partition of `stage` at 2^log_n (< 0: stage unknown). */
double gs_model_stage_s(const gs_model *m, const char *stage, uint32_t log_n, int pageable);
/* Stages of the model in device order, and how many. */
int gs_model_stage_count(const gs_model *m);
const char *gs_model_stage_name(const gs_model *m, int i);
/* Where the model came from ("NVIDIA H200 ... via traces/x.spans.csv"). */
const char *gs_model_source(const gs_model *m);

gs_status gs_backend_model_create(gs_backend **out, const gs_model *m, int device,
                                  int size_shift, int cpu_threads, gs_err *err);

#endif
