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
#include "cli_opts.h"
#include "cli_util.h"

typedef struct {
    const char *family, *out, *r1cs;
    uint64_t log, seed, threads;
    int quiet;
} setup_args;

static const gs_cli_opt setup_opts[] = {
    GS_CLI_STR("--circuit", NULL, "NAME", "merkle_poseidon (default) or porep_sha", setup_args,
               family),
    GS_CLI_UINT("--log", "N", 26, "about 2^N constraints", setup_args, log),
    GS_CLI_STR("--r1cs", NULL, "FILE", "a circom-compiled circuit instead (--prime bls12381)",
               setup_args, r1cs),
    GS_CLI_UINT("--seed", "S", UINT64_MAX, "the trapdoor's seed (default 1): INSECURE", setup_args,
                seed),
    GS_CLI_STR("--out", NULL, "DIR", "output directory (default setup-<circuit>-<N>, setup-r1cs)",
               setup_args, out),
    GS_CLI_UINT("--threads", "N", 4096, "CPU threads (default: all cores)", setup_args, threads),
    GS_CLI_FLAG("--quiet", "-q", "no progress lines", setup_args, quiet),
    GS_CLI_END};

static const gs_cli_spec setup_spec = {
    .cmd = "setup",
    .usage = "usage: gapscope setup [--circuit merkle_poseidon|porep_sha] --log N [--seed S] [--out DIR]\n"
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
             "The trapdoor comes from --seed: INSECURE, for tests and benchmarks only.\n\n",
    .opts = setup_opts,
    .bad = "unexpected argument '%s'",
};

/* dir/circuit.zkey and dir/verification_key.json. */
static gs_status write_keys(const char *dir, const gs_pk *pk, const gs_vk *vk, gs_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/circuit.zkey", dir);
    gs_status st = gs_zkey_write(path, pk, err);
    if (st != GS_OK)
        return st;
    snprintf(path, sizeof path, "%s/verification_key.json", dir);
    return gs_vk_json_write(path, vk, err);
}

static int setup_main(int argc, char **argv)
{
    setup_args a = {.family = "merkle_poseidon", .log = UINT64_MAX, .seed = 1};
    int rc = gs_cli_parse(&setup_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    if ((a.log != UINT64_MAX) == (a.r1cs != NULL))
        return gs_cli_usage_error(&setup_spec);
    const char *family = a.family, *out = a.out, *r1cs_path = a.r1cs;
    uint64_t log = a.log, seed = a.seed, threads = a.threads;
    int quiet = a.quiet;
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
    rc = GS_EXIT_OK;
    if (gs_pool_create(&pool, (unsigned)threads, &err) != GS_OK)
        goto fail;
    if (r1cs_path) {
        gs_cli_progress(quiet, "reading %s", r1cs_path);
        if (gs_r1cs_read(&ext, r1cs_path, &err) != GS_OK)
            goto fail;
        gs_cli_progress(quiet, "%u constraints, %u wires; INSECURE setup from seed %llu",
                        ext.n_constraints, ext.n_wires, (unsigned long long)seed);
        if (gs_groth16_setup_seeded(&pk, &vk, &ext, seed, pool, &err) != GS_OK ||
            write_keys(dir, &pk, &vk, &err) != GS_OK)
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
    if (write_keys(dir, &pk, &vk, &err) != GS_OK)
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
