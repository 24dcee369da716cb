#!/usr/bin/env bash
# Whole-command benchmark of scenario runs: `gapscope run` on the demo and its
# fix, and `gapscope report` re-rendering a saved run (no re-run).
#
#   bench/hyperfine-run.sh [RUNS]
#
# Writes build/bench/hyperfine-run.json and prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BIN=${GS_BIN:-build/gapscope}
mkdir -p build/bench
command -v hyperfine >/dev/null || { echo "hyperfine missing: make deps" >&2; exit 2; }
[ -x "$BIN" ] || make -s "$BIN"
"$BIN" run scenarios/demo.ini --quiet --out build/bench/run-demo >/dev/null
hyperfine --warmup 1 --runs "$RUNS" --export-json build/bench/hyperfine-run.json \
  -n "gapscope run demo.ini" "$BIN run scenarios/demo.ini --quiet --no-report --out build/bench/hf-demo" \
  -n "gapscope run demo-fixed.ini" "$BIN run scenarios/demo-fixed.ini --quiet --no-report --out build/bench/hf-fixed" \
  -n "gapscope report (saved run)" "$BIN report build/bench/run-demo"
