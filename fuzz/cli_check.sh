#!/usr/bin/env bash
# The issue-16 invariant checked on the real command line: every input file
# of the fuzz corpora, fed to the gapscope command that reads it, built with
# ASan+UBSan (build-fuzz/gapscope, `make fuzz-build`), must
#   - exit 0, 1 or 2 (never 3, a signal, a sanitizer report or a hang),
#   - on exit 2, name the input file with a position (path:line, path@offset,
#     or "path table T row N" for an SQLite export)
#     unless it failed to open/read it or it disagrees with another input as
#     a whole (GS_ERR_MISMATCH: "1 public signals, the key expects 2"),
#   - leave no partial output: no "*.tmp*" file, and no output file at all
#     when the command failed (import and attach --convert: no run
#     directory or spans.csv/timeline.json; gate: no --out directory).
#
#   fuzz/cli_check.sh [DIR...]   default: fuzz/corpus/* and fuzz/regress/*
#
# The target of each input comes from its folder name (spans, jobs, json,
# zkey, wtns, scenario, trace, import, attach, gate; r1cs has no command
# that reads it).
# CLI_CHECK_MAX caps the inputs per folder (default: all).
set -u
cd "$(dirname "$0")/.."
B=${FUZZ_BUILD:-build-fuzz}
G=$PWD/$B/gapscope
[ -x "$G" ] || { echo "cli_check: $G missing (make fuzz-build)" >&2; exit 1; }
export ASAN_OPTIONS=exitcode=97:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1
max=${CLI_CHECK_MAX:-1000000}
W=$(mktemp -d "${TMPDIR:-/tmp}/gs_cli_check.XXXXXX")
trap 'rm -rf "$W"' EXIT
FIX=$PWD/test/fixtures
GOOD_SPANS=$PWD/fuzz/corpus/spans/seed-model-sample.spans.csv
n_in=0
n_bad=0

bad() {
  n_bad=$((n_bad + 1))
  echo "cli_check: FAIL $1: $2" >&2
  sed 's/^/    /' "$W/err" | head -6 >&2
}

# run NAME INPUT RUNDIR EXPECTED_PATH CMD...: runs CMD in RUNDIR and checks.
run() {
  local name=$1 input=$2 dir=$3 path=$4
  shift 4
  (cd "$dir" && timeout 60 "$@" >"$W/out" 2>"$W/err" </dev/null)
  local rc=$?
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$W/err"; then
    bad "$input" "$name: sanitizer report (exit $rc)"
  elif [ $rc -eq 124 ]; then
    bad "$input" "$name: hang (no exit within 60 s)"
  elif [ $rc -gt 2 ]; then
    bad "$input" "$name: exit $rc"
  elif [ $rc -eq 2 ] && ! grep -q 'cannot open\|cannot be read\|read error\|out of memory\|GS_ERR_MISMATCH' "$W/err" &&
       ! grep -qE "$(printf '%s' "$path" | sed 's/[.[\*^$/]/\\&/g')[^ :@']*(:[0-9]|@[0-9]| table [A-Za-z_0-9]+ row [0-9])" "$W/err"; then
    bad "$input" "$name: exit 2 without $path:LINE or $path@OFFSET"
  fi
  if find "$dir" -name '*.tmp*' | grep -q .; then
    bad "$input" "$name: partial output left: $(find "$dir" -name '*.tmp*' | head -1)"
  fi
  echo $rc >"$W/rc"
}

check_one() {
  local t=$1 f=$2 d=$W/run
  rm -rf "$d" && mkdir -p "$d"
  case "$t" in
    spans)
      cp "$f" "$d/spans.csv"
      run analyze "$f" "$d" "$d/spans.csv" "$G" analyze "$d" --quiet
      if [ "$(cat "$W/rc")" != 0 ] && [ -e "$d/summary.json" ]; then bad "$f" "analyze failed but wrote summary.json"; fi ;;
    jobs)
      cp "$GOOD_SPANS" "$d/spans.csv"
      cp "$f" "$d/jobs.csv"
      run analyze "$f" "$d" "$d/jobs.csv" "$G" analyze "$d" --quiet
      if [ "$(cat "$W/rc")" != 0 ] && [ -e "$d/summary.json" ]; then bad "$f" "analyze failed but wrote summary.json"; fi ;;
    json)
      cp "$f" "$d/in.json"
      run verify-vk "$f" "$d" "$d/in.json" "$G" verify "$d/in.json" "$FIX/chain_public.json" "$FIX/chain_proof.json"
      run verify-public "$f" "$d" "$d/in.json" "$G" verify "$FIX/chain_vk.json" "$d/in.json" "$FIX/chain_proof.json"
      run verify-proof "$f" "$d" "$d/in.json" "$G" verify "$FIX/chain_vk.json" "$FIX/chain_public.json" "$d/in.json" ;;
    zkey)
      tail -c +2 "$f" >"$d/in.zkey"
      run export-vk "$f" "$d" "$d/in.zkey" "$G" zkey export-vk "$d/in.zkey" "$d/vk.json"
      if [ "$(cat "$W/rc")" != 0 ] && [ -e "$d/vk.json" ]; then bad "$f" "export-vk failed but wrote vk.json"; fi ;;
    wtns)
      cp "$f" "$d/in.wtns"
      run prove "$f" "$d" "$d/in.wtns" "$G" prove --quiet --threads 1 --trusted-key "$FIX/chain.zkey" "$d/in.wtns" "$d/p.json" "$d/q.json"
      if [ "$(cat "$W/rc")" != 0 ] && { [ -e "$d/p.json" ] || [ -e "$d/q.json" ]; }; then bad "$f" "prove failed but wrote an output"; fi ;;
    scenario)
      # The files fuzz_scenario keeps beside its input, so includes resolve.
      printf '[engine]\nsynth_threads = 3\ntrim = background\n[inject.h2d]\ndist = fixed:1ms\nprobability = 0.5\n' >"$d/inc.ini"
      printf 'include = self.ini\n' >"$d/self.ini"
      printf '# samples\n1ms\n2.5ms\n40us\n' >"$d/d.txt"
      printf '1ms\n12\n' >"$d/bad.txt"
      printf '{"format":"gapscope-trace","version":1,"time_unit":"ms"}\n{"t":0,"id":1,"kind":"porep_c2","partitions":2}\n' >"$d/t.jsonl"
      cp "$GOOD_SPANS" "$d/m.csv"
      cp "$f" "$d/top.ini"
      GS_FZ_N=4 GS_FZ_D=25ms GS_FZ_E= GS_FZ_B=cpu \
        run dry-run "$f" "$d" "$d/" "$G" run "$d/top.ini" --dry-run --quiet --out "$d/out" ;;
    trace)
      cp "$f" "$d/in.jsonl"
      run replay-dry-run "$f" "$d" "$d/in.jsonl" "$G" replay "$d/in.jsonl" --dry-run --quiet --out "$d/out" ;;
    import)
      # The first byte picks the format, as in fuzz_import.
      local fmts=(auto chrome nsys daemon-log) b
      b=$(head -c 1 "$f" | od -An -tu1 | tr -d ' ')
      tail -c +2 "$f" >"$d/in"
      run import "$f" "$d" "$d/in" "$G" import "$d/in" --format "${fmts[$(( ${b:-0} & 3 ))]}" --out "$d/out" --no-charts --quiet
      if [ "$(cat "$W/rc")" != 0 ] && [ -e "$d/out" ]; then bad "$f" "import failed but left a run directory"; fi ;;
    attach)
      # A process image's records, "#sampler", the sampler's (fuzz_attach).
      mkdir -p "$d/run/attach-raw"
      awk -v a="$d/run/attach-raw/p5-0.rec" -v b="$d/run/attach-raw/sampler.rec" \
        'BEGIN { o = a; printf "" > a } $0 == "#sampler" && o == a { o = b; printf "" > b; next } { print > o }' "$f"
      run attach-convert "$f" "$d" "$d/run/attach-raw" "$G" attach --convert "$d/run" --quiet --no-report
      if [ "$(cat "$W/rc")" != 0 ] && { [ -e "$d/run/spans.csv" ] || [ -e "$d/run/timeline.json" ]; }; then
        bad "$f" "attach --convert failed but wrote an output"
      fi ;;
    gate)
      mkdir -p "$d/run"
      cp "$GOOD_SPANS" "$d/run/spans.csv"
      cp "$f" "$d/t.ini"
      run gate "$f" "$d" "$d/t.ini" "$G" gate "$d/run" --thresholds "$d/t.ini" --out "$d/g" --quiet
      if [ "$(cat "$W/rc")" = 2 ] && [ -e "$d/g" ]; then bad "$f" "gate refused its input but created --out"; fi ;;
    *) return ;;
  esac
  n_in=$((n_in + 1))
}

dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(fuzz/corpus/* fuzz/regress/*)
for dir in "${dirs[@]}"; do
  [ -d "$dir" ] || continue
  t=$(basename "$dir")
  k=0
  for f in "$dir"/*; do
    [ -f "$f" ] || continue
    k=$((k + 1))
    [ $k -le "$max" ] || break
    check_one "$t" "$(realpath "$f")"
  done
done
echo "cli_check: $n_in inputs through the CLI, $n_bad failures"
[ $n_bad -eq 0 ]
