/*
 * gapscope setup: keys and a sample witness for a native circuit, in
 * snarkjs's file formats, from an INSECURE test ceremony (the trapdoor is
 * derived from --seed).  For benchmarks and interop, never for production.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../prover/circuits/circuits.h"
#include "../common/pool.h"
#include "../prover/io/io.h"
#include "cli.h"
#include "cli_util.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gapscope setup [--circuit merkle_poseidon|porep_sha] --log N [--seed S] [--out DIR]\n"
            "                      [--threads N] [--quiet]\n"
            "       gapscope setup --r1cs circuit.r1cs [--seed S] [--out DIR] [--threads N]\n"
            "\n"
            "Builds the native circuit with about 2^N constraints and writes, in DIR\n"
            "(default: setup-<circuit>-<N>):\n"
            "  circuit.zkey             proving key (snarkjs .zkey, bls12381)\n"
            "  verification_key.json    its verification key\n"
            "  witness.wtns             a witness of one synthesized instance\n"
            "With --r1cs, the keys of a circom-compiled circuit (--prime bls12381) instead,\n"
            "for benchmarks on circuits from elsewhere (witnesses come from circom's wasm;\n"
            "DIR defaults to setup-r1cs).\n"
            "The trapdoor comes from --seed: INSECURE, for tests and benchmarks only.\n");
}

static int setup_main(int argc, char **argv)
{
    const char *family = "merkle_poseidon", *out = NULL, *r1cs_path = NULL;
    uint64_t log = 0, seed = 1, threads = 0;
    int quiet = 0, have_log = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--circuit") && i + 1 < argc) {
            family = argv[++i];
        } else if (!strcmp(a, "--log") && i + 1 < argc) {
            if (!gs_cli_parse_uint("setup", a, argv[++i], 26, &log))
                return GS_EXIT_USAGE;
            have_log = 1;
        } else if (!strcmp(a, "--seed") && i + 1 < argc) {
            if (!gs_cli_parse_uint("setup", a, argv[++i], UINT64_MAX, &seed))
                return GS_EXIT_USAGE;
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            if (!gs_cli_parse_uint("setup", a, argv[++i], 4096, &threads))
                return GS_EXIT_USAGE;
        } else if (!strcmp(a, "--r1cs") && i + 1 < argc) {
            r1cs_path = argv[++i];
        } else if (!strcmp(a, "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
        } else {
            fprintf(stderr, "gapscope setup: unexpected argument '%s'\n", a);
            usage(stderr);
            return GS_EXIT_USAGE;
        }
    }
    if (have_log == (r1cs_path != NULL)) {
        usage(stderr);
        return GS_EXIT_USAGE;
    }
    char dir[1024], path[1200];
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else if (r1cs_path)
        snprintf(dir, sizeof dir, "setup-r1cs");
    else
        snprintf(dir, sizeof dir, "setup-%s-%u", family, (unsigned)log);
    gs_err err;
    gs_err_clear(&err);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        gs_err_set(&err, GS_ERR_IO, "setup", dir, "cannot create directory: %s", strerror(errno));
        return gs_cli_fail("setup", &err);
    }
    gs_circuit *c = NULL;
    gs_pool *pool = NULL;
    gs_pk pk;
    gs_vk vk;
    gs_assignment as;
    gs_r1cs ext;
    memset(&pk, 0, sizeof pk);
    memset(&vk, 0, sizeof vk);
    memset(&as, 0, sizeof as);
    memset(&ext, 0, sizeof ext);
    int rc = GS_EXIT_OK;
    if (gs_pool_create(&pool, (unsigned)threads, &err) != GS_OK)
        goto fail;
    if (r1cs_path) {
        gs_cli_progress(quiet, "reading %s", r1cs_path);
        if (gs_r1cs_read(&ext, r1cs_path, &err) != GS_OK)
            goto fail;
        gs_cli_progress(quiet, "%u constraints, %u wires; INSECURE setup from seed %llu",
                        ext.n_constraints, ext.n_wires, (unsigned long long)seed);
        if (gs_groth16_setup_seeded(&pk, &vk, &ext, seed, pool, &err) != GS_OK)
            goto fail;
        snprintf(path, sizeof path, "%s/circuit.zkey", dir);
        if (gs_zkey_write(path, &pk, &err) != GS_OK)
            goto fail;
        snprintf(path, sizeof path, "%s/verification_key.json", dir);
        if (gs_vk_json_write(path, &vk, &err) != GS_OK)
            goto fail;
        gs_cli_progress(quiet, "wrote %s/{circuit.zkey,verification_key.json}", dir);
        goto done;
    }
    gs_cli_progress(quiet, "building circuit %s at 2^%u constraints", family, (unsigned)log);
    if (gs_circuit_create(&c, family, (uint32_t)log, &err) != GS_OK)
        goto fail;
    const gs_r1cs *r1cs = gs_circuit_r1cs(c);
    gs_cli_progress(quiet, "%u constraints, %u wires; INSECURE setup from seed %llu",
                    r1cs->n_constraints, r1cs->n_wires, (unsigned long long)seed);
    if (gs_groth16_setup_seeded(&pk, &vk, r1cs, seed, pool, &err) != GS_OK)
        goto fail;
    gs_cli_progress(quiet, "synthesizing a witness");
    if (gs_circuit_synthesize(c, &pk, seed, &as, &err) != GS_OK)
        goto fail;
    {
        /* Share of 0/1 witness values (the GPU MSMs drop 0s and sum the
         * points of 1s without buckets; PoRep witnesses are mostly bits). */
        size_t bits = 0;
        for (uint32_t i = 0; i < as.n_vars; i++) {
            const uint64_t *l = as.w[i].l;
            bits += (l[1] | l[2] | l[3]) == 0 && l[0] <= 1;
        }
        gs_cli_progress(quiet, "witness: %u wires, %.1f%% of them 0 or 1", as.n_vars,
                        as.n_vars ? 100.0 * (double)bits / as.n_vars : 0.0);
    }
    snprintf(path, sizeof path, "%s/circuit.zkey", dir);
    if (gs_zkey_write(path, &pk, &err) != GS_OK)
        goto fail;
    snprintf(path, sizeof path, "%s/verification_key.json", dir);
    if (gs_vk_json_write(path, &vk, &err) != GS_OK)
        goto fail;
    snprintf(path, sizeof path, "%s/witness.wtns", dir);
    if (gs_wtns_write(path, as.w, as.n_vars, &err) != GS_OK)
        goto fail;
    gs_cli_progress(quiet, "wrote %s/{circuit.zkey,verification_key.json,witness.wtns}", dir);
    goto done;
fail:
    rc = gs_cli_fail("setup", &err);
done:
    gs_r1cs_free(&ext);
    gs_assignment_free(&as);
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_circuit_destroy(c);
    gs_pool_destroy(pool);
    return rc;
}

GS_CLI_COMMAND(setup, "setup", "keys + witness for a native circuit (INSECURE test setup)", setup_main)
