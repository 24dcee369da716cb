/*
 * Scenarios: fio-like INI files that say how to drive the engine (threads,
 * policies, backend), which job mix to replay (a trace file or an inline
 * generator) and which delays to inject where.
 *
 *   [global]            description, and defaults for every [inject.*] key
 *   [engine]            synth_threads, gpu_workers, queue_depth, trim, ...
 *   [jobs]              trace = path | kinds/count/interarrival generator,
 *                       size_map, size_shift, replay, time_scale,
 *                       cancel_probability, cancel_after
 *   [inject.<point>]    dist, probability, seed, mode, frag, enabled
 *   [gpu]               the CUDA backend's tuning knobs (prover/cuda/knobs.h:
 *                       ntt_tile, msm_fv, ...); a knob's environment
 *                       variable, when set, overrides the scenario's value
 *
 * Values take unit suffixes (durations ns/us/ms/s/min, sizes B/KiB/MiB/GiB/
 * TiB), `${NAME}` / `${NAME:-default}` expand from the environment, and
 * `include = other.ini` reads another file in place (path relative to the
 * including file).  Later settings win.  ONE option table (GS_SCN_OPTIONS in
 * options.c) drives parsing, validation, `gapscope run --help` and the dump
 * of the settings in effect.  Every error names file:line (or "--set").
 *
 * Ownership: gs_scenario_load/gs_scenario_new allocate, gs_scenario_destroy
 * frees (the engine config's empirical samples included).  Not thread safe.
 */
#ifndef GS_SCENARIO_H
#define GS_SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include "../common/rng.h"
#include "../common/units.h"
#include "../common/status.h"
#include "../prover/cuda/knobs.h"
#include "../prover/engine/engine.h"

typedef enum { GS_REPLAY_TIMED, GS_REPLAY_AFAP, GS_REPLAY_SCALED, GS_REPLAY_COUNT } gs_replay_mode;
typedef enum { GS_BACKEND_CPU, GS_BACKEND_CUDA, GS_BACKEND_MODEL, GS_BACKEND_AUTO, GS_BACKEND_SEL_COUNT } gs_backend_sel;

#define GS_SCN_PATH_MAX 512

/* The inline job-mix generator ([jobs] without trace). */
typedef struct gs_scn_mix {
    double weight[GS_KIND_COUNT];       /* kinds = porep_c2:3,window_post:1 */
    uint32_t partitions[GS_KIND_COUNT]; /* 0 = the kind's default */
    uint32_t count;                     /* arrivals to generate */
    gs_dist interarrival;               /* seconds between arrivals */
} gs_scn_mix;

typedef struct gs_scenario {
    char path[GS_SCN_PATH_MAX];         /* the top file ("" when built in memory) */
    char description[256];
    gs_engine_config engine;
    gs_backend_sel backend;
    int devices;                        /* backends to create (GPU count; cpu: 1) */
    char model_timeline[GS_SCN_PATH_MAX]; /* model device: spans.csv captured on a GPU */
    int model_size_shift;               /* model device: modelled log size = real + shift */
    int64_t drain_timeout_ns;
    /* Job mix. */
    char trace[GS_SCN_PATH_MAX];        /* resolved path, "" = use the generator */
    gs_scn_mix mix;
    uint32_t size_map[GS_KIND_COUNT];   /* log2 constraints per partition */
    int size_shift;                     /* added to every size_map entry */
    uint32_t limit;                     /* replay at most this many arrivals (0 = all) */
    gs_replay_mode replay;
    double time_scale;                  /* scaled replay: t_replay = t_trace * time_scale */
    int inj_present[GS_INJ_COUNT];      /* [inject.<point>] seen (enables the point) */
    char inj_where[GS_INJ_COUNT][GS_SCN_PATH_MAX + 16]; /* where that section began */
    /* Settings in effect, one text per option instance, with their origin. */
    struct gs_scn_setting *settings;
    int n_settings;
    /* Driver-side faults ([jobs] cancel_probability, cancel_after): a seeded
     * share of the submitted jobs is cancelled (gs_engine_cancel_job) this
     * long after its submission; the draw is per job id. */
    double cancel_probability;
    gs_dist cancel_after;               /* seconds after the submission */
    /* [gpu]: each knob's value in effect (gs_cu_knob_parse's form), set on
     * the knob store for the run (gs_scn_run). */
    int gpu[GS_CU_KNOB_COUNT];
} gs_scenario;

/* A scenario with every option at its default (path ""). */
gs_status gs_scenario_new(gs_scenario **out, gs_err *err);
/* Reads `path` (with includes) over the defaults and validates. */
gs_status gs_scenario_load(gs_scenario **out, const char *path, gs_err *err);
/* Applies "section.key=value" (for --set); where names the origin. */
gs_status gs_scenario_set(gs_scenario *s, const char *assignment, const char *where, gs_err *err);
/* Applies every assignment, then the cross-field checks once: the batch's
 * order does not matter ("inject.x.enabled=yes" may come before the
 * "inject.x.dist=..." it needs); a later assignment to the same key wins. */
gs_status gs_scenario_set_all(gs_scenario *s, const char *const *sets, int nsets, const char *where,
                              gs_err *err);
/* The command line's overrides, in the order every command applies them:
 * engine.seed from --seed (when seed is not NULL), then the --set batch
 * (gs_scenario_set_all), then gs_scenario_validate.  Errors name "--seed"
 * or "--set". */
gs_status gs_scenario_apply_cli(gs_scenario *s, const char *seed, const char *const *sets, int nsets,
                                gs_err *err);
/* Parses INI text as if it were a file named `name` (tests, --set batches). */
gs_status gs_scenario_parse_text(gs_scenario *s, const char *text, const char *name, gs_err *err);
/* Cross-field checks after all settings are in (a trace path that opens, ...). */
gs_status gs_scenario_validate(gs_scenario *s, gs_err *err);
void gs_scenario_destroy(gs_scenario *s);

/* The settings in effect as INI (every option, value and origin in a comment). */
gs_status gs_scenario_dump(const gs_scenario *s, FILE *f);
/* The same for a file in directory dir (the scenario.ini of a run
 * directory), holding no absolute path: path values (jobs.trace,
 * engine.model_timeline, an absolute empirical:FILE) relative to dir, so
 * the dump reloads from dir; the scenario's path and the origins' files,
 * where absolute, relative to the working directory. */
gs_status gs_scenario_dump_in(const gs_scenario *s, FILE *f, const char *dir);
/* Setting i's value as a capture in dir records it: path values relative
 * to dir as in gs_scenario_dump_in (written into buf), others unchanged. */
const char *gs_scenario_setting_value_in(const gs_scenario *s, int i, const char *dir, char *buf,
                                         size_t cap);
/* Each setting as (key "section.key", value), for timeline metadata. */
int gs_scenario_setting_count(const gs_scenario *s);
void gs_scenario_setting_at(const gs_scenario *s, int i, const char **key, const char **value);
/* The value text of "section.key" ("engine.trim", "inject.h2d.dist"), NULL if unknown. */
const char *gs_scenario_setting_value(const gs_scenario *s, const char *key);
/* Where "section.key" got its value: "default", "file.ini:12", "--set"...;
 * NULL if unknown. */
const char *gs_scenario_setting_origin(const gs_scenario *s, const char *key);
/* Writes one "note:" line to f for each setting whose default stands for
 * the production daemon's behaviour and that the scenario does not set
 * (engine.trim and engine.verify: both under the tracker lock, DOMAIN.md);
 * returns how many.  Quiet scenarios set them explicitly. */
int gs_scenario_note_defaults(const gs_scenario *s, FILE *f, const char *prefix);
/* The option reference (`gapscope run --help`). */
void gs_scenario_help(FILE *f);

/* Durations and sizes: gs_parse_duration_ns, gs_parse_size_bytes (units.h). */
/* "fixed:50ms" | "uniform:10ms,50ms" | "lognormal:median=80ms,sigma=0.5" |
 * "empirical:FILE" (durations one per line, relative to base_dir). */
gs_status gs_parse_dist(gs_dist *out, const char *text, const char *base_dir,
                        const char *where, gs_err *err);
/* Draws and means of a distribution: gs_dist_sample, gs_dist_mean (engine.h). */

const char *gs_replay_mode_name(gs_replay_mode m);
const char *gs_backend_sel_name(gs_backend_sel b);

#endif
