#!/usr/bin/env bash
# Does the demo reproduce every time?  Runs `gapscope gate` on
# scenarios/demo.ini (malloc_trim(0) under the tracker lock: must FAIL) and
# scenarios/demo-fixed.ini (trim = off: must PASS) N times each, alternating,
# with ci/thresholds.ini, while another process keeps one core busy (a shell
# busy loop, niced like the runs), and counts the outcomes.  Not part of
# `make test` (N = 50 takes about 15 minutes on 2 cores).
#
#   bench/demo-gate-reliability.sh [N] [OUTDIR]
#
# Prints one line per run (exit code and the gate's metrics) and a summary;
# writes OUTDIR/runs.tsv (default build/bench/demo-gate).  Exit 0 when demo.ini
# failed and demo-fixed.ini passed in at least N-1 runs each, else 1.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-50}
OUT=${2:-build/bench/demo-gate}
BIN=${GS_BIN:-build/gapscope}
[ -x "$BIN" ] || make -s CUDA=0 "$BIN"
mkdir -p "$OUT"
: >"$OUT/runs.tsv"

nice -n 10 sh -c 'while :; do :; done' &
HOG=$!
trap 'kill "$HOG" 2>/dev/null || true' EXIT

# RUN_DIR -> the gate's metrics and the median malloc_trim(0) step in ms
metrics() {
    python3 - "$1" <<'PY' 2>/dev/null || echo "no gate.json"
import json, statistics, sys
d = sys.argv[1]
g = json.load(open(d + "/gate.json"))
out = ["%s=%.4g" % (c["name"].split()[0], c["value"]) for c in g["checks"]]
trims = []
for line in open(d + "/spans.csv"):
    f = line.split(",")
    if line[0] != "#" and len(f) > 4 and f[4] == "malloc_trim" and f[0].isdigit():
        trims.append((int(f[1]) - int(f[0])) / 1e6)
if trims:
    out.append("trim_ms_median=%.1f trim_ms_min=%.1f trims=%d" % (statistics.median(trims), min(trims), len(trims)))
print(" ".join(out))
PY
}

buggy_fail=0 buggy_pass=0 fixed_fail=0 fixed_pass=0 other=0
for i in $(seq 1 "$N"); do
    for sc in demo demo-fixed; do
        d="$OUT/$sc-$i"
        rm -rf "$d"
        set +e
        nice -n 10 "$BIN" gate "scenarios/$sc.ini" --thresholds ci/thresholds.ini \
            --run-out "$d" --quiet >"$d.log" 2>&1
        rc=$?
        set -e
        m=$(metrics "$d")
        printf '%s\t%d\t%d\t%s\n' "$sc" "$i" "$rc" "$m" | tee -a "$OUT/runs.tsv"
        case "$sc:$rc" in
        demo:1) buggy_fail=$((buggy_fail + 1)) ;;
        demo:0) buggy_pass=$((buggy_pass + 1)) ;;
        demo-fixed:0) fixed_pass=$((fixed_pass + 1)) ;;
        demo-fixed:1) fixed_fail=$((fixed_fail + 1)) ;;
        *) other=$((other + 1)) ;;
        esac
        # Keep the directories of unexpected outcomes only.
        if { [ "$sc" = demo ] && [ $rc -eq 1 ]; } || { [ "$sc" = demo-fixed ] && [ $rc -eq 0 ]; }; then
            rm -rf "$d" "$d.log"
        fi
    done
done
echo "demo.ini:       gate failed $buggy_fail/$N, passed $buggy_pass/$N"
echo "demo-fixed.ini: gate passed $fixed_pass/$N, failed $fixed_fail/$N"
[ "$other" -eq 0 ] || echo "runs with another exit code: $other (logs in $OUT)"
[ "$buggy_fail" -ge $((N - 1)) ] && [ "$fixed_pass" -ge $((N - 1)) ] && [ "$other" -eq 0 ]
