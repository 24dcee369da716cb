/*
 * libFuzzer target: scenario INI files (scenarios/ini.c, options.c,
 * units.c, scenario.c), as `gapscope run/replay/gate SCENARIO` load them:
 * includes, ${ENV} expansion, every option's value parser, empirical
 * distribution files, cross-field validation, then the job mix the
 * scenario would replay (its trace file or its generator).
 *
 * The input is top.ini in a scratch directory that also holds files it
 * may name (so the fuzzer reaches them through the dictionary):
 *   inc.ini      a valid include ([engine] and [inject.h2d] keys)
 *   self.ini     includes itself (the depth limit must stop the cycle)
 *   top.ini      the input itself (include = top.ini recurses likewise)
 *   d.txt        an empirical distribution (one duration per line)
 *   bad.txt      an empirical distribution with a bad line
 *   t.jsonl      a valid trace;  m.csv  a tiny model spans.csv
 * and the environment holds GS_FZ_N=4, GS_FZ_D=25ms, GS_FZ_E= (empty),
 * GS_FZ_B=cpu.
 *
 * A scenario that loads is dumped (`run --dry-run`'s settings in effect)
 * to dump.ini beside it, and dump.ini must load to the same settings.
 * A failure must name a file (top.ini or one it reaches) and a line
 * (cross-field validation errors: the line of the setting at fault).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scenarios/scenario.h"
#include "../scenarios/trace.h"
#include "fz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("GS_FZ_N", "4", 1);
    setenv("GS_FZ_D", "25ms", 1);
    setenv("GS_FZ_E", "", 1);
    setenv("GS_FZ_B", "cpu", 1);
    fz_write_text("inc.ini", "[engine]\nsynth_threads = 3\ntrim = background\n"
                             "[inject.h2d]\ndist = fixed:1ms\nprobability = 0.5\n");
    fz_write_text("self.ini", "include = self.ini\n");
    fz_write_text("d.txt", "# samples\n1ms\n2.5ms\n40us\n");
    fz_write_text("bad.txt", "1ms\n12\n");
    fz_write_text("t.jsonl",
                  "{\"format\":\"gapscope-trace\",\"version\":1,\"time_unit\":\"ms\"}\n"
                  "{\"t\":0,\"id\":1,\"kind\":\"porep_c2\",\"partitions\":2}\n"
                  "{\"t\":5.5,\"id\":2,\"kind\":\"winning_post\",\"size_class\":19}\n");
    fz_write_text("m.csv", "# gapscope timeline v1\n# meta model.log_n=12\n"
                           "# lane 0,device,0,0,gpu0/stream0\n"
                           "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args\n"
                           "0,1000,0,kernel,ntt,0,0,0,-1,0,log_n=12\n"
                           "2000,5000,0,copy,h2d,0,0,0,-1,0,\n");
    return 0;
}

static const char *const fixed_files[] = {"inc.ini", "self.ini", "d.txt", "bad.txt", "t.jsonl",
                                          "m.csv", "top.ini", "dump.ini", NULL};

static void same_settings(const gs_scenario *a, const gs_scenario *b)
{
    int n = gs_scenario_setting_count(a);
    if (n != gs_scenario_setting_count(b))
        fz_fail("dump round trip: %d settings became %d", n, gs_scenario_setting_count(b));
    for (int i = 0; i < n; i++) {
        const char *ka, *va, *kb, *vb;
        gs_scenario_setting_at(a, i, &ka, &va);
        gs_scenario_setting_at(b, i, &kb, &vb);
        if (strcmp(ka, kb) || strcmp(va, vb))
            fz_fail("dump round trip: %s = '%s' came back as %s = '%s'", ka, va, kb, vb);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[768], dump[768];
    snprintf(path, sizeof path, "%s", fz_write("top.ini", data, size));
    snprintf(dump, sizeof dump, "%s", fz_path("dump.ini"));
    gs_scenario *s = NULL, *s2 = NULL;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_scenario_load(&s, path, &err);
    if (st != GS_OK) {
        /* Any file of the scratch directory may be the one named. */
        fz_check_error(st, &err, fz_dir(), 1);
        fz_expect_files(fixed_files);
        return 0;
    }
    gs_err_clear(&err);
    st = gs_scenario_validate(s, &err);
    if (st != GS_OK) {
        fz_check_error(st, &err, fz_dir(), 1);
    } else {
        gs_trace t;
        st = gs_scenario_arrivals(&t, s, &err);
        if (st == GS_OK) {
            for (size_t i = 0; i < t.n; i++)
                (void)gs_scenario_log_size(s, &t.a[i]);
            gs_trace_free(&t);
        } else {
            /* An unreadable trace is named by its own path, which may lie
             * outside the scratch directory ("trace = ../x"). */
            fz_check_error(st, &err, st == GS_ERR_IO ? NULL : fz_dir(), 1);
        }
    }
    FILE *f = fopen(dump, "w");
    if (!f)
        fz_fail("cannot write %s", dump);
    if (gs_scenario_dump(s, f) != GS_OK)
        fz_fail("gs_scenario_dump failed");
    fclose(f);
    gs_err_clear(&err);
    if (gs_scenario_load(&s2, dump, &err) != GS_OK)
        fz_fail("the dump of a scenario that loaded does not load: %s", err.msg);
    same_settings(s, s2);
    gs_scenario_destroy(s2);
    gs_scenario_destroy(s);
    fz_expect_files(fixed_files);
    return 0;
}
