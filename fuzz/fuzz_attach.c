/*
 * libFuzzer target: `gapscope attach --convert` (capture/attach/rawread.c,
 * convert.c) on a raw folder.  The input is one process image's records
 * (p5-0.rec); a line "#sampler" splits off what follows as the sampler's
 * file (sampler.rec).  Invariant: the conversion returns; a failure names
 * a file of the folder with its line; a success passes the round-trip
 * oracle (fz_oracle.c): spans.csv and timeline.json written from it come
 * back field for field, analysis accepts it (no GS_ERR_RANGE: the reader
 * refuses values outside timeline/limits.h) and its summary.json reads
 * back as analysed.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char raw[800], lib[900], smp[900];
    snprintf(raw, sizeof raw, "%s", fz_path("attach-raw"));
    mkdir(raw, 0777);
    snprintf(lib, sizeof lib, "%s/p5-0.rec", raw);
    snprintf(smp, sizeof smp, "%s/sampler.rec", raw);
    const uint8_t *cut = NULL;
    static const char mark[] = "#sampler\n";
    for (size_t i = 0; i + sizeof mark - 1 <= size && !cut; i++)
        if ((i == 0 || data[i - 1] == '\n') && !memcmp(data + i, mark, sizeof mark - 1))
            cut = data + i;
    put(lib, data, cut ? (size_t)(cut - data) : size);
    unlink(smp);
    if (cut)
        put(smp, cut + sizeof mark - 1, size - (size_t)(cut - data) - (sizeof mark - 1));
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
