/*
 * gapscope prove circuit.zkey witness.wtns proof.json public.json
 * (rapidsnark's argument order): a Groth16 proof that snarkjs verifies.
 *
 * The key's points are subgroup-checked on first use and the result is
 * remembered by the key's SHA-256 in a key record (prover/io/io.h,
 * keyrec.c), so later proves with the same bytes skip the checks; the file
 * is hashed on every load (overlapped with decoding), so a changed key is
 * always checked again.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "../prover/cuda/cuda.h"
#include "../prover/groth16/backend.h"
#include "../prover/io/io.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_util.h"

typedef struct {
    gs_cli_list pos;
    const char *backend, *records;
    int quiet, zero, g2_device, check_key, trusted;
    uint64_t threads, device;
} prove_args;

static const gs_cli_opt prove_opts[] = {
    GS_CLI_UINT("--threads", "N", 4096, "CPU threads (default: all cores)", prove_args, threads),
    GS_CLI_STR("--backend", NULL, "B", "cpu (default) or cuda", prove_args, backend),
    GS_CLI_UINT("--device", "N", 64, "CUDA device (default 0)", prove_args, device),
    GS_CLI_FLAG("--g2-device", NULL,
                "with --backend cuda: the G2 MSM of B on the GPU too\n"
                "(default: on the CPU, as production provers do)",
                prove_args, g2_device),
    GS_CLI_FLAG("--check-key", NULL,
                "run the subgroup checks of every key point now, even if a\n"
                "key record says this key passed them (and renew the record)",
                prove_args, check_key),
    GS_CLI_FLAG("--trusted-key", NULL,
                "skip subgroup checks of the key's points (on-curve is\n"
                "always checked); for keys you produced yourself",
                prove_args, trusted),
    GS_CLI_STR("--key-records", NULL, "DIR",
               "where key records live (default $GAPSCOPE_KEY_RECORDS, else\n"
               "$XDG_CACHE_HOME/gapscope/keys or ~/.cache/gapscope/keys);\n"
               "'off': no records, check on every prove",
               prove_args, records),
    GS_CLI_FLAG("--zero-blinding", NULL,
                "r = s = 0: deterministic proof (testing only: NOT zero-knowledge)", prove_args,
                zero),
    GS_CLI_FLAG("--quiet", "-q", "no progress lines", prove_args, quiet),
    GS_CLI_END};

static const gs_cli_spec prove_spec = {
    .cmd = "prove",
    .usage = "usage: gapscope prove [options] circuit.zkey witness.wtns proof.json public.json\n"
             "\n"
             "Reads a snarkjs Groth16 proving key (bls12381) and a witness, writes the\n"
             "proof and the public signals in snarkjs's JSON layout.\n"
             "\n",
    .notes = "\n"
             "Key checks: the first prove with a key checks that every point is in its\n"
             "prime-order subgroup (a batch test over all cores; a point outside is an error\n"
             "naming its byte offset) and writes a record DIR/<sha256>.rec.  Every prove\n"
             "hashes the key as it reads it; a record for that digest skips the checks.\n"
             "Records are bound to digest, size and checker version and authenticated by\n"
             "DIR/.secret; delete DIR to forget them.\n",
    .opts = prove_opts,
    GS_CLI_ARGS(prove_args, pos, 4, 4),
    .bad = "unknown option '%s'",
    .bad_opts_only = 1,
};

/* The witness is read on its own thread while the key loads (the load
 * leaves a core partly idle; the read is a few ms at 2^16). */
typedef struct {
    const char *path;
    gs_scalar *w;
    uint32_t n;
    gs_status st;
    gs_err err;
} wtns_job;

static void *wtns_thread(void *arg)
{
    wtns_job *j = arg;
    gs_err_clear(&j->err);
    j->st = gs_wtns_read(&j->w, &j->n, j->path, &j->err);
    return NULL;
}

static int prove_main(int argc, char **argv)
{
    prove_args a = {.backend = "cpu"};
    int rc = gs_cli_parse(&prove_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    const char *const *pos = a.pos.v, *backend = a.backend;
    int quiet = a.quiet, zero = a.zero, g2_device = a.g2_device;
    int check_key = a.check_key, trusted = a.trusted;
    uint64_t threads = a.threads, device = a.device;
    gs_zkey_opts zo = {GS_ZKEY_CHECK_AUTO, NULL};
    if (a.records)
        zo.record_dir = strcmp(a.records, "off") ? a.records : "";
    if (trusted && check_key) {
        fprintf(stderr, "gapscope prove: --trusted-key and --check-key contradict each other\n");
        return GS_EXIT_USAGE;
    }
    zo.check = trusted ? GS_ZKEY_CHECK_SKIP : check_key ? GS_ZKEY_CHECK_FORCE : GS_ZKEY_CHECK_AUTO;
    if (strcmp(backend, "cpu") && strcmp(backend, "cuda")) {
        fprintf(stderr, "gapscope prove: --backend must be cpu or cuda, got '%s'\n", backend);
        return GS_EXIT_USAGE;
    }
    if (g2_device && strcmp(backend, "cuda")) {
        fprintf(stderr, "gapscope prove: --g2-device needs --backend cuda\n");
        return GS_EXIT_USAGE;
    }
    gs_err err;
    gs_err_clear(&err);
    gs_pk pk;
    memset(&pk, 0, sizeof pk);
    gs_scalar *w = NULL;
    uint32_t n_w = 0;
    gs_assignment as;
    memset(&as, 0, sizeof as);
    gs_pool *pool = NULL;
    gs_backend *be = NULL;
    gs_prove_state *st = NULL;
    gs_proof proof;
    gs_stage_list stages = {0};
    rc = GS_EXIT_OK;

    if (gs_pool_create(&pool, (unsigned)threads, &err) != GS_OK)
        goto fail;
    gs_cli_progress(quiet, "reading %s", pos[0]);
    wtns_job wj = {.path = pos[1]};
    pthread_t wt;
    int wt_on = pthread_create(&wt, NULL, wtns_thread, &wj) == 0;
    if (!wt_on)
        wtns_thread(&wj);
    gs_zkey_info ki;
    gs_status ks = gs_zkey_load(&pk, &ki, pos[0], &zo, pool, &err);
    if (wt_on)
        pthread_join(wt, NULL);
    w = wj.w;
    n_w = wj.n;
    if (ks != GS_OK)
        goto fail;
    gs_cli_progress(quiet, "key: %u wires, %u public, domain 2^%u, %.1f MB, sha256 %.16s..., "
                    "read in %.3f s", pk.n_vars, pk.n_public, pk.log_domain,
                    (double)ki.size / 1e6, ki.sha256, ki.read_s);
    if (ki.checked)
        gs_cli_progress(quiet, "key: subgroup checks of %zu points passed in %.3f s%s%s",
                        ki.points, ki.check_s, ki.record_written ? "; record " : "",
                        ki.record_written ? ki.record_path : "");
    else if (ki.record_found)
        gs_cli_progress(quiet, "key: checked before (record %s)", ki.record_path);
    else
        gs_cli_progress(quiet, "key: subgroup checks skipped (--trusted-key)");
    if (ki.record_note[0])
        gs_cli_progress(quiet, "key: note: %s", ki.record_note);
    if (wj.st != GS_OK) {
        err = wj.err;
        goto fail;
    }
    if (n_w != pk.n_vars) {
        gs_err_set(&err, GS_ERR_MISMATCH, "prove", pos[1],
                   "witness has %u values but %s expects %u (nVars)", n_w, pos[0], pk.n_vars);
        goto fail;
    }
    if (gs_assignment_from_witness_pool(&as, &pk, w, n_w, pool, &err) != GS_OK)
        goto fail;
    /* The coefficients made a, b, c; the backends use only the points. */
    free(pk.coefs);
    pk.coefs = NULL;
    pk.n_coefs = 0;
    gs_scalar r = {{0}}, s = {{0}};
    if (!zero && gs_groth16_random_rs(&r, &s, &err) != GS_OK)
        goto fail;
    if (!strcmp(backend, "cuda")) {
        if (gs_backend_cuda_create(&be, (int)device, &err) != GS_OK)
            goto fail;
    } else if (gs_backend_cpu_create(&be, (int)threads, &err) != GS_OK) {
        goto fail;
    }
    if (be->ops->load_pk(be, &pk, &err) != GS_OK)
        goto fail;
    gs_cli_progress(quiet, "proving on %s", be->ops->describe(be));
    /* One proof: the assignment is the CPU prover's scratch (no copies). */
    gs_prove_opts opts = {.pageable = 0, .threads = (int)threads, .g2_on_device = g2_device,
                          .consume = 1};
    if (be->ops->prove_start(be, &pk, &as, &r, &s, &opts, &st, &stages, &err) != GS_OK)
        goto fail;
    gs_status ps = be->ops->prove_finish(be, st, &proof, &stages, &err);
    st = NULL;
    if (ps != GS_OK)
        goto fail;
    for (int i = 0; i < stages.n && !quiet; i++)
        fprintf(stderr, "           stage %-18s %9.3f ms\n", stages.s[i].name,
                (double)(stages.s[i].end_ns - stages.s[i].start_ns) / 1e6);
    if (gs_proof_json_write(pos[2], &proof, &err) != GS_OK)
        goto fail;
    if (gs_public_json_write(pos[3], w + 1, pk.n_public, &err) != GS_OK) {
        remove(pos[2]);
        goto fail;
    }
    gs_cli_progress(quiet, "wrote %s and %s", pos[2], pos[3]);
    goto done;
fail:
    rc = gs_cli_fail("prove", &err);
done:
    if (st)
        be->ops->prove_abort(be, st);
    if (be)
        be->ops->destroy(be);
    gs_assignment_free(&as);
    free(w);
    gs_pk_free(&pk);
    gs_pool_destroy(pool);
    return rc;
}

GS_CLI_COMMAND(prove, "prove", "Groth16 proof from a snarkjs .zkey and .wtns", prove_main)
