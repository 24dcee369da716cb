/*
 * libFuzzer target: jobs.csv (diag/jobs.c), as `gapscope analyze` reads it
 * beside a run's spans.csv, and the job statistics of summary.json.
 *
 * A file that reads is written back and read again: the records must come
 * back the same (the writer turns CR and LF inside an error text into
 * spaces, so the comparison does too), and a second write must produce
 * the same bytes.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../diag/jobs.h"
#include "../common/outfile.h"
#include "fz.h"

static void cr_to_space(char *s)
{
    for (; *s; s++)
        if (*s == '\r' || *s == '\n')
            *s = ' ';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[768], a[768], b[768];
    snprintf(path, sizeof path, "%s", fz_write("jobs.csv", data, size));
    snprintf(a, sizeof a, "%s", fz_path("a.csv"));
    snprintf(b, sizeof b, "%s", fz_path("b.csv"));
    gs_job_record *v = NULL, *w = NULL, *x = NULL;
    size_t n = 0, m = 0, k = 0;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_jobs_read_csv(&v, &n, path, &err);
    if (st != GS_OK) {
        fz_check_error(st, &err, path, 1);
        return 0;
    }
    gs_job_stats js;
    gs_job_stats_from_records(&js, v, n);
    if (js.completed + js.failed + js.pending != js.submitted)
        fz_fail("job counts do not add up: %ld + %ld + %ld != %ld", js.completed, js.failed,
                js.pending, js.submitted);
    if (gs_jobs_write_csv(a, v, n, &err) != GS_OK || gs_jobs_read_csv(&w, &m, a, &err) != GS_OK)
        fz_fail("jobs.csv round trip: %s", err.msg);
    if (m != n)
        fz_fail("jobs.csv round trip: %zu records became %zu", n, m);
    for (size_t i = 0; i < n; i++) {
        cr_to_space(v[i].error);
        if (memcmp(&v[i], &w[i], offsetof(gs_job_record, error)) || strcmp(v[i].error, w[i].error))
            fz_fail("jobs.csv round trip: record %zu changed", i);
    }
    if (gs_jobs_write_csv(b, w, m, &err) != GS_OK || gs_jobs_read_csv(&x, &k, b, &err) != GS_OK)
        fz_fail("jobs.csv second round trip: %s", err.msg);
    fz_same_files(a, b, "jobs.csv");
    free(v);
    free(w);
    free(x);
    static const char *const left[] = {"jobs.csv", "a.csv", "b.csv", NULL};
    fz_expect_files(left);
    return 0;
}
