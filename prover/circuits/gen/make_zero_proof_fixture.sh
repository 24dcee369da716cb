#!/bin/sh
# Regenerates prover/circuits/testdata/merkle10_seed3_zero_proof.json: snarkjs's
# zero-blinding proof (r = s = 0) of the merkle_poseidon instance at 2^10
# constraints, seed 3, with the proving key from our seeded setup.
# test_circuits.c recomputes the same proof with our prover and compares.
# Needs: the layer libraries (make), node and the npm packages of `make deps`.
set -eu
cd "$(dirname "$0")/../../.."
make -s build/lib/circuits.a
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
L="build/lib/circuits.a build/lib/io.a build/lib/groth16.a build/lib/msm.a build/lib/poly.a"
L="$L build/lib/pairing.a build/lib/curve.a build/lib/field.a build/lib/common.a"
${CC:-cc} -std=c17 -O2 -o "$tmp/keys" prover/circuits/gen/zero_proof_keys.c $L -lm -pthread
"$tmp/keys" 10 3 "$tmp"
mkdir -p prover/circuits/testdata
node prover/circuits/gen/snarkjs_zero_prove.js "$PWD" "$tmp/circuit.zkey" "$tmp/witness.wtns" \
    prover/circuits/testdata/merkle10_seed3_zero_proof.json
echo "wrote prover/circuits/testdata/merkle10_seed3_zero_proof.json"
