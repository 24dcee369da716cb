/*
 * libFuzzer target: `gapscope attach --convert` (capture/attach/rawread.c,
 * rawread_wake.c, convert.c, convert_wake.c, wake_emit.c) on a raw folder.
 * The input is one process image's records (p5-0.rec: device, API, host
 * and wake-up records B U Q A); a line "#sampler" starts the sampler's
 * file (sampler.rec: P C J records), a line "#sched" the scheduler's
 * (sched.rec: Z i s w l records), each running to the next such line.
 * Invariant: the conversion returns; a failure names a file of the folder
 * with its line; a success passes the round-trip oracle (fz_oracle.c):
 * spans.csv and timeline.json written from it come back field for field,
 * analysis accepts it (no GS_ERR_RANGE: the reader refuses values outside
 * timeline/limits.h) and its summary.json reads back as analysed.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../capture/attach/attach.h"
#include "fz.h"

static void put(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fz_fail("cannot write %s", path);
}

/* The start of the first line of data that is mark (with its newline), or size. */
static size_t find_mark(const uint8_t *data, size_t size, const char *mark)
{
    size_t ml = strlen(mark);
    for (size_t i = 0; i + ml <= size; i++)
        if ((i == 0 || data[i - 1] == '\n') && !memcmp(data + i, mark, ml))
            return i;
    return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const marks[] = {"#sampler\n", "#sched\n"};
    static const char *const files[] = {"sampler.rec", "sched.rec"};
    char raw[800], path[900];
    snprintf(raw, sizeof raw, "%s", fz_path("attach-raw"));
    mkdir(raw, 0777);
    /* Section starts: the library file at 0, then each mark where found. */
    size_t at[2];
    for (int k = 0; k < 2; k++)
        at[k] = find_mark(data, size, marks[k]);
    size_t lib_end = at[0] < at[1] ? at[0] : at[1];
    snprintf(path, sizeof path, "%s/p5-0.rec", raw);
    put(path, data, lib_end);
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", raw, files[k]);
        unlink(path);
        if (at[k] == size)
            continue;
        size_t s0 = at[k] + strlen(marks[k]), e0 = size;
        for (int o = 0; o < 2; o++)
            if (at[o] > at[k] && at[o] < e0)
                e0 = at[o];
        put(path, data + s0, e0 - s0);
    }
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_attach_convert(&tl, NULL, raw, NULL, &err);
    if (st != GS_OK) {
        fz_check_error(st, &err, raw, 1);
        if (tl)
            fz_fail("a failed conversion returned a timeline");
        return 0;
    }
    fz_round_trip(tl);
    fz_analysis_outputs(tl);
    gs_timeline_destroy(tl);
    static const char *const left[] = {"attach-raw", NULL};
    fz_expect_files(left);
    return 0;
}
