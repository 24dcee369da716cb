/*
 * The engine's settings, written once: key, type, default, range, choices
 * and help of every knob of gs_engine_config that a scenario's [engine]
 * section sets.  The engine takes its defaults (gs_engine_config_defaults)
 * and range checks (gs_engine_create) from here; scenarios/options.c lists
 * these rows in its option table (so `gapscope run --help`, the parser and
 * the dump of scenario.ini show the same default) and stores values with
 * gs_engine_config_set.
 *
 * One macro per row, so a table elsewhere can place each row where it
 * wants it: GS_ENGINE_ROW(ID, X) expands to
 *   X(ID, key, type, default text, lo, hi, choices, help)
 * type: INT (an integer in [lo, hi]), U64 (an unsigned integer) or ENUM
 * (one of choices, "a|b|c"; the value is its index).  GS_ENGINE_SETTINGS(X)
 * lists every row in the enum's order.
 */
#ifndef GS_ENGINE_SETTINGS_H
#define GS_ENGINE_SETTINGS_H

#define GS_ENGINE_ROW_SYNTH_THREADS(X) \
    X(SYNTH_THREADS, "synth_threads", INT, "2", 1, 256, NULL, "synthesis threads (CPU)")
#define GS_ENGINE_ROW_GPU_WORKERS(X) \
    X(GPU_WORKERS, "gpu_workers", INT, "1", 1, 16, NULL, "GPU workers per device")
#define GS_ENGINE_ROW_FINALIZER_THREADS(X) \
    X(FINALIZER_THREADS, "finalizer_threads", INT, "0", 0, 256, NULL, "finalizer threads (0 = one per in-flight partition)")
#define GS_ENGINE_ROW_QUEUE_DEPTH(X) \
    X(QUEUE_DEPTH, "queue_depth", INT, "4", 1, 4096, NULL, "capacity of the GPU queue of synthesized partitions")
#define GS_ENGINE_ROW_PROVE_THREADS(X) \
    X(PROVE_THREADS, "prove_threads", INT, "0", 0, 256, NULL, "CPU threads per prove step (0 = all cores)")
#define GS_ENGINE_ROW_TRIM(X) \
    X(TRIM, "trim", ENUM, "under_lock", 0, 0, "under_lock|after_unlock|background|off", "where the finalizer calls malloc_trim(0); default under_lock: the production daemon's behaviour (DOMAIN.md)")
#define GS_ENGINE_ROW_VERIFY(X) \
    X(VERIFY, "verify", ENUM, "under_lock", 0, 0, "under_lock|after_unlock|off", "where the last partition's proof is self-verified; default under_lock: the production daemon's behaviour (DOMAIN.md)")
#define GS_ENGINE_ROW_STAGING(X) \
    X(STAGING, "staging", ENUM, "pinned", 0, 0, "pinned|pageable|direct", "host staging of a/b/c before H2D (direct: synthesized into a pool of reused buffers, page-locked with the CUDA backend)")
#define GS_ENGINE_ROW_PIN_POOL(X) \
    X(PIN_POOL, "pin_pool", INT, "0", 0, 4096, NULL, "staging = direct: buffers in the pool, all allocated when the first partition needs one (0: synth_threads + 2 per GPU worker + 2)")
#define GS_ENGINE_ROW_G2(X) \
    X(G2, "g2", ENUM, "cpu", 0, 0, "cpu|device", "where the B G2 MSM runs: cpu (prove_finish, the production default) or device (prove_start; cuda backend)")
#define GS_ENGINE_ROW_FINISH(X) \
    X(FINISH, "finish", ENUM, "finalizer", 0, 0, "finalizer|worker", "who runs prove_finish (the CPU G2 MSM): a finalizer, or the GPU worker in its loop")
#define GS_ENGINE_ROW_PREP(X) \
    X(PREP, "prep", ENUM, "inline", 0, 0, "inline|ahead", "GPU worker: host prep of a partition inline before its prove_start, or ahead on a prep thread while the previous partition's device work runs")
#define GS_ENGINE_ROW_H_CONVENTION(X) \
    X(H_CONVENTION, "h_convention", ENUM, "snarkjs", 0, 0, "snarkjs|classic", "H convention of the keys set up for the jobs (prover/groth16/groth16.h): snarkjs odd-coset points, or classic tau^i Z(tau)/delta points")
#define GS_ENGINE_ROW_SEED(X) \
    X(SEED, "seed", U64, "1", 0, 0, NULL, "scenario seed: job mix and injection draws")

#define GS_ENGINE_ROW(id, X) GS_ENGINE_ROW_##id(X)

#define GS_ENGINE_SETTINGS(X)                                                              \
    GS_ENGINE_ROW_SYNTH_THREADS(X) GS_ENGINE_ROW_GPU_WORKERS(X)                            \
    GS_ENGINE_ROW_FINALIZER_THREADS(X) GS_ENGINE_ROW_QUEUE_DEPTH(X)                        \
    GS_ENGINE_ROW_PROVE_THREADS(X) GS_ENGINE_ROW_TRIM(X) GS_ENGINE_ROW_VERIFY(X)           \
    GS_ENGINE_ROW_STAGING(X) GS_ENGINE_ROW_PIN_POOL(X) GS_ENGINE_ROW_G2(X)                 \
    GS_ENGINE_ROW_FINISH(X) GS_ENGINE_ROW_PREP(X) GS_ENGINE_ROW_H_CONVENTION(X)            \
    GS_ENGINE_ROW_SEED(X)

typedef enum {
#define GS_X(id, k, t, d, lo, hi, ch, h) GS_ESET_##id,
    GS_ENGINE_SETTINGS(GS_X)
#undef GS_X
    GS_ESET_COUNT
} gs_engine_setting;

typedef enum { GS_SETTING_INT, GS_SETTING_U64, GS_SETTING_ENUM, GS_SETTING_TYPE_COUNT } gs_setting_type;

typedef struct gs_engine_setting_def {
    const char *key;
    gs_setting_type type;
    const char *def;            /* default, as a scenario writes it */
    double lo, hi;              /* INT: the range */
    const char *choices, *help; /* ENUM: "a|b|c" (NULL otherwise); one line of help */
} gs_engine_setting_def;

/* The row of setting s (NULL when out of range). */
const gs_engine_setting_def *gs_engine_setting_get(gs_engine_setting s);

#endif
