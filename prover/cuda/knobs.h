/*
 * The CUDA backend's tuning knobs: one table (GS_CU_KNOBS) of every
 * run-time setting that changes how the kernels or the stream plan run,
 * read by the [gpu] scenario section (scenarios/options.c), `gapscope
 * cuda-bench` flags (--<key with dashes>) and both commands' --help.
 * The defaults are the tuned values the kernels always had; none of the
 * knobs changes a result, only how it is computed (A/B measurements,
 * bench/RESULTS.md).
 *
 * The value in effect of a knob, as the kernels read it (gs_cu_knob_id):
 *   1. its environment variable (the table's env column) when set to a
 *      valid value: the environment overrides everything else;
 *   2. else the value last given to gs_cu_knob_set (a scenario's [gpu]
 *      section, a cuda-bench flag);
 *   3. else the default.
 * An environment variable holding an invalid value is ignored by the
 * kernels; gs_cu_knobs_env_check reports it, and the commands that read
 * knobs call it first (exit 2 with the variable named).
 *
 * Each knob is read where it acts (noted in its help): most at every
 * kernel launch, stream_prio when a device context is created, key_copies
 * when a key is made resident.  Compiled with and without CUDA (the table
 * and the store are plain C).  Thread safety: gs_cu_knob may be called
 * from any thread; gs_cu_knob_set and gs_cu_knobs_reset are atomic stores,
 * meant for a driver before it starts the work they tune.
 */
#ifndef GS_CU_KNOBS_H
#define GS_CU_KNOBS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "../../common/status.h"

/* Flags of a knob: GS_CU_KF_AUTO: "auto" is a value (GS_CU_AUTO: the
 * kernels choose); GS_CU_KF_POW2: a number must be a power of two;
 * GS_CU_KF_ONCE: read once (at load_pk or context creation), not at every
 * kernel launch or proof, so a driver cannot change it between runs over
 * the same key (cuda-bench --sets refuses it). */
#define GS_CU_KF_AUTO 1u
#define GS_CU_KF_POW2 2u
#define GS_CU_KF_ONCE 4u
#define GS_CU_AUTO (-1)

/* X(id, key, env, flags, lo, hi, default, choices, help).  A knob with
 * choices takes one of the |-separated names (its value is the name's
 * index); the others take a decimal (or 0x hex) integer in [lo, hi]. */
#define GS_CU_KNOBS(X)                                                                              \
    X(NTT_IMPL, "ntt_impl", "GS_CU_NTT", 0, 0, 1, "new", "new|old",                                 \
      "NTT kernels: pass-fused (new) or the bit reversal + radix-4 ones before them (old); per NTT") \
    X(NTT_MUL, "ntt_mul", "GS_CU_NTT_MUL", 0, 0, 1, "fast", "fast|generic",                         \
      "NTT multiplication: fr_mul_fast, or the generic fe_mul; per NTT")                             \
    X(NTT_TILE, "ntt_tile", "GS_CU_NTT_TILE", 0, 9, 12, "11", NULL,                                 \
      "pass-fused NTT: log2 of the elements one pass takes through shared memory; per NTT")         \
    X(NTT_COLS, "ntt_cols", "GS_CU_NTT_COLS", 0, 1, 5, "3", NULL,                                   \
      "pass-fused NTT: log2 of a pass's contiguous columns (at most ntt_tile - 2); per NTT")        \
    X(NTT_THREADS, "ntt_threads", "GS_CU_NTT_THREADS", GS_CU_KF_POW2, 64, 512, "128", NULL,         \
      "pass-fused NTT: threads per block; per NTT")                                                 \
    X(NTT_R4, "ntt_r4", "GS_CU_NTT_R4", GS_CU_KF_AUTO, 0, 1, "auto", NULL,                          \
      "pass-fused NTT: later passes take two stages per trip (1) or one (0); auto: two but at 2^22") \
    X(NTT_ORDER, "ntt_order", "GS_CU_NTT_ORDER", 0, 0, 1, "1", NULL,                                \
      "pass-fused NTT: a pass's blocks run group-fastest, sharing twiddles (1), or column-slab fastest (0)") \
    X(MSM_FV, "msm_fv", "GS_CU_FV", 0, 0, 255, "127", NULL,                                         \
      "MSM kernel variant bits (CU_FV_* in cu_internal.cuh); per MSM")                              \
    X(MSM_MINB, "msm_minb", "GS_CU_MSM_MINB", 0, 0, 255, "3", NULL,                                 \
      "MSM level-1 kernel: blocks per SM asked of ptxas (built: 2, 3, 4); per MSM")                 \
    X(MSM_S1, "msm_s1", "GS_CU_MSM_S1", GS_CU_KF_AUTO | GS_CU_KF_POW2, 32, 4096, "auto", NULL,      \
      "MSM level 1: entries per chunk; auto: 128 from 2^29 entries, else 64 (with msm_ba: 1024); per MSM") \
    X(MSM_FLAT, "msm_flat", "GS_CU_MSM_FLAT", 0, 0, 1, "1", NULL,                                   \
      "MSM level 1: flat accumulation (1) or per-bucket chunks (0); per MSM")                       \
    X(MSM_CMAX, "msm_cmax", "GS_CU_MSM_CMAX", GS_CU_KF_AUTO, 0, 24, "auto", NULL,                   \
      "MSM window plans with copies: widest window considered; auto: 20 (22 over 2^23..2^25 points with 6+ copies; 22/24 for a wide standalone MSM from 2^26)") \
    X(MSM_C, "msm_c", "GS_CU_MSM_C", GS_CU_KF_AUTO, 4, 24, "auto", NULL,                            \
      "MSM window bits of every plan; auto: planned (gs_cu_msm_pick)")                              \
    X(MSM_WIN, "msm_win", "GS_CU_MSM_WIN", 0, 0, 1, "new", "new|old",                               \
      "automatic window of G1 plans without copies: c = 20 from 2^24 points (new, measured on the H100 " \
      "2026-12-06), or the table of 2026-12-02 (old: 16 up to 2^25, 18 from 2^26); G2 keeps the old; per MSM") \
    X(MSM_SEG, "msm_seg", "GS_CU_MSM_SEG", GS_CU_KF_POW2, 16, 1024, "32", NULL,                     \
      "MSM bucket reduction: buckets per thread's running sums (one double-and-add by jL per thread); per MSM") \
    X(MSM_T, "msm_t", "GS_CU_MSM_T", GS_CU_KF_AUTO, 1, 16, "auto", NULL,                            \
      "MSM precomputed copies used by every plan (at most those present); auto: planned")           \
    X(MSM_GLV, "msm_glv", "GS_CU_MSM_GLV", 0, 0, 1, "0", NULL,                                      \
      "G1 MSMs without precomputed copies: scalars split by the endomorphism (k = k1 + k2 X^2, 128-bit " \
      "halves over P and phi(P) sharing buckets; 1), window planned for it unless msm_c; per MSM")       \
    X(MSM_BA, "msm_ba", "GS_CU_MSM_BA", 0, 0, 1, "0", NULL,                                         \
      "G1 MSM level 1: each chunk's same-bucket entry pairs added in affine, one inversion per chunk " \
      "(Montgomery's trick), before the XYZZ additions (1); chunk size msm_s1; per MSM")              \
    X(MSM_BAT, "msm_bat", "GS_CU_MSM_BAT", 0, 0, 3, "0", NULL,                                       \
      "G1 MSM level 1 by a batch-affine tree: each bucket's entries halved pairwise in affine "       \
      "coordinates, round after round, one inversion per block of 128 threads, by divsteps "         \
      "(msm_bat_inv) in the round's kernel (1), Fermat there (2), or the round split in three "      \
      "kernels, every block's inversion in a kernel of its own (3); per MSM")                       \
    X(MSM_BAT_S, "msm_bat_s", "GS_CU_MSM_BAT_S", GS_CU_KF_POW2, 8, 64, "32", NULL,                  \
      "msm_bat: items per thread of a round (8 .. 64); per MSM")                                    \
    X(MSM_BAT_G, "msm_bat_g", "GS_CU_MSM_BAT_G", GS_CU_KF_AUTO, 1, 64, "auto", NULL,                \
      "msm_bat: groups (bucket sets) whose rounds run in one launch; auto: all whose lists fit "      \
      "16 GiB, in equal slabs; per MSM")                                                            \
    X(MSM_BAT_INV, "msm_bat_inv", "GS_CU_MSM_BAT_INV", 0, 0, 1, "0", NULL,                          \
      "msm_bat 1 and 3: the block's inversion by divsteps (0) or by the binary extended Euclid, "     \
      "the earlier form (1); per MSM")                                                              \
    X(MSM_KMUL, "msm_kmul", "GS_CU_MSM_KMUL", 0, 0, 1, "0", NULL,                                   \
      "G1 MSM level 1 (plans without GLV): the madd's multiplications by one level of Karatsuba on " \
      "six-word halves and a separate reduction (252 products instead of 288, cu_field_kara.cuh; 1); " \
      "msm_minb 2 and 3 built; per MSM")                                                            \
    X(MSM_FMUL, "msm_fmul", "GS_CU_MSM_FMUL", 0, 0, 2, "0", NULL,                                   \
      "G1 MSM level 1 (plans without GLV): the madd's lazy multiplications on the FP64 pipe (8 limbs " \
      "of 48 bits in doubles, cu_field_f64.h): all eight (1), or one of each independent pair beside " \
      "an integer one (2); msm_minb 2 and 3 built; per MSM")                                         \
    X(KEY_COPIES, "key_copies", "GS_CU_COPIES", GS_CU_KF_ONCE, 1, 16, "16", NULL,                   \
      "resident key: at most this many precomputed window copies per G1 point set; at load_pk")     \
    X(B2_COPIES, "b2_copies", "GS_CU_B2_COPIES", GS_CU_KF_ONCE, 1, 16, "16", NULL,                  \
      "resident key: at most this many precomputed window copies of B2's G2 points (1 = none); when " \
      "a proof first runs the G2 MSM on the device")                                                \
    X(STREAM_ORDER, "stream_order", "GS_CU_ORDER", 0, 0, 1, "new", "new|old",                       \
      "prove stream plan: pipelined (new) or the one before issue 14 (old); per proof")            \
    X(H_FIRST, "h_first", "GS_CU_H_FIRST", 0, 0, 1, "0", NULL,                                      \
      "prove: the witness MSMs wait for the H chain (a/b/c copies, NTTs) instead of running beside " \
      "it (1: a diagnostic, each stage's time alone); per proof")                                   \
    X(STREAM_PRIO, "stream_prio", "GS_CU_PRIO", GS_CU_KF_ONCE, 0, 1, "1", NULL,                     \
      "stream 1 (a/b/c, H NTTs) at the highest priority (1) or the default (0); at context creation") \
    X(COPY_THREADS, "copy_threads", "GS_CU_COPY_THREADS", 0, 1, 32, "8", NULL,                      \
      "host threads copying into the pinned staging buffers; per copy")                             \
    X(HOST_SYNC, "host_sync", "GS_CU_SYNC", GS_CU_KF_ONCE, 0, 3, "auto", "auto|spin|yield|block",   \
      "how a host thread waits for the device (cudaDeviceSchedule*): the runtime's choice (auto: "   \
      "spin while the process has fewer contexts than CPUs), spin, yield or block; at context "     \
      "creation")

typedef enum {
#define GS_CU_KNOB_ID(id, key, env, fl, lo, hi, def, ch, help) GS_CU_K_##id,
    GS_CU_KNOBS(GS_CU_KNOB_ID)
#undef GS_CU_KNOB_ID
    GS_CU_KNOB_COUNT
} gs_cu_knob_id;

/* host_sync's values, in its choices' order ("auto|spin|yield|block"). */
enum { GS_CU_SYNC_AUTO, GS_CU_SYNC_SPIN, GS_CU_SYNC_YIELD, GS_CU_SYNC_BLOCK };

typedef struct gs_cu_knob_def {
    const char *key;       /* scenario key in [gpu]; cuda-bench flag with '-' for '_' */
    const char *env;       /* the environment variable that overrides it */
    unsigned flags;        /* GS_CU_KF_* */
    int lo, hi;            /* range of a number */
    const char *def;       /* default, as text */
    const char *choices;   /* "a|b" or NULL */
    const char *help;
} gs_cu_knob_def;

/* The table row of k (k < GS_CU_KNOB_COUNT). */
const gs_cu_knob_def *gs_cu_knob_def_of(gs_cu_knob_id k);
/* The knob whose key is `key` ('-' matches '_'), -1 if none. */
int gs_cu_knob_find(const char *key);
/* Parses text as a value of k: 1 and *out on success, 0 otherwise. */
int gs_cu_knob_parse(gs_cu_knob_id k, const char *text, int *out);
/* What k accepts, for messages: "an integer in [9, 12]", "one of new|old". */
void gs_cu_knob_expects(gs_cu_knob_id k, char *out, size_t len);
/* v as text ("auto", a choice's name or the number). */
void gs_cu_knob_format(gs_cu_knob_id k, int v, char *out, size_t len);
int gs_cu_knob_default(gs_cu_knob_id k);

/* The value in effect (see the file comment). */
int gs_cu_knob(gs_cu_knob_id k);
/* 1 when the value in effect of a choice knob is the choice `name`. */
int gs_cu_knob_is(gs_cu_knob_id k, const char *name);
/* 1 when k's environment variable holds a valid value (in *v if not NULL). */
int gs_cu_knob_env(gs_cu_knob_id k, int *v);
/* Sets the configured value of k (v as gs_cu_knob_parse gives it). */
void gs_cu_knob_set(gs_cu_knob_id k, int v);
/* Every configured value back to its default. */
void gs_cu_knobs_reset(void);
/* GS_ERR_FORMAT naming the first knob variable in the environment that
 * holds an invalid value ("environment: GS_CU_NTT_TILE=15: ..."). */
gs_status gs_cu_knobs_env_check(gs_err *err);

/* The table for --help: one line per knob, indent first, then the key
 * (flag = 1: as a cuda-bench flag, "--ntt-tile N"), default, range, help
 * and the environment variable. */
void gs_cu_knobs_help(FILE *f, const char *indent, int flag);

#ifdef __cplusplus
}
#endif

#endif
