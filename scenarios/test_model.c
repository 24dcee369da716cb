/* Model device: fitting the hand-made sample timeline (traces/model-sample.spans.csv). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "model.h"

static int near(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

GS_TEST(model_fit_sample)
{
    const char *root = getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : ".";
    char path[600];
    snprintf(path, sizeof path, "%s/traces/model-sample.spans.csv", root);
    gs_model *m = NULL;
    gs_err err;
    gs_err_clear(&err);
    if (gs_model_load(&m, path, &err) != GS_OK) {
        if (err.status == GS_ERR_IO) {
            gs_test_skip("%s not found (run from the repository root)", path);
            return;
        }
        GS_CHECK_MSG(0, "load: %s", err.msg);
        return;
    }
    /* Medians per partition at the captured sizes (two partitions each). */
    GS_CHECK(near(gs_model_stage_s(m, "msm_h", 20, 0), 0.0255, 1e-6));
    GS_CHECK(near(gs_model_stage_s(m, "msm_h", 22, 0), 0.5 * (0.053 + 0.053 * 0.96), 1e-6));
    /* Stage totals per partition: three ntt spans add up. */
    GS_CHECK(near(gs_model_stage_s(m, "ntt", 20, 0), 0.5 * (0.0003 + 0.000312), 1e-3));
    /* Between and beyond the captured sizes: the log-log fit. */
    double a = gs_model_stage_s(m, "msm_h", 20, 0), b = gs_model_stage_s(m, "msm_h", 22, 0);
    GS_CHECK_MSG(near(gs_model_stage_s(m, "msm_h", 24, 0), b * b / a, 1e-6), "extrapolated %g",
                 gs_model_stage_s(m, "msm_h", 24, 0));
    GS_CHECK(near(gs_model_stage_s(m, "msm_h", 21, 0), sqrt(a * b), 1e-6));
    /* Pageable H2D without a pageable capture: pinned time x the DOMAIN.md ratio. */
    GS_CHECK(near(gs_model_stage_s(m, "h2d", 20, 1), gs_model_stage_s(m, "h2d", 20, 0) * GS_MODEL_PAGEABLE_FACTOR, 1e-9));
    GS_CHECK(gs_model_stage_s(m, "msm_b2", 20, 0) < 0); /* not captured */
    /* Device order. */
    static const char *order[] = {"h2d", "intt", "coset", "ntt", "msm_h", "msm_l", "msm_a", "msm_b1", "d2h"};
    GS_REQUIRE(gs_model_stage_count(m) == 9);
    for (int i = 0; i < 9; i++)
        GS_CHECK_MSG(!strcmp(gs_model_stage_name(m, i), order[i]), "stage %d is %s", i, gs_model_stage_name(m, i));
    GS_CHECK(strstr(gs_model_source(m), "H200") != NULL);
    gs_model_destroy(m);
}

GS_TEST(model_rejects_sizeless_timeline)
{
    char path[600];
    snprintf(path, sizeof path, "%s/nosize.spans.csv", gs_test_tmpdir());
    FILE *f = fopen(path, "w");
    GS_REQUIRE(f);
    fputs("# gapscope timeline v1\n# lane 0,device,0,0,gpu0/stream0\n"
          "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args\n"
          "100,200,0,kernel,msm_h,1,0,0,-1,0,\n", f);
    fclose(f);
    gs_model *m = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK(gs_model_load(&m, path, &err) == GS_ERR_FORMAT && m == NULL);
    GS_CHECK(strstr(err.msg, "known size") != NULL);
}
