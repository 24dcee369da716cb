/*
 * The engine's modelled work on a fitted model (model/model_work.c),
 * and the check that a model can answer a configuration before a
 * prediction runs.
 */
#ifndef GS_SCN_MODEL_WORK_H
#define GS_SCN_MODEL_WORK_H

#include <stddef.h>

#include "../prover/engine/engine.h"
#include "model.h"

/* A gs_work_model over m (borrowed; must outlive it) for the engine
 * configuration cfg (NULL: the capture's; its staging scales synthesis,
 * gs_model_synth_staging_scale).  size_shift is added to every job's
 * log_constraints; seed picks instance draws. */
gs_status gs_model_work_create(gs_work_model **out, const gs_model *m, const gs_engine_config *cfg,
                               int size_shift, uint64_t seed, gs_err *err);
void gs_model_work_destroy(gs_work_model *wm);

/* Can m predict cfg for jobs of the n_sizes (kind, log) pairs given
 * (logs already shifted)?  GS_ERR_UNSUPPORTED naming the first stage the
 * capture (a path, for the message) lacks or cannot scale to a size;
 * notes (may be NULL) gets one line per optional stage modelled as free. */
gs_status gs_model_work_check(const gs_model *m, const char *capture, const gs_engine_config *cfg,
                              const int *kinds, const uint32_t *logs, int n_sizes, char *notes,
                              size_t cap, gs_err *err);

#endif
