#!/usr/bin/env bash
# Regenerates the snarkjs interop fixtures in test/fixtures/ with circom
# (npm circom2) and snarkjs 0.7.6 from ./node_modules (make deps installs
# them).  Takes ~30 s.  The outputs are committed; rerun only to refresh.
#
#   test/fixtures/chain.circom            the circuit (100 squarings, public k)
#   test/fixtures/chain.r1cs, chain.wtns  compiled for bls12381; witness for x=3, k=11
#   test/fixtures/chain.zkey              snarkjs groth16 setup + one contribution (power-8 ptau)
#   test/fixtures/chain_vk.json           snarkjs zkey export verificationkey
#   test/fixtures/chain_proof.json, chain_public.json   snarkjs groth16 prove
#   test/fixtures/chain_bn128.r1cs, chain_bn128.zkey, chain_bn128.wtns   the same for bn128
#                                         (to test the "unsupported curve" errors)
set -euo pipefail
cd "$(dirname "$0")/.."
S=$PWD/node_modules/.bin
F=$PWD/test/fixtures
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp "$F/chain.circom" "$W/"
cd "$W"
echo '{"x": "3", "k": "11"}' > input.json
for curve in bls12381 bn128; do
  mkdir -p $curve && cd $curve
  "$S/circom2" ../chain.circom --r1cs --wasm --prime $curve -o . >/dev/null
  node chain_js/generate_witness.js chain_js/chain.wasm ../input.json chain.wtns
  "$S/snarkjs" powersoftau new $curve 8 pot0.ptau >/dev/null
  "$S/snarkjs" powersoftau contribute pot0.ptau pot1.ptau -e="gapscope fixture $curve" >/dev/null
  "$S/snarkjs" powersoftau prepare phase2 pot1.ptau pot.ptau >/dev/null
  "$S/snarkjs" groth16 setup chain.r1cs pot.ptau c0.zkey >/dev/null
  "$S/snarkjs" zkey contribute c0.zkey chain.zkey -e="gapscope fixture 2 $curve" >/dev/null
  cd ..
done
cp bls12381/chain.r1cs bls12381/chain.wtns bls12381/chain.zkey "$F/"
cd bls12381
"$S/snarkjs" zkey export verificationkey chain.zkey "$F/chain_vk.json" >/dev/null
"$S/snarkjs" groth16 prove chain.zkey chain.wtns "$F/chain_proof.json" "$F/chain_public.json"
"$S/snarkjs" groth16 verify "$F/chain_vk.json" "$F/chain_public.json" "$F/chain_proof.json"
cd ..
cp bn128/chain.r1cs "$F/chain_bn128.r1cs"
cp bn128/chain.zkey "$F/chain_bn128.zkey"
cp bn128/chain.wtns "$F/chain_bn128.wtns"
echo "fixtures written to $F"
