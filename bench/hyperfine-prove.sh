#!/usr/bin/env bash
# Whole-command benchmark: `gapscope prove` against `snarkjs groth16 prove` on
# the same .zkey and .wtns (made by `gapscope setup`), measured in one
# hyperfine run so the ratio comes from one machine state.
#
#   bench/hyperfine-prove.sh LOG [RUNS]     e.g. bench/hyperfine-prove.sh 16 5
#
# Writes build/bench/hyperfine-prove-LOG.json and prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${1:?usage: bench/hyperfine-prove.sh LOG [RUNS]}
RUNS=${2:-5}
BIN=${GS_BIN:-build/gapscope}
SNARKJS=node_modules/.bin/snarkjs
D=build/bench/setup-$LOG
mkdir -p build/bench
command -v hyperfine >/dev/null || { echo "hyperfine missing: make deps" >&2; exit 2; }
[ -x "$BIN" ] || make -s "$BIN"
[ -f "$D/circuit.zkey" ] || "$BIN" setup --log "$LOG" --out "$D"
cmds=("$BIN prove --quiet --trusted-key $D/circuit.zkey $D/witness.wtns $D/proof.json $D/public.json")
names=("gapscope prove (cpu, 2^$LOG)")
if [ -x "$SNARKJS" ]; then
  cmds+=("$SNARKJS groth16 prove $D/circuit.zkey $D/witness.wtns $D/proof_js.json $D/public_js.json")
  names+=("snarkjs groth16 prove (2^$LOG)")
fi
args=()
for i in "${!cmds[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done
hyperfine --warmup 1 --runs "$RUNS" --export-json "build/bench/hyperfine-prove-$LOG.json" "${args[@]}"
"$BIN" verify "$D/verification_key.json" "$D/public.json" "$D/proof.json"
