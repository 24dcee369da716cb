#!/usr/bin/env bash
# Builds a foreign (circom-compiled) Groth16 key the way a snarkjs user does:
# circom2 --prime bls12381, a powers-of-tau ceremony, snarkjs groth16 setup,
# one phase-2 contribution, and a witness from circom's wasm.
#
#   bench/circom/make-key.sh LOG [MODE]     MODE = merkle (default) | chain
#   KEYGEN=gapscope bench/circom/make-key.sh LOG [MODE]
#
# KEYGEN=gapscope makes the key with `gapscope setup --r1cs` (the same
# INSECURE test ceremony as `gapscope setup`, seconds instead of the
# powers-of-tau's minutes) into build/bench/circom-MODE-LOG-gapscope/; the
# circuit, the witness and snarkjs's role as the prover to beat are the same.
#
# Writes build/bench/circom-MODE-LOG/{circuit.circom, circuit.r1cs,
# circuit.zkey, witness.wtns, verification_key.json, input.json} for a Poseidon
# circuit (bench/circom/gen_poseidon_circom.py) whose domain is 2^LOG: as
# many 243-constraint hashes as fit.  The powers of tau (power 16, for LOG
# <= 16) is made once in build/bench/ptau/.  2^16 takes ~10 min on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG=${1:?usage: bench/circom/make-key.sh LOG [merkle|chain]}
MODE=${2:-merkle}
ROOT=$PWD
S=$ROOT/node_modules/.bin
KEYGEN=${KEYGEN:-snarkjs}
D=$ROOT/build/bench/circom-$MODE-$LOG$([ "$KEYGEN" = snarkjs ] || echo "-$KEYGEN")
P=$ROOT/build/bench/ptau
POW=16
[ "$LOG" -le "$POW" ] || { echo "LOG <= $POW only (the ptau's power)" >&2; exit 2; }
[ -x "$S/circom2" ] && [ -x "$S/snarkjs" ] || { echo "circom2/snarkjs missing: make deps" >&2; exit 2; }
# Levels: the O2-simplified circuit has 242 constraints per level (merkle) /
# 241 (chain) plus the public output; snarkjs's domain is the next power of
# two >= constraints + public + 1.
PER=$([ "$MODE" = merkle ] && echo 242 || echo 241)
LEVELS=$(( ((1 << LOG) - 2) / PER ))
mkdir -p "$D" "$P"
if [ "$KEYGEN" = snarkjs ] && [ ! -f "$P/pot$POW.ptau" ]; then
  "$S/snarkjs" powersoftau new bls12381 $POW "$P/pot0.ptau" >/dev/null
  "$S/snarkjs" powersoftau contribute "$P/pot0.ptau" "$P/pot1.ptau" -e="gapscope bench $POW" >/dev/null
  "$S/snarkjs" powersoftau prepare phase2 "$P/pot1.ptau" "$P/pot$POW.ptau.tmp" >/dev/null
  mv "$P/pot$POW.ptau.tmp" "$P/pot$POW.ptau"
  rm -f "$P/pot0.ptau" "$P/pot1.ptau"
fi
cd "$D"
python3 "$ROOT/bench/circom/gen_poseidon_circom.py" "$MODE" "$LEVELS" > circuit.circom
"$S/circom2" circuit.circom --r1cs --wasm --O2 --prime bls12381 -o . >/dev/null
# Random private inputs below r (fixed seed: reproducible witnesses).
python3 - "$MODE" "$LEVELS" > input.json <<'PY'
import json, random, sys
mode, L = sys.argv[1], int(sys.argv[2])
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
rnd = random.Random(20261202 + L)
f = lambda: str(rnd.randrange(r))
if mode == "merkle":
    print(json.dumps({"leaf": f(), "sib": [f() for _ in range(L)],
                      "bit": [str(rnd.randrange(2)) for _ in range(L)]}))
else:
    print(json.dumps({"x0": f(), "x": [f() for _ in range(L)]}))
PY
node circuit_js/generate_witness.js circuit_js/circuit.wasm input.json witness.wtns
if [ "$KEYGEN" = snarkjs ]; then
  "$S/snarkjs" groth16 setup circuit.r1cs "$P/pot$POW.ptau" c0.zkey >/dev/null
  "$S/snarkjs" zkey contribute c0.zkey circuit.zkey -e="gapscope bench $MODE $LOG" >/dev/null
  rm -f c0.zkey
else
  "${GS_BIN:-$ROOT/build/gapscope}" setup --quiet --r1cs circuit.r1cs --out .
fi
"$S/snarkjs" zkey export verificationkey circuit.zkey verification_key.json >/dev/null
"$S/snarkjs" r1cs info circuit.r1cs | grep -E "Constraints|Wires" || true
echo "key written to $D (levels $LEVELS)"
