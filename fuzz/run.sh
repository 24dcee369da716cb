#!/usr/bin/env bash
# Runs the libFuzzer targets built by `make fuzz-build` (fuzz/README.md).
#
#   fuzz/run.sh fuzz SECONDS TARGET...   fuzz each target SECONDS; new inputs
#                                        go to build-fuzz/corpus/TARGET (not
#                                        committed), crashes to build-fuzz/
#                                        artifacts/TARGET/
#   fuzz/run.sh regress TARGET...        every committed input (fuzz/corpus/T,
#                                        fuzz/regress/T) once, then a short
#                                        fixed-seed run (deterministic; what
#                                        `make test` runs)
#
# Environment: FUZZ_BUILD (default build-fuzz), FUZZ_ARGS (extra libFuzzer
# flags), FUZZ_REGRESS_RUNS (mutations per target in regress mode, default
# per target below).  Exit status 1 when any target crashed, hung, leaked
# or broke an invariant; the log is build-fuzz/logs/TARGET.log.
set -u
cd "$(dirname "$0")/.."
mode=${1:?usage: fuzz/run.sh fuzz SECONDS TARGET... | regress TARGET...}
shift
secs=0
if [ "$mode" = fuzz ]; then
  secs=${1:?seconds}
  shift
fi
B=${FUZZ_BUILD:-build-fuzz}
mkdir -p "$B/logs"

# Executions per target in regress mode (the committed inputs count too):
# the corpus replay plus about 1-2 s of seeded mutations each on a loaded
# 2-core machine.
regress_runs() {
  case "$1" in
    zkey) echo 200 ;;
    spans|import|attach) echo 1000 ;;
    scenario|r1cs|wtns) echo 2000 ;;
    *) echo 4000 ;;
  esac
}

fail=0
for t in "$@"; do
  bin="$B/fuzz/fuzz_$t"
  [ -x "$bin" ] || { echo "fuzz: $bin missing (make fuzz-build)" >&2; exit 1; }
  dict=()
  [ -f "fuzz/dict/$t.dict" ] && dict=("-dict=fuzz/dict/$t.dict")
  seeds=()
  for d in "fuzz/corpus/$t" "fuzz/regress/$t"; do
    [ -d "$d" ] && seeds+=("$d")
  done
  log="$B/logs/$t.log"
  mkdir -p "$B/artifacts/$t"
  common=(-timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1
          "-artifact_prefix=$B/artifacts/$t/" "${dict[@]}")
  if [ "$mode" = regress ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/gs_fuzz_regress.XXXXXX")
    runs=${FUZZ_REGRESS_RUNS:-$(regress_runs "$t")}
    "$bin" "${common[@]}" -seed=1 -runs="$runs" ${FUZZ_ARGS:-} "$work" "${seeds[@]}" \
      </dev/null >"$log" 2>&1
    rc=$?
    rm -rf "$work"
  else
    mkdir -p "$B/corpus/$t"
    "$bin" "${common[@]}" -max_total_time="$secs" ${FUZZ_ARGS:-} "$B/corpus/$t" "${seeds[@]}" \
      </dev/null >"$log" 2>&1
    rc=$?
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ -z "$execs" ]; then   # -fork=N mode prints "#N: cov: ... exec/s N ..." lines only
    execs=$(grep -o '^#[0-9]*:' "$log" | tail -1 | tr -d '#:')
    speed=$(grep -o 'exec/s [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  fi
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  if [ "$rc" = 0 ]; then
    printf 'fuzz %-8s ok    %9s execs %6s/s  cov %5s  ft %6s  corpus %5s\n' \
      "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
  else
    fail=1
    printf 'fuzz %-8s FAILED (exit %s), log %s:\n' "$t" "$rc" "$log"
    grep -E 'ERROR|runtime error|invariant violated|Test unit written|SUMMARY' "$log" | head -8 | sed 's/^/    /'
  fi
done
exit $fail
