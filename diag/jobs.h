/*
 * Job results of a run (jobs.csv) and the job statistics of summary.json.
 *
 * The driver that ran the engine writes RUN_DIR/jobs.csv with
 * gs_jobs_write_csv, one record per submitted job (a job that never
 * finished has status "pending" and done_ns -1), converting the engine's
 * gs_job_result: status = "ok" or gs_status_name(result.status).  diag
 * never includes the engine (layering), hence this mirror record.
 * Format and statistics: diag/README.md, "jobs.csv".
 *
 * Ownership: gs_jobs_read_csv allocates *out (free with free()).
 */
#ifndef GS_JOBS_H
#define GS_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "../timeline/timeline.h"

typedef struct gs_job_record {
    uint64_t id;
    char kind[32];             /* "porep_c2", "winning_post", ... */
    uint32_t partitions;
    char status[32];           /* "ok", "pending", or a gs_status name */
    int verified;              /* 1 verified, 0 not checked, -1 verification failed */
    int64_t intended_ns, submitted_ns, done_ns;   /* CLOCK_MONOTONIC; -1 unknown */
    char error[512];           /* first error, "" on success */
} gs_job_record;

gs_status gs_jobs_write_csv(const char *path, const gs_job_record *jobs, size_t n, gs_err *err);
gs_status gs_jobs_read_csv(gs_job_record **out, size_t *n, const char *path, gs_err *err);

#define GS_JOB_MAX_KINDS 16
typedef struct gs_kind_latency {
    char kind[32];
    size_t count;              /* completed jobs of this kind */
    double mean_s, p50_s, p90_s, p99_s, max_s;   /* done - intended (or submitted) */
} gs_kind_latency;

typedef struct gs_job_stats {
    char source[16];           /* "jobs.csv", "timeline" or "none" */
    long submitted, completed, failed, verified, pending;   /* -1 = unknown */
    gs_kind_latency kinds[GS_JOB_MAX_KINDS];
    size_t n_kinds;
} gs_job_stats;

void gs_job_stats_from_records(gs_job_stats *st, const gs_job_record *jobs, size_t n);
/* Fallback without jobs.csv: counts "submit" and "job_done" marks (see
 * diag/README.md); unknown counts are -1. */
void gs_job_stats_from_timeline(gs_job_stats *st, gs_timeline *tl);

#endif
