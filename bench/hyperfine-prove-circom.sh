#!/usr/bin/env bash
# `gapscope prove` as a snarkjs user meets it (issue 15), on a circom-compiled
# Poseidon key the project does not ship (bench/circom/make-key.sh), against
# snarkjs 0.7.6 on the same .zkey/.wtns, in one hyperfine run:
#
#   gapscope prove (checked key)  the default command on a key checked before
#                                  (its key record exists: hash, no checks)
#   gapscope prove (first use)     the default command with no record: every
#                                  point's subgroup check, record written
#   gapscope prove --trusted-key   no checks at all
#   snarkjs groth16 prove          the CLI (node start included)
#
# then peak RSS of each gapscope variant (/usr/bin/time), snarkjs's in-process
# groth16.prove time (what the issue's 11.2 s is), the stage times of one
# gapscope run, and `snarkjs groth16 verify` of gapscope's proof.
#
#   bench/hyperfine-prove-circom.sh LOG [RUNS] [MODE]   e.g. 16 5 merkle
#   KEYGEN=gapscope bench/hyperfine-prove-circom.sh ...  (key from `gapscope setup --r1cs`)
#
# Writes build/bench/hyperfine-circom-MODE-LOG.json and .txt.
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${1:?usage: bench/hyperfine-prove-circom.sh LOG [RUNS] [merkle|chain]}
RUNS=${2:-5}
MODE=${3:-merkle}
BIN=${GS_BIN:-build/gapscope}
SNARKJS=node_modules/.bin/snarkjs
KEYGEN=${KEYGEN:-snarkjs}
SUF=$([ "$KEYGEN" = snarkjs ] || echo "-$KEYGEN")
D=build/bench/circom-$MODE-$LOG$SUF
OUT=build/bench/hyperfine-circom-$MODE-$LOG$SUF
REC=$PWD/build/bench/key-records-$MODE-$LOG$SUF
command -v hyperfine >/dev/null || { echo "hyperfine missing: make deps" >&2; exit 2; }
[ -x "$BIN" ] || make -s "$BIN"
[ -f "$D/circuit.zkey" ] || KEYGEN=$KEYGEN bench/circom/make-key.sh "$LOG" "$MODE"
Z=$D/circuit.zkey W=$D/witness.wtns
P="$BIN prove --quiet --key-records $REC $Z $W $D/proof.json $D/public.json"
rm -rf "$REC"
$P                                           # the record for the "checked key" runs
{
  echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# key $Z: $(stat -c %s "$Z") bytes; $("$SNARKJS" r1cs info "$D/circuit.r1cs" 2>/dev/null | grep -E 'Constraints' | sed 's/.*# of //')"
} | tee "$OUT.txt"
# One --prepare per command, in command order (a single --prepare would
# apply to all of them): the first-use runs start without the record.
hyperfine --warmup 1 --runs "$RUNS" --export-json "$OUT.json" \
  -n "gapscope prove (checked key, 2^$LOG)" --prepare true "$P" \
  -n "gapscope prove (first use, 2^$LOG)" --prepare "rm -rf $REC" "$P" \
  -n "gapscope prove --trusted-key (2^$LOG)" --prepare true \
     "$BIN prove --quiet --trusted-key $Z $W $D/proof.json $D/public.json" \
  -n "snarkjs groth16 prove (2^$LOG)" --prepare true \
     "$SNARKJS groth16 prove $Z $W $D/proof_js.json $D/public_js.json" \
  | tee -a "$OUT.txt"
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
{
  $P                                         # the record again (first-use runs removed it)
  echo "peak RSS (KiB): checked key $(rss $P), first use $(rm -rf "$REC"; rss $P), trusted $(rss $BIN prove --quiet --trusted-key $Z $W $D/proof.json $D/public.json); key file $(( $(stat -c %s "$Z") / 1024 )) KiB"
  node -e '
    const s = require("snarkjs");
    (async () => {
      const t0 = Date.now();
      await s.groth16.prove(process.argv[1], process.argv[2]);
      console.log("snarkjs in-process groth16.prove: " + ((Date.now() - t0) / 1000).toFixed(2) + " s");
      process.exit(0);
    })();' "$Z" "$W"
  echo "stages of one gapscope prove (checked key):"
  $BIN prove --key-records "$REC" "$Z" "$W" "$D/proof.json" "$D/public.json" 2>&1 | grep -E "stage|key:"
  "$SNARKJS" groth16 verify "$D/verification_key.json" "$D/public.json" "$D/proof.json"
} 2>&1 | tee -a "$OUT.txt"
