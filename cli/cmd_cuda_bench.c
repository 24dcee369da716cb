/*
 * gapscope cuda-bench: throughput of the CUDA backend's pieces on one
 * device, for bench/RESULTS.md.  A front door: the argument table below
 * (parsing, usage and --help), the GPU tuning knobs as flags (knobs.h),
 * the measurements of prover/cuda/bench.h, and the output: one table line
 * per measurement (median of the repetitions) and, with --json, every
 * repetition as Google Benchmark JSON (bench/compare A.json B.json:
 * Mann-Whitney A/B test).
 *
 * JSON names (real_time in ms, ns for the field, one entry per timed
 * repetition, run_type "iteration", plus a "median" aggregate):
 * cuda/field/fp_mul and fr_mul (ns per multiplication of the whole chip),
 * cuda/ntt/K, cuda/msm_g1/K and cuda/msm_g2/K (device + host combine),
 * cuda/msm_g1_device/K, cuda/h2d/LOG/staged_tN|pageable|direct|register|
 * unregister, cuda/prove/K/pinned|pageable|direct (prove_start +
 * prove_finish) and cuda/prove/K/pinned|pageable|direct/STAGE;
 * cuda/prove/K/direct/pin and /unpin (ms to register and unregister the
 * assignment, one value).  With --sets every name of a measurement ends
 * in @SET (the set's text: cuda/msm_g1/24@msm_ba=1).  The context holds
 * the device and the knobs in effect (before any set).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../prover/cuda/bench.h"
#include "../prover/cuda/knobs.h"
#include "cli.h"
#include "cli_util.h"
#include "cuda_bench.h"

/* The argument table: parsing, the usage line and --help read it. */
static const struct {
    const char *flag, *arg, *help;
} args[A_COUNT] = {
    [A_FIELD] = { "--field", NULL, "Fp and Fr Montgomery multiplications per second" },
    [A_NTT] = { "--ntt", "LO:HI", "forward NTT (natural order), 2^LO .. 2^HI, device data" },
    [A_MSM] = { "--msm", "LO:HI", "G1 MSM, 2^LO .. 2^HI, points and scalars on the device; device time "
                                  "(events) and the host window combination" },
    [A_MSM2] = { "--msm-g2", "LO:HI", "the same for the G2 MSM" },
    [A_H2D] = { "--h2d", "LOG", "host -> device copy of 2^LOG scalars (32 bytes each, LOG 10..28): staged "
                                "through the pinned buffers with 4, 8, 12 and 16 host copy threads "
                                "(copy_threads), pageable, and direct from the buffer page-locked in place "
                                "(its cost and the unregister's timed apart); wall time of upload + sync" },
    [A_PROVE] = { "--prove", "LO:HI", "full proofs through the backend on a synthetic key (domain 2^k, "
                                      "n_vars = 2^k, B2 density 1/16), SRS resident: per-stage times, "
                                      "prove_start, prove_finish" },
    [A_G2DEV] = { "--g2-device", NULL, "--prove runs the G2 MSM of B on the device" },
    [A_CLASSIC] = { "--classic", NULL, "--prove with a classic-convention key instead of snarkjs's" },
    [A_CHECK] = { "--check", NULL, "MSM: compare sizes <= 2^20 (G2: 2^18) with the CPU MSM" },
    [A_REPS] = { "--reps", "N", "timed repetitions after one warm-up (median; 1..64, default 5)" },
    [A_WINDOW] = { "--window", "C", "MSM window bits (default: automatic)" },
    [A_COPIES] = { "--copies", "T", "G1 MSM over points with T (0..16) precomputed window copies (window: "
                                    "--window, else planned for 2^HI); timed: preparation + MSM" },
    [A_BOOL] = { "--bool", "PCT", "--prove: PCT% of the witness scalars are 0 or 1 (half each)" },
    [A_STAGING] = { "--staging", "S", "--prove: how a/b/c and the witness reach the device, a list of "
                                      "pinned, pageable, direct (the assignment page-locked in place); "
                                      "both = pinned,pageable (default), all" },
    [A_VARIANTS] = { "--variants", "LIST", "G1 MSM: time each FV/MINB item of LIST in turn (knobs msm_fv, "
                                           "msm_minb), e.g. 0/1,7/3; names get _fvFVmMINB" },
    [A_SETS] = { "--sets", "LIST", "run every --ntt, --msm, --msm-g2 and --prove measurement once per knob "
                                   "set of LIST, in turn on the same inputs (a key is built once): sets "
                                   "separated by ';', each 'default' or KEY=VALUE,... of knobs read per "
                                   "run, e.g. 'default;msm_ba=1;msm_glv=1,msm_c=20'; names get @SET" },
    [A_DEVICE] = { "--device", "N", "device index (default 0)" },
    [A_JSON] = { "--json", "FILE", "also write every repetition as Google Benchmark JSON (\"-\": to "
                                   "stdout, the table to stderr); written also when a measurement fails "
                                   "part way, with what was measured before it" },
    [A_HELP] = { "--help", NULL, "this text" },
};

static int parse_range(const char *s, unsigned *lo, unsigned *hi)
{
    unsigned a, b;
    char c;
    if (sscanf(s, "%u:%u%c", &a, &b, &c) == 2 && a <= b && b <= 31) {
        *lo = a;
        *hi = b;
        return 1;
    }
    if (sscanf(s, "%u%c", &a, &c) == 1 && a <= 31) {
        *lo = *hi = a;
        return 1;
    }
    return 0;
}

/* --staging: a comma-separated list of pinned, pageable, direct, both,
 * all; the STG_* bits, or -1. */
static int parse_staging(const char *v)
{
    static const struct { const char *name; int bits; } names[] = {
        { "pinned", STG_PINNED }, { "pageable", STG_PAGEABLE }, { "direct", STG_DIRECT },
        { "both", STG_PINNED | STG_PAGEABLE }, { "all", STG_PINNED | STG_PAGEABLE | STG_DIRECT },
    };
    int bits = 0;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && !strncmp(p, names[i].name, len)) {
                bits |= names[i].bits;
                found = 1;
            }
        if (!found) return -1;
        p += len;
        if (*p == ',') p++;
    }
    return bits ? bits : -1;
}

/* text from column 21 on, in lines of at most 100 columns. */
static void help_text(FILE *f, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t len = strlen(p);
        if (len > 79) {
            len = 79;
            while (len > 0 && p[len] != ' ') len--;
            if (len == 0) len = strcspn(p, " ");
        }
        fprintf(f, "%.*s\n", (int)len, p);
        p += len;
        while (*p == ' ') p++;
        if (*p) fprintf(f, "%21s", "");
    }
}

static void usage(FILE *f, int full)
{
    fprintf(f, "usage: gapscope cuda-bench");
    for (int a = 0; a < A_COUNT; a++)
        fprintf(f, " [%s%s%s]", args[a].flag, args[a].arg ? " " : "", args[a].arg ? args[a].arg : "");
    fprintf(f, " [--KNOB VALUE ...]\n");
    if (!full) return;
    fprintf(f, "Throughput of the CUDA backend's pieces on one device (bench/RESULTS.md).\n\noptions:\n");
    for (int a = 0; a < A_COUNT; a++) {
        char fl[40];
        snprintf(fl, sizeof fl, "%s%s%s", args[a].flag, args[a].arg ? " " : "", args[a].arg ? args[a].arg : "");
        fprintf(f, "  %-18s ", fl);
        help_text(f, args[a].help);
    }
    fprintf(f, "\nGPU tuning knobs (prover/cuda/knobs.h; the same as a scenario's [gpu] keys): --KNOB VALUE\n"
               "sets one; its environment variable, when set, overrides it.  The defaults are the tuned\n"
               "values; the knobs change how a result is computed, never the result.\n");
    gs_cu_knobs_help(f, "  ", 1);
}

/* Parses argv into o and the knobs; 0 ok, else the exit code. */
static int parse(gs_cuda_bench_opts *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int id = -1, k = -1, ok = 1, x;
        for (int j = 0; j < A_COUNT && id < 0; j++)
            if (!strcmp(a, args[j].flag)) id = j;
        if (id < 0 && a[0] == '-' && a[1] == '-') k = gs_cu_knob_find(a + 2);
        if (id == A_HELP || !strcmp(a, "-h")) {
            usage(stdout, 1);
            return -1;
        }
        if ((id < 0 && k < 0) || ((k >= 0 || args[id].arg) && !v)) {
            usage(stderr, 0);
            return GS_EXIT_USAGE;
        }
        if (k >= 0) {
            if (!gs_cu_knob_parse((gs_cu_knob_id)k, v, &x)) {
                char want[96];
                gs_cu_knob_expects((gs_cu_knob_id)k, want, sizeof want);
                fprintf(stderr, "gapscope cuda-bench: %s %s: expected %s\n", a, v, want);
                return GS_EXIT_USAGE;
            }
            gs_cu_knob_set((gs_cu_knob_id)k, x);
            i++;
            continue;
        }
        o->on[id] = 1;
        switch (id) {
        case A_NTT: case A_MSM: case A_MSM2: case A_PROVE: ok = parse_range(v, &o->lo[id], &o->hi[id]); break;
        case A_H2D: o->h2d_log = atoi(v); ok = o->h2d_log >= 10 && o->h2d_log <= 28; break;
        case A_REPS: o->reps = atoi(v); break;
        case A_WINDOW: o->window = atoi(v); break;
        case A_DEVICE: o->device = atoi(v); break;
        case A_COPIES: o->copies = atoi(v); break;
        case A_BOOL: o->bool_pct = atoi(v); break;
        case A_JSON: o->json = v; break;
        case A_STAGING: ok = (o->staging = parse_staging(v)) > 0; break;
        case A_SETS: {
            char why[160];
            o->nsets = gs_cuda_bench_parse_sets(o->sets, v, why, sizeof why);
            if (o->nsets < 0) {
                fprintf(stderr, "gapscope cuda-bench: --sets '%s': %s\n", v, why);
                return GS_EXIT_USAGE;
            }
            break;
        }
        case A_VARIANTS: {
            int fv, minb;
            o->variants = v;
            for (const char *p = v; ok && *p;) ok = gs_cuda_bench_next_variant(&p, &fv, &minb);
            ok = ok && *v && v[strlen(v) - 1] != ',';
            break;
        }
        default: break;
        }
        if (!ok) {
            usage(stderr, 0);
            return GS_EXIT_USAGE;
        }
        i += args[id].arg ? 1 : 0;
    }
    if (o->reps < 1 || o->reps > GS_CU_BENCH_MAX_REPS) {
        fprintf(stderr, "gapscope cuda-bench: --reps must be 1..64\n");
        return GS_EXIT_USAGE;
    }
    if (o->copies < 0 || o->copies > 16 || o->bool_pct < 0 || o->bool_pct > 100) {
        fprintf(stderr, "gapscope cuda-bench: --copies must be 0..16 and --bool 0..100\n");
        return GS_EXIT_USAGE;
    }
    /* The sweeps set these knobs themselves: an override would void them. */
    const struct { int on; gs_cu_knob_id k; const char *what; } sweeps[] = {
        { o->on[A_H2D], GS_CU_K_COPY_THREADS, "--h2d" },
        { o->variants != NULL, GS_CU_K_MSM_FV, "--variants" },
        { o->variants != NULL, GS_CU_K_MSM_MINB, "--variants" },
    };
    for (size_t s = 0; s < sizeof sweeps / sizeof sweeps[0]; s++)
        if (sweeps[s].on && getenv(gs_cu_knob_def_of(sweeps[s].k)->env)) {
            fprintf(stderr, "gapscope cuda-bench: %s sets the knob %s; unset %s in the environment, which "
                            "would override it\n", sweeps[s].what, gs_cu_knob_def_of(sweeps[s].k)->key,
                    gs_cu_knob_def_of(sweeps[s].k)->env);
            return GS_EXIT_USAGE;
        }
    for (int s = 0; s < o->nsets; s++)
        for (int i = 0; i < o->sets[s].n; i++) {
            const gs_cu_knob_def *d = gs_cu_knob_def_of((gs_cu_knob_id)o->sets[s].knob[i]);
            if (getenv(d->env)) {
                fprintf(stderr, "gapscope cuda-bench: --sets sets the knob %s; unset %s in the environment, "
                                "which would override it\n", d->key, d->env);
                return GS_EXIT_USAGE;
            }
        }
    return 0;
}

static int bench_main(int argc, char **argv)
{
    gs_cuda_bench_opts o = { .reps = 5, .staging = STG_PINNED | STG_PAGEABLE };
    gs_err err;
    gs_err_clear(&err);
    gs_cu_bench *b = NULL;
    gs_cu_knobs_reset();
    int rc = parse(&o, argc, argv);
    if (rc) return rc < 0 ? GS_EXIT_OK : rc;
    gs_status st = gs_cu_knobs_env_check(&err);
    if (st == GS_OK) st = gs_cu_bench_open(&b, o.device, &err);
    if (st == GS_ERR_UNSUPPORTED) {
        fprintf(stderr, "gapscope cuda-bench: this build has no CUDA (rebuild with CUDA=1)\n");
        return GS_EXIT_USAGE;
    }
    if (st == GS_OK) st = gs_cuda_bench_run(b, &o, o.json && !strcmp(o.json, "-") ? stderr : stdout, &err);
    gs_cu_bench_close(b);
    gs_cu_knobs_reset();
    if (st != GS_OK) return gs_cli_fail("cuda-bench", &err);
    return GS_EXIT_OK;
}

GS_CLI_COMMAND(cuda_bench, "cuda-bench", "CUDA backend microbenchmarks (field, NTT, MSM, prove)",
               bench_main)
